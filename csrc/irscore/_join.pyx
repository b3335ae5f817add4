"""Grouping, sorting and joining: from parsed columns to per-query relevance lists.

- ``group_sort``: group lines by query (queries in a given order) and sort each
  query's entries: runs in trec_eval order (score descending, then doc id
  descending) or stable score order; qrels by doc id (duplicates adjacent).
- ``dedup_qrels``: keep the last judgment of a (query, doc) pair, as the spec asks.
- ``join``: for each evaluated query, look every retrieved document up in the
  query's judgments (hash table on the doc-id hashes, bytes compared on a hash
  match) and emit the relevance list trec_eval's measures read: the judged grade
  (>= 0), ``-1`` for a document not in the qrels, ``-2`` for one judged with a
  negative grade (in the pool, unjudged).  Later duplicates of a retrieved doc
  id are dropped (counted), ``max_docs`` cuts the ranking, ``judged_only`` drops
  unjudged documents (trec_eval -J).  Also counts judgments per grade.

All kernels run without the GIL on validated arrays.
"""
from libc.stdint cimport int32_t, int64_t, uint64_t, uint8_t
from libc.stdlib cimport malloc, free

import numpy as np

cdef extern from "irs_common.h" nogil:
    int irs_bytes_cmp(const char *a, int64_t na, const char *b, int64_t nb)

cdef extern from "irs_sort.h" nogil:
    ctypedef struct irs_entry:
        double score
        int64_t start
        uint64_t hash
        int32_t len
        int32_t pos
    void irs_sort_entries(irs_entry *a, int64_t n, const char *buf, int mode)


cdef int check_offsets(const int64_t[::1] off, int64_t n, str what) except -1:
    """CSR offsets: start at 0, non-decreasing, end at n."""
    cdef int64_t i, m = off.shape[0]
    if m < 1 or off[0] != 0 or off[m - 1] != n:
        raise ValueError(f"{what}: offsets must start at 0 and end at {n}")
    for i in range(m - 1):
        if off[i + 1] < off[i]:
            raise ValueError(f"{what}: offsets must be non-decreasing")
    return 0


cdef int check_spans(const int64_t[::1] start, const int32_t[::1] length, int64_t nbuf, str what) except -1:
    """Every (start, length) lies inside a buffer of nbuf bytes."""
    cdef int64_t i
    if start.shape[0] != length.shape[0]:
        raise ValueError(f"{what}: doc_start and doc_len differ in length")
    for i in range(start.shape[0]):
        if start[i] < 0 or length[i] < 0 or start[i] + length[i] > nbuf:
            raise ValueError(f"{what}: doc id span {i} out of the buffer")
    return 0


def group_sort(const int32_t[::1] qidx, const int64_t[::1] qrank, int64_t nq,
               const int64_t[::1] doc_off, const uint64_t[::1] doc_hash,
               const double[::1] scores, const uint8_t[::1] doc_buf, int mode):
    """Group entries by query and sort each group.

    ``qidx[i]`` is the parse-order query of entry i and ``qrank[q]`` the output
    position of parse query q (0..nq-1).  ``mode``: 0 trec order, 1 stable score
    order, 2 doc id descending then input order (qrels).  Returns
    ``(offsets, doc_start, doc_len, doc_hash, scores)`` in output order.
    """
    cdef int64_t n = qidx.shape[0]
    cdef int64_t i, q, k, start, cnt, maxcnt = 0
    offsets_a = np.zeros(nq + 1, dtype=np.int64)
    perm_a = np.empty(n, dtype=np.int64)
    out_start_a = np.empty(n, dtype=np.int64)
    out_len_a = np.empty(n, dtype=np.int32)
    out_hash_a = np.empty(n, dtype=np.uint64)
    out_score_a = np.empty(n, dtype=np.float64)
    cdef int64_t[::1] offsets = offsets_a
    cdef int64_t[::1] perm = perm_a
    cdef int64_t[::1] out_start = out_start_a
    cdef int32_t[::1] out_len = out_len_a
    cdef uint64_t[::1] out_hash = out_hash_a
    cdef double[::1] out_score = out_score_a
    cdef int64_t *fill
    cdef irs_entry *buf
    cdef const char *docs = <const char *> &doc_buf[0] if doc_buf.shape[0] > 0 else NULL
    if doc_off.shape[0] != n + 1 or doc_hash.shape[0] != n or scores.shape[0] != n or qrank.shape[0] != nq:
        raise ValueError("group_sort: inconsistent array lengths")
    if mode < 0 or mode > 2:
        raise ValueError("group_sort: mode must be 0, 1 or 2")
    check_offsets(doc_off, doc_buf.shape[0], "group_sort")
    for i in range(n):
        if qidx[i] < 0 or qidx[i] >= nq:
            raise ValueError("group_sort: query index out of range")
    for q in range(nq):
        if qrank[q] < 0 or qrank[q] >= nq:
            raise ValueError("group_sort: query rank out of range")
    for i in range(n):
        if doc_off[i + 1] - doc_off[i] > 2147483647:
            raise ValueError("group_sort: doc id too long")
    with nogil:
        for i in range(n):
            offsets[qrank[qidx[i]] + 1] += 1
        for q in range(nq):
            cnt = offsets[q + 1]
            if cnt > maxcnt:
                maxcnt = cnt
            offsets[q + 1] += offsets[q]
        fill = <int64_t *> malloc((nq + 1) * sizeof(int64_t))
        buf = <irs_entry *> malloc((maxcnt + 1) * sizeof(irs_entry))
        if fill != NULL and buf != NULL:
            for q in range(nq):
                fill[q] = offsets[q]
            for i in range(n):
                q = qrank[qidx[i]]
                perm[fill[q]] = i
                fill[q] += 1
            for q in range(nq):
                start = offsets[q]
                cnt = offsets[q + 1] - start
                for k in range(cnt):
                    i = perm[start + k]
                    buf[k].score = scores[i]
                    buf[k].start = doc_off[i]
                    buf[k].len = <int32_t> (doc_off[i + 1] - doc_off[i])
                    buf[k].hash = doc_hash[i]
                    buf[k].pos = <int32_t> k
                irs_sort_entries(buf, cnt, docs, mode)
                for k in range(cnt):
                    out_start[start + k] = buf[k].start
                    out_len[start + k] = buf[k].len
                    out_hash[start + k] = buf[k].hash
                    out_score[start + k] = buf[k].score
        free(fill)
        free(buf)
    if n and (fill == NULL or buf == NULL):
        raise MemoryError()
    return offsets_a, out_start_a, out_len_a, out_hash_a, out_score_a


