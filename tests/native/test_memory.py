"""Memory: many small evaluate() and batch.evaluate() calls do not grow the
resident set (a leak of a few hundred bytes per call would show as megabytes)."""
from __future__ import annotations

import gc
import os
from pathlib import Path

import numpy as np
import pytest

import irscore
from irscore import batch

STATM = Path("/proc/self/statm")
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
N_EVALUATE = 50_000         # 100,000 calls in all, half through each API
N_BATCH = 50_000
BOUND_MB = 8.0             # a leak of 84 bytes per call exceeds it


def _rss_mb() -> float:
    return int(STATM.read_text().split()[1]) * PAGE / 2**20


@pytest.mark.slow
@pytest.mark.skipif(not STATM.exists(), reason="needs /proc/self/statm (Linux)")
def test_100k_small_calls_do_not_grow_rss():
    qrels = {"q1": {"a": 1, "b": 0, "é": 2}, "q2": {"c": 2}}
    run = {"q1": {"a": 0.5, "b": 0.7, "c": 0.1, "é": 0.7}, "q2": {"c": 1.0, "d": 0.3}}
    q_obj, r_obj = irscore.Qrels.from_dict(qrels), irscore.Run.from_dict(run)
    scores = np.array([[0.9, 0.8, 0.1, np.nan], [0.2, 0.7, 0.5, 0.5]])
    labels = np.array([[0, 2, 1, 0], [1, 0, 0, 3]])
    flat_s, flat_l, offsets = np.array([0.3, 0.1, 0.2, 0.9]), np.array([1, 0, 2, 1]), np.array([0, 3, 4])

    def calls(n_eval: int, n_batch: int) -> None:
        for i in range(n_eval):
            if i % 2:
                irscore.evaluate(qrels, run, ["AP", "nDCG@10", "P@5", "Rnorm(N=100)"])      # dicts: encode + join
            else:
                irscore.evaluate(q_obj, r_obj, ["map", "ndcg_cut_10", "bpref"], per_query=True)
        for i in range(n_batch):
            k = i % 3
            if k == 0:
                batch.evaluate(scores, labels, ["AP", "nDCG@10", "RR"])
            elif k == 1:
                batch.evaluate(flat_s, flat_l, ["nDCG", "P@2"], offsets=offsets, ties="average")
            else:
                batch.evaluate(scores, labels, ["Bpref", "R@2"], lengths=[2, 4], n_relevant=[3, 4])

    calls(2_000, 2_000)             # warm-up: caches, allocator pools, lazily imported modules
    gc.collect()
    before = _rss_mb()
    calls(N_EVALUATE, N_BATCH)
    gc.collect()
    growth = _rss_mb() - before
    print(f"RSS growth over {N_EVALUATE + N_BATCH:,} calls: {growth:.2f} MB")
    assert growth < BOUND_MB, f"RSS grew by {growth:.1f} MB over {N_EVALUATE + N_BATCH:,} calls"
