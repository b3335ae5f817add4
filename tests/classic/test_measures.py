"""Measure names and the hand-worked examples of the sources (seed 003 slides)."""
import math

import numpy as np
import pytest

import irscore
from irscore.core.measures import Measure, parse_measure


def _single_query(grades_in_rank_order, extra_judged=()):
    """Qrels/run dicts for one query whose ranking has the given grades."""
    run = {"q": {f"d{i:03d}": float(100 - i) for i in range(len(grades_in_rank_order))}}
    qrels = {"q": {f"d{i:03d}": g for i, g in enumerate(grades_in_rank_order)}}
    for j, g in enumerate(extra_judged):
        qrels["q"][f"u{j}"] = g
    return qrels, run


@pytest.mark.parametrize("relevant_ranks,ap", [
    # seed 003 (Arguello slides): 10 relevant docs, AP table
    ([1, 3, 4, 5, 6, 7, 9, 11, 14, 20], 0.75551),
    ([1, 2, 4, 5, 6, 7, 9, 11, 14, 20], 0.78884),   # swap ranks 2 and 3
    ([1, 3, 4, 5, 6, 7, 8, 11, 14, 20], 0.76523),   # swap ranks 8 and 9
])
def test_slides_average_precision(relevant_ranks, ap):
    grades = [1 if r in relevant_ranks else 0 for r in range(1, 21)]
    qrels, run = _single_query(grades)
    got = irscore.evaluate(qrels, run, ["AP"])["AP"]
    want = np.mean([(k + 1) / r for k, r in enumerate(relevant_ranks)])
    assert got == pytest.approx(want, abs=1e-12)
    assert round(got, 5) == ap


@pytest.mark.parametrize("grades,dcg", [
    ([4, 3, 4, 2, 0, 0, 0, 1, 1, 0], 11.17),   # slides' table
    ([3, 3, 4, 2, 0, 0, 0, 1, 1, 0], 10.17),   # top grade 4 -> 3
    ([4, 3, 4, 2, 0, 0, 0, 1, 1, 3], 12.08),   # 10th result 0 -> 3 (12.0756)
])
def test_slides_dcg_jarvelin(grades, dcg):
    qrels, run = _single_query(grades)
    got = irscore.evaluate(qrels, run, ["DCG(discount=jarvelin)@10"])["DCG(discount=jarvelin)@10"]
    want = sum(g / math.log2(max(i, 2)) for i, g in enumerate(grades, 1))
    assert got == pytest.approx(want, abs=1e-12)
    assert round(got, 2) == dcg


def test_ndcg_variants_against_direct_formula():
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(1, 30))
        grades = rng.integers(0, 4, size=n).tolist()
        extra = rng.integers(0, 4, size=int(rng.integers(0, 5))).tolist()
        qrels, run = _single_query(grades, extra)
        k = int(rng.integers(1, 15))
        ideal = sorted(grades + extra, reverse=True)
        for gain, gf in (("linear", lambda g: g), ("exp", lambda g: 2 ** g - 1)):
            for disc, df in (("log2", lambda i: math.log2(i + 1)), ("jarvelin", lambda i: math.log2(max(i, 2)))):
                name = f"nDCG(gain={gain},discount={disc})@{k}"
                got = irscore.evaluate(qrels, run, [name])[name]
                dcg = sum(gf(g) / df(i) for i, g in enumerate(grades[:k], 1))
                idcg = sum(gf(g) / df(i) for i, g in enumerate(ideal[:k], 1))
                assert got == pytest.approx(dcg / idcg if idcg > 0 else 0.0, abs=1e-12)
        # default gain/discount is trec_eval's ndcg_cut
        a = irscore.evaluate(qrels, run, [f"nDCG(gain=linear,discount=log2)@{k}", f"ndcg_cut_{k}"])
        assert len(set(a.values())) == 1


