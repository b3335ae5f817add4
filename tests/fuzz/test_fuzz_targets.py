"""The atheris targets of fuzz/ (CI's fuzz step): what they hand the peers they
compare against.  A peer given input it does not define can hang or crash the
run in its own native code, which the target then reports as irscore's."""
from __future__ import annotations

import base64
import importlib.util
import re
import sys
from pathlib import Path

import pytest

FUZZ = Path(__file__).resolve().parents[2] / "fuzz"

# decodes to qrels {"q1": {"": -1, "c": -1}}, run {"q1": {"c": 1.0}, "q3": {"b": 0.25,
# "c": -0.5}}, measures {"ndcg"}: a query judged with negative grades only (well-formed
# otherwise), the input a CI run of the compat target timed out on
NEGATIVE_ONLY = base64.b64decode(
    "//////9M/yf/////////////////lZWVlZWVlZWVlZWVAgEDAgEDAgEDAgEDAgEDAgEDAgEDAgEDlZWVlZWVlZWV"
    "lZWVlZWVlZWVlUENApWVlZWVAwIBAwIBlZUDlZUC")


@pytest.fixture
def compat_target(monkeypatch):
    """fuzz/fuzz_compat.py with pytrec_eval replaced by a recorder of the
    judgments it is given (it raises, so the target's comparison stops there)."""
    pytest.importorskip("atheris")
    import irscore.compat.ir_measures  # noqa: F401 (imported before the target instruments imports)
    import irscore.compat.pytrec_eval  # noqa: F401

    monkeypatch.syspath_prepend(str(FUZZ))
    spec = importlib.util.spec_from_file_location("fuzz_compat_under_test", FUZZ / "fuzz_compat.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    given = []

    class Recorder:
        class RelevanceEvaluator:
            def __init__(self, qrels, measures):
                given.append(qrels)
                raise _Reached

    monkeypatch.setattr(module, "pytrec_eval", Recorder)
    yield module, given
    sys.modules.pop("fuzz_compat_under_test", None)


class _Reached(Exception):
    pass


def _run(module, data: bytes) -> None:
    try:
        module.test_one_input(data)
    except _Reached:
        pass


def test_compat_target_gives_pytrec_eval_no_query_judged_negative_only(compat_target):
    # pytrec_eval (trec_eval 9.0.8) computes such a query from an earlier call's
    # relevance levels: after {"q1": {"a": 3, "b": 1, "c": 0, "d": 3}} with ndcg it
    # loops for 30 s and more in te_calc_ndcg (grades of -2: a segmentation fault)
    module, given = compat_target
    _run(module, NEGATIVE_ONLY)
    assert given == []


def test_compat_target_still_compares_with_pytrec_eval(compat_target):
    # the seeds include well-formed judgments with relevant documents: those reach
    # pytrec_eval, and every query given has a grade >= 0
    module, given = compat_target
    for seed in sorted((FUZZ / "corpus" / "compat").iterdir()):
        _run(module, seed.read_bytes())
    assert given
    assert all(any(g >= 0 for g in docs.values()) for qrels in given for docs in qrels.values() if docs)


@pytest.mark.parametrize("qrels, defined", [
    ({"q1": {"a": -1, "b": -1}}, False),
    ({"q1": {"a": 1}, "q2": {"a": -2}}, False),
    ({"q1": {"a": -1, "b": 0}}, True),
    ({"q1": {"a": -1, "b": 2}, "q2": {}}, True),
    ({}, True),
])
def test_pytrec_eval_defined(compat_target, qrels, defined):
    module, _ = compat_target
    assert module.pytrec_eval_defined(qrels) is defined


def test_ci_smoke_step_runs_every_target():
    # a target left out of CI's step is never fuzzed there again (compat was, for a
    # hang in pytrec_eval that the target now avoids)
    spec = importlib.util.spec_from_file_location("fuzz_run_under_test", FUZZ / "run.py")
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)
    smoke = (FUZZ / "ci_smoke.sh").read_text(encoding="utf-8")
    loop = next(line for line in smoke.splitlines() if line.startswith("for t in "))
    targets = re.sub(r"\$\{FUZZ_TARGETS:-|\}", "", loop[len("for t in "):].split(";")[0]).split()
    assert sorted(targets) == sorted(run.TARGETS)
    assert sorted(run.TARGETS) == sorted(p.stem[len("fuzz_"):] for p in FUZZ.glob("fuzz_*.py"))
