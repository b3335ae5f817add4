"""QPP evaluation: correlations, p-values and intervals against scipy, sMARE
from its definition, Steiger's test by hand and by its null distribution."""
import math

import numpy as np
import pytest

from irscore import stats
from irscore.stats import qpp_evaluation as Q

ss = pytest.importorskip("scipy.stats")


def _data(rng, n, kind):
    y = rng.random(n)
    x = y + rng.normal(0, 0.3, n)
    if kind == "ties":
        x, y = np.round(x, 1), np.round(y, 1)
    return x, y


@pytest.mark.parametrize("kind", ["continuous", "ties"])
def test_correlations_equal_scipy(kind):
    rng = np.random.default_rng(70)
    for _ in range(60):
        n = int(rng.integers(5, 200))
        x, y = _data(rng, n, kind)
        e = stats.qpp(x, y)
        ref = ss.pearsonr(x, y)
        ci = ref.confidence_interval(0.95)
        assert e.pearson.r == pytest.approx(ref.statistic, abs=1e-12)
        assert e.pearson.p == pytest.approx(ref.pvalue, rel=1e-8, abs=1e-300)
        assert e.pearson.low == pytest.approx(ci.low, abs=1e-12)
        assert e.pearson.high == pytest.approx(ci.high, abs=1e-12)
        sp = ss.spearmanr(x, y)
        assert e.spearman.r == pytest.approx(sp.statistic, abs=1e-12)
        assert e.spearman.p == pytest.approx(sp.pvalue, rel=1e-8, abs=1e-300)
        kt = ss.kendalltau(x, y, method="asymptotic")
        assert e.kendall.r == pytest.approx(kt.statistic, abs=1e-12)
        assert e.kendall.p == pytest.approx(kt.pvalue, rel=1e-8, abs=1e-300)


def test_intervals_by_hand():
    """Fisher z: Spearman SE^2 = (1 + r^2/2)/(n - 3) (Bonett & Wright 2000),
    Kendall SE^2 = 0.437/(n - 4) (Fieller et al. 1957)."""
    rng = np.random.default_rng(71)
    x, y = _data(rng, 40, "continuous")
    e = stats.qpp(x, y, alpha=0.1)
    z = ss.norm.ppf(0.95)
    rs = ss.spearmanr(x, y).statistic
    h = z * math.sqrt((1 + rs ** 2 / 2) / 37)
    assert (e.spearman.low, e.spearman.high) == pytest.approx((math.tanh(math.atanh(rs) - h),
                                                               math.tanh(math.atanh(rs) + h)), abs=1e-12)
    tk = ss.kendalltau(x, y).statistic
    h = z * math.sqrt(0.437 / 36)
    assert (e.kendall.low, e.kendall.high) == pytest.approx((math.tanh(math.atanh(tk) - h),
                                                             math.tanh(math.atanh(tk) + h)), abs=1e-12)
    c = stats.qpp_correlation(x, y, "kendall", alpha=0.1)
    assert c == e.kendall


def test_smare_hand_worked():
    """predicted (0.9, 0.1, 0.5, 0.3) ranks (4, 1, 3, 2); actual (0.4, 0.2, 0.1, 0.8)
    ranks (3, 2, 1, 4): |diffs| (1, 1, 2, 2) / 4; sMARE = 6 / 16 = 0.375."""
    e = stats.qpp([0.9, 0.1, 0.5, 0.3], [0.4, 0.2, 0.1, 0.8])
    assert e.sare.tolist() == [0.25, 0.25, 0.5, 0.5] and e.smare == 0.375
    # ties share their average rank: (1.5, 1.5, 3) vs (1, 2, 3)
    assert Q.sare([0.2, 0.2, 0.9], [0.1, 0.2, 0.3]).tolist() == pytest.approx([0.5 / 3, 0.5 / 3, 0.0])
    assert stats.qpp([1, 2, 3, 4], [10, 20, 30, 40]).smare == 0.0


