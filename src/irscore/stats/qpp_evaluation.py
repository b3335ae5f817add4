"""Evaluation of query performance prediction (QPP): how well per-query
predicted values follow the per-query effectiveness actually measured.

- Correlations (as scipy): Pearson's r (``scipy.stats.pearsonr``), Spearman's
  rho (``spearmanr``, average ranks for ties), Kendall's tau-b (``kendalltau``).
  p-values: Pearson and Spearman from Student's t with n - 2 degrees of freedom
  (as scipy); Kendall from the normal approximation with the tie-corrected
  variance (``kendalltau(method="asymptotic")``).
- Intervals by Fisher's z = atanh(r) ± z_{1-α/2} SE, back-transformed with tanh:
  Pearson SE² = 1 / (n - 3) (as ``pearsonr(...).confidence_interval()``);
  Spearman SE² = (1 + rho²/2) / (n - 3) (Bonett & Wright, *Psychometrika* 2000);
  Kendall SE² = 0.437 / (n - 4) (Fieller, Hartley & Pearson, *Biometrika* 1957).
- sMARE (Faggioli, Zendel, Culpepper, Ferro & Scholer, *sMARE: a new paradigm to
  evaluate and understand query performance prediction methods*, Information
  Retrieval Journal 2022): rank the queries by predicted and by actual value
  (average ranks for ties); sARE_q = |rank_pred(q) - rank_actual(q)| / n; sMARE
  = mean sARE (0: the same ordering; lower is better).
- The difference between two predictors' correlations with the same actual
  values (dependent correlations sharing a variable): Steiger's Z (Steiger,
  *Tests for comparing elements of a correlation matrix*, Psychological
  Bulletin 1980; Fisher z with the pooled r̄ = (r1 + r2) / 2 in the covariance).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Tuple

import numpy as np

from irscore.stats import distributions as D
from irscore.stats import meta
from irscore.stats.arrays import real_array

METHODS = ("pearson", "spearman", "kendall")


@dataclass(frozen=True)
class Correlation:
    """A correlation ``r`` with its two-sided ``p`` and 1 - alpha interval."""

    r: float
    p: float
    low: float
    high: float


@dataclass(frozen=True)
class QPPEvaluation:
    """Result of `qpp`: the three correlations, sMARE and the per-query sARE."""

    n: int
    pearson: Correlation
    spearman: Correlation
    kendall: Correlation
    smare: float
    sare: np.ndarray
    alpha: float


@dataclass(frozen=True)
class CorrelationDifference:
    """Result of `compare_predictors`: the two correlations with the actual
    values, the predictors' correlation with each other, Steiger's ``z`` and its
    two-sided ``p``."""

    method: str
    r1: float
    r2: float
    r12: float
    z: float
    p: float
    n: int


def _vector(x: Any, name: str) -> np.ndarray:
    # correlations square the values: |x| up to 1e150
    return real_array(x, name, 1, " (one value per query)", 1e150)


def _pair(predicted: Any, actual: Any, least: int = 3) -> Tuple[np.ndarray, np.ndarray]:
    x, y = _vector(predicted, "predicted"), _vector(actual, "actual")
    if x.size != y.size:
        raise ValueError(f"predicted and actual must have one value per query each, got {x.size} and {y.size}")
    if x.size < least:
        raise ValueError(f"QPP evaluation needs at least {least} queries, got {x.size}")
    return x, y


def average_ranks(a: np.ndarray) -> np.ndarray:
    """Ranks 1..n of ``a`` (ascending), ties sharing their average rank."""
    order = np.argsort(a, kind="mergesort")
    s = a[order]
    n = s.size
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    ends = np.r_[starts[1:], n]
    ranks = np.empty(n)
    ranks[order] = np.repeat((starts + ends + 1) / 2.0, ends - starts)
    return ranks


def _pearson_r(x: np.ndarray, y: np.ndarray) -> float:
    xm, ym = x - x.mean(), y - y.mean()
    den = math.sqrt(float(np.dot(xm, xm)) * float(np.dot(ym, ym)))
    if den == 0.0:
        return math.nan
    return max(-1.0, min(1.0, float(np.dot(xm, ym)) / den))


def _t_p(r: float, n: int) -> float:
    if math.isnan(r):
        return math.nan
    if abs(r) >= 1.0:
        return 0.0
    t = r * math.sqrt((n - 2) / ((1.0 - r) * (1.0 + r)))
    return float(D.t_two_sided(t, n - 2))


def _fisher(r: float, se: float, alpha: float) -> Tuple[float, float]:
    if math.isnan(r) or not math.isfinite(se):
        return math.nan, math.nan
    if abs(r) >= 1.0:
        return r, r
    z = math.atanh(r)
    h = D.normal_ppf(1.0 - alpha / 2.0) * se
    return math.tanh(z - h), math.tanh(z + h)


def _kendall_p(x: np.ndarray, y: np.ndarray, tau: float) -> float:
    n = x.size
    if math.isnan(tau):
        return math.nan

    def ties(v: np.ndarray) -> Tuple[float, float, float, float]:
        c = np.unique(v, return_counts=True)[1].astype(float)
        return (float(np.sum(c * (c - 1) / 2)), float(np.sum(c * (c - 1) * (2 * c + 5))),
                float(np.sum(c * (c - 1))), float(np.sum(c * (c - 1) * (c - 2))))

    n0 = n * (n - 1) / 2.0
    tx, vx, ax, bx = ties(x)
    ty, vy, ay, by = ties(y)
    s = tau * math.sqrt((n0 - tx) * (n0 - ty))      # concordant - discordant
    var = ((n * (n - 1) * (2 * n + 5) - vx - vy) / 18.0 + ax * ay / (2.0 * n * (n - 1))
           + bx * by / (9.0 * n * (n - 1) * (n - 2)))
    if var <= 0:
        return math.nan
    return float(D.normal_two_sided(s / math.sqrt(var)))


def correlation(predicted: Any, actual: Any, method: str = "pearson", alpha: float = 0.05) -> Correlation:
    """One correlation of predicted with actual per-query values, its two-sided p
    and its 1 - alpha Fisher-z interval (see the module notes).  At least 3
    queries (5 for Kendall's interval, else NaN); r NaN when either vector is
    constant."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(map(repr, METHODS))}, got {method!r}")
    x, y = _pair(predicted, actual)
    alpha = _alpha(alpha)
    return _correlation(x, y, method, alpha)


