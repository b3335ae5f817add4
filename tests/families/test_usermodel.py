"""ERR/nERR (docs/web_diversity.md) and the C/W/L measures and Compat
(docs/user_models.md): hand-worked examples, independent references written
from the definitions, differential runs against the original tools through
ir_measures' providers (gdeval, cwl_eval, compat), the batch path and bad
input."""
import math

import numpy as np
import pytest

import irscore
from irscore import _usermodel
from irscore.batch import evaluate as batch_evaluate

# ---------------------------------------------------------------- random data

def random_case(rng, n_queries, max_grade=4, neg=True, distinct=False):
    """qrels {qid: {doc: grade}}, run {qid: {doc: score}}: graded, ties (unless
    ``distinct``), unjudged documents, queries without a relevant document,
    qrels queries without a ranking and long rankings."""
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = str(100 + q)
        nd = int(rng.integers(1, 30))
        docs = [f"d{q}_{i}" for i in range(nd)]
        kind = rng.random()
        if kind < 0.1:
            grades = [0] * nd                                  # no relevant document
        else:
            grades = rng.integers(-1 if neg else 0, max_grade + 1, nd).tolist()
        qrels[qid] = dict(zip(docs, (int(g) for g in grades)))
        if rng.random() < 0.05:
            continue                                           # no ranking
        pool = docs + [f"u{q}_{i}" for i in range(int(rng.integers(0, 15)))]
        k = int(rng.integers(1, len(pool) + 1))
        chosen = rng.choice(pool, size=k, replace=False)
        if distinct:
            scores = rng.permutation(k) + 1.0
        else:
            scores = rng.integers(0, 6, k).astype(float)
        run[qid] = {str(d): float(s) for d, s in zip(chosen, scores)}
    return qrels, run


def provider_values(provider, measure, qrels, run):
    irm = pytest.importorskip("ir_measures")
    prov = irm.providers.registry[provider]
    try:
        prov.initialize()
    except Exception as exc:                                    # pragma: no cover
        pytest.skip(f"{provider}: {exc}")
    return {m.query_id: m.value for m in prov.evaluator([irm.parse_measure(measure)], qrels).iter_calc(run)}


def ours(qrels, run, name):
    """{qid: {measure: value}}."""
    res = irscore.evaluate(qrels, run, name, per_query=True)
    out = {}
    for measure, vals in res.items():
        for q, v in vals.items():
            out.setdefault(q, {})[measure] = v
    return out


def agreement(ref, got, tol):
    """(agreeing queries, compared queries); ir_measures reports 0 for a
    qrels query without a ranking, which irscore does not evaluate."""
    assert all(ref[q] == 0 for q in ref if q not in got)
    ref = {q: v for q, v in ref.items() if q in got}
    same = [q for q in ref if abs(ref[q] - got[q][next(iter(got[q]))]) <= tol]
    return len(same), len(ref)


# ---------------------------------------------------------------- ERR / nERR

def err_ref(grades, k, max_rel=4):
    s, decay = 0.0, 1.0
    for i, g in enumerate(grades[:k]):
        r = (2 ** min(max(g, 0), max_rel) - 1) / 2 ** max_rel
        s += r * decay / (i + 1)
        decay *= 1 - r
    return s


def test_err_hand_worked():
    # grades 2, 0, 4 at ranks 1..3 (max 4): R = 3/16, 0, 15/16
    # ERR = 3/16 + (1 - 3/16) * 15/16 / 3 = 0.1875 + 0.25390625 = 0.44140625
    qrels = {"1": {"a": 2, "b": 0, "c": 4}}
    run = {"1": {"a": 3.0, "b": 2.0, "c": 1.0}}
    res = irscore.evaluate(qrels, run, ["ERR", "ERR@2", "nERR@3"])
    assert res["ERR"] == pytest.approx(0.44140625)
    assert res["ERR@2"] == pytest.approx(0.1875)
    # ideal c, a: 15/16 + (1/16) * (3/16) / 2
    assert res["nERR@3"] == pytest.approx(0.44140625 / (15 / 16 + 3 / 512))
    assert irscore.evaluate(qrels, run, "ERR(max_rel=2)@1")["ERR(max_rel=2)@1"] == pytest.approx(3 / 4)


