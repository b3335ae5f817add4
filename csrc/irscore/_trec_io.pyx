"""Native tokenizer for TREC qrels and run files.

The parser is fed the file in chunks (so ``.gz`` files stream through Python's
``gzip`` module) and never builds a Python object per line.  It produces, in file
order, columnar arrays: the query index of each line (queries interned by id),
the document ids as one UTF-8 byte buffer plus offsets, a 64-bit hash of each
document id, and the score (runs) or grade (qrels).

Line rules follow trec_eval 10: fields are separated by white space; blank lines
and lines whose first non-blank character is ``#`` are skipped; a run line is
``qid iter docno rank score run_id [ignored ...]`` and a qrels line is exactly
``qid iter docno rel``.  Unlike trec_eval, a malformed line, a score that is not a
finite number or a grade that is not an int32 integer raises ``ValueError`` naming
the file and the physical line number; so does binary data (a NUL byte, or ids
that are not UTF-8), reported as such.  Echoed tokens are short escaped
excerpts.  A UTF-8 byte-order mark at the start of the input is skipped with
one ``UserWarning``.
"""
from libc.stdint cimport int32_t, int64_t, uint64_t, uint8_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy, memchr

import numpy as np

cdef extern from "irs_tokenize.h" nogil:
    int irs_tokens(const char *s, const char *eol, const char *bufend,
                   const char **tok, int64_t *tlen, int maxtok)

cdef extern from "irs_common.h" nogil:
    uint64_t irs_hash_bytes(const char *p, int64_t n)
    int irs_bytes_cmp(const char *a, int64_t na, const char *b, int64_t nb)
    int irs_parse_double(const char *p, int64_t n, double *out)
    int irs_parse_int32(const char *p, int64_t n, int32_t *out)
    int irs_not_text(const char *p, int64_t n)

import warnings

# longest excerpt of an offending token in an error message
_EXCERPT = 40


def _excerpt(bytes tok):
    """A short, escaped, printable excerpt of a token for an error message."""
    text = tok.decode("utf-8", "backslashreplace")
    r = repr(text)
    if len(r) > _EXCERPT:
        r = r[:_EXCERPT - 4] + "...'"
    return r


cdef struct Vec:
    char *data
    int64_t size      # bytes used
    int64_t cap       # bytes allocated


cdef int vec_grow(Vec *v, int64_t extra) noexcept nogil:
    """Make room for ``extra`` more bytes; -1 when out of memory."""
    cdef int64_t need = v.size + extra
    cdef int64_t cap
    cdef char *p
    if need <= v.cap:
        return 0
    cap = v.cap * 2 if v.cap > 0 else 4096
    while cap < need:
        cap *= 2
    p = <char *> realloc(v.data, cap)
    if p == NULL:
        return -1
    v.data = p
    v.cap = cap
    return 0


cdef int vec_reserve(Vec *v, int64_t extra) except -1:
    if vec_grow(v, extra) != 0:
        raise MemoryError()
    return 0


cdef inline int vec_push(Vec *v, const void *src, int64_t n) noexcept nogil:
    if v.size + n > v.cap:
        if vec_grow(v, n) != 0:
            return -1
    memcpy(v.data + v.size, src, n)
    v.size += n
    return 0


cdef class _Owner:
    """Owns a malloc'd buffer handed to numpy without a copy (freed with the array)."""
    cdef char *data
    cdef Py_ssize_t size
    cdef Py_ssize_t shape[1]

    def __dealloc__(self):
        free(self.data)

    def __getbuffer__(self, Py_buffer *buf, int flags):
        self.shape[0] = self.size
        buf.buf = self.data
        buf.obj = self
        buf.len = self.size
        buf.readonly = 0
        buf.itemsize = 1
        buf.format = "B"
        buf.ndim = 1
        buf.shape = self.shape
        buf.strides = NULL
        buf.suboffsets = NULL
        buf.internal = NULL

    def __releasebuffer__(self, Py_buffer *buf):
        pass


cdef object vec_to_array(Vec *v, object dtype):
    """Hand the vector's memory to a numpy array (no copy) and reset the vector."""
    cdef _Owner owner = _Owner()
    cdef char *p
    if v.size == 0:
        free(v.data)
        v.data = NULL
        v.cap = 0
        return np.empty(0, dtype=dtype)
    p = <char *> realloc(v.data, v.size)   # give back the unused capacity
    owner.data = p if p != NULL else v.data
    owner.size = v.size
    v.data = NULL
    v.size = 0
    v.cap = 0
    return np.frombuffer(owner, dtype=dtype)


