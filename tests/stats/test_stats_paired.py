"""The paired tests, effect sizes and corrections of irscore.stats against
scipy and statsmodels on random per-query data, their edge cases and the
native kernel's argument checks."""
import math

import numpy as np
import pytest

from irscore import _stats
from irscore.stats import paired
from irscore.stats.corrections import adjust

ss = pytest.importorskip("scipy.stats")


def _data(rng, n, kind):
    """Per-query scores of two systems: continuous, or on a grid (ties, zeros)."""
    if kind == "continuous":
        return rng.random(n), rng.random(n)
    x = rng.integers(0, 11, n) / 10.0
    y = np.clip(x + rng.integers(-2, 3, n) / 10.0, 0, 1)
    return x, y


def test_t_test_equals_scipy():
    rng = np.random.default_rng(1)
    worst = 0.0
    for case in range(3000):
        n = int(rng.integers(2, 120))
        x, y = _data(rng, n, "continuous" if case % 3 else "grid")
        d = x - y
        if not np.any(d) or np.all(d == d[0]):
            continue
        p, lo, hi = paired.t_test([d], alpha=0.05)
        ref = ss.ttest_rel(x, y)
        ci = ref.confidence_interval(0.95)
        worst = max(worst, abs(p[0] - ref.pvalue), abs(lo[0] - ci.low), abs(hi[0] - ci.high))
    assert worst < 1e-9


def test_t_test_other_alpha_interval():
    rng = np.random.default_rng(2)
    x, y = rng.random(17), rng.random(17)
    _, lo, hi = paired.t_test([x - y], alpha=0.1)
    ci = ss.ttest_rel(x, y).confidence_interval(0.9)
    assert abs(lo[0] - ci.low) < 1e-9 and abs(hi[0] - ci.high) < 1e-9


def _wilcoxon_branch(d):
    n = d.size
    nz = d[d != 0]
    if n <= 50 and nz.size == n and np.unique(np.abs(nz)).size == n:
        return "exact"
    return "perm" if n <= 13 else "normal"


def test_wilcoxon_equals_scipy():
    """Every branch of scipy's method='auto': exact (n <= 50, no ties or zeros),
    exact sign flips of the signed ranks (ties or zeros, n <= 13; scipy's
    permutation test is slow, so fewer of those), normal approximation with the
    tie-corrected variance (otherwise)."""
    rng = np.random.default_rng(3)
    worst = 0.0
    seen = {"exact": 0, "perm": 0, "normal": 0}
    quota = {"exact": 1500, "perm": 20, "normal": 1500}
    while any(seen[k] < quota[k] for k in seen):
        kind = ("continuous", "grid")[int(rng.integers(0, 2))]
        n = int(rng.integers(1, 14)) if rng.random() < 0.5 else int(rng.integers(14, 90))
        x, y = _data(rng, n, kind)
        d = x - y
        branch = _wilcoxon_branch(d)
        if not np.any(d) or seen[branch] >= quota[branch]:
            continue
        seen[branch] += 1
        p = paired.wilcoxon_test([d])[0]
        ref = ss.wilcoxon(x, y, zero_method="wilcox", correction=False, method="auto").pvalue
        worst = max(worst, abs(p - ref))
    assert worst < 1e-9


def test_sign_test_equals_binomtest():
    rng = np.random.default_rng(4)
    worst = 0.0
    for case in range(3000):
        n = int(rng.integers(1, 300))
        x, y = _data(rng, n, "grid" if case % 2 else "continuous")
        d = x - y
        k, m = int((d > 0).sum()), int((d != 0).sum())
        if m == 0:
            continue
        worst = max(worst, abs(paired.sign_test([d])[0] - ss.binomtest(k, m, 0.5).pvalue))
    assert worst < 1e-9


def _perm_stat(a, b, axis=-1):
    return np.mean(a, axis=axis) - np.mean(b, axis=axis)


def test_exact_randomization_equals_permutation_test():
    rng = np.random.default_rng(5)
    worst = 0.0
    diffs, refs = [], []
    for case in range(200):
        n = int(rng.integers(2, 14))  # 2^n <= 10,000: exact in both
        x, y = (rng.integers(0, 5, n).astype(float), rng.integers(0, 5, n).astype(float)) if case % 2 \
            else (rng.random(n), rng.random(n))
        diffs.append(x - y)
        refs.append(ss.permutation_test((x, y), _perm_stat, permutation_type="samples", n_resamples=10_000,
                                        vectorized=True).pvalue)
    p, exact = paired.randomization_test(diffs, n_resamples=10_000, seed=0)
    assert exact.all()
    worst = float(np.max(np.abs(p - np.asarray(refs))))
    assert worst < 1e-9


