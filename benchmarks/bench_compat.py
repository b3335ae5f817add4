"""The pytrec_eval shim (irscore.compat.pytrec_eval) vs pytrec_eval itself on the
dict workload of benchmarks/bench_trec.py: 10,000 queries x 1,000 ranked docs,
qrels with 20-200 judged docs per query, measures map, ndcg_cut.10, P.10,
recip_rank, timed in one process: RelevanceEvaluator construction + evaluate, and
evaluate alone on an evaluator built once; also ``irscore.evaluate`` on the same
dicts (the native API, means only) against pytrec_eval's construct + evaluate.  The two libraries alternate in every
repetition (so that a change of machine load hits both alike); the table shows
the best of ``--repeat`` and the median, and the ratios pytrec_eval / shim of both.

    python benchmarks/bench_compat.py [--queries 10000] [--docs 1000] [--repeat 5]

Figures are meaningful only on an otherwise idle machine (the load average is
printed before and after).
"""
from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from pathlib import Path
from typing import List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_trec import load_dicts, make_workload  # noqa: E402

MEASURES = {"map", "ndcg_cut.10", "P.10", "recip_rank"}
NAMES = ["map", "ndcg_cut_10", "P_10", "recip_rank"]


def main(argv: Optional[List[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queries", type=int, default=10000)
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)

    import pytrec_eval

    import irscore
    from irscore.compat import pytrec_eval as shim

    qpath, rpath = make_workload(args.queries, args.docs)
    qrels, run = load_dicts(qpath, rpath)
    print(f"workload: {args.queries} queries x {args.docs} docs (dicts); measures {sorted(MEASURES)}; "
          f"{args.repeat} interleaved repetitions; {os.cpu_count()} cores; "
          f"load average {os.getloadavg()[0]:.2f}")

    ev_shim = shim.RelevanceEvaluator(qrels, MEASURES)
    ev_pte = pytrec_eval.RelevanceEvaluator(qrels, MEASURES)
    cases = {
        "pytrec_eval: construct + evaluate": lambda: pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run),
        "shim: construct + evaluate": lambda: shim.RelevanceEvaluator(qrels, MEASURES).evaluate(run),
        "pytrec_eval: evaluate only": lambda: ev_pte.evaluate(run),
        "shim: evaluate only": lambda: ev_shim.evaluate(run),
        "irscore.evaluate (dicts, means)": lambda: irscore.evaluate(qrels, run, NAMES),
    }
    times = {name: [] for name in cases}
    got = want = None
    for _ in range(args.repeat):
        for name, fn in cases.items():
            gc.collect()
            t = time.perf_counter()
            res = fn()
            times[name].append(time.perf_counter() - t)
            if name.startswith("shim: construct"):
                got = res
            elif name.startswith("pytrec_eval: construct"):
                want = res
            del res

    assert got is not None and want is not None and list(got) == list(want)
    worst = max(abs(got[q][m] - want[q][m]) for q in want for m in want[q])
    print(f"  check: {len(want)} queries x {len(next(iter(want.values())))} measures, "
          f"largest difference {worst:.1e}")
    print(f"\n{'':36s} {'best s':>8s} {'median s':>9s}  {'pytrec_eval / irscore (best, median)':>37s}")
    for name, ts in times.items():
        ratio = ""
        if not name.startswith("pytrec_eval"):
            peer = times["pytrec_eval" + name[4:] if name.startswith("shim") else "pytrec_eval: construct + evaluate"]
            ratio = f"{min(peer) / min(ts):10.1f}x {statistics.median(peer) / statistics.median(ts):10.1f}x"
        print(f"{name:36s} {min(ts):8.3f} {statistics.median(ts):9.3f}  {ratio:>37s}")
    print(f"\nload average after: {os.getloadavg()[0]:.2f} (re-measure on an idle machine before quoting)")


if __name__ == "__main__":
    main()
