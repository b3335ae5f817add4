"""Statistics: defects found in review (each test fails on the build before the fix)."""
from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys

import numpy as np
import pytest

from irscore import _stats
from irscore.stats import paired


def _exact_bootstrap_p(d: np.ndarray) -> float:
    """The studentised bootstrap p over all n^n resamples, read from the definition:
    t* = mean(z*) / (sd(z*) / sqrt(n)) of the centred values, +-inf when every draw
    is the same non-zero value, undefined (not counted) when it is 0."""
    n = d.size
    z = d - d.mean()
    t_obs = d.mean() / (d.std(ddof=1) / math.sqrt(n))
    count = 0
    for idx in itertools.product(range(n), repeat=n):
        s = z[list(idx)]
        if len(set(idx)) == 1 or np.all(s == s[0]):
            if abs(s[0]) > 1e-9 * np.abs(z).sum():
                count += 1
            continue
        t = s.mean() / (s.std(ddof=1) / math.sqrt(n))
        count += abs(t) >= abs(t_obs) * (1 - 1e-9)
    return count / n ** n


@pytest.mark.parametrize("d", [[0.5, -0.4], [0.1, 0.2, 0.3], [0.25, 0.5, 0.75], [0.3, 0.3, -0.1],
                               [1.0, 2.0, 2.0, 7.0]])
def test_bootstrap_p_matches_the_enumeration(d):
    # the variance was szz - sz^2/n: rounding decided whether a resample of one
    # repeated value counted as infinitely extreme (p = 1e-4 on two queries)
    d = np.array(d)
    exact = _exact_bootstrap_p(d)
    B = 200_000
    p = paired.bootstrap_test([d], B, seed=3)[0][0]
    assert abs(p - exact) < 5 * math.sqrt(exact * (1 - exact) / B) + 2 / B, (p, exact)
    # the same data scaled: the same test
    p2 = paired.bootstrap_test([d * 2.5], B, seed=3)[0][0]
    assert abs(p2 - exact) < 5 * math.sqrt(exact * (1 - exact) / B) + 2 / B, (p2, exact)


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


def test_a_pairs_result_does_not_depend_on_its_place():
    d = np.random.default_rng(0).normal(0.2, 1, 30)
    other = np.random.default_rng(1).normal(0, 1, 30)
    p1 = paired.randomization_test([d], 1000, seed=5)[0][0]
    assert paired.randomization_test([other, d], 1000, seed=5)[0][1] == p1
    b1 = paired.bootstrap_test([d], 1000, seed=5)
    b2 = paired.bootstrap_test([other, d, other], 1000, seed=5)
    assert [x[0] for x in b1] == [x[1] for x in b2]


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


@pytest.fixture
def three_queries(tmp_path):
    q = tmp_path / "qrels.txt"
    q.write_text("".join(f"q{i} 0 d{i} 1\n" for i in range(3)))
    good, bad = tmp_path / "good.run", tmp_path / "bad.run"
    good.write_text("".join(f"q{i} Q0 d{i} 1 1.0 good\nq{i} Q0 x{i} 2 0.5 good\n" for i in range(3)))
    bad.write_text("".join(f"q{i} Q0 x{i} 1 1.0 bad\nq{i} Q0 y{i} 2 0.5 bad\n" for i in range(3)))
    return q, good, bad


def test_json_report_has_no_infinity(three_queries):
    # effect sizes are +-inf when every difference is the same non-zero value
    q, good, bad = three_queries
    p = subprocess.run([sys.executable, "-m", "irscore", "compare", str(q), str(good), str(bad),
                        "-m", "P.1", "-f", "json"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr

    def refuse(token):
        raise ValueError(token)

    doc = json.loads(p.stdout, parse_constant=refuse)
    assert doc


@pytest.mark.parametrize("test", ["bootstrap", "tukey_randomized", "randomization"])
@pytest.mark.parametrize("n", ["100000000000000", "99999999999999999999999"])
def test_cli_huge_resamples_one_line(three_queries, test, n):
    q, good, bad = three_queries
    p = subprocess.run([sys.executable, "-m", "irscore", "compare", str(q), str(good), str(bad),
                        "-m", "P.1", "--test", test, "--resamples", n], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 2 and len(p.stderr.splitlines()) == 1 and "--resamples" in p.stderr
