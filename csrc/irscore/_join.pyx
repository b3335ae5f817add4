"""Grouping, sorting and joining: from parsed columns to per-query relevance lists.

- ``group_sort``: group lines by query (queries in a given order) and sort each
  query's entries: runs in trec_eval order (score descending, then doc id
  descending) or stable score order; qrels by doc id (duplicates adjacent).
- ``dedup_qrels``: keep the last judgment of a (query, doc) pair (docs/conventions.md).
- ``join``: for each evaluated query, look every retrieved document up in the
  query's judgments (hash table on the doc-id hashes, bytes compared on a hash
  match) and emit the relevance list trec_eval's measures read: the judged grade
  (>= 0), ``-1`` for a document not in the qrels, ``-2`` for one judged with a
  negative grade (in the pool, unjudged).  Later duplicates of a retrieved doc
  id are dropped (counted), ``max_docs`` cuts the ranking, ``judged_only`` drops
  unjudged documents (trec_eval -J).  Also counts judgments per grade, and
  optionally lists, per query, the judged ranked documents with the tag of
  their judgment (an int32 per qrels entry, e.g. its row in richer tables):
  sparse (position, tag) pairs, so one pass serves every measure family at
  the cost of the judged documents only.

All kernels run without the GIL on validated arrays.
"""
from libc.stdint cimport int32_t, int64_t, uint64_t, uint8_t, uint32_t
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset

import numpy as np

from irscore._irs_common cimport irs_bytes_cmp, irs_no_hugepages
from irscore._irs_sort cimport irs_entry, irs_id_prefix, irs_idkey, irs_idkey_sort, irs_sort_entries

cdef object zeros2(int64_t rows, int64_t cols, object dtype):
    """np.zeros((rows, cols)) backed by small pages: a (queries x grades) table is
    mostly untouched zeros, and numpy's huge-page advice faulted in 2 MiB for every
    row written (one grade of 1,000,000 over 1,000 queries: 2 GB and 4.5 s)."""
    a = np.zeros((rows, cols), dtype=dtype)
    cdef uint8_t[::1] raw
    if a.nbytes >= (4 << 20):
        raw = a.reshape(-1).view(np.uint8)
        irs_no_hugepages(&raw[0], a.nbytes)
    return a


cdef object empty(int64_t n, object dtype):
    """np.empty backed by small pages (see irs_no_hugepages)."""
    a = np.empty(n, dtype=dtype)
    cdef uint8_t[::1] raw
    if a.nbytes >= (4 << 20):
        raw = a.view(np.uint8)
        irs_no_hugepages(&raw[0], a.nbytes)
    return a

cdef int check_offsets(const int64_t[::1] off, int64_t n, str what) except -1:
    """CSR offsets: start at 0, non-decreasing, end at n."""
    cdef int64_t i, m = off.shape[0]
    if m < 1 or off[0] != 0 or off[m - 1] != n:
        raise ValueError(f"{what}: offsets must start at 0 and end at {n}")
    for i in range(m - 1):
        if off[i + 1] < off[i]:
            raise ValueError(f"{what}: offsets must be non-decreasing")
    return 0


cdef inline bint span_in(int64_t start, int32_t length, int64_t nbuf) noexcept nogil:
    return start >= 0 and length >= 0 and start <= nbuf - length


cdef int check_spans(const int64_t[::1] start, const int32_t[::1] length, int64_t nbuf, str what,
                     int64_t lo=0, int64_t hi=-1) except -1:
    """Every (start, length) of rows lo..hi-1 (default: all) lies inside a buffer of
    nbuf bytes; checked without the GIL, so calls for other row ranges check theirs
    at the same time."""
    cdef int64_t i, bad = -1
    if start.shape[0] != length.shape[0]:
        raise ValueError(f"{what}: doc_start and doc_len differ in length")
    if hi < 0:
        hi = start.shape[0]
    if lo < 0 or hi > start.shape[0]:
        raise ValueError(f"{what}: row range outside the columns")
    with nogil:
        for i in range(lo, hi):
            if start[i] < 0 or length[i] < 0 or start[i] > nbuf - length[i]:
                bad = i
                break
    if bad >= 0:
        raise ValueError(f"{what}: doc id span {bad} out of the buffer")
    return 0


