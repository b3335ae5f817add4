"""Resource bounds and argument errors of the statistics: the parameters that
size the work or the memory (n_resamples of the tests that keep every
resampled value, swap_rate's n_trials and n_bins) are bounded with a ValueError
naming them; extreme values give the right number or a clear error; no
warning leaks and no negative zero comes out."""
import math
import warnings

import numpy as np
import pytest

import irscore
from irscore.stats import meta, paired
from irscore.stats.corrections import adjust


def _runs():
    qrels = {"1": {"a": 1, "b": 0}, "2": {"a": 1, "b": 0}, "3": {"a": 1, "c": 1}}
    good = {q: {"a": 2.0, "b": 1.0, "c": 0.5} for q in qrels}
    bad = {q: {"b": 2.0, "c": 1.5, "a": 1.0} for q in qrels}
    return qrels, {"good": good, "bad": bad}


# ---- parameters that size the memory ---------------------------------------------------

@pytest.mark.parametrize("test", ["bootstrap", "tukey_randomized"])
def test_compare_bounds_the_resamples_it_keeps(test):
    qrels, runs = _runs()
    with pytest.raises(ValueError, match=r"n_resamples must be an integer in 1 \.\. 10,000,000"):
        irscore.compare(qrels, runs, "P_1", test=test, n_resamples=10 ** 9, seed=1)
    # the limit itself is accepted (checked without running it: 10**7 resamples of
    # 3 queries would take seconds)
    assert paired.check_resamples(10 ** 7, stored=True) == 10 ** 7


def test_randomization_keeps_its_larger_bound():
    # the randomization test keeps nothing per resample: 10**9 stays allowed
    assert paired.check_resamples(10 ** 9) == 10 ** 9
    with pytest.raises(ValueError, match="n_resamples"):
        paired.check_resamples(10 ** 9 + 1)


def test_bootstrap_and_tukey_randomized_name_n_resamples():
    d = [np.array([0.1, -0.2, 0.3])]
    for n in (10 ** 9, 10 ** 7 + 1, 0, -1):
        with pytest.raises(ValueError, match="n_resamples"):
            paired.bootstrap_test(d, n_resamples=n, seed=1)
        with pytest.raises(ValueError, match="n_resamples"):
            paired.tukey_randomized(np.random.default_rng(0).random((5, 3)), n, 1)


def test_bootstrap_in_chunks_equals_one_call(monkeypatch):
    # the pairs' means are kept a few pairs at a time: the results do not depend on it
    rng = np.random.default_rng(3)
    diffs = [rng.normal(0.1, 1, int(rng.integers(0, 30))) for _ in range(12)] + [np.zeros(4), np.full(3, 0.2)]
    ref = paired.bootstrap_test(diffs, 500, seed=5, ci="bca")
    monkeypatch.setattr(paired, "_STORE_BUDGET", 1000)
    got = paired.bootstrap_test(diffs, 500, seed=5, ci="bca")
    for a, b in zip(ref, got):
        np.testing.assert_array_equal(a, b)


def test_bootstrap_p_counts_as_the_kernel_t_statistics():
    # the p-value's count is taken in the kernel; the same count from all the t*
    from irscore import _stats
    rng = np.random.default_rng(8)
    diffs = paired.check_diffs([rng.normal(0.2, 1, int(rng.integers(2, 25))) for _ in range(10)])
    p, _, _ = paired.bootstrap_test(diffs, 800, seed=9)
    values, offsets = paired.csr(diffs)
    means, tstar = np.empty((10, 800)), np.empty((10, 800))
    _stats.bootstrap(values, offsets, 800, 9, means, tstar)
    t_obs = np.array([d.mean() / (d.std(ddof=1) / math.sqrt(d.size)) for d in diffs])
    count = np.sum(np.abs(tstar) >= np.abs(t_obs)[:, None] * (1 - 1e-12), axis=1)
    np.testing.assert_array_equal(p, (count + 1.0) / 801.0)


