"""The validator inside a training loop: irscore.batch.Accumulator and the torchmetrics
integration against a reused batch.Evaluator and torchmetrics' own retrieval metrics.

Three tables (times are CPU time of this process, ``time.process_time``; the load
average is printed before and after; compare figures within one run only):

1. ``update()`` on 32 x 100 (nDCG@10 + AP + P@10 + RR), a new batch every call from
   a cycle of ``--fresh`` batches, against a reused ``batch.Evaluator`` call on the
   same batches (the target: at most 1.3 x), and ``compute()``.
2. 8000 x 40, nDCG@10 + AP + RR, one thread, CPU tensors: the Accumulator
   (``update`` + ``compute``) against torchmetrics' modules (``RetrievalNormalizedDCG``,
   ``RetrievalMAP``, ``RetrievalMRR``: ``update`` + ``compute`` with flat ``indexes``),
   and the largest difference of the values.
3. 1024 x 1000 (nDCG@10 + AP + RR): the torch device path (torch operations) against
   the native path, on CPU tensors; with ``--device cuda`` (a GPU) also on the GPU,
   with both device paths and torchmetrics on that device.

    PYTHONPATH=src python benchmarks/bench_accumulator.py [--calls 3000] [--rounds 5] [--device cuda]
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from irscore import _batch, batch


def per_call(f, n, rounds, sync=None):
    for _ in range(min(50, n)):
        f()
    best = float("inf")
    for _ in range(rounds):
        t0 = time.process_time()
        for _ in range(n):
            f()
        if sync is not None:
            sync()
        best = min(best, (time.process_time() - t0) / n)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--fresh", type=int, default=64)
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()
    print(f"load average at start: {os.getloadavg()}")
    print(f"vector level of the batch kernel: {_batch._simd_level()}")

    # 1 -------------------------------------------------------------- per call
    rng = np.random.default_rng(1)
    m4 = ["nDCG@10", "AP", "P@10", "RR"]
    cyc = [(rng.standard_normal((32, 100)).astype(np.float32),
            np.where(rng.random((32, 100)) < 0.6, 0, rng.integers(1, 5, (32, 100))).astype(np.int32))
           for _ in range(args.fresh)]
    ev = batch.Evaluator(m4)
    acc = batch.Accumulator(m4)
    it = [0]

    def call_ev():
        sc, lb = cyc[it[0] % len(cyc)]
        it[0] += 1
        ev(sc, lb)

    def call_upd():
        sc, lb = cyc[it[0] % len(cyc)]
        it[0] += 1
        acc.update(sc, lb)

    t_ev = [per_call(call_ev, args.calls, args.rounds) for _ in range(2)]
    t_up = [per_call(call_upd, args.calls, args.rounds) for _ in range(2)]
    t_cp = per_call(acc.compute, args.calls, args.rounds)
    e, u = min(t_ev), min(t_up)
    print("\n1. 32 x 100, nDCG@10 + AP + P@10 + RR, per call (best of rounds)")
    print(f"   batch.Evaluator call   {e * 1e6:8.2f} us")
    print(f"   Accumulator.update     {u * 1e6:8.2f} us   ({u / e:.2f} x the Evaluator; target <= 1.3 x)")
    print(f"   Accumulator.compute    {t_cp * 1e6:8.2f} us   (4 measures)")

    try:
        import torch
    except ImportError:
        print("\n(torch not installed: tables 2 and 3 skipped)")
        return
    torch.set_num_threads(1)

    # 2 ------------------------------------------------------ vs torchmetrics
    nq, nc = 8000, 40
    sc = rng.random((nq, nc)) + 0.01      # positive: torchmetrics ranks a score <= 0 as non-relevant
    lb = rng.integers(0, 2, (nq, nc))
    names = ["nDCG@10", "AP", "RR"]
    tsc, tlb = torch.as_tensor(sc), torch.as_tensor(lb)
    t0 = time.process_time()
    a2 = batch.Accumulator(names, n_jobs=1)
    a2.update(tsc, tlb)
    ours = a2.compute()
    t_ours = time.process_time() - t0
    best_ours = t_ours
    for _ in range(args.rounds - 1):
        t0 = time.process_time()
        a2 = batch.Accumulator(names, n_jobs=1)
        a2.update(tsc, tlb)
        a2.compute()
        best_ours = min(best_ours, time.process_time() - t0)
    try:
        from torchmetrics.retrieval import RetrievalMAP, RetrievalMRR, RetrievalNormalizedDCG
    except ImportError:
        print("\n(torchmetrics not installed: table 2 skipped)")
    else:
        idx = torch.arange(nq).repeat_interleave(nc)
        p, t = tsc.reshape(-1), tlb.reshape(-1)
        t0 = time.process_time()
        tm = {"nDCG@10": RetrievalNormalizedDCG(top_k=10), "AP": RetrievalMAP(), "RR": RetrievalMRR()}
        theirs = {}
        for k, m in tm.items():
            m.update(p, t if k == "nDCG@10" else t.bool(), indexes=idx)
            theirs[k] = float(m.compute())
        t_tm = time.process_time() - t0
        diff = max(abs(ours[k] - theirs[k]) for k in names)
        print(f"\n2. {nq} x {nc}, nDCG@10 + AP + RR, one thread, CPU tensors (update + compute)")
        print(f"   irscore Accumulator    {best_ours:8.4f} s (best of {args.rounds})")
        print(f"   torchmetrics modules   {t_tm:8.4f} s (one run)")
        print(f"   ratio                  {t_tm / best_ours:8.0f} x   (target >= 500 x); largest difference {diff:.2e}")

    # 3 ------------------------------------------------ device path vs native
    rounds = max(3, args.rounds)

    def on(path, s, l, ms):
        a = batch.Accumulator(ms, device_path=path, n_jobs=1)
        a.update(s, l)
        return a.compute()

    print("\n3. 1024 x 1000, update + compute, CPU tensors: torch device path vs native kernel")
    for dtype in (torch.float32, torch.float64):
        sc3 = torch.as_tensor(rng.standard_normal((1024, 1000))).to(dtype)
        lb3 = torch.as_tensor(rng.integers(0, 3, (1024, 1000)))
        for ms in (names, ["nDCG@10", "P@10", "RR"]):
            t_nat = per_call(lambda: on("native", sc3, lb3, ms), 1, rounds)
            t_dev = per_call(lambda: on("torch", sc3, lb3, ms), 1, rounds)
            same = on("native", sc3, lb3, ms) == on("torch", sc3, lb3, ms)
            print(f"   {str(dtype):14s} {' + '.join(ms):20s} native {t_nat * 1e3:7.2f} ms  torch {t_dev * 1e3:7.2f} ms"
                  f"  ({t_dev / t_nat:.2f} x; target <= 3 x); equal: {same}")
    if args.device != "cpu":
        dev = torch.device(args.device)
        sync = torch.cuda.synchronize if dev.type == "cuda" else None
        for shape in ((8000, 40), (10_000, 1000)):
            s = torch.randn(shape, device=dev)
            lab = torch.randint(0, 2, shape, device=dev)
            for path in ("offload", "torch"):
                t = per_call(lambda: on(path, s, lab, names), 1, rounds, sync)
                print(f"   {args.device} {shape}: {path:8s} {t * 1e3:8.2f} ms per update + compute")
    print(f"\nload average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
