"""irscore.batch: agreement with irscore.evaluate / pytrec_eval (trec ties),
exact tie averaging (brute force over permutations, sklearn), layouts, threads,
torch tensors and input validation."""
import itertools
import math

import numpy as np
import pytest

import irscore
from irscore import batch
from irscore.batch import arrays as batch_arrays

MEASURES = ["nDCG@5", "nDCG@10", "nDCG", "AP", "AP@10", "P@5", "P@10", "R@10", "RR", "Rprec",
            "Success@1", "Success@5", "DCG@10", "DCG", "nDCG(gain=exp)@10", "nDCG(discount=jarvelin)@5",
            "P(rel=2)@5", "AP(rel=2)", "NumRel", "NumRelRet", "NumRet", "ndcg_cut_10", "map",
            "recip_rank", "P_20", "recall_5", "success_10", "bpref", "infAP", "iprec_at_recall_0.50",
            "set_F", "Rprec_mult_0.60"]
AVG_MEASURES = ["nDCG@3", "nDCG@10", "nDCG", "DCG@4", "nDCG(gain=exp)@5", "AP", "AP@3", "P@2", "P@5",
                "R@3", "RR", "Rprec", "Success@1", "Success@3", "P(rel=2)@3", "NumRel", "NumRelRet"]


def random_batch(seed, nq=60, ncol=40, max_grade=3, tie_digits=1, pad=True):
    rng = np.random.default_rng(seed)
    scores = np.round(rng.normal(size=(nq, ncol)), tie_digits)
    labels = rng.integers(0, max_grade + 1, size=(nq, ncol))
    labels[rng.random((nq, ncol)) < 0.5] = 0
    lengths = rng.integers(0, ncol + 1, size=nq) if pad else np.full(nq, ncol)
    lengths[:3] = [ncol, 1, 0][: min(3, nq)]
    return scores, labels, lengths


def as_dicts(scores, labels, lengths, extra=None):
    """pytrec_eval-style dicts: column j is document d{j:05d} (id order = column order)."""
    qrels, run = {}, {}
    for q in range(scores.shape[0]):
        n = int(lengths[q])
        valid = [j for j in range(n) if not np.isnan(scores[q, j])]
        if not valid:
            continue
        qrels[f"q{q}"] = {f"d{j:05d}": int(labels[q, j]) for j in valid}
        if extra is not None:
            for i, g in enumerate(extra[q]):
                qrels[f"q{q}"][f"x{i}"] = int(g)
        run[f"q{q}"] = {f"d{j:05d}": float(scores[q, j]) for j in valid}
    return qrels, run


def compare_with_evaluate(scores, labels, lengths, measures, level=1, extra=None, pass_lengths=True, **kw):
    got = batch.evaluate(scores, labels, measures, lengths=lengths if pass_lengths else None,
                         relevance_level=level, **kw)
    qrels, run = as_dicts(scores, labels, lengths, extra)
    want = irscore.evaluate(qrels, run, measures, per_query=True, relevance_level=level)
    n = 0
    for m in measures:
        assert got[m].dtype == np.float64 and got[m].shape == (scores.shape[0],)
        for qid, v in want[m].items():
            assert got[m][int(qid[1:])] == pytest.approx(v, abs=1e-12), (m, qid)
            n += 1
    assert n == len(measures) * len(run) and len(run) >= 5
    return got


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("level", [1, 2])
def test_trec_ties_match_evaluate(seed, level):
    scores, labels, lengths = random_batch(seed)
    compare_with_evaluate(scores, labels, lengths, MEASURES, level=level)


def test_nan_padding_matches_evaluate():
    scores, labels, lengths = random_batch(7, pad=False)
    rng = np.random.default_rng(7)
    scores[rng.random(scores.shape) < 0.3] = np.nan
    # without lengths, NaN scores mark padding (inside explicit lengths they are an error)
    compare_with_evaluate(scores, labels, lengths, MEASURES, pass_lengths=False)


def test_long_rows_and_float32_scores():
    # long rows exercise the bucket pass, float32 the other score specialisation
    rng = np.random.default_rng(11)
    scores = rng.normal(size=(8, 700)).astype(np.float32)
    scores[:, ::7] = np.round(scores[:, ::7], 1)
    labels = rng.integers(0, 5, size=(8, 700)).astype(np.int8)
    compare_with_evaluate(scores, labels, np.full(8, 700), ["nDCG@10", "AP", "P@10", "RR", "nDCG", "Rprec"])


