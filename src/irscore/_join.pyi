from typing import Optional, Tuple

import numpy as np
from numpy.typing import NDArray
from typing_extensions import disjoint_base

_Sorted = Tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int32], NDArray[np.uint64], NDArray[np.float64]]
_Joined = Tuple[NDArray[np.int32], NDArray[np.float64], NDArray[np.int64], NDArray[np.int64], int]

@disjoint_base
class GroupSort:
    nq: int
    n: int
    maxcnt: int
    def __init__(
        self, qidx: NDArray[np.int32], qrank: NDArray[np.int64], nq: int, doc_off: NDArray[np.int64],
        doc_hash: NDArray[np.uint64], scores: NDArray[np.float64], doc_buf: NDArray[np.uint8], mode: int,
    ) -> None: ...
    @property
    def offsets(self) -> NDArray[np.int64]: ...
    def sort(self, lo: int, hi: int) -> None: ...
    def result(self) -> _Sorted: ...

def group_sort(
    qidx: NDArray[np.int32], qrank: NDArray[np.int64], nq: int, doc_off: NDArray[np.int64],
    doc_hash: NDArray[np.uint64], scores: NDArray[np.float64], doc_buf: NDArray[np.uint8], mode: int,
) -> _Sorted: ...
def sort_grouped(
    offsets: NDArray[np.int64], doc_start: NDArray[np.int64], doc_len: NDArray[np.int32],
    doc_hash: NDArray[np.uint64], values: NDArray[np.float64], doc_buf: NDArray[np.uint8],
    mode: int, lo: int, hi: int, ordered: Optional[NDArray[np.uint8]] = ...,
) -> None: ...
def dedup_sorted(
    offsets: NDArray[np.int64], doc_start: NDArray[np.int64], doc_len: NDArray[np.int32],
    doc_buf: NDArray[np.uint8], keep_out: Optional[NDArray[np.bool_]] = ..., lo: int = ..., hi: int = ...,
) -> NDArray[np.bool_]: ...

@disjoint_base
class Join:
    ne: int
    def __init__(
        self,
        q_off: NDArray[np.int64], q_start: NDArray[np.int64], q_len: NDArray[np.int32],
        q_hash: NDArray[np.uint64], q_grade: NDArray[np.int32], q_buf: NDArray[np.uint8],
        r_off: NDArray[np.int64], r_start: NDArray[np.int64], r_len: NDArray[np.int32],
        r_hash: NDArray[np.uint64], r_score: NDArray[np.float64], r_buf: NDArray[np.uint8],
        pair_q: NDArray[np.int64], pair_r: NDArray[np.int64],
        max_grade: int, max_docs: int, judged_only: bool, bogus_missing: bool = ..., run_unique: bool = ...,
        q_tag: Optional[NDArray[np.int32]] = ...,
    ) -> None: ...
    def run(self, lo: int, hi: int) -> None: ...
    def result(self) -> _Joined: ...
    def tags(self) -> Tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int32]]: ...

def join(
    q_off: NDArray[np.int64], q_start: NDArray[np.int64], q_len: NDArray[np.int32],
    q_hash: NDArray[np.uint64], q_grade: NDArray[np.int32], q_buf: NDArray[np.uint8],
    r_off: NDArray[np.int64], r_start: NDArray[np.int64], r_len: NDArray[np.int32],
    r_hash: NDArray[np.uint64], r_score: NDArray[np.float64], r_buf: NDArray[np.uint8],
    pair_q: NDArray[np.int64], pair_r: NDArray[np.int64],
    max_grade: int, max_docs: int, judged_only: bool, bogus_missing: bool = ...,
    q_tag: Optional[NDArray[np.int32]] = ...,
) -> _Joined: ...
