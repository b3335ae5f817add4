"""XML / focused retrieval measures (docs/xml.md): check examples, hand-worked
cases with nesting and overlap, invariants, brute-force references, bad input."""
from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from irscore import xml as X

DATA = Path(__file__).resolve().parents[1] / "data" / "xml"


# ---------------------------------------------------------------------------
# documented (check) examples
# ---------------------------------------------------------------------------

def article_example():
    # a = [0,1000): s1 = [0,600) with p1..p3 of 200, s2 = [600,1000) with p4, p5
    q = X.XmlQrels.from_passages({"1": [("a", 200, 500), ("a", 600, 800)]}, doclens={"a": 1000})
    run = X.XmlRun.from_spans({"1": [("a", 0, 600), ("a", 200, 400), ("a", 0, 1000),
                                     ("a", 600, 800), ("a", 800, 1000)]})
    return q, run


def test_spec_hixeval_check():
    q, run = article_example()
    r = X.hixeval(q, run, cutoffs=(1, 3), alpha=1.0)
    assert r["hixP@1"]["1"] == pytest.approx(0.5, abs=1e-12)
    assert r["hixR@1"]["1"] == pytest.approx(0.6, abs=1e-12)
    assert r["hixP@3"]["1"] == pytest.approx(500 / 1800, abs=1e-12)
    assert r["hixR@3"]["1"] == pytest.approx(1.0, abs=1e-12)


def focused_example():
    q = X.XmlQrels.from_passages({"1": [("d1", 200, 500), ("d1", 600, 800), ("d2", 0, 100)]},
                                 doclens={"d1": 1000, "d2": 400})
    run = X.XmlRun.from_spans({"1": [("d1", 200, 400), ("d2", 0, 400), ("d1", 600, 1000), ("d1", 0, 200)]})
    return q, run


def test_spec_focused_aip_check():
    q, run = focused_example()
    for bucketing in ("exact", "inex_eval"):
        r = X.interpolated_precision(q, run, bucketing=bucketing)
        assert r["AiP"]["1"] == pytest.approx(59 / 101, abs=1e-12)
    r = X.evaluate(q, run, ["MAiP", "iP[0.01]", "iP[0.33]", "iP[0.34]", "iP[0.83]", "iP[0.84]"])
    assert r["MAiP"] == pytest.approx(59 / 101, abs=1e-12)
    assert (r["iP[0.33]"], r["iP[0.34]"], r["iP[0.83]"], r["iP[0.84]"]) == (1.0, 0.5, 0.5, 0.0)


def test_files_match_in_memory():
    q = X.read_passage_qrels(DATA / "focused.qrels")
    run = X.read_fol_run(DATA / "focused.fol", q)
    r = X.evaluate(q, run, ["MAiP"], per_query=True)
    assert r["MAiP"]["1"] == pytest.approx(59 / 101, abs=1e-12)
    # topic 2: Trel 200, run d3[0,700) (nothing), d1[100,300) (100 relevant of 200)
    assert r["MAiP"]["2"] == pytest.approx((100 / 900) * 51 / 101, abs=1e-12)
    assert q.bep[("1", "d1")] == 200
    assert run.run_id == "myrun"


# ---------------------------------------------------------------------------
# brute-force references (written here, O(n^2) over character sets)
# ---------------------------------------------------------------------------

def chars(sp):
    d, s, e = sp
    return {(d, c) for c in range(s, e)}


def brute_overlap(spans):
    seen, out = set(), []
    for sp in spans:
        c = chars(sp)
        out.append(len(c & seen) / len(c) if c else 0.0)
        seen |= c
    return out


def brute_hixeval(spans, hl, alpha):
    hlc = set().union(*[chars(h) for h in hl]) if hl else set()
    seen, rv = set(), []
    for i, sp in enumerate(spans):
        c = chars(sp)
        rsize = len(c & hlc)
        cov = len(c & seen)
        if alpha == 1:
            v = len((c & hlc) - seen)  # Focused: each relevant character counts once
        elif cov == 0:
            v = rsize
        elif cov == len(c):
            v = (1 - alpha) * rsize
        else:
            inside = sum(rv[j] for j in range(i) if spans[j][0] == sp[0] and spans[j][1] >= sp[1] and spans[j][2] <= sp[2])
            v = rsize - alpha * inside
        rv.append(v)
        seen |= c
    return rv


def random_laminar(rng, doc, start, end, depth, out):
    """Random element tree inside [start, end)."""
    out.append((doc, start, end))
    if depth == 0 or end - start < 4:
        return
    cuts = sorted(rng.sample(range(start + 1, end), min(end - start - 1, rng.randint(1, 3))))
    bounds = [start] + cuts + [end]
    for a, b in zip(bounds[:-1], bounds[1:]):
        if rng.random() < 0.8:
            random_laminar(rng, doc, a, b, depth - 1, out)