def test_exact_randomization_counts_ties_exactly():
    """On scores in tenths, sign vectors tie exactly with the observed sum in
    rational arithmetic; scipy's relative tolerance (100 eps of the observed
    value) misses some of those ties (e.g. when the observed sum is 0), so the
    reference here is the enumeration in exact fractions."""
    import itertools
    from fractions import Fraction

    rng = np.random.default_rng(15)
    for case in range(300):
        n = int(rng.integers(1, 11))
        xi = rng.integers(0, 11, n)
        yi = np.clip(xi + rng.integers(-2, 3, n), 0, 10)
        d = xi / 10 - yi / 10
        df = [Fraction(int(a) - int(b), 10) for a, b in zip(xi, yi)]
        obs = abs(sum(df))
        count = sum(abs(sum(s * v for s, v in zip(signs, df))) >= obs
                    for signs in itertools.product((1, -1), repeat=n))
        p, exact = paired.randomization_test([d], 10_000, seed=0)
        assert exact[0] and p[0] == count / 2 ** n


def test_monte_carlo_randomization_within_sampling_error_and_reproducible():
    rng = np.random.default_rng(6)
    B = 10_000
    for case in range(12):
        n = int(rng.integers(20, 200))
        x = rng.random(n)
        y = x - rng.normal(0.02 * (case % 4), 0.2, n)
        p, exact = paired.randomization_test([x - y], n_resamples=B, seed=case)
        assert not exact[0]
        ref = ss.permutation_test((x, y), _perm_stat, permutation_type="samples", n_resamples=B,
                                  vectorized=True, rng=case).pvalue
        pm = max((p[0] + ref) / 2, 1.0 / B)
        assert abs(p[0] - ref) < 4 * math.sqrt(2 * pm * (1 - pm) / B) + 2.0 / B
        again, _ = paired.randomization_test([x - y], n_resamples=B, seed=case)
        assert again[0] == p[0]


def test_randomization_streams_do_not_depend_on_other_pairs():
    rng = np.random.default_rng(7)
    ds = [rng.normal(0, 1, 40) for _ in range(5)]
    p_all, _ = paired.randomization_test(ds, 5000, seed=11)
    p_first, _ = paired.randomization_test(ds[:1], 5000, seed=11)
    assert p_all[0] == p_first[0]


def test_bootstrap_intervals_within_sampling_error_of_scipy():
    rng = np.random.default_rng(8)
    B = 10_000
    for case in range(10):
        n = int(rng.integers(15, 120))
        d = rng.normal(0.03, 0.2, n) ** (1 + case % 2)  # some skewed
        se = d.std(ddof=1) / math.sqrt(n)
        for method in ("percentile", "bca"):
            _, lo, hi = paired.bootstrap_test([d], B, seed=case, ci=method)
            ref = ss.bootstrap((d,), np.mean, n_resamples=B, method=method, rng=case).confidence_interval
            assert abs(lo[0] - ref.low) < 0.2 * se and abs(hi[0] - ref.high) < 0.2 * se, (method, case)
        p1 = paired.bootstrap_test([d], B, seed=3)
        p2 = paired.bootstrap_test([d], B, seed=3)
        assert np.array_equal(p1[0], p2[0]) and np.array_equal(p1[1], p2[1])


def _bootstrap_p_reference(d, B, rng):
    """Studentised bootstrap test (Efron & Tibshirani 16.4) in plain numpy."""
    n = d.size
    z = d - d.mean()
    t_obs = d.mean() / (d.std(ddof=1) / math.sqrt(n))
    idx = rng.integers(0, n, (B, n))
    zs = z[idx]
    t = zs.mean(axis=1) / (zs.std(axis=1, ddof=1) / math.sqrt(n))
    return (np.count_nonzero(np.abs(t) >= abs(t_obs)) + 1) / (B + 1)


def test_bootstrap_p_within_sampling_error_of_reference():
    rng = np.random.default_rng(9)
    B = 20_000
    for case in range(8):
        n = int(rng.integers(20, 100))
        d = rng.normal(0.04 * (case % 3), 0.2, n)
        p = paired.bootstrap_test([d], B, seed=case)[0][0]
        ref = _bootstrap_p_reference(d, B, rng)
        pm = max((p + ref) / 2, 1.0 / B)
        assert abs(p - ref) < 4 * math.sqrt(2 * pm * (1 - pm) / B) + 2.0 / B


