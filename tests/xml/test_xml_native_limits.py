"""The XML kernels at the edges of int64 and with parameters out of range
(found in review): a cutoff near 2**63 overflowed lo + k and read past the
scratch of ngP; npoints = 2**63 - 1 wrapped the output-shape check; the BiC
distance |entry - bep| overflowed; T2I's pos + tolerance overflowed; alpha and
cutoffs of two kernels were not checked.  Each case: a clean error, or the
value the reference implementation (tests/xml_reference.py) gives."""
import warnings

import numpy as np
import pytest

import xml_reference as ref
from irscore import _xml_focused, _xml_gp, _xml_xcg
from irscore import xml as X

I = lambda *a: np.array(a, dtype=np.int64)  # noqa: E731,E741


def test_ng_cutoff_near_the_top_of_int64_is_the_whole_list():
    q = X.XmlQrels.from_elements({"1": [("d", 0, 10, 1.0, 1.0)], "2": [("d", 0, 10, 1.0, 1.0)]})
    run = X.XmlRun.from_spans({"1": [("d", 0, 10)], "2": [("d", 0, 10), ("d", 0, 5)]})
    want = X.evaluate(q, run, ["ngP_o@5", "ngR_o@5"], per_query=True)
    got = X.evaluate(q, run, [f"ngP_o@{2 ** 63 - 1}", f"ngR_o@{2 ** 63 - 1}"], per_query=True)
    assert list(got.values()) == list(want.values())


@pytest.mark.parametrize("npoints", [2 ** 63 - 1, 2 ** 31, -1])
def test_curve_kernels_refuse_npoints_out_of_range(npoints):
    with pytest.raises(ValueError, match="npoints"):
        _xml_focused.interpolated_precision(I(0, 1), I(1), I(2), I(2), npoints, 0, np.zeros((1, 1)))
    with pytest.raises(ValueError, match="npoints"):
        _xml_xcg.xcg_measures((I(0, 1), np.array([1.0])), I(), (I(0, 2), np.array([1.0, 1.0])), I(1), npoints, 0,
                              np.zeros((1, 1)), np.zeros((1, 1)), np.zeros(1), np.zeros((1, 1)))