def _alpha(alpha: Any) -> float:
    if isinstance(alpha, (bool, np.bool_)) or not isinstance(alpha, (int, float, np.integer, np.floating)) \
            or not 0.0 < float(alpha) < 1.0:
        raise ValueError(f"alpha must be a number in (0, 1), got {alpha!r}")
    return float(alpha)


def _correlation(x: np.ndarray, y: np.ndarray, method: str, alpha: float) -> Correlation:
    n = x.size
    if method == "pearson":
        r = _pearson_r(x, y)
        lo, hi = _fisher(r, 1.0 / math.sqrt(n - 3) if n > 3 else math.inf, alpha)
        return Correlation(r, _t_p(r, n), lo, hi)
    if method == "spearman":
        r = _pearson_r(average_ranks(x), average_ranks(y))
        se = math.sqrt((1.0 + r * r / 2.0) / (n - 3)) if n > 3 and not math.isnan(r) else math.inf
        lo, hi = _fisher(r, se, alpha)
        return Correlation(r, _t_p(r, n), lo, hi)
    tau = float(meta.kendall_tau_b(x, y))
    lo, hi = _fisher(tau, math.sqrt(0.437 / (n - 4)) if n > 4 else math.inf, alpha)
    return Correlation(tau, _kendall_p(x, y, tau), lo, hi)


def sare(predicted: Any, actual: Any) -> np.ndarray:
    """Per-query scaled absolute rank error |rank_pred - rank_actual| / n."""
    x, y = _pair(predicted, actual, least=1)
    return np.abs(average_ranks(x) - average_ranks(y)) / x.size


def qpp(predicted: Any, actual: Any, alpha: float = 0.05) -> QPPEvaluation:
    """Evaluate a query performance predictor: ``predicted`` and ``actual``
    per-query values (same queries, same order; at least 3, finite).  Returns
    Pearson, Spearman and Kendall (tau-b) correlations with two-sided p and
    1 - ``alpha`` intervals, and sMARE with the per-query sARE."""
    x, y = _pair(predicted, actual)
    alpha = _alpha(alpha)
    e = np.abs(average_ranks(x) - average_ranks(y)) / x.size
    return QPPEvaluation(n=int(x.size), pearson=_correlation(x, y, "pearson", alpha),
                         spearman=_correlation(x, y, "spearman", alpha), kendall=_correlation(x, y, "kendall", alpha),
                         smare=float(e.mean()), sare=e, alpha=alpha)


def compare_predictors(predicted1: Any, predicted2: Any, actual: Any, method: str = "pearson"
                       ) -> CorrelationDifference:
    """Test whether two predictors correlate equally with the same actual values
    (dependent correlations sharing a variable): Steiger's (1980) Z,

        z = (atanh r1 - atanh r2) sqrt(n - 3) / sqrt(2 - 2 c),
        c = [r12 (1 - 2 r̄²) - r̄² (1 - 2 r̄² - r12²) / 2] / (1 - r̄²)²,  r̄ = (r1 + r2) / 2,

    r1, r2 the predictors' correlations with ``actual`` and r12 theirs with
    each other; p two-sided from the standard normal.  Derived for Pearson's r;
    with ``method="spearman"`` it is applied to the rank correlations (an
    approximation).  At least 4 queries."""
    if method not in ("pearson", "spearman"):
        raise ValueError(f"method must be 'pearson' or 'spearman', got {method!r}")
    x1, y = _pair(predicted1, actual, least=4)
    x2, _ = _pair(predicted2, actual, least=4)
    if method == "spearman":
        x1, x2, y = average_ranks(x1), average_ranks(x2), average_ranks(y)
    r1, r2, r12 = _pearson_r(x1, y), _pearson_r(x2, y), _pearson_r(x1, x2)
    n = int(y.size)
    z, p = steiger_z(r1, r2, r12, n)
    return CorrelationDifference(method=method, r1=r1, r2=r2, r12=r12, z=z, p=p, n=n)


def steiger_z(r1: float, r2: float, r12: float, n: int) -> Tuple[float, float]:
    """(z, two-sided p) of Steiger's test of r1 = r2 (both with one variable,
    r12 between the other two) on n observations."""
    if any(math.isnan(v) for v in (r1, r2, r12)):
        return math.nan, math.nan
    if r1 == r2:
        return 0.0, 1.0
    if max(abs(r1), abs(r2)) >= 1.0:
        return math.copysign(math.inf, r1 - r2), 0.0
    rb = (r1 + r2) / 2.0
    c = (r12 * (1 - 2 * rb * rb) - 0.5 * rb * rb * (1 - 2 * rb * rb - r12 * r12)) / (1 - rb * rb) ** 2
    den = 2.0 - 2.0 * c
    if den <= 0:
        return math.copysign(math.inf, r1 - r2), 0.0
    z = (math.atanh(r1) - math.atanh(r2)) * math.sqrt(n - 3) / math.sqrt(den)
    return z, float(D.normal_two_sided(z))
