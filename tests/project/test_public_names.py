"""One spelling per public name across families (``n_relevant``, ``per_query``,
``run_id``, keyword-only ``offsets``, ``hix_beta``/``ric_beta``,
``crp.curves_from_arrays``): the names work, and the spellings of before 0.1.0
(never released) are refused with the interpreter's error, not accepted as aliases."""
import numpy as np
import pytest

import irscore
from irscore import crp, rocchio
from irscore import xml as X

S = np.asarray([[0.9, 0.8, 0.1, 0.4], [0.2, 0.7, 0.5, 0.3]])
Y = np.asarray([[0, 2, 1, 0], [1, 0, 0, 1]])
POOL = np.asarray([[2, 2, 1], [2, 3, 0]])


def _same(a, b):
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(np.asarray(a[k]), np.asarray(b[k]))


@pytest.mark.parametrize("module", [rocchio, crp])
def test_n_relevant_and_keyword_only_offsets(module):
    kw = {"N": 10} if module is rocchio else {}
    assert module.from_arrays(S, Y, n_relevant=POOL, **kw).keys() == module.from_arrays(S, Y, **kw).keys()
    with pytest.raises(TypeError, match="pool"):
        module.from_arrays(S, Y, pool=POOL, **kw)
    s, y, off = S.ravel(), Y.ravel(), np.asarray([0, 4, 8])
    _same(module.from_arrays(s, y, offsets=off), module.from_arrays(S, Y))
    with pytest.raises(TypeError, match="positional"):
        module.from_arrays(s, y, off)


def test_crp_curves_from_arrays():
    curves = crp.curves_from_arrays(S, Y)
    assert len(curves) == 2 and all(isinstance(c, crp.CRPCurve) for c in curves)
    assert [c.loss for c in curves] == list(crp.from_arrays(S, Y)["CRP_loss"])
    with pytest.raises(TypeError, match="curves"):
        crp.from_arrays(S, Y, curves=True)


def test_rs_result_per_query():
    r = irscore.reliability_sensitivity([[["a", "b"]], [["c"]]], [[["a"], ["b", "c"]]])
    assert set(r.per_query) == {"1"}
    with pytest.raises(AttributeError):
        r.per_topic


def test_xml_run_id():
    run = X.XmlRun.from_spans({"1": [("d1", 0, 10)]}, run_id="mine")
    assert run.run_id == "mine"
    with pytest.raises(AttributeError):
        run.runid
    with pytest.raises(TypeError, match="runid"):
        X.XmlRun.from_spans({"1": [("d1", 0, 10)]}, runid="old")


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
    assert X.evaluate(q, run, ["hixF@2"], hix_beta=2.0) == {"hixF@2": new["hixF@2"]}
    for old in ("beta", "beta_ric"):
        with pytest.raises(TypeError, match=f"unexpected options \\['{old}'\\]"):
            X.evaluate(q, run, names, **{old: 0.5})
    assert X.hixeval(q, run, cutoffs=(2,), hix_beta=2.0) != X.hixeval(q, run, cutoffs=(2,))
    assert X.generalized_precision(q, run, cutoffs=(2,), ric_beta=0.5) != X.generalized_precision(q, run, cutoffs=(2,))
    with pytest.raises(TypeError, match="beta"):
        X.hixeval(q, run, cutoffs=(2,), beta=2.0)
    with pytest.raises(TypeError, match="beta"):
        X.generalized_precision(q, run, cutoffs=(2,), beta=0.5)


def test_no_deprecation_layer():
    with pytest.raises(ModuleNotFoundError):
        __import__("irscore.core.deprecation")


def test_registered_parameters_are_declared_and_parsed_once():
    from irscore.core.registry import EXTERNAL

    fam = EXTERNAL["Rnorm"]
    assert fam.param_names == ("N", "variant", "graded", "rel")
    assert fam.parse_params([("N", "10"), ("graded", "true")]) == {"N": 10, "variant": "default",
                                                                  "graded": True, "rel": None}
    with pytest.raises(ValueError, match="variant must be one of default, smart1966"):
        irscore.core.measures.parse_measure("Rnorm(variant=fast)")