def test_steiger_by_hand():
    """r1 = 0.6, r2 = 0.4, r12 = 0.5, n = 100: r̄ = 0.5;
    c = [0.5 (1 - 0.5) - 0.125 (1 - 0.5 - 0.25)] / 0.75^2 = 0.21875 / 0.5625;
    z = (atanh 0.6 - atanh 0.4) sqrt(97) / sqrt(2 - 2c)."""
    c = 0.21875 / 0.5625
    hand = (math.atanh(0.6) - math.atanh(0.4)) * math.sqrt(97) / math.sqrt(2 - 2 * c)
    z, p = Q.steiger_z(0.6, 0.4, 0.5, 100)
    assert z == pytest.approx(hand, rel=1e-14) and p == pytest.approx(2 * ss.norm.sf(hand), rel=1e-12)
    assert round(z, 4) == round(hand, 4)


def test_steiger_null_distribution():
    """Two predictors with equal population correlations (0.5) with the actual
    values and 0.4 with each other: Z is about N(0, 1) (2,000 samples of 100)."""
    rng = np.random.default_rng(72)
    cov = np.array([[1.0, 0.5, 0.5], [0.5, 1.0, 0.4], [0.5, 0.4, 1.0]])
    L = np.linalg.cholesky(cov)
    zs = []
    for _ in range(2000):
        d = rng.standard_normal((100, 3)) @ L.T
        zs.append(stats.compare_predictors(d[:, 1], d[:, 2], d[:, 0]).z)
    zs = np.array(zs)
    assert abs(zs.mean()) < 0.08 and abs(zs.std() - 1) < 0.06
    assert 0.035 < np.mean(np.abs(zs) > 1.96) < 0.065


def test_compare_predictors_result():
    rng = np.random.default_rng(73)
    y = rng.random(80)
    a, b = y + rng.normal(0, 0.2, 80), y + rng.normal(0, 0.6, 80)
    r = stats.compare_predictors(a, b, y)
    assert r.r1 == pytest.approx(ss.pearsonr(a, y).statistic, abs=1e-12)
    assert r.r12 == pytest.approx(ss.pearsonr(a, b).statistic, abs=1e-12)
    assert r.z > 0 and r.p < 0.01 and r.n == 80
    rs = stats.compare_predictors(a, b, y, method="spearman")
    assert rs.r1 == pytest.approx(ss.spearmanr(a, y).statistic, abs=1e-12)
    assert stats.compare_predictors(a, a, y).p == 1.0


def test_qpp_edge_and_argument_errors():
    e = stats.qpp([1.0, 1.0, 1.0], [0.1, 0.2, 0.3])
    assert math.isnan(e.pearson.r) and math.isnan(e.kendall.r) and math.isnan(e.pearson.p)
    e = stats.qpp([1.0, 2.0, 3.0], [0.1, 0.2, 0.3])
    assert e.pearson.r == pytest.approx(1.0) and e.pearson.p == 0.0 and math.isnan(e.kendall.low)
    with pytest.raises(ValueError, match="one value per query each, got 3 and 2"):
        stats.qpp([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="at least 3 queries"):
        stats.qpp([1, 2], [1, 2])
    with pytest.raises(ValueError, match=r"actual\[1\] is not finite"):
        stats.qpp([1, 2, 3], [1, np.nan, 3])
    with pytest.raises(ValueError, match="predicted must be a 1-D array"):
        stats.qpp(np.ones((3, 2)), [1, 2, 3])
    with pytest.raises(ValueError, match="alpha"):
        stats.qpp([1, 2, 3], [1, 2, 3], alpha=0)
    with pytest.raises(ValueError, match="method must be one of"):
        stats.qpp_correlation([1, 2, 3], [1, 2, 3], "cosine")
    with pytest.raises(ValueError, match="method must be 'pearson' or 'spearman'"):
        stats.compare_predictors([1, 2, 3, 4], [1, 2, 3, 5], [1, 2, 3, 4], method="kendall")