@pytest.mark.parametrize("mode", [1, 2])
def test_n_relevant_matches_trec_eval_judged_set(mode):
    scores, labels, lengths = random_batch(21)
    rng = np.random.default_rng(21)
    nq = scores.shape[0]
    if mode == 1:   # binary labels, relevant documents outside the candidates
        labels = (labels > 0).astype(np.int64)
        extra = [[1] * int(rng.integers(0, 4)) for _ in range(nq)]
        n_relevant = np.array([int(((labels[q, :lengths[q]] > 0)).sum()) + len(extra[q]) for q in range(nq)])
    else:           # per-grade counts of the whole judged set
        extra = [list(rng.integers(0, 4, size=int(rng.integers(0, 5)))) for _ in range(nq)]
        n_relevant = np.zeros((nq, 4), dtype=np.int64)
        for q in range(nq):
            for g in list(labels[q, :lengths[q]]) + extra[q]:
                n_relevant[q, g] += 1
    ms = ["nDCG@10", "nDCG", "AP", "R@5", "Rprec", "RR", "NumRel", "bpref", "AP@5"] + \
        (["P(rel=2)@5", "AP(rel=2)", "nDCG(gain=exp)@5"] if mode == 2 else [])
    got = compare_with_evaluate(scores, labels, lengths, ms, extra=extra, n_relevant=n_relevant)
    # without n_relevant the candidates are the judged set: recall can only grow
    plain = batch.evaluate(scores, labels, ["R@5"], lengths=lengths)["R@5"]
    assert np.all(plain >= got["R@5"] - 1e-12)
    assert np.any(plain > got["R@5"])


def test_against_pytrec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    scores, labels, lengths = random_batch(5, nq=200, ncol=60, tie_digits=2)
    ms = ["map", "ndcg_cut_10", "P_10", "recip_rank", "recall_10", "Rprec", "ndcg", "success_5"]
    got = batch.evaluate(scores, labels, ms, lengths=lengths)
    qrels, run = as_dicts(scores, labels, lengths)
    want = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut", "P", "recip_rank", "recall", "Rprec",
                                                  "ndcg", "success"}).evaluate(run)
    n = 0
    for qid, vals in want.items():
        for m in ms:
            assert got[m][int(qid[1:])] == pytest.approx(vals[m], abs=1e-12), (m, qid)
            n += 1
    assert n > 1000


# ------------------------------------------------------------------ average ties

def brute_average(scores, labels, measures, **kw):
    """Mean over every order of tied candidates: each order evaluated with ties='input'."""
    order = np.argsort(-scores, kind="stable")
    groups = [list(g) for _, g in itertools.groupby(order, key=lambda j: scores[j])]
    total = {m: 0.0 for m in measures}
    count = 0
    for perm in itertools.product(*[itertools.permutations(g) for g in groups]):
        cols = [j for g in perm for j in g]
        s = np.arange(len(cols), 0, -1, dtype=np.float64)     # strictly decreasing = that order
        r = batch.evaluate(s[None, :], labels[cols][None, :], measures, ties="input", **kw)
        for m in measures:
            total[m] += r[m][0]
        count += 1
    return {m: total[m] / count for m in measures}


@pytest.mark.parametrize("seed", range(12))
def test_average_ties_equal_brute_force(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(1, 8))
    scores = rng.integers(0, 3, size=n).astype(np.float64)
    labels = rng.integers(0, 4, size=n)
    nrel = None
    if seed % 3 == 0:
        nrel = np.array([int((labels >= 1).sum()) + int(rng.integers(0, 3))])
    if seed % 3 == 1:     # per-grade counts of a judged set larger than the candidates
        nrel = np.bincount(labels, minlength=4)[None, :] + rng.integers(0, 2, size=(1, 4))
    kw = {} if nrel is None else {"n_relevant": nrel}
    got = batch.evaluate(scores[None, :], labels[None, :], AVG_MEASURES, ties="average", **kw)
    want = brute_average(scores, labels, AVG_MEASURES, **kw)
    for m in AVG_MEASURES:
        assert got[m][0] == pytest.approx(want[m], abs=1e-12), (m, scores, labels)