cdef unsigned char SPACE[256]
for _c in range(256):
    SPACE[_c] = 1 if _c in (9, 10, 11, 12, 13, 32) else 0


cdef inline bint is_space(char c) noexcept nogil:
    return SPACE[<unsigned char> c]


cdef class TrecParser:
    """Streaming parser.  ``kind`` is ``"run"`` or ``"qrels"``."""

    cdef Vec docbuf, docoff, hashes, qidx, values
    cdef Vec qbuf, qoff
    cdef int64_t *qtab          # open-addressing table of query indices (-1 empty)
    cdef int64_t qtab_cap
    cdef int64_t nq
    cdef int64_t last_q
    cdef bint is_run
    cdef int64_t lineno
    cdef int64_t consumed
    cdef bytes carry
    cdef bytes run_id
    cdef str name
    cdef public int64_t line_base     # lines before this parser's input
    # error state of parse_lines (it runs without the GIL)
    cdef int err_code
    cdef int64_t err_line
    cdef int err_ntok
    cdef char err_tok[128]
    cdef int err_tok_len
    cdef const char *rid
    cdef int64_t rid_len
    cdef bint bom_checked

    def __cinit__(self, str kind, str name="<input>"):
        self.is_run = kind == "run"
        if kind not in ("run", "qrels"):
            raise ValueError("kind must be 'run' or 'qrels'")
        self.name = name
        self.qtab_cap = 1024
        self.qtab = <int64_t *> malloc(self.qtab_cap * sizeof(int64_t))
        if self.qtab == NULL:
            raise MemoryError()
        for i in range(self.qtab_cap):
            self.qtab[i] = -1
        self.nq = 0
        self.last_q = -1
        self.lineno = 0
        self.carry = b""
        self.run_id = b""
        cdef int64_t zero = 0
        if vec_push(&self.docoff, &zero, sizeof(int64_t)) or vec_push(&self.qoff, &zero, sizeof(int64_t)):
            raise MemoryError()

    def __dealloc__(self):
        free(self.docbuf.data)
        free(self.docoff.data)
        free(self.hashes.data)
        free(self.qidx.data)
        free(self.values.data)
        free(self.qbuf.data)
        free(self.qoff.data)
        free(self.qtab)

    cdef int64_t intern_query(self, const char *p, int64_t n) noexcept nogil:
        cdef const int64_t *qoff = <const int64_t *> self.qoff.data
        cdef int64_t q
        cdef uint64_t h, mask
        cdef int64_t slot, i
        # fast path: same query as the previous line
        if self.last_q >= 0:
            q = self.last_q
            if irs_bytes_cmp(self.qbuf.data + qoff[q], qoff[q + 1] - qoff[q], p, n) == 0:
                return q
        h = irs_hash_bytes(p, n)
        mask = <uint64_t> (self.qtab_cap - 1)
        slot = <int64_t> (h & mask)
        while True:
            q = self.qtab[slot]
            if q < 0:
                break
            if irs_bytes_cmp(self.qbuf.data + qoff[q], qoff[q + 1] - qoff[q], p, n) == 0:
                self.last_q = q
                return q
            slot = <int64_t> ((<uint64_t> slot + 1) & mask)
        # new query
        q = self.nq
        self.qtab[slot] = q
        self.nq += 1
        cdef int64_t end = self.qbuf.size + n
        if vec_push(&self.qbuf, p, n) or vec_push(&self.qoff, &end, sizeof(int64_t)):
            return -1
        if self.nq * 2 > self.qtab_cap:
            if self.grow_table() != 0:
                return -1
        self.last_q = q
        return q

    cdef int grow_table(self) noexcept nogil:
        cdef int64_t newcap = self.qtab_cap * 2
        cdef int64_t *tab = <int64_t *> malloc(newcap * sizeof(int64_t))
        cdef const int64_t *qoff = <const int64_t *> self.qoff.data
        cdef int64_t i, q, slot
        cdef uint64_t mask = <uint64_t> (newcap - 1)
        if tab == NULL:
            return -1
        for i in range(newcap):
            tab[i] = -1
        for q in range(self.nq):
            slot = <int64_t> (irs_hash_bytes(self.qbuf.data + qoff[q], qoff[q + 1] - qoff[q]) & mask)
            while tab[slot] >= 0:
                slot = <int64_t> ((<uint64_t> slot + 1) & mask)
            tab[slot] = q
        free(self.qtab)
        self.qtab = tab
        self.qtab_cap = newcap
        return 0

    cdef void set_error(self, int code, int ntok, const char *tok, int64_t tlen) noexcept nogil:
        self.err_code = code
        self.err_line = self.lineno
        self.err_ntok = ntok
        self.err_tok_len = <int> (tlen if tlen < 127 else 127)
        if tok != NULL and self.err_tok_len > 0:
            memcpy(self.err_tok, tok, self.err_tok_len)

    def raise_pending(self):
        """Raise the error recorded by the parser, if any (line = line_base + local line)."""
        cdef int code = self.err_code
        if code == 0:
            return
        self.err_code = 0
        where = f"{self.name}:{self.line_base + self.err_line}"
        tok = _excerpt(self.err_tok[:self.err_tok_len])
        if code == 7:
            raise ValueError(f"{where}: binary or non-UTF-8 data (not a TREC {'run' if self.is_run else 'qrels'} "
                             f"text file?)")
        if code == 1:
            raise ValueError(f"{where}: malformed run line: expected 6 fields "
                             f"'qid iter docno rank score run_id', found {self.err_ntok}")
        if code == 2:
            raise ValueError(f"{where}: score {tok} is not a number")
        if code == 3:
            raise ValueError(f"{where}: score {tok} is not finite")
        if code == 4:
            raise ValueError(f"{where}: malformed qrels line: expected 4 fields "
                             f"'qid iter docno rel', found {self.err_ntok}")
        if code == 5:
            raise ValueError(f"{where}: relevance {tok} is not an integer")
        if code == 6:
            raise ValueError(f"{where}: relevance {tok} is out of range (grades are int32: "
                             "-2147483648 .. 2147483647)")
        raise MemoryError()

    cdef int line_error(self, int code, int ntok, const char *tok, int64_t tlen,
                        const char *line, const char *eol) noexcept nogil:
        """Record the error of a line; a line that is not text is reported as
        binary data whatever else is wrong with it."""
        if irs_not_text(line, eol - line):
            code = 7
        self.set_error(code, ntok, tok, tlen)
        return code

    cdef int parse_lines(self, const char *s, const char *end) noexcept nogil:
        """Parse the complete lines in s[0..end) (end is just past a newline or the
        data end).  Returns 0, or an error code with the error state set."""
        cdef const char *line
        cdef const char *eol
        cdef const char *tok[6]
        cdef int64_t tlen[6]
        cdef int ntok, rc
        cdef int64_t q, off
        cdef int32_t q32, grade = 0
        cdef double score = 0.0
        cdef uint64_t h
        cdef int bad = 0
        while s < end:
            eol = <const char *> memchr(s, b'\n', end - s)
            if eol == NULL:
                eol = end
            self.lineno += 1
            line = s
            s = eol + 1
            ntok = irs_tokens(line, eol, end, tok, tlen, 6)
            if ntok == 0 or tok[0][0] == b'#':
                continue       # blank line or comment
            if self.is_run:
                if ntok < 6:
                    return self.line_error(1, ntok, NULL, 0, line, eol)
                rc = irs_parse_double(tok[4], tlen[4], &score)
                if rc != 0:
                    return self.line_error(3 if rc == -2 else 2, ntok, tok[4], tlen[4], line, eol)
                self.rid = tok[5]
                self.rid_len = tlen[5]
            else:
                if ntok != 4:
                    return self.line_error(4, ntok, NULL, 0, line, eol)
                rc = irs_parse_int32(tok[3], tlen[3], &grade)
                if rc != 0:
                    return self.line_error(6 if rc == -2 else 5, ntok, tok[3], tlen[3], line, eol)
            # ids must be text (binary input is reported as such, not as odd ids)
            if irs_not_text(tok[0], tlen[0]) or irs_not_text(tok[2], tlen[2]):
                self.set_error(7, ntok, NULL, 0)
                return 7
            q = self.intern_query(tok[0], tlen[0])
            if q < 0:
                self.set_error(9, 0, NULL, 0)
                return 9
            q32 = <int32_t> q
            h = irs_hash_bytes(tok[2], tlen[2])
            bad = vec_push(&self.qidx, &q32, sizeof(int32_t))
            bad |= vec_push(&self.docbuf, tok[2], tlen[2])
            off = self.docbuf.size
            bad |= vec_push(&self.docoff, &off, sizeof(int64_t))
            bad |= vec_push(&self.hashes, &h, sizeof(uint64_t))
            if self.is_run:
                bad |= vec_push(&self.values, &score, sizeof(double))
            else:
                bad |= vec_push(&self.values, &grade, sizeof(int32_t))
            if bad:
                self.set_error(9, 0, NULL, 0)
                return 9
        return 0

    cdef int parse(self, const char *s, const char *end) except -1:
        """parse_lines without the GIL, then raise its error if any; keeps the run id."""
        cdef int rc
        self.rid = NULL
        if not self.bom_checked:
            self.bom_checked = True
            if self.line_base == 0 and end - s >= 3 and <unsigned char> s[0] == 0xEF and <unsigned char> s[1] == 0xBB and <unsigned char> s[2] == 0xBF:
                s += 3
                warnings.warn(f"{self.name}: UTF-8 byte-order mark at the start of the file ignored",
                              UserWarning, stacklevel=4)
        with nogil:
            rc = self.parse_lines(s, end)
        if self.rid != NULL:
            self.run_id = self.rid[:self.rid_len]
            self.rid = NULL
        if rc:
            self.raise_pending()
        return 0

    def reserve(self, int64_t total_bytes):
        """Pre-size the columns for a file of ``total_bytes`` from the lines seen so far
        (avoids repeated reallocation and copying of the columns)."""
        cdef int64_t n = self.qidx.size // sizeof(int32_t)
        cdef int64_t lines, doc_bytes
        if n == 0:
            return
        lines = (total_bytes * n) // max(self.consumed, 1) + 16
        lines += lines // 20
        doc_bytes = (self.docbuf.size * lines) // n + 16
        vec_reserve(&self.qidx, lines * sizeof(int32_t) - self.qidx.size)
        vec_reserve(&self.docoff, (lines + 1) * sizeof(int64_t) - self.docoff.size)
        vec_reserve(&self.hashes, lines * sizeof(uint64_t) - self.hashes.size)
        vec_reserve(&self.values, lines * (sizeof(double) if self.is_run else sizeof(int32_t)) - self.values.size)
        vec_reserve(&self.docbuf, doc_bytes - self.docbuf.size)

    def feed(self, const uint8_t[::1] chunk):
        """Parse a chunk of the file (any size; lines may span chunks)."""
        cdef int64_t n = chunk.shape[0]
        cdef const char *p
        cdef const char *nl
        cdef const char *last
        cdef bytes joined
        if n == 0:
            return
        self.consumed += n
        p = <const char *> &chunk[0]
        if len(self.carry):
            nl = <const char *> memchr(p, b'\n', n)
            if nl == NULL:
                self.carry = self.carry + bytes(chunk)
                return
            joined = self.carry + bytes(chunk[:nl - p + 1])
            self.carry = b""
            self.parse(<const char *> joined, (<const char *> joined) + len(joined))
            n -= (nl - p + 1)
            p = nl + 1
            if n == 0:
                return
        # find the last newline
        last = p + n - 1
        while last >= p and last[0] != b'\n':
            last -= 1
        if last < p:
            self.carry = p[:n]
            return
        self.parse(p, last + 1)
        if last + 1 < p + n:
            self.carry = (last + 1)[:(p + n) - (last + 1)]

    def finish(self):
        """Parse any unterminated last line and return the columnar result.

        Returns a dict with ``query_ids`` (list of str, in order of first
        appearance), ``qidx`` (int32, per line), ``doc_buf`` (uint8),
        ``doc_off`` (int64, n+1), ``doc_hash`` (uint64), and ``scores``
        (float64) or ``grades`` (int32), plus ``run_id`` for runs.
        """
        if len(self.carry):
            c = self.carry
            self.carry = b""
            self.parse(<const char *> c, (<const char *> c) + len(c))
        qbuf = vec_to_array(&self.qbuf, np.uint8).tobytes()
        qoff = vec_to_array(&self.qoff, np.int64)
        try:
            query_ids = [qbuf[qoff[i]:qoff[i + 1]].decode("utf-8") for i in range(self.nq)]
        except UnicodeDecodeError as exc:
            raise ValueError(f"{self.name}: query ids are not valid UTF-8 ({exc})") from None
        out = {
            "query_ids": query_ids,
            "qidx": vec_to_array(&self.qidx, np.int32),
            "doc_buf": vec_to_array(&self.docbuf, np.uint8),
            "doc_off": vec_to_array(&self.docoff, np.int64),
            "doc_hash": vec_to_array(&self.hashes, np.uint64),
        }
        if self.is_run:
            out["scores"] = vec_to_array(&self.values, np.float64)
            out["run_id"] = self.run_id.decode("utf-8", "replace")
        else:
            out["grades"] = vec_to_array(&self.values, np.int32)
        return out