def test_trec_eval_definitions_on_a_small_case():
    # ranking grades: 1 0 2 -(unjudged) 0 1 ; one more relevant doc unretrieved
    qrels = {"q": {"a": 1, "b": 0, "c": 2, "e": 0, "f": 1, "z": 1}}
    run = {"q": {"a": 6, "b": 5, "c": 4, "d": 3, "e": 2, "f": 1}}
    r = irscore.evaluate(qrels, run, ["map", "P_5", "recall_5", "recip_rank", "Rprec", "bpref",
                                      "num_rel", "num_rel_ret", "num_ret", "set_F", "success_1"])
    R = 4
    assert r["map"] == pytest.approx((1 / 1 + 2 / 3 + 3 / 6) / R)
    assert r["P_5"] == pytest.approx(2 / 5)
    assert r["recall_5"] == pytest.approx(2 / R)
    assert r["recip_rank"] == 1.0
    assert r["Rprec"] == pytest.approx(2 / 4)
    # bpref: nonrel judged above each relevant retrieved doc, capped at R: a:0, c:1, f:2 of min(R, 2 nonrel)
    assert r["bpref"] == pytest.approx((1 + (1 - 1 / 2) + (1 - 2 / 2)) / R)
    assert (r["num_rel"], r["num_rel_ret"], r["num_ret"]) == (4, 3, 6)
    P, Rc = 3 / 6, 3 / 4
    assert r["set_F"] == pytest.approx(2 * P * Rc / (P + Rc))
    assert r["success_1"] == 1.0


@pytest.mark.parametrize("name", ["AP", "P@10", "nDCG@10", "RR", "R@100", "P(rel=2)@5", "nDCG(gain=exp)@10",
                                  "nDCG(discount=jarvelin)@10", "nDCG", "Rprec", "Bpref", "Success@5",
                                  "IPrec@0.5", "AP@100", "SetP", "NumRelRet", "Judged@10", "RBP(p=0.8)",
                                  "DCG(gain=exp,discount=jarvelin)@5", "infAP", "GMAP"])
def test_parse_str_roundtrip(name):
    m = parse_measure(name)
    assert parse_measure(str(m)) == m


@pytest.mark.parametrize("trec,irm", [("map", "AP"), ("P_10", "P@10"), ("ndcg_cut_10", "nDCG@10"),
                                      ("recip_rank", "RR"), ("recall_100", "R@100"),
                                      ("iprec_at_recall_0.50", "IPrec@0.5"), ("map_cut_5", "AP@5"),
                                      ("success_10", "Success@10"), ("P.10", "P@10")])
def test_trec_names_equal_aliases(trec, irm):
    assert parse_measure(trec) == parse_measure(irm)


@pytest.mark.parametrize("bad,msg", [
    ("P@0", "positive"), ("P_0", "positive"), ("ndcg_cut.-3", "positive"), ("P@2.5", "whole number"),
    ("nDCG(gain=cubic)@10", "gain"), ("P(foo=1)@5", "unknown parameter"), ("MAPP", "did you mean"),
    ("R", "needs a cutoff"), ("RR@x", "unknown measure"), ("IPrec@1.5", "recall level"),
    ("P(rel=x)@5", "integer"), ("AP(gain=exp)", "gain/discount"), ("ndcg_cut.5,5", "duplicate"),
])
def test_bad_names(bad, msg):
    with pytest.raises(ValueError, match=msg):
        irscore.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, [bad])


def test_multi_spec_is_not_one_measure():
    with pytest.raises(ValueError, match="one by one"):
        parse_measure("P.5,10")


def test_unknown_measure_lists_close_matches():
    with pytest.raises(ValueError) as ei:
        parse_measure("ndcg_cutt_10")
    assert "ndcg_cut_10" in str(ei.value)


def test_spec_expansion_in_evaluate():
    qrels, run = _single_query([1, 0, 1, 0, 1])
    r = irscore.evaluate(qrels, run, ["P.1,3", "ndcg.1=3,2=9"])
    assert list(r) == ["P_1", "P_3", "ndcg.1=3,2=9"]  # single-valued specs keep the name as asked
    assert r["P_3"] == pytest.approx(2 / 3)