def test_average_ties_without_ties_equal_trec():
    rng = np.random.default_rng(3)
    scores = rng.normal(size=(30, 50))
    labels = rng.integers(0, 3, size=(30, 50))
    a = batch.evaluate(scores, labels, AVG_MEASURES, ties="average")
    t = batch.evaluate(scores, labels, AVG_MEASURES, ties="trec")
    for m in AVG_MEASURES:
        np.testing.assert_allclose(a[m], t[m], rtol=0, atol=1e-12)


def test_average_ties_all_tied_row():
    # one tie group of 6 with 2 relevant: E[RR] and E[AP] in closed form
    s = np.zeros((1, 6))
    lab = np.array([[1, 0, 0, 1, 0, 0]])
    r = batch.evaluate(s, lab, ["RR", "AP", "P@3"], ties="average")
    # first relevant at position j+1 with probability C(5-j, 1)/C(6, 2)
    err = sum((5 - j) / 15 / (j + 1) for j in range(5))
    assert r["RR"][0] == pytest.approx(err)
    assert r["P@3"][0] == pytest.approx(2 * 3 / 6 / 3)
    pairs = list(itertools.combinations(range(6), 2))
    ap = np.mean([(1 / (a + 1) + 2 / (b + 1)) / 2 for a, b in pairs])
    assert r["AP"][0] == pytest.approx(ap)


def test_average_ties_match_sklearn():
    sk = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(8)
    scores = np.round(rng.normal(size=(40, 30)), 1)
    labels = rng.random((40, 30)) * 3
    labels[labels < 1.2] = 0.0
    for k in (None, 1, 5, 10, 30):
        name = "nDCG" if k is None else f"nDCG@{k}"
        got = batch.evaluate(scores, labels, [name], ties="average")[name]
        want = [sk.ndcg_score(labels[q:q + 1], scores[q:q + 1], k=k) for q in range(40)]
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    # long rows: bucket sorts of the scores and of the (non-integer) ideal gains
    scores = np.round(rng.normal(size=(6, 400)), 2)
    labels = rng.random((6, 400)) * 5
    for k in (None, 10, 100):
        name = "nDCG" if k is None else f"nDCG@{k}"
        got = batch.evaluate(scores, labels, [name], ties="average")[name]
        want = [sk.ndcg_score(labels[q:q + 1], scores[q:q + 1], k=k) for q in range(6)]
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


# ------------------------------------------------------------------ layouts

def test_ragged_equals_dense_and_partial_equals_full():
    scores, labels, lengths = random_batch(9, nq=50, ncol=45)
    ms = ["nDCG@3", "nDCG@10", "P@5", "R@10", "RR", "Success@5", "AP@10", "NumRelRet"]
    for ties in ("trec", "input", "average"):
        dense = batch.evaluate(scores, labels, ms, lengths=lengths, ties=ties)
        offsets = np.concatenate(([0], np.cumsum(lengths)))
        flat_s = np.concatenate([scores[q, :lengths[q]] for q in range(50)])
        flat_l = np.concatenate([labels[q, :lengths[q]] for q in range(50)])
        ragged = batch.evaluate(flat_s, flat_l, ms, offsets=offsets, ties=ties)
        # AP forces the full sort; the cutoff-only call uses the top-k selection
        full = batch.evaluate(scores, labels, ms + ["AP"], lengths=lengths, ties=ties)
        for m in ms:
            np.testing.assert_array_equal(dense[m], ragged[m])
            np.testing.assert_array_equal(dense[m], full[m])


def test_input_ties_keep_column_order():
    s = np.array([[1.0, 1.0, 1.0, 0.5]])
    lab = np.array([[1, 0, 0, 0]])
    assert batch.evaluate(s, lab, ["RR"], ties="input")["RR"][0] == 1.0
    assert batch.evaluate(s, lab, ["RR"], ties="trec")["RR"][0] == pytest.approx(1 / 3)
    assert batch.evaluate(s, lab, ["RR"], ties="average")["RR"][0] == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)


def reference_row(s, lab, k=10):
    """Plain reference of a few measures, trec ties, over the non-NaN cells."""
    cols = [j for j in range(len(s)) if not np.isnan(s[j])]
    cols.sort(key=lambda j: (-s[j], -j))
    rel = [lab[j] >= (1 if np.issubdtype(lab.dtype, np.integer) else 5e-324) for j in cols]
    R = sum(rel)
    hits, ap = 0, 0.0
    for i, r in enumerate(rel):
        if r:
            hits += 1
            ap += hits / (i + 1)
    gains = [max(lab[j], 0) for j in cols]
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains[:k]))
    ideal = sorted(gains, reverse=True)
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal[:k]))
    rr = next((1 / (i + 1) for i, r in enumerate(rel) if r), 0.0)
    return {"AP": ap / R if R else 0.0, f"nDCG@{k}": dcg / idcg if idcg else 0.0, "RR": rr,
            f"P@{k}": sum(rel[:k]) / k}