def random_passages(rng, docs, n):
    out = []
    for _ in range(n):
        d = rng.choice(docs)
        s = rng.randrange(0, 60)
        out.append((d, s, s + rng.randrange(0, 25)))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_overlap_matches_brute_force(seed):
    rng = random.Random(seed)
    spans = {str(t): random_passages(rng, ["x", "y", "z"], rng.randrange(0, 40)) for t in range(5)}
    run = X.XmlRun.from_spans(spans)
    got = X.overlap(run)
    for t, lst in spans.items():
        if not lst:
            continue
        assert np.allclose(got[t], brute_overlap(lst), atol=1e-12)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("laminar", [True, False])
def test_hixeval_matches_brute_force(seed, laminar):
    rng = random.Random(seed)
    qp, sp = {}, {}
    for t in range(4):
        hl = []
        for d in ("x", "y"):
            s = rng.randrange(0, 50)
            hl.append((d, s, s + rng.randrange(1, 30)))
        qp[str(t)] = hl
        if laminar:
            els = []
            random_laminar(rng, "x", 0, 80, 3, els)
            random_laminar(rng, "y", 0, 80, 3, els)
            rng.shuffle(els)
            sp[str(t)] = els[:30]
        else:
            sp[str(t)] = random_passages(rng, ["x", "y"], 30)
    q = X.XmlQrels.from_passages(qp)
    run = X.XmlRun.from_spans(sp)
    for alpha in (0.0, 0.5, 1.0):
        ks = (1, 3, 10, 30)
        r = X.hixeval(q, run, cutoffs=ks, alpha=alpha)
        for t in qp:
            rv = brute_hixeval(sp[t], qp[t], alpha)
            trel = sum(e - s for _, s, e in qp[t])
            for k in ks:
                size = sum(e - s for _, s, e in sp[t][:k])
                p = sum(rv[:k]) / size if size else 0.0
                assert r[f"hixP@{k}"][t] == pytest.approx(p, abs=1e-9)
                assert r[f"hixR@{k}"][t] == pytest.approx(sum(rv[:k]) / trel, abs=1e-9)


@pytest.mark.parametrize("seed", range(5))
def test_interpolated_precision_matches_brute_force(seed):
    rng = random.Random(100 + seed)
    qp, sp = {}, {}
    for t in range(4):
        qp[str(t)] = [(d, s, s + rng.randrange(1, 20)) for d in ("x", "y") for s in [rng.randrange(0, 40)]]
        sp[str(t)] = random_passages(rng, ["x", "y", "z"], rng.randrange(1, 25))
    q = X.XmlQrels.from_passages(qp)
    run = X.XmlRun.from_spans(sp)
    r = X.interpolated_precision(q, run)
    for t in qp:
        hlc = set().union(*[chars(h) for h in qp[t]])
        trel = len(hlc)
        seen, pr = set(), []
        for span in sp[t]:
            seen |= chars(span)
            rel = len(seen & hlc)
            pr.append((Fraction(rel, len(seen)) if seen else Fraction(0), Fraction(rel, trel)))
        ip = []
        for k in range(101):
            ok = [p for p, rr in pr if rr >= Fraction(k, 100)]
            ip.append(max(ok) if ok else Fraction(0))
        assert r["AiP"][t] == pytest.approx(float(sum(ip) / 101), abs=1e-12)
        assert r["iP[0.01]"][t] == pytest.approx(float(ip[1]), abs=1e-12)


def test_inex_eval_bucketing_differs_only_by_rounding():
    # R = 29/100 exactly: exact test puts it at level 29; floor(100 * 0.29) = 28
    q = X.XmlQrels.from_passages({"1": [("d", 0, 100)]})
    run = X.XmlRun.from_spans({"1": [("d", 0, 29), ("d", 100, 171)]})
    ex = X.interpolated_precision(q, run, bucketing="exact")
    ie = X.interpolated_precision(q, run, bucketing="inex_eval")
    assert ex["iP[0.29]"]["1"] == 1.0
    assert 100 * (29 / 100) < 29  # IEEE double: 28.999999999999996
    assert ie["iP[0.29]"]["1"] == 0.0
    assert ex["iP[0.28]"]["1"] == ie["iP[0.28]"]["1"] == 1.0


# ---------------------------------------------------------------------------
# XCG: hand-worked case with nested elements
# ---------------------------------------------------------------------------

def element_example():
    els = [
        ("a", 0, 1000, 0.5, 0.5),   # article   q = .25
        ("a", 0, 600, 1.0, 0.5),    # s1        q = .5
        ("a", 0, 200, 0.0, 0.0),    # p1        q = 0
        ("a", 200, 400, 1.0, 1.0),  # p2        q = 1
        ("a", 400, 600, 0.5, 1.0),  # p3        q = .5
        ("a", 600, 1000, 0.5, 0.5), # s2        q = .25
        ("a", 600, 800, 1.0, 1.0),  # p4        q = 1
        ("a", 800, 1000, 0.0, 0.0), # p5        q = 0
    ]
    return X.XmlQrels.from_elements({"1": els})


