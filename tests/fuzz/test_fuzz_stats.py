"""Property tests of the statistics (irscore.stats, irscore.meta): any
differences and any argument values give a result or a clear ValueError /
TypeError; p-values lie in [0, 1] (or are NaN) and intervals are ordered; the
numbers equal scipy's (t-test, Wilcoxon, sign test) and statsmodels' (Holm,
Bonferroni, Benjamini-Hochberg) where those define them."""
from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from irscore.stats import distributions as D
from irscore.stats import meta, paired
from irscore.stats.corrections import adjust

ss = pytest.importorskip("scipy.stats")
multitest = pytest.importorskip("statsmodels.stats.multitest")

SPECIAL = st.sampled_from([0.0, -0.0, 1e-300, 5e-324, 1e150, -1e150, 1e300, -1e300, math.nan, math.inf,
                           -math.inf, 0.1, 0.2, 0.3, 2.0 ** 52])
ANY_FLOAT = st.one_of(st.floats(allow_nan=True, allow_infinity=True), SPECIAL)
GRID = st.integers(-10, 10).map(lambda k: k / 10.0)
MODERATE = st.one_of(GRID, st.floats(-1.0, 1.0, allow_nan=False).filter(lambda v: v == 0 or abs(v) > 1e-6))
ARG = st.one_of(st.none(), st.booleans(), st.integers(-3, 3000), st.integers(10 ** 7, 10 ** 10),
                st.floats(allow_nan=True), st.text(max_size=3), st.just([1]))


def _diffs(values):
    return st.lists(st.lists(values, max_size=25).map(lambda v: np.array(v, dtype=np.float64)),
                    min_size=0, max_size=4)