cdef class GroupSort:
    """Group entries by query and sort each group (``sort(lo, hi)`` may run in
    several threads on disjoint query ranges; it releases the GIL).

    ``qidx[i]`` is the parse-order query of entry i and ``qrank[q]`` the output
    position of parse query q (0..nq-1).  ``mode``: 0 trec order, 1 stable score
    order, 2 doc id descending then input order (qrels), 3 grouping only (input
    order kept).  ``result()`` gives ``(offsets, doc_start, doc_len, doc_hash,
    scores)`` in output order.
    """
    cdef const int64_t[::1] doc_off
    cdef const uint64_t[::1] doc_hash
    cdef const double[::1] scores
    cdef const char *docs
    cdef object doc_buf_ref
    cdef int mode
    cdef readonly int64_t nq, n, maxcnt
    cdef object offsets_a, perm_a, out_start_a, out_len_a, out_hash_a, out_score_a
    cdef int64_t[::1] offs
    cdef uint32_t[::1] perm
    cdef int64_t[::1] out_start
    cdef int32_t[::1] out_len
    cdef uint64_t[::1] out_hash
    cdef double[::1] out_score

    def __init__(self, const int32_t[::1] qidx, const int64_t[::1] qrank, int64_t nq,
                 const int64_t[::1] doc_off, const uint64_t[::1] doc_hash,
                 const double[::1] scores, const uint8_t[::1] doc_buf, int mode):
        cdef int64_t n = qidx.shape[0]
        cdef int64_t i, q, cnt, maxcnt = 0
        cdef int64_t *fill
        if doc_off.shape[0] != n + 1 or doc_hash.shape[0] != n or scores.shape[0] != n or qrank.shape[0] != nq:
            raise ValueError("group_sort: inconsistent array lengths")
        if mode < 0 or mode > 3:
            raise ValueError("group_sort: mode must be 0, 1, 2 or 3")
        if n >= 4294967295:
            raise ValueError("group_sort: more than 2**32 - 1 entries")
        check_offsets(doc_off, doc_buf.shape[0], "group_sort")
        for i in range(n):
            if qidx[i] < 0 or qidx[i] >= nq:
                raise ValueError("group_sort: query index out of range")
            if doc_off[i + 1] - doc_off[i] > 2147483647:
                raise ValueError("group_sort: doc id too long")
        for q in range(nq):
            if qrank[q] < 0 or qrank[q] >= nq:
                raise ValueError("group_sort: query rank out of range")
        self.doc_off = doc_off
        self.doc_hash = doc_hash
        self.scores = scores
        self.doc_buf_ref = doc_buf
        self.docs = <const char *> &doc_buf[0] if doc_buf.shape[0] > 0 else NULL
        self.mode = mode
        self.nq = nq
        self.n = n
        self.offsets_a = np.zeros(nq + 1, dtype=np.int64)
        self.perm_a = empty(n, np.uint32)
        self.out_start_a = empty(n, np.int64)
        self.out_len_a = empty(n, np.int32)
        self.out_hash_a = empty(n, np.uint64)
        self.out_score_a = empty(n, np.float64)
        self.offs = self.offsets_a
        self.perm = self.perm_a
        self.out_start = self.out_start_a
        self.out_len = self.out_len_a
        self.out_hash = self.out_hash_a
        self.out_score = self.out_score_a
        fill = <int64_t *> malloc((nq + 1) * sizeof(int64_t))
        if fill == NULL:
            raise MemoryError()
        with nogil:
            for i in range(n):
                self.offs[qrank[qidx[i]] + 1] += 1
            for q in range(nq):
                cnt = self.offs[q + 1]
                if cnt > maxcnt:
                    maxcnt = cnt
                self.offs[q + 1] += self.offs[q]
            for q in range(nq):
                fill[q] = self.offs[q]
            for i in range(n):
                q = qrank[qidx[i]]
                self.perm[fill[q]] = <uint32_t> i
                fill[q] += 1
        free(fill)
        self.maxcnt = maxcnt

    def sort(self, int64_t lo, int64_t hi):
        """Sort the groups of output queries [lo, hi)."""
        cdef int64_t q, k, i, start, cnt
        cdef irs_entry *buf
        if lo < 0 or hi > self.nq or lo > hi:
            raise ValueError("group_sort: bad query range")
        buf = <irs_entry *> malloc((self.maxcnt + 1) * sizeof(irs_entry))
        if buf == NULL:
            raise MemoryError()
        with nogil:
            for q in range(lo, hi):
                start = self.offs[q]
                cnt = self.offs[q + 1] - start
                for k in range(cnt):
                    i = self.perm[start + k]
                    buf[k].score = self.scores[i]
                    buf[k].start = self.doc_off[i]
                    buf[k].len = <int32_t> (self.doc_off[i + 1] - self.doc_off[i])
                    buf[k].hash = self.doc_hash[i]
                    buf[k].pos = <int32_t> k
                if self.mode != 3:
                    irs_sort_entries(buf, cnt, self.docs, self.mode)
                for k in range(cnt):
                    self.out_start[start + k] = buf[k].start
                    self.out_len[start + k] = buf[k].len
                    self.out_hash[start + k] = buf[k].hash
                    self.out_score[start + k] = buf[k].score
        free(buf)

    @property
    def offsets(self):
        """Output CSR offsets (final once constructed)."""
        return self.offsets_a

    def result(self):
        return self.offsets_a, self.out_start_a, self.out_len_a, self.out_hash_a, self.out_score_a


