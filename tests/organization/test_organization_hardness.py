"""Pairs of documents with many memberships: why they stay pair by pair.

docs/reliability_sensitivity.md ("Why the last corner stays quadratic") reduces
counting orthogonal vector pairs (#OV) to the Reliability of priority.  From 0/1
vectors A_1..A_mA, B_1..B_mB in dimension d it builds one topic of singleton
clusters (positions below; levels are the distinct positions, top first):

    X (scored):  a_i coordinate l at 2l,        b_j coordinate l at 2l + 1
    G (gold):    a_i coordinate l at 3l + A[l], b_j coordinate l at 3l + 2 - B[l],
                 and one more b_j occurrence at 3/2

so that 1 - R_priority = (W_ab / x) (K - mA mB + #OV), with x = d(d+1)/2,
K = sum_l #{i: A_i[l]} #{j: B_j[l]} and W_ab the (vector-independent) X weight of
the pairs "a above b" of one a and one b document.  These tests check:

- the identity itself, exactly, in fractions, from the documented formula
  (independent of irscore), on small instances;
- that irscore's R (public API) and the kernel's pair-by-pair reference give back
  the brute-force #OV on random instances under both weightings: every document
  there has d or d + 1 memberships on both sides, the kernel's heavy corner.
"""
from __future__ import annotations

import random
from fractions import Fraction as Fr
from typing import Dict, List, Sequence, Tuple

import numpy as np
import pytest

from irscore import _org_rs
from irscore._org_core import Side
from irscore.organization import Organization, reliability_sensitivity
from irscore.organization.align import pair_arrays

N, WN = 10, 0.8        # the ranking weights' defaults: c = (1 - w_n) n / w_n = 2.5


