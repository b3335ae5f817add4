"""ranx's metric names read as ranx defines them: ``f1@k``, ``ndcg_burges@k``,
``dcg_burges@k``, ``rbp.95`` and the relevance-level suffix ``-lN``, in
:func:`irscore.evaluate`, ``irscore eval -m`` and :func:`irscore.compare`.

Differential against ranx itself on random graded qrels (queries without a
relevant document included) and runs with distinct scores (ranx orders equal
scores its own way); without ranx only the name tests run.
"""
from __future__ import annotations

import copy
import random
from typing import Dict, Tuple

import numpy as np
import pytest

import irscore
from irscore.core.measures import parse_measure, resolve

Dicts = Tuple[Dict[str, Dict[str, int]], Dict[str, Dict[str, float]]]


def random_dicts(seed: int, n_queries: int, max_grade: int = 3) -> Dicts:
    """Queries of 1..30 documents judged 0..max_grade at random (some without a
    relevant document, some retrieved documents unjudged), distinct scores."""
    rng = random.Random(seed)
    qrels: Dict[str, Dict[str, int]] = {}
    run: Dict[str, Dict[str, float]] = {}
    for qi in range(n_queries):
        qid = f"q{qi}"
        docs = [f"d{j}" for j in range(rng.randint(1, 30))]
        judged = rng.sample(docs, rng.randint(1, len(docs)))
        top = rng.choice([0, 1, max_grade, max_grade])
        qrels[qid] = {d: rng.randint(0, top) for d in judged}
        ret = rng.sample(docs, rng.randint(1, len(docs)))
        run[qid] = {d: float(s) for d, s in zip(ret, rng.sample(range(1, 10 * len(ret) + 10), len(ret)))}
    return qrels, run


RANX_NAMES = ["f1@10", "f1@1", "f1@3", "f1", "f1@10-l2", "f1@5-l3",
              "ndcg_burges@10", "ndcg_burges@3", "ndcg_burges", "dcg_burges@10", "dcg_burges",
              "ndcg@10", "ndcg@10-l2", "ndcg@5-l3", "ndcg-l2", "dcg@10", "ndcg_burges@10-l1",
              "rbp.95", "rbp.8", "rbp.5", "rbp.95-l2", "rbp.99-l3",
              "precision@10-l2", "precision@5-l3", "recall@10-l2", "map@100-l2", "map-l2", "map@10-l1",
              "mrr@10-l2", "mrr-l3", "hits@10-l2", "hit_rate@5-l2", "r-precision-l2", "precision@10-l0",
              "map", "map@10", "precision@10", "recall@100", "mrr", "mrr@10", "hit_rate@5", "r-precision",
              "hits", "hits@5"]


def test_ranx_names_against_ranx():
    ranx = pytest.importorskip("ranx")
    qrels, run = random_dicts(7, 1200)
    rq = ranx.Qrels.from_dict(copy.deepcopy(qrels))
    rr = ranx.Run.from_dict(copy.deepcopy(run))          # ranx changes the dicts it is given
    every = ranx.evaluate(rq, rr, RANX_NAMES, return_mean=False, save_results_in_run=False)
    ours = irscore.evaluate(qrels, run, RANX_NAMES, per_query=True)
    means = irscore.evaluate(qrels, run, RANX_NAMES)
    n = 0
    for name in RANX_NAMES:
        theirs = every[name]
        assert list(ours[name]) == list(rq.keys())
        for qid, v in zip(rq.keys(), theirs):
            assert ours[name][qid] == pytest.approx(float(v), rel=1e-12, abs=1e-12), (name, qid, qrels[qid])
            n += 1
        assert means[name] == pytest.approx(float(np.mean(theirs)), rel=1e-12, abs=1e-12), name
    assert n == len(RANX_NAMES) * 1200


def test_ranx_names_vary_with_the_data():
    """The random data exercise what the names change: a level suffix, the
    exponential gain and the raw-grade RBP each give other values than the plain name."""
    qrels, run = random_dicts(7, 300)
    r = irscore.evaluate(qrels, run, ["precision@10", "precision@10-l2", "ndcg@10", "ndcg_burges@10",
                                      "ndcg@10-l2", "rbp.95", "RBP(p=0.95)", "f1@10", "f1@10-l2"])
    assert r["precision@10"] > r["precision@10-l2"] > 0
    assert r["ndcg@10"] != r["ndcg_burges@10"] and r["ndcg@10"] != r["ndcg@10-l2"]
    assert r["rbp.95"] > r["RBP(p=0.95)"]        # ranx's gains are the grades, trec_eval's scaled to [0, 1]
    assert r["f1@10"] > r["f1@10-l2"] > 0


def test_f1_hand_example():
    qrels = {"q": {"a": 1, "b": 2, "c": 1, "d": 0}}
    run = {"q": {"a": 5.0, "x": 4.0, "b": 3.0, "d": 2.0}}
    r = irscore.evaluate(qrels, run, ["f1@2", "f1@4", "f1", "f1@2-l2", "f1@1-l2"])
    P, R = 1 / 2, 1 / 3
    assert r["f1@2"] == pytest.approx(2 * P * R / (P + R))
    P, R = 2 / 4, 2 / 3
    assert r["f1@4"] == pytest.approx(2 * P * R / (P + R)) and r["f1"] == r["f1@4"]
    assert r["f1@2-l2"] == 0.0 and r["f1@1-l2"] == 0.0       # no hit: 0, not 0/0
    # no relevant document: 0
    assert irscore.evaluate({"q": {"a": 0}}, {"q": {"a": 1.0}}, ["f1@5", "f1"]) == {"f1@5": 0.0, "f1": 0.0}