def test_err_matches_reference_and_gdeval():
    rng = np.random.default_rng(7)
    qrels, run = random_case(rng, 1500)
    for k in (5, 20):
        got = ours(qrels, run, [f"ERR@{k}", f"nERR@{k}", f"nDCG(gain=exp)@{k}"])
        for q, vals in got.items():
            ranking = sorted(sorted(run[q], reverse=True), key=lambda d: -run[q][d])
            grades = [qrels[q].get(d, 0) for d in ranking]
            ideal = sorted((g for g in qrels[q].values() if g > 0), reverse=True)
            assert vals[f"ERR@{k}"] == pytest.approx(err_ref(grades, k), abs=1e-12)
            if ideal:
                assert vals[f"nERR@{k}"] == pytest.approx(err_ref(grades, k) / err_ref(ideal, k), abs=1e-12)
            else:
                assert math.isnan(vals[f"nERR@{k}"])
        for measure, ours_name in ((f"ERR@{k}", f"ERR@{k}"), (f"nDCG(dcg='exp-log2')@{k}", f"nDCG(gain=exp)@{k}")):
            ref = provider_values("gdeval", measure, qrels, run)
            # gdeval prints five decimals; ir_measures reports 0 for a query without a ranking
            assert all(ref[q] == 0 for q in ref if q not in got)
            ref = {q: v for q, v in ref.items() if q in got}
            same = [q for q in ref if abs(ref[q] - got[q][ours_name]) <= 5.1e-6]
            assert len(ref) > 1000 and len(same) == len(ref), (measure, len(same), len(ref))


# ---------------------------------------------------------------- C/W/L

def cwl_ref(gains, measure, T=1.0, k=None, depth=1000):
    g = (list(gains) + [0.0] * depth)[:depth]
    P, sp, spg, cg = 1.0, 0.0, 0.0, 0.0
    for i, x in enumerate(g, start=1):
        cg += x
        sp += P
        spg += P * x
        if measure == "INST":
            a = i + T + (T - cg)
            C = ((a - 1) / a) ** 2
        elif measure == "INSQ":
            C = ((i + 2 * T - 1) / (i + 2 * T)) ** 2
        elif measure == "BPM":
            C = 1.0 if cg < T and i < k else 0.0
        elif measure == "SDCG":
            C = math.log2(i + 1) / math.log2(i + 2) if i < k else 0.0
        elif measure == "NERR8":
            C = 1 - x if i < k else 0.0
        elif measure == "NERR9":
            C = i / (i + 1) * (1 - x) if i < k else 0.0
        elif measure == "NERR10":
            C = T * (1 - x)
        else:
            C = ((i + 2 * T - 1) / (i + 2 * T)) ** 2 * (1 - x)
        P *= C
    return spg / sp


def test_cwl_hand_worked():
    # SDCG@3 of gains 1, 0, 1/2: (1 + 0.5 / 2) / (1 + 1/log2(3) + 1/2)
    qrels = {"1": {"a": 2, "b": 0, "c": 1}}
    run = {"1": {"a": 3.0, "b": 2.0, "c": 1.0}}
    v = irscore.evaluate(qrels, run, ["SDCG@3", "BPM@3", "BPM(T=2)@3", "INSQ"])
    assert v["SDCG@3"] == pytest.approx(1.25 / (1.5 + 1 / math.log2(3)))
    assert v["BPM@3"] == pytest.approx(1.0)          # satisfied by the first document
    assert v["BPM(T=2)@3"] == pytest.approx(1.5 / 3)  # stops at the cutoff
    w = [(2 / (i + 1)) ** 2 for i in range(1, 1001)]   # INSQ, T=1: prod C_j = (2/(i+1))^2
    assert v["INSQ"] == pytest.approx((w[0] + 0.5 * w[2]) / sum(w))


