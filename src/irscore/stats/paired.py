"""Paired significance tests over queries, many system pairs at once.

Every function takes ``diffs``: a sequence of 1-D float arrays, one per system
pair, the per-query differences a - b with undefined (NaN) queries already
dropped.  Each returns arrays with one value per pair.  The loops that resample
run in the native kernel ``irscore._stats`` (all pairs in one call, no GIL);
the rest is vectorised numpy.

Conventions (see docs/stats.md for the formulas and references):

- p-values are two-sided.  A pair whose differences are all zero (or empty)
  has p = 1 under every test (no evidence of a difference), except that an
  empty pair has p = NaN.
- ``t``: Student's paired t-test (= ``scipy.stats.ttest_rel``); p = NaN with
  one query.  CI: mean +- t_{1-alpha/2, n-1} sd / sqrt(n).
- ``wilcoxon``: signed-rank test with Wilcoxon's zero handling (zeros dropped),
  as ``scipy.stats.wilcoxon(zero_method="wilcox", correction=False,
  method="auto")``: the exact null distribution when there are at most 50
  differences, none zero and no tied |differences|; with zeros or ties and at
  most 13 differences the exact sign-flip distribution of the signed ranks;
  otherwise the normal approximation with the tie-corrected variance.
- ``sign``: exact two-sided binomial test of the signs (zeros dropped), as
  ``scipy.stats.binomtest(k, n, 0.5)``.
- ``randomization``: Fisher's paired randomization (sign-flip) test of the mean
  difference, exact when 2^n <= n_resamples (as ``scipy.stats.permutation_test``
  with ``permutation_type="samples"``), Monte Carlo otherwise.
- ``bootstrap``: paired bootstrap; p from the studentised (shift) bootstrap
  test, CI percentile or BCa.
"""
from __future__ import annotations

import math
import secrets
from typing import List, Optional, Sequence, Tuple

import numpy as np

from irscore import _stats
from irscore.stats import anova_hsd
from irscore.stats import distributions as D

Arrays = Sequence[np.ndarray]


def resolve_seed(seed: Optional[int]) -> int:
    """A 64-bit seed: ``seed`` itself, or a fresh random one when None."""
    if seed is None:
        return secrets.randbits(64)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int or None, got {seed!r}")
    return int(seed) & 0xFFFFFFFFFFFFFFFF


MAX_RESAMPLES = 10 ** 9     # the native kernels' bound (seconds of work per pair)
# the bootstrap and the randomised Tukey HSD keep one value per resample (the
# resampled means of a pair, the ranges of a Tukey call) for their quantiles:
# at most 10**7 of them, 80 MB
MAX_STORED_RESAMPLES = 10 ** 7
# pairs whose bootstrap means are held at once: ~2**22 values (32 MiB), at least one pair
_STORE_BUDGET = 1 << 22


def check_diffs(diffs: Arrays) -> List[np.ndarray]:
    """``diffs`` as a list of 1-D float64 arrays; ValueError naming the pair for a
    value that is not finite (NaN queries are dropped before a test, as
    [`irscore.compare`][irscore.compare] does: a NaN here would decide the p-value silently)."""
    if isinstance(diffs, np.ndarray) and diffs.ndim == 1:
        raise TypeError("diffs must be a sequence of 1-D arrays, one per pair (got one 1-D array: use [d])")
    out = []
    for i, d in enumerate(diffs):
        a = np.asarray(d, dtype=np.float64)
        if a.ndim != 1:
            raise ValueError(f"diffs[{i}] must be 1-D, got shape {a.shape}")
        with np.errstate(over="ignore", invalid="ignore"):
            total = np.abs(a).sum() if a.size else 0.0
        if not np.isfinite(total):
            raise ValueError(f"diffs[{i}] holds a value that is not finite (or values whose sum overflows); "
                             "drop undefined queries first")
        out.append(a)
    return out


def check_alpha(alpha: float) -> float:
    if isinstance(alpha, (bool, np.bool_)) or not isinstance(alpha, (int, float, np.integer, np.floating)) \
            or not 0.0 < float(alpha) < 1.0:
        raise ValueError(f"alpha must be a number in (0, 1), got {alpha!r}")
    return float(alpha)


def check_resamples(n_resamples: int, stored: bool = False) -> int:
    """``n_resamples`` as an int in 1 .. MAX_RESAMPLES, or 1 .. MAX_STORED_RESAMPLES
    with ``stored`` (the tests that keep every resampled value: the bootstrap and
    the randomised Tukey HSD)."""
    top = MAX_STORED_RESAMPLES if stored else MAX_RESAMPLES
    if isinstance(n_resamples, (bool, np.bool_)) or not isinstance(n_resamples, (int, np.integer)) \
            or not 1 <= n_resamples <= top:
        what = " (the bootstrap and the randomised Tukey HSD keep every resampled value)" if stored else ""
        raise ValueError(f"n_resamples must be an integer in 1 .. {top:,}{what}, got {n_resamples!r}")
    return int(n_resamples)