def test_ideal_recall_base_rules():
    q = element_example()
    ideal = X.ideal_recall_base(q, "generalised")["1"]
    # p2 (q 1), p3 (ties with s1 at .5 -> deeper), p4
    assert sorted((s, e, g) for _, s, e, g in ideal) == [(200, 400, 1.0), (400, 600, 0.5), (600, 800, 1.0)]
    # strict: only p2 and p4 are relevant
    ideal = X.ideal_recall_base(q, "strict")["1"]
    assert sorted((s, e) for _, s, e, _ in ideal) == [(200, 400), (600, 800)]
    # overlap among kept elements: s1 (q .9) beats p2 on its path, p3 keeps its own
    # path... then s1 contains p3: ancestor rule keeps s1, descendant rule keeps p3
    els = [("a", 0, 600, 0.9, 1.0), ("a", 0, 200, 0.5, 0.5), ("a", 200, 400, 0.5, 1.0),
           ("a", 400, 600, 1.0, 1.0)]
    q2 = X.XmlQrels.from_elements({"1": els})
    anc = X.ideal_recall_base(q2, "generalised", "ancestor")["1"]
    desc = X.ideal_recall_base(q2, "generalised", "descendant")["1"]
    assert [(s, e) for _, s, e, _ in anc] == [(0, 600)]
    assert [(s, e) for _, s, e, _ in desc] == [(400, 600)]


def test_xcg_hand_worked_nested():
    q = element_example()
    run = X.XmlRun.from_spans({"1": [("a", 0, 600), ("a", 200, 400), ("a", 0, 1000), ("a", 600, 800)]})
    r = X.xcg(q, run, cutoffs=(1, 2, 3, 4), alpha=1.0, quantisation="generalised")
    # gains: s1 .5 (new); p2 0 (inside s1); a: children s1 (seen, 0) and s2 (new,
    # .25 * 400) -> 100 / 1000 = .1; p4 0 (inside a).  Ideal gains 1, 1, .5.
    assert r["XCG@1"]["1"] == pytest.approx(0.5)
    assert r["XCG@2"]["1"] == pytest.approx(0.5)
    assert r["XCG@3"]["1"] == pytest.approx(0.6)
    assert r["nxCG@1"]["1"] == pytest.approx(0.5)
    assert r["nxCG@3"]["1"] == pytest.approx(0.6 / 2.5)
    # ep at ranks with gain: rank 1 (xCI[1] = 1 >= .5 -> 1/1), rank 3 (1/3)
    assert r["MAep"]["1"] == pytest.approx((1 + 1 / 3) / 3)
    r2 = X.xcg(q, run, cutoffs=(4,), alpha=1.0, quantisation="generalised", maep_denominator="gain_ranks")
    assert r2["MAep"]["1"] == pytest.approx((1 + 1 / 3) / 2)
    # Thorough (alpha 0): overlap ignored, gains are the quantised values
    r0 = X.xcg(q, run, cutoffs=(4,), alpha=0.0, quantisation="generalised", normalise=False)
    assert r0["XCG@4"]["1"] == pytest.approx(0.5 + 1 + 0.25 + 1)


def test_xcg_partial_alpha_recursion():
    # alpha = .5, p2 first then s1: s1 partially seen; children p1 (new, q 0),
    # p2 (seen: (1-a) * 1 * 200), p3 (new, .5 * 200) ->
    # gain = a * (0 + 100 + 100) / 600 + (1 - a) * .5
    q = element_example()
    run = X.XmlRun.from_spans({"1": [("a", 200, 400), ("a", 0, 600)]})
    r = X.xcg(q, run, cutoffs=(1, 2), alpha=0.5, quantisation="generalised", normalise=False)
    assert r["XCG@2"]["1"] - r["XCG@1"]["1"] == pytest.approx(0.5 * 200 / 600 + 0.5 * 0.5)


def test_xcg_passage_result_under_element_assessments():
    # an arbitrary passage [100, 650) is valued through the elements inside it:
    # p2 (q 1) and p3 (q .5) -> (200 + 100) / 550; with p2 seen before -> 100 / 550
    q = element_example()
    r = X.xcg(q, X.XmlRun.from_spans({"1": [("a", 100, 650)]}), cutoffs=(1,), alpha=1.0,
              quantisation="generalised", normalise=False)
    assert r["XCG@1"]["1"] == pytest.approx(300 / 550)
    r = X.xcg(q, X.XmlRun.from_spans({"1": [("a", 200, 400), ("a", 100, 650)]}), cutoffs=(1, 2), alpha=1.0,
              quantisation="generalised", normalise=False)
    assert r["XCG@2"]["1"] - r["XCG@1"]["1"] == pytest.approx(100 / 550)


def test_seen_rule():
    # p1, p2, p3 retrieved, then s1: all of s1's text was seen (overlap 1) but
    # neither s1 nor an ancestor was retrieved
    q = element_example()
    run = X.XmlRun.from_spans({"1": [("a", 0, 200), ("a", 200, 400), ("a", 400, 600), ("a", 0, 600)]})
    kw = dict(cutoffs=(3, 4), alpha=0.5, quantisation="generalised", normalise=False)
    ov = X.xcg(q, run, seen="overlap", **kw)
    an = X.xcg(q, run, seen="ancestor", **kw)
    assert ov["XCG@4"]["1"] - ov["XCG@3"]["1"] == pytest.approx(0.5 * 0.5)
    # children all seen: a * sum (1 - a) q(c)|c| / |s1| + (1 - a) q(s1)
    kids = 0.5 * (0 * 200 + 1 * 200 + 0.5 * 200) / 600
    assert an["XCG@4"]["1"] - an["XCG@3"]["1"] == pytest.approx(0.5 * kids + 0.5 * 0.5)
    with pytest.raises(ValueError, match="seen"):
        X.xcg(q, run, seen="maybe")


