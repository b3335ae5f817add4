"""inex_eval, inex_eval_ng, gP/MAgP (RiC, BiC), GR/EPRUM and T2I: hand-worked cases."""
from __future__ import annotations

import pytest

from irscore import xml as X


def flat_elements():
    # three disjoint paragraphs: q = 1, 1, 0 (generalised); N = 2
    return X.XmlQrels.from_elements({"1": [("a", 0, 100, 1.0, 1.0), ("a", 100, 200, 1.0, 1.0),
                                           ("a", 200, 300, 0.0, 0.0)]})


def run_with_scores(spans_scores):
    run = X.XmlRun.from_spans({"1": [s for s, _ in spans_scores]})
    run.score[:] = [sc for _, sc in spans_scores]
    return run


def test_precall_with_tie_groups():
    q = flat_elements()
    e1, e2, e3 = ("a", 0, 100), ("a", 100, 200), ("a", 200, 300)
    # e3 alone, then {e1, e2} tied: j = 1 non-relevant before the group
    r = X.inex_eval(q, run_with_scores([(e3, 3.0), (e1, 2.0), (e2, 2.0)]), points=2)
    assert r["Precall[0.50]"]["1"] == pytest.approx(1 / (1 + 1))
    assert r["Precall[1.00]"]["1"] == pytest.approx(2 / (2 + 1))
    assert r["inex_eval"]["1"] == pytest.approx((0.5 + 2 / 3) / 2)
    # {e1, e3} tied first: s = 1, i = 1, r = 1 -> 1 / (1 + 1 * 1 / 2)
    run = run_with_scores([(e1, 2.0), (e3, 2.0), (e2, 1.0)])
    r = X.inex_eval(q, run, points=2)
    assert r["Precall[0.50]"]["1"] == pytest.approx(2 / 3)
    assert r["Precall[1.00]"]["1"] == pytest.approx(2 / 3)
    r = X.inex_eval(q, run, points=2, ties=False)
    assert r["Precall[0.50]"]["1"] == pytest.approx(1.0)


def test_precall_collection_tie_group():
    q = flat_elements()
    run = run_with_scores([(("a", 200, 300), 1.0)])
    r = X.inex_eval(q, run, points=2)
    assert r["Precall[1.00]"]["1"] == 0.0
    r = X.inex_eval(q, run, points=2, collection_size=3)
    # unretrieved {e1, e2} form the final group: j = 1, no non-relevant in it
    assert r["Precall[0.50]"]["1"] == pytest.approx(0.5)
    assert r["Precall[1.00]"]["1"] == pytest.approx(2 / 3)


def test_inex_eval_ng_overlap_and_not():
    els = [("a", 0, 1000, 0.5, 0.5), ("a", 0, 600, 1.0, 0.5), ("a", 0, 200, 0.0, 0.0),
           ("a", 200, 400, 1.0, 1.0), ("a", 400, 600, 0.5, 1.0), ("a", 600, 1000, 0.5, 0.5),
           ("a", 600, 800, 1.0, 1.0), ("a", 800, 1000, 0.0, 0.0)]
    q = X.XmlQrels.from_elements({"1": els})
    run = X.XmlRun.from_spans({"1": [("a", 0, 600), ("a", 200, 400), ("a", 0, 1000)]})
    r = X.inex_eval_ng(q, run, cutoffs=(3,))
    # overlaps 0, 1, .6; total exh 4.5
    assert r["ngP_o@3"]["1"] == pytest.approx((0.5 * 600 + 0 + 0.5 * 1000 * 0.4) / (600 + 0 + 400))
    assert r["ngR_o@3"]["1"] == pytest.approx((1 + 0 + 0.5 * 0.4) / 4.5)
    assert r["ngP_s@3"]["1"] == pytest.approx((0.5 * 600 + 200 + 0.5 * 1000) / 1800)
    assert r["ngR_s@3"]["1"] == pytest.approx(2.5 / 4.5)


def test_inex_eval_needs_elements():
    q = X.XmlQrels.from_passages({"1": [("a", 0, 10)]})
    with pytest.raises(ValueError, match="element assessments"):
        X.inex_eval(q, X.XmlRun.from_spans({"1": [("a", 0, 10)]}))


def context_qrels():
    return X.XmlQrels.from_passages({"1": [("d1", 200, 500), ("d1", 600, 800), ("d2", 0, 100)]},
                                    doclens={"d1": 1000, "d2": 400, "d3": 500},
                                    beps={("1", "d1"): 200, ("1", "d2"): 0})


