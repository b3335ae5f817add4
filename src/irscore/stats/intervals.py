"""Confidence intervals for one system's mean over topics.

- ``t``: x̄ ± t_{1-α/2, n-1} s / √n (Student's t; the quantile is computed in
  irscore, no scipy needed); as ``scipy.stats.t.interval(1 - α, n - 1, x̄, s/√n)``.
- ``percentile``: the α/2 and 1 - α/2 quantiles (linear interpolation) of the
  means of B bootstrap resamples of the topics (Efron & Tibshirani, *An
  Introduction to the Bootstrap*, 1993, eq. 13.5).
- ``bca``: the bias-corrected and accelerated interval (Efron & Tibshirani,
  section 14.3, eq. 14.10, 14.14, 14.15), as ``scipy.stats.bootstrap``.

The resamples are drawn by the native kernel ``irscore._stats`` (xoshiro256**
streams seeded from ``seed`` and a hash of the values, as the paired bootstrap
test): a vector's interval depends only on its values, the seed and B.
"""
from __future__ import annotations

import math
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from irscore import _stats
from irscore.stats import distributions as D
from irscore.stats import paired
from irscore.stats.arrays import real_array

METHODS = ("t", "percentile", "bca")
BOOTSTRAP = ("percentile", "bca")


def check_method(method: Any) -> str:
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(map(repr, METHODS))}, got {method!r}")
    return str(method)


def check_values(values: Any, name: str = "values") -> np.ndarray:
    a = real_array(values, name, 1, " (one value per topic)", 1e300, "; drop undefined topics first")
    if a.size < 2:
        raise ValueError(f"{name} needs at least 2 values for an interval, got {a.size}")
    return a


def _t_interval(a: np.ndarray, alpha: float) -> Tuple[float, float]:
    n = a.size
    m = float(a.mean())
    se = float(a.std(ddof=1)) / math.sqrt(n)
    if se == 0.0:
        return m, m
    half = D.t_critical(float(n - 1), alpha) * se
    return m - half, m + half


def mean_intervals(samples: Sequence[np.ndarray], method: str = "t", alpha: float = 0.05,
                   n_resamples: int = 10_000, seed: Optional[int] = None) -> np.ndarray:
    """Intervals for the means of several samples at once (one native call for the
    bootstrap): an (n_samples, 2) array; a row is NaN for a sample of fewer than
    two values.  ``seed`` must be an int for the bootstrap methods here (the
    caller records it)."""
    method = check_method(method)
    alpha = paired.check_alpha(alpha)
    out = np.full((len(samples), 2), np.nan)
    arrays: List[np.ndarray] = [np.asarray(s, dtype=np.float64) for s in samples]
    if method == "t":
        for i, a in enumerate(arrays):
            if a.size >= 2:
                out[i] = _t_interval(a, alpha)
        return out
    B = paired.check_resamples(n_resamples, stored=True)
    values, offsets = paired.csr(arrays)
    means = np.empty((len(arrays), B))
    tstar = np.empty((len(arrays), B))
    _stats.bootstrap(values, offsets, B, paired.resolve_seed(seed), means, tstar)
    for i, a in enumerate(arrays):
        if a.size < 2:
            continue
        if np.all(a == a[0]):
            out[i] = a[0], a[0]
            continue
        q_lo, q_hi = alpha / 2.0, 1.0 - alpha / 2.0
        if method == "bca":
            q_lo, q_hi = paired.bca_levels(a, means[i], alpha)
        if not (math.isnan(q_lo) or math.isnan(q_hi)):
            out[i] = np.quantile(means[i], [q_lo, q_hi])
    return out


def mean_ci(values: Any, method: str = "t", alpha: float = 0.05, n_resamples: int = 10_000,
            seed: Optional[int] = None) -> Tuple[float, float]:
    """(low, high): the 1 - ``alpha`` confidence interval of the mean of
    ``values`` (one value per topic, at least two, finite).

    ``method``: ``"t"`` (Student's t interval, as ``scipy.stats.t.interval``),
    ``"percentile"`` or ``"bca"`` (bootstrap over the topics with
    ``n_resamples`` resamples, as ``scipy.stats.bootstrap``; ``seed`` makes it
    reproducible, a random seed is drawn when None).  Constant values give the
    point interval (mean, mean).
    """
    method = check_method(method)
    a = check_values(values)
    alpha = paired.check_alpha(alpha)
    if method != "t":
        paired.check_resamples(n_resamples, stored=True)
        paired.resolve_seed(seed)      # TypeError for a seed that is not an int
    lo, hi = mean_intervals([a], method, alpha, n_resamples, seed)[0]
    return float(lo), float(hi)