def dedup_sorted(const int64_t[::1] offsets, const int64_t[::1] doc_start,
                 const int32_t[::1] doc_len, const uint8_t[::1] doc_buf):
    """Mark entries whose doc id equals the next entry's in the same query.

    For qrels sorted by ``group_sort(mode=2)`` equal doc ids are adjacent in
    input order, so keeping the unmarked entries keeps the last judgment.
    Returns a boolean keep-mask.
    """
    cdef int64_t nq = offsets.shape[0] - 1
    cdef int64_t n = doc_start.shape[0]
    keep_a = np.ones(n, dtype=np.bool_)
    cdef uint8_t[::1] keep = keep_a.view(np.uint8)
    cdef int64_t q, i
    cdef const char *docs = <const char *> &doc_buf[0] if doc_buf.shape[0] > 0 else NULL
    check_offsets(offsets, n, "dedup_sorted")
    check_spans(doc_start, doc_len, doc_buf.shape[0], "dedup_sorted")
    with nogil:
        for q in range(nq):
            for i in range(offsets[q], offsets[q + 1] - 1):
                if doc_len[i] == doc_len[i + 1] and irs_bytes_cmp(
                        docs + doc_start[i], doc_len[i], docs + doc_start[i + 1], doc_len[i + 1]) == 0:
                    keep[i] = 0
    return keep_a


cdef inline int64_t table_size(int64_t n) noexcept nogil:
    cdef int64_t s = 16
    while s < 2 * n:
        s *= 2
    return s