def test_relevant_in_context():
    q = context_qrels()
    run = X.XmlRun.from_spans({"1": [("d1", 200, 400), ("d3", 0, 50), ("d2", 0, 400), ("d1", 600, 1000)]})
    r = X.generalized_precision(q, run, task="RiC", cutoffs=(1, 3))
    b2 = 0.25 ** 2

    def f(p, rr):
        return (1 + b2) * p * rr / (b2 * p + rr)

    s1 = f(400 / 600, 400 / 500)   # d1: [200,400) u [600,1000)
    s2 = 0.0                        # d3: not relevant
    s3 = f(100 / 400, 1.0)          # d2
    assert r["gP_RiC@1"]["1"] == pytest.approx(s1)
    assert r["gP_RiC@3"]["1"] == pytest.approx((s1 + s2 + s3) / 3)
    assert r["MAgP_RiC"]["1"] == pytest.approx((s1 + (s1 + s2 + s3) / 3) / 2)


def test_best_in_context():
    q = context_qrels()
    run = X.XmlRun.from_spans({"1": [("d2", 300, 310), ("d1", 0, 10), ("d1", 200, 210)]})
    r = X.generalized_precision(q, run, task="BiC", cutoffs=(2,), bep_distance=500)
    # d2: entry 300, bep 0 -> 1 - 300/500; d1: entry 0 (first result), bep 200 -> .6
    assert r["gP_BiC@2"]["1"] == pytest.approx((0.4 + 0.6) / 2)
    assert r["MAgP_BiC"]["1"] == pytest.approx((0.4 + 0.5) / 2)
    r = X.generalized_precision(q, run, task="BiC", cutoffs=(2,), bep_distance=250)
    assert r["gP_BiC@2"]["1"] == pytest.approx((0.0 + (1 - 200 / 250)) / 2)


def test_gr_and_eprum():
    q = X.XmlQrels.from_passages({"1": [("a", 0, 100), ("b", 50, 60)]})
    run = X.XmlRun.from_spans({"1": [("a", 0, 100), ("b", 0, 100)]})
    nav = X.default_navigation(p_descendant=0.5)  # b[50,60) lies inside the result b[0,100)
    r = X.eprum(q, run, navigation=nav, cutoffs=(1, 2), points=2)
    assert X.eprum(q, run, navigation=X.default_navigation(p_ancestor=0.5), cutoffs=(2,))["GR@2"]["1"] == 0.5
    # up: the result b[52,55) lies inside the ideal b[50,60)
    up = X.XmlRun.from_spans({"1": [("a", 0, 100), ("b", 52, 55)]})
    assert X.eprum(q, up, navigation=X.default_navigation(p_ancestor=0.4), cutoffs=(2,))["GR@2"]["1"] == pytest.approx(0.7)
    assert r["GR@1"]["1"] == pytest.approx(0.5)
    assert r["GR@2"]["1"] == pytest.approx(0.75)
    assert r["EPRUM[0.50]"]["1"] == pytest.approx(1.0)
    assert r["EPRUM[1.00]"]["1"] == pytest.approx(0.5 * 2 / 2)
    # a caller-given model
    r = X.eprum(q, run, navigation=lambda res, x: 1.0 if res[0] == x[0] else 0.0, cutoffs=(2,), points=2)
    assert r["GR@2"]["1"] == pytest.approx(1.0)
    assert r["EPRUM[1.00]"]["1"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="probability"):
        X.eprum(q, run, navigation=lambda res, x: 2.0)


def test_t2i_operationalisation():
    q = context_qrels()
    run = X.XmlRun.from_spans({"1": [("d1", 200, 210), ("d2", 0, 5), ("d1", 150, 160)]})
    r = X.t2i(q, run, tolerance=100, cutoffs=(1, 2, 3))
    # d1 from 200: [200,500) relevant, then 100 non-relevant -> stops at 600
    assert r["T2IP@1"]["1"] == pytest.approx(300 / 400)
    assert r["T2IR@1"]["1"] == pytest.approx(300 / 600)
    # d2 from 0: 100 relevant then 100 non-relevant -> 200 read
    assert r["T2IP@2"]["1"] == pytest.approx(400 / 600)
    # d1 from 150: 50 non-relevant, [200,500) already read, stops at 600 -> no new gain
    assert r["T2IP@3"]["1"] == pytest.approx(400 / 1050)
    r = X.t2i(q, run, tolerance=150, cutoffs=(1,))
    # gap [500,600) is tolerated: reads on through [600,800) and stops at 950
    assert r["T2IR@1"]["1"] == pytest.approx(500 / 600)
    assert r["T2IP@1"]["1"] == pytest.approx(500 / 750)


def test_evaluate_routes_every_family():
    q = context_qrels()
    run = X.XmlRun.from_spans({"1": [("d1", 200, 400), ("d2", 0, 400)]})
    r = X.evaluate(q, run, ["MAgP_RiC", "GR@2", "T2IP@2", "MAiP"], tolerance=100)
    assert set(r) == {"MAgP_RiC", "GR@2", "T2IP@2", "MAiP"}
    with pytest.raises(TypeError, match="unexpected options"):
        X.evaluate(q, run, ["MAgP_RiC"], nonsense=1)


