"""The XCG cap with passage assessments (docs/xml.md, XCG, "Cap"): a result's gain is
attributed to the ideal passages it touches, in proportion to (1 - alpha) h_k + alpha n_k
(its text of passage k, and the part of it no earlier result retrieved), each passage
capped at its ideal gain; MAep counts the first rank that collects gain for a passage.
Hand-worked cases and a character-by-character reference on random runs."""
from __future__ import annotations

import random

import numpy as np
import pytest

from irscore import _xml_xcg
from irscore import xml as X

NAMES = ["XCG@1", "XCG@2", "XCG@3", "nxCG@1", "nxCG@2", "nxCG@3", "gr@2", "gr@3", "MAep"]


def _eval(passages, spans, doclen=200, **kw):
    docs = {d for d, _, _ in passages} | {d for d, _, _ in spans}
    q = X.XmlQrels.from_passages({"1": passages}, doclens={d: doclen for d in docs})
    return X.evaluate(q, X.XmlRun.from_spans({"1": spans}), NAMES, **kw)


def test_crossing_result_then_the_rest_of_the_passage():
    # passage d0 [0, 2) (ideal gain q(1, 1) = 1, xCI = 1, 1, 1); alpha = 1
    # rank 1 [1, 3): 1 of its 2 characters highlighted, unseen: gain spe = 1/2, all of it
    #   for the passage (rem 1 -> 1/2); the passage's first gain: a rank MAep counts
    # rank 2 [0, 1): unseen, fully highlighted: gain 1, capped at the passage's rem 1/2;
    #   not counted by MAep (the passage was found at rank 1)
    # XCG = 1/2, 1, 1; nxCG@2 = gr@2 = 1; ep@1 = min{i : xCI[i] >= 1/2} / 1 = 1;
    # MAep = ep@1 / |ideal| = 1.  Before: rank 1 was not capped (it crosses the
    # passage), rank 2 kept 1: XCG@2 = 1.5 = nxCG@2, MAep = (1 + 1/2) / 1 = 1.5
    r = _eval([("d0", 0, 2)], [("d0", 1, 3), ("d0", 0, 1)])
    assert r["XCG@1"] == pytest.approx(0.5)
    assert r["XCG@2"] == pytest.approx(1.0)
    assert r["nxCG@2"] == pytest.approx(1.0)
    assert r["gr@2"] == pytest.approx(1.0)
    assert r["MAep"] == pytest.approx(1.0)
    off = _eval([("d0", 0, 2)], [("d0", 1, 3), ("d0", 0, 1)], normalise=False)
    assert off["XCG@2"] == pytest.approx(1.5) and off["MAep"] == pytest.approx(1.5)
    assert _eval([("d0", 0, 2)], [("d0", 1, 3), ("d0", 0, 1)], maep_denominator="gain_ranks")["MAep"] == 1.0


def test_overlapping_results_inside_a_passage():
    # passage [0, 100) of a 100-character document; run [0, 60), [40, 100)
    # rank 1: inside the passage, gain 1 = the passage's ideal gain (rem 0)
    # rank 2: alpha = 1: 40 new highlighted characters of 60, gain 2/3 -> capped to 0;
    #   alpha = 0: gain r = 1 -> 0;  alpha = 0.5: 0.5 * 1 + 0.5 * 2/3 -> 0
    # nxCG@2 = gr@2 = MAep = 1 whatever alpha
    for alpha in (1.0, 0.5, 0.0):
        r = _eval([("d", 0, 100)], [("d", 0, 60), ("d", 40, 100)], doclen=100, alpha=alpha)
        assert r["XCG@2"] == pytest.approx(1.0)
        assert r["nxCG@2"] == pytest.approx(1.0) and r["MAep"] == pytest.approx(1.0)