def group_sort(const int32_t[::1] qidx, const int64_t[::1] qrank, int64_t nq,
               const int64_t[::1] doc_off, const uint64_t[::1] doc_hash,
               const double[::1] scores, const uint8_t[::1] doc_buf, int mode):
    """Single-threaded :class:`GroupSort` (see there)."""
    gs = GroupSort(qidx, qrank, nq, doc_off, doc_hash, scores, doc_buf, mode)
    gs.sort(0, nq)
    return gs.result()


cdef inline bint in_order(const double *v, const int64_t *st, const int32_t *ln, const char *docs,
                          int64_t a, int64_t b, int mode) noexcept nogil:
    """Entries a and b (a before b) are in ``irs_entry_cmp`` order (ties in input order)."""
    cdef int c
    if mode != 2:
        if v[a] > v[b]:
            return True
        if v[a] < v[b]:
            return False
        if mode == 1:
            return True
    c = irs_bytes_cmp(docs + st[a], ln[a], docs + st[b], ln[b])
    return c >= 0


cdef bint sort_tie_groups(const double *v, int64_t[::1] doc_start, int32_t[::1] doc_len,
                          uint64_t[::1] doc_hash, double[::1] values, const char *docs, irs_entry *buf,
                          int64_t lo, int64_t hi) noexcept nogil:
    """While the scores of entries [lo, hi) do not increase, put each group of
    equal scores in trec order (doc id descending, ties in stored order);
    False when a score increases (the caller sorts the whole range: the groups
    already sorted keep their equal doc ids in stored order, so the result is
    the same)."""
    cdef int64_t a = lo, b, k
    cdef const int64_t *st = &doc_start[0]
    cdef const int32_t *ln = &doc_len[0]
    while a < hi:
        b = a + 1
        while b < hi and v[b] == v[a]:
            b += 1
        if b < hi and v[b] > v[a]:
            return False
        for k in range(a + 1, b):
            if not in_order(v, st, ln, docs, k - 1, k, 0):
                break
        else:
            a = b
            continue
        for k in range(b - a):
            buf[k].score = values[a + k]
            buf[k].start = doc_start[a + k]
            buf[k].len = doc_len[a + k]
            buf[k].hash = doc_hash[a + k]
            buf[k].pos = <int32_t> k
        irs_sort_entries(buf, b - a, docs, 0)
        for k in range(b - a):
            doc_start[a + k] = buf[k].start
            doc_len[a + k] = buf[k].len
            doc_hash[a + k] = buf[k].hash
            values[a + k] = buf[k].score      # -0.0 and 0.0 tie but are not the same value
        a = b
    return True


cdef void sort_by_id(int64_t[::1] doc_start, int32_t[::1] doc_len, uint64_t[::1] doc_hash, double[::1] values,
                     const char *docs, irs_entry *buf, irs_idkey *kbuf, int64_t s, int64_t cnt) noexcept nogil:
    """Sort entries [s, s + cnt) in mode 2 (doc id descending, ties in stored
    order) on 8-byte id prefix keys, then move the columns."""
    cdef int64_t k, p
    for k in range(cnt):
        kbuf[k].start = doc_start[s + k]
        kbuf[k].len = doc_len[s + k]
        kbuf[k].key = irs_id_prefix(docs + kbuf[k].start, kbuf[k].len)
        kbuf[k].pos = <int32_t> k
        buf[k].hash = doc_hash[s + k]
        buf[k].score = values[s + k]
    irs_idkey_sort(kbuf, cnt, docs)
    for k in range(cnt):
        p = kbuf[k].pos
        doc_start[s + k] = kbuf[k].start
        doc_len[s + k] = kbuf[k].len
        doc_hash[s + k] = buf[p].hash
        values[s + k] = buf[p].score