def _clean(fn, *args, **kw):
    """fn's result, or None when it raised ValueError / TypeError (anything else fails)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # a leaked RuntimeWarning is a finding too
        try:
            return fn(*args, **kw)
        except (ValueError, TypeError):
            return None


def _in_unit(p):
    p = np.asarray(p, dtype=float)
    return bool(np.all(np.isnan(p) | ((p >= 0) & (p <= 1))))


def _ordered(lo, hi):
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    ok = ~(np.isnan(lo) | np.isnan(hi))
    return bool(np.all(lo[ok] <= hi[ok]))


@given(_diffs(ANY_FLOAT), st.sampled_from(["t", "wilcoxon", "sign", "effect"]), st.one_of(ARG, st.just(0.05)))
def test_closed_form_tests_give_a_result_or_a_clean_error(diffs, test, alpha):
    if test == "t":
        res = _clean(paired.t_test, diffs, alpha)
        if res is not None:
            assert _in_unit(res[0]) and _ordered(res[1], res[2])
    elif test == "wilcoxon":
        res = _clean(paired.wilcoxon_test, diffs)
        assert res is None or _in_unit(res)
    elif test == "sign":
        res = _clean(paired.sign_test, diffs)
        assert res is None or _in_unit(res)
    else:
        _clean(paired.effect_sizes, diffs)


@given(_diffs(ANY_FLOAT), st.sampled_from(["randomization", "bootstrap"]),
       st.one_of(st.integers(1, 300), ARG.filter(lambda a: not (isinstance(a, int) and 300 < a <= 10 ** 9))),
       st.one_of(st.integers(0, 2 ** 64 + 3), st.none(), st.text(max_size=2), st.floats()),
       st.one_of(st.just(0.05), ARG), st.sampled_from(["bca", "percentile", "t", None]))
def test_resampling_tests_give_a_result_or_a_clean_error(diffs, test, n, seed, alpha, ci):
    if test == "randomization":
        res = _clean(paired.randomization_test, diffs, n, seed)
        if res is not None:
            assert _in_unit(res[0])
    else:
        res = _clean(paired.bootstrap_test, diffs, n, seed, alpha, ci)
        if res is not None:
            assert _in_unit(res[0]) and _ordered(res[1], res[2])


@given(st.one_of(st.lists(st.lists(ANY_FLOAT, min_size=1, max_size=5), max_size=6), st.lists(ANY_FLOAT),
                 st.just([["a", "b"]])),
       st.one_of(st.integers(1, 200), ARG.filter(lambda a: not (isinstance(a, int) and 200 < a <= 10 ** 7))),
       st.one_of(st.integers(0, 5), st.text(max_size=2)), st.one_of(st.just(0.05), ARG))
def test_tukey_randomized_gives_a_result_or_a_clean_error(scores, n, seed, alpha):
    res = _clean(paired.tukey_randomized, scores, n, seed, alpha)
    if res is not None:
        assert _in_unit(res[0]) and _ordered(res[1], res[2])


@given(st.lists(st.lists(MODERATE, min_size=8, max_size=8), min_size=2, max_size=5),
       st.one_of(st.none(), st.integers(1, 4), st.lists(st.integers(0, 5), max_size=2), ARG),
       st.one_of(st.integers(1, 50), ARG.filter(lambda a: not (isinstance(a, int) and 50 < a <= 10 ** 6))),
       st.one_of(st.sampled_from([0.01, 1e-300, 1e308, 0.5]), ARG),
       st.one_of(st.integers(1, 30), ARG.filter(lambda a: not (isinstance(a, int) and 30 < a <= 10 ** 6))))
def test_swap_rate_gives_a_result_or_a_clean_error(scores, sizes, trials, width, bins):
    res = _clean(meta.swap_rate, None, np.array(scores), "m", topic_set_sizes=sizes, n_trials=trials,
                 bin_width=width, n_bins=bins, seed=1)
    for r in res or ():
        assert r.n_pairs.sum() == len(scores) * (len(scores) - 1) // 2 * trials
        assert 0 <= r.n_swaps.sum() <= r.n_pairs.sum()
        assert _in_unit(r.overall)


# ---- the numbers of the reference implementations -------------------------------------------

@given(st.lists(MODERATE, min_size=2, max_size=60))
def test_t_test_equals_scipy(d):
    d = np.array(d)
    assume(np.std(d) > 1e-6)
    p, lo, hi = paired.t_test([d])
    ref = ss.ttest_rel(d, np.zeros_like(d))
    assert p[0] == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-14)
    ci = ref.confidence_interval(0.95)
    assert lo[0] == pytest.approx(ci.low, rel=1e-9, abs=1e-12)
    assert hi[0] == pytest.approx(ci.high, rel=1e-9, abs=1e-12)


@given(st.lists(MODERATE, min_size=1, max_size=60))
def test_wilcoxon_equals_scipy(d):
    d = np.array(d)
    assume(np.any(d != 0))
    nz = np.count_nonzero(d)
    # scipy's permutation branch (ties or zeros, n <= 13) is slow: not too often
    assume(d.size > 13 or (nz == d.size and np.unique(np.abs(d)).size == d.size) or d.size <= 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = ss.wilcoxon(d, zero_method="wilcox", correction=False, method="auto").pvalue
    assert paired.wilcoxon_test([d])[0] == pytest.approx(ref, abs=1e-9)


@given(st.integers(1, 100_000), st.data())
def test_sign_test_equals_binomtest(n, data):
    k = data.draw(st.one_of(st.integers(0, n), st.integers(max(0, n // 2 - 3 * int(math.sqrt(n))), n // 2)))
    ref = ss.binomtest(k, n, 0.5).pvalue
    got = D.sign_test_p(k, n)
    if ref >= 1e-100:
        assert got == pytest.approx(ref, rel=1e-12)
    elif min(k, n - k) <= 3000:
        # scipy's own error grows in the far tail (and it underflows to 0 before
        # 1e-308): exact fractions instead
        j = min(k, n - k)
        tail, c = 0, 1
        for i in range(j + 1):
            if i:
                c = c * (n - i + 1) // i
            tail += c
        exact = Fraction(2 * tail, 1 << n)
        if exact > Fraction(1, 10 ** 300):
            assert abs(Fraction(got) - exact) <= exact * Fraction(1, 10 ** 13)


@given(st.lists(st.lists(MODERATE.map(lambda v: 1.0 if v > 0 else -1.0 if v < 0 else 0.0), max_size=40),
                min_size=1, max_size=3))
def test_sign_test_on_differences_equals_binomtest(diffs):
    arrays = [np.array(d) for d in diffs]
    p = paired.sign_test(arrays)
    for d, pv in zip(arrays, p):
        k, m = int((d > 0).sum()), int((d != 0).sum())
        if d.size == 0:
            assert math.isnan(pv)
        elif m == 0:
            assert pv == 1.0
        else:
            assert pv == pytest.approx(ss.binomtest(k, m, 0.5).pvalue, rel=1e-12)


@given(st.lists(st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, -0.0, 1.0, 0.05, 0.05, 1e-300, 5e-324])),
                min_size=1, max_size=30),
       st.sampled_from([("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh")]))
def test_corrections_equal_statsmodels(p, methods):
    ours, theirs = methods
    got = adjust(p, ours)
    ref = multitest.multipletests(np.array(p), method=theirs)[1]
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-300)
    assert not np.any(np.signbit(got))


@given(st.lists(ANY_FLOAT, max_size=20), st.one_of(st.sampled_from(["holm", "bonferroni", "bh", "none"]), ARG))
def test_adjust_gives_a_result_or_a_clean_error(p, method):
    res = _clean(adjust, p, method)
    if res is not None:
        assert _in_unit(res) and not np.any(np.signbit(res[~np.isnan(res)]))
