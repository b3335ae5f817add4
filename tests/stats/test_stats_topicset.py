"""Topic-set-size design and power: against statsmodels' power classes (an
independent implementation of the noncentral t and F powers) and hand
computations from the formulas with scipy's distributions."""
import math

import numpy as np
import pytest

from irscore import stats
from irscore.stats import topicset as T

ss = pytest.importorskip("scipy.stats")
smp = pytest.importorskip("statsmodels.stats.power")


@pytest.mark.parametrize("variance,min_diff,alpha,beta", [(0.05, 0.05, 0.05, 0.2), (0.02, 0.1, 0.01, 0.1),
                                                          (0.1, 0.03, 0.05, 0.5), (0.01, 0.2, 0.1, 0.2)])
def test_t_test_size_and_power_equal_statsmodels(variance, min_diff, alpha, beta):
    effect = min_diff / math.sqrt(2 * variance)
    n = T.topics_for_t_test(variance, min_diff, alpha, beta)
    ref = smp.TTestPower().solve_power(effect_size=effect, alpha=alpha, power=1 - beta)
    assert n == max(2, math.ceil(ref - 1e-9))
    assert T.power_t_test(variance, min_diff, n, alpha) >= 1 - beta
    if n > 2:
        assert T.power_t_test(variance, min_diff, n - 1, alpha) < 1 - beta
    for m in (n, 10, 57):
        assert T.power_t_test(variance, min_diff, m, alpha) == pytest.approx(
            smp.TTestPower().power(effect_size=effect, nobs=m, alpha=alpha), abs=1e-10)


def test_t_test_power_by_hand():
    """n = 20, sigma^2 = 0.05 (sigma_d^2 = 0.1), diff = 0.1: lambda = sqrt(20) * 0.1 / sqrt(0.1)
    = sqrt(2); power = P(T' >= t_.975,19) + P(T' <= -t_.975,19)."""
    crit = ss.t.ppf(0.975, 19)
    lam = math.sqrt(2.0)
    hand = ss.nct.sf(crit, 19, lam) + ss.nct.cdf(-crit, 19, lam)
    assert round(T.power_t_test(0.05, 0.1, 20), 4) == round(hand, 4)
    assert T.power_t_test(0.05, -0.1, 20) == pytest.approx(hand, abs=1e-12)
    assert T.power_t_test(0.05, 0.0, 20) == pytest.approx(0.05, abs=1e-12)


@pytest.mark.parametrize("k", [2, 5, 10])
def test_anova_size_and_power_equal_statsmodels(k):
    """One-way: Cohen's f^2 = D^2 / (2 k sigma^2) for the least favourable
    configuration, total n = k * topics; statsmodels' df_denom = k (n - 1)."""
    variance, D = 0.05, 0.1
    f = math.sqrt(D ** 2 / (2 * k * variance))
    n = T.topics_for_anova(variance, D, k)
    ref = smp.FTestAnovaPower().solve_power(effect_size=f, alpha=0.05, power=0.8, k_groups=k) / k
    assert n == math.ceil(ref - 1e-9)
    assert T.power_anova(variance, D, k, 50) == pytest.approx(
        smp.FTestAnovaPower().power(effect_size=f, nobs=k * 50, alpha=0.05, k_groups=k), abs=1e-10)


def test_blocked_anova_power_by_hand():
    """k = 4, n = 30, sigma^2 = 0.04, range 0.1: lambda = 30 * 0.01 / 0.08 = 3.75,
    df (3, 87)."""
    crit = ss.f.ppf(0.95, 3, 87)
    hand = ss.ncf.sf(crit, 3, 87, 3.75)
    assert round(T.power_anova(0.04, 0.1, 4, 30, blocked=True), 4) == round(hand, 4)
    n = T.topics_for_anova(0.04, 0.1, 4, blocked=True)
    assert T.power_anova(0.04, 0.1, 4, n, blocked=True) >= 0.8 > T.power_anova(0.04, 0.1, 4, n - 1, blocked=True)


def test_ci_size_by_hand():
    """sigma^2 = 0.05, width 0.1: expected width 2 t_.975,n-1 sqrt(0.1) c4(n) / sqrt(n)."""
    def width(n):
        c4 = math.sqrt(2 / (n - 1)) * math.gamma(n / 2) / math.gamma((n - 1) / 2)
        return 2 * ss.t.ppf(0.975, n - 1) * math.sqrt(0.1) * c4 / math.sqrt(n)

    n = T.topics_for_ci(0.05, 0.1)
    assert width(n) <= 0.1 < width(n - 1)
    assert round(T.expected_ci_width(0.05, 40), 4) == round(width(40), 4)
    assert T.expected_ci_width(0.05, 40) == pytest.approx(width(40), rel=1e-12)


def test_normal_approximation_is_close():
    """Nagata's starting value n ~ ((z_a/2 + z_b) / Delta)^2 + z_a/2^2 / 2 lands
    within a topic of the exact size."""
    for variance, d in ((0.05, 0.05), (0.02, 0.1), (0.1, 0.08)):
        delta = d / math.sqrt(2 * variance)
        z_a, z_b = ss.norm.ppf(0.975), ss.norm.ppf(0.8)
        approx = ((z_a + z_b) / delta) ** 2 + z_a ** 2 / 2
        assert abs(T.topics_for_t_test(variance, d) - approx) <= 1.5


def test_variance_estimate_and_achieved_power():
    rng = np.random.default_rng(60)
    S = np.clip(rng.beta(0.6, 1.4, (40, 1)) + np.array([0, 0.02, 0.06]) + rng.normal(0, 0.1, (40, 3)), 0, 1)
    assert T.variance_estimate(S) == stats.anova(S).ms_error
    ap = T.achieved_power(S)
    d = S[:, 0] - S[:, 2]
    ref = smp.TTestPower().power(effect_size=abs(d.mean()) / d.std(ddof=1), nobs=40, alpha=0.05)
    assert ap.t_test[0, 2] == pytest.approx(ref, abs=1e-10) and ap.t_test[2, 0] == ap.t_test[0, 2]
    a = stats.anova(S)
    hand = ss.ncf.sf(ss.f.ppf(0.95, 2, 78), 2, 78, 2 * a.F)
    assert ap.anova == pytest.approx(hand, abs=1e-12) and ap.n_topics == 40


def test_topicset_argument_errors():
    with pytest.raises(ValueError, match="variance must be a finite number > 0"):
        T.topics_for_t_test(0, 0.1)
    with pytest.raises(ValueError, match="min_diff"):
        T.topics_for_t_test(0.05, -0.1)
    with pytest.raises(ValueError, match="beta must be a number in"):
        T.topics_for_t_test(0.05, 0.1, beta=1)
    with pytest.raises(ValueError, match="n_systems"):
        T.topics_for_anova(0.05, 0.1, 1)
    with pytest.raises(ValueError, match="n_topics"):
        T.power_t_test(0.05, 0.1, 1)
    with pytest.raises(ValueError, match="diff must be a finite number"):
        T.power_t_test(0.05, float("nan"), 10)
    with pytest.raises(ValueError, match="more than 10,000,000 topics"):
        T.topics_for_t_test(1.0, 1e-6)