def test_bic_best_entry_points_out_of_range_are_refused_and_distances_never_wrap():
    run = X.XmlRun.from_spans({"1": [("d", 0, 10)]})
    for bep in (-2 ** 63, 2 ** 63 - 10000, 2 ** 62 + 1):
        with pytest.raises(ValueError, match="best entry point"):
            X.XmlQrels.from_passages({"1": [("d", 0, 10)]}, beps={("1", "d"): bep})
    # at the edge that is allowed, the public API agrees with the reference
    q = X.XmlQrels.from_passages({"1": [("d", 0, 10)]}, beps={("1", "d"): -2 ** 62})
    names = ["MAgP_BiC", "gP_BiC@1"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert X.evaluate(q, run, names, per_query=True) == {n: {"1": 0.0} for n in names}
        got08 = X.inex2008.evaluate(q, run, names, per_query=True)
        assert got08 == ref.inex2008_evaluate(q, run, names, per_query=True)
    # the kernel itself: entry 2**63 - 1 against bep -2**63 + 10 is far apart (it wrapped to 11)
    og, om, ov = np.zeros((1, 1)), np.zeros(1), np.zeros(1, np.int64)
    bic = {"ndocs": 1, "task": 1, "beta": 0.25, "bep_distance": 500}
    _xml_gp.gp_measures((I(0, 1), I(0), I(2 ** 63 - 1), np.ones(1), np.ones(1)), (I(0, 1), I(0), I(0), I(10)),
                        (I(0, 1), I(0), I(-2 ** 63 + 10)), bic, I(1), og, om, ov)
    assert og[0, 0] == 0.0
    # a near one scores as the distance says: 490 of 500
    _xml_gp.gp_measures((I(0, 1), I(0), I(2 ** 62), np.ones(1), np.ones(1)), (I(0, 1), I(0), I(0), I(10)),
                        (I(0, 1), I(0), I(2 ** 62 + 10)), bic, I(1), og, om, ov)
    assert og[0, 0] == pytest.approx(490 / 500)


@pytest.mark.parametrize("tol", [50, 10 ** 18, 2 ** 62, 2 ** 63 - 1])
def test_t2i_tolerance_up_to_the_top_of_int64(tol):
    from irscore.xml.context import EvalContext
    from irscore.xml.inex_values import compute_extra
    q = X.XmlQrels.from_passages({"1": [("d", 10, 20)]}, doclens={"d": 100})
    run = X.XmlRun.from_spans({"1": [("d", 5, 30)]})
    ctx = EvalContext(q, run, alpha=1.0, hix_alpha=1.0, quantisation="auto", ideal_overlap="ancestor",
                      normalise=False, complete=False, use_elements=False)
    names = ["T2IP@1", "T2IR@1"]
    fams = {n: "t2i" for n in names}
    want = ref.compute_extra(ctx, names, fams, {"tolerance": tol})
    assert compute_extra(ctx, names, fams, {"tolerance": tol}) == want
    assert X.evaluate(q, run, names, tolerance=tol, per_query=True) == want
    assert want["T2IR@1"]["1"] == 1.0


def test_focused_pass_and_hixeval_at_check_their_parameters():
    n = 2
    E, Z = I(), I(0, 0)

    def focused(alpha_hix, alpha_xcg):
        outs = np.zeros((7, n), np.int64), np.zeros((2, n))
        _xml_focused.focused_pass((I(0, 2), I(0, 0), I(0, 0), I(10, 5)), (I(0, 1), I(0), I(0), I(10)),
                                  (Z, E, E, E, np.zeros(0)), (Z, E, E, E), np.zeros(0),
                                  {"ndocs": 1, "alpha_hix": alpha_hix, "alpha_xcg": alpha_xcg, "seen_mode": 1},
                                  *outs)
        return outs

    focused(0.5, 1.0)
    for a, b in ((float("nan"), 1.0), (1.0, 2.0), (-0.1, 0.5), (0.5, float("inf"))):
        with pytest.raises(ValueError, match="alpha"):
            focused(a, b)
    op, orr = np.zeros((1, 1)), np.zeros((1, 1))
    for k in (-5, 0):
        with pytest.raises(ValueError, match="cutoffs"):
            _xml_focused.hixeval_at(I(0, 1), np.ones(1), I(10), np.ones(1), I(k), op, orr)
    _xml_focused.hixeval_at(I(0, 1), np.ones(1), I(10), np.ones(1), I(1), op, orr)
    assert op[0, 0] == pytest.approx(0.1) and orr[0, 0] == pytest.approx(1.0)


def test_hixeval_of_crossing_runs_against_the_pairwise_sum():
    """A run whose results cross takes the 2-D structure (Box2) for the sum of
    the earlier results inside each result (it compared every pair); the values
    equal the brute-force rval of tests/xml/test_xml.py, character by character."""
    import random

    from test_xml import brute_hixeval
    rng = random.Random(11)
    for trial in range(30):
        n = rng.randrange(2, 120)
        doclen = 400
        spans = []
        for _ in range(n):
            d = rng.choice("xy")
            s = rng.randrange(0, doclen - 1)
            spans.append((d, s, min(doclen, s + rng.randrange(0, 120))))
        hl = [("x", 50, 170), ("y", 0, 40), ("y", 200, 390)]
        alpha = rng.choice([0.0, 0.3, 1.0])
        q = X.XmlQrels.from_passages({"1": hl})
        run = X.XmlRun.from_spans({"1": spans})
        got = X.hixeval(q, run, cutoffs=(n,), alpha=alpha)["hixR@" + str(n)]["1"]
        rv = brute_hixeval(spans, hl, alpha)
        assert got == pytest.approx(sum(rv) / sum(e - s for _, s, e in hl), abs=1e-12), trial
