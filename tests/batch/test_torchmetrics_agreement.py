"""irscore.batch against torchmetrics' retrieval functions, as docs/switching.md
states it: on positive scores nDCG@10, AP, RR, P@10 and R@10 agree within
float32's precision; torchmetrics 1.9 counts every candidate scored <= 0 as
non-relevant in AP, RR, P@k and R@k (not in nDCG), so on logit-scale scores
they differ, and the page's recipe (labels zeroed where the score is <= 0,
R@k over the unmasked relevant count) reproduces torchmetrics.
Skipped without torchmetrics (and torch)."""
from __future__ import annotations

from typing import Dict

import numpy as np
import pytest

from irscore import batch

torch = pytest.importorskip("torch")
tmr = pytest.importorskip("torchmetrics.functional.retrieval")

NAMES = ["nDCG@10", "AP", "RR", "P@10", "R@10"]


def torchmetrics_values(scores: np.ndarray, labels: np.ndarray) -> Dict[str, np.ndarray]:
    out: Dict[str, list] = {n: [] for n in NAMES}
    for s_row, y_row in zip(scores, labels):
        p, t = torch.tensor(s_row), torch.tensor(y_row)
        out["nDCG@10"].append(float(tmr.retrieval_normalized_dcg(p, t, top_k=10)))
        out["AP"].append(float(tmr.retrieval_average_precision(p, t > 0)))
        out["RR"].append(float(tmr.retrieval_reciprocal_rank(p, t > 0)))
        out["P@10"].append(float(tmr.retrieval_precision(p, t > 0, top_k=10)))
        out["R@10"].append(float(tmr.retrieval_recall(p, t > 0, top_k=10)))
    return {n: np.asarray(v) for n, v in out.items()}


def case(seed: int, loc: float):
    """256 queries of 30 candidates, distinct float32 scores ~ N(loc, 1), binary
    labels (every query has a relevant candidate)."""
    rng = np.random.default_rng(seed)
    s = rng.normal(loc, 1.0, size=(256, 30)).astype(np.float32)
    y = (rng.random((256, 30)) < 0.25).astype(np.int64)
    y[:, 0] = 1
    return s, y


def test_positive_scores_agree():
    s, y = case(0, 0.0)
    s = 1 / (1 + np.exp(-s))                      # probabilities: every score > 0
    theirs = torchmetrics_values(s, y)
    ours = batch.evaluate(s.astype(np.float64), y, NAMES)
    for n in NAMES:
        assert np.allclose(ours[n], theirs[n], rtol=0, atol=2e-7), n


def test_logit_scores_differ_and_the_recipe_reproduces_torchmetrics():
    s, y = case(1, -0.5)
    assert (s <= 0).mean() > 0.5
    theirs = torchmetrics_values(s, y)
    ours = batch.evaluate(s.astype(np.float64), y, NAMES)
    differ = {n: int((np.abs(ours[n] - theirs[n]) > 1e-6).sum()) for n in NAMES}
    assert differ["nDCG@10"] == 0                 # nDCG reads every candidate
    assert differ["AP"] > 200 and min(differ["RR"], differ["P@10"], differ["R@10"]) > 10, differ
    # the recipe of docs/switching.md
    masked = np.where(s > 0, y, 0)
    rec = batch.evaluate(s.astype(np.float64), masked, ["AP", "RR", "P@10"])
    rec.update(batch.evaluate(s.astype(np.float64), masked, ["R@10"], n_relevant=(y > 0).sum(axis=1)))
    rec["nDCG@10"] = ours["nDCG@10"]
    for n in NAMES:
        assert np.allclose(rec[n], theirs[n], rtol=0, atol=2e-7), n