def test_tukey_hsd_equals_scipy():
    rng = np.random.default_rng(10)
    worst = 0.0
    for case in range(6):  # scipy's studentised range is slow (numerical integration)
        T, K = int(rng.integers(2, 60)), int(rng.integers(2, 7))
        S = rng.random((T, K)) + rng.normal(0, 0.1, K)
        p, lo, hi = paired.tukey_hsd(S, alpha=0.05, blocked=False)
        ref = ss.tukey_hsd(*[S[:, k] for k in range(K)])
        ci = ref.confidence_interval(0.95)
        off = ~np.eye(K, dtype=bool)
        worst = max(worst, float(np.max(np.abs(p - ref.pvalue)[off])), float(np.max(np.abs(lo - ci.low)[off])),
                    float(np.max(np.abs(hi - ci.high)[off])))
    assert worst < 1e-9


def _tukey_randomized_reference(S, B, rng):
    T, K = S.shape
    means = S.mean(axis=0)
    ranges = np.empty(B)
    for b in range(B):
        perm = np.argsort(rng.random((T, K)), axis=1)
        m = np.take_along_axis(S, perm, axis=1).mean(axis=0)
        ranges[b] = m.max() - m.min()
    diff = np.abs(means[:, None] - means[None, :])
    return (np.sum(ranges[None, None, :] >= diff[:, :, None], axis=2) + 1) / (B + 1)


def test_tukey_randomized_within_sampling_error_of_reference():
    rng = np.random.default_rng(11)
    B = 4000
    for case in range(4):
        T, K = int(rng.integers(10, 40)), int(rng.integers(3, 6))
        S = rng.random((T, K)) + np.linspace(0, 0.15, K)
        p, lo, hi = paired.tukey_randomized(S, B, seed=case)
        ref = _tukey_randomized_reference(S, B, rng)
        pm = np.maximum((p + ref) / 2, 1.0 / B)
        assert np.all(np.abs(p - ref) < 4 * np.sqrt(2 * pm * (1 - pm) / B) + 2.0 / B)
        assert np.allclose(p, p.T) and np.allclose(hi - lo, (hi - lo)[0, 1])


def test_effect_sizes_definitions():
    rng = np.random.default_rng(12)
    sp = pytest.importorskip("scipy.special")
    for n in (2, 3, 5, 10, 50, 400):
        d = rng.normal(0.1, 0.3, n)
        cohen, hedges = paired.effect_sizes([d])
        dz = d.mean() / d.std(ddof=1)
        m = n - 1
        j = math.exp(sp.gammaln(m / 2) - sp.gammaln((m - 1) / 2)) / math.sqrt(m / 2) if m >= 2 else float("nan")
        assert cohen[0] == pytest.approx(dz, rel=1e-12)
        if m >= 2:
            assert hedges[0] == pytest.approx(dz * j, rel=1e-9)
            assert abs(j - (1 - 3 / (4 * m - 1))) < 0.01  # the usual approximation
        else:
            # J(1) = Gamma(1/2) / (sqrt(1/2) Gamma(0)) = 0, as the approximation 1 - 3/(4m - 1)
            # (found in review: it was NaN, against the docs' "NaN below two queries")
            assert hedges[0] == 0.0 and 1 - 3 / (4 * m - 1) == 0.0
    assert math.isnan(paired.effect_sizes([np.array([0.5])])[1][0])
    assert paired.effect_sizes([np.array([0.0, 0.0])])[1][0] == 0.0


def _corrections_brute(p, method):
    """The step-down / step-up definitions, read literally (O(m^2))."""
    m = len(p)
    order = sorted(range(m), key=lambda i: (p[i], i))
    out = [0.0] * m
    for r, i in enumerate(order, start=1):
        if method == "bonferroni":
            v = m * p[i]
        elif method == "holm":
            v = max((m - k + 1) * p[order[k - 1]] for k in range(1, r + 1))
        else:
            v = min(m * p[order[k - 1]] / k for k in range(r, m + 1))
        out[i] = min(1.0, v)
    return np.array(out)


def _random_family(rng, case):
    m = int(rng.integers(1, 60))
    p = rng.random(m) ** (1 + case % 4)
    return np.round(p, 2) if case % 5 == 0 else p  # ties


def test_corrections_equal_statsmodels():
    mt = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(13)
    worst = 0.0
    for case in range(12):  # multipletests is slow here; the brute-force test below covers thousands
        p = _random_family(rng, case)
        for ours, theirs in (("bonferroni", "bonferroni"), ("holm", "holm"), ("bh", "fdr_bh")):
            ref = mt.multipletests(p, method=theirs)[1]
            worst = max(worst, float(np.max(np.abs(adjust(p, ours) - ref))))
    assert worst < 1e-12
    assert np.array_equal(adjust(p, "none"), p)


def test_corrections_equal_their_definitions():
    rng = np.random.default_rng(14)
    worst = 0.0
    for case in range(3000):
        p = _random_family(rng, case)
        for method in ("bonferroni", "holm", "bh"):
            worst = max(worst, float(np.max(np.abs(adjust(p, method) - _corrections_brute(list(p), method)))))
    assert worst < 1e-12


