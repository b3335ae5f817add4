"""The batch kernel checks its arguments: each precondition, violated on its
own, is a ValueError (valid arguments recorded from façade calls,
tests/kernel_calls.py)."""
import numpy as np
import pytest

from kernel_calls import ENTRY_POINTS, _call, _with, recorded

i32, i64, u64, f64, u8 = np.int32, np.int64, np.uint64, np.float64, np.uint8

# (entry point, {argument: bad value}) -> ValueError
VIOLATIONS = [
    # _batch (n_relevant rows with more grades than the row has candidates were a write past
    # the ideal's run buffer)
    ("_batch.evaluate_rows", dict(lens=np.array([99], i64))),
    ("_batch.evaluate_rows", dict(q1=2)),
    ("_batch.evaluate_rows", dict(nrel_mode=7)),
    ("_batch.evaluate_rows", dict(nrel_mode=2, nrel2=np.zeros((1, 0), i64))),
    ("_batch.evaluate_rows", dict(out=np.zeros((1, 1)))),
]


@pytest.mark.parametrize("name", sorted(n for n in ENTRY_POINTS if n.startswith("_batch.")))
def test_entry_point_valid_call(name):
    _call(name, recorded(name))


@pytest.mark.parametrize("name,changes", VIOLATIONS,
                         ids=[f"{n}-{'-'.join(c)}-{i}" for i, (n, c) in enumerate(VIOLATIONS)])
def test_entry_point_rejects(name, changes):
    with pytest.raises(ValueError):
        _call(name, _with(name, **changes))


def test_batch_n_relevant_grades_beyond_the_row():
    # 300 grades of n_relevant for a row of 2 candidates: the ideal holds 299 runs
    nrel2 = np.ones((1, 300), i64)
    args = _with("_batch.evaluate_rows", nrel_mode=2, nrel2=nrel2)
    _call("_batch.evaluate_rows", args)
