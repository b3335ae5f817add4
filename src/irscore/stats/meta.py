"""Meta-evaluation of measures (``irscore.meta``): how well a measure tells
systems apart, how two measures (or two sets of judgments) order the same
systems, and how often a comparison flips with the topic set.

- [`discriminative_power`][irscore.stats.meta.discriminative_power] -- Sakai (SIGIR 2006): the share of system
  pairs a significance test finds different at level alpha, and the ASL curve
  (the achieved significance levels of all pairs, sorted).
- [`rank_correlation`][irscore.stats.meta.rank_correlation] -- Kendall's tau-b (as ``scipy.stats.kendalltau``)
  or tau_AP (Yilmaz, Aslam & Robertson, SIGIR 2008) between two orderings of
  the same systems.
- [`swap_rate`][irscore.stats.meta.swap_rate] -- the swap method of Voorhees & Buckley (SIGIR 2002) over
  random disjoint topic-set pairs.

``runs`` is what [`irscore.compare`][irscore.compare] takes (every run evaluated on all the
qrels queries, a query a run did not answer scoring 0), or, with
``qrels=None``, an array of per-query scores (systems x queries).  Queries with
an undefined (NaN) value for some system are left out (and counted).
The definitions, with references, are in ``docs/stats.md``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from irscore.stats.comparison import TESTS, pair_tests, pairs_of, per_query_matrix
from irscore.stats.paired import check_alpha, check_resamples, resolve_seed


def _is_int(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))

__all__ = ["DiscriminativePower", "SwapRates", "discriminative_power", "rank_correlation", "swap_rate"]


def _scores(qrels: Any, runs: Any, measure: str, **options: Any) -> Tuple[List[str], np.ndarray, int]:
    """(system names, scores (systems x queries) without undefined queries, n dropped)."""
    if qrels is None:
        s = np.asarray(runs, dtype=np.float64)
        if s.ndim != 2 or s.shape[0] < 2:
            raise ValueError("with qrels=None, runs must be a (systems x queries) array with >= 2 systems")
        systems = [f"s{i}" for i in range(s.shape[0])]
    else:
        if not isinstance(measure, str):
            raise TypeError(f"measure must be one measure name, got {measure!r}")
        systems, keys, _, scores, _ = per_query_matrix(qrels, runs, [measure], **options)
        if len(keys) != 1:
            raise ValueError(f"measure {measure!r} names {len(keys)} measures; give one")
        s = scores[keys[0]]
    ok = ~np.isnan(s).any(axis=0)
    return systems, np.ascontiguousarray(s[:, ok]), int((~ok).sum())


# ---- discriminative power ------------------------------------------------------------

@dataclass
class DiscriminativePower:
    """``power`` = ``n_significant / n_pairs``; ``asl``: the p-values of all
    pairs sorted ascending (Sakai's ASL curve: x = pair rank, y = ASL);
    ``pairs[k]``/``diffs[k]``: the system pair and mean difference of ``asl[k]``."""

    measure: str
    test: str
    alpha: float
    n_pairs: int
    n_significant: int
    power: float
    asl: np.ndarray
    pairs: List[Tuple[str, str]]
    diffs: np.ndarray
    n_queries: int
    n_dropped_queries: int
    min_significant_diff: float


def discriminative_power(qrels: Any, runs: Any, measure: str, *, test: str = "bootstrap", alpha: float = 0.05,
                         n_resamples: int = 1000, seed: Optional[int] = None, correction: str = "none",
                         **options: Any) -> DiscriminativePower:
    """Discriminative power of ``measure`` over the runs (Sakai, SIGIR 2006):
    every pair of systems is tested with ``test`` (default: the paired
    studentised bootstrap test with B = 1000, Sakai's choice) and the share of
    pairs with ASL < ``alpha`` is returned with the sorted ASLs.  Sakai uses
    no multiple-comparison correction (``correction="none"``).
    ``min_significant_diff``: the smallest |mean difference| among the
    significant pairs (NaN if none)."""
    if test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(TESTS)}; got {test!r}")
    alpha = check_alpha(alpha)
    n_resamples = check_resamples(n_resamples, stored=test in ("bootstrap", "tukey_randomized"))
    systems, s, dropped = _scores(qrels, runs, measure, **options)
    if s.shape[1] == 0:
        raise ValueError(f"no query has a defined {measure} value for every system")
    pairs = pairs_of(systems, None)
    ci = "bca" if test == "bootstrap" else ("tukey" if test.startswith("tukey") else "t")
    rows = pair_tests(systems, [measure], {measure: s}, pairs, test=test, correction=correction,
                       alpha=float(alpha), n_resamples=int(n_resamples), seed=resolve_seed(seed), ci=ci)
    p = np.array([r["p_adj"] for r in rows])
    diffs = np.array([r["diff"] for r in rows])
    order = np.argsort(p, kind="mergesort")
    sig = p < alpha
    return DiscriminativePower(
        measure=str(measure), test=test, alpha=float(alpha), n_pairs=len(rows), n_significant=int(sig.sum()),
        power=float(sig.mean()) if rows else float("nan"), asl=p[order],
        pairs=[(rows[k]["system"], rows[k]["vs"]) for k in order], diffs=diffs[order],
        n_queries=int(s.shape[1]), n_dropped_queries=dropped,
        min_significant_diff=float(np.abs(diffs[sig]).min()) if sig.any() else float("nan"))


# ---- rank correlation ------------------------------------------------------------------

class _Fenwick:
    """Counts of inserted ranks; prefix sums in O(log n)."""

    def __init__(self, n: int) -> None:
        self.t = [0] * (n + 1)

    def add(self, i: int) -> None:
        i += 1
        while i < len(self.t):
            self.t[i] += 1
            i += i & -i

    def below(self, i: int) -> int:
        """Number of inserted ranks < i."""
        s = 0
        while i > 0:
            s += self.t[i]
            i -= i & -i
        return s


def _dense(x: np.ndarray) -> np.ndarray:
    return np.unique(x, return_inverse=True)[1].astype(np.int64)


def _as_scores(a: Any, b: Any) -> Tuple[np.ndarray, np.ndarray]:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if set(a) != set(b):
            raise ValueError("the two mappings must score the same systems")
        keys = list(a)
        return (np.array([float(a[k]) for k in keys]), np.array([float(b[k]) for k in keys]))
    if isinstance(a, Mapping) or isinstance(b, Mapping):
        raise TypeError("give two mappings {system: score} or two sequences")
    la, lb = list(a), list(b)
    if la and all(isinstance(x, str) for x in la + lb):  # two orderings, best first
        if sorted(la) != sorted(lb) or len(set(la)) != len(la):
            raise ValueError("the two orderings must list the same systems once each")
        pos = {s: i for i, s in enumerate(lb)}
        return -np.arange(len(la), dtype=float), np.array([-float(pos[s]) for s in la])
    xa, xb = np.asarray(la, dtype=float), np.asarray(lb, dtype=float)
    if xa.shape != xb.shape or xa.ndim != 1:
        raise ValueError(f"the two score vectors must have the same length, got {xa.shape} and {xb.shape}")
    if np.isnan(xa).any() or np.isnan(xb).any():
        raise ValueError("scores must not be NaN")
    return xa, xb


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b in O(n log n) (Knight 1966): (n0 - n1 - n2 + n3 - 2 nd) /
    sqrt((n0 - n1)(n0 - n2)); NaN when either vector is constant."""
    n = x.size
    n0 = n * (n - 1) // 2
    rx, ry = _dense(x), _dense(y)

    def tied(v: np.ndarray) -> int:
        c = np.bincount(v)
        return int((c * (c - 1) // 2).sum())

    n1, n2 = tied(rx), tied(ry)
    joint = np.unique(rx * (int(ry.max()) + 1 if n else 1) + ry, return_counts=True)[1]
    n3 = int((joint * (joint - 1) // 2).sum())
    # discordant pairs: sorted by (x, y), count earlier items with larger y and larger x
    order = np.lexsort((ry, rx))
    fw = _Fenwick(int(ry.max()) + 1 if n else 1)
    nd = 0
    seen = 0
    i = 0
    xs, ys = rx[order].tolist(), ry[order].tolist()
    while i < n:
        j = i
        while j < n and xs[j] == xs[i]:  # one x-tie group: compare with earlier groups only
            nd += seen - fw.below(ys[j] + 1)
            j += 1
        for k in range(i, j):
            fw.add(ys[k])
        seen += j - i
        i = j
    den = float(n0 - n1) * float(n0 - n2)
    if den <= 0:
        return float("nan")
    return float(n0 - n1 - n2 + n3 - 2 * nd) / float(np.sqrt(den))


def tau_ap(truth: np.ndarray, estimate: np.ndarray) -> float:
    """tau_AP of the ranking by ``estimate`` against the reference ranking by
    ``truth`` (higher score = better rank; no ties):
    2 / (N - 1) * sum_{i=2..N} C(i) / (i - 1) - 1, C(i) = number of the items
    ranked above position i by ``estimate`` that ``truth`` also ranks above it."""
    n = truth.size
    if n < 2:
        raise ValueError("tau_AP needs at least two systems")
    if np.unique(truth).size != n or np.unique(estimate).size != n:
        raise ValueError("tau_AP is defined for rankings without ties")
    order = np.argsort(-estimate, kind="mergesort")
    rt = _dense(-truth)  # 0 = best by truth
    fw = _Fenwick(n)
    total = 0.0
    for pos, item in enumerate(order.tolist()):
        if pos:
            total += fw.below(int(rt[item])) / pos
        fw.add(int(rt[item]))
    return 2.0 * total / (n - 1) - 1.0


def rank_correlation(a: Any, b: Any, method: str = "kendall") -> float:
    """Correlation between two orderings of the same systems: two score vectors
    (same system order; higher = better), two mappings {system: score}, or two
    lists of system names best first.

    ``method``: ``"kendall"`` (tau-b, = scipy.stats.kendalltau), ``"tau_ap"``
    (asymmetric, ``a`` the reference ranking and ``b`` the ranking evaluated,
    as in Yilmaz et al. 2008) or ``"tau_ap_sym"`` (the mean of
    tau_AP(a, b) and tau_AP(b, a))."""
    x, y = _as_scores(a, b)
    if method == "kendall":
        return kendall_tau_b(x, y)
    if method == "tau_ap":
        return tau_ap(x, y)
    if method == "tau_ap_sym":
        return 0.5 * (tau_ap(x, y) + tau_ap(y, x))
    raise ValueError(f"method must be 'kendall', 'tau_ap' or 'tau_ap_sym', got {method!r}")


# ---- swap rate --------------------------------------------------------------------------

@dataclass
class SwapRates:
    """Swap rates for one topic-set size: ``bin_edges[k] <= |d1| < bin_edges[k+1]``;
    ``n_pairs[k]`` (system pair, trial) observations fell in bin k, of which
    ``n_swaps[k]`` were swaps; ``rate = n_swaps / n_pairs`` (NaN for an empty bin)."""

    topic_set_size: int
    n_trials: int
    bin_edges: np.ndarray
    n_pairs: np.ndarray
    n_swaps: np.ndarray
    rate: np.ndarray
    overall: float


MAX_TRIALS = 10 ** 6     # swap_rate's n_trials: each trial is O(queries + systems^2) work
MAX_BINS = 10 ** 6       # swap_rate's n_bins: three arrays of n_bins values are returned
_CHUNK = 1 << 20         # values per intermediate array of swap_rate (8 MiB): trials are done in chunks


def swap_rate(qrels: Any, runs: Any, measure: str, *, topic_set_sizes: Union[int, Sequence[int], None] = None,
              n_trials: int = 1000, bin_width: float = 0.01, n_bins: int = 20, seed: Optional[int] = None,
              **options: Any) -> List[SwapRates]:
    """Voorhees & Buckley's swap method (SIGIR 2002, section 3).  For each topic
    set size n (default: 5, 10, ... up to half the queries) and each of
    ``n_trials`` trials: draw two disjoint topic sets of n queries each,
    uniformly without replacement; for every pair of systems compute the mean
    difference d1 on the first set and d2 on the second; file the observation
    in the bin of |d1| (width ``bin_width``; the last of ``n_bins`` bins is
    open-ended); it is a swap when d1 * d2 < 0 (the sets disagree on which
    system is better; a zero difference is no swap).

    ``n_trials`` is at most ``MAX_TRIALS`` (10**6) and ``n_bins`` at most
    ``MAX_BINS`` (10**6); ``bin_width`` is positive and ``bin_width * n_bins``
    finite.  The trials run in chunks: the memory is bounded by the number of
    systems and queries, not by ``n_trials``."""
    systems, s, _ = _scores(qrels, runs, measure, **options)
    K, Q = s.shape
    if Q < 2:
        raise ValueError("the swap method needs at least two queries")
    if topic_set_sizes is None:
        sizes = [n for n in range(5, Q // 2 + 1, 5)] or [Q // 2]
    elif isinstance(topic_set_sizes, (int, np.integer)):
        if isinstance(topic_set_sizes, (bool, np.bool_)):
            raise ValueError(f"topic_set_sizes must be whole numbers, got {topic_set_sizes!r}")
        sizes = [int(topic_set_sizes)]
    else:
        given = list(topic_set_sizes)
        if not all(_is_int(n) for n in given):
            raise ValueError(f"topic_set_sizes must be whole numbers, got {topic_set_sizes!r}")
        sizes = [int(n) for n in given]
    for n in sizes:
        if not 1 <= n <= Q // 2:
            raise ValueError(f"topic set size {n} must be between 1 and half the {Q} queries")
    if not _is_int(n_trials) or not 1 <= n_trials <= MAX_TRIALS:
        raise ValueError(f"n_trials must be an integer in 1 .. {MAX_TRIALS:,}, got {n_trials!r}")
    if not _is_int(n_bins) or not 1 <= n_bins <= MAX_BINS:
        raise ValueError(f"n_bins must be an integer in 1 .. {MAX_BINS:,}, got {n_bins!r}")
    if isinstance(bin_width, (bool, np.bool_)) or not isinstance(bin_width, (int, float, np.integer, np.floating)) \
            or not 0 < bin_width < np.inf or not np.isfinite(float(bin_width) * int(n_bins)):
        raise ValueError(f"bin_width must be a positive number with bin_width * n_bins finite, got {bin_width!r}")
    width = float(bin_width)
    rng = np.random.default_rng(resolve_seed(seed))
    ii, jj = np.triu_indices(K, 1)
    edges = np.r_[np.arange(n_bins) * width, np.inf]
    out = []
    for n in sizes:
        n_pairs = np.zeros(n_bins, dtype=np.int64)
        n_swaps = np.zeros(n_bins, dtype=np.int64)
        step = max(1, _CHUNK // max(Q, K * n, ii.size, 1))
        for start in range(0, n_trials, step):
            c = min(step, n_trials - start)
            perm = np.argsort(rng.random((c, Q)), axis=1)
            m1 = s[:, perm[:, :n]].mean(axis=2)          # systems x trials
            m2 = s[:, perm[:, n:2 * n]].mean(axis=2)
            d1, d2 = m1[ii] - m1[jj], m2[ii] - m2[jj]    # pairs x trials
            with np.errstate(over="ignore"):             # |d1| / a tiny width: inf, the last bin
                b = np.minimum(np.floor(np.abs(d1) / width), n_bins - 1).astype(np.int64).ravel()
            swap = (d1 * d2 < 0).ravel()
            n_pairs += np.bincount(b, minlength=n_bins)
            n_swaps += np.bincount(b[swap], minlength=n_bins)
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = n_swaps / n_pairs
        total = int(n_pairs.sum())
        out.append(SwapRates(n, int(n_trials), edges, n_pairs, n_swaps, rate,
                             float(n_swaps.sum()) / total if total else float("nan")))
    return out