cdef extern from "Python.h":
    const char *PyUnicode_AsUTF8AndSize(object s, Py_ssize_t *size) except NULL

    ctypedef struct PyObject
    bint PyDict_Next(object d, Py_ssize_t *pos, PyObject **key, PyObject **value)
    bint PyUnicode_Check(PyObject *o)
    bint PyFloat_CheckExact(PyObject *o)
    bint PyLong_CheckExact(PyObject *o)
    double PyFloat_AS_DOUBLE(PyObject *o)
    long long PyLong_AsLongLong(object o) except? -1


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


def encode_nested(object data, bint is_run, str what="run"):
    """Columnar encoding of a pytrec_eval-style ``{qid: {docid: value}}`` dict.

    Returns the same dict as ``TrecParser.finish``.  Values must be real numbers
    (finite scores for runs; integers for qrels).  The columns are sized exactly
    before the loop, which holds a reference to every key and value it reads
    (values may run Python code that mutates the dicts: the result is then a
    clean ``RuntimeError``, never a read of freed memory).
    """
    cdef Vec docbuf, docoff, hashes, qidx, values
    cdef Py_ssize_t n, pos, total = 0, k = 0
    cdef const char *p
    cdef int64_t q = 0, est
    cdef int32_t grade
    cdef double score
    cdef long long iv
    cdef PyObject *key
    cdef PyObject *val
    cdef list query_ids = []
    cdef int32_t *qidx_p
    cdef int64_t *off_p
    cdef uint64_t *hash_p
    cdef double *score_p
    cdef int32_t *grade_p
    docbuf.data = NULL; docbuf.size = 0; docbuf.cap = 0
    docoff.data = NULL; docoff.size = 0; docoff.cap = 0
    hashes.data = NULL; hashes.size = 0; hashes.cap = 0
    qidx.data = NULL; qidx.size = 0; qidx.cap = 0
    values.data = NULL; values.size = 0; values.cap = 0
    if not isinstance(data, dict):
        raise TypeError(f"{what} must be a dict {{query_id: {{doc_id: value}}}}, got {type(data).__name__}")
    for qid, docs in (<dict> data).items():
        if not isinstance(qid, str):
            raise TypeError(f"{what}: query ids must be str, got {qid!r}")
        if not isinstance(docs, dict):
            raise TypeError(f"{what}[{qid!r}] must be a dict {{doc_id: value}}, got {type(docs).__name__}")
        total += len(<dict> docs)
    try:
        vec_reserve(&qidx, total * sizeof(int32_t) + 8)
        vec_reserve(&docoff, (total + 1) * sizeof(int64_t))
        vec_reserve(&hashes, total * sizeof(uint64_t) + 8)
        vec_reserve(&values, total * (sizeof(double) if is_run else sizeof(int32_t)) + 8)
        qidx_p = <int32_t *> qidx.data
        off_p = <int64_t *> docoff.data
        hash_p = <uint64_t *> hashes.data
        score_p = <double *> values.data
        grade_p = <int32_t *> values.data
        off_p[0] = 0
        for qid, docs in (<dict> data).items():
            if not len(<dict> docs):
                continue            # a query without documents is absent
            query_ids.append(qid)
            if k and docbuf.size < 16 * k:
                est = (docbuf.size // k + 1) * (total - k) + 64
                if docbuf.cap - docbuf.size < est:
                    vec_reserve(&docbuf, est)
            pos = 0
            while PyDict_Next(docs, &pos, &key, &val):
                # own references: a value's __float__/__index__ may mutate the dict
                # and free a borrowed key or value before it is used
                key_o = <object> key
                val_o = <object> val
                key = <PyObject *> key_o
                val = <PyObject *> val_o
                if k >= total:
                    raise RuntimeError(f"{what} changed size while it was read")
                if not PyUnicode_Check(key):
                    raise TypeError(f"{what}[{qid!r}]: doc ids must be str, got {<object> key!r}")
                if is_run:
                    if PyFloat_CheckExact(val):
                        score = PyFloat_AS_DOUBLE(val)
                    elif isinstance(<object> val, (str, bytes)):
                        _bad_value(what, qid, <object> key, <object> val, True)
                    else:
                        try:
                            score = float(<object> val)
                        except (TypeError, ValueError):
                            _bad_value(what, qid, <object> key, <object> val, True)
                    if not (score - score == 0.0):
                        _bad_value(what, qid, <object> key, <object> val, True)
                    score_p[k] = score
                else:
                    if PyLong_CheckExact(val):
                        try:
                            iv = PyLong_AsLongLong(<object> val)
                        except OverflowError:
                            iv = 1LL << 40
                        if iv < -2147483648 or iv > 2147483647:
                            _bad_value(what, qid, <object> key, <object> val, False)
                        grade = <int32_t> iv
                    else:
                        if isinstance(<object> val, (str, bytes)):
                            _bad_value(what, qid, <object> key, <object> val, False)
                        try:
                            fv = float(<object> val)
                        except (TypeError, ValueError):
                            _bad_value(what, qid, <object> key, <object> val, False)
                        if not (fv - fv == 0.0) or fv != int(fv) or not (-2147483648 <= fv <= 2147483647):
                            _bad_value(what, qid, <object> key, <object> val, False)
                        grade = <int32_t> int(fv)
                    grade_p[k] = grade
                # the key's UTF-8 bytes only now: nothing runs Python code below
                p = PyUnicode_AsUTF8AndSize(key_o, &n)
                qidx_p[k] = <int32_t> q
                if docbuf.size + n > docbuf.cap:
                    vec_reserve(&docbuf, n)
                memcpy(docbuf.data + docbuf.size, p, n)
                docbuf.size += n
                off_p[k + 1] = docbuf.size
                hash_p[k] = irs_hash_bytes(p, n)
                k += 1
            q += 1
        if k != total:
            raise RuntimeError(f"{what} changed size while it was read")
        qidx.size = total * sizeof(int32_t)
        docoff.size = (total + 1) * sizeof(int64_t)
        hashes.size = total * sizeof(uint64_t)
        values.size = total * (sizeof(double) if is_run else sizeof(int32_t))
        out = {
            "query_ids": query_ids,
            "qidx": vec_to_array(&qidx, np.int32),
            "doc_buf": vec_to_array(&docbuf, np.uint8),
            "doc_off": vec_to_array(&docoff, np.int64),
            "doc_hash": vec_to_array(&hashes, np.uint64),
        }
        if is_run:
            out["scores"] = vec_to_array(&values, np.float64)
            out["run_id"] = "irscore"
        else:
            out["grades"] = vec_to_array(&values, np.int32)
        return out
    finally:
        free(docbuf.data)
        free(docoff.data)
        free(hashes.data)
        free(qidx.data)
        free(values.data)


def hash_strings(list strings):
    """Doc-id hashes of a list of str (same hash as the parser)."""
    cdef Py_ssize_t i, n
    cdef const char *p
    out = np.empty(len(strings), dtype=np.uint64)
    cdef uint64_t[::1] o = out
    for i in range(len(strings)):
        p = PyUnicode_AsUTF8AndSize(strings[i], &n)
        o[i] = irs_hash_bytes(p, n)
    return out


def hash_slices(const uint8_t[::1] buf, const int64_t[::1] off):
    """Doc-id hashes (as ``hash_strings``) of the byte strings
    ``buf[off[i]:off[i + 1]]`` -- e.g. an Arrow string column's data and
    offsets -- without a Python object per string."""
    cdef int64_t n = off.shape[0] - 1, i
    if n < 0:
        raise ValueError("hash_slices: offsets must hold at least one entry")
    if n and (off[0] < 0 or off[n] > buf.shape[0]):
        raise ValueError("hash_slices: offsets outside the buffer")
    for i in range(n):
        if off[i + 1] < off[i]:
            raise ValueError("hash_slices: offsets must be non-decreasing")
    out = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] o = out
    cdef const char *base = <const char *> &buf[0] if buf.shape[0] else NULL
    with nogil:
        for i in range(n):
            o[i] = irs_hash_bytes(base + off[i] if base != NULL else base, off[i + 1] - off[i])
    return out


