"""Run one atheris fuzz target for a given time or number of inputs.

    python fuzz/run.py trec --seconds 60
    python fuzz/run.py measure --runs 20000            # a fixed number of inputs
    python fuzz/run.py xml --seconds 600 --asan        # modules built with -fsanitize=address
    python fuzz/run.py all --runs 20000                # every target in turn

Targets: trec, organization, xml, measure, batch, stats, compat (``fuzz/fuzz_<target>.py``).  New
inputs go to a growing corpus (``--work``, default ``fuzz/work/<target>/``,
git-ignored, kept from run to run), the seeds in ``fuzz/corpus/<target>/`` are
read but never written; crash files go to ``--artifacts`` (default
``fuzz/artifacts/``, git-ignored).  With ``--runs`` and ``--seconds`` both
given, a target stops at whichever comes first.  ``--asan`` preloads gcc's AddressSanitizer
runtime for modules built with ``-fsanitize=address``; that runtime takes over
libFuzzer's coverage hooks, so those runs mutate the corpus (seeds and the
grown corpus) without coverage feedback.  The package is
imported from ``src/`` of this checkout when it was built in place there
(``python setup.py build_ext --inplace``) and PYTHONPATH is not set; otherwise
from wherever Python finds it (an installed wheel).  The
exit code is non-zero when a target found something; the last line gives the
number of inputs run.  Extra arguments after ``--`` go to libFuzzer.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
TARGETS = ("trec", "organization", "xml", "measure", "batch", "stats", "compat")


def asan_env(env: dict) -> dict:
    lib = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True,
                         check=True).stdout.strip()
    # gcc's ASan runtime takes over the coverage hooks libFuzzer needs: mutate the
    # corpus without coverage feedback (fuzz/_common.py), grown first by a plain run
    env = dict(env, LD_PRELOAD=lib, PYTHONMALLOC="malloc", IRSCORE_FUZZ_MUTATION_ONLY="1")
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0:allocator_may_return_null=1")
    return env


def run_target(target: str, args: argparse.Namespace, extra: list) -> tuple:
    env = dict(os.environ)
    # str hashes order the targets' sets and dicts: fixed, so that a seeded run
    # (-seed=N) runs the same inputs from one process to the next
    env.setdefault("PYTHONHASHSEED", "0")
    built_in_place = any(p.suffix in (".so", ".pyd") for p in (REPO / "src" / "irscore").glob("_ranking.*"))
    if not env.get("PYTHONPATH") and built_in_place:    # else: the installed package
        env["PYTHONPATH"] = str(REPO / "src")
    if args.asan:
        env = asan_env(env)
    work = Path(args.work) / target
    work.mkdir(parents=True, exist_ok=True)
    artifacts = Path(args.artifacts) / target
    artifacts.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, str(HERE / f"fuzz_{target}.py"), str(work), str(HERE / "corpus" / target),
           f"-artifact_prefix={artifacts}/", "-timeout=60", "-rss_limit_mb=4096", "-max_len=4096",
           "-print_final_stats=1"]
    if args.seconds is not None:
        cmd.append(f"-max_total_time={args.seconds}")
    if args.runs is not None:
        cmd.append(f"-runs={args.runs}")
    if target == "measure":
        cmd.append(f"-dict={HERE / 'measure.dict'}")
    cmd += extra
    print("+", " ".join(cmd), flush=True)
    if args.log:
        with open(args.log, "a") as fh:
            fh.write(f"+ fuzz target {target}\n")
    # libFuzzer's output goes to a file as it runs (progress lines "#N ... exec/s")
    log_path = Path(args.log) if args.log else Path(args.work) / f"{target}.log"
    with open(log_path, "a") as fh:
        proc = subprocess.run(cmd, env=env, stderr=fh)
    log = log_path.read_text(errors="replace")
    log = log[log.rfind("+ fuzz target " + target):] if args.log else log
    m = re.findall(r"stat::number_of_executed_units:\s*(\d+)", log) or re.findall(r"Done (\d+) runs", log)
    n = int(m[-1]) if m else -1
    tail = "\n".join(line for line in log.splitlines()
                     if not line.startswith(("#", "INFO:", "stat::")) and line.strip())
    if proc.returncode != 0 and tail:
        sys.stderr.write(tail[-6000:] + "\n")
    known = [line for line in log.splitlines() if line.startswith("irscore fuzz: tolerating")]
    for line in known:
        print(line)
    print(f"{target}: {n} inputs, exit code {proc.returncode}", flush=True)
    return n, proc.returncode


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("target", choices=TARGETS + ("all",))
    p.add_argument("--seconds", type=int, help="run for this many seconds (per target)")
    p.add_argument("--runs", type=int, help="run this many inputs (per target)")
    p.add_argument("--asan", action="store_true", help="preload gcc's AddressSanitizer runtime "
                   "(for modules built with CFLAGS=-fsanitize=address)")
    p.add_argument("--work", default=str(HERE / "work"), help="the growing corpus: new inputs go to "
                   "WORK/<target> (default fuzz/work/, git-ignored; kept from run to run)")
    p.add_argument("--artifacts", default=str(HERE / "artifacts"), help="where crash inputs go")
    p.add_argument("--log", help="append libFuzzer's output to this file (default: in the scratch directory)")
    args, extra = p.parse_known_args()
    extra = [a for a in extra if a != "--"]
    if args.seconds is None and args.runs is None:
        p.error("give --seconds or --runs")
    rc = 0
    for t in (TARGETS if args.target == "all" else (args.target,)):
        n, code = run_target(t, args, extra)
        rc = rc or code
    return rc


if __name__ == "__main__":
    sys.exit(main())
