"""Rocchio's indices (docs/rocchio.md): the (check) examples, ROC AUC equality,
an independent per-document reference, worst-order maximality, the TREC /
array / batch paths and bad input."""
import itertools
import math

import numpy as np
import pytest

import irscore
from irscore import rocchio

NAMES = ("Rnorm", "Pnorm", "rank_recall", "log_precision", "scaled_recall")


# ------------------------------------------------------------ reference

def average_ranks(scores):
    """1-based average ranks of a list already sorted by score descending."""
    ranks, i, k = [], 0, len(scores)
    while i < k:
        j = i
        while j < k and scores[j] == scores[i]:
            j += 1
        ranks += [(i + 1 + j) / 2.0] * (j - i)
        i = j
    return ranks


def ref_errors(grades, scores, pool, N, level=1, graded=False):
    """(E, E_ln, E_max, E_ln_max) straight from docs/rocchio.md: per-document
    positive parts, documents of one level sharing a tie group summed first;
    the worst order built explicitly.  ``grades`` in rank order (None =
    unjudged), ``pool`` = {grade: judged count}."""
    k = len(grades)
    ranks = average_ranks(scores)
    group = []
    gid = 0
    for i in range(k):
        if i and scores[i] != scores[i - 1]:
            gid += 1
        group.append(gid)

    def key(g):
        return g if graded else "rel"

    keys = sorted({key(g) for g, c in pool.items() if g >= level and c > 0},
                  key=lambda x: -x if graded else 0)
    counts = {kk: sum(c for g, c in pool.items() if g >= level and key(g) == kk) for kk in keys}
    above, before = 0, {}
    for kk in keys:
        before[kk] = above
        above += counts[kk]
    units = {kk: [] for kk in keys}         # (rank, group) in rank order
    for i, g in enumerate(grades):
        if g is not None and g >= level:
            units[key(g)].append((ranks[i], group[i]))
    for kk in keys:
        units[kk] += [((k + 1 + N) / 2.0, "bottom")] * (counts[kk] - len(units[kk]))

    def error(units_by_key):
        e = el = 0.0
        for kk in keys:
            sums = {}
            for j, (r, gr) in enumerate(units_by_key[kk]):
                ideal = before[kk] + j + 1
                a, b = sums.get(gr, (0.0, 0.0))
                sums[gr] = (a + r - ideal, b + math.log(r) - math.log(ideal))
            e += sum(max(0.0, a) for a, _ in sums.values())
            el += sum(max(0.0, b) for _, b in sums.values())
        return e, el

    e, el = error(units)
    # worst order: non-relevant first, then the levels from the lowest to the highest
    worst, pos = {}, N - above
    for kk in reversed(keys):
        worst[kk] = [(pos + j + 1.0, ("w", pos + j)) for j in range(counts[kk])]
        pos += counts[kk]
    emax, elmax = error(worst)
    return e, el, emax, elmax


def ref_measures(grades, scores, pool, N, level=1, graded=False, smart=False):
    n0 = sum(c for g, c in pool.items() if g >= level)
    if n0 == 0 or n0 >= N:
        return [math.nan] * 5
    e, el, emax, elmax = ref_errors(grades, scores, pool, N, level, graded)
    rn = 1 - e / (emax + (n0 if smart else 0))
    s = n0 * (n0 + 1) / 2
    ls = math.lgamma(n0 + 1)
    lp = ls / (ls + el) if ls + el > 0 else 1.0
    return [rn, 1 - el / elmax, s / (s + e), lp, 1 - 5 * (1 - rn)]


def ranked(grades, scores):
    """rel (int32, -1 for None) of a rank-ordered list and its pool counts."""
    return np.asarray([-1 if g is None else g for g in grades], dtype=np.int32), np.asarray(scores, dtype=float)


def pool_levels(pool):
    G = max(pool) + 1
    lv = np.zeros((1, G), dtype=np.int64)
    for g, c in pool.items():
        lv[0, g] = c
    return lv


def run_one(grades, scores, pool, N, **kw):
    rel, sc = ranked(grades, scores)
    res = rocchio.from_ranked(rel, sc, np.asarray([0, len(rel)]), pool_levels(pool), N, **kw)
    return {k: float(v[0]) for k, v in res.items()}


