#!/usr/bin/env bash
# Bounded fuzz step for CI: every atheris target for a fixed number of inputs.
# Needs the [fuzz] extra (atheris, Linux); skips cleanly without it.
# Usage: bash fuzz/ci_smoke.sh [RUNS]   (default 20000 inputs per target)
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python}"
RUNS="${1:-20000}"
if ! "$PY" -c "import atheris" 2>/dev/null; then
    echo "fuzz smoke: atheris is not installed (pip install '.[fuzz]'); skipped"
    exit 0
fi
"$PY" fuzz/run.py all --runs "$RUNS"