@pytest.mark.parametrize("measure,ours_name,args", [
    ("INST(max_rel=3)", "INST(max_rel=3)", {"measure": "INST"}),
    ("INST(T=2,max_rel=3)", "INST(T=2,max_rel=3)", {"measure": "INST", "T": 2.0}),
    ("INSQ(max_rel=3)", "INSQ(max_rel=3)", {"measure": "INSQ"}),
    ("BPM(max_rel=3)@10", "BPM(max_rel=3)@10", {"measure": "BPM", "k": 10}),
    ("SDCG(max_rel=3)@10", "SDCG(max_rel=3)@10", {"measure": "SDCG", "k": 10}),
    ("INST(max_rel=3,min_rel=1)", "INST(max_rel=3,min_rel=1)", {"measure": "INST", "lo": 1}),
    ("NERR8(max_rel=3)@10", "NERR8(max_rel=3)@10", {"measure": "NERR8", "k": 10}),
    ("NERR9(max_rel=3)@5", "NERR9(max_rel=3)@5", {"measure": "NERR9", "k": 5}),
    ("NERR10(max_rel=3)", "NERR10(max_rel=3)", {"measure": "NERR10", "T": 0.9}),
    ("NERR10(p=0.5,max_rel=3)", "NERR10(max_rel=3,p=0.5)", {"measure": "NERR10", "T": 0.5}),
    ("NERR11(T=2,max_rel=3)", "NERR11(T=2,max_rel=3)", {"measure": "NERR11", "T": 2.0}),
])
def test_cwl_matches_reference_and_cwl_eval(measure, ours_name, args):
    rng = np.random.default_rng(11)
    qrels, run = random_case(rng, 1200, max_grade=3, distinct=True)
    got = ours(qrels, run, ours_name)
    lo = args.get("lo", 0)
    for q in list(got)[:300]:
        ranking = sorted(run[q], key=lambda d: -run[q][d])
        gains = [(min(max(qrels[q].get(d, 0), lo), 3) - lo) / (3 - lo) if d in qrels[q] else 0.0 for d in ranking]
        ref = cwl_ref(gains, args["measure"], T=args.get("T", 1.0), k=args.get("k"))
        assert got[q][ours_name] == pytest.approx(ref, abs=1e-12)
    ref = provider_values("cwl_eval", measure, qrels, run)
    n, total = agreement(ref, got, 1e-9)
    assert total > 1000 and n == total, (measure, n, total)


def test_cwl_default_max_rel_is_largest_grade():
    qrels = {"1": {"a": 4, "b": 2}}
    run = {"1": {"b": 2.0, "a": 1.0}}
    r = irscore.evaluate(qrels, run, ["SDCG@2", "SDCG(max_rel=4)@2"])
    assert r["SDCG@2"] == r["SDCG(max_rel=4)@2"]


# ---------------------------------------------------------------- Compat

def compat_ref(qrels, run, p, normalize):
    ranking = sorted(run, key=lambda d: -run[d])
    rel = [d for d in qrels if qrels[d] > 0]
    ideal = sorted(rel, key=lambda d: (-qrels[d], (0, ranking.index(d)) if d in run else (1, 0)))
    depth = max(len(ranking), len(ideal))

    def rbo(a, b):
        s = sum(p ** i * len(set(a[:i + 1]) & set(b[:i + 1])) / (i + 1) for i in range(depth))
        return s / sum(p ** i for i in range(depth))
    score = rbo(ranking, ideal)
    if normalize and rbo(ideal, ideal) > 0:
        score = rbo(ranking, ideal) / rbo(ideal, ideal)
    return score


def test_compat_hand_worked():
    # ranking a b, ideal (a: 2, c: 1) = a c; overlaps 1/1, 1/2; p = 0.5
    qrels = {"1": {"a": 2, "c": 1, "b": 0}}
    run = {"1": {"a": 2.0, "b": 1.0}}
    r = irscore.evaluate(qrels, run, ["Compat(p=0.5)", "Compat(p=0.5,normalize=false)"])
    assert r["Compat(p=0.5,normalize=false)"] == pytest.approx((1 + 0.5 * 0.5) / 1.5)
    assert r["Compat(p=0.5)"] == pytest.approx((1 + 0.25) / (1 + 0.5))


@pytest.mark.parametrize("p,normalize", [(0.95, True), (0.8, False), (0.5, True)])
def test_compat_matches_reference_and_provider(p, normalize):
    rng = np.random.default_rng(3)
    qrels, run = random_case(rng, 1200, distinct=True)
    name = f"Compat(p={p},normalize={str(normalize).lower()})"
    got = ours(qrels, run, name)
    for q in list(got)[:200]:
        assert got[q][name] == pytest.approx(compat_ref(qrels[q], run[q], p, normalize), abs=1e-12)
    ref = provider_values("compat", f"Compat(p={p},normalize={normalize})", qrels, run)
    n, total = agreement(ref, got, 1e-9)
    assert total > 1000 and n == total, (n, total)