def vectors(rng: random.Random, ma: int, mb: int, d: int) -> Tuple[List[List[int]], List[List[int]]]:
    p = rng.choice([0.2, 0.35, 0.5, 0.65])
    A = [[int(rng.random() < p) for _ in range(d)] for _ in range(ma)]
    B = [[int(rng.random() < p) for _ in range(d)] for _ in range(mb)]
    for _ in range(rng.randint(1, max(1, min(ma, mb) // 3))):     # plant orthogonal pairs
        i, j = rng.randrange(ma), rng.randrange(mb)
        B[j] = [0 if A[i][l] else int(rng.random() < p) for l in range(d)]
    return A, B


def orthogonal_pairs(A: Sequence[Sequence[int]], B: Sequence[Sequence[int]]) -> int:
    return sum(all(not (x and y) for x, y in zip(a, b)) for a in A for b in B)


def levels(pos: Dict[str, List[int]]) -> List[List[List[str]]]:
    by: Dict[int, List[str]] = {}
    for doc, ps in pos.items():
        for p in ps:
            by.setdefault(p, []).append(doc)
    return [[[doc] for doc in by[p]] for p in sorted(by)]


def instance(A, B, d):
    """(gold, system) levels; positions doubled to stay integers (3/2 -> 3)."""
    xs: Dict[str, List[int]] = {}
    gs: Dict[str, List[int]] = {}
    for i, a in enumerate(A):
        xs[f"a{i}"] = [2 * l for l in range(d)]
        gs[f"a{i}"] = [6 * l + 2 * a[l] for l in range(d)]
    for j, b in enumerate(B):
        xs[f"b{j}"] = [2 * l + 1 for l in range(d)]
        gs[f"b{j}"] = [6 * l + 4 - 2 * b[l] for l in range(d)] + [3]
    return levels(gs), levels(xs)


def level_weights(sizes: Sequence[int], uniform: bool, one):
    """Per level of the scored side: an occurrence's weight w and f = w / (1 - W(level));
    and the tail weights (W_tail, W(X_r)) (docs/reliability_sensitivity.md, eq. 2)."""
    wn = Fr(4, 5) if isinstance(one, Fr) else WN       # WN, exactly
    c = (1 - wn) * N / wn
    total = sum(sizes)
    w, f, above = [], [], 0
    for n in sizes:
        if uniform:
            wl, Wl = one / total, one * n / total
        else:
            Wl = c * (one / (c + above) - one / (c + above + n))
            wl = Wl / n
        w.append(wl)
        f.append(wl / (1 - Wl))
        above += n
    tail = (0 * one, one) if uniform else (c / (c + total), one * total / (c + total))
    return w, f, tail


def pair_weight(la, lb, w, f):
    return sum(f[p] * w[q] + w[p] * f[q] for p in la for q in lb if p < q)


def recover(R, A, B, d, uniform, one=1.0):
    """#OV from R by the identity."""
    ma, mb = len(A), len(B)
    w, f, _ = level_weights([ma if lv % 2 == 0 else mb for lv in range(2 * d)], uniform, one)
    W_ab = pair_weight([2 * l for l in range(d)], [2 * l + 1 for l in range(d)], w, f)
    x = d * (d + 1) // 2
    k = sum(sum(a[l] for a in A) * sum(b[l] for b in B) for l in range(d))
    return x * (1 - R) / W_ab - k + ma * mb


def exact_priority(gold, system, uniform: bool) -> Fr:
    """The documented Reliability of priority, in fractions, pair by pair."""
    def by_doc(lv):
        out: Dict[str, List[int]] = {}
        for li, level in enumerate(lv):
            for cl in level:
                for doc in cl:
                    out.setdefault(doc, []).append(li)
        return out
    X, G = by_doc(system), by_doc(gold)
    w, f, (Wt, Wr) = level_weights([sum(len(c) for c in lv) for lv in system], uniform, Fr(1))
    R = Fr(0)
    for a in X:
        for b in X:
            rx = sum(p < q for p in X[a] for q in X[b])
            if rx:
                rg = sum(p < q for p in G.get(a, []) for q in G.get(b, []))
                R += Fr(min(rg, rx), rx) * pair_weight(X[a], X[b], w, f)
        if Wt:
            pt = Fr(min(len(G.get(a, [])), len(X[a])), len(X[a]))
            R += sum(pt * (f[p] * Wt + w[p] * Wt / Wr) for p in X[a])
    return R


@pytest.mark.parametrize("uniform", [True, False])
@pytest.mark.parametrize("seed", range(4))
def test_identity_exact(seed, uniform):
    rng = random.Random(seed)
    ma, mb, d = rng.randint(2, 5), rng.randint(2, 5), rng.randint(3, 5)
    A, B = vectors(rng, ma, mb, d)
    gold, system = instance(A, B, d)
    R = exact_priority(gold, system, uniform)
    assert recover(R, A, B, d, uniform, Fr(1)) == orthogonal_pairs(A, B)


@pytest.mark.parametrize("uniform", [True, False])
@pytest.mark.parametrize("ma,mb,d", [(3, 4, 3), (8, 8, 5), (12, 9, 6), (20, 20, 7), (33, 40, 8), (60, 45, 10)])
def test_irscore_counts_orthogonal_pairs(ma, mb, d, uniform):
    rng = random.Random(1000 * ma + 10 * mb + d)
    A, B = vectors(rng, ma, mb, d)
    ov = orthogonal_pairs(A, B)
    assert 0 < ov < ma * mb or ma * mb < 16
    gold, system = instance(A, B, d)
    weights = "uniform" if uniform else "ranking"
    R = reliability_sensitivity(gold, system, n=N, w_n=WN, weights=weights)["R_priority"]
    got = recover(float(R), A, B, d, uniform)
    assert abs(got - ov) < 1e-3, (got, ov)
    # Sensitivity with the roles exchanged scores the same side against the same reference
    S = reliability_sensitivity(system, gold, n=N, w_n=WN, weights=weights)["S_priority"]
    assert abs(recover(float(S), A, B, d, uniform) - ov) < 1e-3
    # and the kernel's pair-by-pair reference agrees
    g, s = Organization(gold), Organization(system)
    a = pair_arrays(g, s, g.topics)
    pr, re = np.zeros(1), np.zeros(1)
    _org_rs.rs_side(Side(*a[4:8]), Side(*a[0:4]), a[8], pr, re, c=(1 - WN) * N / WN, uniform=uniform,
                    foreign_tail=True, pairwise=True)
    assert abs(pr[0] - float(R)) < 1e-12