def random_case(rng, k, n_extra, max_grade=3, tie_dp=1):
    """A ranked list of k documents (some unjudged) with rounded scores and a
    pool that also holds n_extra judged documents not retrieved."""
    scores = sorted(np.round(rng.random(k), tie_dp).tolist(), reverse=True)
    grades = [None if rng.random() < 0.2 else int(rng.integers(0, max_grade + 1)) for _ in range(k)]
    pool = {g: 0 for g in range(max_grade + 1)}
    for g in grades:
        if g is not None:
            pool[g] += 1
    for _ in range(n_extra):
        pool[int(rng.integers(0, max_grade + 1))] += 1
    return grades, scores, pool


# ------------------------------------------------------- documented (check) examples

TIE_QRELS = {"q": {"d1": 1, "d2": 0, "d6": 1}}


@pytest.mark.parametrize("rel_in_tie", ["d3", "d4", "d5"])
def test_seed_tie_example(rel_in_tie):
    # d1 > d2 > {d3, d4, d5} > d6; relevant d1, one of the tied three, d6 -> ranks 1, 4, 6
    qrels = {"q": dict(TIE_QRELS["q"], **{rel_in_tie: 1})}
    run = {"q": {"d1": 6.0, "d2": 5.0, "d3": 4.0, "d4": 4.0, "d5": 4.0, "d6": 1.0}}
    res = irscore.evaluate(qrels, run, [f"{n}(N=6)" for n in NAMES])
    got = [res[f"{n}(N=6)"] for n in NAMES]
    assert [round(v, 4) for v in got[:4]] == [0.4444, 0.5372, 0.5455, 0.5638]
    exact = [1 - 5 / 9, 1 - math.log(4) / math.log(20), 6 / 11, math.log(6) / math.log(24), 1 - 5 * 5 / 9]
    assert got == pytest.approx(exact, abs=1e-12)


def test_seed_graded_example():
    # levels {d1,d2,d3} > {d4,d5,d6}; order d1 d4 d2 d5 d3 d6
    grades, scores = [2, 1, 2, 1, 2, 1], [6, 5, 4, 3, 2, 1]
    pool = {0: 0, 1: 3, 2: 3}
    res = run_one(grades, scores, pool, 6, graded=True)
    assert res["signed_error"] == 0.0
    assert res["error"] == 3.0
    assert math.isnan(res["Rnorm"])          # n0 = N: undefined
    # in a larger collection the same order gives 1 - 3 / E_max
    res = run_one(grades, scores, pool, 20, graded=True)
    _, el, emax, elmax = ref_errors(grades, scores, pool, 20, graded=True)
    assert (res["error"], res["error_max"]) == (3.0, emax)
    assert res["Rnorm"] == pytest.approx(1 - 3 / emax, abs=1e-12)
    assert res["Pnorm"] == pytest.approx(1 - el / elmax, abs=1e-12)
    # binary relevance sees a perfect ranking of the six documents
    assert run_one(grades, scores, pool, 20)["Rnorm"] == pytest.approx(1.0, abs=1e-15)


def test_rnorm_equals_roc_auc_with_ties():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(1)
    for trial in range(60):
        n = int(rng.integers(2, 60))
        y = (rng.random(n) < rng.uniform(0.05, 0.6)).astype(int)
        if y.min() == y.max():
            y[0] = 1 - y[0]
        s = np.round(rng.random(n), int(rng.integers(0, 3)))   # many ties
        auc = metrics.roc_auc_score(y, s)
        got = rocchio.from_arrays(s[None, :], y[None, :])["Rnorm"][0]
        assert got == pytest.approx(auc, abs=1e-12), (trial, y, s)


def test_rnorm_auc_with_unretrieved_bottom_group():
    """Through evaluate(): documents of the collection not retrieved are one tie
    group below the run, which is AUC with them scored below every retrieved one."""
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(2)
    for _ in range(20):
        N = int(rng.integers(10, 80))
        k = int(rng.integers(1, N))
        y = (rng.random(N) < 0.3).astype(int)
        y[rng.integers(N)] = 1
        y[rng.integers(N)] = 0
        if y.min() == y.max():
            continue
        s = np.round(rng.random(N), 1) + 1.0
        order = np.argsort(-s, kind="stable")
        ret = order[:k]
        full = np.zeros(N)
        full[ret] = s[ret]                     # unretrieved: score 0, one bottom tie
        qrels = {"q": {f"d{i}": int(y[i]) for i in range(N)}}
        run = {"q": {f"d{i}": float(s[i]) for i in ret}}
        got = irscore.evaluate(qrels, run, [f"Rnorm(N={N})"])[f"Rnorm(N={N})"]
        assert got == pytest.approx(metrics.roc_auc_score(y, full), abs=1e-12)