def encode_keys(list keys):
    """Document ids (exact ``str`` or ``int``) as one byte column: each key is a
    type tag (``s``/``i``) plus its UTF-8 text.  Returns ``(buf, off, hashes)``."""
    cdef Py_ssize_t i, n = len(keys), m
    cdef const char *p
    cdef Vec buf
    cdef char tag
    cdef object k
    buf.data = NULL; buf.size = 0; buf.cap = 0
    off_a = np.empty(n + 1, dtype=np.int64)
    hash_a = np.empty(n, dtype=np.uint64)
    cdef int64_t[::1] off = off_a
    cdef uint64_t[::1] hv = hash_a
    try:
        off[0] = 0
        for i in range(n):
            k = keys[i]
            if type(k) is str:
                tag = b's'
                p = PyUnicode_AsUTF8AndSize(k, &m)
            elif type(k) is int:
                tag = b'i'
                k = str(k)
                p = PyUnicode_AsUTF8AndSize(k, &m)
            else:
                raise TypeError(f"document ids must be str or int, got {type(k).__name__}")
            if vec_push(&buf, &tag, 1) or vec_push(&buf, p, m):
                raise MemoryError()
            off[i + 1] = buf.size
            hv[i] = irs_hash_bytes(buf.data + off[i], m + 1)
        return vec_to_array(&buf, np.uint8), off_a, hash_a
    finally:
        free(buf.data)