def test_rbp_grade_hand_example():
    qrels = {"q": {"a": 3, "b": 1, "c": 0, "d": 2}}
    run = {"q": {"a": 4.0, "x": 3.0, "b": 2.0, "d": 1.0}}
    p = 0.95
    r = irscore.evaluate(qrels, run, ["rbp.95", "rbp.95-l2"])
    assert r["rbp.95"] == pytest.approx((1 - p) * (3 + 1 * p ** 2 + 2 * p ** 3))
    assert r["rbp.95-l2"] == pytest.approx((1 - p) * (3 + 2 * p ** 3))


@pytest.mark.parametrize("ranx,ours", [
    ("ndcg_burges@10", "nDCG(gain=exp)@10"), ("dcg_burges@10", "DCG(gain=exp)@10"),
    ("ndcg_burges", "nDCG(gain=exp)"), ("precision@10-l2", "P(rel=2)@10"), ("recall@5-l3", "R(rel=3)@5"),
    ("map@100-l2", "AP(rel=2)@100"), ("map-l2", "AP(rel=2)"), ("mrr@10-l2", "RR(rel=2)@10"),
    ("hits@3-l2", "hits(rel=2)@3"), ("hit_rate@5-l2", "Success(rel=2)@5"), ("r-precision-l2", "Rprec(rel=2)"),
    ("ndcg@10-l2", "nDCG(gains={1:0})@10"), ("ndcg@10-l3", "nDCG(gains={1:0,2:0})@10"), ("ndcg@10-l1", "nDCG@10"),
    ("f1@10-l2", "f1(rel=2)@10"), ("rbp.95", "rbp_grade(p=0.95)"), ("rbp.5", "rbp_grade(p=0.5)"),
    ("rbp.95-l2", "rbp_grade(p=0.95,rel=2)"),
])
def test_ranx_spellings_are_irscore_measures(ranx, ours):
    assert parse_measure(ranx) == parse_measure(ours)


@pytest.mark.parametrize("name", ["f1@10", "f1", "f1(rel=2)@5", "rbp.95", "rbp.95-l2", "rbp.5", "rbp.999",
                                  "rbp_grade(p=0.95,judged_only=True)", "ndcg_burges@10", "ndcg@10-l3",
                                  "precision@10-l2", "f1(judged_only=True)@3", "rbp_grade", "rbp_grade(rel=1)",
                                  "rbp_grade(judged_only=True)"])
def test_ranx_names_round_trip(name):
    m = parse_measure(name)
    assert parse_measure(str(m)) == m
    assert str(parse_measure(str(m))) == str(m)


@pytest.mark.parametrize("bad,msg", [
    ("dcg@10-l2", "not available"), ("ndcg_burges@10-l2", "not available"), ("dcg_burges-l3", "not available"),
    ("ndcg@10-l1000", "too large"), ("rbp_grade.p=0.9,2=3", "takes no gains"), ("rbp@95", "takes no cutoff"),
])
def test_ranx_names_not_offered(bad, msg):
    with pytest.raises(ValueError, match=msg):
        resolve([bad])


def test_rbp_95_in_resolve_cli_and_compare(tmp_path, capsys):
    """rbp.95 was read as trec_eval's rbp with malformed pair parameters."""
    assert [k for k, _ in resolve(["rbp.95", "precision@10-l2"])] == ["rbp.95", "precision@10-l2"]
    qrels, run = random_dicts(3, 40)
    qf, rf = tmp_path / "qrels", tmp_path / "run"
    qf.write_text("".join(f"{q} 0 {d} {g}\n" for q, ds in qrels.items() for d, g in ds.items()))
    rf.write_text("".join(f"{q} Q0 {d} 0 {s} r\n" for q, ds in run.items() for d, s in ds.items()))
    from irscore.cli import main
    assert main(["eval", "-m", "rbp.95", "-m", "f1@10-l2", str(qf), str(rf)]) == 0
    out = dict((line.split()[0], float(line.split()[2])) for line in capsys.readouterr().out.splitlines())
    want = irscore.evaluate(qrels, run, ["rbp.95", "f1@10-l2"])
    assert out["rbp.95"] == pytest.approx(want["rbp.95"], abs=1e-4)
    assert out["f1@10-l2"] == pytest.approx(want["f1@10-l2"], abs=1e-4)
    run2 = {q: {d: -s for d, s in ds.items()} for q, ds in run.items()}
    cmp = irscore.compare(qrels, {"a": run, "b": run2}, ["rbp.95", "ndcg_burges@10"])
    assert cmp.means["rbp.95"][0] == pytest.approx(want["rbp.95"])


def test_ranx_names_in_batch_equal_evaluate():
    """irscore.batch reads the same names (its ranked-list path computes them with
    the kernel evaluate uses)."""
    from irscore import batch
    rng = np.random.default_rng(0)
    s, y = rng.random((50, 20)), rng.integers(0, 4, (50, 20))
    names = ["f1@5", "f1", "AP(denominator=min_k_R)@5", "rbp.95", "rbp.8-l2", "ndcg_burges@5", "precision@5-l2"]
    got = batch.evaluate(s, y, names)
    qrels = {f"q{i:02d}": {f"d{j:02d}": int(y[i, j]) for j in range(20)} for i in range(50)}
    run = {f"q{i:02d}": {f"d{j:02d}": float(s[i, j]) for j in range(20)} for i in range(50)}
    want = irscore.evaluate(qrels, run, names, per_query=True)
    for name in names:
        assert np.allclose(got[name], [want[name][q] for q in sorted(qrels)], rtol=0, atol=1e-12), name