# ---------------------------------------------------------------- batch, names, bad input

def test_batch_uses_the_same_kernels():
    rng = np.random.default_rng(5)
    scores = rng.random((40, 25))
    labels = rng.integers(0, 4, (40, 25))
    names = ["ERR@10", "nERR@10", "INST", "INSQ", "BPM@10", "SDCG@10", "Compat", "NERR8@5", "NERR10"]
    b = batch_evaluate(scores, labels, names)
    qrels = {str(q): {f"d{j}": int(labels[q, j]) for j in range(25)} for q in range(40)}
    run = {str(q): {f"d{j}": float(scores[q, j]) for j in range(25)} for q in range(40)}
    per_q = irscore.evaluate(qrels, run, names, per_query=True)
    for name in names:
        ref = np.array([per_q[name][str(q)] for q in range(40)])
        np.testing.assert_allclose(b[name], ref, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", ["SDCG", "BPM", "ERR@0", "ERR@2.5", "Compat(p=1)", "INST(T=0)",
                                  "INST(T=x)", "INST(max_rel=0)", "Compat@5", "ERR(max_rel=-1)"])
def test_bad_names(name):
    with pytest.raises(ValueError):
        irscore.evaluate({"1": {"a": 1}}, {"1": {"a": 1.0}}, name)


def test_min_rel_not_below_max_rel():
    with pytest.raises(ValueError, match="max_rel"):
        irscore.evaluate({"1": {"a": 1}}, {"1": {"a": 1.0}}, "INST(min_rel=2,max_rel=2)")


def _args():
    rel = np.array([1, 0, -1, 2], dtype=np.int32)
    off = np.array([0, 2, 4], dtype=np.int64)
    levels = np.array([[1, 1, 0], [0, 0, 1]], dtype=np.int64)
    return rel, off, levels


def test_kernels_check_their_memory_preconditions():
    rel, off, levels = _args()
    out = np.zeros(2)
    _usermodel.compat(rel, off, levels, 0.9, True, out)
    bad = [
        (np.array([0, 2, 5], dtype=np.int64), levels),          # beyond rel
        (np.array([0, 3, 2], dtype=np.int64), levels),          # decreasing
        (np.array([1, 2, 4], dtype=np.int64), levels),          # not from 0
        (np.array([], dtype=np.int64), levels),                 # empty
        (off, levels[:1]),                                      # levels rows
        (off, levels[:, :2]),                                   # grade 2 beyond levels
        (off, -levels),
    ]
    for o, lv in bad:
        for call in (lambda: _usermodel.compat(rel, o, lv, 0.9, True, out),
                     lambda: _usermodel.err(rel, o, lv, 5, 4, out, out),
                     lambda: _usermodel.cwl(rel, o, lv, "INST", 1.0, 0, 0, 2, 1000, out)):
            with pytest.raises(ValueError):
                call()
    with pytest.raises(ValueError):
        _usermodel.err(rel, off, levels, 5, 4, np.zeros(1), out)
    with pytest.raises(ValueError):      # more grade-2 documents than levels counts
        _usermodel.compat(np.array([2, 2], dtype=np.int32), np.array([0, 2], dtype=np.int64),
                          np.array([[0, 0, 1]], dtype=np.int64), 0.9, True, np.zeros(1))
    for m, T, k, lo, hi, d in [("X", 1.0, 1, 0, 2, 10), ("INST", 0.0, 1, 0, 2, 10), ("INST", 1.0, 1, 2, 2, 10),
                               ("INST", 1.0, 1, 0, 2, 0), ("BPM", 1.0, 0, 0, 2, 10)]:
        with pytest.raises(ValueError):
            _usermodel.cwl(rel, off, levels, m, T, k, lo, hi, d, out)


