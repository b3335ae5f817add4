"""Hole@k as BEIR and MTEB compute it: per query, the documents of the top k that
appear in no query's judgments, divided by k (also when the ranking is shorter
than k); the mean over the queries.  The oracle below re-states BEIR's
``custom_metrics.hole`` (MTEB's ``hole`` is the same per query)."""
import numpy as np
import pytest

import irscore

CUTOFFS = (1, 3, 5, 10, 100)


def _beir_hole(qrels, results, k_values):
    """Per query and mean, as BEIR: annotated = every document of any query's qrels (any grade)."""
    annotated = {doc for docs in qrels.values() for doc in docs}
    per_query = {}
    for qid, scores in results.items():
        top = sorted(scores.items(), key=lambda item: item[1], reverse=True)[0:max(k_values)]
        per_query[qid] = {k: len([d for d, _ in top[0:k] if d not in annotated]) / k for k in k_values}
    mean = {k: round(sum(v[k] for v in per_query.values()) / len(results), 5) for k in k_values}
    return per_query, mean


def _random_case(rng, nq, n_docs):
    qrels, run = {}, {}
    pool = [f"d{j}" for j in range(n_docs)]
    for q in range(nq):
        qid = f"q{q}"
        judged = rng.choice(n_docs, size=int(rng.integers(1, 15)), replace=False)
        qrels[qid] = {pool[j]: int(rng.integers(-1, 3)) for j in judged}
        ranked = rng.choice(n_docs, size=int(rng.integers(1, 60)), replace=False)
        scores = rng.permutation(len(ranked)).astype(float)       # distinct scores: BEIR's order is irscore's
        run[qid] = {pool[j]: s for j, s in zip(ranked, scores)}
    return qrels, run


@pytest.mark.parametrize("seed", range(3))
def test_hole_equals_beirs_formula(seed):
    rng = np.random.default_rng(seed)
    qrels, run = _random_case(rng, 400, 300)
    names = [f"Hole@{k}" for k in CUTOFFS]
    got = irscore.evaluate(qrels, run, names, per_query=True)
    want, mean = _beir_hole(qrels, run, list(CUTOFFS))
    for qid in qrels:
        for k, name in zip(CUTOFFS, names):
            assert got[name][qid] == want[qid][k], (qid, k)
    agg = irscore.evaluate(qrels, run, names)
    for k, name in zip(CUTOFFS, names):
        assert round(agg[name], 5) == mean[k]
    # the cases hold rankings shorter than k and documents judged only for another query
    assert any(len(r) < 100 for r in run.values())
    assert any(d not in qrels[q] and any(d in j for j in qrels.values()) for q, r in run.items() for d in r)


def test_hole_counts_documents_judged_for_another_query_as_judged():
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": -1}}
    run = {"q1": {"c": 3.0, "z": 2.0, "a": 1.0}, "q2": {"a": 2.0, "y": 1.0}}
    got = irscore.evaluate(qrels, run, ["Hole@2", "Hole@5", "unj.2"], per_query=True)
    # q1: c is q2's (judged with a negative grade), z nobody's; q2: a is q1's, y nobody's
    assert got["Hole@2"] == {"q1": 0.5, "q2": 0.5}
    assert got["Hole@5"] == {"q1": 0.2, "q2": 0.2}           # divided by k, not by the ranking's length
    assert got["unj.2"] == {"q1": 1.0, "q2": 1.0}            # trec_eval's unj: unjudged for the query itself
    assert irscore.evaluate(qrels, run, ["hole.2,5"]) == {"hole_2": 0.5, "hole_5": 0.2}


def test_hole_of_the_batch_path_is_zero():
    # every candidate of an array batch has a label: it is judged
    got = irscore.batch.evaluate(np.array([[0.3, 0.2, 0.1]]), np.array([[0, 1, 0]]), ["Hole@2"])
    assert got["Hole@2"].tolist() == [0.0]