def test_result_crossing_two_passages():
    # passages [0, 10) and [20, 30) (xCI = 1, 2, 2); alpha = 1; run [5, 25), [0, 10), [20, 30)
    # rank 1 [5, 25): 10 highlighted of 20, gain 1/2, split 5 : 5 -> 1/4 to each
    #   passage (rem 3/4, 3/4); both found at rank 1: rank 1 counts once
    # rank 2 [0, 10): 5 new highlighted of 10: gain 1/2 -> passage 1 (rem 1/4); not counted
    # rank 3 [20, 30): the same for passage 2
    # XCG = 1/2, 1, 3/2; nxCG = 1/2, 1/2, 3/4; gr@3 = 3/4; MAep = ep@1 / 2 = 1/2
    # (before: MAep = (1 + 1/2 + 2/3) / 2 = 13/12, every rank with gain counted)
    r = _eval([("d", 0, 10), ("d", 20, 30)], [("d", 5, 25), ("d", 0, 10), ("d", 20, 30)])
    assert [r["XCG@1"], r["XCG@2"], r["XCG@3"]] == pytest.approx([0.5, 1.0, 1.5])
    assert [r["nxCG@1"], r["nxCG@2"], r["nxCG@3"]] == pytest.approx([0.5, 0.5, 0.75])
    assert r["gr@3"] == pytest.approx(0.75)
    assert r["MAep"] == pytest.approx(0.5)


def test_partial_alpha_and_a_containing_result():
    # passage [0, 100) of a 200-character document; alpha = 0.5; run [50, 150), [0, 100), [0, 200)
    # rank 1 [50, 150): unseen, spe 1/2: gain 1/2 (rem 1/2), counted
    # rank 2 [0, 100): partly seen (50 new highlighted characters of 100):
    #   0.5 * 50/100 + 0.5 * 1 = 3/4 -> capped at 1/2 (rem 0)
    # rank 3 [0, 200): 0.5 * 0/200 + 0.5 * 100/200 = 1/4 -> 0 (the passage is full)
    # XCG = 1/2, 1, 1 (before: 1/2, 5/4, 3/2)
    r = _eval([("d", 0, 100)], [("d", 50, 150), ("d", 0, 100), ("d", 0, 200)], alpha=0.5)
    assert [r["XCG@1"], r["XCG@2"], r["XCG@3"]] == pytest.approx([0.5, 1.0, 1.0])
    assert r["MAep"] == pytest.approx(1.0)


def test_non_crossing_runs_keep_their_values():
    # a result containing the passage, then results inside it: the passage gains at
    # rank 1 only (the contained results are completely seen), as before
    r = _eval([("d", 50, 100)], [("d", 0, 200), ("d", 50, 100), ("d", 60, 70)])
    assert [r["XCG@1"], r["XCG@3"]] == pytest.approx([0.25, 0.25])
    assert r["MAep"] == pytest.approx(1.0)


# ---------------------------------------------------------------------------
# reference: characters, one by one
# ---------------------------------------------------------------------------

def _reference(passages, spans, alpha, raw_gain):
    """Capped gains and MAep flags by the definition, character by character."""
    owner = {}
    for k, (d, s, e) in enumerate(passages):
        for c in range(s, e):
            owner[(d, c)] = k
    rem = [1.0] * len(passages)
    hit = [False] * len(passages)
    seen = set()
    gains, flags = [], []
    for (d, s, e), g in zip(spans, raw_gain):
        h = [0] * len(passages)
        n = [0] * len(passages)
        for c in range(s, e):
            k = owner.get((d, c))
            if k is not None:
                h[k] += 1
                n[k] += (d, c) not in seen
        seen |= {(d, c) for c in range(s, e)}
        w = [(1 - alpha) * h[k] + alpha * n[k] for k in range(len(passages))]
        if g <= 0 or sum(w) <= 0:
            gains.append(g)
            flags.append(g > 0)
            continue
        tot, new = 0.0, False
        for k in range(len(passages)):
            if w[k] > 0 and rem[k] > 0:
                share = min(g * w[k] / sum(w), rem[k])
                rem[k] -= share
                tot += share
                if share > 0 and not hit[k]:
                    hit[k] = new = True
        gains.append(tot)
        flags.append(new)
    return gains, flags


