"""NCG@k (normalised cumulative gain): the kernel against an independent
pure-Python reading of the definition, on thousands of random queries."""
import numpy as np
import pytest

import irscore
from irscore import batch
from irscore.core.measures import parse_measure

CUTOFFS = (1, 2, 3, 5, 10, 50)


def _ncg(judged, ranking, k):
    """CG@k over the ideal CG@k: grades <= 0 (and unjudged documents) gain nothing; 0 when the ideal is 0."""
    cg = sum(max(judged.get(doc, 0), 0) for doc, _ in ranking[:k])
    ideal = sum(sorted((g for g in judged.values() if g > 0), reverse=True)[:k])
    return cg / ideal if ideal > 0 else 0.0


def _random_case(rng, nq):
    qrels, run = {}, {}
    for q in range(nq):
        qid = f"q{q}"
        docs = [f"d{j}" for j in range(int(rng.integers(1, 40)))]
        judged = rng.random(len(docs)) < 0.6
        qrels[qid] = {d: int(g) for d, g, j in zip(docs, rng.integers(-1, 4, len(docs)), judged) if j}
        if not qrels[qid]:
            qrels[qid] = {docs[0]: int(rng.integers(-1, 4))}
        ranked = [d for d in docs if rng.random() < 0.7] + [f"u{j}" for j in range(int(rng.integers(0, 5)))]
        if not ranked:
            ranked = [docs[0]]
        # few distinct scores: many ties, which trec_eval orders by document id, descending
        run[qid] = {d: float(s) for d, s in zip(ranked, rng.integers(0, 4, len(ranked)) / 2)}
    return qrels, run


@pytest.mark.parametrize("seed", range(4))
def test_ncg_equals_the_definition_on_random_queries(seed):
    rng = np.random.default_rng(seed)
    qrels, run = _random_case(rng, 1000)
    names = [f"NCG@{k}" for k in CUTOFFS]
    got = irscore.evaluate(qrels, run, names, per_query=True)
    checked = 0
    for qid, judged in qrels.items():
        ranking = sorted(run[qid].items(), key=lambda t: (t[1], t[0]), reverse=True)
        for k, name in zip(CUTOFFS, names):
            assert got[name][qid] == _ncg(judged, ranking, k), (qid, k, judged, ranking)
            checked += 1
    assert checked == 1000 * len(CUTOFFS)
    # the cases hold lists shorter than k, queries without a positive grade, negative grades and ties
    assert any(len(r) < 10 for r in run.values())
    assert any(all(g <= 0 for g in j.values()) for j in qrels.values())
    assert any(g < 0 for j in qrels.values() for g in j.values())


def test_ncg_trec_eval_spelling_and_several_cutoffs():
    qrels = {"q1": {"a": 3, "b": 1, "c": 0, "d": 2, "e": -1}}
    run = {"q1": {"a": 0.1, "b": 0.9, "z": 0.5, "e": 0.7, "d": 0.3}}
    got = irscore.evaluate(qrels, run, ["ncg_cut.1,3,10"])
    assert got == {"ncg_cut_1": 1 / 3, "ncg_cut_3": 1 / 6, "ncg_cut_10": 1.0}
    assert str(parse_measure("NCG@10")) == "NCG@10"


def test_ncg_batch_path_equals_the_classic_path():
    rng = np.random.default_rng(7)
    scores = np.round(rng.standard_normal((200, 30)), 1)
    labels = rng.integers(0, 4, (200, 30)) * (rng.random((200, 30)) < 0.4)
    got = batch.evaluate(scores, labels, ["NCG@5", "NCG@100"])
    for q in range(200):
        order = sorted(range(30), key=lambda j: (scores[q, j], j), reverse=True)
        judged = {j: int(labels[q, j]) for j in range(30)}
        ranking = [(j, None) for j in order]
        assert got["NCG@5"][q] == _ncg(judged, ranking, 5)
        assert got["NCG@100"][q] == _ncg(judged, ranking, 100)
