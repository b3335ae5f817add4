"""The null distributions of irscore.stats.distributions: the exact two-sided
sign test (binomial tail with p = 1/2) against exact fractions and
scipy.stats.binomtest, and its cost in the number of queries."""
import math
import subprocess
import sys
import textwrap
from fractions import Fraction

import numpy as np
import pytest

from irscore.stats import distributions as D
from irscore.stats import paired


def _exact_sign_p(k: int, n: int) -> Fraction:
    k = min(k, n - k)
    tail, c = 0, 1
    for i in range(k + 1):
        if i:
            c = c * (n - i + 1) // i
        tail += c
    return min(Fraction(1), Fraction(2 * tail, 1 << n))


def test_sign_test_p_equals_exact_fractions_for_small_n():
    worst = 0.0
    for n in range(1, 161):
        for k in range(n + 1):
            ex = _exact_sign_p(k, n)
            worst = max(worst, float(abs(Fraction(D.sign_test_p(k, n)) - ex) / ex))
    assert worst < 1e-14


@pytest.mark.parametrize("n,k", [(17858, 6581), (30000, 13500), (40000, 19800), (20001, 9900),
                                 (3001, 1400), (9999, 4999)])
def test_sign_test_p_equals_exact_fractions_for_large_n(n, k):
    # tails from 1e-274 to 1: the relative error stays at a few ulps
    ex = _exact_sign_p(k, n)
    assert float(abs(Fraction(D.sign_test_p(k, n)) - ex) / ex) < 1e-14


def test_sign_test_equals_scipy_binomtest_up_to_100000_queries():
    ss = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(11)
    worst = 0.0
    checked = 0
    for n in [int(x) for x in rng.integers(1, 100_001, 60)] + [100_000, 99_999, 2, 1]:
        ks = {int(x) for x in rng.integers(0, n + 1, 3)}
        ks |= {max(0, n // 2 - int(c * math.sqrt(n))) for c in (0.5, 2, 4, 8)}
        for k in ks:
            ref = ss.binomtest(k, n, 0.5).pvalue
            if ref < 1e-100:      # scipy's own error grows to ~1e-12 in the far tail
                continue
            d = np.r_[np.ones(k), -np.ones(n - k), np.zeros(3)]
            worst = max(worst, abs(paired.sign_test([d])[0] - ref) / ref)
            checked += 1
    assert checked > 200
    assert worst < 1e-12


def test_sign_test_is_fast_in_the_number_of_queries():
    # the exact tail used to be a sum of big-integer binomial coefficients: 20,000
    # queries took 130 s; floating point with early stopping is ~0.1 ms per pair
    code = textwrap.dedent("""
        import time
        import numpy as np
        from irscore.stats import paired
        rng = np.random.default_rng(0)
        diffs = [rng.normal(0.01, 1, n) for n in (20_000, 100_000, 100_000, 1_000_000)]
        t = time.perf_counter()
        p = paired.sign_test(diffs)
        assert np.all((p >= 0) & (p <= 1)), p
        print(time.perf_counter() - t)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert float(out.stdout) < 5.0
