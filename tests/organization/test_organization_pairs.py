"""R&S priority with documents of several memberships: the dominance-sum kernel
against the former one-pair-at-a-time enumeration (``rs_side(pairwise=True)``, kept
as the reference) and against the quadratic Python reference of test_organization.

The two kernels add the same terms in different orders (prefix sums and
inclusion-exclusion over the boxes of a document's region grid), so they agree to
rounding, not to the bit: the tests allow 1e-13 absolute on scores in [0, 1] (the
largest difference seen over these cases is about 1.3e-14)."""
from __future__ import annotations

import random
from typing import List, Sequence

import numpy as np
import pytest
from test_organization import KEYS, ref_extended_bcubed_precision, ref_rs

from irscore import _org_bcubed, _org_rs
from irscore._org_core import Side
from irscore.organization import Organization, extended_bcubed
from irscore.organization.align import pair_arrays

TOL = 1e-13


def repeated_topic(rng: random.Random, n_docs: int, repeat: float, max_levels: int, max_clusters: int,
                   max_size: int, prefix: str = "d") -> List[List[List[str]]]:
    """Levels of clusters; each slot repeats an already used document with
    probability ``repeat`` (a document at most once per cluster)."""
    pool = list(range(n_docs))
    rng.shuffle(pool)
    used: List[int] = []
    levels = []
    for _ in range(rng.randint(1, max_levels)):
        level = []
        for _ in range(rng.randint(1, max_clusters)):
            cl: List[int] = []
            for _ in range(rng.randint(1, max_size)):
                if used and (not pool or rng.random() < repeat):
                    d = rng.choice(used)
                else:
                    d = pool.pop()
                    used.append(d)
                if d not in cl:
                    cl.append(d)
            level.append(["%s%d" % (prefix, d) for d in cl])
        levels.append(level)
    return levels


def both_kernels(gold: Organization, system: Organization, c: float, uniform: bool, tail: bool):
    a = pair_arrays(gold, system, gold.topics)
    nt = len(gold.topics)
    out = {}
    for pairwise in (False, True):
        res = []
        for x, g in ((a[4:8], a[0:4]), (a[0:4], a[4:8])):
            pr, re = np.zeros(nt), np.zeros(nt)
            _org_rs.rs_side(Side(*x), Side(*g), a[8], pr, re, c=c, uniform=uniform, foreign_tail=tail,
                            pairwise=pairwise)
            res.extend([pr, re])
        out[pairwise] = np.concatenate(res)
    return out[False], out[True]


@pytest.mark.parametrize("repeat_gold,repeat_system", [
    (0.0, 0.0), (0.0, 0.01), (0.0, 0.1), (0.0, 0.5), (0.1, 0.0), (0.5, 0.0), (0.1, 0.1), (0.5, 0.5), (0.01, 0.5),
])
def test_against_pairwise_small(repeat_gold, repeat_system):
    rng = random.Random(int(1000 * repeat_gold) * 7919 + int(1000 * repeat_system))
    for _ in range(400):
        nd = rng.randint(1, 30)
        G = repeated_topic(rng, nd, repeat_gold, rng.randint(1, 8), 3, 5)
        X = repeated_topic(rng, nd + 5, repeat_system, rng.randint(1, 10), 3, 5)
        c = rng.choice([0.5, 2.5, 7.5, 1e3])
        uniform = rng.random() < 0.3
        tail = rng.random() < 0.7
        new, ref = both_kernels(Organization(G), Organization(X), c, uniform, tail)
        np.testing.assert_allclose(new, ref, rtol=0, atol=TOL, err_msg=repr((G, X, c, uniform, tail)))


@pytest.mark.parametrize("seed", range(6))
def test_against_pairwise_larger(seed):
    # populations of hundreds of documents with two and three memberships: every
    # level of the divide and conquer, ties on levels (several clusters a level)
    rng = random.Random(100 + seed)
    for _ in range(12):
        nd = rng.randint(50, 400)
        G = repeated_topic(rng, nd, rng.choice([0.0, 0.1, 0.5]), rng.randint(1, 30), 4, 8)
        X = repeated_topic(rng, nd + 20, rng.choice([0.01, 0.1, 0.5, 0.8]), rng.randint(1, 40), 4, 8)
        for tail in (True, False):
            new, ref = both_kernels(Organization(G), Organization(X), 7.5, False, tail)
            np.testing.assert_allclose(new, ref, rtol=0, atol=TOL)