cdef class KeyIndex:
    """Hash index over encoded keys (``encode_keys``): ``lookup`` gives, for other
    encoded keys, the position of the equal key here (bytes compared), or a default."""
    cdef const uint8_t[::1] buf
    cdef const int64_t[::1] off
    cdef const uint64_t[::1] hv
    cdef int64_t *table
    cdef int64_t mask

    def __cinit__(self, const uint8_t[::1] buf, const int64_t[::1] off, const uint64_t[::1] hashes):
        cdef int64_t n = hashes.shape[0], i, slot, cap = 16
        if off.shape[0] != n + 1 or (n and (off[0] != 0 or off[n] != buf.shape[0])):
            raise ValueError("KeyIndex: inconsistent key columns")
        for i in range(n):
            if off[i + 1] < off[i]:
                raise ValueError("KeyIndex: offsets must be non-decreasing")
        while cap < 2 * n:
            cap *= 2
        self.table = <int64_t *> malloc(cap * sizeof(int64_t))
        if self.table == NULL:
            raise MemoryError()
        self.buf, self.off, self.hv, self.mask = buf, off, hashes, cap - 1
        with nogil:
            for i in range(cap):
                self.table[i] = -1
            for i in range(n):
                slot = <int64_t> (hashes[i] & <uint64_t> self.mask)
                while self.table[slot] >= 0:
                    slot = (slot + 1) & self.mask
                self.table[slot] = i

    def __dealloc__(self):
        free(self.table)

    def lookup(self, const uint8_t[::1] buf, const int64_t[::1] off, const uint64_t[::1] hashes,
               int64_t default=-1):
        cdef int64_t n = hashes.shape[0], i, j, slot, la, lb
        cdef const char *a
        cdef const char *b
        cdef const char *mine = <const char *> &self.buf[0] if self.buf.shape[0] else NULL
        cdef const char *theirs = <const char *> &buf[0] if buf.shape[0] else NULL
        if off.shape[0] != n + 1 or (n and (off[0] != 0 or off[n] != buf.shape[0])):
            raise ValueError("KeyIndex.lookup: inconsistent key columns")
        for i in range(n):
            if off[i + 1] < off[i]:
                raise ValueError("KeyIndex.lookup: offsets must be non-decreasing")
        out_a = np.empty(n, dtype=np.int64)
        cdef int64_t[::1] out = out_a
        with nogil:
            for i in range(n):
                out[i] = default
                a = theirs + off[i]
                la = off[i + 1] - off[i]
                slot = <int64_t> (hashes[i] & <uint64_t> self.mask)
                while self.table[slot] >= 0:
                    j = self.table[slot]
                    lb = self.off[j + 1] - self.off[j]
                    if self.hv[j] == hashes[i] and lb == la and irs_bytes_cmp(
                            mine + self.off[j], lb, a, la) == 0:
                        out[i] = j
                        break
                    slot = (slot + 1) & self.mask
        return out_a
