"""sentence-transformers' InformationRetrievalEvaluator reproduced by irscore names:
MAP@k (``AP(denominator=min_k_R)@k``: the precisions at the relevant documents
of the top k over min(k, R), where irscore's ``AP@k`` divides by R), MRR@k
(``RR@k``), Precision@k, Recall@k, Accuracy@k (``Success@k``) and NDCG@k, with
its ranking (a stable sort by score: ``ties="input"``).

The reference below is written from the evaluator's definitions (binary
relevance: a document is relevant when it is in the query's set).
"""
from __future__ import annotations

import math
import random
from typing import Dict, List, Set, Tuple

import pytest

import irscore
from irscore.core.measures import parse_measure


def st_metrics(ranked: List[str], relevant: Set[str], k: int) -> Dict[str, float]:
    """One query's values as sentence-transformers defines them."""
    top = ranked[:k]
    hits = [d in relevant for d in top]
    num_correct, sum_precisions = 0, 0.0
    for rank, hit in enumerate(hits):
        if hit:
            num_correct += 1
            sum_precisions += num_correct / (rank + 1)
    rr = next((1.0 / (rank + 1) for rank, hit in enumerate(hits) if hit), 0.0)
    dcg = sum(int(h) / math.log2(i + 2) for i, h in enumerate(hits))
    idcg = sum(1 / math.log2(i + 2) for i in range(min(len(relevant), k)))
    return {f"map@{k}": sum_precisions / min(k, len(relevant)), f"mrr@{k}": rr,
            f"precision@{k}": sum(hits) / k, f"recall@{k}": sum(hits) / len(relevant),
            f"accuracy@{k}": float(any(hits)), f"ndcg@{k}": dcg / idcg}


OURS = {"map": "AP(denominator=min_k_R)@{k}", "mrr": "RR@{k}", "precision": "P@{k}", "recall": "R@{k}",
        "accuracy": "Success@{k}", "ndcg": "nDCG@{k}"}


def random_case(seed: int, n_queries: int) -> Tuple[Dict[str, Dict[str, int]], Dict[str, Dict[str, float]]]:
    """Every query has 1..12 relevant documents among 40 candidates; scores on a
    coarse grid, so many are equal (ranked in the dict's order)."""
    rng = random.Random(seed)
    qrels, run = {}, {}
    for qi in range(n_queries):
        docs = [f"c{j}" for j in range(40)]
        rng.shuffle(docs)
        qrels[f"q{qi}"] = {d: 1 for d in rng.sample(docs, rng.randint(1, 12))}
        run[f"q{qi}"] = {d: round(rng.random(), 1) for d in docs[: rng.randint(5, 40)]}
    return qrels, run


@pytest.mark.parametrize("k", [1, 3, 5, 10, 100])
def test_evaluator_metrics_reproduced(k):
    qrels, run = random_case(k, 300)
    names = [OURS[m].format(k=k) for m in OURS]
    ours = irscore.evaluate(qrels, run, names, per_query=True, ties="input")
    n_min = 0
    for q, docs in run.items():
        ranked = [d for d, _ in sorted(docs.items(), key=lambda item: item[1], reverse=True)]
        want = st_metrics(ranked, set(qrels[q]), k)
        for m, name in OURS.items():
            assert ours[name.format(k=k)][q] == pytest.approx(want[f"{m}@{k}"], abs=1e-12), (m, k, q)
        n_min += len(qrels[q]) > k
    # the two AP@k denominators differ wherever R > k
    if k < 12:
        ap = irscore.evaluate(qrels, run, [f"AP@{k}", f"AP(denominator=min_k_R)@{k}"], per_query=True, ties="input")
        assert n_min > 0
        assert sum(ap[f"AP@{k}"][q] != ap[f"AP(denominator=min_k_R)@{k}"][q] for q in run) > 0


def test_hand_example():
    qrels = {"q": {"a": 1, "b": 1, "c": 1, "d": 1}}
    run = {"q": {"a": 4.0, "x": 3.0, "b": 2.0, "y": 1.0}}
    r = irscore.evaluate(qrels, run, ["AP@2", "AP(denominator=min_k_R)@2", "AP(denominator=min_k_R)@10",
                                      "map_cut_min_2"])
    assert r["AP@2"] == pytest.approx(1 / 4)                               # 1/1 over R = 4
    assert r["AP(denominator=min_k_R)@2"] == pytest.approx(1 / 2)          # over min(2, 4)
    assert r["AP(denominator=min_k_R)@10"] == pytest.approx((1 + 2 / 3) / 4)
    assert r["map_cut_min_2"] == r["AP(denominator=min_k_R)@2"]
    assert irscore.evaluate({"q": {"a": 0}}, {"q": {"a": 1.0}}, "AP(denominator=min_k_R)@5") == \
        {"AP(denominator=min_k_R)@5": 0.0}                                 # no relevant document: 0


@pytest.mark.parametrize("name", ["AP(denominator=min_k_R)@10", "AP(rel=2,denominator=min_k_R)@5",
                                  "AP(denominator=min_k_R,judged_only=True)@3"])
def test_round_trip(name):
    m = parse_measure(name)
    assert parse_measure(str(m)) == m
    assert str(m).startswith("AP(") and "denominator=min_k_R" in str(m)


def test_denominator_R_is_trec_eval_ap_at_k():
    assert parse_measure("AP(denominator=R)@10") == parse_measure("map_cut_10")


@pytest.mark.parametrize("bad,msg", [("AP(denominator=min_k_R)", "needs a cutoff"),
                                     ("AP(denominator=k)@10", "denominator"),
                                     ("P(denominator=min_k_R)@10", "denominator")])
def test_bad_names(bad, msg):
    with pytest.raises(ValueError, match=msg):
        parse_measure(bad)