def test_corrections_leave_nan_out_of_the_family():
    p = np.array([0.01, np.nan, 0.02, 0.04])
    out = adjust(p, "bonferroni")
    assert np.isnan(out[1]) and np.allclose(out[[0, 2, 3]], [0.03, 0.06, 0.12])
    with pytest.raises(ValueError, match="correction"):
        adjust(p, "sidak")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        adjust([0.5, 1.5], "holm")


# ---- edge cases -------------------------------------------------------------------

ALL = ("t", "wilcoxon", "sign", "randomization", "bootstrap")


def _p(test, diffs):
    if test == "t":
        return paired.t_test(diffs)[0]
    if test == "wilcoxon":
        return paired.wilcoxon_test(diffs)
    if test == "sign":
        return paired.sign_test(diffs)
    if test == "randomization":
        return paired.randomization_test(diffs, 2000, seed=1)[0]
    return paired.bootstrap_test(diffs, 2000, seed=1)[0]


@pytest.mark.parametrize("test", ALL)
def test_all_differences_zero_and_empty(test):
    p = _p(test, [np.zeros(7), np.zeros(40), np.zeros(0)])
    assert p[0] == 1.0 and p[1] == 1.0 and math.isnan(p[2])


def test_one_query():
    d = [np.array([0.3])]
    assert math.isnan(paired.t_test(d)[0][0])
    assert paired.randomization_test(d, 100, seed=0)[0][0] == 1.0
    assert paired.sign_test(d)[0] == 1.0
    assert paired.wilcoxon_test(d)[0] == 1.0
    assert math.isnan(paired.bootstrap_test(d, 100, seed=0)[0][0])
    cohen, hedges = paired.effect_sizes(d)
    assert math.isnan(cohen[0]) and math.isnan(hedges[0])


def test_ties_in_differences_count_as_extreme():
    # 4 differences of +-0.1: sums of sign vectors tie exactly with the observed one
    d = np.array([0.1, 0.1, 0.1, -0.1])
    p, exact = paired.randomization_test([d], 10_000, seed=0)
    # |sum| >= 0.2: all but the 6 vectors with sum 0 -> 10 / 16
    assert exact[0] and p[0] == 10 / 16
    x = np.array([0.3, 0.5, 0.2, 0.4])
    ref = ss.permutation_test((x, x - d), _perm_stat, permutation_type="samples", vectorized=True).pvalue
    assert abs(p[0] - ref) < 1e-12


def test_constant_nonzero_differences():
    d = [np.full(12, 0.25)]  # exactly representable: sd = 0, t = inf
    assert paired.t_test(d)[0][0] == 0.0
    assert paired.randomization_test(d, 10_000, seed=0)[0][0] == pytest.approx(2 / 4096)


# ---- native argument checks -----------------------------------------------------

def test_kernel_rejects_bad_arguments():
    v = np.arange(5, dtype=np.float64)
    ok = np.array([0, 2, 5], dtype=np.int64)
    p, ex = np.empty(2), np.empty(2, dtype=np.int8)
    _stats.sign_flip(v, ok, 100, 1, p, ex)
    for off in ([0, 2, 6], [1, 2, 5], [0, 3, 2, 5], [0, 6, 5]):
        o = np.array(off, dtype=np.int64)
        with pytest.raises(ValueError):
            _stats.sign_flip(v, o, 100, 1, np.empty(o.size - 1), np.empty(o.size - 1, dtype=np.int8))
    with pytest.raises(ValueError):
        _stats.sign_flip(v, ok, 100, 1, np.empty(3), ex)
    with pytest.raises(ValueError):
        _stats.sign_flip(v, ok, 0, 1, p, ex)
    with pytest.raises(ValueError):
        _stats.sign_flip(v, np.zeros(0, dtype=np.int64), 10, 1, np.empty(0), np.empty(0, dtype=np.int8))
    with pytest.raises(ValueError):
        _stats.bootstrap(v, ok, 10, 1, np.empty((2, 9)), np.empty((2, 10)))
    with pytest.raises(ValueError):
        _stats.bootstrap(v, np.array([0, 7], dtype=np.int64), 10, 1, np.empty((1, 10)), np.empty((1, 10)))
    with pytest.raises(ValueError):
        _stats.tukey_range(np.zeros((3, 1)), 10, 1, np.empty(10))
    with pytest.raises(ValueError):
        _stats.tukey_range(np.zeros((3, 2)), 10, 1, np.empty(9))
    with pytest.raises(ValueError):
        _stats.tukey_range(np.zeros((0, 2)), 10, 1, np.empty(10))