@pytest.mark.parametrize("kind", ["inf", "huge", "tiny", "constant", "skewed", "float_labels", "big_grades",
                                  "half_grades"])
def test_extreme_scores(kind):
    rng = np.random.default_rng(4)
    n = 300
    s = rng.normal(size=(4, n))
    lab = rng.integers(0, 3, size=(4, n)).astype(np.float64 if kind == "float_labels" else np.int64)
    if kind == "inf":
        s[:, ::5] = np.inf
        s[:, 1::5] = -np.inf
    elif kind == "huge":
        s[:, 0], s[:, 1] = 1.7e308, -1.7e308
    elif kind == "tiny":
        s = s * 1e-320
    elif kind == "constant":
        s[:] = 3.0
        s[:, :10] = 4.0
    elif kind == "skewed":
        s = np.exp(rng.normal(size=(4, n)) * 30)
    elif kind == "big_grades":       # grades past the small-integer counters
        lab[:, ::3] *= 400
    elif kind == "half_grades":
        lab = lab * 0.5
    ms = ["AP", "nDCG@10", "RR", "P@10"]
    got = batch.evaluate(s, lab, ms)
    for q in range(4):
        ref = reference_row(s[q], lab[q])
        for m in ms:
            assert got[m][q] == pytest.approx(ref[m], abs=1e-12), (kind, m, q)


def test_float_labels_rule():
    rng = np.random.default_rng(2)
    s = rng.normal(size=(20, 30))
    f = rng.random((20, 30))
    f[f < 0.6] = 0.0
    b = (f > 0).astype(np.int32)
    ms = ["AP", "P@5", "RR", "R@10"]
    got_f = batch.evaluate(s, f, ms)
    got_b = batch.evaluate(s, b, ms)
    for m in ms:
        np.testing.assert_array_equal(got_f[m], got_b[m])
    # an explicit level applies to float labels as to integers
    got = batch.evaluate(s, f, ["P@5"], relevance_level=0.5)["P@5"]
    np.testing.assert_array_equal(got, batch.evaluate(s, (f >= 0.5).astype(int), ["P@5"])["P@5"])
    # nDCG gains are the float labels themselves
    nd = batch.evaluate(s, f, ["nDCG@5"])["nDCG@5"][0]
    order = np.lexsort((-np.arange(30), -s[0]))
    g = f[0][order]
    want = sum(g[i] / math.log2(i + 2) for i in range(5)) / sum(
        x / math.log2(i + 2) for i, x in enumerate(sorted(f[0], reverse=True)[:5]))
    assert nd == pytest.approx(want)


def test_thread_count_does_not_change_results():
    rng = np.random.default_rng(12)
    s = np.round(rng.normal(size=(503, 200)), 1).astype(np.float32)
    lab = rng.integers(0, 4, size=(503, 200))
    ms = ["nDCG@10", "AP", "P@10", "RR", "Rprec"]
    for ties in ("trec", "average"):
        base = batch.evaluate(s, lab, ms, ties=ties, n_jobs=1)
        for nj in (2, 3, 7, -1, None):
            other = batch.evaluate(s, lab, ms, ties=ties, n_jobs=nj)
            for m in ms:
                np.testing.assert_array_equal(base[m], other[m])
    # ragged rows of unequal lengths, split across threads
    lengths = rng.integers(0, 201, size=503)
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    fs = np.concatenate([s[q, :lengths[q]] for q in range(503)])
    fl = np.concatenate([lab[q, :lengths[q]] for q in range(503)])
    base = batch.evaluate(fs, fl, ms, offsets=offsets, n_jobs=1)
    for nj in (2, 5):
        other = batch.evaluate(fs, fl, ms, offsets=offsets, n_jobs=nj)
        for m in ms:
            np.testing.assert_array_equal(base[m], other[m])