def test_xcg_cap_under_ideal_element():
    # retrieving p2 twice-removed: p2 then its (unassessed) halves gain nothing new,
    # and a descendant cannot collect more than the ideal element's gain
    q = X.XmlQrels.from_elements({"1": [("a", 0, 100, 1.0, 1.0), ("a", 0, 50, 1.0, 1.0), ("a", 50, 100, 1.0, 1.0)]})
    # ideal (ties -> deeper): the two halves; gains 1 and 1
    run = X.XmlRun.from_spans({"1": [("a", 0, 50), ("a", 0, 100)]})
    on = X.xcg(q, run, cutoffs=(2,), alpha=0.0, quantisation="generalised", normalise=True)
    off = X.xcg(q, run, cutoffs=(2,), alpha=0.0, quantisation="generalised", normalise=False)
    assert off["XCG@2"]["1"] == pytest.approx(2.0)
    assert on["XCG@2"]["1"] == pytest.approx(2.0)  # the article is not under an ideal element
    run = X.XmlRun.from_spans({"1": [("a", 0, 50), ("a", 0, 50)]})
    on = X.xcg(q, run, cutoffs=(2,), alpha=0.0, quantisation="generalised", normalise=True)
    off = X.xcg(q, run, cutoffs=(2,), alpha=0.0, quantisation="generalised", normalise=False)
    assert off["XCG@2"]["1"] == pytest.approx(2.0)
    assert on["XCG@2"]["1"] == pytest.approx(1.0)


@pytest.mark.parametrize("seed", range(5))
def test_ideal_run_scores_one_at_every_rank(seed):
    rng = random.Random(seed)
    els = {}
    for t in range(3):
        lst = []
        for d in ("x", "y", "z"):
            tree = []
            random_laminar(rng, d, 0, 200, 3, tree)
            for sp in dict.fromkeys(tree):
                lst.append(sp + (rng.choice([0.0, 0.5, 1.0]), rng.choice([0.0, 0.25, 1.0])))
        els[str(t)] = lst
    q = X.XmlQrels.from_elements(els)
    ideal = X.ideal_recall_base(q, "generalised")
    spans = {t: [(d, s, e) for d, s, e, _ in lst] for t, lst in ideal.items() if lst}
    run = X.XmlRun.from_spans(spans)
    for alpha in (0.0, 1.0):
        r = X.evaluate(q, run, [f"nxCG@{k}" for k in range(1, 8)] + [f"ep@{k}" for k in range(1, 8)] + ["MAep"],
                       per_query=True, alpha=alpha, quantisation="generalised")
        for t, lst in spans.items():
            for k in range(1, min(len(lst), 7) + 1):
                assert r[f"nxCG@{k}"][t] == pytest.approx(1.0, abs=1e-12)
                assert r[f"ep@{k}"][t] == pytest.approx(1.0, abs=1e-12)
            assert r["MAep"][t] == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_alpha_zero_ignores_overlap(seed):
    rng = random.Random(seed)
    els = []
    random_laminar(rng, "x", 0, 300, 4, els)
    els = list(dict.fromkeys(els))
    graded = [sp + (rng.choice([0.0, 0.5, 1.0]), rng.choice([0.25, 1.0])) for sp in els]
    q = X.XmlQrels.from_elements({"1": graded})
    qv = {sp[:3]: sp[3] * sp[4] for sp in graded}
    picks = [rng.choice(els) for _ in range(20)]
    run = X.XmlRun.from_spans({"1": picks})
    r = X.xcg(q, run, cutoffs=(20,), alpha=0.0, quantisation="generalised", normalise=False)
    assert r["XCG@20"]["1"] == pytest.approx(sum(qv[p] for p in picks))
    # HiXEval with alpha 0 credits every highlighted character of every result
    qp = X.XmlQrels.from_passages({"1": [("x", 10, 90), ("x", 150, 160)]})
    h = X.hixeval(qp, run, cutoffs=(20,), alpha=0.0)
    tot = sum(len(chars(p) & (chars(("x", 10, 90)) | chars(("x", 150, 160)))) for p in picks)
    assert h["hixR@20"]["1"] == pytest.approx(tot / 90)


