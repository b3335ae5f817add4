"""Intent-aware measures of ndeval (docs/web_diversity.md): a hand-worked
example, readers (file, dict, tuples, DataFrame), differential runs against
ndeval through pyndeval (ir_measures' provider), ties, bad input and the
kernel's own checks."""
import math

import numpy as np
import pytest

from irscore import _diversity, diversity

# a relevant to intent 1; b to intents 1 and 2; c to intent 2; d judged, not relevant
JUDGMENTS = [("1", "1", "a", 1), ("1", "1", "b", 1), ("1", "2", "b", 2), ("1", "2", "c", 1), ("1", "2", "d", 0)]
RUN = {"1": {"a": 3.0, "b": 2.0, "c": 1.0}}


def test_hand_worked_example():
    names = ["alpha_DCG@3", "alpha_nDCG@3", "ERR_IA@3", "P_IA@2", "StRecall@1", "AP_IA", "NRBP",
             "alpha_nDCG(rel=2)@2"]
    r = diversity.evaluate(JUDGMENTS, RUN, names)
    # novelty-discounted gains (alpha = 0.5): a 1; b 0.5 + 1; c 0.5
    dcg = 1 + 1.5 / math.log2(3) + 0.5 / 2
    # "ideal ideal" of 2 intents: 2, 1, 0.5
    assert r["alpha_DCG@3"] == pytest.approx(dcg / (2 + 1 / math.log2(3) + 0.5 / 2))
    # greedy ideal: b (2), then a and c tie at 0.5 -> c (document id descending), then a (0.5)
    assert r["alpha_nDCG@3"] == pytest.approx(dcg / (2 + 0.5 / math.log2(3) + 0.5 / 2))
    assert r["ERR_IA@3"] == pytest.approx((1 + 1.5 / 2 + 0.5 / 3) / (2 + 1 / 2 + 0.5 / 3))
    assert r["P_IA@2"] == pytest.approx(3 / 4)
    assert r["StRecall@1"] == pytest.approx(1 / 2)
    assert r["AP_IA"] == pytest.approx(((1 + 1) / 2 + (1 / 2 + 2 / 3) / 2) / 2)
    assert r["NRBP"] == pytest.approx((1 + 1.5 * 0.5 + 0.5 * 0.25) * (1 - 0.5 * 0.5) / 2)
    # rel=2: only b for intent 2 is relevant; one intent; ideal b
    assert r["alpha_nDCG(rel=2)@2"] == pytest.approx((1 / math.log2(3)) / 1.0)


