"""The paired tests and their kernels check their arguments: non-finite
differences, overflowing sums, resample counts, alpha."""
from __future__ import annotations

import numpy as np
import pytest

from irscore import _stats
from irscore.stats import paired


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_differences_are_refused(bad):
    d = [np.array([0.1, bad, 0.3, 0.2])]
    for f in (paired.t_test, paired.wilcoxon_test, paired.sign_test, paired.randomization_test,
              paired.bootstrap_test, paired.effect_sizes):
        with pytest.raises(ValueError, match=r"diffs\[0\]"):
            f(d)
    values, offsets = np.array([0.1, bad, 0.3]), np.array([0, 3], np.int64)
    with pytest.raises(ValueError, match="not finite"):
        _stats.sign_flip(values, offsets, 100, 1, np.empty(1), np.empty(1, np.int8))
    with pytest.raises(ValueError, match="not finite"):
        _stats.bootstrap(values, offsets, 10, 1, np.empty((1, 10)), np.empty((1, 10)))
    with pytest.raises(ValueError, match="not finite"):
        _stats.tukey_range(np.array([[0.1, bad], [0.2, 0.3]]), 10, 1, np.empty(10))


def test_overflowing_sums_are_refused():
    # every sign vector's sum is +-inf or finite garbage: p was 0
    with pytest.raises(ValueError):
        paired.randomization_test([np.array([1e308, 1e308, -1e308])], seed=1)


@pytest.mark.parametrize("n", [0, -1, 10 ** 9 + 1, 10 ** 13, 1.5, True])
def test_resample_counts_out_of_range_are_refused_at_once(n):
    d = [np.random.default_rng(0).normal(size=45)]
    with pytest.raises(ValueError, match="n_resamples"):
        paired.randomization_test(d, n_resamples=n, seed=1)      # 10**13 ran for hours
    with pytest.raises(ValueError, match="n_resamples"):
        paired.bootstrap_test(d, n, seed=1)
    if isinstance(n, int) and not isinstance(n, bool) and n > 10 ** 9:
        with pytest.raises(ValueError, match="n_resamples"):
            _stats.sign_flip(np.zeros(3), np.array([0, 3], np.int64), n, 1, np.empty(1), np.empty(1, np.int8))


@pytest.mark.parametrize("alpha", [0.0, 1.0, 1.5, -0.1, float("nan"), "0.05", None])
def test_alpha_is_checked(alpha):
    d = [np.array([0.1, 0.3, 0.2, 0.5])]
    with pytest.raises(ValueError, match="alpha"):
        paired.t_test(d, alpha=alpha)
    with pytest.raises(ValueError, match="alpha"):
        paired.bootstrap_test(d, 200, seed=1, alpha=alpha)


def test_alpha_numpy_float_is_accepted():
    d = [np.array([0.1, 0.3, 0.2, 0.5])]
    assert paired.t_test(d, alpha=np.float32(0.05))[0][0] == paired.t_test(d, alpha=0.05)[0][0]
