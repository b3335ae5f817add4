"""The kernels of the classic path check what they are handed: the join
(``_join``), the measure kernel (``_ranking``) and the TREC reader (``_trec_io``)
raise ValueError on inconsistent or out-of-range arrays instead of reading or
writing out of bounds."""
import numpy as np
import pytest

from irscore import _join, _ranking, _trec_io
from kernel_calls import _compute_args, _gs_args, _join_args

i32, i64, u64, f64, u8 = np.int32, np.int64, np.uint64, np.float64, np.uint8


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


@pytest.mark.parametrize("pos,value", [
    (1, np.array([0, 2 ** 63 - 1], i64)), (7, np.array([0, 1, 2 ** 63 - 1], i64)),
    (7, np.array([0, -1, 2], i64)), (8, np.array([1, -1, 1], i32)), (2, np.array([1, 2 ** 31 - 1], i32)),
])
def test_join_checks_the_spans_it_reads(pos, value):
    # checked by run() before it reads the bytes of an id (two ids of equal hash; all hashes
    # are 0 here), no longer in the constructor
    args = _join_args()
    args[pos] = value
    j = _join.Join(*args)
    with pytest.raises(ValueError, match="out of the buffer"):
        j.run(0, j.ne)


def test_compute_valid():
    a = _compute_args()
    _ranking.compute(**a)
    assert a["out"][0, 0] == 0.5


@pytest.mark.parametrize("key,value", [
    ("ret_off", np.array([0, 9], i64)), ("ret_off", np.array([1, 3], i64)), ("levels", np.zeros((2, 2), i64)),
    ("op_col", np.array([1], i64)), ("par_off", np.array([0, 5], i64)), ("out", np.zeros((2, 1))),
    ("par_off", np.array([-1, 1], i64)),  # a negative start (found by the garbage test, debug build)
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


def test_ranking_ndcg_cut_without_cutoffs_reads_no_parameter():
    a = _compute_args()
    a.update(rel=np.array([3, 2], i32), ret_off=np.array([0, 2], i64), levels=np.array([[0, 0, 1, 1]], i64),
             op_kind=np.array([22], i32), par_off=np.array([0, 0], i64), params=np.zeros(0))
    _ranking.compute(**a)


def test_ranking_op_column_near_the_top_of_int64_is_refused():
    # op_col + width overflowed and passed: the op wrote before the output array
    with pytest.raises(ValueError, match="writes past the output"):
        _ranking.compute(np.array([1, 0, -1], i32), np.array([0, 3], i64), np.array([[1, 1]], i64),
                         np.array([4], i32), np.array([1], i64), np.array([2 ** 63 - 1], i64),
                         np.array([0, 0], i64), np.zeros(0), np.zeros((1, 1)))


def test_trec_io_entry_points():
    p = _trec_io.TrecParser("run", "x")
    p.feed(np.frombuffer(b"q 0 d 1 1.5 r\n", np.uint8))
    assert p.finish()["scores"].tolist() == [1.5]
    with pytest.raises(ValueError):
        _trec_io.TrecParser("nope")
    with pytest.raises(TypeError):
        _trec_io.hash_strings([b"bytes"])
    with pytest.raises(TypeError):
        _trec_io.encode_keys([1.5])
    buf, off, h = _trec_io.encode_keys(["a", 1])
    idx = _trec_io.KeyIndex(buf, off, h)
    assert idx.lookup(buf, off, h).tolist() == [0, 1]
    with pytest.raises(ValueError):
        _trec_io.KeyIndex(buf, off[:-1], h)
    with pytest.raises(ValueError):
        idx.lookup(buf, np.array([0, 9, 2], i64), h)
    with pytest.raises(ValueError):
        _trec_io.KeyIndex(buf, np.array([0, 3, 2], i64), h)

    # hash_slices: the hashes of hash_strings, offsets checked against the buffer
    text = "adóc-7" + "x" * 30
    raw = np.frombuffer(text.encode(), np.uint8)
    assert _trec_io.hash_slices(raw, np.array([0, 1, 7, 37], i64)).tolist() == \
        _trec_io.hash_strings(["a", "dóc-7", "x" * 30]).tolist()
    assert _trec_io.hash_slices(raw[:0], np.zeros(1, i64)).tolist() == []
    for off in ([0, 38], [1, 0], [-1, 0], []):
        with pytest.raises(ValueError):
            _trec_io.hash_slices(raw, np.array(off, i64))