# ----------------------------------------------- definitions, references

@pytest.mark.parametrize("graded", [False, True])
def test_matches_reference_on_random_cases(graded):
    rng = np.random.default_rng(3 + graded)
    for _ in range(150):
        grades, scores, pool = random_case(rng, int(rng.integers(0, 25)), int(rng.integers(0, 8)))
        known = len(grades) + sum(pool.values()) - sum(g is not None for g in grades)
        N = known + int(rng.integers(0, 30))
        level = int(rng.integers(1, 3))
        smart = bool(rng.integers(0, 2))
        got = run_one(grades, scores, pool, N, relevance_level=level, graded=graded,
                      variant="smart1966" if smart else "default")
        exp = ref_measures(grades, scores, pool, N, level, graded, smart)
        np.testing.assert_allclose([got[n] for n in NAMES], exp, rtol=1e-11, atol=1e-12)


def test_binary_formulas_and_graded_reduction():
    """Binary relevance: Rocchio's closed forms over average ranks; graded=True
    on binary grades gives the same values (ties included)."""
    rng = np.random.default_rng(5)
    for _ in range(100):
        grades, scores, pool = random_case(rng, int(rng.integers(1, 30)), int(rng.integers(0, 5)), max_grade=1)
        n0 = pool[1]
        N = len(grades) + pool[0] + pool[1] + int(rng.integers(1, 20))
        if n0 == 0:
            continue
        ranks = average_ranks(scores)
        r = [ranks[i] for i, g in enumerate(grades) if g == 1]
        r += [(len(grades) + 1 + N) / 2] * (n0 - len(r))
        s_i = n0 * (n0 + 1) / 2
        ls_i = math.lgamma(n0 + 1)
        lr = sum(map(math.log, r))
        exp = [1 - (sum(r) - s_i) / (n0 * (N - n0)),
               1 - (lr - ls_i) / (math.lgamma(N + 1) - math.lgamma(n0 + 1) - math.lgamma(N - n0 + 1)),
               s_i / sum(r), ls_i / lr if lr > 0 else 1.0]
        got = run_one(grades, scores, pool, N)
        got_g = run_one(grades, scores, pool, N, graded=True)
        np.testing.assert_allclose([got[n] for n in NAMES[:4]], exp, rtol=1e-11, atol=1e-12)
        np.testing.assert_allclose([got_g[n] for n in NAMES], [got[n] for n in NAMES], rtol=1e-12, atol=1e-13)
        assert got["scaled_recall"] == pytest.approx(1 - 5 * (1 - got["Rnorm"]), abs=1e-12)
        smart = run_one(grades, scores, pool, N, variant="smart1966")
        assert smart["Rnorm"] == pytest.approx(1 - (sum(r) - s_i) / (n0 * (N - n0 + 1)), abs=1e-12)
        assert smart["Pnorm"] == got["Pnorm"]


@pytest.mark.parametrize("labels", [(2, 2, 1, 1, 0, 0), (3, 2, 1, 0, 0, 0), (2, 2, 2, 1, 1, 0), (3, 2, 2, 1, 1, 0, 0)])
def test_worst_order_is_the_maximum_error(labels):
    """Over every order of a small collection, the normalisers are the largest
    errors: the indices lie in [0, 1] and the worst order reaches 0."""
    perms = sorted(set(itertools.permutations(labels)))
    n = len(labels)
    rel = np.asarray(perms, dtype=np.int32).ravel()
    nq = len(perms)
    off = np.arange(nq + 1, dtype=np.int64) * n
    sc = np.tile(np.arange(n, 0, -1, dtype=float), nq)
    lv = np.repeat(np.bincount(labels)[None, :], nq, axis=0)
    for graded in (False, True):
        res = rocchio.from_ranked(rel, sc, off, lv, n, graded=graded)
        assert res["error"].max() == res["error_max"][0]
        assert res["error_ln"].max() == pytest.approx(res["error_ln_max"][0], rel=1e-12)
        assert res["Rnorm"].min() == pytest.approx(0.0, abs=1e-12)
        assert res["Pnorm"].min() == pytest.approx(0.0, abs=1e-12)
        assert res["Rnorm"].max() == 1.0 and res["Pnorm"].max() == 1.0
        assert np.all((res["Rnorm"] >= -1e-12) & (res["Rnorm"] <= 1 + 1e-12))