@pytest.mark.parametrize("max_size", [1, 3, 12])
def test_against_pairwise_many_or_few_levels(max_size):
    # the prefix sums of the simple documents at a multi document's corners come
    # from a dense (level, reference level) table when it is small against the
    # topic (few levels, max_size 12) and from a sweep over the levels otherwise
    # (hundreds of levels of one or a few documents on both sides)
    rng = random.Random(300 + max_size)
    for _ in range(15):
        nd = rng.randint(100, 500)
        G = repeated_topic(rng, nd, rng.choice([0.0, 0.05, 0.3]), 400, 2, max_size)
        X = repeated_topic(rng, nd + 20, rng.choice([0.01, 0.05, 0.3]), 400, 2, max_size)
        for tail in (True, False):
            new, ref = both_kernels(Organization(G), Organization(X), rng.choice([2.5, 50.0]), False, tail)
            np.testing.assert_allclose(new, ref, rtol=0, atol=TOL)


def test_against_pairwise_deep_levels():
    # hundreds of levels on both sides (levels x reference levels > 65,536): the
    # dominance sums of the two-membership population by divide and conquer rather
    # than the sweep with a 2-D Fenwick tree over (level, reference level)
    rng = random.Random(404)
    for _ in range(4):
        nd = rng.randint(350, 500)
        G = [[["d%d" % d]] for d in rng.sample(range(nd), 330)]
        X = [[["d%d" % d]] for d in (list(range(nd)) + [rng.randrange(nd) for _ in range(nd // 3)])]
        rng.shuffle(X)
        X = [lev for i, lev in enumerate(X) if all(lev[0][0] != o[0][0] for o in X[max(0, i - 1):i])]
        for tail in (True, False):
            new, ref = both_kernels(Organization(G), Organization(X), 2.5, False, tail)
            np.testing.assert_allclose(new, ref, rtol=0, atol=TOL)


def test_many_memberships_per_document():
    # documents in up to every level (their region grids fall back to one pair at a
    # time against a small population, and use the grid against a large one)
    rng = random.Random(5)
    for n_pop in (5, 300):
        for _ in range(6):
            levels: List[List[List[str]]] = [[["h%d" % j] for j in range(3) if rng.random() < 0.7] or [["f"]]
                                              for _ in range(12)]
            # a population of documents with two and three memberships
            for i in range(n_pop):
                for _ in range(rng.choice([1, 2, 2, 3, 4, 5])):
                    lev = levels[rng.randrange(12)]
                    cl = lev[rng.randrange(len(lev))]
                    if "p%d" % i not in cl:
                        cl.append("p%d" % i)
            gold = [[["h0"] + ["p%d" % i for i in range(0, n_pop, 3)]], [["h1"], ["h2"]],
                    [["p%d" % i for i in range(1, n_pop, 3)], ["h0"]]]
            new, ref = both_kernels(Organization(gold), Organization(levels), 2.5, False, True)
            np.testing.assert_allclose(new, ref, rtol=0, atol=TOL)


def test_against_python_reference():
    # the definition itself (quadratic Python reference), repeated documents on both sides
    rng = random.Random(17)
    for _ in range(60):
        nd = rng.randint(3, 14)
        G = repeated_topic(rng, nd, 0.3, 6, 2, 4)
        X = repeated_topic(rng, nd + 2, 0.4, 8, 2, 4)
        for foreign in ("tail", "absent"):
            a = pair_arrays(Organization(G), Organization(X), ["1"])
            got = []
            for x, g in ((a[4:8], a[0:4]), (a[0:4], a[4:8])):
                pr, re = np.zeros(1), np.zeros(1)
                _org_rs.rs_side(Side(*x), Side(*g), a[8], pr, re, c=(1 - 0.7) * 5 / 0.7, uniform=False,
                                foreign_tail=foreign == "tail")
                got.append((pr[0], re[0]))
            ref = ref_rs(G, X, n=5, w_n=0.7, foreign=foreign)
            values = dict(zip(KEYS, ref))
            assert got[0][0] == pytest.approx(values["R_priority"], abs=1e-12)
            assert got[1][0] == pytest.approx(values["S_priority"], abs=1e-12)


def _csr(topics: Sequence[Sequence[tuple]]):
    """Kernel arrays from topics given as lists of (doc, level, cluster)."""
    ptr = [0]
    doc, lev, cl = [], [], []
    for occ in topics:
        for d, l_, c in occ:
            doc.append(d)
            lev.append(l_)
            cl.append(c)
        ptr.append(len(doc))
    return (np.array(ptr, np.int64), np.array(doc, np.int32), np.array(lev, np.int32), np.array(cl, np.int32))


def test_empty_topics_and_empty_reference():
    # topic 0: x empty; topic 1: the reference empty (everything in its tail);
    # topic 2: both sides with repeated documents
    x_topics = [[], [(0, 0, 0), (1, 0, 0), (0, 1, 1), (1, 2, 2), (2, 2, 2)],
                [(0, 0, 0), (1, 0, 0), (0, 1, 1), (2, 1, 2), (1, 2, 3), (2, 3, 4), (0, 3, 4)]]
    g_topics = [[(0, 0, 0)], [], [(0, 0, 0), (2, 0, 0), (1, 1, 1), (2, 1, 1), (0, 2, 2)]]
    x = _csr(x_topics)
    g = _csr(g_topics)
    for tail in (True, False):
        res = []
        for pairwise in (False, True):
            pr, re = np.zeros(3), np.zeros(3)
            _org_rs.rs_side(Side(*x), Side(*g), 3, pr, re, c=2.5, uniform=False, foreign_tail=tail,
                            pairwise=pairwise)
            res.append(pr)
        np.testing.assert_allclose(res[0], res[1], rtol=0, atol=TOL)
        assert res[0][0] == 0.0


def overlapping_clustering(rng: random.Random, docs: Sequence[str], n_clusters: int, max_memberships: int):
    """Levels of clusters, each document in 1..max_memberships clusters; now and then
    two identical clusters (documents sharing every cluster)."""
    clusters: List[List[str]] = [[] for _ in range(n_clusters)]
    for d in docs:
        for c in rng.sample(range(n_clusters), rng.randint(1, min(max_memberships, n_clusters))):
            clusters[c].append(d)
    if n_clusters > 1 and rng.random() < 0.3:
        clusters[1] = list(clusters[0])
    n_levels = rng.randint(1, 3)
    levels: List[List[List[str]]] = [[] for _ in range(n_levels)]
    for c in clusters:
        if c:
            levels[rng.randrange(n_levels)].append(c)
    return [lev for lev in levels if lev]


@pytest.mark.parametrize("seed", range(4))
def test_relatedness_overlapping_clusters_against_pairwise(seed):
    # pairs of documents sharing two clusters on either side (classes of documents
    # with identical clusters, pairs found through shared cluster pairs) and
    # self pairs, against the per-pair enumeration inside every cluster
    rng = random.Random(1000 + seed)
    for _ in range(300):
        docs = ["d%d" % i for i in range(rng.randint(2, 60))]
        G = overlapping_clustering(rng, docs, rng.randint(1, 6), rng.randint(1, 4))
        X = overlapping_clustering(rng, docs, rng.randint(1, 6), rng.randint(1, 4))
        if not G or not X:
            continue
        for uniform in (True, False):
            new, ref = both_kernels(Organization(G), Organization(X), 2.5, uniform, True)
            np.testing.assert_allclose(new, ref, rtol=0, atol=TOL, err_msg=repr((G, X)))


def test_relatedness_and_extended_bcubed_larger_overlaps_against_pairwise():
    # hundreds of documents with several memberships: the classes and the keys of
    # their cluster pairs are sorted by radix (64 or more entries), not by qsort
    rng = random.Random(4242)
    for _ in range(8):
        docs = ["d%d" % i for i in range(rng.randint(150, 400))]
        G = overlapping_clustering(rng, docs, rng.randint(4, 12), rng.randint(2, 4))
        X = overlapping_clustering(rng, docs, rng.randint(4, 12), rng.randint(2, 4))
        new, ref = both_kernels(Organization(G), Organization(X), 2.5, False, True)
        np.testing.assert_allclose(new, ref, rtol=0, atol=TOL)
        new, ref = ebc_both(Organization(G), Organization(X))
        np.testing.assert_allclose(new, ref, rtol=0, atol=TOL)


def test_relatedness_against_python_reference_with_overlap():
    rng = random.Random(77)
    for _ in range(80):
        docs = ["d%d" % i for i in range(rng.randint(2, 12))]
        G = overlapping_clustering(rng, docs, rng.randint(1, 4), 3)
        X = overlapping_clustering(rng, docs + ["z"], rng.randint(1, 5), 3)
        if not G or not X:
            continue
        a = pair_arrays(Organization(G), Organization(X), ["1"])
        got = []
        for x, g in ((a[4:8], a[0:4]), (a[0:4], a[4:8])):
            pr, re = np.zeros(1), np.zeros(1)
            _org_rs.rs_side(Side(*x), Side(*g), a[8], pr, re, c=2.5, uniform=False, foreign_tail=True)
            got.append(re[0])
        values = dict(zip(KEYS, ref_rs(G, X, n=10, w_n=0.8)))
        assert got[0] == pytest.approx(values["R_relatedness"], abs=1e-12)
        assert got[1] == pytest.approx(values["S_relatedness"], abs=1e-12)


def ebc_both(gold: Organization, system: Organization):
    a = pair_arrays(gold, system, gold.topics)
    nt = len(gold.topics)
    out = {}
    for pairwise in (False, True):
        p, r = np.zeros(nt), np.zeros(nt)
        _org_bcubed.extended_bcubed_side(Side(*a[4:8]), Side(*a[0:4]), a[8], p, pairwise=pairwise)
        _org_bcubed.extended_bcubed_side(Side(*a[0:4]), Side(*a[4:8]), a[8], r, pairwise=pairwise)
        out[pairwise] = np.concatenate([p, r])
    return out[False], out[True]


@pytest.mark.parametrize("seed", range(4))
def test_extended_bcubed_against_pairwise(seed):
    # neighbourhoods of documents with several memberships from contingency counts
    # and class pairs, against the explicit neighbourhood scan
    rng = random.Random(2000 + seed)
    for _ in range(300):
        docs = ["d%d" % i for i in range(rng.randint(1, 60))]
        G = overlapping_clustering(rng, docs, rng.randint(1, 6), rng.randint(1, 4))
        X = overlapping_clustering(rng, docs + ["y"] * rng.randint(0, 1), rng.randint(1, 6), rng.randint(1, 4))
        if not G or not X:
            continue
        new, ref = ebc_both(Organization(G), Organization(X))
        np.testing.assert_allclose(new, ref, rtol=0, atol=TOL, err_msg=repr((G, X)))


def test_extended_bcubed_against_python_reference():
    rng = random.Random(99)
    for _ in range(100):
        docs = ["d%d" % i for i in range(rng.randint(1, 12))]
        G = overlapping_clustering(rng, docs, rng.randint(1, 4), 3)
        X = overlapping_clustering(rng, docs, rng.randint(1, 5), 3)
        if not G or not X:
            continue
        flat_g = [cl for lev in G for cl in lev]
        flat_x = [cl for lev in X for cl in lev]
        if {d for cl in flat_g for d in cl} != {d for cl in flat_x for d in cl}:
            continue  # (a cluster copied over another may drop a document)
        r = extended_bcubed(flat_g, flat_x)
        assert r["precision"] == pytest.approx(ref_extended_bcubed_precision(flat_x, flat_g), abs=1e-12)
        assert r["recall"] == pytest.approx(ref_extended_bcubed_precision(flat_g, flat_x), abs=1e-12)
