"""The kernels of Rocchio's indices, CRP, the user models, ndeval's measures and
the preference counts check their arguments: each precondition of each entry
point, violated on its own, is a ValueError (valid arguments recorded from
façade calls, tests/kernel_calls.py)."""
import numpy as np
import pytest

from irscore import _crp, _diversity, _usermodel
from kernel_calls import entry_point_tests

i32, i64, u64, f64, u8 = np.int32, np.int64, np.uint64, np.float64, np.uint8

# (entry point, {argument: bad value}) -> ValueError
VIOLATIONS = [
    # _rocchio: a grade past the levels, offsets, shapes, level
    ("_rocchio.rocchio", dict(rel=np.array([1, 0, 70_000_000], i32), scores=np.array([3.0, 2.0, 1.0]),
                              offsets=np.array([0, 3], i64), levels=np.array([[1, 1]], i64),
                              n_docs=np.array([10], i64), out=np.zeros((1, 10)))),
    ("_rocchio.rocchio", dict(rel=np.array([-3, 0, 1], i32), scores=np.array([3.0, 2.0, 1.0]),
                              offsets=np.array([0, 3], i64), levels=np.array([[1, 1]], i64),
                              n_docs=np.array([10], i64), out=np.zeros((1, 10)))),
    ("_rocchio.rocchio", dict(level=-1)),
    ("_rocchio.rocchio", dict(offsets=np.array([0, 99, 99], i64))),
    ("_rocchio.rocchio", dict(scores=np.zeros(1))),
    ("_rocchio.rocchio", dict(n_docs=np.zeros(0, i64))),
    ("_rocchio.rocchio", dict(out=np.zeros((0, 10)))),
    ("_rocchio.min_collection_size", dict(offsets=np.array([0, 99, 99], i64))),
    ("_rocchio.min_collection_size", dict(offsets=np.array([0], i64))),
    ("_rocchio.min_collection_size", dict(out=np.zeros(0, i64))),
    # _crp
    ("_crp.curve_lengths", dict(offsets=np.array([5, 1, 2], i64))),
    ("_crp.curve_lengths", dict(out=np.zeros(0, i64))),
    ("_crp.curves", dict(level=-1)),
    ("_crp.curves", dict(out_off=np.array([0, 1, 1], i64))),
    ("_crp.curves", dict(rp=np.zeros(1, i64))),
    ("_crp.curves", dict(levels=np.zeros((1, 1), i64))),
    ("_crp.scalars", dict(level=-5)),
    ("_crp.scalars", dict(offsets=np.array([0, 1 << 40, 1 << 41], i64))),
    ("_crp.scalars", dict(out=np.zeros((2, 2)))),
    ("_crp.scalars", dict(levels=np.zeros((2, 1), i64))),
    # _prefs: ranks within each query's judged documents, CSR offsets, shapes, the sort order
    ("_prefs.counts", dict(rank=np.full(9, 99, i64))),
    ("_prefs.counts", dict(rank=np.full(9, -1, i64))),
    ("_prefs.counts", dict(q_off=np.array([0, 99], i64))),
    ("_prefs.counts", dict(q_off=np.array([0], i64))),
    ("_prefs.counts", dict(n_judged=np.array([99], i64))),
    ("_prefs.counts", dict(n_judged_ret=np.array([-1], i64))),
    ("_prefs.counts", dict(level=np.zeros(3))),
    ("_prefs.counts", dict(out=np.zeros((1, 2)))),
    ("_prefs.counts", dict(status=np.zeros(0, i64))),
    ("_prefs.counts", dict(jg=np.arange(9, 0, -1, dtype=i64))),
]


test_entry_point_valid_call, test_entry_point_rejects = entry_point_tests(("_rocchio.", "_crp.", "_prefs."), VIOLATIONS)


def test_rocchio_grade_past_the_levels_is_a_value_error():
    from irscore import rocchio
    with pytest.raises(ValueError, match="rel"):
        rocchio.from_ranked(np.array([1, 0, 70_000_000], i32), np.array([3.0, 2.0, 1.0]), np.array([0, 3], i64),
                            np.array([[1, 1]], i64), 10, graded=True, check_inputs=False)


def test_crp_curves_refuse_decreasing_output_offsets():
    with pytest.raises(ValueError, match="non-decreasing"):
        _crp.curves(np.array([1, 0, 1], i32), np.array([0, 2, 3], i64), np.array([[1, 2], [0, 1]], i64), 1, False,
                    np.array([0, 2 ** 63 - 1, -2], i64), np.zeros(3, i64), np.zeros(3, i64))


@pytest.mark.parametrize("end", [-1, 2 ** 63 - 1, 1])
def test_diversity_checks_row_offsets_before_reading_intent_offsets(end):
    e64, e32 = np.zeros(0, i64), np.zeros(0, i32)
    with pytest.raises(ValueError, match="row_off"):
        _diversity.diversity(np.array([0, 0], i64), np.array([0, 0], i64), e64, e32, np.array([0, end], i64),
                             np.array([0], i64), e32, e32, np.array([1], i64), 1, 0.5, 0.5, np.array([1], i64),
                             False, False, np.zeros((1, 9)))


def test_compat_refuses_relevant_counts_whose_sum_overflows():
    with pytest.raises(ValueError, match="more than 2\\*\\*62"):
        _usermodel.compat(np.array([1], i32), np.array([0, 1], i64), np.array([[0, 2 ** 62, 2 ** 62 + 2 ** 20]], i64),
                          0.8, True, np.zeros(1))
