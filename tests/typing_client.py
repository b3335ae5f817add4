"""A small user program over irscore's public API, written the way a typed client
would write it. tests/project/test_typing.py checks it with ``mypy --strict`` against the
installed package (its hints and .pyi stubs) and runs it."""
from __future__ import annotations

import importlib.util
import sys
import tempfile
from pathlib import Path
from typing import Dict, List

import numpy as np
import numpy.typing as npt

import irscore
from irscore import batch, crp, rocchio
from irscore import xml as X


def classic(tmp: Path) -> Dict[str, float]:
    (tmp / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d1 1\n")
    (tmp / "run").write_text("q1 Q0 d1 1 0.9 r\nq1 Q0 d2 2 0.5 r\nq1 Q0 d3 3 0.1 r\nq2 Q0 d9 1 1.0 r\n")
    qrels: irscore.Qrels = irscore.read_qrels(tmp / "qrels")
    run: irscore.Run = irscore.read_run(str(tmp / "run"))
    means = irscore.evaluate(qrels, run, ["AP", "nDCG@10", "P@1"])
    per_query = irscore.evaluate(qrels, run, "map", per_query=True)
    assert isinstance(per_query["map"], dict)
    if importlib.util.find_spec("pandas") is not None:
        frame = irscore.evaluate(qrels, run, ["map"], per_query=True, output="pandas")
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


def organization() -> float:
    gold: List[List[List[str]]] = [[["d1"], ["d2", "d3"]], [["d4"]]]
    system: List[List[List[str]]] = [[["d1", "d2"]], [["d3"], ["d4"]]]
    r = irscore.reliability_sensitivity(gold, system, n=4, w_n=0.8)
    f: float = r["F_priority"]
    return f


def focused(tmp: Path) -> float:
    (tmp / "xq").write_text("1 Q0 d1 500 1000 200 200:300 600:200\n1 Q0 d3 0 700\n")
    (tmp / "xr").write_text("1 Q0 d1 1 4.0 r 200 200\n1 Q0 d3 2 3.0 r 0 700\n")
    qrels: X.XmlQrels = X.read_passage_qrels(tmp / "xq")
    run: X.XmlRun = X.read_fol_run(tmp / "xr", qrels)
    values = X.evaluate(qrels, run, ["MAiP", "nxCG@10"])
    maip = values["MAiP"]
    assert isinstance(maip, float)
    return maip


def main() -> int:
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        print(irscore.__version__, classic(tmp), sorted(arrays()), organization(), focused(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
