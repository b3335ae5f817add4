"""HiXEval with overlapping results: each relevant character counts once."""
import numpy as np
import pytest


def test_hixeval_focused_counts_each_relevant_character_once():
    from irscore import xml

    q = xml.XmlQrels.from_passages({"1": [("d", 0, 100)]}, {"d": 200})
    r = xml.XmlRun.from_spans({"1": [("d", 0, 60), ("d", 40, 100)]})
    res = xml.evaluate(q, r, ["hixR@2", "hixP@2", "hixR@1"])
    assert res["hixR@2"] == 1.0          # was 1.2: characters 40-60 counted twice
    assert res["hixP@2"] == 100 / 120    # 100 relevant characters read out of 120
    assert res["hixR@1"] == 0.6
    # random overlapping runs: R@k is the share of highlighted characters retrieved
    rng = np.random.default_rng(5)
    for _ in range(200):
        hl = []
        for d in ("x", "y"):
            s = int(rng.integers(0, 60))
            hl.append((d, s, s + int(rng.integers(1, 40))))
        spans = []
        for _ in range(int(rng.integers(1, 8))):
            s = int(rng.integers(0, 99))
            spans.append((str(rng.choice(["x", "y"])), s, int(rng.integers(s + 1, 101))))
        qq = xml.XmlQrels.from_passages({"1": hl}, {"x": 100, "y": 100})
        rr = xml.XmlRun.from_spans({"1": spans})
        got = xml.hixeval(qq, rr, cutoffs=(1, 3, 8))
        want_chars = {(d, c) for d, s, e in hl for c in range(s, e)}
        for k in (1, 3, 8):
            seen = {(d, c) for d, s, e in spans[:k] for c in range(s, e)}
            assert got[f"hixR@{k}"]["1"] == pytest.approx(len(seen & want_chars) / len(want_chars), abs=1e-12)
            assert got[f"hixR@{k}"]["1"] <= 1.0
