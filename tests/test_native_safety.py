"""The native kernels validate what they are handed: inconsistent or
out-of-range arrays raise ValueError instead of reading out of bounds."""
import numpy as np
import pytest

from irscore import _join, _ranking

i32, i64, u64, f64, u8 = np.int32, np.int64, np.uint64, np.float64, np.uint8


def _gs_args():
    buf = np.frombuffer(b"abcdef", dtype=u8)
    return dict(qidx=np.array([0, 0, 1], i32), qrank=np.array([1, 0], i64), nq=2,
                doc_off=np.array([0, 2, 4, 6], i64), doc_hash=np.zeros(3, u64),
                scores=np.array([1.0, 2.0, 3.0]), doc_buf=buf, mode=0)


def test_group_sort_valid():
    off, start, length, h, sc = _join.group_sort(**_gs_args())
    assert off.tolist() == [0, 1, 3] and sc.tolist() == [3.0, 2.0, 1.0]


@pytest.mark.parametrize("key,value", [
    ("qidx", np.array([0, 5, 1], i32)), ("qidx", np.array([0, -1, 1], i32)),
    ("qrank", np.array([7, 0], i64)), ("doc_off", np.array([0, 2, 4, 60], i64)),
    ("doc_off", np.array([0, 4, 2, 6], i64)), ("doc_hash", np.zeros(2, u64)), ("mode", 9),
])
def test_group_sort_rejects(key, value):
    args = _gs_args()
    args[key] = value
    with pytest.raises(ValueError):
        _join.group_sort(**args)


def _join_args():
    buf = np.frombuffer(b"abc", dtype=u8)
    return [np.array([0, 2], i64), np.array([0, 1], i64), np.array([1, 1], i32), np.zeros(2, u64),
            np.array([1, 0], i32), buf,
            np.array([0, 3], i64), np.array([0, 1, 2], i64), np.array([1, 1, 1], i32), np.zeros(3, u64),
            np.array([3.0, 2.0, 1.0]), buf,
            np.array([0], i64), np.array([0], i64), 1, -1, False]


def test_join_valid():
    rel, sc, off, levels, ndup = _join.join(*_join_args())
    assert rel.tolist() == [1, 0, -1] and levels.tolist() == [[1, 1]] and ndup == 0


@pytest.mark.parametrize("pos,value", [
    (0, np.array([0, 5], i64)), (1, np.array([0, 9], i64)), (2, np.array([1, 100], i32)),
    (7, np.array([0, 1, 5], i64)), (12, np.array([3], i64)), (13, np.array([4], i64)),
    (10, np.array([3.0])), (4, np.array([1], i32)),
])
def test_join_rejects(pos, value):
    args = _join_args()
    args[pos] = value
    with pytest.raises(ValueError):
        _join.join(*args)


def _compute_args():
    return dict(rel=np.array([1, 0, -1], i32), ret_off=np.array([0, 3], i64), levels=np.array([[1, 1]], i64),
                op_kind=np.array([10], i32), op_level=np.array([1], i64), op_col=np.array([0], i64),
                par_off=np.array([0, 1], i64), params=np.array([2.0]), out=np.zeros((1, 1)))


def test_compute_valid():
    a = _compute_args()
    _ranking.compute(**a)
    assert a["out"][0, 0] == 0.5


@pytest.mark.parametrize("key,value", [
    ("ret_off", np.array([0, 9], i64)), ("ret_off", np.array([1, 3], i64)), ("levels", np.zeros((2, 2), i64)),
    ("op_col", np.array([1], i64)), ("par_off", np.array([0, 5], i64)), ("out", np.zeros((2, 1))),
    ("op_kind", np.array([37], i32)),  # nDCG variant op needs >= 3 parameters
    ("op_kind", np.array([15], i32)),  # utility needs 5 parameters
])
def test_compute_rejects(key, value):
    a = _compute_args()
    a[key] = value
    with pytest.raises(ValueError):
        _ranking.compute(**a)


def test_readonly_inputs_work():
    a = _compute_args()
    for k, v in a.items():
        if k != "out":
            v.setflags(write=False)
    _ranking.compute(**a)
    assert a["out"][0, 0] == 0.5
