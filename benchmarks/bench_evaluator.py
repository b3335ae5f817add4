"""Per-call cost of irscore.batch.Evaluator (the hot-loop validator), one process.

Workload: 32 queries x 100 candidates, graded labels 0..4 (60% zeros), float32
scores (``--dtype``), nDCG@10 + AP + P@10 + RR.  Timed per call (the best mean
over ``--rounds`` rounds of ``--calls`` calls, after a warm-up):

- ``batch.Evaluator`` (numpy arrays; CPU torch tensors; ``check_inputs=False``;
  a new batch on every call, cycling through ``--fresh`` batches: the same
  batch over and over lets the CPU's branch predictor learn its sorting
  branches, which a training loop, with new scores every step, never sees);
- the dense kernel alone (``irscore._batch.Kernel.dense`` with the Evaluator's
  plan and buffers: the floor of the Evaluator) and the general kernel
  (``irscore._batch.evaluate_rows``, what ``batch.evaluate`` calls);
- ``batch.evaluate`` (parses and plans on every call);
- pytrec_eval's ``evaluate`` on the same batch (its run dict built on every
  call, as a training loop must; its evaluator built once), and the ratio.

A second table shows one sort per query whatever the mix of measures:
``batch.evaluate`` with ``bpref`` (computed outside the batch kernel, from the
kernel's rank order) next to nDCG@10, on 1,000 x 100.

Times are CPU time of this process (``time.process_time``), so other processes
on a shared machine inflate them less than wall time would; the load average
(os.getloadavg) is printed before and after, and the figures are only
comparable within one run on an idle machine.

    PYTHONPATH=src python benchmarks/bench_evaluator.py [--calls 5000] [--rounds 5] [--simd avx2]

The kernel picks its vector code at run time (``irscore._batch._simd_level()``:
scalar, avx2, avx512, avx512_vp2intersect); ``--simd`` lowers it, to see what a
CPU without the higher levels would get.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from irscore import _batch, batch
from irscore.batch import engine

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _cpu import describe  # noqa: E402

MEASURES = ["nDCG@10", "AP", "P@10", "RR"]


def per_call(f, n, rounds):
    for _ in range(min(200, n)):
        f()
    best = float("inf")
    for _ in range(rounds):
        t0 = time.process_time()
        for _ in range(n):
            f()
        best = min(best, (time.process_time() - t0) / n)
    return best


def data(nq, nc, dtype, seed=1):
    rng = np.random.default_rng(seed)
    s = rng.standard_normal((nq, nc)).astype(dtype)
    lab = rng.choice(5, size=(nq, nc), p=[0.6, 0.2, 0.1, 0.07, 0.03]).astype(np.int64)
    return s, lab


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=5000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    ap.add_argument("--fresh", type=int, default=64, help="distinct batches cycled for the 'new batch' lines")
    ap.add_argument("--simd", choices=sorted(_batch.SIMD_LEVELS), default=None,
                    help="rank by counting with at most this vector level (default: the best this CPU has)")
    args = ap.parse_args()
    if args.simd is not None:
        _batch._set_simd_level(_batch.SIMD_LEVELS[args.simd])
    names = {v: k for k, v in _batch.SIMD_LEVELS.items()}
    level, top = _batch._simd_level()
    print(f"vector level: {names[level]} (this CPU: {names[top]})")
    print(describe())
    n, rounds = args.calls, args.rounds
    print(f"load average before: {os.getloadavg()}")
    s, lab = data(32, 100, args.dtype)

    ev = batch.Evaluator(MEASURES)
    want = batch.evaluate(s, lab, MEASURES)
    got = ev(s, lab)
    assert all(np.array_equal(want[k], got[k]) for k in MEASURES)

    plan = engine.plan_for(tuple(MEASURES), False, None)
    kernel = _batch.Kernel(plan.op_kind, plan.op_k, plan.op_thr, plan.op_gain, plan.op_disc,
                           engine.TIE_CODES["trec"])
    out_t = np.empty((len(plan.native), 32))
    starts, lens = np.arange(32, dtype=np.int64) * 100, np.full(32, 100, dtype=np.int64)
    out = np.empty((32, len(plan.native)))
    sf, lf = s.reshape(-1), lab.reshape(-1)
    e1, e2 = np.zeros(0, dtype=np.int64), np.zeros((0, 1), dtype=np.int64)

    def rows():
        return _batch.evaluate_rows(sf, lf, starts, lens, 0, 32, plan.op_kind, plan.op_k, plan.op_thr,
                                    plan.op_gain, plan.op_disc, 0, 1.0, 0.0, 0, e1, e2, out)

    t_dense = per_call(lambda: kernel.dense(s, lab, 1.0, out_t), n, rounds)
    t_rows = per_call(rows, n, rounds)
    t_ev = per_call(lambda: ev(s, lab), n, rounds)
    t_ev_nc = per_call(lambda: ev(s, lab, check_inputs=False), n, rounds)
    pool = [data(32, 100, args.dtype, seed=100 + i) for i in range(max(1, args.fresh))]
    outs = [np.empty((len(plan.native), 32)) for _ in pool]
    cyc = {"i": 0}

    def fresh_ev():
        i = cyc["i"] = (cyc["i"] + 1) % len(pool)
        return ev(*pool[i])

    def fresh_dense():
        i = cyc["i"] = (cyc["i"] + 1) % len(pool)
        return kernel.dense(pool[i][0], pool[i][1], 1.0, outs[i])

    t_ev_fresh = per_call(fresh_ev, n, rounds)
    t_dense_fresh = per_call(fresh_dense, n, rounds)
    t_eval = per_call(lambda: batch.evaluate(s, lab, MEASURES), n, rounds)
    print(f"32 x 100 ({args.dtype} scores), nDCG@10 + AP + P@10 + RR, CPU time per call:")
    print(f"  dense kernel alone (Evaluator's floor)  {t_dense * 1e6:8.1f} us")
    print(f"  general kernel (evaluate_rows)          {t_rows * 1e6:8.1f} us")
    print(f"  batch.Evaluator                         {t_ev * 1e6:8.1f} us   (target <= 10 us)")
    print(f"  batch.Evaluator, check_inputs=False     {t_ev_nc * 1e6:8.1f} us")
    print(f"  batch.Evaluator, a new batch each call  {t_ev_fresh * 1e6:8.1f} us   ({len(pool)} batches cycled)")
    print(f"  dense kernel alone, a new batch         {t_dense_fresh * 1e6:8.1f} us")
    try:
        import torch
    except ImportError:
        print("  torch not installed: the tensor case skipped")
    else:
        ts, tl = torch.from_numpy(s), torch.from_numpy(lab)
        t_torch = per_call(lambda: ev(ts, tl), n, rounds)
        print(f"  batch.Evaluator, CPU torch tensors      {t_torch * 1e6:8.1f} us")
    print(f"  batch.evaluate                          {t_eval * 1e6:8.1f} us")
    try:
        import pytrec_eval
    except ImportError:
        print("  pytrec_eval not installed: skipped")
    else:
        qrels = {f"q{q}": {f"d{j}": int(lab[q, j]) for j in range(100)} for q in range(32)}
        pev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10", "map", "P_10", "recip_rank"})

        def pcall():
            run = {f"q{q}": {f"d{j}": float(s[q, j]) for j in range(100)} for q in range(32)}
            return pev.evaluate(run)

        t_pt = per_call(pcall, max(50, n // 50), rounds)
        print(f"  pytrec_eval (run dict built per call)   {t_pt * 1e6:8.1f} us = {t_pt / t_ev:.0f} x Evaluator "
              f"(target >= 80 x), {t_pt / t_ev_fresh:.0f} x with a new batch each call")

    # one sort per query: bpref from the kernel's order
    s2, lab2 = data(1000, 100, args.dtype, seed=2)
    m = max(20, n // 100)
    t_n = per_call(lambda: batch.evaluate(s2, lab2, ["nDCG@10"]), m, rounds)
    t_b = per_call(lambda: batch.evaluate(s2, lab2, ["bpref"]), m, rounds)
    t_nb = per_call(lambda: batch.evaluate(s2, lab2, ["nDCG@10", "bpref"]), m, rounds)
    print("1,000 x 100, batch.evaluate, CPU time per call (one sort per query, in the kernel):")
    print(f"  nDCG@10                                 {t_n * 1e3:8.2f} ms")
    print(f"  bpref                                   {t_b * 1e3:8.2f} ms")
    print(f"  nDCG@10 + bpref                         {t_nb * 1e3:8.2f} ms")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
