"""The pytrec_eval shim (irscore.compat.pytrec_eval) vs pytrec_eval itself on the
dict workload of benchmarks/bench_trec.py: 10,000 queries x 1,000 ranked docs,
qrels with 20-200 judged docs per query, measures map, ndcg_cut.10, P.10,
recip_rank, timed in one process (RelevanceEvaluator construction + evaluate).

    python benchmarks/bench_compat.py [--queries 10000] [--docs 1000] [--repeat 3]

Figures are meaningful only on an otherwise idle machine.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_trec import load_dicts, make_workload, timeit  # noqa: E402

MEASURES = {"map", "ndcg_cut.10", "P.10", "recip_rank"}


def main(argv: Optional[List[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queries", type=int, default=10000)
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)

    import pytrec_eval

    from irscore.compat import pytrec_eval as shim

    qpath, rpath = make_workload(args.queries, args.docs)
    qrels, run = load_dicts(qpath, rpath)
    print(f"workload: {args.queries} queries x {args.docs} docs (dicts); measures {sorted(MEASURES)}; "
          f"best of {args.repeat}; {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}")

    def with_shim():
        return shim.RelevanceEvaluator(qrels, MEASURES).evaluate(run)

    def with_pytrec_eval():
        return pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)

    t_shim, got = timeit(with_shim, args.repeat)
    t_pte, want = timeit(with_pytrec_eval, args.repeat)
    ev_shim = shim.RelevanceEvaluator(qrels, MEASURES)
    ev_pte = pytrec_eval.RelevanceEvaluator(qrels, MEASURES)
    t_shim_eval, _ = timeit(lambda: ev_shim.evaluate(run), args.repeat)
    t_pte_eval, _ = timeit(lambda: ev_pte.evaluate(run), args.repeat)

    assert list(got) == list(want)
    worst = max(abs(got[q][m] - want[q][m]) for q in want for m in want[q])
    print(f"  check: {len(want)} queries x {len(next(iter(want.values())))} measures, "
          f"largest difference {worst:.1e}")
    print(f"\n{'':44s} {'seconds':>9s}  {'pytrec_eval / shim':>18s}")
    print(f"{'pytrec_eval: construct + evaluate':44s} {t_pte:9.3f}")
    print(f"{'irscore.compat.pytrec_eval: construct + evaluate':44s} {t_shim:9.3f}  {t_pte / t_shim:17.1f}x")
    print(f"{'pytrec_eval: evaluate only':44s} {t_pte_eval:9.3f}")
    print(f"{'irscore.compat.pytrec_eval: evaluate only':44s} {t_shim_eval:9.3f}  {t_pte_eval / t_shim_eval:17.1f}x")


if __name__ == "__main__":
    main()