@pytest.mark.parametrize("kw,name", [
    (dict(n_trials=10 ** 9), "n_trials"), (dict(n_trials=10 ** 6 + 1), "n_trials"),
    (dict(n_bins=10 ** 12), "n_bins"), (dict(n_bins=10 ** 6 + 1), "n_bins"),
    (dict(bin_width=math.inf), "bin_width"), (dict(bin_width=1e308), "bin_width"),
])
def test_swap_rate_bounds_its_sizes(kw, name):
    s = np.random.default_rng(0).random((4, 20))
    with pytest.raises(ValueError, match=name):
        meta.swap_rate(None, s, "m", **kw)


def test_swap_rate_with_a_tiny_bin_width_files_everything_in_the_last_bin():
    s = np.random.default_rng(1).random((5, 30))
    (r,) = meta.swap_rate(None, s, "m", topic_set_sizes=5, n_trials=40, seed=2, bin_width=1e-300, n_bins=6)
    (w,) = meta.swap_rate(None, s, "m", topic_set_sizes=5, n_trials=40, seed=2, bin_width=1e-300, n_bins=1)
    assert r.n_pairs[:-1].sum() == 0 and r.n_pairs[-1] == 40 * 10
    assert r.n_swaps[-1] == w.n_swaps[0] and r.overall == w.overall
    assert np.all(np.isfinite(r.bin_edges[:-1]))


def test_swap_rate_in_chunks_equals_one_pass(monkeypatch):
    s = np.random.default_rng(2).random((6, 40))
    ref = meta.swap_rate(None, s, "m", topic_set_sizes=[4, 10], n_trials=300, seed=3, bin_width=0.03, n_bins=6)
    monkeypatch.setattr(meta, "_CHUNK", 200)
    got = meta.swap_rate(None, s, "m", topic_set_sizes=[4, 10], n_trials=300, seed=3, bin_width=0.03, n_bins=6)
    for a, b in zip(ref, got):
        np.testing.assert_array_equal(a.n_pairs, b.n_pairs)
        np.testing.assert_array_equal(a.n_swaps, b.n_swaps)
        assert a.overall == b.overall


# ---- argument errors ---------------------------------------------------------------------

@pytest.mark.parametrize("args,kw,name", [
    ((-1, 1), {}, "n_resamples"),
    ((0,), {}, "n_resamples"),
    ((10,), dict(seed="x"), "seed"),
    ((10,), dict(alpha=5), "alpha"),
    ((10,), dict(alpha="0.05"), "alpha"),
])
def test_tukey_randomized_names_the_argument(args, kw, name):
    sc = np.random.default_rng(0).random((6, 3))
    with pytest.raises((ValueError, TypeError), match=name):
        paired.tukey_randomized(sc, *args, **kw)


@pytest.mark.parametrize("scores", [np.ones(5), np.ones((4, 1)), np.zeros((0, 3)), [[1.0, np.nan], [2.0, 3.0]],
                                    [[1.0, np.inf], [2.0, 3.0]], [["a", "b"], ["c", "d"]], np.ones((2, 2, 2))])
def test_tukey_randomized_names_bad_scores(scores):
    with pytest.raises((ValueError, TypeError), match="scores"):
        paired.tukey_randomized(scores, 10, 1)


# ---- extreme values -------------------------------------------------------------------------

@pytest.mark.parametrize("scale", [1e150, 1e-150, 1e200])
def test_bootstrap_bca_and_t_test_scale_with_the_data(scale):
    x = np.random.default_rng(4).normal(0.2, 1, 30)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p, lo, hi = paired.bootstrap_test([x * scale], 2000, seed=1, ci="bca")
        tp, tlo, thi = paired.t_test([x * scale])
    assert np.isfinite(p[0]) and np.isfinite(lo[0]) and np.isfinite(hi[0])
    assert lo[0] < x.mean() * scale < hi[0]
    tp1, tlo1, thi1 = paired.t_test([x])
    assert tp[0] == pytest.approx(tp1[0], rel=1e-12)
    assert tlo[0] / scale == pytest.approx(tlo1[0], rel=1e-12)
    assert thi[0] / scale == pytest.approx(thi1[0], rel=1e-12)