def test_ties_follow_trec_order():
    """Equal scores: trec_eval's order (document id descending), for every
    user-model measure, against the references above."""
    rng = np.random.default_rng(17)
    qrels, run = random_case(rng, 400, max_grade=3)
    names = {"INST(max_rel=3)": ("INST", None), "INSQ(max_rel=3)": ("INSQ", None), "BPM(max_rel=3)@5": ("BPM", 5),
             "SDCG(max_rel=3)@5": ("SDCG", 5), "NERR9(max_rel=3)@5": ("NERR9", 5)}
    got = ours(qrels, run, list(names) + ["Compat"])
    for q in got:
        ranking = sorted(sorted(run[q], reverse=True), key=lambda d: -run[q][d])
        gains = [min(max(qrels[q].get(d, 0), 0), 3) / 3 if d in qrels[q] else 0.0 for d in ranking]
        for name, (measure, k) in names.items():
            assert got[q][name] == pytest.approx(cwl_ref(gains, measure, k=k), abs=1e-12)
        # ties in the reference's ranking order: pass it distinct scores in trec order
        trec_scores = {d: float(len(ranking) - i) for i, d in enumerate(ranking)}
        assert got[q]["Compat"] == pytest.approx(compat_ref(qrels[q], trec_scores, 0.95, True), abs=1e-12)


# ---------------------------------------------------------------- huge parameters

def test_err_huge_cutoff_and_max_rel():
    """A cutoff past every ranking and ideal (2**62 or more) is the whole
    ranking, exactly; max_rel beyond the kernel's 1..1000 is a ValueError
    naming it (both were OverflowErrors from the kernel's int64)."""
    qrels, run = random_case(np.random.default_rng(3), 50)
    names = ["ERR@99999999999999999999", "nERR@99999999999999999999", "ERR@9223372036854775807", "ERR", "nERR"]
    r = irscore.evaluate(qrels, run, names, per_query=True)
    assert r["ERR@99999999999999999999"] == r["ERR"] == r["ERR@9223372036854775807"]
    nerr = r["nERR@99999999999999999999"]
    assert all(nerr[q] == v or (math.isnan(nerr[q]) and math.isnan(v)) for q, v in r["nERR"].items())
    for name in ["ERR(max_rel=10000000000000000000000)@5", "ERR(max_rel=1001)@5", "nERR(max_rel=99999999999999999999)"]:
        with pytest.raises(ValueError, match="max_rel must be an integer in 1..1000"):
            irscore.evaluate(qrels, run, name)


def test_cwl_huge_parameters():
    """The C/W/L cutoff is read only as "position < cutoff" over the model's
    depth: a cutoff past depth + 1 changes nothing; depth (which the work
    follows) above 10**7, and grades beyond +-2**62, are ValueErrors naming
    them (they were OverflowErrors from the kernel's int64)."""
    qrels, run = random_case(np.random.default_rng(4), 40, max_grade=3)
    big = "99999999999999999999"
    for m in ("SDCG", "BPM", "NERR8", "NERR9"):
        r = irscore.evaluate(qrels, run, [f"{m}@{big}", f"{m}@1001"], per_query=True)
        assert r[f"{m}@{big}"] == r[f"{m}@1001"], m
    for name, arg in [(f"INST(depth={big})", "depth"), ("INSQ(depth=10000001)", "depth"),
                      (f"SDCG(max_rel={big})@5", "max_rel")]:
        with pytest.raises(ValueError, match=f"{arg} must be an integer"):
            irscore.evaluate(qrels, run, name)


_DEEP_MODELS = r'''
import sys, time
sys.path.insert(0, sys.argv[1])  # this test file's folder
import numpy as np
import irscore
from test_usermodel import random_case
qrels, run = random_case(np.random.default_rng(5), 200, max_grade=3)
t = time.perf_counter()
r = irscore.evaluate(qrels, run, ["NERR10(depth=10000000)", "NERR10(depth=1000)", "NERR10(p=0.99,depth=10000000)",
                                  "NERR10(p=0.99,depth=100000)"], per_query=True)
assert r["NERR10(depth=10000000)"] == r["NERR10(depth=1000)"]
assert r["NERR10(p=0.99,depth=10000000)"] == r["NERR10(p=0.99,depth=100000)"]
print("ok", time.perf_counter() - t)
'''


def test_cwl_depth_past_the_converged_sums_costs_nothing():
    """Past the ranking a C/W/L model's sums stop changing (geometrically for
    NERR10): the loop ends there with the value it would reach at ``depth``,
    so NERR10(depth=10**7) on 200 queries takes what depth 1000 takes (it ran
    10**7 positions per query)."""
    import os
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-c", _DEEP_MODELS, os.path.dirname(os.path.abspath(__file__))], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("ok"), proc.stderr[-2000:]