def sort_grouped(const int64_t[::1] offsets, int64_t[::1] doc_start, int32_t[::1] doc_len,
                 uint64_t[::1] doc_hash, double[::1] values, const uint8_t[::1] doc_buf,
                 int mode, int64_t lo, int64_t hi, const uint8_t[::1] ordered=None):
    """Sort in place the entries of queries [lo, hi) of columns already grouped by
    query (CSR ``offsets``), in :class:`GroupSort`'s ``mode`` 0, 1 or 2 (ties in
    stored order).  A query already in order (run files are written in rank
    order) costs one linear check and no copy; ``ordered[q] = 1`` says the
    reader already checked that query in ``mode`` 0 (it is skipped).  Releases
    the GIL; calls for disjoint query ranges may run on several threads."""
    cdef int64_t nq = offsets.shape[0] - 1
    cdef int64_t n = doc_start.shape[0]
    cdef int64_t q, k, i, s, cnt, maxcnt = 0
    cdef irs_entry *buf
    cdef irs_idkey *kbuf
    cdef const char *docs = <const char *> &doc_buf[0] if doc_buf.shape[0] > 0 else NULL
    cdef const double *v
    cdef const int64_t *st
    cdef const int32_t *ln
    if doc_len.shape[0] != n or doc_hash.shape[0] != n or values.shape[0] != n:
        raise ValueError("sort_grouped: inconsistent array lengths")
    if mode < 0 or mode > 2:
        raise ValueError("sort_grouped: mode must be 0, 1 or 2")
    if lo < 0 or hi > nq or lo > hi:
        raise ValueError("sort_grouped: bad query range")
    if ordered is not None and (ordered.shape[0] != nq or mode != 0):
        raise ValueError("sort_grouped: ordered must hold one flag per query, in mode 0")
    cdef bint has_ordered = ordered is not None
    check_offsets(offsets, n, "sort_grouped")
    if doc_start.shape[0] != doc_len.shape[0]:
        raise ValueError("sort_grouped: doc_start and doc_len differ in length")
    cdef int64_t nbuf = doc_buf.shape[0], bad = -1
    for q in range(lo, hi):
        if offsets[q + 1] - offsets[q] > maxcnt:
            maxcnt = offsets[q + 1] - offsets[q]
    if maxcnt > 2147483647:
        raise ValueError("sort_grouped: more than 2**31 - 1 entries in one query")
    if n == 0 or lo == hi:
        return
    v = &values[0]
    st = &doc_start[0]
    ln = &doc_len[0]
    buf = <irs_entry *> malloc((maxcnt + 1) * sizeof(irs_entry))
    kbuf = <irs_idkey *> malloc((maxcnt + 1) * sizeof(irs_idkey)) if mode == 2 else NULL
    if buf == NULL or (mode == 2 and kbuf == NULL):
        free(buf)
        free(kbuf)
        raise MemoryError()
    with nogil:
        for q in range(lo, hi):
            if has_ordered and ordered[q]:
                continue
            s = offsets[q]
            cnt = offsets[q + 1] - s
            # the spans of a query whose ids may be read (a query skipped above is not)
            for k in range(s, s + cnt):
                if not span_in(st[k], ln[k], nbuf):
                    bad = k
                    break
            if bad >= 0:
                break
            for k in range(1, cnt):
                if not in_order(v, st, ln, docs, s + k - 1, s + k, mode):
                    break
            else:
                continue        # already in order
            i = s + k - 1       # from the start of the tie group holding the first pair out of order
            while i > s and v[i - 1] == v[i]:
                i -= 1
            if mode == 0 and sort_tie_groups(v, doc_start, doc_len, doc_hash, values, docs, buf, i, s + cnt):
                # scores were non-increasing, only tie groups out of doc-id order
                # (e.g. a file written in score order, ties in any order): just
                # those groups were sorted
                continue
            if mode == 2:
                sort_by_id(doc_start, doc_len, doc_hash, values, docs, buf, kbuf, s, cnt)
                continue
            for k in range(cnt):
                buf[k].score = values[s + k]
                buf[k].start = doc_start[s + k]
                buf[k].len = doc_len[s + k]
                buf[k].hash = doc_hash[s + k]
                buf[k].pos = <int32_t> k
            irs_sort_entries(buf, cnt, docs, mode)
            for k in range(cnt):
                doc_start[s + k] = buf[k].start
                doc_len[s + k] = buf[k].len
                doc_hash[s + k] = buf[k].hash
                values[s + k] = buf[k].score
    free(buf)
    free(kbuf)
    if bad >= 0:
        raise ValueError(f"sort_grouped: doc id span {bad} out of the buffer")


def dedup_sorted(const int64_t[::1] offsets, const int64_t[::1] doc_start,
                 const int32_t[::1] doc_len, const uint8_t[::1] doc_buf, keep_out=None,
                 int64_t lo=0, int64_t hi=-1):
    """Mark entries whose doc id equals the next entry's in the same query.

    For qrels sorted by ``group_sort(mode=2)`` equal doc ids are adjacent in
    input order, so keeping the unmarked entries keeps the last judgment.
    Returns a boolean keep-mask; with ``keep_out`` (a boolean array of one
    entry per row, set to True by the caller) marks the queries [lo, hi) in it
    (calls for disjoint ranges may run on several threads; GIL released).
    """
    cdef int64_t nq = offsets.shape[0] - 1
    cdef int64_t n = doc_start.shape[0]
    cdef uint8_t[::1] keep
    cdef int64_t q, i
    cdef const char *docs = <const char *> &doc_buf[0] if doc_buf.shape[0] > 0 else NULL
    check_offsets(offsets, n, "dedup_sorted")
    if doc_len.shape[0] != n:
        raise ValueError("dedup_sorted: doc_start and doc_len differ in length")
    if hi < 0:
        hi = nq
    if lo < 0 or hi > nq or lo > hi:
        raise ValueError("dedup_sorted: bad query range")
    if keep_out is None:
        keep_a = np.ones(n, dtype=np.bool_)
    else:
        keep_a = keep_out
        if not isinstance(keep_a, np.ndarray) or keep_a.dtype != np.bool_ or keep_a.ndim != 1 \
                or keep_a.shape[0] != n:
            raise ValueError("dedup_sorted: keep_out must be a boolean array of one entry per row")
    keep = keep_a.view(np.uint8)
    check_spans(doc_start, doc_len, doc_buf.shape[0], "dedup_sorted", offsets[lo], offsets[hi])
    with nogil:
        for q in range(lo, hi):
            for i in range(offsets[q], offsets[q + 1] - 1):
                if doc_len[i] == doc_len[i + 1] and irs_bytes_cmp(
                        docs + doc_start[i], doc_len[i], docs + doc_start[i + 1], doc_len[i + 1]) == 0:
                    keep[i] = 0
    return keep_a


