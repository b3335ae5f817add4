#!/usr/bin/env bash
# Bounded fuzz step for CI: every atheris target for a fixed number of inputs,
# each target stopped after at most SECONDS all the same (a loaded machine runs
# fewer inputs; run.py prints how many ran).
# Needs the [fuzz] extra (atheris, Linux); skips cleanly without it.
# Usage: bash fuzz/ci_smoke.sh [RUNS] [SEED] [SECONDS]   (FUZZ_TARGETS="trec xml" for some only)
#        (default 20000 inputs per target, seed 1, at most 30 s per target)
# The seed (and run.py's PYTHONHASHSEED=0) is fixed so that CI runs the same
# inputs in the same order for the same code (a CI result is reproducible);
# explore with other seeds and longer runs by hand (python fuzz/run.py all --seconds 600).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python}"
RUNS="${1:-20000}"
SEED="${2:-1}"
SECONDS_PER_TARGET="${3:-30}"
if ! "$PY" -c "import atheris" 2>/dev/null; then
    echo "fuzz smoke: atheris is not installed (pip install '.[fuzz]'); skipped"
    exit 0
fi
# every target runs, then the step fails if any found something
failed=""
for t in ${FUZZ_TARGETS:-trec organization xml measure batch stats compat}; do
    "$PY" fuzz/run.py "$t" --runs "$RUNS" --seconds "$SECONDS_PER_TARGET" -- -seed="$SEED" || failed="$failed $t"
done
if [ -n "$failed" ]; then
    echo "fuzz smoke: findings in:$failed (inputs in fuzz/artifacts/<target>/)"
    exit 1
fi