@pytest.mark.parametrize("seed", range(40))
def test_cap_against_character_reference(seed):
    rng = random.Random(seed)
    doclen = 40
    marks = {d: sorted(rng.sample(range(doclen + 1), 2 * rng.randint(1, 3))) for d in ("a", "b")}
    passages = [(d, m[i], m[i + 1]) for d, m in marks.items() for i in range(0, len(m), 2)]
    spans = []
    for _ in range(rng.randint(1, 8)):
        s = rng.randrange(doclen)
        spans.append((rng.choice("ab"), s, rng.randint(s + 1, doclen)))
    alpha = rng.choice([0.0, 0.3, 0.5, 1.0])
    seen = rng.choice(["ancestor", "overlap"])
    q = X.XmlQrels.from_passages({"1": passages}, doclens={"a": doclen, "b": doclen})
    passages = [(d, s, e) for d, s, e, _ in X.ideal_recall_base(q, "inex2006")["1"]]
    run = X.XmlRun.from_spans({"1": spans})
    n = len(spans)
    ks = list(range(1, n + 1))
    names = [f"XCG@{k}" for k in ks]
    raw = X.evaluate(q, run, names, alpha=alpha, seen=seen, normalise=False)
    raw_gain = np.diff([0.0] + [raw[f"XCG@{k}"] for k in ks])
    gains, flags = _reference(passages, spans, alpha, raw_gain)
    got = X.evaluate(q, run, names + ["MAep"], alpha=alpha, seen=seen)
    assert [got[f"XCG@{k}"] for k in ks] == pytest.approx(list(np.cumsum(gains)), abs=1e-12)
    # MAep by its definition: ep at the flagged ranks with gain, over |ideal|
    xci = np.arange(1, len(passages) + 1, dtype=float)
    cum, acc = 0.0, 0.0
    for r, (g, f) in enumerate(zip(gains, flags), start=1):
        cum += g
        if g > 0 and f:
            i = int(np.searchsorted(xci, cum * (1 - 1e-12))) + 1
            acc += min(i, len(passages)) / r
    assert got["MAep"] == pytest.approx(acc / len(passages), abs=1e-12)
    assert 0.0 <= got["MAep"] <= 1.0 + 1e-12
    assert got[f"XCG@{n}"] <= len(passages) + 1e-9


def test_kernel_checks_its_inputs():
    i64 = np.int64
    args = dict(run_off=np.array([0, 2], i64), run_doc=np.array([0, 0], i64), run_start=np.array([1, 0], i64),
                run_end=np.array([3, 1], i64), id_off=np.array([0, 1], i64), id_doc=np.array([0], i64),
                id_start=np.array([0], i64), id_end=np.array([2], i64), ideal_gain=np.ones(1), ndocs=1,
                alpha=1.0, gain=np.array([0.5, 1.0]), out_first=np.zeros(2, i64))

    def call(**ch):
        a = dict(args, gain=args["gain"].copy(), out_first=args["out_first"].copy())
        a.update(ch)
        _xml_xcg.xcg_passage_cap((a["run_off"], a["run_doc"], a["run_start"], a["run_end"]),
                                 (a["id_off"], a["id_doc"], a["id_start"], a["id_end"]), a["ideal_gain"],
                                 a["ndocs"], a["alpha"], a["gain"], a["out_first"])
        return a

    a = call()
    assert list(a["gain"]) == [0.5, 0.5] and list(a["out_first"]) == [1, 0]
    for ch, msg in [(dict(run_off=np.array([0, 99], i64)), "run_off"),
                    (dict(id_off=np.array([0, 5], i64)), "id_off"),
                    (dict(run_doc=np.array([0, 7], i64)), "document code"),
                    (dict(run_end=np.array([3], i64)), "one length"),
                    (dict(id_start=np.array([3], i64)), "start <= end"),
                    (dict(ideal_gain=np.ones(3)), "ideal_gain"),
                    (dict(gain=np.ones(1)), "gain"),
                    (dict(out_first=np.zeros(1, i64)), "out_first"),
                    (dict(alpha=2.0), "alpha"),
                    (dict(ndocs=-1), "ndocs"),
                    (dict(id_off=np.array([0, 2], i64), id_doc=np.array([0, 0], i64),
                          id_start=np.array([0, 1], i64), id_end=np.array([2, 3], i64),
                          ideal_gain=np.ones(2)), "overlap")]:
        with pytest.raises(ValueError, match=msg):
            call(**ch)
