"""Native encoder of pytrec_eval-style ``{qid: {docid: value}}`` dicts.

``encode_sorted`` walks the nested dicts with the CPython API (``PyDict_Next``,
``PyUnicode_AsUTF8AndSize``; no Python object is created per entry) and writes
the final columns of a :class:`~irscore.core.data.Run` or
:class:`~irscore.core.data.Qrels` in one pass: queries in byte order of their
ids (each query's block at its final offset, after one sizing pass), document
ids as one UTF-8 byte buffer with start/length and the same 64-bit hash as the
file reader.  A run's block is sorted in trec_eval order (score descending,
then doc id descending) while it is hot in cache; judgments keep their dict
order.  Dict keys are unique, so no duplicate handling is needed here.

Values must be real numbers: finite scores (runs), int32 integers (qrels).  The
fast path (``float`` scores, ``int`` grades, ``str`` ids) runs no Python code
and reads borrowed references; any other value is converted holding its own
references to the key and the value (the conversion may run Python code that
mutates the dicts: a query holding such a value is read from a copy of its items
taken before any conversion, so a key is never repeated or skipped; a query whose
size changed before it was reached or while it was read gives a clean
``RuntimeError``; never a read of
freed memory or a write out of the preallocated columns).
"""
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy

from irscore._trec_io cimport owned_array

import numpy as np

from irscore._irs_common cimport irs_hash_bytes
from irscore._irs_sort cimport irs_entry, irs_sort_entries

cdef extern from "Python.h":
    ctypedef struct PyObject
    const char *PyUnicode_AsUTF8AndSize(PyObject *s, Py_ssize_t *size) except NULL
    bint PyDict_Next(object d, Py_ssize_t *pos, PyObject **key, PyObject **value)
    bint PyUnicode_Check(PyObject *o)
    bint PyUnicode_IS_COMPACT_ASCII(PyObject *o)
    Py_ssize_t PyUnicode_GET_LENGTH(PyObject *o)
    void *PyUnicode_DATA(PyObject *o)
    bint PyFloat_CheckExact(PyObject *o)
    bint PyLong_CheckExact(PyObject *o)
    double PyFloat_AS_DOUBLE(PyObject *o)
    long long PyLong_AsLongLong(object o) except? -1
    Py_ssize_t PyDict_GET_SIZE(object d)


cdef int _bad_value(str what, object qid, object doc, object val, bint is_run) except -1:
    """Raise the error for a value that is not a usable score/grade."""
    kind = "score" if is_run else "relevance"
    if isinstance(val, (str, bytes)):
        raise TypeError(f"{what}[{qid!r}][{doc!r}]: {kind} {val!r} is a string, not a number")
    try:
        fv = float(val)
    except (TypeError, ValueError):
        raise TypeError(f"{what}[{qid!r}][{doc!r}]: {kind} {val!r} is not a number") from None
    if not (fv - fv == 0.0):
        raise ValueError(f"{what}[{qid!r}][{doc!r}]: {kind} {val!r} is not finite")
    if not is_run:
        if fv != int(fv):
            raise ValueError(f"{what}[{qid!r}][{doc!r}]: relevance {val!r} is not an integer")
        raise ValueError(f"{what}[{qid!r}][{doc!r}]: relevance {val!r} out of range")
    raise TypeError(f"{what}[{qid!r}][{doc!r}]: bad score {val!r}")


cdef double _slow_score(str what, object qid, object key, object val) except? -1.0:
    """A run value that is not an exact float (may run Python code)."""
    cdef double score = 0.0
    if isinstance(val, (str, bytes)):
        _bad_value(what, qid, key, val, True)
    try:
        score = float(val)
    except (TypeError, ValueError):
        _bad_value(what, qid, key, val, True)
    if not (score - score == 0.0):
        _bad_value(what, qid, key, val, True)
    return score


cdef int32_t _slow_grade(str what, object qid, object key, object val) except? -1:
    """A qrels value that is not an exact int in the int32 range (may run Python code)."""
    cdef long long iv
    cdef double fv = 0.0
    if PyLong_CheckExact(<PyObject *> val):
        try:
            iv = PyLong_AsLongLong(val)
        except OverflowError:
            iv = 1LL << 40
        if iv < -2147483648 or iv > 2147483647:
            _bad_value(what, qid, key, val, False)
        return <int32_t> iv
    if isinstance(val, (str, bytes)):
        _bad_value(what, qid, key, val, False)
    try:
        fv = float(val)
    except (TypeError, ValueError):
        _bad_value(what, qid, key, val, False)
    if not (fv - fv == 0.0) or fv != int(fv) or not (-2147483648 <= fv <= 2147483647):
        _bad_value(what, qid, key, val, False)
    return <int32_t> int(fv)


