"""Topic-set-size design and statistical power (Sakai, *Topic set size design*,
Information Retrieval Journal 19, 2016, after Nagata's sample-size designs;
Sakai, *Laboratory Experiments in Information Retrieval*, Springer 2018).

Given σ², the within-system (residual) variance of an evaluation measure, e.g.
``anova(scores).ms_error`` of the two-way ANOVA without replication on a past
topics x runs matrix (``variance_estimate``):

- paired t-test: the smallest n whose two-sided test at level α has power
  >= 1 - β to detect a true difference ``min_diff`` between two systems; the
  per-topic difference has variance σ_d² = 2σ² (the difference of two residuals
  of the additive model), the noncentrality is λ = √n min_diff / σ_d and
  power = P(|T'_{n-1, λ}| >= t_{1-α/2, n-1}) (noncentral t);
- ANOVA over k systems: the smallest n whose F test has power >= 1 - β when the
  best and the worst system differ by ``min_range`` (the least favourable
  configuration: the others at the middle), λ = n min_range² / (2σ²),
  power = P(F'_{k-1, φ_E, λ} >= F_{1-α; k-1, φ_E}) (noncentral F), φ_E = k(n - 1)
  for the one-way ANOVA (Sakai's design), (k - 1)(n - 1) for the two-way ANOVA
  without replication (``blocked=True``);
- confidence interval: the smallest n whose expected width of the 1 - α t
  interval of a paired difference, 2 t_{1-α/2, n-1} σ_d c4(n) / √n with
  c4(n) = E[s] / σ = √(2 / (n - 1)) Γ(n/2) / Γ((n - 1)/2), is at most ``width``.

The distributions are scipy's (``pip install ".[stats]"`` in a clone).  The sizes are
exact searches over integers (power is increasing in n), not the normal
approximations of the Excel tools, which can differ by a topic or two.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from irscore.stats import anova_hsd

MAX_TOPICS = 10 ** 7


def _scipy_stats() -> Any:
    try:
        import scipy.stats as ss
    except ImportError as exc:  # pragma: no cover - scipy is in the [stats] and [test] extras
        raise ImportError("topic-set-size design and power need scipy's noncentral t and F distributions: "
                          "pip install 'irscore[stats]' (from a clone: pip install '.[stats]'; or scipy)") from exc
    return ss


def _positive(x: Any, name: str) -> float:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)) \
            or not (0.0 < float(x) < math.inf):
        raise ValueError(f"{name} must be a finite number > 0, got {x!r}")
    return float(x)


def _probability(x: Any, name: str) -> float:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)) \
            or not 0.0 < float(x) < 1.0:
        raise ValueError(f"{name} must be a number in (0, 1), got {x!r}")
    return float(x)


def _count(x: Any, name: str, least: int) -> int:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)) or not least <= x <= MAX_TOPICS:
        raise ValueError(f"{name} must be an integer in {least} .. {MAX_TOPICS:,}, got {x!r}")
    return int(x)


# ---- power -----------------------------------------------------------------------

def power_t_test(variance: float, diff: float, n_topics: int, alpha: float = 0.05) -> float:
    """Power of the two-sided paired t-test at level ``alpha`` on ``n_topics``
    topics when the true mean difference is ``diff`` and the within-system
    variance is ``variance`` (σ_d² = 2 variance)."""
    variance = _positive(variance, "variance")
    if isinstance(diff, (bool, np.bool_)) or not isinstance(diff, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(diff)):
        raise ValueError(f"diff must be a finite number, got {diff!r}")
    n = _count(n_topics, "n_topics", 2)
    alpha = _probability(alpha, "alpha")
    return _power_t(abs(float(diff)) / math.sqrt(2.0 * variance), n, alpha)


def _power_t(effect: float, n: int, alpha: float) -> float:
    ss = _scipy_stats()
    df = n - 1
    crit = float(ss.t.ppf(1.0 - alpha / 2.0, df))
    lam = math.sqrt(n) * effect
    return float(ss.nct.sf(crit, df, lam) + ss.nct.cdf(-crit, df, lam))


def power_anova(variance: float, min_range: float, n_systems: int, n_topics: int, alpha: float = 0.05,
                blocked: bool = False) -> float:
    """Power of the ANOVA F test over ``n_systems`` systems on ``n_topics``
    topics when the best and the worst system differ by ``min_range`` (the others
    at the middle): one-way (``blocked=False``, Sakai's design) or two-way without
    replication."""
    variance = _positive(variance, "variance")
    min_range = _positive(min_range, "min_range")
    k = _count(n_systems, "n_systems", 2)
    n = _count(n_topics, "n_topics", 2)
    alpha = _probability(alpha, "alpha")
    return _power_f(n * min_range ** 2 / (2.0 * variance), k, n, alpha, blocked)


def _power_f(lam: float, k: int, n: int, alpha: float, blocked: bool) -> float:
    ss = _scipy_stats()
    df1 = k - 1
    df2 = (k - 1) * (n - 1) if blocked else k * (n - 1)
    crit = float(ss.f.ppf(1.0 - alpha, df1, df2))
    return float(ss.ncf.sf(crit, df1, df2, lam))


def expected_ci_width(variance: float, n_topics: int, alpha: float = 0.05) -> float:
    """Expected width of the 1 - alpha t interval of a paired difference on
    ``n_topics`` topics: 2 t_{1-α/2, n-1} σ_d c4(n) / √n, σ_d² = 2 variance."""
    variance = _positive(variance, "variance")
    n = _count(n_topics, "n_topics", 2)
    alpha = _probability(alpha, "alpha")
    return _ci_width(math.sqrt(2.0 * variance), n, alpha)


def _ci_width(sd: float, n: int, alpha: float) -> float:
    ss = _scipy_stats()
    c4 = math.sqrt(2.0 / (n - 1)) * math.exp(math.lgamma(n / 2.0) - math.lgamma((n - 1) / 2.0))
    return 2.0 * float(ss.t.ppf(1.0 - alpha / 2.0, n - 1)) * sd * c4 / math.sqrt(n)


# ---- sizes -----------------------------------------------------------------------

def _smallest(ok: Callable[[int], bool], what: str) -> int:
    """The smallest n >= 2 with ok(n), ok increasing in n (doubling, then bisection)."""
    lo, hi = 1, 2
    while not ok(hi):
        lo, hi = hi, hi * 2
        if hi > MAX_TOPICS:
            raise ValueError(f"more than {MAX_TOPICS:,} topics would be needed for {what}")
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def topics_for_t_test(variance: float, min_diff: float, alpha: float = 0.05, beta: float = 0.20) -> int:
    """Number of topics for the two-sided paired t-test at level ``alpha`` to
    detect a true difference ``min_diff`` with probability >= 1 - ``beta``."""
    variance = _positive(variance, "variance")
    min_diff = _positive(min_diff, "min_diff")
    alpha, beta = _probability(alpha, "alpha"), _probability(beta, "beta")
    effect = min_diff / math.sqrt(2.0 * variance)
    return _smallest(lambda n: _power_t(effect, n, alpha) >= 1.0 - beta, "this t-test design")


def topics_for_anova(variance: float, min_range: float, n_systems: int, alpha: float = 0.05, beta: float = 0.20,
                     blocked: bool = False) -> int:
    """Number of topics for the ANOVA F test over ``n_systems`` systems to detect
    a range ``min_range`` between the best and the worst system with probability
    >= 1 - ``beta`` (one-way as Sakai's tool; ``blocked=True``: two-way without
    replication)."""
    variance = _positive(variance, "variance")
    min_range = _positive(min_range, "min_range")
    k = _count(n_systems, "n_systems", 2)
    alpha, beta = _probability(alpha, "alpha"), _probability(beta, "beta")
    delta = min_range ** 2 / (2.0 * variance)
    return _smallest(lambda n: _power_f(n * delta, k, n, alpha, bool(blocked)) >= 1.0 - beta,
                     "this ANOVA design")


def topics_for_ci(variance: float, width: float, alpha: float = 0.05) -> int:
    """Number of topics for the expected width of the 1 - ``alpha`` t interval of
    a paired difference to be at most ``width``."""
    variance = _positive(variance, "variance")
    width = _positive(width, "width")
    alpha = _probability(alpha, "alpha")
    sd = math.sqrt(2.0 * variance)
    return _smallest(lambda n: _ci_width(sd, n, alpha) <= width, "this interval width")


def variance_estimate(scores: Any) -> float:
    """σ² for the designs above from a past (topics x systems) score matrix: the
    residual mean square of the two-way ANOVA without replication."""
    return anova_hsd.anova(scores).ms_error


# ---- a finished comparison ---------------------------------------------------------

@dataclass(frozen=True)
class AchievedPower:
    """Power of a finished comparison at its observed effects (post hoc):
    ``t_test[i, j]``: of the paired t-test of systems i and j at the observed
    d = mean / sd of their differences (λ = √n d); ``anova``: of the blocked
    ANOVA's F test at the observed noncentrality λ = df_systems F."""

    t_test: np.ndarray
    anova: float
    n_topics: int
    alpha: float


def achieved_power(scores: Any, alpha: float = 0.05) -> AchievedPower:
    """The power of the tests of a finished comparison (a topics x systems
    matrix) at the effects it observed: a low value says that a non-significant
    difference says little; such post hoc power is a function of the p-value and
    is no substitute for a design made in advance (``topics_for_*``)."""
    alpha = _probability(alpha, "alpha")
    a = anova_hsd.anova(scores)
    x = anova_hsd.check_scores(scores)
    n, k = x.shape
    pw = np.ones((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            d = x[:, i] - x[:, j]
            sd = float(d.std(ddof=1))
            mean = abs(float(d.mean()))
            if sd > 0:
                v = _power_t(mean / sd, n, alpha)
            else:
                v = 1.0 if mean > 0 else alpha
            pw[i, j] = pw[j, i] = v
    np.fill_diagonal(pw, math.nan)
    if math.isinf(a.F):
        an = 1.0
    elif math.isnan(a.F):
        an = alpha
    else:
        an = _power_f(a.df_systems * a.F, k, n, alpha, True)
    return AchievedPower(t_test=pw, anova=an, n_topics=n, alpha=alpha)
