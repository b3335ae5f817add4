"""Per-call cost of irscore.batch.Evaluator (the hot-loop validator), one process.

Workload: 32 queries x 100 candidates, graded labels 0..4 (60% zeros), float32
scores, nDCG@10 + AP + P@10 + RR.  Timed per call (mean over ``--calls`` calls
after a warm-up): ``batch.Evaluator`` (plain, and with ``check_inputs=False``),
``batch.evaluate`` (parses and plans on every call), the kernel alone
(``irscore._batch.evaluate_rows`` with a prepared plan: the floor), and
pytrec_eval's ``evaluate`` on the same batch (the run dict built on every call,
as a training loop must; its evaluator built once).

The machine's load (os.getloadavg) is printed before and after: other processes
share the cores, and the figures are only comparable within one run.

    PYTHONPATH=src python benchmarks/bench_evaluator.py [--calls 20000]
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from irscore import _batch, batch
from irscore.batch import engine

MEASURES = ["nDCG@10", "AP", "P@10", "RR"]


def per_call(f, n):
    for _ in range(min(200, n)):
        f()
    t0 = time.perf_counter()
    for _ in range(n):
        f()
    return (time.perf_counter() - t0) / n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=20000)
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()}")
    rng = np.random.default_rng(1)
    s = rng.standard_normal((32, 100)).astype(np.float32)
    lab = rng.choice(5, size=(32, 100), p=[0.6, 0.2, 0.1, 0.07, 0.03]).astype(np.int64)

    ev = batch.Evaluator(MEASURES)
    want = batch.evaluate(s, lab, MEASURES)
    got = ev(s, lab)
    assert all(np.array_equal(want[k], got[k]) for k in MEASURES)

    plan = engine.plan_for(tuple(MEASURES), False, None)
    starts, lens = np.arange(32, dtype=np.int64) * 100, np.full(32, 100, dtype=np.int64)
    out = np.empty((32, len(plan.native)))
    sf, lf = s.reshape(-1), lab.reshape(-1)
    e1, e2 = np.zeros(0, dtype=np.int64), np.zeros((0, 1), dtype=np.int64)

    def kernel():
        return _batch.evaluate_rows(sf, lf, starts, lens, 0, 32, plan.op_kind, plan.op_k, plan.op_thr,
                                    plan.op_gain, plan.op_disc, 0, 1.0, 0.0, 0, e1, e2, out)

    n = args.calls
    t_kernel = per_call(kernel, n)
    t_ev = per_call(lambda: ev(s, lab), n)
    t_ev_nc = per_call(lambda: ev(s, lab, check_inputs=False), n)
    t_eval = per_call(lambda: batch.evaluate(s, lab, MEASURES), n)
    print("32 x 100, nDCG@10 + AP + P@10 + RR, per call:")
    print(f"  kernel alone (the floor)              {t_kernel * 1e6:8.1f} us")
    print(f"  batch.Evaluator                       {t_ev * 1e6:8.1f} us   (target <= 10 us)")
    print(f"  batch.Evaluator, check_inputs=False   {t_ev_nc * 1e6:8.1f} us")
    print(f"  batch.evaluate                        {t_eval * 1e6:8.1f} us")
    try:
        import pytrec_eval
    except ImportError:
        print("pytrec_eval not installed: skipped")
    else:
        qrels = {f"q{q}": {f"d{j}": int(lab[q, j]) for j in range(100)} for q in range(32)}
        pev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10", "map", "P_10", "recip_rank"})

        def pcall():
            run = {f"q{q}": {f"d{j}": float(s[q, j]) for j in range(100)} for q in range(32)}
            return pev.evaluate(run)

        t_pt = per_call(pcall, max(100, n // 50))
        print(f"  pytrec_eval (run dict built per call) {t_pt * 1e6:8.1f} us = {t_pt / t_ev:.0f} x Evaluator "
              "(target >= 80 x)")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
