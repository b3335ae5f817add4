"""Time ``irscore.compare`` against ranx's ``compare`` (randomization test).

Workload: 10 runs x 250 queries x 2 measures (map, ndcg_cut_10), 1,000
retrieved documents per query from a universe of 2,000, 20-200 judged
documents per query with grades 0-3; each run's scores lean towards the
relevant documents by a different amount, so the pairs range from clearly
different to alike.  The TREC files are written once under benchmarks/data/
(git-ignored).

Timed, best of ``--repeat``:

1. the statistics alone: the randomization test with 10,000 resamples over
   all 45 pairs x 2 measures plus Holm's correction, on the per-query values
   (``irscore.stats.comparison.pair_tests``; target < 1 s on one core);
2. the same comparison in ranx: ``ranx.compare(..., stat_test="fisher",
   n_permutations=10000)`` on in-memory Qrels/Run (its numba JIT warmed up
   first, in the same process); ranx's call also evaluates the runs, so the
   fair figure for irscore here is (3);
3. ``irscore.compare`` on in-memory data (evaluation + tests + Holm);
4. the whole command ``irscore compare QRELS RUN x 10 -m map -m ndcg_cut_10
   --test randomization`` in a fresh process (reading the 10 files; target
   < 2 s).

p-values of irscore and ranx are compared pair by pair: the largest
|p - p_ranx| is printed beside 4 sqrt(2 p (1 - p) / B), the bound of two
independent Monte Carlo estimates.

    PYTHONPATH=src python benchmarks/bench_compare.py [--repeat 3] [--resamples 10000] [--no-ranx]
"""
from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import time

import numpy as np

import irscore
from irscore.stats.comparison import pair_tests, pairs_of, per_query_matrix

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
N_RUNS, N_QUERIES, N_DOCS, UNIVERSE = 10, 250, 1000, 2000
MEASURES = ["map", "ndcg_cut_10"]


def write_files(seed: int = 0):
    os.makedirs(DATA, exist_ok=True)
    qp = os.path.join(DATA, f"cmp_qrels_{N_QUERIES}.txt")
    paths = [os.path.join(DATA, f"cmp_run{k}_{N_QUERIES}_{N_DOCS}.txt") for k in range(N_RUNS)]
    if os.path.exists(qp) and all(os.path.exists(p) for p in paths):
        return qp, paths
    rng = np.random.default_rng(seed)
    names = np.asarray([f"D{i:05d}" for i in range(UNIVERSE)])
    grade = np.zeros((N_QUERIES, UNIVERSE), dtype=np.int64)
    with open(qp, "w") as fq:
        for q in range(N_QUERIES):
            nj = int(rng.integers(20, 201))
            judged = rng.choice(UNIVERSE, nj, replace=False)
            g = rng.integers(0, 4, nj)
            grade[q, judged] = g
            fq.write("".join(f"q{q} 0 {names[d]} {v}\n" for d, v in zip(judged, g)))
    for k, path in enumerate(paths):
        lean = 0.02 * k
        with open(path, "w") as fr:
            for q in range(N_QUERIES):
                docs = rng.choice(UNIVERSE, N_DOCS, replace=False)
                scores = rng.random(N_DOCS) + lean * grade[q, docs]
                order = np.argsort(-scores, kind="stable")
                fr.write("".join(f"q{q} Q0 {names[docs[i]]} {r + 1} {scores[i]:.6f} run{k}\n"
                                 for r, i in enumerate(order)))
    return qp, paths


def best(f, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--no-ranx", action="store_true")
    args = ap.parse_args()
    B = args.resamples
    qp, paths = write_files()
    qrels = irscore.read_qrels(qp)
    runs = {f"run{k}": irscore.read_run(p) for k, p in enumerate(paths)}
    systems, keys, _, scores, _ = per_query_matrix(qrels, runs, MEASURES)
    pairs = pairs_of(systems, None)

    def stats_only():
        return pair_tests(systems, keys, scores, pairs, test="randomization", correction="holm", alpha=0.05,
                           n_resamples=B, seed=1, ci="t")

    stats_only()
    t_stats, rows = best(stats_only, args.repeat)
    print(f"statistics alone: {len(rows)} tests ({len(pairs)} pairs x {len(keys)} measures), {B:,} resamples "
          f"+ Holm: {t_stats:.3f} s (target < 1 s)")
    t_cmp, c = best(lambda: irscore.compare(qrels, runs, MEASURES, test="randomization", n_resamples=B, seed=1),
                    args.repeat)
    print(f"irscore.compare (evaluate 10 runs + tests + Holm, in memory): {t_cmp:.3f} s")

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(os.path.dirname(HERE), "src"), env.get("PYTHONPATH", "")])
    cmd = [sys.executable, "-m", "irscore", "compare", qp, *paths, "-m", "map", "-m", "ndcg_cut_10",
           "--test", "randomization", "--resamples", str(B), "--seed", "1"]

    def cli():
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)

    t_cli, _ = best(cli, args.repeat)
    print(f"`irscore compare` command, 10 files of 1,000 x 250 lines (fresh process): {t_cli:.3f} s "
          f"(target < 2 s)")

    if args.no_ranx:
        return
    try:
        import ranx
    except ImportError:
        print("ranx not installed: skipped")
        return
    rq = ranx.Qrels.from_file(qp, kind="trec")
    rr = []
    for k, p in enumerate(paths):
        r = ranx.Run.from_file(p, kind="trec")
        r.name = f"run{k}"
        rr.append(r)
    metrics = ["map", "ndcg@10"]
    ranx.compare(rq, rr[:2], metrics, stat_test="fisher", n_permutations=100, max_p=0.05)  # JIT warm-up
    t_ranx, rep = best(lambda: ranx.compare(rq, rr, metrics, stat_test="fisher", n_permutations=B, max_p=0.05),
                       1)
    print(f"ranx.compare (evaluate + Fisher randomization, {B:,} permutations): {t_ranx:.3f} s  -> "
          f"irscore.compare is {t_ranx / t_cmp:.1f}x faster; statistics alone {t_ranx / t_stats:.1f}x")
    diffs, ratios = [], []
    name_of = {"map": "map", "ndcg_cut_10": "ndcg@10"}
    for p in c.pairs:
        pr = rep.comparisons[frozenset([p.system, p.vs])][name_of[p.measure]]["p_value"]
        pm = max((p.p + pr) / 2, 1.0 / B)
        bound = 4 * math.sqrt(2 * pm * (1 - pm) / B) + 2.0 / B
        diffs.append(abs(p.p - pr))
        ratios.append(abs(p.p - pr) / bound)
    print(f"p-values vs ranx over {len(diffs)} tests: largest |p - p_ranx| = {max(diffs):.4f}; largest "
          f"|p - p_ranx| / (4 sqrt(2 p (1 - p) / B) + 2 / B) = {max(ratios):.2f} "
          f"({sum(r > 1 for r in ratios)} tests beyond the Monte Carlo bound)")

if __name__ == "__main__":
    main()