def test_hixeval_disjoint_is_character_precision_recall():
    q = X.XmlQrels.from_passages({"1": [("x", 5, 40), ("x", 60, 70), ("y", 0, 30)]})
    spans = [("x", 0, 20), ("y", 10, 50), ("x", 30, 65), ("z", 0, 10), ("x", 65, 100)]
    run = X.XmlRun.from_spans({"1": spans})
    hl = chars(("x", 5, 40)) | chars(("x", 60, 70)) | chars(("y", 0, 30))
    for alpha in (0.0, 0.3, 1.0):
        r = X.hixeval(q, run, cutoffs=(1, 2, 3, 4, 5), alpha=alpha)
        for k in range(1, 6):
            got = set().union(*[chars(s) for s in spans[:k]])
            assert r[f"hixP@{k}"]["1"] == pytest.approx(len(got & hl) / len(got))
            assert r[f"hixR@{k}"]["1"] == pytest.approx(len(got & hl) / len(hl))


def test_passage_xcg_character_reading():
    # passage qrels: r(e) = specificity; a partially seen span gains only its
    # unseen highlighted characters per character (alpha = 1)
    q = X.XmlQrels.from_passages({"1": [("d", 0, 100)]})
    run = X.XmlRun.from_spans({"1": [("d", 0, 50), ("d", 0, 200)]})
    r = X.xcg(q, run, cutoffs=(1, 2), alpha=1.0, normalise=False)
    assert r["XCG@1"]["1"] == pytest.approx(1.0)
    assert r["XCG@2"]["1"] == pytest.approx(1.0 + 50 / 200)


# ---------------------------------------------------------------------------
# quantisation
# ---------------------------------------------------------------------------

def test_quantisation_functions():
    exh = np.array([1.0, 1.0, 0.5, 0.0])
    spe = np.array([1.0, 0.5, 1.0, 1.0])
    assert X.quantise(exh, spe, "strict").tolist() == [1.0, 0.0, 0.0, 0.0]
    assert X.quantise(exh, spe, "generalised").tolist() == [1.0, 0.5, 0.5, 0.0]
    assert X.quantise(exh, spe, "inex2005", np.array([False, False, False, True])).tolist() == [1.0, 0.5, 0.5, 0.0]
    assert X.quantise(exh, spe, "inex2006").tolist() == [1.0, 0.5, 1.0, 1.0]
    assert X.quantise(exh, spe, lambda e, s: np.minimum(e, s)).tolist() == [1.0, 0.5, 0.5, 0.0]
    assert X.quantise(exh, spe, {(1.0, 1.0): 0.9}).tolist() == [0.9, 0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="quantisation"):
        X.quantise(exh, spe, "nope")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        X.quantise(exh, spe, lambda e, s: e * 2)


# ---------------------------------------------------------------------------
# bad input: clear errors naming file and line
# ---------------------------------------------------------------------------

def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_run_declared_non_overlapping(tmp_path):
    q = X.read_passage_qrels(DATA / "focused.qrels")
    p = write(tmp_path, "r.fol", "1 Q0 d1 1 2 r 0 100\n1 Q0 d2 2 1 r 0 10\n1 Q0 d1 3 0 r 50 100\n")
    with pytest.raises(ValueError, match=r"r\.fol:3: .*overlaps.*line 1.*non-overlapping"):
        X.read_fol_run(p, q, allow_overlap=False)
    X.read_fol_run(p, q, allow_overlap=True)  # fine when overlap is allowed
    with pytest.raises(ValueError, match="non-overlapping"):
        X.XmlRun.from_spans({"1": [("a", 0, 10), ("a", 5, 8)]}, allow_overlap=False)


def test_offsets_past_document_length(tmp_path):
    q = X.read_passage_qrels(DATA / "focused.qrels")
    p = write(tmp_path, "r.fol", "1 Q0 d2 1 2 r 0 100\n1 Q0 d2 2 1 r 300 101\n")
    with pytest.raises(ValueError, match=r"r\.fol:2: .*past the length 400"):
        X.read_fol_run(p, q)
    p = write(tmp_path, "q.txt", "1 Q0 d 10 50 0 45:10\n")
    with pytest.raises(ValueError, match=r"q\.txt:1: .*past the document length 50"):
        X.read_passage_qrels(p)


def test_negative_lengths(tmp_path):
    p = write(tmp_path, "r.fol", "1 Q0 d2 1 2 r 0 -5\n")
    with pytest.raises(ValueError, match=r"r\.fol:1: negative length"):
        X.read_fol_run(p)
    p = write(tmp_path, "q.txt", "1 Q0 d 10 50 0 4:10\n1 Q0 e 0 50 0 4:-1\n")
    with pytest.raises(ValueError, match=r"q\.txt:2: negative passage length"):
        X.read_passage_qrels(p)
    p = write(tmp_path, "e.tsv", "1\td\t10\t5\t1\t1\n")
    with pytest.raises(ValueError, match=r"e\.tsv:1: .*negative length"):
        X.read_element_tsv(p)
    with pytest.raises(ValueError, match="negative length"):
        X.XmlRun.from_spans({"1": [("a", 10, 5)]})