def test_readers_agree(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("".join(f"{q} {t} {d} {g}\n" for q, t, d, g in JUDGMENTS))
    nested = {}
    for q, t, d, g in JUDGMENTS:
        nested.setdefault(q, {}).setdefault(t, {})[d] = g
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(JUDGMENTS, columns=["query_id", "iteration", "doc_id", "relevance"])
    want = diversity.evaluate(JUDGMENTS, RUN, ["alpha_nDCG@3", "NRBP"])
    for source in (str(path), path, nested, frame, diversity.read_diversity_qrels(path)):
        assert diversity.evaluate(source, RUN, ["alpha_nDCG@3", "NRBP"]) == want


def test_bad_input(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("1 1 a 1\n1 1 b\n")
    with pytest.raises(ValueError, match="bad.txt:2"):
        diversity.read_diversity_qrels(bad)
    bad.write_text("1 1 a x\n")
    with pytest.raises(ValueError, match="bad.txt:1"):
        diversity.read_diversity_qrels(bad)
    for name in ["alpha_nDCG", "NRBP@5", "alpha_nDCG(alpha=2)@5", "alpha_nDCG(beta=0.5)@5", "nope@5",
                 "P_IA(rel=-1)@5", "NRBP(beta=1)"]:
        with pytest.raises(ValueError):
            diversity.evaluate(JUDGMENTS, RUN, name)
    with pytest.raises(ValueError, match="no queries"):
        diversity.evaluate(JUDGMENTS, {"9": {"a": 1.0}}, "NRBP")
    with pytest.raises(TypeError):
        diversity.as_diversity_qrels(3)


# ------------------------------------------------------------ differential (pyndeval)

def random_case(rng, n_queries, ties, max_intents=5):
    judgments, run = [], {}
    for q in range(n_queries):
        qid = str(100 + q)
        nd = int(rng.integers(1, 25))
        docs = [f"d{q}_{i}" for i in range(nd)]
        for t in range(int(rng.integers(1, max_intents + 1))):
            for d in docs:
                if rng.random() < 0.5:
                    judgments.append((qid, str(t), d, int(rng.integers(0, 3))))
        if rng.random() < 0.05:
            continue                                            # judged, not ranked
        pool = docs + [f"u{q}_{i}" for i in range(int(rng.integers(0, 10)))]     # unjudged
        k = int(rng.integers(1, len(pool) + 1))
        chosen = rng.choice(pool, size=k, replace=False)
        scores = rng.integers(0, 5, k).astype(float) if ties else rng.permutation(k) + 1.0
        run[qid] = {str(d): float(s) for d, s in zip(chosen, scores)}
    return judgments, run


NAMES = ["alpha_nDCG@5", "alpha_nDCG@20", "alpha_DCG@10", "ERR_IA@10", "ERR_IA@2", "nERR_IA@20", "P_IA@10",
         "StRecall@10", "NRBP", "nNRBP", "AP_IA", "alpha_nDCG(alpha=0.8)@10", "nNRBP(beta=0.8)",
         "alpha_nDCG(rel=2)@10"]


@pytest.mark.parametrize("ties", [False, True])
def test_agrees_with_pyndeval(ties):
    irm = pytest.importorskip("ir_measures")
    pytest.importorskip("pyndeval")
    rng = np.random.default_rng(21 + ties)
    judgments, run = random_case(rng, 1200, ties)
    ours = diversity.evaluate(judgments, run, NAMES, per_query=True)
    if ties:
        # pyndeval orders equal scores by document id ascending; irscore (as
        # trec_eval and ndeval -traditional) descending: hand it irscore's order
        run = {q: {d: float(-i) for i, d in enumerate(sorted(sorted(r, reverse=True), key=lambda d: -r[d]))}
               for q, r in run.items()}
    irq = [irm.Qrel(q, d, g, t) for q, t, d, g in judgments]
    prov = irm.providers.registry["pyndeval"]
    for name in NAMES:
        ref = {m.query_id: m.value for m in prov.evaluator([irm.parse_measure(name)], irq).iter_calc(run)}
        assert all(ref[q] == 0 or math.isnan(ref[q]) for q in ref if q not in ours[name])
        common = [q for q in ref if q in ours[name]]
        # ndeval's nNRBP is 0/0 = NaN without a relevant document; irscore 0, as every other measure
        same = [q for q in common if abs(ref[q] - ours[name][q]) <= 1e-9
                or (name.startswith("nNRBP") and math.isnan(ref[q]) and ours[name][q] == 0.0)]
        assert len(common) > 1000 and len(same) == len(common), (name, len(same), len(common))


ALPHAS = (0.1, 0.3, 0.7, 0.9)
_PYNDEVAL = {"alpha_nDCG": "alpha-nDCG", "nERR_IA": "nERR-IA", "alpha_DCG": "alpha-DCG", "ERR_IA": "ERR-IA",
             "NRBP": "NRBP", "nNRBP": "nNRBP", "P_IA": "P-IA", "StRecall": "strec", "AP_IA": "MAP-IA"}
_BASES = [("alpha_nDCG", 5), ("alpha_nDCG", 20), ("nERR_IA", 10), ("alpha_DCG", 10), ("ERR_IA", 20), ("NRBP", None),
          ("nNRBP", None), ("P_IA", 10), ("StRecall", 5), ("AP_IA", None)]


def test_line_order_does_not_change_the_values(tmp_path):
    """Intents are numbered in a canonical order (ndeval's: by number), so the
    sums over a document's intents, and the ties of the greedy ideal between
    them, are the same whatever the order of the judgment lines, for every
    alpha (with alpha = 0.5 every gain is exact; with the others the sums round)."""
    judgments, run = random_case(np.random.default_rng(3), 400, ties=False)
    names = [f"{m}(alpha={a})" + (f"@{k}" if k else "") for a in ALPHAS for m, k in _BASES]
    want = diversity.evaluate(judgments, run, names, per_query=True)
    for seed in range(4):
        shuffled = list(judgments)
        np.random.default_rng(seed).shuffle(shuffled)
        assert diversity.evaluate(shuffled, run, names, per_query=True) == want, seed
    path = tmp_path / "qrels.txt"
    path.write_text("".join(f"{q} {t} {d} {g}\n" for q, t, d, g in reversed(judgments)))
    assert diversity.evaluate(path, run, names, per_query=True) == want
    # numbers order numerically (ndeval's subtopic numbers), other ids after them
    dq = diversity.as_diversity_qrels([("q", "10", "a", 1), ("q", "x", "a", 1), ("q", "9", "b", 1),
                                       ("q", "010", "b", 1), ("q", "2", "a", 0)])
    assert dq.intents["q"] == ["2", "9", "010", "10", "x"]


@pytest.mark.parametrize("alpha", ALPHAS)
def test_agrees_with_pyndeval_for_every_alpha(alpha):
    """ndeval sums a document's gains in increasing subtopic number and breaks
    exact ties of the greedy ideal by the larger document id: irscore, with
    its intents in that order, makes the same sums and choices.  (pyndeval
    numbers intents by first appearance in its input, globally: it is given
    the judgments in intent order, as ndeval reads them.)"""
    pyndeval = pytest.importorskip("pyndeval")
    judgments, run = random_case(np.random.default_rng(int(alpha * 10)), 1200, ties=False, max_intents=12)
    names = [f"{m}(alpha={alpha})" + (f"@{k}" if k else "") for m, k in _BASES]
    shuffled = list(judgments)
    np.random.default_rng(1).shuffle(shuffled)
    ours = diversity.evaluate(shuffled, run, names, per_query=True)
    keys = [_PYNDEVAL[m] + (f"@{k}" if k else "") for m, k in _BASES]
    ev = pyndeval.RelevanceEvaluator(sorted(judgments, key=lambda j: int(j[1])), keys, alpha=alpha)
    ref = ev.evaluate([(q, d, s) for q, r in run.items() for d, s in r.items()])
    for name, key in zip(names, keys):
        common = [q for q in ref if q in ours[name]]
        same = [q for q in common if abs(ref[q][key] - ours[name][q]) <= 1e-9
                or (key == "nNRBP" and math.isnan(ref[q][key]) and ours[name][q] == 0.0)]
        assert len(common) > 1000 and len(same) == len(common), (name, len(same), len(common))


def test_kernel_checks_its_memory_preconditions():
    off = np.array([0, 3], dtype=np.int64)                  # one ranking of 3 documents
    jo = np.array([0, 2], dtype=np.int64)                   # its judged ones: positions 0, 1 (rows 0, 1)
    jpos = np.array([0, 1], dtype=np.int64)
    jrow = np.array([0, 1], dtype=np.int32)
    row_off = np.array([0, 2], dtype=np.int64)
    int_off = np.array([0, 1, 3], dtype=np.int64)
    intent = np.array([0, 0, 1], dtype=np.int32)
    grade = np.array([1, 1, 1], dtype=np.int32)
    nint = np.array([2], dtype=np.int64)
    cuts = np.array([2, 5], dtype=np.int64)
    out = np.zeros((1, 15))
    args = dict(off=off, jo=jo, jpos=jpos, jrow=jrow, row_off=row_off, int_off=int_off, intent=intent,
                grade=grade, nint=nint, cuts=cuts, out=out)

    def call(**kw):
        a = {**args, **kw}
        _diversity.diversity(a["off"], a["jo"], a["jpos"], a["jrow"], a["row_off"], a["int_off"], a["intent"],
                             a["grade"], a["nint"], 1, 0.5, 0.5, a["cuts"], True, True, a["out"])
    call()
    assert out[0, 1] > 0
    for kw in [dict(jrow=np.array([0, 2], dtype=np.int32)),            # row beyond the query's rows
               dict(jo=np.array([0, 3], dtype=np.int64)),               # beyond judged_pos
               dict(jpos=np.array([0], dtype=np.int64)),                # judged_pos, judged_row differ
               dict(jo=np.array([1, 2], dtype=np.int64)),               # not starting at 0
               dict(off=np.array([0, 3, 2], dtype=np.int64)),           # more queries than the others
               dict(row_off=np.array([0, 3], dtype=np.int64)),          # beyond int_off
               dict(int_off=np.array([0, 1, 4], dtype=np.int64)),       # beyond intent
               dict(int_off=np.array([0, 2, 1], dtype=np.int64)),       # decreasing
               dict(intent=np.array([0, 0, 2], dtype=np.int32)),        # intent beyond n_intents
               dict(intent=np.array([0, -1, 0], dtype=np.int32)),       # negative intent
               dict(nint=np.array([2, 2], dtype=np.int64)),
               dict(cuts=np.array([5, 2], dtype=np.int64)),
               dict(cuts=np.array([0], dtype=np.int64)),
               dict(out=np.zeros((1, 14))),
               dict(grade=np.array([1, 1], dtype=np.int32))]:
        with pytest.raises(ValueError):
            call(**kw)


def test_irscore_evaluate_shares_the_join():
    """A DiversityQrels given to irscore.evaluate: the diversity measures by
    name beside every other measure (grades: the largest over the intents)."""
    import irscore

    rng = np.random.default_rng(5)
    judgments, run = random_case(rng, 200, ties=True)
    dq = diversity.as_diversity_qrels(judgments)
    names = ["alpha_nDCG@10", "ERR_IA@5", "NRBP", "nNRBP(beta=0.8)", "AP_IA", "P_IA(rel=2)@5"]
    both = irscore.evaluate(dq, run, ["map", "ERR@10"] + names, per_query=True)
    alone = diversity.evaluate(dq, run, names, per_query=True)
    for name in names:
        assert both[name] == pytest.approx(alone[name], abs=1e-15)
    best = {}
    for q, t, d, g in judgments:
        best.setdefault(q, {})[d] = max(g, best.get(q, {}).get(d, g))
    plain = irscore.evaluate(best, run, ["map", "ERR@10"], per_query=True)
    assert both["map"] == pytest.approx(plain["map"], abs=1e-15)
    assert both["ERR@10"] == pytest.approx(plain["ERR@10"], abs=1e-15)
    assert irscore.evaluate(dq, run, "alpha_nDCG@10") == pytest.approx(
        diversity.evaluate(dq, run, "alpha_nDCG@10"), abs=1e-15)
    # without intents: a clear error
    with pytest.raises(ValueError, match="intent-level"):
        irscore.evaluate(best, run, "alpha_nDCG@10")
    # complete=True: a judged query without a ranking scores 0
    res = irscore.evaluate(dq, run, ["alpha_nDCG@10", "NRBP"], per_query=True, complete=True)
    missing = [q for q in dq.query_ids if q not in run]
    assert missing and all(res["alpha_nDCG@10"][q] == 0 and res["NRBP"][q] == 0 for q in missing)


def test_one_join_under_the_join_options():
    """The one join of a DiversityQrels (grades and the rows of the judged
    ranked documents together) under ``judged_only`` and ``max_docs``: the
    classic measures equal those of the same judgments without intents
    (negative grades included: judged_only drops those documents from both),
    and the diversity measures equal those of the run filtered or cut by hand."""
    import irscore

    rng = np.random.default_rng(11)
    judgments, run = random_case(rng, 150, ties=True)
    judgments = [(q, t, d, -1 if rng.random() < 0.15 else g) for q, t, d, g in judgments]
    dq = diversity.as_diversity_qrels(judgments)
    best = {}
    for q, t, d, g in judgments:
        best.setdefault(q, {})[d] = max(g, best.get(q, {}).get(d, g))
    classic = ["map", "P_10", "num_ret", "num_rel_ret", "ERR@10", "bpref"]
    div = ["alpha_nDCG@5", "ERR_IA@10", "NRBP", "AP_IA", "P_IA@3"]

    def order(r):           # rank order: score descending, equal scores by document id descending
        return sorted(sorted(r, reverse=True), key=lambda d: -r[d])

    kept = {q: {d: s for d, s in r.items() if best.get(q, {}).get(d, -1) >= 0} for q, r in run.items()}
    top = {q: {d: r[d] for d in order(r)[:4]} for q, r in run.items()}
    for opts, same_run in [({"judged_only": True}, kept), ({"max_docs": 4}, top)]:
        ours = irscore.evaluate(dq, run, classic + div, per_query=True, **opts)
        plain = irscore.evaluate(best, run, classic, per_query=True, **opts)
        for name in classic:
            assert ours[name] == plain[name], (opts, name)
        by_hand = diversity.evaluate(dq, {q: r for q, r in same_run.items() if r}, div, per_query=True)
        for name in div:
            assert all(ours[name][q] == v for q, v in by_hand[name].items()), (opts, name)
            assert all(v == 0 for q, v in ours[name].items() if q not in by_hand[name]), (opts, name)


def test_threads_do_not_change_the_values():
    """The kernel runs on query ranges in threads (n_jobs): same values."""
    import irscore

    judgments, run = random_case(np.random.default_rng(12), 300, ties=True)
    dq = diversity.as_diversity_qrels(judgments)
    names = ["alpha_nDCG@20", "ERR_IA@5", "NRBP", "AP_IA", "ERR@10"]
    one = irscore.evaluate(dq, run, names, per_query=True, n_jobs=1)
    for n_jobs in (2, 3, 7):
        assert irscore.evaluate(dq, run, names, per_query=True, n_jobs=n_jobs) == one


def test_cli_intents(tmp_path, capsys):
    from irscore.cli import main

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} {t} {d} {g}\n" for q, t, d, g in JUDGMENTS))
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 3.0 r\n1 Q0 b 2 2.0 r\n1 Q0 c 3 1.0 r\n")
    assert main(["eval", "--intents", "-m", "alpha_nDCG@3", "-m", "P@2", str(qrels), str(run)]) == 0
    out = capsys.readouterr().out
    want = diversity.evaluate(JUDGMENTS, RUN, "alpha_nDCG@3")["alpha_nDCG@3"]
    assert f"{want:.4f}" in out and "P@2" in out
    assert main(["eval", "-m", "alpha_nDCG@3", str(qrels), str(run)]) == 2
    assert "--intents" in capsys.readouterr().err


def test_more_than_64_intents_agree_with_pyndeval():
    """Past 64 intents the greedy ideal takes every document on its own."""
    irm = pytest.importorskip("ir_measures")
    pytest.importorskip("pyndeval")
    rng = np.random.default_rng(9)
    judgments, run = [], {}
    for q in range(30):
        qid = str(500 + q)
        docs = [f"d{i}" for i in range(40)]
        for t in range(int(rng.integers(60, 80))):
            for d in rng.choice(docs, size=3, replace=False):
                judgments.append((qid, str(t), str(d), int(rng.integers(0, 2))))
        chosen = rng.choice(docs + ["u1", "u2"], size=25, replace=False)
        run[qid] = {str(d): float(s) for d, s in zip(chosen, rng.permutation(25) + 1.0)}
    names = ["alpha_nDCG@10", "nERR_IA@20", "nNRBP"]
    ours = diversity.evaluate(judgments, run, names, per_query=True)
    irq = [irm.Qrel(q, d, g, t) for q, t, d, g in judgments]
    prov = irm.providers.registry["pyndeval"]
    for name in names:
        ref = {m.query_id: m.value for m in prov.evaluator([irm.parse_measure(name)], irq).iter_calc(run)}
        assert len(ref) == 30
        assert all(abs(ref[q] - ours[name][q]) <= 1e-9 for q in ref), name


_HUGE_CUTOFFS = r'''
import sys
sys.path.insert(0, sys.argv[1])  # this test file's folder
import numpy as np
from irscore import diversity
from test_diversity import random_case
judgments, run = random_case(np.random.default_rng(6), 60, ties=True)
dq = diversity.as_diversity_qrels(judgments)
big = [2 ** 63 - 1, 10 ** 8]
names = [f"{m}@{k}" for k in big for m in ("alpha_nDCG", "nERR_IA", "alpha_DCG", "ERR_IA", "P_IA", "StRecall")]
names += ["alpha_DCG(alpha=0.01)@9223372036854775807", "alpha_nDCG(alpha=0)@9223372036854775807"]
got = diversity.evaluate(dq, run, names, per_query=True)
# every ranking and every ideal ends before rank 100: the values at 100 carry over
near = diversity.evaluate(dq, run, [n.replace("@9223372036854775807", "@100").replace("@100000000", "@100")
                                    for n in names], per_query=True)
for name in names:
    short = name.replace("@9223372036854775807", "@100").replace("@100000000", "@100")
    for q, v in got[name].items():
        if name.startswith("P_IA"):          # relevant pairs / (k M): only k changes
            k = 2 ** 63 - 1 if "@9223" in name else 10 ** 8
            assert v == near[short][q] * 100 / k or abs(v - near[short][q] * 100 / k) <= 1e-15 * v, (name, q)
        elif name.startswith(("alpha_DCG", "ERR_IA")):    # the ideal-ideal sums are final by rank 100 * 37
            assert v <= near[short][q], (name, q)
        else:
            assert v == near[short][q], (name, q)
alone = diversity.evaluate(dq, run, ["alpha_DCG@4000", "ERR_IA@4000"], per_query=True)
assert got["alpha_DCG@9223372036854775807"] == alone["alpha_DCG@4000"]
assert got["ERR_IA@9223372036854775807"] == alone["ERR_IA@4000"]
print("ok")
'''


def test_huge_cutoffs_cost_no_more_than_the_input():
    """Past the end of a ranking nothing more is gained, and the greedy ideal
    ends with the judged documents: a cutoff of 2**63 - 1 takes the time of a
    short one (the work used to run to the cutoff: 10**8 took seconds, 2**63 - 1
    never ended).  alpha-DCG and ERR-IA normalise by the ideal-ideal sums to
    k, which stop changing in double precision (with alpha = 0.5 after about
    55 ranks): their values at 2**63 - 1 equal those at 4,000."""
    import os
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-c", _HUGE_CUTOFFS, os.path.dirname(os.path.abspath(__file__))], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]


def test_cutoffs_out_of_range_are_value_errors():
    import irscore

    dq = diversity.as_diversity_qrels(JUDGMENTS)
    for evaluate in (diversity.evaluate, irscore.evaluate):
        with pytest.raises(ValueError, match="cutoff must be at most 2\\*\\*63 - 1"):
            evaluate(dq, RUN, "alpha_nDCG@99999999999999999999")
        # alpha = 0: the ideal-ideal sums never stop changing; the stated limit is 2**20 ranks
        with pytest.raises(ValueError, match="alpha_DCG.*still changes at rank 1048576"):
            evaluate(dq, RUN, "alpha_DCG(alpha=0)@1048577")
        with pytest.raises(ValueError, match="ERR_IA.*still changes at rank 1048576"):
            evaluate(dq, RUN, "ERR_IA(alpha=0)@9223372036854775807")
    # a relevance level above every int32 grade: nothing is relevant (was an OverflowError)
    assert diversity.evaluate(dq, RUN, "P_IA(rel=99999999999999999999)@5") == {"P_IA(rel=99999999999999999999)@5": 0}
    # the measures that do not read those sums are computed
    r = diversity.evaluate(dq, RUN, ["alpha_nDCG(alpha=0)@9223372036854775807", "alpha_DCG(alpha=0)@1048576"])
    want = diversity.evaluate(dq, RUN, ["alpha_nDCG(alpha=0)@3"])["alpha_nDCG(alpha=0)@3"]
    assert r["alpha_nDCG(alpha=0)@9223372036854775807"] == want and r["alpha_DCG(alpha=0)@1048576"] > 0


def _reference(judgments, ranking, k, alpha, level=1):
    """alpha-DCG@k, alpha-nDCG@k, ERR-IA@k, nERR-IA@k, P-IA@k, StRecall@k
    of one query from the definitions (docs/web_diversity.md), in plain
    Python: intents in increasing number, the greedy ideal over every judged
    document (ties: the larger document id), rank by rank to k."""
    rel = {}
    for t, d, g in judgments:
        if g >= level:
            rel.setdefault(d, set()).add(int(t))
    intents = sorted({t for ts in rel.values() for t in ts})
    M = len(intents)
    if M == 0:
        return (0.0,) * 6

    def gains(order):
        seen = dict.fromkeys(intents, 0)
        out = []
        for d in order:
            s = 0.0
            for t in sorted(rel.get(d, ())):
                s += (1 - alpha) ** seen[t]
                seen[t] += 1
            out.append(s)
        return out

    def sums(g):
        dcg = sum(x * math.log(2) / math.log(r + 2) for r, x in enumerate(g[:k]))
        err = sum(x / (r + 1) for r, x in enumerate(g[:k]))
        return dcg, err

    left, ideal, seen = sorted(rel, reverse=True), [], dict.fromkeys(intents, 0)
    while left and len(ideal) < k:
        best = max(left, key=lambda d: (sum((1 - alpha) ** seen[t] for t in sorted(rel[d])), d))
        ideal.append(best)
        left.remove(best)
        for t in rel[best]:
            seen[t] += 1
    dcg, err = sums(gains(ranking))
    idcg, ierr = sums(gains(ideal))
    ii_dcg = sum(M * (1 - alpha) ** r * math.log(2) / math.log(r + 2) for r in range(min(k, 20000)))
    ii_err = sum(M * (1 - alpha) ** r / (r + 1) for r in range(min(k, 20000)))
    pairs = sum(len(rel.get(d, ())) for d in ranking[:k])
    covered = len({t for d in ranking[:k] for t in rel.get(d, ())})
    return (dcg / ii_dcg, dcg / idcg if dcg else 0.0, err / ii_err, err / ierr if err else 0.0, pairs / (k * M),
            covered / M)


@pytest.mark.parametrize("alpha", [0.5, 0.2, 0.9])
def test_cutoffs_past_the_ranking_match_the_definitions(alpha):
    """Cutoffs below, at and past the end of each ranking (up to 10**18)
    against the definitions computed rank by rank in plain Python."""
    judgments, run = random_case(np.random.default_rng(30 + int(alpha * 10)), 60, ties=False)
    per_query = {}
    for q, t, d, g in judgments:
        per_query.setdefault(q, []).append((t, d, g))
    bases = ["alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA", "P_IA", "StRecall"]
    for k in (1, 3, 7, 30, 200, 10 ** 18):
        names = [f"{b}(alpha={alpha})@{k}" for b in bases]
        got = diversity.evaluate(judgments, run, names, per_query=True)
        for q in got[names[0]]:
            ranking = sorted(run[q], key=lambda d: -run[q][d])
            want = _reference(per_query[q], ranking, k, alpha)
            for name, w in zip(names, want):
                assert got[name][q] == pytest.approx(w, rel=1e-12, abs=1e-300), (name, q)