def csr(diffs: Arrays) -> Tuple[np.ndarray, np.ndarray]:
    lengths = np.fromiter((len(d) for d in diffs), dtype=np.int64, count=len(diffs))
    offsets = np.zeros(len(diffs) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    values = (np.concatenate([np.asarray(d, dtype=np.float64) for d in diffs])
              if len(diffs) else np.zeros(0))
    return np.ascontiguousarray(values, dtype=np.float64), offsets


def _sd(d: np.ndarray) -> float:
    """Sample sd (n - 1); scaled by max |d| when the squares would overflow or
    underflow (|d| near 1e150 or 1e-150)."""
    top = float(np.abs(d).max())
    if 1e-100 < top < 1e100 or top == 0.0:
        return float(d.std(ddof=1))
    return top * float((d / top).std(ddof=1))


def _moments(diffs: Arrays) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(n, mean, sample sd with n - 1) per pair."""
    n = np.array([len(d) for d in diffs], dtype=float)
    mean = np.array([d.mean() if len(d) else np.nan for d in diffs])
    sd = np.array([_sd(d) if len(d) > 1 else np.nan for d in diffs])
    return n, mean, sd


def _all_zero(diffs: Arrays) -> np.ndarray:
    return np.array([len(d) > 0 and not np.any(d) for d in diffs], dtype=bool)


def effect_sizes(diffs: Arrays) -> Tuple[np.ndarray, np.ndarray]:
    """Paired Cohen's d (d_z = mean / sd of the differences) and Hedges' g
    (d_z times J(n - 1), J(m) = Gamma(m/2) / (sqrt(m/2) Gamma((m-1)/2)));
    NaN with fewer than two queries, 0 when all differences are zero, +-inf
    when all are equal and non-zero.  J(1) = 0: with two queries g is 0 (NaN
    when d is infinite)."""
    diffs = check_diffs(diffs)
    n, mean, sd = _moments(diffs)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = mean / sd
    d[_all_zero(diffs)] = 0.0
    j = np.array([_hedges_j(int(k) - 1) for k in n])
    with np.errstate(invalid="ignore"):     # inf * J(1) = inf * 0: NaN, as documented
        g = d * j
    return d, g


def _hedges_j(m: int) -> float:
    if m < 1:
        return math.nan
    if m == 1:
        return 0.0      # Gamma(1/2) / (sqrt(1/2) Gamma(0)): Gamma(0) is infinite
    return math.exp(math.lgamma(m / 2.0) - math.lgamma((m - 1) / 2.0)) / math.sqrt(m / 2.0)


def t_test(diffs: Arrays, alpha: float = 0.05) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(p, ci_low, ci_high) of Student's paired t-test per pair."""
    diffs = check_diffs(diffs)
    alpha = check_alpha(alpha)
    n, mean, sd = _moments(diffs)
    with np.errstate(divide="ignore", invalid="ignore"):
        se = sd / np.sqrt(n)
        t = mean / se
    p = D.t_two_sided(t, n - 1)
    zero = _all_zero(diffs)
    p[zero] = 1.0
    crit = np.array([D.t_critical(float(k - 1), float(alpha)) for k in n])
    with np.errstate(over="ignore", invalid="ignore"):   # a tiny alpha: an unbounded interval
        half = crit * np.where(zero, 0.0, se)
    return p, mean - half, mean + half


def _rank_abs(a: np.ndarray) -> Tuple[np.ndarray, bool]:
    """Average ranks of |a| (1-based) and whether there are ties."""
    absd = np.abs(a)
    order = np.argsort(absd, kind="mergesort")
    s = absd[order]
    n = s.size
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    ends = np.r_[starts[1:], n]
    avg = (starts + ends + 1) / 2.0
    ranks = np.empty(n)
    ranks[order] = np.repeat(avg, ends - starts)
    return ranks, bool(np.any(ends - starts > 1))


def wilcoxon_test(diffs: Arrays) -> np.ndarray:
    """Two-sided p of the signed-rank test per pair (scipy's ``method="auto"``)."""
    diffs = check_diffs(diffs)
    p = np.full(len(diffs), np.nan)
    perm_pairs: List[int] = []
    perm_diffs: List[np.ndarray] = []
    for i, d in enumerate(diffs):
        n_total = len(d)
        if n_total == 0:
            continue
        nz = d[d != 0]
        n = nz.size
        if n == 0:
            p[i] = 1.0
            continue
        ranks, ties = _rank_abs(nz)
        r_plus = float(ranks[nz > 0].sum())
        if n_total <= 50 and not ties and n == n_total:
            p[i] = D.wilcoxon_exact_p(r_plus, n)
        elif n_total <= 13:
            # scipy's permutation path: exact sign flips of the signed ranks
            perm_pairs.append(i)
            perm_diffs.append(np.where(nz > 0, ranks, -ranks))
        else:
            mn = n * (n + 1) * 0.25
            _, counts = np.unique(np.abs(nz), return_counts=True)
            var = (n * (n + 1.0) * (2.0 * n + 1.0) - float(np.sum(counts ** 3 - counts)) / 2.0) / 24.0
            z = (r_plus - mn) / math.sqrt(var)
            p[i] = float(D.normal_two_sided(z))
    if perm_pairs:
        pp, _ = randomization_test(perm_diffs, n_resamples=1 << 13, seed=0)
        p[perm_pairs] = pp
    return p


def sign_test(diffs: Arrays) -> np.ndarray:
    """Two-sided exact sign test per pair (zeros dropped)."""
    diffs = check_diffs(diffs)
    p = np.full(len(diffs), np.nan)
    for i, d in enumerate(diffs):
        if len(d):
            pos, neg = int(np.count_nonzero(d > 0)), int(np.count_nonzero(d < 0))
            p[i] = D.sign_test_p(pos, pos + neg)
    return p


def randomization_test(diffs: Arrays, n_resamples: int = 10_000, seed: Optional[int] = None
                       ) -> Tuple[np.ndarray, np.ndarray]:
    """(p, exact) of Fisher's paired randomization test per pair, one native call."""
    diffs = check_diffs(diffs)
    n_resamples = check_resamples(n_resamples)
    values, offsets = csr(diffs)
    p = np.empty(len(diffs))
    exact = np.zeros(len(diffs), dtype=np.int8)
    _stats.sign_flip(values, offsets, int(n_resamples), resolve_seed(seed), p, exact)
    return p, exact.astype(bool)


def bootstrap_test(diffs: Arrays, n_resamples: int = 10_000, seed: Optional[int] = None, alpha: float = 0.05,
                   ci: str = "bca") -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(p, ci_low, ci_high) of the paired bootstrap per pair.

    p: studentised bootstrap test of mean 0 (resampling the centred differences):
    (#{b: |t*_b| >= |t|} + 1) / (B + 1).  CI: ``"percentile"`` or ``"bca"``
    (Efron & Tibshirani 1993, eq. 14.10 and 14.14-14.15; as scipy.stats.bootstrap).

    ``n_resamples`` is at most ``MAX_STORED_RESAMPLES`` (10**7): the interval
    needs quantiles of the B resampled means, which are kept, for a few pairs at
    a time (at most max(32 MiB, 8 B bytes)); the p-value's count is kept per pair."""
    if ci not in ("bca", "percentile"):
        raise ValueError(f"ci must be 'bca' or 'percentile', got {ci!r}")
    diffs = check_diffs(diffs)
    alpha = check_alpha(alpha)
    n_resamples = check_resamples(n_resamples, stored=True)
    seed = resolve_seed(seed)
    P, B = len(diffs), int(n_resamples)
    n, mean, sd = _moments(diffs)
    with np.errstate(divide="ignore", invalid="ignore"):
        t_obs = mean / (sd / np.sqrt(n))
        thresh = np.abs(t_obs) * (1 - 1e-12)
    count = np.zeros(P, dtype=np.int64)
    zero = _all_zero(diffs)
    lo = np.full(P, np.nan)
    hi = np.full(P, np.nan)
    step = max(1, _STORE_BUDGET // B)
    for start in range(0, P, step):
        part = diffs[start:start + step]
        values, offsets = csr(part)
        means = np.empty((len(part), B))
        _stats.bootstrap_count(values, offsets, B, seed, np.ascontiguousarray(thresh[start:start + step]), means,
                               count[start:start + step])
        for k, d in enumerate(part):
            i = start + k
            if len(d) == 0:
                continue
            if zero[i]:
                lo[i] = hi[i] = 0.0
                continue
            q_lo, q_hi = alpha / 2.0, 1.0 - alpha / 2.0
            if ci == "bca" and len(d) > 1:
                q_lo, q_hi = bca_levels(d, means[k], alpha)
            if np.isnan(q_lo) or np.isnan(q_hi):
                continue
            # in place: the means are not needed afterwards (no second B-array)
            lo[i], hi[i] = np.quantile(means[k], [q_lo, q_hi], overwrite_input=True)
    p = (count + 1.0) / (B + 1.0)
    p[n < 2] = np.nan
    p[zero] = 1.0
    return p, lo, hi


def bca_levels(values: np.ndarray, boot_means: np.ndarray, alpha: float) -> Tuple[float, float]:
    """The two quantile levels of the BCa interval of the mean of ``values`` from
    the bootstrap means: z0 = Φ⁻¹((#{θ* < θ} + #{θ* <= θ}) / 2B) (θ* within
    4 n ε max|x| of θ counted as equal to it), acceleration
    a = Σ U³ / (6 (Σ U²)^{3/2}) with the jackknife U_i = (n - 1)(θ̄_(·) - θ_(i)).
    Used by the bootstrap test's interval and by `irscore.stats.mean_ci`."""
    theta = float(values.mean())
    B = boot_means.size
    n = values.size
    # a resample mean equal to theta in real arithmetic (tied scores) comes out of
    # the kernel a few ulps off it, on either side: within this it is a tie
    tol = 4.0 * n * np.finfo(float).eps * float(np.abs(values).max())
    prop = (np.count_nonzero(boot_means < theta - tol) + np.count_nonzero(boot_means <= theta + tol)) / (2.0 * B)
    z0 = D.normal_ppf(prop)
    jack = (values.sum() - values) / (n - 1)             # leave-one-out means
    u = (n - 1) * (jack.mean() - jack)
    top = float(np.abs(u).max())
    u = u / top if top > 0 else u           # a is scale-free; u**3 overflows beyond ~1e102
    den = float(np.sum(u ** 2))
    a = float(np.sum(u ** 3)) / (6.0 * den ** 1.5) if den > 0 else 0.0
    out = []
    for za in (D.normal_ppf(alpha / 2.0), D.normal_ppf(1.0 - alpha / 2.0)):
        if not math.isfinite(z0):
            out.append(math.nan)
            continue
        num = z0 + za
        out.append(D.normal_cdf(z0 + num / (1.0 - a * num)))
    return out[0], out[1]


def tukey_hsd(scores: np.ndarray, alpha: float = 0.05, blocked: bool = True
              ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tukey's HSD over systems (columns of ``scores``, topics x systems):
    (p, ci_low, ci_high) matrices indexed [i, j] for mean_i - mean_j.

    ``blocked=True`` (default): the error term is the residual mean square of
    the two-way ANOVA without replication (topics are blocks), df (k-1)(n-1);
    ``blocked=False``: the one-way ANOVA error term, df k(n-1), as
    ``scipy.stats.tukey_hsd``.  At least 2 topics and 2 systems, finite values;
    ``alpha`` in (0, 1).  The ANOVA itself: `irscore.stats.anova`."""
    p, lo, hi, _ = anova_hsd.tukey(scores, alpha, blocked)
    return p, lo, hi


def tukey_randomized(scores: np.ndarray, n_resamples: int = 10_000, seed: Optional[int] = None,
                     alpha: float = 0.05) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Carterette's randomised Tukey HSD (TOIS 2012, section 4.2): the null
    distribution of the range max - min of the system means when each topic's
    scores are permuted over the systems.  p[i, j] = (#{b: range_b >= |mean_i -
    mean_j|} + 1) / (B + 1); CI: diff +- the 1 - alpha quantile of the range.
    Blocked by topic: scores are permuted only within a topic (a row), so a
    topic's difficulty moves no score between topics and cancels out of every
    difference of means, as in the two-way ANOVA of `tukey_hsd`.

    ``scores``: at least one topic and two systems, finite values;
    ``n_resamples`` at most ``MAX_STORED_RESAMPLES`` (10**7: the B ranges are
    kept, 80 MB at the limit)."""
    try:
        sc = np.ascontiguousarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"scores must be a (topics x systems) array of numbers, got {type(scores).__name__}") from None
    if sc.ndim != 2 or sc.shape[0] < 1 or sc.shape[1] < 2:
        raise ValueError(f"scores must be a (topics x systems) array with at least one topic and two systems, "
                         f"got shape {sc.shape}")
    if not np.all(np.isfinite(sc)) or float(np.abs(sc).max()) > 1e300:
        raise ValueError("scores must be finite numbers (a NaN, an infinity or a value beyond 1e300 found)")
    B = check_resamples(n_resamples, stored=True)
    alpha = check_alpha(alpha)
    seed = resolve_seed(seed)
    T, K = sc.shape
    rng = np.empty(B)
    _stats.tukey_range(sc, B, seed, rng)
    means = sc.mean(axis=0)
    diff = means[:, None] - means[None, :]
    tol = 1e-11 * float(np.abs(sc).sum()) / T
    rng.sort()                  # in place: one B-array in all (80 MB at the limit)
    count = rng.size - np.searchsorted(rng, np.abs(diff) - tol, side="left")
    p = (count + 1.0) / (rng.size + 1.0)
    np.fill_diagonal(p, 1.0)
    crit = float(np.quantile(rng, 1.0 - alpha, overwrite_input=True))
    return p, diff - crit, diff + crit