def test_unknown_documents(tmp_path):
    q = X.read_passage_qrels(DATA / "focused.qrels")
    p = write(tmp_path, "r.fol", "1 Q0 d1 1 2 r 0 10\n1 Q0 nowhere 2 1 r 0 10\n")
    with pytest.raises(ValueError, match=r"r\.fol:2: unknown document 'nowhere'"):
        X.read_fol_run(p, q, unknown_docs="error")
    run = X.read_fol_run(p, q)  # default: unknown documents are non-relevant text
    assert len(run.doc) == 2
    layout = {"doc1": {"/article[1]": (0, 100)}}
    xp = write(tmp_path, "a.xml", '<assessments topic="5"><file file="doc2">'
                                  '<path path="/article[1]" exhaustivity="2" size="100" rsize="50"/></file></assessments>')
    with pytest.raises(ValueError, match=r"a\.xml:1: unknown document 'doc2'"):
        X.read_inex_assessments(xp, layout)


def test_other_reader_errors(tmp_path):
    p = write(tmp_path, "q.txt", "1 Q0 d 10 50 0 4:20\n")
    with pytest.raises(ValueError, match=r"q\.txt:1: passages cover 20 .* relchars says 10"):
        X.read_passage_qrels(p)
    assert X.read_passage_qrels(p, check_relchars=False).trel().tolist() == [20]
    p = write(tmp_path, "r.fol", "1 Q0 d 1 x r 0 10\n")
    with pytest.raises(ValueError, match=r"r\.fol:1: rsv must be a number"):
        X.read_fol_run(p)
    p = write(tmp_path, "r.fol", "1 Q0 d 1 2 r 0\n")
    with pytest.raises(ValueError, match=r"r\.fol:1: expected"):
        X.read_fol_run(p)
    p = write(tmp_path, "e.tsv", "1 d 0 100 1 1\n1 d 50 150 1 1\n")
    with pytest.raises(ValueError, match=r"e\.tsv:2: assessed elements must nest"):
        X.read_element_tsv(p)
    with pytest.raises(TypeError, match="XmlQrels"):
        X.evaluate({}, X.XmlRun.from_spans({}))
    q, run = focused_example()
    with pytest.raises(ValueError, match="alpha"):
        X.evaluate(q, run, ["nxCG@5"], alpha=2)
    with pytest.raises(ValueError, match="unknown XML measure"):
        X.evaluate(q, run, ["nDCG@5"])
    with pytest.raises(ValueError, match="grid"):
        X.evaluate(q, run, ["iP[0.015]"])


# ---------------------------------------------------------------------------
# element TSV and INEX XML readers
# ---------------------------------------------------------------------------

def test_element_tsv_and_inex_xml_agree(tmp_path):
    tsv = write(tmp_path, "e.tsv", "# topic doc start end exh spe\n"
                "7\tart\t0\t300\t1\t0.5\n7\tart\t0\t100\t2\t1\n7\tart\t100\t300\t?\t0.2\n")
    q1 = X.read_element_tsv(tsv, exh_max=2)
    sizes = {"art": [("/article[1]", 300), ("/article[1]/sec[1]", 100), ("/article[1]/sec[2]", 200)]}
    layout = X.layout_from_sizes(sizes)
    assert layout["art"]["/article[1]/sec[2]"] == (100, 300)
    xml = write(tmp_path, "a.xml", """<?xml version="1.0"?>
<assessments topic="7">
  <file file="art">
    <path path="/article[1]" exhaustivity="1" size="300" rsize="150"/>
    <path path="/article[1]/sec[1]" exhaustivity="2" size="100" rsize="100"/>
    <path path="/article/sec[2]" exhaustivity="?" size="200" rsize="40"/>
  </file>
</assessments>""")
    q2 = X.read_inex_assessments(xml, layout)
    for a in ("el_start", "el_end", "el_exh", "el_spe", "el_small"):
        assert np.array_equal(getattr(q1, a), getattr(q2, a)), a
    runx = write(tmp_path, "run.xml", """<inex-submission run-id="R1">
<topic topic-id="7">
 <result><file>art</file><path>/article[1]/sec[1]</path><rank>1</rank></result>
 <result><file>art</file><path>/article[1]</path><rank>2</rank></result>
</topic></inex-submission>""")
    run = X.read_inex_run(runx, layout)
    assert run.topic_spans("7") == [("art", 0, 100), ("art", 0, 300)]
    bad = write(tmp_path, "b.xml", '<inex-submission>\n<topic topic-id="7">\n<result><file>art</file>'
                                   '<path>/article[1]/sec[9]</path></result>\n</topic></inex-submission>')
    with pytest.raises(ValueError, match=r"b\.xml:3: unknown element /article\[1\]/sec\[9\]"):
        X.read_inex_run(bad, layout)
    broken = write(tmp_path, "c.xml", '<assessments topic="7">\n<file file="art">\n<path path="x"\n</assessments>')
    with pytest.raises(ValueError, match=r"c\.xml:4: not well-formed"):
        X.read_inex_assessments(broken, layout)
    r = X.xcg(q2, run, cutoffs=(1, 2), quantisation="inex2005", alpha=1.0)
    # sec1 q = 1 * 1 (ideal); article: q .5*.5, partially seen -> children: sec1
    # seen (0), sec2 too small (q 0)  -> gain 0
    assert r["XCG@1"]["7"] == pytest.approx(1.0)
    assert r["XCG@2"]["7"] == pytest.approx(1.0)