cdef inline int64_t join_table_size(int64_t n) noexcept nogil:
    """The join's table size for n keys: a power of two, load at most 1/4 up to
    4,096 keys (short probe sequences), 1/2 beyond."""
    cdef int64_t s = 16
    cdef int64_t want = 4 * n if n <= 4096 else 2 * n
    while s < want:
        s *= 2
    return s


cdef uint64_t RUN_BIT = 0x80000000
cdef uint64_t STAMP_MAX = 0xFFFFFFFF


cdef class Join:
    """Relevance lists for the evaluated queries (``run(lo, hi)`` may run in
    several threads on disjoint ranges of evaluated queries; it releases the GIL).

    ``pair_q[e]``/``pair_r[e]`` are the qrels and run query positions of
    evaluated query e (``pair_r[e] = -1``: no ranking; an empty list, or with
    ``bogus_missing`` trec_eval's stand-in ranking of one unjudged document).
    ``result()`` gives ``(rel, scores, ret_off, rel_levels, n_dup)`` with
    ``rel_levels`` of shape (n_eval, max_grade + 1) counting judgments per grade.
    ``run_unique``: the run is known to hold no repeated (query, doc) pair (it
    came from dicts), so the duplicate check is skipped.
    With ``q_tag`` (one int32 per qrels entry), ``tags()`` (after ``result()``)
    gives ``(tag_off, tag_pos, tag)``: per evaluated query (CSR ``tag_off``)
    its ranked documents that are in the qrels, in rank order, as their
    position in the query's list (``tag_pos``, int64) and their judgment's
    tag.

    A query's scores are the run's own rows as long as no entry is dropped
    (repeated document, ``judged_only``): they are copied only once one is, and
    when every evaluated query keeps its rows in the run's order and place (the
    usual case: every run query evaluated, no repeats) ``scores`` is a read-only
    view of the run's scores, so the copy is never made nor its pages touched.
    """
    cdef const int64_t[::1] q_off, q_start, r_off, r_start, pair_q, pair_r
    cdef const int32_t[::1] q_len, q_grade, r_len, q_tag
    cdef const uint64_t[::1] q_hash, r_hash
    cdef const double[::1] r_score
    cdef const char *qdocs
    cdef const char *rdocs
    # raw pointers of the columns the hot loop reads (NULL when empty)
    cdef const uint64_t *p_rhash
    cdef const uint64_t *p_qhash
    cdef const int64_t *p_rstart
    cdef const int64_t *p_qstart
    cdef const int32_t *p_rlen
    cdef const int32_t *p_qlen
    cdef const int32_t *p_qgrade
    cdef int32_t *p_rel
    cdef object refs
    cdef int64_t G, max_docs, cap_q, cap_r, q_nbuf, r_nbuf
    cdef readonly int64_t ne
    cdef bint judged_only, bogus_missing, run_unique, has_tag, compacted
    cdef object bound_a, cnt_a, rel_a, sc_a, levels_a, ndup_a, tag_a, tpos_a, tbound_a, tcnt_a, toff_a, exact_a
    cdef int64_t[::1] bound, cnt, ndup, tpos, tbound, tcnt
    cdef uint8_t[::1] exact
    cdef int32_t[::1] rel, tag
    cdef double[::1] sc
    cdef int64_t[:, ::1] levels

    def __init__(self, const int64_t[::1] q_off, const int64_t[::1] q_start, const int32_t[::1] q_len,
                 const uint64_t[::1] q_hash, const int32_t[::1] q_grade, const uint8_t[::1] q_buf,
                 const int64_t[::1] r_off, const int64_t[::1] r_start, const int32_t[::1] r_len,
                 const uint64_t[::1] r_hash, const double[::1] r_score, const uint8_t[::1] r_buf,
                 const int64_t[::1] pair_q, const int64_t[::1] pair_r,
                 int64_t max_grade, int64_t max_docs, bint judged_only, bint bogus_missing=False,
                 bint run_unique=False, const int32_t[::1] q_tag=None):
        cdef int64_t ne = pair_q.shape[0]
        cdef int64_t e, qq, rq, nqr, nret, total = 0, cap_q = 0, cap_r = 0, ttotal = 0
        if pair_r.shape[0] != ne or max_grade < 0:
            raise ValueError("join: bad arguments")
        check_offsets(q_off, q_start.shape[0], "join (qrels)")
        check_offsets(r_off, r_start.shape[0], "join (run)")
        # doc id spans are checked by run() where it reads the bytes (see _run)
        if q_start.shape[0] != q_len.shape[0] or r_start.shape[0] != r_len.shape[0]:
            raise ValueError("join: doc_start and doc_len differ in length")
        self.q_nbuf = q_buf.shape[0]
        self.r_nbuf = r_buf.shape[0]
        if q_hash.shape[0] != q_start.shape[0] or q_grade.shape[0] != q_start.shape[0]:
            raise ValueError("join: qrels arrays differ in length")
        if r_hash.shape[0] != r_start.shape[0] or r_score.shape[0] != r_start.shape[0]:
            raise ValueError("join: run arrays differ in length")
        self.has_tag = q_tag is not None
        if self.has_tag and q_tag.shape[0] != q_start.shape[0]:
            raise ValueError("join: q_tag must hold one tag per qrels entry")
        self.bound_a = np.zeros(ne + 1, dtype=np.int64)
        self.bound = self.bound_a
        # tagged pairs: at most min(ranked, judged) per query
        self.tbound_a = np.zeros(ne + 1, dtype=np.int64)
        self.tbound = self.tbound_a
        for e in range(ne):
            qq = pair_q[e]
            if qq < 0 or qq >= q_off.shape[0] - 1:
                raise ValueError("join: qrels query index out of range")
            nqr = q_off[qq + 1] - q_off[qq]
            if nqr > cap_q:
                cap_q = nqr
            rq = pair_r[e]
            if rq >= r_off.shape[0] - 1:
                raise ValueError("join: run query index out of range")
            nret = 0
            if rq >= 0:
                nret = r_off[rq + 1] - r_off[rq]
                if nret > cap_r:
                    cap_r = nret
                if max_docs >= 0 and nret > max_docs:
                    nret = max_docs
            elif bogus_missing:
                nret = 1
            self.bound[e] = total
            total += nret
            self.tbound[e] = ttotal
            ttotal += nret if nret < nqr else nqr
        self.bound[ne] = total
        self.tbound[ne] = ttotal
        if cap_q > 0x7FFFFFFF or cap_r > 0x7FFFFFFF:
            raise ValueError("join: more than 2**31 - 1 entries in one query")
        self.q_off, self.q_start, self.q_len, self.q_hash, self.q_grade = q_off, q_start, q_len, q_hash, q_grade
        self.r_off, self.r_start, self.r_len, self.r_hash, self.r_score = r_off, r_start, r_len, r_hash, r_score
        self.pair_q, self.pair_r = pair_q, pair_r
        self.refs = (q_buf, r_buf)
        self.qdocs = <const char *> &q_buf[0] if q_buf.shape[0] > 0 else NULL
        self.rdocs = <const char *> &r_buf[0] if r_buf.shape[0] > 0 else NULL
        if r_start.shape[0] > 0:
            self.p_rhash, self.p_rstart, self.p_rlen = &r_hash[0], &r_start[0], &r_len[0]
        if q_start.shape[0] > 0:
            self.p_qhash, self.p_qstart, self.p_qlen, self.p_qgrade = &q_hash[0], &q_start[0], &q_len[0], &q_grade[0]
        self.G = max_grade + 1
        self.max_docs = max_docs
        self.judged_only = judged_only
        self.bogus_missing = bogus_missing
        self.run_unique = run_unique
        self.cap_q = cap_q
        self.cap_r = cap_r
        self.ne = ne
        self.cnt_a = np.zeros(ne, dtype=np.int64)
        self.ndup_a = np.zeros(ne, dtype=np.int64)
        self.rel_a = empty(total, np.int32)
        self.sc_a = empty(total, np.float64)
        self.levels_a = zeros2(ne, self.G, np.int64)
        self.exact_a = np.ones(ne, dtype=np.uint8)
        self.exact = self.exact_a
        self.cnt, self.ndup, self.rel, self.sc = self.cnt_a, self.ndup_a, self.rel_a, self.sc_a
        self.levels = self.levels_a
        if total > 0:
            self.p_rel = &self.rel[0]
        if self.has_tag:
            self.q_tag = q_tag
            self.tag_a = empty(ttotal, np.int32)
            self.tpos_a = empty(ttotal, np.int64)
            self.tcnt_a = np.zeros(ne, dtype=np.int64)
            self.tag, self.tpos, self.tcnt = self.tag_a, self.tpos_a, self.tcnt_a
        self.compacted = False

    def run(self, int64_t lo, int64_t hi):
        """Build the lists of evaluated queries [lo, hi)."""
        if lo < 0 or hi > self.ne or lo > hi:
            raise ValueError("join: bad query range")
        cdef int64_t size = join_table_size(self.cap_q + (0 if self.run_unique else self.cap_r))
        cdef uint64_t *key = <uint64_t *> calloc(size, sizeof(uint64_t))
        cdef uint64_t *hsh = <uint64_t *> malloc(size * sizeof(uint64_t))
        cdef uint8_t *seen = <uint8_t *> malloc(self.cap_q + 1)
        if key == NULL or hsh == NULL or seen == NULL:
            free(key)
            free(hsh)
            free(seen)
            raise MemoryError()
        cdef int64_t bad
        with nogil:
            bad = self._run(lo, hi, key, hsh, size, seen)
        free(key)
        free(hsh)
        free(seen)
        if bad >= 0:
            raise ValueError(f"join ({'qrels' if bad & 1 else 'run'}): doc id span {bad >> 1} out of the buffer")

    cdef int64_t _run(self, int64_t lo, int64_t hi, uint64_t *key, uint64_t *hsh, int64_t size,
                      uint8_t *seen) noexcept nogil:
        # One open-addressing table per query holds its judgments and (unless the
        # run is known unique) the documents retrieved so far, so a retrieved
        # document costs one probe sequence for both questions (judged? repeated?).
        # A slot is in use when its stamp (key >> 32) is the query's: the table is
        # never cleared between queries.  key & RUN_BIT: a retrieved document (low
        # 31 bits: its row in the query); else a judgment (its row in the query).
        # A judgment already met in the ranking is marked in ``seen``.
        # Doc id bytes are read only to compare two ids of equal hash, and only
        # then are the two spans checked: returns -1, or 2 * row + (1 for a qrels
        # row, 0 for a run row) of the first span found outside its buffer.
        cdef int64_t e, qq, rq, i, j, jm, k, slot, mask, nqr, nret, nout, dups, tn, r0, q0
        cdef uint64_t stamp = 0, kv
        cdef bint exact, dup, run_unique = self.run_unique
        cdef int32_t g
        cdef bint has_tag = self.has_tag
        cdef uint64_t h
        cdef const char *qdocs = self.qdocs
        cdef const char *rdocs = self.rdocs
        cdef const uint64_t *rhash = self.p_rhash
        cdef const uint64_t *qhash = self.p_qhash
        cdef const int64_t *rstart = self.p_rstart
        cdef const int64_t *qstart = self.p_qstart
        cdef const int32_t *rlen = self.p_rlen
        cdef const int32_t *qlen = self.p_qlen
        cdef const int32_t *qgrade = self.p_qgrade
        cdef int32_t *rel = self.p_rel
        cdef int64_t max_docs = self.max_docs
        cdef bint judged_only = self.judged_only
        for e in range(lo, hi):
            qq = self.pair_q[e]
            rq = self.pair_r[e]
            nout = self.bound[e]
            stamp += 1
            if stamp == STAMP_MAX:      # stamps exhausted: clear once, start again
                memset(key, 0, size * sizeof(uint64_t))
                stamp = 1
            # judgments: grade histogram and the table
            q0 = self.q_off[qq]
            nqr = self.q_off[qq + 1] - q0
            nret = self.r_off[rq + 1] - self.r_off[rq] if rq >= 0 else 0
            mask = join_table_size(nqr + (0 if run_unique else nret)) - 1
            for i in range(nqr):
                g = qgrade[q0 + i]
                if g >= 0 and g < self.G:
                    self.levels[e, g] += 1
                h = qhash[q0 + i]
                slot = <int64_t> (h & <uint64_t> mask)
                while (key[slot] >> 32) == stamp:
                    slot = (slot + 1) & mask
                key[slot] = (stamp << 32) | <uint64_t> i
                hsh[slot] = h
                seen[i] = 0
            if rq < 0:
                if self.bogus_missing and not (self.judged_only or self.max_docs == 0):
                    self.rel[nout] = -1
                    self.sc[nout] = 1.0
                    self.exact[e] = 0
                    nout += 1
                self.cnt[e] = nout - self.bound[e]
                continue
            k = 0
            dups = 0
            tn = self.tbound[e] if has_tag else 0
            exact = True    # outputs so far are the run's rows r0, r0 + 1, ...: scores not copied
            r0 = self.r_off[rq]
            for i in range(r0, self.r_off[rq + 1]):
                if max_docs >= 0 and k >= max_docs:
                    break
                h = rhash[i]
                g = -1
                jm = -1
                dup = False
                slot = <int64_t> (h & <uint64_t> mask)
                while True:
                    kv = key[slot]
                    if (kv >> 32) != stamp:
                        if not run_unique:      # first time this document is retrieved
                            key[slot] = (stamp << 32) | RUN_BIT | <uint64_t> (i - r0)
                            hsh[slot] = h
                        break
                    if hsh[slot] == h:
                        j = <int64_t> (kv & 0x7FFFFFFF)
                        if not span_in(rstart[i], rlen[i], self.r_nbuf):
                            return 2 * i
                        if kv & RUN_BIT:
                            j += r0
                            if not span_in(rstart[j], rlen[j], self.r_nbuf):
                                return 2 * j
                            if rlen[j] == rlen[i] and irs_bytes_cmp(
                                    rdocs + rstart[j], rlen[j], rdocs + rstart[i], rlen[i]) == 0:
                                dup = True
                                break
                        else:
                            j += q0
                            if not span_in(qstart[j], qlen[j], self.q_nbuf):
                                return 2 * j + 1
                            if qlen[j] == rlen[i] and irs_bytes_cmp(
                                    qdocs + qstart[j], qlen[j], rdocs + rstart[i], rlen[i]) == 0:
                                if seen[j - q0] and not run_unique:
                                    dup = True
                                else:
                                    seen[j - q0] = 1
                                    g = qgrade[j]
                                    if g < 0:
                                        g = -2
                                    jm = j
                                break
                    slot = (slot + 1) & mask
                if dup:
                    dups += 1
                    if exact:
                        exact = self.copy_scores(e, r0, nout)
                    continue
                k += 1
                if judged_only and g < 0:
                    if exact:
                        exact = self.copy_scores(e, r0, nout)
                    continue
                rel[nout] = g
                if not exact:
                    self.sc[nout] = self.r_score[i]
                if has_tag and jm >= 0 and tn < self.tbound[e + 1]:
                    self.tpos[tn] = nout - self.bound[e]
                    self.tag[tn] = self.q_tag[jm]
                    tn += 1
                nout += 1
            self.cnt[e] = nout - self.bound[e]
            self.ndup[e] = dups
            self.exact[e] = exact
            if has_tag:
                self.tcnt[e] = tn - self.tbound[e]
        return -1

    cdef bint copy_scores(self, int64_t e, int64_t r0, int64_t nout) noexcept nogil:
        """Copy the scores of query e's outputs so far (the run's rows r0, ...);
        returns False (the query's scores are no longer the run's rows)."""
        cdef int64_t k
        for k in range(self.bound[e], nout):
            self.sc[k] = self.r_score[r0 + k - self.bound[e]]
        return False

    def result(self):
        """Compact the lists (when duplicates or -J dropped entries) and return them."""
        cdef int64_t e, k, src, rq, dst = 0, tdst = 0
        cdef bint view = True
        cdef bint has_tag = self.has_tag
        cdef int64_t[::1] toff
        if self.compacted:
            raise RuntimeError("join: result() was already taken")
        ret_off_a = np.zeros(self.ne + 1, dtype=np.int64)
        cdef int64_t[::1] ret_off = ret_off_a
        with nogil:
            for e in range(self.ne):
                ret_off[e] = dst
                if self.cnt[e] and not (self.exact[e] and self.r_off[self.pair_r[e]] == dst):
                    view = False
                dst += self.cnt[e]
            ret_off[self.ne] = dst
            dst = 0
            for e in range(self.ne):
                src = self.bound[e]
                if src != dst:
                    for k in range(self.cnt[e]):
                        self.rel[dst + k] = self.rel[src + k]
                if not view:
                    if self.exact[e] and self.cnt[e]:
                        rq = self.pair_r[e]
                        for k in range(self.cnt[e]):
                            self.sc[dst + k] = self.r_score[self.r_off[rq] + k]
                    elif src != dst:
                        for k in range(self.cnt[e]):
                            self.sc[dst + k] = self.sc[src + k]
                dst += self.cnt[e]
        if has_tag:
            self.toff_a = np.zeros(self.ne + 1, dtype=np.int64)
            toff = self.toff_a
            with nogil:
                for e in range(self.ne):
                    toff[e] = tdst
                    src = self.tbound[e]
                    if src != tdst:
                        for k in range(self.tcnt[e]):
                            self.tpos[tdst + k] = self.tpos[src + k]
                            self.tag[tdst + k] = self.tag[src + k]
                    tdst += self.tcnt[e]
                toff[self.ne] = tdst
        self.compacted = True
        if view:
            scores = np.asarray(self.r_score)[:dst]
            scores.flags.writeable = False
            self.sc_a = None
        else:
            scores = self.sc_a[:dst]
        return (self.rel_a[:dst], scores, ret_off_a, self.levels_a, int(self.ndup_a.sum()))

    def tags(self):
        """``(tag_off, tag_pos, tag)``: per evaluated query its ranked documents
        that are in the qrels (position in its list, tag of the judgment), in
        rank order; call after ``result()``."""
        if not self.has_tag:
            raise ValueError("join: no q_tag was given")
        if not self.compacted:
            raise RuntimeError("join: call result() before tags()")
        n = int(self.toff_a[self.ne])
        return self.toff_a, self.tpos_a[:n], self.tag_a[:n]


def join(*args, **kwargs):
    """Single-threaded :class:`Join` (see there)."""
    j = Join(*args, **kwargs)
    j.run(0, j.ne)
    return j.result()