def encode_sorted(object data, bint is_run, str what="run", int sort_mode=0):
    """Final columns of a Run (``is_run``) or Qrels from ``{qid: {docid: value}}``.
    ``sort_mode`` (runs): 0 trec_eval's (score descending, then doc id descending),
    1 score descending with equal scores in the dict's order (a stable sort).

    Returns a dict: ``query_ids`` (the queries with at least one document, in
    byte order of their UTF-8 ids), ``offsets`` (int64 CSR, len = queries + 1),
    ``doc_buf`` (uint8), ``doc_start`` (int64), ``doc_len`` (int32),
    ``doc_hash`` (uint64) and ``scores`` (float64, runs; each query in
    trec_eval order) or ``grades`` (int32, qrels; dict order).
    """
    cdef Py_ssize_t n, pos, total = 0, maxcnt = 0, cnt, i, j, nq
    cdef int64_t k, lo, hi, walked = 0, bufsize = 0, bufcap = 0, est
    cdef const char *p
    cdef char *nb
    cdef char *docbuf = NULL
    cdef PyObject *key
    cdef PyObject *val
    cdef irs_entry *ent = NULL
    cdef double score
    cdef int32_t grade
    cdef Py_ssize_t isnap = 0, nsnap = 0
    cdef int64_t buf0
    if sort_mode != 0 and sort_mode != 1:
        raise ValueError("encode_sorted: sort_mode must be 0 or 1")
    if not isinstance(data, dict):
        raise TypeError(f"{what} must be a dict {{query_id: {{doc_id: value}}}}, got {type(data).__name__}")
    # sizing pass: the queries with documents, their sizes
    queries = []
    for qid, docs in (<dict> data).items():
        if not isinstance(qid, str):
            raise TypeError(f"{what}: query ids must be str, got {qid!r}")
        if not isinstance(docs, dict):
            raise TypeError(f"{what}[{qid!r}] must be a dict {{doc_id: value}}, got {type(docs).__name__}")
        cnt = PyDict_GET_SIZE(docs)
        if cnt:
            queries.append((qid, docs, cnt))
            total += cnt
            if cnt > maxcnt:
                maxcnt = cnt
    nq = len(queries)
    order = sorted(range(nq), key=lambda j: (<str> queries[j][0]).encode("utf-8"))
    # the columns: numpy arrays written through their data pointers
    offsets_a = np.empty(nq + 1, dtype=np.int64)
    start_a = np.empty(total, dtype=np.int64)
    len_a = np.empty(total, dtype=np.int32)
    hash_a = np.empty(total, dtype=np.uint64)
    val_a = np.empty(total, dtype=np.float64 if is_run else np.int32)
    cdef int64_t *offsets = <int64_t *> _data(offsets_a)
    cdef int64_t *start = <int64_t *> _data(start_a)
    cdef int32_t *length = <int32_t *> _data(len_a)
    cdef uint64_t *hashes = <uint64_t *> _data(hash_a)
    cdef double *scores = <double *> _data(val_a) if is_run else NULL
    cdef int32_t *grades = NULL if is_run else <int32_t *> _data(val_a)
    cdef int64_t *block = <int64_t *> malloc(nq * sizeof(int64_t) + 8)   # final position of each query
    try:
        if block == NULL:
            raise MemoryError()
        offsets[0] = 0
        for i in range(nq):
            j = order[i]
            block[j] = offsets[i]
            offsets[i + 1] = offsets[i] + <int64_t> (<tuple> queries[j])[2]
        if is_run:   # a run's query is collected here, sorted, then written out
            ent = <irs_entry *> malloc(maxcnt * sizeof(irs_entry) + sizeof(irs_entry))
            if ent == NULL:
                raise MemoryError()
        for i in range(nq):
            qid, docs, cnt = <tuple> queries[i]
            lo = block[i]
            hi = lo + cnt
            k = lo
            if walked > 0 and bufsize < 64 * walked:
                # size the rest of the buffer from the mean id length so far
                est = (bufsize // walked + 1) * (total - walked) + 64
                if bufcap - bufsize < est:
                    nb = <char *> realloc(docbuf, bufsize + est)
                    if nb == NULL:
                        raise MemoryError()
                    docbuf, bufcap = nb, bufsize + est
            pos = 0
            buf0 = bufsize
            snapshot = None
            while True:
                if snapshot is None:
                    if not PyDict_Next(docs, &pos, &key, &val):
                        break
                    if not (PyFloat_CheckExact(val) if is_run else PyLong_CheckExact(val)):
                        # A value to convert may run Python code that mutates this
                        # dict, after which PyDict_Next could repeat or skip a key:
                        # the query starts again from a copy of its items (nothing
                        # ran Python code since its first item).
                        snapshot = list((<dict> docs).items())
                        if len(snapshot) != cnt:
                            raise RuntimeError(f"{what} changed size while it was read")
                        nsnap = cnt
                        isnap = 0
                        k = lo
                        bufsize = buf0
                        continue
                else:
                    if isnap >= nsnap:
                        break
                    item = (<list> snapshot)[isnap]     # the list holds the key and the value
                    isnap += 1
                    key = <PyObject *> (<tuple> item)[0]
                    val = <PyObject *> (<tuple> item)[1]
                if k >= hi:
                    raise RuntimeError(f"{what} changed size while it was read")
                if not PyUnicode_Check(key):
                    raise TypeError(f"{what}[{qid!r}]: doc ids must be str, got {<object> key!r}")
                if is_run:
                    if PyFloat_CheckExact(val):
                        score = PyFloat_AS_DOUBLE(val)
                        if not (score - score == 0.0):
                            _bad_value(what, qid, <object> key, <object> val, True)
                    else:
                        # own references: the conversion may mutate the dicts
                        key_o = <object> key
                        val_o = <object> val
                        score = _slow_score(what, qid, key_o, val_o)
                        key = <PyObject *> key_o
                        if k >= hi:
                            raise RuntimeError(f"{what} changed size while it was read")
                    ent[k - lo].score = score
                else:
                    if PyLong_CheckExact(val):
                        grade = _slow_grade(what, qid, <object> key, <object> val)   # runs no Python code
                    else:
                        key_o = <object> key
                        val_o = <object> val
                        grade = _slow_grade(what, qid, key_o, val_o)
                        key = <PyObject *> key_o
                        if k >= hi:
                            raise RuntimeError(f"{what} changed size while it was read")
                    grades[k] = grade
                # the key's UTF-8 bytes only now: nothing runs Python code below
                if PyUnicode_IS_COMPACT_ASCII(key):
                    p = <const char *> PyUnicode_DATA(key)
                    n = PyUnicode_GET_LENGTH(key)
                else:
                    p = PyUnicode_AsUTF8AndSize(key, &n)
                if n > 2147483647:
                    raise ValueError(f"{what}[{qid!r}]: document id longer than 2**31 - 1 bytes")
                if bufsize + n > bufcap:
                    est = bufcap * 2 if bufcap * 2 >= bufsize + n else bufsize + n + 4096
                    nb = <char *> realloc(docbuf, est)
                    if nb == NULL:
                        raise MemoryError()
                    docbuf, bufcap = nb, est
                memcpy(docbuf + bufsize, p, n)
                if is_run:
                    ent[k - lo].start = bufsize
                    ent[k - lo].len = <int32_t> n
                    ent[k - lo].hash = irs_hash_bytes(p, n)
                    ent[k - lo].pos = <int32_t> (k - lo)
                else:
                    start[k] = bufsize
                    length[k] = <int32_t> n
                    hashes[k] = irs_hash_bytes(p, n)
                bufsize += n
                k += 1
            if k != hi or (snapshot is not None and PyDict_GET_SIZE(docs) != cnt):
                raise RuntimeError(f"{what} changed size while it was read")
            walked += cnt
            if is_run:
                if cnt > 1:
                    if sort_mode == 0:      # a literal mode: the sort specialised as before
                        irs_sort_entries(ent, cnt, docbuf, 0)
                    else:
                        irs_sort_entries(ent, cnt, docbuf, 1)
                for k in range(cnt):
                    scores[lo + k] = ent[k].score
                    start[lo + k] = ent[k].start
                    length[lo + k] = ent[k].len
                    hashes[lo + k] = ent[k].hash
        out = {"query_ids": [queries[order[i]][0] for i in range(nq)], "offsets": offsets_a,
               "doc_buf": owned_array(&docbuf, bufsize, np.uint8),   # the array takes the buffer over
               "doc_start": start_a, "doc_len": len_a, "doc_hash": hash_a}
        out["scores" if is_run else "grades"] = val_a
        return out
    finally:
        free(ent)
        free(docbuf)
        free(block)


cdef void *_data(object arr) except? NULL:
    """The data pointer of a C-contiguous numpy array (NULL when empty)."""
    if arr.size == 0:
        return NULL
    return <void *> <size_t> arr.__array_interface__["data"][0]