def test_single_relevant_at_top_and_bottom():
    res = run_one([1, 0, 0], [3, 2, 1], {0: 2, 1: 1}, 10)
    assert res["log_precision"] == 1.0 and res["rank_recall"] == 1.0 and res["Rnorm"] == 1.0
    res = run_one([0, 0, 0], [3, 2, 1], {0: 3, 1: 1}, 10)   # relevant not retrieved: rank (3+1+10)/2 = 7
    assert res["rank_recall"] == pytest.approx(1 / 7)
    assert res["log_precision"] == 0.0
    assert res["Rnorm"] == pytest.approx(1 - 6 / 9)


def test_tie_order_does_not_matter():
    rng = np.random.default_rng(6)
    s = np.round(rng.random((30, 40)), 1)
    y = rng.integers(0, 3, (30, 40))
    a = rocchio.from_arrays(s, y, graded=True, ties="trec")
    b = rocchio.from_arrays(s, y, graded=True, ties="input")
    for n in NAMES:      # equal up to the order of floating-point additions
        np.testing.assert_allclose(a[n], b[n], rtol=1e-13, atol=1e-15)


# ------------------------------------------------------ undefined values

def test_no_relevant_is_nan_and_left_out_of_the_mean():
    qrels = {"a": {"d1": 1, "d2": 0}, "b": {"d1": 0, "d2": 0}}
    run = {"a": {"d1": 1.0, "d2": 2.0, "d3": 0.5}, "b": {"d1": 1.0, "d2": 2.0}}
    pq = irscore.evaluate(qrels, run, ["Rnorm(N=10)", "Pnorm(N=10)"], per_query=True)
    assert math.isnan(pq["Rnorm(N=10)"]["b"]) and math.isnan(pq["Pnorm(N=10)"]["b"])
    mean = irscore.evaluate(qrels, run, ["Rnorm(N=10)"])["Rnorm(N=10)"]
    assert mean == pq["Rnorm(N=10)"]["a"] == pytest.approx(1 - 1 / 9)


def test_every_document_relevant_is_nan():
    res = run_one([1, 1], [2, 1], {1: 2}, 2)
    assert all(math.isnan(res[n]) for n in NAMES)


def test_query_without_ranking_under_complete():
    qrels = {"a": {"d1": 1}, "b": {"d1": 1, "d2": 1}}
    run = {"a": {"d1": 1.0}}
    pq = irscore.evaluate(qrels, run, ["Rnorm(N=5)"], per_query=True, complete=True)["Rnorm(N=5)"]
    assert pq["a"] == 1.0
    assert pq["b"] == pytest.approx(0.5)     # both relevant at rank 3 = (0 + 1 + 5) / 2: random retrieval


# --------------------------------------------------------------- paths