def join(const int64_t[::1] q_off, const int64_t[::1] q_start, const int32_t[::1] q_len,
         const uint64_t[::1] q_hash, const int32_t[::1] q_grade, const uint8_t[::1] q_buf,
         const int64_t[::1] r_off, const int64_t[::1] r_start, const int32_t[::1] r_len,
         const uint64_t[::1] r_hash, const double[::1] r_score, const uint8_t[::1] r_buf,
         const int64_t[::1] pair_q, const int64_t[::1] pair_r,
         int64_t max_grade, int64_t max_docs, bint judged_only, bint bogus_missing=False):
    """Relevance lists for the evaluated queries.

    ``pair_q[e]``/``pair_r[e]`` are the qrels and run query positions of
    evaluated query e (``pair_r[e] = -1``: no ranking; an empty list, or with
    ``bogus_missing`` trec_eval's stand-in ranking of one unjudged document).
    Returns ``(rel, scores, ret_off, rel_levels, n_dup)`` with ``rel_levels`` of
    shape (n_eval, max_grade + 1) counting the judgments per grade >= 0.
    """
    cdef int64_t ne = pair_q.shape[0]
    cdef int64_t G = max_grade + 1
    cdef int64_t e, qq, rq, i, j, k, nqr, nret, cap_q = 0, cap_r = 0, total = 0, slot, t
    cdef int64_t mask, rmask, nout, n_dup = 0
    cdef int32_t g
    cdef uint64_t h
    cdef const char *qdocs = <const char *> &q_buf[0] if q_buf.shape[0] > 0 else NULL
    cdef const char *rdocs = <const char *> &r_buf[0] if r_buf.shape[0] > 0 else NULL
    if pair_r.shape[0] != ne or G < 1:
        raise ValueError("join: bad arguments")
    check_offsets(q_off, q_start.shape[0], "join (qrels)")
    check_offsets(r_off, r_start.shape[0], "join (run)")
    check_spans(q_start, q_len, q_buf.shape[0], "join (qrels)")
    check_spans(r_start, r_len, r_buf.shape[0], "join (run)")
    if q_hash.shape[0] != q_start.shape[0] or q_grade.shape[0] != q_start.shape[0]:
        raise ValueError("join: qrels arrays differ in length")
    if r_hash.shape[0] != r_start.shape[0] or r_score.shape[0] != r_start.shape[0]:
        raise ValueError("join: run arrays differ in length")
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
        if rq >= 0:
            nret = r_off[rq + 1] - r_off[rq]
            if nret > cap_r:
                cap_r = nret
            if max_docs >= 0 and nret > max_docs:
                nret = max_docs
            total += nret
        elif bogus_missing:
            total += 1
    ret_off_a = np.zeros(ne + 1, dtype=np.int64)
    rel_a = np.empty(total, dtype=np.int32)
    sc_a = np.empty(total, dtype=np.float64)
    levels_a = np.zeros((ne, G), dtype=np.int64)
    cdef int64_t[::1] ret_off = ret_off_a
    cdef int32_t[::1] rel = rel_a
    cdef double[::1] sc = sc_a
    cdef int64_t[:, ::1] levels = levels_a
    cdef int64_t qcap = table_size(cap_q), rcap = table_size(cap_r)
    cdef int64_t *qtab = <int64_t *> malloc(qcap * sizeof(int64_t))
    cdef int64_t *rtab = <int64_t *> malloc(rcap * sizeof(int64_t))
    if qtab == NULL or rtab == NULL:
        free(qtab)
        free(rtab)
        raise MemoryError()
    with nogil:
        nout = 0
        for e in range(ne):
            qq = pair_q[e]
            rq = pair_r[e]
            ret_off[e] = nout
            # judgments: grade histogram and hash table (mask over a power of two)
            nqr = q_off[qq + 1] - q_off[qq]
            mask = table_size(nqr) - 1
            for t in range(mask + 1):
                qtab[t] = -1
            for i in range(q_off[qq], q_off[qq + 1]):
                g = q_grade[i]
                if g >= 0 and g < G:
                    levels[e, g] += 1
                slot = <int64_t> (q_hash[i] & <uint64_t> mask)
                while qtab[slot] >= 0:
                    slot = (slot + 1) & mask
                qtab[slot] = i
            if rq < 0:
                if bogus_missing and not (judged_only or max_docs == 0):
                    rel[nout] = -1
                    sc[nout] = 1.0
                    nout += 1
                continue
            nret = r_off[rq + 1] - r_off[rq]
            rmask = table_size(nret) - 1
            for t in range(rmask + 1):
                rtab[t] = -1
            k = 0
            for i in range(r_off[rq], r_off[rq + 1]):
                if max_docs >= 0 and k >= max_docs:
                    break
                h = r_hash[i]
                # duplicate of an earlier retrieved document?
                slot = <int64_t> (h & <uint64_t> rmask)
                while rtab[slot] >= 0:
                    j = rtab[slot]
                    if r_hash[j] == h and r_len[j] == r_len[i] and irs_bytes_cmp(
                            rdocs + r_start[j], r_len[j], rdocs + r_start[i], r_len[i]) == 0:
                        break
                    slot = (slot + 1) & rmask
                if rtab[slot] >= 0:
                    n_dup += 1
                    continue
                rtab[slot] = i
                # judged?
                g = -1
                slot = <int64_t> (h & <uint64_t> mask)
                while qtab[slot] >= 0:
                    j = qtab[slot]
                    if q_hash[j] == h and q_len[j] == r_len[i] and irs_bytes_cmp(
                            qdocs + q_start[j], q_len[j], rdocs + r_start[i], r_len[i]) == 0:
                        g = q_grade[j]
                        if g < 0:
                            g = -2
                        break
                    slot = (slot + 1) & mask
                k += 1
                if judged_only and g < 0:
                    continue
                rel[nout] = g
                sc[nout] = r_score[i]
                nout += 1
        ret_off[ne] = nout
    free(qtab)
    free(rtab)
    return rel_a[:nout], sc_a[:nout], ret_off_a, levels_a, n_dup
