"""irscore vs pytrec_eval, ir_measures, ranx (and the trec_eval binary if found)
on the issue's synthetic workload, timed in one process.

Workload: 10,000 queries x 1,000 ranked docs; qrels with 20-200 judged docs per
query (grades 0-3, some judged docs not retrieved); scores rounded to 4 dp
(so ties occur); the run file is written in rank order as systems write them.
Measures: MAP, nDCG@10, P@10, RR.

    python benchmarks/bench_trec.py [--queries 10000] [--docs 1000] [--repeat 3]
                                    [--new-measures [--new-repeat 9] [--only-new-measures] [--n-jobs N]]

``--new-measures`` also times the evaluation (not parsing) of the loaded Run
with ERR@10 and alpha_nDCG@20 added to the four measures (the qrels read as
diversity qrels, one intent per query, so one join serves the six) against
the four alone: the two variants alternate ``--new-repeat`` times in this
process on the same data, and the best time of each is kept (wall clock and
CPU time of the process); a breakdown (the two joins, the two new measures'
kernels) follows.  ``--only-new-measures`` skips everything else; ``--n-jobs``
sets the threads of that comparison (default: irscore's, all cores).

Install the peers with `pip install -e ".[bench]"`.  Set TREC_EVAL=/path/to/trec_eval
to include the C binary (timed as a subprocess, parse + evaluate; the ratio to
irscore's files path is printed).

Also printed: the breakdown of the files path (reading the run: split/count
pass, layout, tokenize-and-write pass, finish; sorting the queries; reading the
qrels; the join; the measures), the floor it is measured against (reading the
run file from the page cache, one pass over its bytes in memory), the peak
resident memory of the files path in a fresh process, the time of its first
call in a fresh process (the timed runs share one process, where a read takes
over the column blocks the previous Run dropped), and the load average before
and after (timings on a loaded machine are not comparable).
"""
from __future__ import annotations

import argparse
import gc
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _cpu import describe  # noqa: E402

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"


