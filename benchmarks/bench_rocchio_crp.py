"""Time all Rocchio and CRP scalars on the 10,000 queries x 1,000 documents workload.

Workload: per query, 1,000 retrieved documents drawn from a universe of 2,000
(scores uniform, rounded to 4 decimals, so ties occur), 20-200 judged
documents of the same universe with grades 0-3.  The TREC files are written
once to a cache directory and read with ``irscore.read_qrels``/``read_run``
outside the timed part.  Timed: one ``irscore.evaluate`` call on the in-memory
``Qrels``/``Run`` computing the ten scalars (Rnorm, Pnorm, rank_recall,
log_precision, scaled_recall with N = 2000; CRP_loss, CRP_worst_loss,
CRP_recovery, CRP_balance, CRP_turnaround), best of ``--repeat`` runs.  Also
shown: the same call with only ``num_ret`` (the run/qrels join plus one
trivial kernel: the floor of any evaluate() call) and the two kernels alone on
an already joined input.

    PYTHONPATH=src python benchmarks/bench_rocchio_crp.py [--queries 10000] [--docs 1000] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np

import irscore
from irscore import crp, rocchio
from irscore.classic import join

TARGET = 0.5


def write_files(nq: int, nd: int, universe: int, seed: int, directory: str):
    qp = os.path.join(directory, f"rc_qrels_{nq}_{nd}_{seed}.txt")
    rp = os.path.join(directory, f"rc_run_{nq}_{nd}_{seed}.txt")
    if os.path.exists(qp) and os.path.exists(rp):
        return qp, rp
    rng = np.random.default_rng(seed)
    names = np.asarray([f"D{i:05d}" for i in range(universe)])
    with open(qp + ".tmp", "w") as fq, open(rp + ".tmp", "w") as fr:
        for q in range(nq):
            nj = int(rng.integers(20, 201))
            judged = rng.choice(universe, nj, replace=False)
            grades = rng.integers(0, 4, nj)
            fq.write("".join(f"{q} 0 {names[d]} {g}\n" for d, g in zip(judged, grades)))
            docs = rng.choice(universe, nd, replace=False)
            scores = np.round(rng.random(nd), 4)
            fr.write("".join(f"{q} Q0 {names[d]} {i + 1} {s:.4f} bench\n"
                             for i, (d, s) in enumerate(zip(docs, scores))))
    os.replace(qp + ".tmp", qp)
    os.replace(rp + ".tmp", rp)
    return qp, rp


def best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--queries", type=int, default=10000)
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--universe", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "irscore_bench"))
    args = ap.parse_args()
    os.makedirs(args.cache, exist_ok=True)

    t = time.perf_counter()
    qp, rp = write_files(args.queries, args.docs, args.universe, args.seed, args.cache)
    qrels, run = irscore.read_qrels(qp), irscore.read_run(rp)
    print(f"workload: {len(run)} queries x {args.docs} documents, {qrels.n_entries} judgments "
          f"(setup {time.perf_counter() - t:.1f} s, not timed)")

    N = args.universe
    measures = [f"{m}(N={N})" for m in rocchio.MEASURES] + list(crp.MEASURES)
    res = irscore.evaluate(qrels, run, measures)          # warm-up (imports, first allocation)
    t_all = best_of(lambda: irscore.evaluate(qrels, run, measures), args.repeat)
    t_floor = best_of(lambda: irscore.evaluate(qrels, run, ["num_ret"]), args.repeat)
    j = join(qrels, run)
    t_roc = best_of(lambda: rocchio.from_ranked(j.rel, j.scores, j.offsets, j.levels, N), args.repeat)
    t_crp = best_of(lambda: crp.from_ranked(j.rel, j.offsets, j.levels), args.repeat)

    print(f"all 10 Rocchio + CRP scalars, evaluate(): {t_all:.3f} s  "
          f"(target < {TARGET} s: {'met' if t_all < TARGET else 'MISSED'})")
    print(f"  evaluate(['num_ret']) (join floor):     {t_floor:.3f} s")
    print(f"  Rocchio kernel (5 measures, one pass):  {t_roc:.3f} s")
    print(f"  CRP kernel (5 scalars, one pass):       {t_crp:.3f} s")
    for m in measures:
        print(f"  {m:<28s} {res[m]: .4f}")


if __name__ == "__main__":
    main()