# ---------------------------------------------------------------------------
# XCG (element assessments) against a direct reading of the recursive gain of docs/xml.md
# ---------------------------------------------------------------------------

def brute_xcg_gains(elements, run, alpha, ideal, seen_rule="overlap"):
    """rv(e_i) per docs/xml.md: r if unseen; (1 - alpha) r if fully seen; else
    alpha * sum_c rv(c)|c| / |e_i| + (1 - alpha) r over the maximal assessed
    elements c strictly inside e_i (recursively); then the cap under ideal
    elements.  O(n^2) over character sets."""
    q = {(d, s, e): ex * sp for d, s, e, ex, sp in elements}
    nodes = list(q)

    def children(span):
        d, s, e = span
        inside = [n for n in nodes if n[0] == d and s <= n[1] and n[2] <= e and n != span]
        return [n for n in inside if not any(o != n and o[1] <= n[1] and n[2] <= o[2] for o in inside)]

    done = []

    def fully(span, c, cov):
        if seen_rule == "overlap":
            return cov == len(c)
        return any(d[0] == span[0] and d[1] <= span[1] and span[2] <= d[2] for d in done)

    def value(span, seen, top=False):  # rv(span) * |span|
        c = chars(span)
        cov = len(c & seen)
        if top and span not in q:  # a passage, not an element: through the elements inside
            return 0.0 if (cov and fully(span, c, cov)) else alpha * sum(value(ch, seen) for ch in children(span))
        r = q.get(span, 0.0)
        if cov == 0:
            return r * len(c)
        if fully(span, c, cov):
            return (1 - alpha) * r * len(c)
        return alpha * sum(value(ch, seen) for ch in children(span)) + (1 - alpha) * r * len(c)

    seen, gains = set(), []
    rem = {x[:3]: x[3] for x in ideal}
    for span in run:
        g = value(span, seen, True) / (span[2] - span[1])
        for x in rem:
            if x[0] == span[0] and x[1] <= span[1] and span[2] <= x[2]:
                g = max(0.0, min(g, rem[x]))
                rem[x] -= g
                break
        gains.append(g)
        seen |= chars(span)
        done.append(span)
    return gains


@pytest.mark.parametrize("seed", range(6))
def test_xcg_tree_gain_matches_brute_force(seed):
    rng = random.Random(1000 + seed)
    tree = []
    random_laminar(rng, "x", 0, 120, 4, tree)
    random_laminar(rng, "y", 0, 60, 3, tree)
    tree = list(dict.fromkeys(tree))
    els = [sp + (rng.choice([0.0, 0.5, 1.0]), rng.choice([0.25, 0.5, 1.0])) for sp in tree]
    q = X.XmlQrels.from_elements({"1": els})
    ideal = X.ideal_recall_base(q, "generalised")["1"]
    # results: assessed elements and a few arbitrary (unassessed) spans
    picks = [rng.choice(tree) for _ in range(12)] + [("x", a, a + rng.randrange(1, 30)) for a in rng.sample(range(90), 3)]
    rng.shuffle(picks)
    run = X.XmlRun.from_spans({"1": picks})
    for alpha in (0.0, 0.5, 1.0):
        for rule in ("overlap", "ancestor"):
            expected = brute_xcg_gains(els, picks, alpha, ideal, rule)
            r = X.xcg(q, run, cutoffs=range(1, len(picks) + 1), alpha=alpha, quantisation="generalised", seen=rule)
            got = [r[f"XCG@{k}"]["1"] for k in range(1, len(picks) + 1)]
            assert np.allclose(got, np.cumsum(expected), atol=1e-9)


def test_read_only_arrays():
    q, run = focused_example()
    for obj in (q, run):
        for v in vars(obj).values():
            if isinstance(v, np.ndarray):
                v.setflags(write=False)
    assert X.evaluate(q, run, ["MAiP"])["MAiP"] == pytest.approx(59 / 101)


def test_large_topic_paths_match_brute_force():
    # > 256 spans per topic: the radix-sort path of the kernel
    rng = random.Random(42)
    lam = []
    for d in ("x", "y", "z"):
        random_laminar(rng, d, 0, 3000, 6, lam)
    picks = [rng.choice(lam) for _ in range(700)]
    crossing = [(d, s, s + rng.randrange(0, 400)) for d in ("x", "y") for s in rng.sample(range(2600), 300)]
    hl = [("x", 100, 900), ("y", 1500, 1600), ("z", 0, 3000)]
    q = X.XmlQrels.from_passages({"1": hl, "2": hl})
    run = X.XmlRun.from_spans({"1": picks, "2": crossing})
    ov = X.overlap(run)
    assert np.allclose(ov["1"], brute_overlap(picks), atol=1e-12)
    assert np.allclose(ov["2"], brute_overlap(crossing), atol=1e-12)
    r = X.hixeval(q, run, cutoffs=(700,), alpha=0.7)
    for t, spans in (("1", picks), ("2", crossing)):
        rv = brute_hixeval(spans, hl, 0.7)
        assert r["hixR@700"][t] == pytest.approx(sum(rv) / 3900, abs=1e-9)


