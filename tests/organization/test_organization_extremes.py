"""Reliability & Sensitivity at extreme weights: accurate (against the quadratic
reference of test_organization.py in 50-digit arithmetic) and within [0, 1]."""
import pytest


def _ref_priority_mp(X, G, w_n):
    """The quadratic reference of test_organization.py (this folder) in 50-digit arithmetic."""
    mp = pytest.importorskip("mpmath")
    import test_organization as T
    with mp.workdps(50):
        return float(T.ref_priority(X, G, n=10, w_n=mp.mpf(w_n)))


@pytest.mark.parametrize("w_n", [1e-9, 1e-5, 0.999999, 1 - 1e-12])
def test_rs_extreme_w_n_is_accurate_and_bounded(w_n):
    import irscore
    gold = [[["d1"], ["d0"]], [["d2"]]]
    system = [[["d0"]], [["d2"]], [["d1"]]]
    r = irscore.reliability_sensitivity(gold, system, w_n=w_n)
    want = _ref_priority_mp(system, gold, w_n)
    assert r.R_priority == pytest.approx(want, abs=1e-12)     # was 1.00000018 at w_n = 1e-9
    for key in ("R_priority", "S_priority", "R_relatedness", "S_relatedness"):
        assert 0.0 <= getattr(r, key) <= 1.0
