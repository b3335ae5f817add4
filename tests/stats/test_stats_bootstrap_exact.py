"""The studentised bootstrap test against the exact enumeration of all n^n
resamples; a pair's result does not depend on its place among the pairs."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

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


def test_a_pairs_result_does_not_depend_on_its_place():
    d = np.random.default_rng(0).normal(0.2, 1, 30)
    other = np.random.default_rng(1).normal(0, 1, 30)
    p1 = paired.randomization_test([d], 1000, seed=5)[0][0]
    assert paired.randomization_test([other, d], 1000, seed=5)[0][1] == p1
    b1 = paired.bootstrap_test([d], 1000, seed=5)
    b2 = paired.bootstrap_test([other, d, other], 1000, seed=5)
    assert [x[0] for x in b1] == [x[1] for x in b2]