def test_bca_levels_do_not_depend_on_the_scale():
    rng = np.random.default_rng(5)
    d = rng.normal(0.1, 1, 25)
    means = rng.normal(d.mean(), 0.2, 1000)
    ref = paired.bca_levels(d, means, 0.05)
    for scale in (1e150, 1e200, 1e-150):
        got = paired.bca_levels(d * scale, means * scale, 0.05)
        assert got == pytest.approx(ref, rel=1e-12)


# ---- cosmetic ----------------------------------------------------------------------------------

def test_compare_two_queries_constant_difference_leaks_no_warning():
    qrels = {"1": {"a": 1, "b": 0}, "2": {"a": 1, "b": 0}}
    good = {q: {"a": 2.0, "b": 1.0} for q in qrels}
    bad = {q: {"b": 2.0, "a": 1.0} for q in qrels}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = irscore.compare(qrels, {"good": good, "bad": bad}, "P_1", test="t")
    (p,) = c.pairs
    assert p.diff == 1.0 and p.n_queries == 2
    assert p.cohen_d == math.inf          # all differences equal and non-zero
    assert math.isnan(p.hedges_g)         # J(1) = 0 times an infinite d (documented)
    assert p.ci_low == p.ci_high == 1.0


@pytest.mark.parametrize("method", ["holm", "bonferroni", "bh", "none"])
def test_adjust_returns_no_negative_zero(method):
    out = adjust([-0.0, 0.5], method)
    assert out[0] == 0.0 and not np.signbit(out[0])


def test_t_interval_at_a_tiny_alpha_is_unbounded_without_a_warning():
    # t_{1 - alpha/2, 1} * se overflows: the interval is (-inf, inf), not an overflow warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p, lo, hi = paired.t_test([np.array([0.0, 1e156])], 4.29e-244)
    assert p[0] == pytest.approx(0.5) and lo[0] == -math.inf and hi[0] == math.inf


def test_bootstrap_at_its_limit_keeps_one_array_of_means():
    # 10**7 resamples of one pair: the means (80 MB) and nothing else of that size
    # (no array of t*, no copy for the quantiles); measured growth ~88 MB
    import subprocess
    import sys
    import textwrap
    code = textwrap.dedent("""
        import resource
        import numpy as np
        from irscore.stats import paired
        d = [np.array([0.1, 0.3, -0.05])]
        paired.bootstrap_test(d, 10, seed=1)
        r0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        p, lo, hi = paired.bootstrap_test(d, 10 ** 7, seed=1, ci="percentile")
        assert 0 < p[0] < 1 and lo[0] == -0.05 and hi[0] == 0.3, (p, lo, hi)
        print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - r0) / 1024)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert float(out.stdout) < 120, f"peak RSS grew by {float(out.stdout):.0f} MB"


def test_tukey_randomized_at_its_limit_keeps_one_array_of_ranges():
    # 10**7 resamples: the ranges (80 MB), sorted in place; measured growth ~76 MB
    import subprocess
    import sys
    import textwrap
    code = textwrap.dedent("""
        import resource
        import numpy as np
        from irscore.stats import paired
        sc = np.array([[0.1, 0.4], [0.3, 0.2]])
        paired.tukey_randomized(sc, 10, seed=1)
        r0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        p, lo, hi = paired.tukey_randomized(sc, 10 ** 7, seed=1)
        assert 0 < p[0, 1] <= 1 and lo[0, 1] < 0 < hi[0, 1], (p, lo, hi)
        print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - r0) / 1024)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert float(out.stdout) < 120, f"peak RSS grew by {float(out.stdout):.0f} MB"