def test_complete_counts_missing_topics_as_zero():
    q = X.XmlQrels.from_passages({"1": [("a", 0, 10)], "2": [("b", 0, 10)]})
    run = X.XmlRun.from_spans({"1": [("a", 0, 10)], "3": [("c", 0, 5)]})
    assert X.evaluate(q, run, ["MAiP"], per_query=True)["MAiP"] == {"1": 1.0}
    r = X.evaluate(q, run, ["MAiP", "nxCG@1", "hixP@1"], per_query=True, complete=True)
    assert r["MAiP"] == {"1": 1.0, "2": 0.0}
    assert r["nxCG@1"] == {"1": 1.0, "2": 0.0}
    assert X.evaluate(q, run, ["MAiP"], complete=True)["MAiP"] == 0.5


def test_complete_with_an_empty_run():
    q = X.XmlQrels.from_passages({"1": [("a", 0, 10)]})
    r = X.evaluate(q, X.XmlRun.from_spans({}), ["MAiP", "nxCG@5", "MAgP_RiC"], per_query=True, complete=True)
    assert r == {"MAiP": {"1": 0.0}, "nxCG@5": {"1": 0.0}, "MAgP_RiC": {"1": 0.0}}


def test_review_fixes_points_rsv_unseen_passage_seen_default(tmp_path):
    """Found by an independent review against docs/xml.md:
    any recall grid works; INEX XML runs keep their RSVs (inex_eval ties);
    an unseen passage that is not an assessed element gains r(e_i) whatever
    alpha; the documented "e_i or an ancestor was retrieved before" is the default."""
    import irscore.xml as X

    qp = X.XmlQrels.from_passages({"1": [("a", 0, 10)]}, {"a": 20})
    ru = X.XmlRun.from_spans({"1": [("a", 0, 5), ("a", 0, 10)]})
    ip = X.interpolated_precision(qp, ru, points=3)
    assert len([k for k in ip if k.startswith("iP[")]) == 4
    els = X.XmlQrels.from_elements({"1": [("a", 0, 10, 1, 1), ("a", 0, 5, 1, 1)]})
    assert len([k for k in X.inex_eval(els, ru, points=1000) if k.startswith("Precall[")]) == 1000
    one = X.XmlRun.from_spans({"1": [("a", 0, 6)]})
    vals = [X.xcg(els, one, cutoffs=[1], alpha=a, normalise=False)["XCG@1"]["1"] for a in (0.0, 0.5, 1.0)]
    assert vals == pytest.approx([5 / 6] * 3)

    tree = X.XmlQrels.from_elements({"1": [("a", 0, 10, 1, 0.5), ("a", 0, 5, 1, 1), ("a", 5, 10, 1, 1)]})
    run = X.XmlRun.from_spans({"1": [("a", 0, 5), ("a", 5, 10), ("a", 0, 10)]})
    g = {s: X.xcg(tree, run, cutoffs=[2, 3], alpha=0.5, normalise=False, seen=s) for s in ("ancestor", "overlap")}
    third = {s: g[s]["XCG@3"]["1"] - g[s]["XCG@2"]["1"] for s in g}
    # docs/xml.md, XCG: only descendants of P were retrieved -> 0.5 * (0.5*5 + 0.5*5)/10 + 0.5 * 0.5
    assert third["ancestor"] == pytest.approx(0.5)
    assert third["overlap"] == pytest.approx(0.25)
    default = X.xcg(tree, run, cutoffs=[3], alpha=0.5, normalise=False)["XCG@3"]["1"]
    assert default == pytest.approx(g["ancestor"]["XCG@3"]["1"])


def test_inex_xml_run_keeps_rsv_for_ties(tmp_path):
    import irscore.xml as X

    xml = ('<inex-submission run-id="r"><topic topic-id="1">'
           + "".join(f"<result><file>a</file><path>{p}</path><rank>{k}</rank><rsv>0.5</rsv></result>"
                     for k, p in enumerate(["/article[1]/sec[1]", "/article[1]", "/article[1]/sec[2]"], 1))
           + "</topic></inex-submission>")
    (tmp_path / "run.xml").write_text(xml)
    layout = {"a": {"/article[1]": (0, 10), "/article[1]/sec[1]": (0, 5), "/article[1]/sec[2]": (5, 10)}}
    run = X.read_inex_run(tmp_path / "run.xml", layout)
    assert run.score.tolist() == [0.5, 0.5, 0.5]
    qr = X.XmlQrels.from_elements({"1": [("a", 0, 10, 1, 1), ("a", 0, 5, 0, 0), ("a", 5, 10, 0, 0)]})
    # one tie group of three with one relevant unit: P(0.5) = 0.5 / (0.5 + 0.5 * 2 / 2) = 0.5
    assert X.inex_eval(qr, run, points=2)["Precall[0.50]"]["1"] == pytest.approx(0.5)
