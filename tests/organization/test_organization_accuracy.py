"""Rounding in the R&S kernel's dominance sums (irs_dd.h).

A box sum over a population of documents with several memberships is a signed
combination of prefix sums over the whole population: large terms that cancel.
Summed in plain doubles the error grew with the population and with the weights'
concentration (found in review: 5.9e-9 at 12,800 documents with w_n = 0.995,
against 3e-11 for the pair-by-pair enumeration).  The sums are now kept in
double-double.  Checked against a closed form, exact in fractions:

X ranks every one of n documents twice, on level 0 and on level 1 (one cluster
each); G holds the first g of them on one level, the others are foreign to it
(``foreign="tail"``).  With the level weights w0, w1 (eq. 2), W0 = n w0,
W1 = n w1, the tail's weight Wt = c / (c + 2n), Wr = 1 - Wt and P_t = 1/2 for a
document of G (one occurrence there, two in X), 0 for a foreign one:

- a level-0 occurrence of a document of G: its relation to the level-1
  occurrences of foreign documents holds in G (above the tail), to those of
  documents of G not (they tie in G), and "above the tail" with P_t = 1/2;
- a level-1 occurrence of a foreign document: "below" the level-0 occurrences
  of the documents of G holds; nothing else does;
- a level-1 occurrence of a document of G: only its tail relation (1/2);

plus the tail terms P_t w(o) Wt / Wr.
"""
from __future__ import annotations

from fractions import Fraction as Fr

import numpy as np
import pytest

import irscore
from irscore import _org_rs
from irscore._org_core import Side
from irscore.organization import Organization
from irscore.organization.align import pair_arrays


def closed_form(n: int, g: int, c) -> Fr:
    c = Fr(c)
    w0 = c / n * (1 / c - 1 / (c + n))
    w1 = c / n * (1 / (c + n) - 1 / (c + 2 * n))
    W0, W1 = n * w0, n * w1
    Wt = c / (c + 2 * n)
    Wr = 1 - Wt
    h = Fr(1, 2)
    r = g * (w0 * ((n - g) * w1 + h * Wt) / (1 - W0) + h * w0 * Wt / Wr)
    r += (n - g) * (w1 * g * w0 / (1 - W1))
    r += g * (w1 * h * Wt / (1 - W1) + h * w1 * Wt / Wr)
    return r


def _orgs(n: int, g: int):
    docs = [f"d{i}" for i in range(n)]
    return [[docs[:g]]], [[docs], [docs]]


def _kernel(gold, system, c: float, pairwise: bool) -> float:
    go, so = Organization(gold), Organization(system)
    a = pair_arrays(go, so, go.topics)
    pr, re = np.zeros(1), np.zeros(1)
    _org_rs.rs_side(Side(*a[4:8]), Side(*a[0:4]), a[8], pr, re, c=c, uniform=False, foreign_tail=True,
                    pairwise=pairwise)
    return float(pr[0])


@pytest.mark.parametrize("c", [2.5, 0.5])
def test_the_closed_form_is_the_pair_by_pair_value(c):
    # the closed form itself, against the kernel's enumeration on a small topic
    gold, system = _orgs(60, 25)
    assert _kernel(gold, system, c, True) == pytest.approx(float(closed_form(60, 25, c)), abs=1e-14)


@pytest.mark.parametrize("c", [2.5, 0.5, 0.05])
@pytest.mark.parametrize("n", [1600, 12800])
def test_dominance_sums_keep_their_accuracy_on_large_populations(n, c):
    g = int(0.6 * n)
    gold, system = _orgs(n, g)
    exact = float(closed_form(n, g, c))
    assert abs(_kernel(gold, system, c, False) - exact) < 1e-12
    w_n = 10 / (10 + c)                     # c = (1 - w_n) n / w_n with n = 10
    got = irscore.reliability_sensitivity(gold, system, n=10, w_n=w_n)["R_priority"]
    assert abs(got - exact) < 1e-12