def test_xcg_tree_gain_large_tree():
    # > 256 assessed elements: the radix-sort path for the element tree
    rng = random.Random(5)
    tree = []
    while len(tree) < 300:
        tree = []
        random_laminar(rng, "x", 0, 2000, 7, tree)
        tree = list(dict.fromkeys(tree))
    els = [sp + (rng.choice([0.0, 0.5, 1.0]), rng.choice([0.25, 1.0])) for sp in tree]
    q = X.XmlQrels.from_elements({"1": els})
    ideal = X.ideal_recall_base(q, "generalised")["1"]
    picks = [rng.choice(tree) for _ in range(40)]
    run = X.XmlRun.from_spans({"1": picks})
    expected = brute_xcg_gains(els, picks, 1.0, ideal)
    r = X.xcg(q, run, cutoffs=(10, 40), alpha=1.0, quantisation="generalised")
    assert r["XCG@10"]["1"] == pytest.approx(sum(expected[:10]), abs=1e-9)
    assert r["XCG@40"]["1"] == pytest.approx(sum(expected), abs=1e-9)


def test_ideal_run_passage_assessments():
    rng = random.Random(3)
    hl = {}
    for t in range(3):
        lst = []
        for d in ("x", "y"):
            s = 0
            for _ in range(rng.randrange(1, 4)):
                s += rng.randrange(1, 50)
                e = s + rng.randrange(1, 50)
                lst.append((d, s, e))
                s = e
        hl[str(t)] = lst
    q = X.XmlQrels.from_passages(hl)
    run = X.XmlRun.from_spans(hl)
    r = X.evaluate(q, run, [f"nxCG@{k}" for k in range(1, 7)] + [f"ep@{k}" for k in range(1, 7)] + ["MAiP"],
                   per_query=True)
    for t, lst in hl.items():
        for k in range(1, len(lst) + 1):
            assert r[f"nxCG@{k}"][t] == pytest.approx(1.0) and r[f"ep@{k}"][t] == pytest.approx(1.0)
        assert r["MAiP"][t] == pytest.approx(1.0)


def brute_ideal(els, rule):
    """Ideal set by the definition: every relevant path, its best element
    (highest q, ties to the deeper), then overlap removal."""
    q = {sp[:3]: sp[3] * sp[4] for sp in els}

    def contains(a, b):
        return a != b and a[0] == b[0] and a[1] <= b[1] and b[2] <= a[2]

    rel = [e for e in q if q[e] > 0]
    leaves = [e for e in rel if not any(contains(e, o) for o in rel)]
    chosen = set()
    for leaf in leaves:
        path = sorted([e for e in q if contains(e, leaf)] + [leaf], key=lambda e: (e[2] - e[1]), reverse=True)
        best = max(range(len(path)), key=lambda k: (q[path[k]], k))  # ties -> deeper (later)
        chosen.add(path[best])
    if rule == "ancestor":
        return {e for e in chosen if not any(contains(o, e) for o in chosen)}
    return {e for e in chosen if not any(contains(e, o) for o in chosen)}


@pytest.mark.parametrize("seed", range(8))
def test_ideal_recall_base_matches_definition(seed):
    rng = random.Random(500 + seed)
    tree = []
    random_laminar(rng, "x", 0, 400, 5, tree)
    random_laminar(rng, "y", 0, 100, 3, tree)
    tree = list(dict.fromkeys(tree))
    els = [sp + (rng.choice([0.0, 0.5, 1.0]), rng.choice([0.0, 0.5, 1.0])) for sp in tree]
    q = X.XmlQrels.from_elements({"1": els})
    for rule in ("ancestor", "descendant"):
        got = {(d, s, e) for d, s, e, _ in X.ideal_recall_base(q, "generalised", rule)["1"]}
        assert got == brute_ideal(els, rule)


def test_hixeval_with_element_assessments():
    # the article example of docs/xml.md as INEX 2005-style element assessments:
    # spe = rsize / size for highlighted [200,500) and [600,800)
    rsize = {(0, 1000): 500, (0, 600): 300, (0, 200): 0, (200, 400): 200, (400, 600): 100,
             (600, 1000): 200, (600, 800): 200, (800, 1000): 0}
    els = [("a", s, e, 1.0 if r else 0.0, r / (e - s)) for (s, e), r in rsize.items()]
    q = X.XmlQrels.from_elements({"1": els})
    _, run = article_example()
    r = X.hixeval(q, run, cutoffs=(1, 3))
    assert r["hixP@1"]["1"] == pytest.approx(0.5)
    assert r["hixR@1"]["1"] == pytest.approx(0.6)
    assert r["hixP@3"]["1"] == pytest.approx(500 / 1800)
    assert r["hixR@3"]["1"] == pytest.approx(1.0)
    t = X.hixeval(q, run, cutoffs=(3,), trel="thorough", alpha=0.0)
    # Thorough: Trel = rsize summed over all elements; alpha 0 credits every rsize
    assert t["hixR@3"]["1"] == pytest.approx((300 + 200 + 500) / 1500)
    with pytest.raises(ValueError, match="element assessments"):
        X.hixeval(article_example()[0], run, trel="thorough")
