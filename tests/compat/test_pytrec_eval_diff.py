"""Differential test against pytrec_eval (trec_eval 9.x) on thousands of random
queries, for every measure where trec_eval 9 and 10 agree (iprec_at_recall and
11pt_avg changed their rounding in 10 and are checked against trec_eval 10's own
outputs instead)."""
import random

import numpy as np
import pytest

import irscore

pytrec_eval = pytest.importorskip("pytrec_eval")

MEASURES = ["map", "P_5", "P_10", "P_30", "recall_10", "recall_100", "ndcg", "ndcg_cut_5",
            "ndcg_cut_10", "recip_rank", "Rprec", "bpref", "set_P", "set_recall", "set_F",
            "set_map", "set_relative_P", "success_1", "success_5", "infAP", "num_ret", "num_rel",
            "num_rel_ret", "num_nonrel_judged_ret", "map_cut_10", "map_cut_100", "relative_P_10",
            "binG", "G", "ndcg_rel", "Rndcg", "utility", "Rprec_mult_0.20", "Rprec_mult_1.00",
            "Rprec_mult_2.00"]


def random_case(seed: int, n_queries: int):
    rng = random.Random(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        n_docs = rng.randint(1, 80)
        docs = [f"d{rng.randint(0, 150)}" for _ in range(n_docs)]
        judged = rng.sample(docs, rng.randint(0, len(docs)))
        max_grade = rng.choice([1, 1, 2, 3, 4])
        qrels[qid] = {d: rng.randint(0, max_grade) for d in judged}
        qrels[qid].update({f"x{i}": rng.randint(0, max_grade) for i in range(rng.randint(0, 10))})
        if not qrels[qid]:
            qrels[qid] = {"x0": 1}
        digits = rng.choice([1, 2, 6])
        run[qid] = {d: round(rng.uniform(-5, 5), digits) for d in docs}
    return qrels, run


@pytest.mark.parametrize("level", [1, 2])
def test_against_pytrec_eval(level):
    qrels, run = random_case(1234 + level, 2500)
    families = sorted({m.rsplit("_", 1)[0] if m[-1].isdigit() and "_" in m else m for m in MEASURES})
    ev = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES) | set(families), relevance_level=level)
    want = ev.evaluate(run)
    got = irscore.evaluate(qrels, run, MEASURES, per_query=True, relevance_level=level)
    checked = 0
    for m in MEASURES:
        for qid, vals in want.items():
            assert got[m][qid] == pytest.approx(vals[m], abs=1e-9), (m, qid)
            checked += 1
    assert checked == len(MEASURES) * 2500


def test_ir_measures_aliases_equal_trec_names():
    qrels, run = random_case(99, 300)
    names = {"AP": "map", "P@10": "P_10", "nDCG@10": "ndcg_cut_10", "RR": "recip_rank",
             "R@100": "recall_100", "nDCG": "ndcg", "Rprec": "Rprec", "Bpref": "bpref",
             "Success@5": "success_5", "AP@100": "map_cut_100", "NumRelRet": "num_rel_ret",
             "IPrec@0.5": "iprec_at_recall_0.50", "SetP": "set_P", "infAP": "infAP"}
    got = irscore.evaluate(qrels, run, list(names) + list(names.values()))
    for alias, trec in names.items():
        assert got[alias] == got[trec], alias


def test_rel_parameter_equals_relevance_level():
    qrels, run = random_case(7, 300)
    a = irscore.evaluate(qrels, run, ["P(rel=2)@5", "AP(rel=2)", "R(rel=3)@20"], per_query=True)
    b = irscore.evaluate(qrels, run, ["P_5", "map"], per_query=True, relevance_level=2)
    c = irscore.evaluate(qrels, run, ["recall_20"], per_query=True, relevance_level=3)
    assert a["P(rel=2)@5"] == b["P_5"]
    assert a["AP(rel=2)"] == b["map"]
    assert a["R(rel=3)@20"] == c["recall_20"]
    assert any(v != 0 for v in a["P(rel=2)@5"].values())


def test_summary_is_mean_of_per_query():
    qrels, run = random_case(8, 400)
    per_q = irscore.evaluate(qrels, run, ["map", "ndcg_cut_10", "num_rel_ret"], per_query=True)
    summ = irscore.evaluate(qrels, run, ["map", "ndcg_cut_10", "num_rel_ret"])
    assert summ["map"] == pytest.approx(np.mean(list(per_q["map"].values())), abs=1e-12)
    assert summ["ndcg_cut_10"] == pytest.approx(np.mean(list(per_q["ndcg_cut_10"].values())), abs=1e-12)
    assert summ["num_rel_ret"] == sum(per_q["num_rel_ret"].values())


def test_thread_count_does_not_change_results():
    qrels, run = random_case(11, 3000)
    names = ["map", "ndcg_cut_10", "P_10", "recip_rank", "bpref", "num_rel_ret"]
    one = irscore.evaluate(qrels, run, names, per_query=True, n_jobs=1)
    for jobs in (2, 3, 7):
        assert irscore.evaluate(qrels, run, names, per_query=True, n_jobs=jobs) == one
