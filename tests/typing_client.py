"""A small user program over irscore's public API, written the way a typed client
would write it. tests/project/test_typing.py checks it with ``mypy --strict`` against the
installed package (its hints and .pyi stubs) and runs it.

``assert_type(value, T)`` states the type a checker must infer for each public entry
point (evaluate and its per_query/output overloads, the readers and converters,
compare, the batch Accumulator, the statistics entry points, the XML and R&S
families): mypy fails on any other inferred type; at run time it returns ``value``."""
from __future__ import annotations

import importlib.util
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Tuple, Union

import numpy as np
import numpy.typing as npt
from typing_extensions import assert_type

import irscore
from irscore import batch, crp, rocchio, stats
from irscore import xml as X
from irscore.compat import ir_measures as irm


def classic(tmp: Path) -> Dict[str, float]:
    (tmp / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d1 1\n")
    (tmp / "run").write_text("q1 Q0 d1 1 0.9 r\nq1 Q0 d2 2 0.5 r\nq1 Q0 d3 3 0.1 r\nq2 Q0 d9 1 1.0 r\n")
    qrels = assert_type(irscore.read_qrels(tmp / "qrels"), irscore.Qrels)
    run = assert_type(irscore.read_run(str(tmp / "run")), irscore.Run)
    assert_type(irscore.as_qrels({"q1": {"d1": 1}}), irscore.Qrels)
    assert_type(irscore.as_run({"q1": {"d1": 1.0}}, "input", run_id="r"), irscore.Run)
    means = assert_type(irscore.evaluate(qrels, run, ["AP", "nDCG@10", "P@1"]), Dict[str, float])
    per_query = assert_type(irscore.evaluate(qrels, run, "map", per_query=True), Dict[str, Dict[str, float]])
    assert isinstance(per_query["map"], dict)
    flag = bool(len(means))
    assert_type(irscore.evaluate(qrels, run, "map", per_query=flag),
                Union[Dict[str, float], Dict[str, Dict[str, float]]])
    assert_type(irscore.parse_measure("nDCG@10"), irscore.Measure)
    agg = irm.calc_aggregate(["AP", "P@1"], qrels, run)
    assert_type(agg, irm.Results)
    assert_type(agg["AP"], float)
    if importlib.util.find_spec("pandas") is not None:
        frame = assert_type(irscore.evaluate(qrels, run, ["map"], per_query=True, output="pandas"), Any)
        assert list(frame.columns) == ["query_id", "map"]
    out: Dict[str, float] = {}
    for name, value in means.items():
        assert isinstance(value, float)
        out[name] = value
    return out


def arrays() -> Dict[str, npt.NDArray[np.float64]]:
    scores = np.array([[0.9, 0.8, 0.1], [0.2, 0.7, 0.5]])
    labels = np.array([[0, 2, 1], [1, 0, 0]])
    result: Dict[str, npt.NDArray[np.float64]] = batch.evaluate(scores, labels, ["nDCG@2", "AP"], n_jobs=1)
    ndcg: npt.NDArray[np.float64] = batch.ndcg(scores, labels, 2)
    assert np.allclose(ndcg, result["nDCG@2"])
    rn: Dict[str, npt.NDArray[np.float64]] = rocchio.from_arrays(scores, labels, N=10)
    result["Rnorm"] = rn["Rnorm"]
    curves: Dict[str, crp.CRPCurve] = irscore.crp_curves({"q": {"a": 1}}, {"q": {"x": 2.0, "a": 1.0}})
    loss: float = curves["q"].loss
    result["CRP_loss"] = np.array([loss])
    return result


def accumulate() -> Dict[str, float]:
    acc = batch.Accumulator(["nDCG@2", "RR"], keep_per_query=True)
    acc.update(np.array([[0.9, 0.8, 0.1]]), np.array([[0, 2, 1]]))
    acc.update(np.array([[0.2, 0.7, 0.5]]), np.array([[1, 0, 0]]))
    assert_type(acc.per_query(), Dict[str, npt.NDArray[Any]])
    return assert_type(acc.compute(), Dict[str, float])


def statistics(tmp: Path) -> float:
    a = np.array([0.5, 0.25, 0.75, 0.5, 1.0])
    b = np.array([0.25, 0.25, 0.5, 0.75, 0.5])
    p, lo, hi = assert_type(stats.t_test([a - b]), Tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]])
    assert_type(stats.randomization_test([a - b], n_resamples=200, seed=1), Tuple[npt.NDArray[Any], npt.NDArray[Any]])
    assert_type(stats.mean_ci(a), Tuple[float, float])
    assert_type(stats.urisk(a, b), Union[float, npt.NDArray[Any]])
    assert_type(stats.anova(np.column_stack([a, b])), stats.Anova)
    qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 1}, "q3": {"d2": 1}}
    runs = {"a": {"q1": {"d1": 1.0, "d2": 0.5}, "q2": {"d1": 1.0}, "q3": {"d1": 1.0, "d2": 0.5}},
            "b": {"q1": {"d2": 1.0, "d1": 0.5}, "q2": {"d2": 1.0}, "q3": {"d2": 1.0}}}
    cmp = assert_type(irscore.compare(qrels, runs, ["map"]), stats.Comparison)
    assert_type(cmp.to_text(), str)
    return float(p[0])


def organization(tmp: Path) -> float:
    gold: List[List[List[str]]] = [[["d1"], ["d2", "d3"]], [["d4"]]]
    system: List[List[List[str]]] = [[["d1", "d2"]], [["d3"], ["d4"]]]
    r = assert_type(irscore.reliability_sensitivity(gold, system, n=4, w_n=0.8), irscore.organization.RSResult)
    f: float = r["F_priority"]
    (tmp / "org.tsv").write_text("1\t1\tc1\td1\n1\t1\tc2\td2\n")  # topic level cluster doc
    assert_type(irscore.read_organization(tmp / "org.tsv"), irscore.Organization)
    return f


def focused(tmp: Path) -> float:
    (tmp / "xq").write_text("1 Q0 d1 500 1000 200 200:300 600:200\n1 Q0 d3 0 700\n")
    (tmp / "xr").write_text("1 Q0 d1 1 4.0 r 200 200\n1 Q0 d3 2 3.0 r 0 700\n")
    qrels = assert_type(X.read_passage_qrels(tmp / "xq"), X.XmlQrels)
    run = assert_type(X.read_fol_run(tmp / "xr", qrels), X.XmlRun)
    values = assert_type(X.evaluate(qrels, run, ["MAiP", "nxCG@10"]), Dict[str, float])
    assert_type(X.evaluate(qrels, run, "MAiP", per_query=True), Dict[str, Dict[str, float]])
    maip = values["MAiP"]
    assert isinstance(maip, float)
    return maip


def main() -> int:
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        print(irscore.__version__, classic(tmp), sorted(arrays()), accumulate(), statistics(tmp),
              organization(tmp), focused(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
