"""One vocabulary across families: the new spellings, and the old ones kept as
deprecated aliases for one release (each warns once, with the same result)."""
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import irscore
from irscore import crp, rocchio
from irscore import xml as X
from irscore.core.deprecation import reset_warnings

S = np.asarray([[0.9, 0.8, 0.1, 0.4], [0.2, 0.7, 0.5, 0.3]])
Y = np.asarray([[0, 2, 1, 0], [1, 0, 0, 1]])
POOL = np.asarray([[2, 2, 1], [2, 3, 0]])


def _same(a, b):
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(np.asarray(a[k]), np.asarray(b[k]))


def _warns_once(call, match):
    """The old spelling warns (FutureWarning naming the new one) on first use
    only, and returns what it returns."""
    reset_warnings()
    with pytest.warns(FutureWarning, match=match):
        first = call()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        second = call()
    return first, second


@pytest.mark.parametrize("module", [rocchio, crp])
def test_pool_is_n_relevant(module):
    new = module.from_arrays(S, Y, n_relevant=POOL, N=10) if module is rocchio else \
        module.from_arrays(S, Y, n_relevant=POOL)
    kw = {"N": 10} if module is rocchio else {}
    first, second = _warns_once(lambda: module.from_arrays(S, Y, pool=POOL, **kw), "n_relevant")
    _same(first, new)
    _same(second, new)
    with pytest.raises(TypeError, match="n_relevant"):
        module.from_arrays(S, Y, pool=POOL, n_relevant=POOL, **kw)


@pytest.mark.parametrize("module", [rocchio, crp])
def test_offsets_are_keyword_only(module):
    s, y, off = S.ravel(), Y.ravel(), np.asarray([0, 4, 8])
    new = module.from_arrays(s, y, offsets=off)
    first, second = _warns_once(lambda: module.from_arrays(s, y, off), "keyword-only")
    _same(first, new)
    _same(second, new)
    with pytest.raises(TypeError):
        module.from_arrays(s, y, off, off)


def test_crp_curves_from_arrays_replaces_the_flag():
    new = crp.curves_from_arrays(S, Y)
    assert len(new) == 2 and all(isinstance(c, crp.CRPCurve) for c in new)
    first, _ = _warns_once(lambda: crp.from_arrays(S, Y, curves=True), "curves_from_arrays")
    for a, b in zip(first, new):
        np.testing.assert_array_equal(a.crp, b.crp)
        assert a.loss == b.loss
    scalars = crp.from_arrays(S, Y)
    assert [c.loss for c in new] == list(scalars["CRP_loss"])


def test_rs_result_per_query():
    gold = [[["a", "b"]], [["c"]]]
    system = [[["a"], ["b", "c"]]]
    r = irscore.reliability_sensitivity(gold, system)
    assert set(r.per_query) == {"1"}
    first, second = _warns_once(lambda: r.per_topic, "per_query")
    assert first == second == r.per_query


def test_xml_run_id():
    run = X.XmlRun.from_spans({"1": [("d1", 0, 10)]}, run_id="mine")
    assert run.run_id == "mine"
    first, _ = _warns_once(lambda: run.runid, "run_id")
    assert first == "mine"
    old, _ = _warns_once(lambda: X.XmlRun.from_spans({"1": [("d1", 0, 10)]}, runid="old"), "run_id")
    assert old.run_id == "old"


def _xml_pair():
    q = X.XmlQrels.from_passages({"1": [("d1", 0, 100), ("d2", 50, 80)]}, doclens={"d1": 200, "d2": 100})
    run = X.XmlRun.from_spans({"1": [("d1", 0, 50), ("d2", 0, 100), ("d1", 100, 200)]})
    return q, run


def test_xml_evaluate_takes_a_str_or_a_list():
    q, run = _xml_pair()
    assert X.evaluate(q, run, "MAiP") == X.evaluate(q, run, ["MAiP"])
    assert irscore.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "map") == {"map": 1.0}
    assert list(irscore.batch.evaluate(S, Y, "RR")) == ["RR"]


def test_xml_beta_names_are_unambiguous():
    q, run = _xml_pair()
    names = ["hixF@2", "MAgP_RiC", "gP_RiC@2"]
    new = X.evaluate(q, run, names, hix_beta=2.0, ric_beta=0.5)
    assert new != X.evaluate(q, run, names)
    first, _ = _warns_once(lambda: X.evaluate(q, run, ["hixF@2"], beta=2.0), "hix_beta")
    assert first == {"hixF@2": new["hixF@2"]}
    first, _ = _warns_once(lambda: X.evaluate(q, run, ["MAgP_RiC", "gP_RiC@2"], beta_ric=0.5), "ric_beta")
    assert first == {"MAgP_RiC": new["MAgP_RiC"], "gP_RiC@2": new["gP_RiC@2"]}
    h, _ = _warns_once(lambda: X.hixeval(q, run, cutoffs=(2,), beta=2.0), "hix_beta")
    assert h == X.hixeval(q, run, cutoffs=(2,), hix_beta=2.0)
    g, _ = _warns_once(lambda: X.generalized_precision(q, run, cutoffs=(2,), beta=0.5), "ric_beta")
    assert g == X.generalized_precision(q, run, cutoffs=(2,), ric_beta=0.5)


def test_registered_parameters_are_declared_and_parsed_once():
    from irscore.core.registry import EXTERNAL

    fam = EXTERNAL["Rnorm"]
    assert fam.param_names == ("N", "variant", "graded", "rel")
    assert fam.parse_params([("N", "10"), ("graded", "true")]) == {"N": 10, "variant": "default",
                                                                  "graded": True, "rel": None}
    with pytest.raises(ValueError, match="variant must be one of default, smart1966"):
        irscore.core.measures.parse_measure("Rnorm(variant=fast)")


REVEAL = '''
import irscore
from irscore import xml as X
reveal_type(irscore.evaluate({}, {}, ["map"]))
reveal_type(irscore.evaluate({}, {}, "map", per_query=True))
reveal_type(X.evaluate(X.XmlQrels.from_passages({}), X.XmlRun.from_spans({}), "MAiP", per_query=True))
reveal_type(X.evaluate(X.XmlQrels.from_passages({}), X.XmlRun.from_spans({})))
'''


def test_per_query_return_types_are_precise(tmp_path):
    pytest.importorskip("mypy")
    script = tmp_path / "reveal.py"
    script.write_text(REVEAL)
    src = Path(irscore.__file__).resolve().parent.parent
    proc = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", "--ignore-missing-imports",
                           "--no-incremental", "--cache-dir", str(tmp_path / "cache"), str(script)],
                          capture_output=True, text=True, cwd=tmp_path,
                          # a checkout's src/ goes on MYPYPATH; an installed irscore mypy finds itself
                          env={"PATH": ""} if src.name == "site-packages" else {"MYPYPATH": str(src), "PATH": ""})
    notes = [line.split("Revealed type is ")[1].replace("builtins.", "")
             for line in proc.stdout.splitlines() if "Revealed type" in line]
    assert notes == ['"dict[str, float]"', '"dict[str, dict[str, float]]"',
                     '"dict[str, dict[str, float]]"', '"dict[str, float]"'], proc.stdout + proc.stderr