def test_trec_array_and_batch_paths_agree():
    rng = np.random.default_rng(7)
    qrels, run, S, Y, P = {}, {}, [], [], []
    for q in range(25):
        qid = f"q{q:02d}"
        k = 30
        s = np.round(rng.random(k), 2)
        y = rng.integers(-1, 4, k)               # -1: not judged
        extra = rng.integers(0, 3, 4)            # judged, not retrieved
        qrels[qid] = {f"d{i}": int(y[i]) for i in range(k) if y[i] >= 0}
        qrels[qid].update({f"x{i}": int(g) for i, g in enumerate(extra)})
        if not any(g >= 1 for g in qrels[qid].values()):
            qrels[qid]["x9"] = 1
        run[qid] = {f"d{i}": float(s[i]) for i in range(k)}
        S.append(s)
        Y.append(np.maximum(y, 0))                # unjudged = non-relevant
        # the array path counts every candidate as judged: its pool holds them all
        P.append(np.bincount(np.maximum(y, 0), minlength=4) + np.bincount(extra, minlength=4)
                 + np.bincount([1] if "x9" in qrels[qid] else [], minlength=4))
    N = 100
    for graded, variant in [(False, "default"), (True, "smart1966")]:
        opts = f"N={N},graded={graded},variant={variant}"
        pq = irscore.evaluate(qrels, run, [f"{n}({opts})" for n in NAMES], per_query=True)
        arr = rocchio.from_arrays(np.asarray(S), np.asarray(Y), N=N, n_relevant=np.asarray(P), graded=graded,
                                  variant=variant)
        for n in NAMES:
            trec = np.asarray([pq[f"{n}({opts})"][q] for q in sorted(qrels)])
            np.testing.assert_allclose(arr[n], trec, rtol=1e-12)
    # batch API: N defaults to the number of candidates
    batch = pytest.importorskip("irscore.batch")
    Sa, Ya = np.asarray(S), np.asarray(Y)
    b = batch.evaluate(Sa, Ya, ["Rnorm", "Pnorm(graded=True)", "log_precision"])
    a = rocchio.from_arrays(Sa, Ya)
    ag = rocchio.from_arrays(Sa, Ya, graded=True)
    np.testing.assert_allclose(b["Rnorm"], a["Rnorm"], rtol=1e-12)
    np.testing.assert_allclose(b["log_precision"], a["log_precision"], rtol=1e-12)
    np.testing.assert_allclose(b["Pnorm(graded=True)"], ag["Pnorm"], rtol=1e-12)


def test_ragged_and_readonly_input():
    rng = np.random.default_rng(8)
    s = np.round(rng.random((5, 12)), 1)
    y = rng.integers(0, 2, (5, 12))
    dense = rocchio.from_arrays(s, y)
    ragged = rocchio.from_arrays(s.ravel(), y.ravel(), offsets=np.arange(6) * 12)
    for n in NAMES:
        np.testing.assert_array_equal(dense[n], ragged[n])
    # NaN scores mark padding in 2-D input: N defaults to the real candidates
    s2 = s.copy()
    s2[0, 6:] = np.nan
    padded = rocchio.from_arrays(s2, y)
    alone = rocchio.from_arrays(s[:1, :6], y[:1, :6])
    assert padded["Rnorm"][0] == alone["Rnorm"][0]
    # read-only arrays reach the kernel
    rel, sc = ranked([1, 0, 1, None], [4, 3, 3, 1])
    for a in (rel, sc):
        a.setflags(write=False)
    off = np.asarray([0, 4], dtype=np.int64)
    lv = np.asarray([[3, 2]], dtype=np.int64)
    off.setflags(write=False)
    lv.setflags(write=False)
    res = rocchio.from_ranked(rel, sc, off, lv, 9)
    assert res["Rnorm"][0] == pytest.approx(ref_measures([1, 0, 1, None], [4, 3, 3, 1], {0: 3, 1: 2}, 9)[0])


def test_cli_prints_rnorm(tmp_path, capsys):
    from irscore.cli import main

    q = tmp_path / "qrels"
    r = tmp_path / "run"
    q.write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n")
    r.write_text("1 Q0 a 1 3.0 t\n1 Q0 b 2 2.0 t\n1 Q0 c 3 1.0 t\n")
    assert main(["eval", "-q", "-m", "Rnorm(N=10)", "-m", "CRP_loss", str(q), str(r)]) == 0
    rows = [tuple(x.strip() for x in line.split("\t")) for line in capsys.readouterr().out.splitlines()]
    # relevant ranks 1 and 3 of 10: 1 - (4 - 3) / (2 * 8); CRP [0, -1, 0]: loss -1
    assert ("Rnorm(N=10)", "1", f"{1 - 1 / 16:.4f}") in rows
    assert ("CRP_loss", "1", "-1.0000") in rows
    assert ("Rnorm(N=10)", "all", f"{1 - 1 / 16:.4f}") in rows


# ------------------------------------------------------------ bad input