def test_complete_and_max_docs_options():
    qrels = {"a": {"x": 1}, "b": {"y": 1}}
    run = {"a": {"x": 1.0, "z": 2.0}}
    assert irscore.evaluate(qrels, run, ["map", "num_q"]) == {"map": 0.5, "num_q": 1.0}
    assert irscore.evaluate(qrels, run, ["map", "num_q"], complete=True) == {"map": 0.25, "num_q": 2.0}
    assert irscore.evaluate(qrels, run, ["map", "num_ret"], max_docs=1) == {"map": 0.0, "num_ret": 1.0}
    assert irscore.evaluate(qrels, run, ["map", "num_ret"], judged_only=True) == {"map": 1.0, "num_ret": 1.0}
    with pytest.raises(ValueError, match="max_docs"):
        irscore.evaluate(qrels, run, ["map"], max_docs=-1)
    with pytest.raises(TypeError, match="relevance_level"):
        irscore.evaluate(qrels, run, ["map"], relevance_level=1.5)


def test_measure_objects_are_hashable_values():
    assert Measure("P", cutoff=10.0) == parse_measure("P@10")
    assert len({parse_measure("P@10"), parse_measure("P_10")}) == 1


def test_complete_resets_like_trec_eval():
    """With complete=True a query without a ranking is evaluated on trec_eval's
    stand-in ranking; trec_eval then resets num_ret, unj_*, and utility/rbp_resid
    under their default names only (it compares printed names)."""
    qrels = {"a": {"x": 1, "y": 0}, "b": {"z": 1}}
    run = {"a": {"x": 1.0, "w": 0.5}}
    names = ["num_ret", "unj_5", "utility", "utility.2,-1,0,0", "rbp_resid", "P_5"]
    r = irscore.evaluate(qrels, run, names, per_query=True, complete=True)
    assert r["num_ret"]["b"] == 0 and r["unj_5"]["b"] == 0 and r["utility"]["b"] == 0
    assert r["rbp_resid"]["b"] == 0
    # stand-in ranking: one unjudged document; 2*0 - 1*1 - 0 + 0 = -1
    assert r["utility.2,-1,0,0"]["b"] == -1.0
    assert r["P_5"]["b"] == 0.0


@pytest.mark.parametrize("ranx,trec", [("ndcg@10", "ndcg_cut_10"), ("map@100", "map_cut_100"), ("precision@10", "P_10"),
                                       ("recall@100", "recall_100"), ("mrr", "recip_rank"), ("hit_rate@5", "success_5"),
                                       ("r-precision", "Rprec"), ("bpref", "bpref")])
def test_ranx_names(ranx, trec):
    assert parse_measure(ranx) == parse_measure(trec)


def test_ir_measures_objects():
    irm = pytest.importorskip("ir_measures")
    qrels = {"q": {"a": 2, "b": 0, "c": 1}}
    run = {"q": {"a": 0.1, "b": 0.9, "c": 0.5}}
    objs = [irm.nDCG @ 10, irm.AP, irm.P(rel=2) @ 2, irm.RR]
    got = irscore.evaluate(qrels, run, objs)
    want = irscore.evaluate(qrels, run, ["nDCG@10", "AP", "P(rel=2)@2", "RR"])
    assert list(got.values()) == list(want.values())
    assert list(got) == [str(o) for o in objs]


def test_ir_measures_dcg_parameter():
    assert parse_measure("nDCG(dcg='exp-log2')@10") == parse_measure("nDCG(gain=exp)@10")
    assert parse_measure("nDCG(dcg=log2)@10") == parse_measure("nDCG@10")
    with pytest.raises(ValueError, match="dcg must be"):
        parse_measure("nDCG(dcg=cubic)@10")


def test_rndcg_is_zero_without_a_positive_gain():
    # docs/conventions.md: trec_eval prints -nan here (0/0); irscore gives 0
    qrels = {"q1": {"d1": 0, "d2": 0}, "q2": {"d3": 1, "d4": 0}}
    run = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d4": 2.0, "d3": 1.0}}
    got = irscore.evaluate(qrels, run, ["Rndcg", "num_rel"], relevance_level=0, per_query=True)
    assert got["num_rel"]["q1"] == 2
    assert got["Rndcg"]["q1"] == 0.0
    assert irscore.evaluate(qrels, run, ["Rndcg"], relevance_level=0)["Rndcg"] == 0.0