def test_dtypes_orders_and_read_only():
    rng = np.random.default_rng(13)
    s = rng.normal(size=(10, 25))
    lab = rng.integers(0, 3, size=(10, 25))
    ms = ["nDCG@5", "AP", "RR"]
    want = batch.evaluate(s, lab, ms)
    variants = [
        (np.asfortranarray(s), np.asfortranarray(lab)),
        (s, lab.astype(np.int8)), (s, lab.astype(np.int16)), (s, lab.astype(np.uint8)),
        (s, lab.astype(np.uint16)), (s, lab.astype(np.uint32)), (s, lab.astype(np.uint64)),
        (s, lab.astype(np.float32)), (s, lab.astype(np.float16)),
        (s[:, ::1].copy(), lab.astype(np.int32)),
    ]
    ro_s, ro_l = s.copy(), lab.copy()
    ro_s.setflags(write=False)
    ro_l.setflags(write=False)
    variants.append((ro_s, ro_l))
    for vs, vl in variants:
        got = batch.evaluate(vs, vl, ms)
        for m in ms:
            np.testing.assert_allclose(got[m], want[m], rtol=0, atol=1e-12)
    bl = lab > 0
    np.testing.assert_array_equal(batch.evaluate(s, bl, ["AP"])["AP"], batch.evaluate(s, bl.astype(int), ["AP"])["AP"])
    # integer scores are converted; float32/float64 arrays are used without a copy
    assert batch.evaluate(np.round(s * 10).astype(np.int64), lab, ["AP"])["AP"].dtype == np.float64
    a32 = s.astype(np.float32)
    assert batch_arrays.score_array(a32) is a32
    assert batch_arrays.label_array(lab) is lab


def test_measure_functions_equal_evaluate():
    rng = np.random.default_rng(14)
    s = rng.normal(size=(15, 20))
    lab = rng.integers(0, 3, size=(15, 20))
    ev = batch.evaluate(s, lab, ["nDCG@5", "nDCG", "DCG@5", "AP", "AP@5", "P@3", "R@3", "RR", "Rprec",
                                 "Success@2", "nDCG(gain=exp)@5"])
    np.testing.assert_array_equal(batch.ndcg(s, lab, 5), ev["nDCG@5"])
    np.testing.assert_array_equal(batch.ndcg(s, lab), ev["nDCG"])
    np.testing.assert_array_equal(batch.ndcg(s, lab, 5, gain="exp"), ev["nDCG(gain=exp)@5"])
    np.testing.assert_array_equal(batch.dcg(s, lab, 5), ev["DCG@5"])
    np.testing.assert_array_equal(batch.average_precision(s, lab), ev["AP"])
    np.testing.assert_array_equal(batch.average_precision(s, lab, 5), ev["AP@5"])
    np.testing.assert_array_equal(batch.precision(s, lab, 3), ev["P@3"])
    np.testing.assert_array_equal(batch.recall(s, lab, 3), ev["R@3"])
    np.testing.assert_array_equal(batch.reciprocal_rank(s, lab), ev["RR"])
    np.testing.assert_array_equal(batch.r_precision(s, lab), ev["Rprec"])
    np.testing.assert_array_equal(batch.success(s, lab, 2), ev["Success@2"])
    assert irscore.batch is batch


def test_check_inputs_false_gives_same_values():
    scores, labels, lengths = random_batch(15)
    a = batch.evaluate(scores, labels, ["nDCG@10", "AP", "P@10", "RR"], lengths=lengths)
    b = batch.evaluate(scores, labels, ["nDCG@10", "AP", "P@10", "RR"], lengths=lengths, check_inputs=False)
    for m in a:
        np.testing.assert_array_equal(a[m], b[m])


def test_external_families():
    """Registered families (Rocchio, CRP) get the ranked labels of the batch; the
    candidate count is Rocchio's default N."""
    pytest.importorskip("irscore.rocchio")
    pytest.importorskip("irscore.crp")
    scores, labels, _ = random_batch(16, nq=30, ncol=25, pad=False)
    lengths = np.full(30, 25)
    ms = ["Rnorm(N=25)", "Pnorm(N=25)", "CRP_loss", "AP"]
    got = compare_with_evaluate(scores, labels, lengths, ms)
    default_n = batch.evaluate(scores, labels, ["Rnorm", "Pnorm"])
    np.testing.assert_array_equal(default_n["Rnorm"], got["Rnorm(N=25)"])
    np.testing.assert_array_equal(default_n["Pnorm"], got["Pnorm(N=25)"])
    with pytest.raises(ValueError, match="average"):
        batch.evaluate(scores, labels, ["Rnorm"], ties="average")