@pytest.mark.parametrize("name, message", [
    ("Rnorm", "collection size N"),
    ("Rnorm(N=3)", "smaller than the documents known"),
    ("Rnorm(N=0)", "positive"),
    ("Rnorm(N=ten)", "integer"),
    ("Pnorm(N=100,variant=smart)", "variant"),
    ("rank_recall(N=100,graded=maybe)", "graded"),
    ("log_precision(N=100,depth=3)", "unknown parameter"),
])
def test_bad_measure_parameters(name, message):
    qrels = {"q": {"a": 1, "b": 0, "c": 1}}
    run = {"q": {"a": 2.0, "d": 1.0}}
    with pytest.raises(ValueError, match=message):
        irscore.evaluate(qrels, run, [name])


def test_bad_arrays():
    rel = np.asarray([1, 0], dtype=np.int32)
    sc = np.asarray([2.0, 1.0])
    off = np.asarray([0, 2])
    lv = np.asarray([[1, 1]])
    with pytest.raises(ValueError, match="smaller than"):
        rocchio.from_ranked(rel, sc, off, lv, 1)
    with pytest.raises(ValueError, match="offsets"):
        rocchio.from_ranked(rel, sc, np.asarray([0, 3]), lv, 5)
    with pytest.raises(ValueError, match="rel values"):
        rocchio.from_ranked(np.asarray([5, 0], dtype=np.int32), sc, off, lv, 5)
    with pytest.raises(ValueError, match="levels"):
        rocchio.from_ranked(rel, sc, off, np.asarray([1, 1]), 5)
    with pytest.raises(ValueError, match="N must"):
        rocchio.from_ranked(rel, sc, off, lv, [5, 6])
    with pytest.raises(ValueError, match="relevance_level"):
        rocchio.from_ranked(rel, sc, off, lv, 5, relevance_level=-1)
    with pytest.raises(ValueError, match="same shape"):
        rocchio.from_arrays(np.zeros((2, 3)), np.zeros((2, 4), dtype=int))
    with pytest.raises(ValueError, match="NaN"):
        rocchio.from_arrays(np.asarray([1.0, np.nan]), np.asarray([1, 0]))
    with pytest.raises(TypeError, match="integer grades"):
        rocchio.from_arrays(np.zeros(3), np.asarray([0.5, 1.0, 0.0]))
    with pytest.raises(ValueError, match="ties"):
        rocchio.from_arrays(np.zeros(3), np.zeros(3, dtype=int), ties="random")
    # an empty query: no relevant documents, NaN
    res = rocchio.from_arrays(np.asarray([3.0, 2.0, 1.0]), np.asarray([1, 0, 0]), offsets=np.asarray([0, 0, 3]))
    assert math.isnan(res["Rnorm"][0]) and res["Rnorm"][1] == 1.0


def test_collection_size_from_num_docs_in_coll():
    """trec_eval's -N (num_docs_in_coll) is Rocchio's default N; an explicit N wins."""
    qrels = {"q1": {"d1": 1, "d2": 0, "d5": 1, "d6": 1}}
    run = {"q1": {"d1": 6.0, "d2": 5.0, "d3": 4.0, "d4": 4.0, "d5": 4.0, "d6": 1.0}}
    explicit = irscore.evaluate(qrels, run, ["Rnorm(N=50)", "Pnorm(N=50)"])
    implied = irscore.evaluate(qrels, run, ["Rnorm", "Pnorm"], num_docs_in_coll=50)
    assert implied["Rnorm"] == explicit["Rnorm(N=50)"] and implied["Pnorm"] == explicit["Pnorm(N=50)"]
    assert irscore.evaluate(qrels, run, ["Rnorm(N=6)"], num_docs_in_coll=50)["Rnorm(N=6)"] != implied["Rnorm"]
    with pytest.raises(ValueError, match="collection size"):
        irscore.evaluate(qrels, run, ["Rnorm"])


def test_batch_default_N_counts_relevant_outside_the_candidates():
    """With n_relevant declaring relevant documents outside the candidates, the
    batch API's default N is candidates + those documents (else N would be too small)."""
    import irscore.batch as B

    got = B.evaluate([[0.9, 0.8, 0.1]], [[0, 1, 0]], ["Rnorm"], n_relevant=[2])["Rnorm"]
    want = B.evaluate([[0.9, 0.8, 0.1]], [[0, 1, 0]], ["Rnorm(N=4)"], n_relevant=[2])["Rnorm(N=4)"]
    assert got.tolist() == want.tolist()
