"""irscore.compat.pytrec_eval against pytrec_eval itself: the same keys, the same
queries in the same order, the same values on thousands of random queries for
every measure of all_trec, except the ones trec_eval 10 changed (iprec_at_recall
and 11pt_avg; see docs/switching.md)."""
import collections
import io
import math
import random

import pytest

from irscore.compat import pytrec_eval as shim

pytrec_eval = pytest.importorskip("pytrec_eval")

# trec_eval 10 computes the recall points exactly; trec_eval 9 (pytrec_eval)
# accumulates them in floating point, so a few points and their mean differ.
TREC_EVAL_9 = {f"iprec_at_recall_{x / 10:3.2f}" for x in range(11)} | {"11pt_avg"}


def random_case(seed, n_queries):
    """Random qrels/run with ties, negative grades, unjudged and unretrieved
    documents, empty rankings, queries on one side only."""
    rng = random.Random(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        docs = [f"d{rng.randint(0, 120)}" for _ in range(rng.randint(0, 60))]
        judged = rng.sample(docs, rng.randint(0, len(docs)))
        top = rng.choice([1, 1, 2, 3, 4])
        low = -1 if rng.random() < 0.2 else 0
        judgments = {d: rng.randint(low, top) for d in judged}
        judgments.update({f"x{i}": rng.randint(0, top) for i in range(rng.randint(0, 8))})
        if rng.random() > 0.05:
            qrels[qid] = judgments
        if rng.random() > 0.05:
            digits = rng.choice([0, 1, 2, 6])
            run[qid] = {d: round(rng.uniform(-5, 5), digits) for d in docs}
    return qrels, run


@pytest.mark.parametrize("level,judged_only,seed", [(1, False, 1), (2, False, 2), (1, True, 3), (3, True, 4)])
def test_all_trec_against_pytrec_eval(level, judged_only, seed):
    qrels, run = random_case(seed, 2500)
    want = pytrec_eval.RelevanceEvaluator(qrels, {"all_trec"}, relevance_level=level,
                                          judged_docs_only_flag=judged_only).evaluate(run)
    got = shim.RelevanceEvaluator(qrels, {"all_trec"}, relevance_level=level,
                                  judged_docs_only_flag=judged_only).evaluate(run)
    assert list(got) == list(want)          # same queries, same order
    assert len(want) > 2000
    differ = collections.Counter()
    for qid, values in want.items():
        assert list(got[qid]) == list(values)   # same keys, same order
        for key, v in values.items():
            if got[qid][key] != pytest.approx(v, abs=1e-9):
                differ[key] += 1
    assert set(differ) <= TREC_EVAL_9, differ
    assert len(want[next(iter(want))]) == 95


@pytest.mark.parametrize("measures", [
    {"map", "ndcg"}, {"P.5,10"}, {"P_5", "P.10", "P_20"}, {"P"}, {"ndcg_cut"}, {"recall.5,10"},
    {"map_cut.3,7"}, {"iprec_at_recall"}, {"iprec_at_recall.0.1"}, {"success"}, {"Rprec_mult"},
    {"relative_P"}, {"set_F"}, {"set_F.0.5"}, {"gm_map", "gm_bpref", "num_q", "runid", "relstring"},
    {"official"}, {"set"}, {"utility"}, {"ndcg_cut.10", "map", "recip_rank", "P.10"},
])
def test_expansion_and_keys(measures):
    qrels, run = random_case(11, 300)
    want = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    got = shim.RelevanceEvaluator(qrels, measures).evaluate(run)
    assert list(got) == list(want)
    for qid in want:
        assert list(got[qid]) == list(want[qid])
        for key, v in want[qid].items():
            if key not in TREC_EVAL_9:
                assert got[qid][key] == pytest.approx(v, abs=1e-9), (qid, key)


def test_module_attributes_match():
    assert shim.supported_measures == set(pytrec_eval.supported_measures)
    for nick in ("official", "set", "all_trec"):
        assert shim.supported_nicknames[nick] == set(pytrec_eval.supported_nicknames[nick])


def test_query_conventions():
    qrels = {"q1": {"a": 1, "b": 2, "c": 0}, "q2": {"a": 1}, "q3": {}, "q5": {"a": 0}}
    run = {"q1": {"a": 0.5, "x": 0.7, "c": 0.1}, "q2": {}, "q3": {"a": 1.0}, "q5": {"a": 1.0}, "q9": {"a": 3.0}}
    for ms in ({"map", "num_ret", "num_rel", "P_5"}, {"all_trec"}):
        want = pytrec_eval.RelevanceEvaluator(qrels, ms).evaluate(run)
        got = shim.RelevanceEvaluator(qrels, ms).evaluate(run)
        assert list(got) == list(want) == ["q1", "q2", "q5"]   # empty ranking evaluated; q3, q9 left out
        for q in want:
            for k in want[q]:
                if k not in TREC_EVAL_9:
                    assert got[q][k] == pytest.approx(want[q][k], abs=1e-12), (q, k)
    ev = shim.RelevanceEvaluator(qrels, {"map"})
    assert ev.evaluate({}) == pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate({}) == {}
    assert ev.evaluate({"zz": {"a": 1.0}}) == {}
    assert shim.RelevanceEvaluator({}, {"map"}).evaluate(run) == {}


def test_unsupported_measure_raises_like_pytrec_eval():
    for bad in ("foo", "P_", "P_x"):
        with pytest.raises(ValueError, match="unsupported measure"):
            pytrec_eval.RelevanceEvaluator({"q": {"d": 1}}, {bad})
        with pytest.raises(ValueError, match="unsupported measure"):
            shim.RelevanceEvaluator({"q": {"d": 1}}, {bad})


def test_irscore_names_are_an_extension():
    qrels, run = random_case(5, 200)
    got = shim.RelevanceEvaluator(qrels, {"nDCG@10", "ndcg_cut.10", "AP"}).evaluate(run)
    for q, vals in got.items():
        assert vals["nDCG@10"] == vals["ndcg_cut_10"]
        assert "AP" in vals


def test_evaluator_is_reusable():
    qrels, run = random_case(6, 200)
    ev = shim.RelevanceEvaluator(qrels, {"map"})
    assert ev.evaluate(run) == ev.evaluate(run)
    half = dict(list(run.items())[:50])
    assert ev.evaluate(half) == {q: v for q, v in ev.evaluate(run).items() if q in half}


def test_compute_aggregated_measure():
    vals = [0.5, 0.25, 0.125]
    for m in ("map", "num_ret", "gm_map", "P_10"):
        assert shim.compute_aggregated_measure(m, vals) == pytest.approx(
            pytrec_eval.compute_aggregated_measure(m, vals), abs=1e-15)
    qrels, run = random_case(7, 300)
    run = {q: d for q, d in run.items() if d}
    res = shim.RelevanceEvaluator(qrels, {"gm_map"}).evaluate(run)
    import irscore
    gm = shim.compute_aggregated_measure("gm_map", [v["gm_map"] for v in res.values()])
    assert gm == pytest.approx(irscore.evaluate(qrels, run, ["gm_map"])["gm_map"],
                               rel=1e-12)


def test_readers():
    qtext = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\n"
    rtext = "q1 Q0 d1 1 2.5 r\nq1 Q0 d2 2 1.5 r\nq2 Q0 d3 1 0.5 r\n"
    assert shim.parse_qrel(io.StringIO(qtext)) == pytrec_eval.parse_qrel(io.StringIO(qtext))
    assert shim.parse_run(io.StringIO(rtext)) == pytrec_eval.parse_run(io.StringIO(rtext))
    with pytest.raises(ValueError, match="line 2"):
        shim.parse_run(io.StringIO("q1 Q0 d1 1 2.5 r\nq1 Q0 d1 2 1.5 r\n"))


SCRIPT = '''
qrel = {"q1": {"d1": 0, "d2": 1, "d3": 0}, "q2": {"d2": 1, "d3": 1}}
run = {"q1": {"d1": 1.0, "d2": 0.0, "d3": 1.5}, "q2": {"d1": 1.5, "d2": 0.2, "d3": 0.5}}
evaluator = pytrec_eval.RelevanceEvaluator(qrel, {"map", "ndcg", "P.5,10", "recall"})
results = evaluator.evaluate(run)
summary = {m: pytrec_eval.compute_aggregated_measure(m, [q[m] for q in results.values()])
           for m in sorted(next(iter(results.values())))}
'''


def test_script_runs_unchanged():
    a, b = {"pytrec_eval": pytrec_eval}, {"pytrec_eval": shim}
    exec(SCRIPT, a)
    exec(SCRIPT, b)
    assert list(a["results"]) == list(b["results"])
    for q in a["results"]:
        assert b["results"][q] == pytest.approx(a["results"][q], abs=1e-12)
    assert list(a["summary"]) == list(b["summary"])
    for k in a["summary"]:
        assert b["summary"][k] == pytest.approx(a["summary"][k], abs=1e-12)
    assert not math.isnan(b["summary"]["map"])


def test_judgments_are_read_at_construction():
    """Found in review: the evaluator kept the caller's judgment dicts and read them
    again for queries with an empty ranking, so one evaluator gave two answers."""
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    ev = shim.RelevanceEvaluator(qrels, {"num_rel", "num_ret"})
    before = ev.evaluate({"q1": {"a": 1.0}, "q2": {}})
    qrels["q2"]["c"] = 1
    assert ev.evaluate({"q1": {"a": 1.0}, "q2": {}}) == before
    assert before["q2"]["num_rel"] == 1.0
    qrels["q2"].clear()
    assert ev.evaluate({"q1": {"a": 1.0}, "q2": {}}) == before
    qrels["q2"]["b"] = "not a grade"
    assert ev.evaluate({"q1": {"a": 1.0}, "q2": {}}) == before


def _outcome(call):
    try:
        return "ok", call()
    except TypeError as exc:
        return "TypeError", str(exc)


@pytest.mark.parametrize("qrels,scores", [
    ({1: {"d": 1}}, {"1": {"d": 1.0}}),          # integer query id in the judgments
    ({"1": {"d": 1}}, {1: {"d": 1.0}}),          # ... in the run (dropped silently before)
    ({"1": {"d": 1}}, {2: {"d": 1.0}}),          # ... of a query without judgments
    ({"1": {"d": 1}}, {b"1": {"d": 1.0}}),       # bytes
    ({"1": {"d": 1}}, {"1": 5}),                 # a query's ranking that is not a mapping
    ({"1": {"d": 1}}, [1]),                      # a run that is not a mapping
    ({"1": [1]}, {"1": {"d": 1.0}}),             # judgments of a query that are not a mapping
    ({"1": {2: 1}}, {"1": {"d": 1.0}}),          # an integer doc id
    ({"1": {"d": 1}}, {"2": {1: 1.0}}),          # ... in the run, of a query without judgments
    ({"1": {"d": 1}}, {"2": {"d": "x"}}),        # a score that is not a number, likewise
    ({"1": {"d": 1}}, {"1": {"d": 1.0}, "2": {(1, 2): 1.0}}),
])
def test_malformed_keys_are_type_errors_as_in_pytrec_eval(qrels, scores):
    """pytrec_eval raises TypeError on each of these; so does the drop-in, with
    a message naming the argument (never an empty result)."""
    want = _outcome(lambda: pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(scores))
    got = _outcome(lambda: shim.RelevanceEvaluator(qrels, {"map"}).evaluate(scores))
    assert want[0] == got[0] == "TypeError", (want, got)
    assert "\n" not in got[1]
    assert got[1].startswith(("query_relevance", "scores", "qrels[", "run["))


def test_type_errors_name_the_argument_and_key():
    with pytest.raises(TypeError, match=r"^query_relevance: query id 1 is int, expected str"):
        shim.RelevanceEvaluator({1: {"d": 1}}, {"map"})
    ev = shim.RelevanceEvaluator({"1": {"d": 1}}, {"map"})
    with pytest.raises(TypeError, match=r"^scores: query id 1 is int, expected str"):
        ev.evaluate({1: {"d": 1.0}})
    with pytest.raises(TypeError, match=r"^scores: expected a mapping \{query_id: \{doc_id: score\}\}, got list$"):
        ev.evaluate([1])
    with pytest.raises(TypeError, match=r"^scores\['1'\]: expected a mapping \{doc_id: score\}, got int$"):
        ev.evaluate({"1": 5})
    with pytest.raises(TypeError, match=r"^measures must be a collection of measure names .*, not NoneType$"):
        shim.RelevanceEvaluator({"1": {"d": 1}}, None)
    assert ev.evaluate(None) == pytrec_eval.RelevanceEvaluator({"1": {"d": 1}}, {"map"}).evaluate(None) == {}