def make_workload(nq: int, nd: int, seed: int = 42) -> Tuple[Path, Path]:
    """Write (once) the qrels and run files of the workload; return their paths."""
    DATA.mkdir(exist_ok=True)
    qpath, rpath = DATA / f"qrels_{nq}x{nd}.txt", DATA / f"run_{nq}x{nd}.txt"
    if qpath.exists() and rpath.exists():
        return qpath, rpath
    rng = np.random.default_rng(seed)
    with open(qpath, "w") as fq, open(rpath, "w") as fr:
        for q in range(nq):
            qid = f"q{q}"
            docs = rng.choice(nd * 20, size=nd, replace=False)
            scores = np.round(rng.random(nd) * 10, 4)
            order = np.argsort(-scores, kind="stable")
            n_judged = int(rng.integers(20, 201))
            # judged docs: mostly among the retrieved, some not retrieved
            judged_ret = rng.choice(nd, size=min(nd, n_judged * 4 // 5), replace=False)
            judged = [f"D{docs[i]}" for i in judged_ret]
            judged += [f"D{nd * 20 + q * 1000 + i}" for i in range(n_judged - len(judged))]
            grades = rng.choice(4, size=len(judged), p=[0.5, 0.25, 0.15, 0.10])
            fq.write("".join(f"{qid} 0 {d} {g}\n" for d, g in zip(judged, grades)))
            fr.write("".join(f"{qid} Q0 D{docs[i]} {r + 1} {scores[i]:.4f} bench\n"
                             for r, i in enumerate(order)))
    return qpath, rpath


FIRST: Dict[int, float] = {}


def timeit(fn: Callable[[], object], repeat: int) -> Tuple[float, object]:
    """Best of ``repeat`` runs (the first run's time is kept in FIRST[id(fn)])."""
    best, out = float("inf"), None
    for k in range(repeat):
        gc.collect()
        t = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t
        if k == 0:
            FIRST[id(fn)] = dt
        best = min(best, dt)
    return best, out


def load_dicts(qpath: Path, rpath: Path) -> Tuple[Dict[str, Dict[str, int]], Dict[str, Dict[str, float]]]:
    qrels: Dict[str, Dict[str, int]] = {}
    with open(qpath) as f:
        for line in f:
            q, _, d, g = line.split()
            qrels.setdefault(q, {})[d] = int(g)
    run: Dict[str, Dict[str, float]] = {}
    with open(rpath) as f:
        for line in f:
            q, _, d, _, s, _ = line.split()
            run.setdefault(q, {})[d] = float(s)
    return qrels, run


_HWM = """
try:
    hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]
    print(int(hwm) // 1024)
except OSError:
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
"""


def fresh_first_call_s(qpath: Path, rpath: Path, names: List[str]) -> float:
    """Wall time of the files path's first call in a new process (import excluded)."""
    code = (f"import time, irscore\nt = time.perf_counter()\n"
            f"irscore.evaluate(irscore.read_qrels({str(qpath)!r}), irscore.read_run({str(rpath)!r}), {names!r})\n"
            f"print(time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return float(out.stdout.split()[-1])


def peak_rss_mb(cmd: List[str]) -> float:
    """Peak resident memory (MiB) of a command.  Linux: VmHWM of the exec'd process
    (ru_maxrss would include the size of this process at fork time)."""
    if cmd[0] == sys.executable:
        out = subprocess.run(cmd[:-1] + [cmd[-1] + "\n" + _HWM], check=True, capture_output=True, text=True)
        return float(out.stdout.split()[-1])
    wrapper = ("import subprocess, sys, time\n"
               f"p = subprocess.Popen({cmd!r}, stdout=subprocess.DEVNULL)\n"
               "peak = 0\n"
               "while p.poll() is None:\n"
               "    try:\n"
               "        for l in open(f'/proc/{p.pid}/status'):\n"
               "            if l.startswith('VmHWM'): peak = max(peak, int(l.split()[1]))\n"
               "    except OSError: pass\n"
               "    time.sleep(0.01)\n"
               "print(peak // 1024)\n")
    out = subprocess.run([sys.executable, "-c", wrapper], check=True, capture_output=True, text=True)
    return float(out.stdout.split()[-1])


def new_measures_report(qpath: Path, rpath: Path, repeat: int, qr: Any = None, rn: Any = None,
                        n_jobs: Optional[int] = None) -> None:
    """Time (evaluation only) the four measures against the qrels and the six
    (+ ERR@10, alpha_nDCG@20) against the same qrels read as diversity qrels,
    alternating the two ``repeat`` times; print the best of each, the ratio
    and a breakdown."""
    import irscore
    from irscore import diversity
    from irscore.core.joined import ResultCache, join
    from irscore.core.measures import resolve
    from irscore.core.registry import family_values

    four = ["map", "ndcg_cut_10", "P_10", "recip_rank"]
    six = four + ["ERR@10", "alpha_nDCG@20"]
    qr = irscore.read_qrels(qpath) if qr is None else qr
    rn = irscore.read_run(rpath) if rn is None else rn
    # one intent per query: the grades are the same, so the four are unchanged
    dq = diversity.read_diversity_qrels(qpath)
    load0 = os.getloadavg()

    def clock(fn: Callable[[], object]) -> Tuple[float, float, object]:
        gc.collect()
        w, c = time.perf_counter(), time.process_time()
        out = fn()
        return time.perf_counter() - w, time.process_time() - c, out

    stages: Dict[str, Callable[[], object]] = {
        "evaluate, 4 measures (Qrels)": lambda: irscore.evaluate(qr, rn, four, n_jobs=n_jobs),
        "evaluate, 6 measures (DiversityQrels)": lambda: irscore.evaluate(dq, rn, six, n_jobs=n_jobs),
    }
    j_dq = join(dq, rn, n_jobs=n_jobs)
    err, andcg = (m for _, m in resolve(["ERR@10", "alpha_nDCG@20"]))
    parts: Dict[str, Callable[[], object]] = {
        "evaluate, 4 measures (DiversityQrels)": lambda: irscore.evaluate(dq, rn, four, n_jobs=n_jobs),
        "join, Qrels": lambda: join(qr, rn, n_jobs=n_jobs),
        "join, DiversityQrels (+ judged rows)": lambda: join(dq, rn, n_jobs=n_jobs),
        "ERR@10 kernel": lambda: family_values(j_dq, err, 1, ResultCache()),
        "alpha_nDCG@20 kernel": lambda: family_values(j_dq, andcg, 1, ResultCache()),
    }
    best: Dict[str, List[float]] = {k: [float("inf"), float("inf")] for k in [*stages, *parts]}
    results: Dict[str, object] = {}
    for r in range(repeat):
        # alternate the order, so neither variant always runs second
        order = list(stages) if r % 2 == 0 else list(stages)[::-1]
        for name in order + list(parts):
            w, c, out = clock(stages.get(name) or parts[name])
            best[name] = [min(best[name][0], w), min(best[name][1], c)]
            results.setdefault(name, out)
    a, b = (results[k] for k in stages)
    assert isinstance(a, dict) and isinstance(b, dict) and all(abs(a[k] - b[k]) < 1e-12 for k in four)
    load1 = os.getloadavg()
    threads = "irscore's default threads" if n_jobs is None else f"n_jobs={n_jobs}"
    print(f"\nnew measures (evaluation of the loaded Run, not parsing; {rn.n_entries:,} ranked documents, "
          f"{threads}): best of {repeat} alternating repetitions; load average {load0[0]:.2f} -> "
          f"{load1[0]:.2f} on {os.cpu_count()} cores")
    print(f"  {'':40s} {'wall ms':>9s} {'CPU ms':>9s}")
    for name in [*stages, *parts]:
        print(f"  {name:40s} {best[name][0] * 1e3:9.1f} {best[name][1] * 1e3:9.1f}")
    (w4, c4), (w6, c6) = (best[k] for k in stages)
    print(f"  6 measures / 4 measures: {w6 / w4:.3f}x wall clock, {c6 / c4:.3f}x CPU time "
          f"(target: at most 1.20x)")


def breakdown(qpath: Path, rpath: Path, names: List[str], repeat: int) -> Dict[str, float]:
    """Best-of-``repeat`` time of each stage of the files path, and the floor."""
    import mmap

    from irscore import _trec_io_split
    from irscore.core import data as _data
    from irscore.core import io as _io
    from irscore.core import joined as _joined
    from irscore.core import parallel as _parallel

    best: Dict[str, float] = {}

    def stage(name: str, t0: float) -> float:
        t1 = time.perf_counter()
        best[name] = min(best.get(name, float("inf")), t1 - t0)
        return t1

    size = rpath.stat().st_size
    buf = bytearray(size)
    parts = _parallel.cpu_count()
    spans = [(k, k + 1) for k in range(parts)]
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        with open(rpath, "rb", buffering=0) as f:
            f.readinto(buf)  # type: ignore[attr-defined]
        t = stage("floor: read() the run file from the page cache", t)
        np.frombuffer(buf, dtype=np.uint64, count=size // 8).sum()
        stage("floor: one pass over its bytes in memory (numpy sum)", t)
        gc.collect()
        t = time.perf_counter()
        with open(rpath, "rb") as fm, mmap.mmap(fm.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            mv = memoryview(mm)
            sp = _trec_io_split.SplitParser("run", str(rpath), mv, parts, release=True)
            _parallel.run(lambda k, _, sp=sp: sp.count(k), spans)
            t = stage(f"run: count pass ({parts} parts: lines, query ids)", t)
            sp.layout()
            t = stage("run: layout (query order, rows, allocation)", t)
            _parallel.run(lambda k, _, sp=sp: sp.parse(k), spans)
            t = stage("run: tokenize + check + write at final rows", t)
            sp.close_gaps()
            _parallel.run(lambda k, _, sp=sp: sp.shift_starts(k, parts), spans)
            parsed = sp.finish()
            t = stage("run: finish (close gaps between parts)", t)
            del sp
            mv.release()
        run = _data.Run(parsed, source=str(rpath))
        del parsed
        t = stage("run: sort each query (in place)", t)
        qrels = _io.read_qrels(qpath)
        t = stage("qrels: read (parse + sort)", t)
        joined = _joined.join(qrels, run)
        t = stage("join", t)
        del joined
        irscore_eval = __import__("irscore").evaluate
        irscore_eval(qrels, run, names)
        stage("evaluate (join + measures)", t)
        del run, qrels
    best["measures (evaluate - join)"] = best["evaluate (join + measures)"] - best["join"]
    return best


def main(argv: Optional[List[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queries", type=int, default=10000)
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-peers", action="store_true")
    ap.add_argument("--new-measures", action="store_true")
    ap.add_argument("--new-repeat", type=int, default=9)
    ap.add_argument("--only-new-measures", action="store_true")
    ap.add_argument("--n-jobs", type=int, default=None)
    ap.add_argument("--files-only", action="store_true",
                    help="the files path and the trec_eval binary only (no dicts, no peers)")
    ap.add_argument("--breakdown-only", action="store_true",
                    help="only the breakdown of the files path and its peak memory")
    args = ap.parse_args(argv)
    if args.only_new_measures:
        print(describe())
        new_measures_report(*make_workload(args.queries, args.docs), args.new_repeat, n_jobs=args.n_jobs)
        return

    import irscore

    qpath, rpath = make_workload(args.queries, args.docs)
    te_names = ["map", "ndcg_cut_10", "P_10", "recip_rank"]
    print(f"workload: {args.queries} queries x {args.docs} docs; run file "
          f"{rpath.stat().st_size / 1e6:.0f} MB, qrels {qpath.stat().st_size / 1e6:.1f} MB")
    print(f"measures: {', '.join(te_names)}; best of {args.repeat}; {os.cpu_count()} cores; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(describe())
    te = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    te_cmd = [te, "-m", "map", "-m", "ndcg_cut.10", "-m", "P.10", "-m", "recip_rank", str(qpath), str(rpath)] \
        if te else None
    # memory first, while this process is small
    code = (f"import irscore; irscore.evaluate(irscore.read_qrels({str(qpath)!r}), "
            f"irscore.read_run({str(rpath)!r}), {te_names!r})")
    mem = {"irscore files path": peak_rss_mb([sys.executable, "-c", code])}
    if te_cmd:
        mem["trec_eval binary"] = peak_rss_mb(te_cmd)
    # The runs below share one process: from the second read on, a read takes over
    # the column blocks the previous Run dropped (kept 10 s, pages resident).  The
    # first call of a fresh process has none: timed apart, in new processes.
    fresh = [fresh_first_call_s(qpath, rpath, te_names) for _ in range(3)]
    rows: Dict[str, float] = {}

    stages = breakdown(qpath, rpath, te_names, args.repeat)
    print(f"\nbreakdown of the files path (best of {args.repeat} each; stages run one after the other):")
    for name, t in stages.items():
        print(f"  {name:58s} {t:7.3f} s")
    if args.breakdown_only:
        for name, mb in mem.items():
            print(f"peak memory, {name} (fresh process, parse + evaluate): {mb:.0f} MiB")
        print(f"load average now {os.getloadavg()[0]:.2f}")
        return

    def ir_files():
        return irscore.evaluate(irscore.read_qrels(qpath), irscore.read_run(rpath), te_names)

    if te_cmd:
        # interleaved: irscore, the binary, irscore, ... (the load changes over time)
        best_ir, best_te, first_files = float("inf"), float("inf"), float("nan")
        for k in range(args.repeat):
            t_ir, ref = timeit(ir_files, 1)
            first_files = t_ir if k == 0 else first_files
            best_ir = min(best_ir, t_ir)
            t_te, _ = timeit(lambda: subprocess.run(te_cmd, capture_output=True, check=True), 1)
            best_te = min(best_te, t_te)
        rows["irscore: files (parse + evaluate)"] = best_ir
        rows["trec_eval binary: files"] = best_te
    else:
        rows["irscore: files (parse + evaluate)"], ref = timeit(ir_files, args.repeat)
        first_files = FIRST[id(ir_files)]
    t_read, (qr, rn) = timeit(lambda: (irscore.read_qrels(qpath), irscore.read_run(rpath)), args.repeat)
    rows["irscore: parse only"] = t_read
    rows["irscore: evaluate loaded Run"], _ = timeit(lambda: irscore.evaluate(qr, rn, te_names), args.repeat)

    if args.new_measures:
        new_measures_report(qpath, rpath, args.new_repeat, qr, rn, n_jobs=args.n_jobs)

    first_dicts = float("nan")
    if not args.files_only:
        qrels_d, run_d = load_dicts(qpath, rpath)

        def ir_dicts():
            return irscore.evaluate(qrels_d, run_d, te_names)

        rows["irscore: dicts (convert + evaluate)"], ref_d = timeit(ir_dicts, args.repeat)
        first_dicts = FIRST[id(ir_dicts)]
        assert all(abs(ref[k] - ref_d[k]) < 1e-12 for k in te_names)


    if not (args.skip_peers or args.files_only):
        try:
            import pytrec_eval

            def pt():
                ev = pytrec_eval.RelevanceEvaluator(qrels_d, {"map", "ndcg_cut.10", "P.10", "recip_rank"})
                return ev.evaluate(run_d)

            rows["pytrec_eval: dicts"], res = timeit(pt, 1)

            def pt_files():
                q, r = load_dicts(qpath, rpath)   # a plain Python reader (pytrec_eval has none)
                ev = pytrec_eval.RelevanceEvaluator(q, {"map", "ndcg_cut.10", "P.10", "recip_rank"})
                return ev.evaluate(r)

            rows["pytrec_eval: files (Python reader)"], _ = timeit(pt_files, 1)
            pm = float(np.mean([v["map"] for v in res.values()]))
            print(f"  check: MAP irscore {ref['map']:.6f} pytrec_eval {pm:.6f}")
        except ImportError:
            print("  (pytrec_eval not installed)")
        try:
            import ir_measures
            from ir_measures import AP, RR, P, nDCG

            def irm_files():
                qrels = ir_measures.read_trec_qrels(str(qpath))
                run = ir_measures.read_trec_run(str(rpath))
                return ir_measures.calc_aggregate([AP, nDCG @ 10, P @ 10, RR], qrels, run)

            rows["ir_measures: files"], res = timeit(irm_files, 1)
            rows["ir_measures: dicts"], _ = timeit(
                lambda: ir_measures.calc_aggregate([AP, nDCG @ 10, P @ 10, RR], qrels_d, run_d), 1)
        except ImportError:
            print("  (ir_measures not installed)")
        try:
            import ranx

            def rx():
                return ranx.evaluate(ranx.Qrels(qrels_d), ranx.Run(run_d), ["map", "ndcg@10", "precision@10", "mrr"])

            rx()  # numba compilation
            rows["ranx: dicts"], _ = timeit(rx, 1)
        except ImportError:
            print("  (ranx not installed)")

    base_f = rows["irscore: files (parse + evaluate)"]
    base_d = rows.get("irscore: dicts (convert + evaluate)", float("nan"))
    print(f"\n{'':40s} {'seconds':>9s}  {'ratio to irscore':>16s}")
    for name, t in rows.items():
        base = base_d if ": dicts" in name else base_f
        ratio = "" if name.startswith("irscore") else f"{t / base:14.1f}x"
        print(f"{name:40s} {t:9.3f}  {ratio:>16s}")

    print(f"\nirscore first run (the table shows the best of {args.repeat}): files {first_files:.3f} s, "
          f"dicts {first_dicts:.3f} s; the trec_eval binary alternates with irscore's files path "
          f"(best of {args.repeat}); other peers are timed once")
    if "trec_eval binary: files" in rows:
        print(f"trec_eval binary / irscore files path: {rows['trec_eval binary: files'] / base_f:.1f}x")
    print(f"irscore files path, first call of a fresh process (no kept blocks), 3 processes: "
          f"{', '.join(f'{t:.3f}' for t in fresh)} s")
    print()
    for name, mb in mem.items():
        print(f"peak memory, {name} (fresh process, parse + evaluate): {mb:.0f} MiB "
              f"(run file {rpath.stat().st_size / 2**20:.0f} MiB)")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
