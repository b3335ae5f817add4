"""The batch kernel checks its arguments: each precondition, violated on its
own, is a ValueError (valid arguments recorded from façade calls,
tests/kernel_calls.py)."""
import numpy as np

from kernel_calls import _call, _with, entry_point_tests

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


test_entry_point_valid_call, test_entry_point_rejects = entry_point_tests(("_batch.",), VIOLATIONS)


def test_batch_n_relevant_grades_beyond_the_row():
    # 300 grades of n_relevant for a row of 2 candidates: the ideal holds 299 runs
    nrel2 = np.ones((1, 300), i64)
    args = _with("_batch.evaluate_rows", nrel_mode=2, nrel2=nrel2)
    _call("_batch.evaluate_rows", args)
