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
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memcpy, memchr, memmove, memset

import numpy as np

cdef extern from "irs_reaper.h" nogil:
    void irs_free_later(void *p, size_t size)
    void *irs_malloc_cached(size_t size)
    size_t irs_reaper_kept()
    void irs_reaper_release()
    void irs_reaper_set_seconds(double seconds)
    int irs_reaper_init()

if irs_reaper_init() != 0:
    raise RuntimeError("irscore._trec_io: pthread_atfork failed")


def _kept_bytes():
    """Bytes of dropped column buffers kept for the next read (irs_reaper.h; tests)."""
    return int(irs_reaper_kept())


def _release_kept():
    """Free the kept column buffers now (tests)."""
    irs_reaper_release()


def _set_keep_seconds(double seconds):
    """How long dropped column buffers are kept from now on (tests; 10 by default)."""
    if not (0.0 <= seconds <= 3600.0):
        raise ValueError("seconds must be in [0, 3600]")
    irs_reaper_set_seconds(seconds)


cdef extern from "irs_tokenize.h" nogil:
    int irs_tokens(const char *s, const char *eol, const char *bufend,
                   const char **tok, int64_t *tlen, int maxtok, int *plain)

cdef extern from "irs_lines.h" nogil:
    int irs_same_bytes(const char *a, const char *b, int64_t n)
    uint64_t irs_hash_bytes_padded(const char *p, int64_t n, int64_t avail)

cdef extern from "irs_common.h" nogil:
    void IRS_PREFETCH(const void *p)
    uint64_t irs_hash_bytes(const char *p, int64_t n)
    int irs_bytes_cmp(const char *a, int64_t na, const char *b, int64_t nb)
    int irs_parse_double(const char *p, int64_t n, double *out)
    int irs_parse_int32(const char *p, int64_t n, int32_t *out)
    int irs_not_text(const char *p, int64_t n)

import mmap
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
        irs_free_later(self.data, <size_t> self.size)     # large blocks: freed on the reaper thread

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


cdef object owned_array(char **data, int64_t size, object dtype):
    """An array of ``dtype`` over the malloc'd ``*data`` of ``size`` bytes (no
    copy; the unused capacity given back); the array owns and frees the buffer
    from then on and ``*data`` is set to NULL.  With ``size`` 0 an empty array,
    ``*data`` left to the caller.  Shared with the dict encoder (``_dicts``)."""
    cdef _Owner owner = _Owner()
    cdef char *p
    if size == 0:
        return np.empty(0, dtype=dtype)
    p = <char *> realloc(data[0], size)
    owner.data = p if p != NULL else data[0]
    owner.size = size
    data[0] = NULL
    return np.frombuffer(owner, dtype=dtype)


cdef object vec_to_array(Vec *v, object dtype):
    """Hand the vector's memory to a numpy array (no copy) and reset the vector."""
    out = owned_array(&v.data, v.size, dtype)
    free(v.data)        # still set only when the vector was empty
    v.data = NULL
    v.size = 0
    v.cap = 0
    return out


cdef unsigned char SPACE[256]
for _c in range(256):
    SPACE[_c] = 1 if _c in (9, 10, 11, 12, 13, 32) else 0


cdef inline bint is_space(char c) noexcept nogil:
    return SPACE[<unsigned char> c]


cdef class TrecParser:
    """Streaming parser.  ``kind`` is ``"run"`` or ``"qrels"``."""

    # SplitParser's parts run one TrecParser each on their own threads, each
    # writing its parser's line state (lineno, rid) on every line: 128 bytes at
    # each end keep two parsers' fields off a shared cache line wherever the
    # allocator puts them (without them, the parse of 10M lines on two threads
    # took 0.28 s instead of 0.23 s whenever the two parsers were allocated
    # next to each other)
    cdef char _pad_head[128]
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
    cdef bint finished              # finish() handed the columns out: no call after it
    cdef unsigned long intr_since   # SplitParser parts: irs_intr_begin's value for the running pass
    cdef char _pad_tail[128]

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
            if qoff[q + 1] - qoff[q] == n and irs_same_bytes(self.qbuf.data + qoff[q], p, n):
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

    cdef int check_line(self, const char *line, const char *eol, const char *end,
                        const char **tok, int64_t *tlen, double *score, int32_t *grade) noexcept nogil:
        """Tokenize and validate one line: -1 for a blank or comment line, 0 for a
        data line (tokens, score or grade set), else an error code (state set)."""
        cdef int ntok, rc, plain
        ntok = irs_tokens(line, eol, end, tok, tlen, 6, &plain)
        if ntok == 0 or tok[0][0] == b'#':
            return -1       # blank line or comment
        if self.is_run:
            if ntok < 6:
                return self.line_error(1, ntok, NULL, 0, line, eol)
            rc = irs_parse_double(tok[4], tlen[4], score)
            if rc != 0:
                return self.line_error(3 if rc == -2 else 2, ntok, tok[4], tlen[4], line, eol)
            self.rid = tok[5]
            self.rid_len = tlen[5]
        else:
            if ntok != 4:
                return self.line_error(4, ntok, NULL, 0, line, eol)
            rc = irs_parse_int32(tok[3], tlen[3], grade)
            if rc != 0:
                return self.line_error(6 if rc == -2 else 5, ntok, tok[3], tlen[3], line, eol)
        # ids must be text (binary input is reported as such, not as odd ids)
        if not plain and (irs_not_text(tok[0], tlen[0])
                                                   or irs_not_text(tok[2], tlen[2])):
            self.set_error(7, ntok, NULL, 0)
            return 7
        return 0

    cdef int parse_lines(self, const char *s, const char *end) noexcept nogil:
        """Parse the complete lines in s[0..end) (end is just past a newline or the
        data end).  Returns 0, or an error code with the error state set."""
        cdef const char *line
        cdef const char *eol
        cdef const char *tok[6]
        cdef int64_t tlen[6]
        cdef int rc
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
            rc = self.check_line(line, eol, end, tok, tlen, &score, &grade)
            if rc < 0:
                continue
            if rc > 0:
                return rc
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
        if self.finished:
            raise RuntimeError("TrecParser: finish() has handed the columns out; use a new parser")
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
        if self.finished:
            raise RuntimeError("TrecParser: finish() has handed the columns out; use a new parser")
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
        if self.finished:
            raise RuntimeError("TrecParser: finish() has handed the columns out; use a new parser")
        if len(self.carry):
            c = self.carry
            self.carry = b""
            self.parse(<const char *> c, (<const char *> c) + len(c))
        self.finished = True
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


cdef int _check_key_columns(const uint8_t[::1] buf, const int64_t[::1] off, int64_t n, int64_t most,
                            str fn) except -1:
    """The encoded-key columns (``encode_keys``) of n keys, as every reader of them
    needs them: n + 1 non-decreasing offsets from 0 to the buffer's end, and at
    most ``most`` keys."""
    cdef int64_t i
    if off.shape[0] != n + 1 or (n and (off[0] != 0 or off[n] != buf.shape[0])):
        raise ValueError(f"{fn}: inconsistent key columns")
    if n > most:
        raise ValueError(f"{fn}: at most {most} keys")
    for i in range(n):
        if off[i + 1] < off[i]:
            raise ValueError(f"{fn}: offsets must be non-decreasing")
    return 0


cdef enum:
    KI_AHEAD = 8            # keys between the stages of KeyIndex.lookup's pipeline
    KI_RING = 32            # candidates in flight (a power of two > 3 KI_AHEAD)

cdef uint64_t KI_EMPTY = 0xFFFFFFFFFFFFFFFFULL


cdef inline int64_t _ki_candidate(const uint64_t *table, int64_t mask, uint64_t h) noexcept nogil:
    """The first key of the probe sequence of hash h whose stored tag (the hash's
    high 32 bits) matches, or -1."""
    cdef int64_t slot = <int64_t> (h & <uint64_t> mask)
    cdef uint64_t e, tag = h >> 32
    while True:
        e = table[slot]
        if e == KI_EMPTY:
            return -1
        if (e >> 32) == tag:
            return <int64_t> (e & 0xFFFFFFFFULL)
        slot = (slot + 1) & mask


cdef class KeyIndex:
    """Hash index over encoded keys (``encode_keys``): ``lookup`` gives, for other
    encoded keys, the position of the equal key here (bytes compared), or a default.

    Each table slot holds a key's position and the high half of its hash, so a
    probe touches one slot until the tags match; ``lookup`` fetches, a few keys
    ahead, the slot, then the candidate's offsets, then its bytes (the table and
    the keys outgrow the caches: the lookups are random accesses)."""
    cdef const uint8_t[::1] buf
    cdef const int64_t[::1] off
    cdef uint64_t *table
    cdef int64_t mask

    def __cinit__(self, const uint8_t[::1] buf, const int64_t[::1] off, const uint64_t[::1] hashes):
        cdef int64_t n = hashes.shape[0], i, slot, cap = 16
        _check_key_columns(buf, off, n, 0xFFFFFFFE, "KeyIndex")
        while cap < 2 * n:
            cap *= 2
        self.table = <uint64_t *> malloc(cap * sizeof(uint64_t))
        if self.table == NULL:
            raise MemoryError()
        self.buf, self.off, self.mask = buf, off, cap - 1
        with nogil:
            for i in range(cap):
                self.table[i] = KI_EMPTY
            for i in range(n):
                slot = <int64_t> (hashes[i] & <uint64_t> self.mask)
                while self.table[slot] != KI_EMPTY:
                    slot = (slot + 1) & self.mask
                self.table[slot] = (hashes[i] & 0xFFFFFFFF00000000ULL) | <uint64_t> i

    def __dealloc__(self):
        free(self.table)

    def lookup(self, const uint8_t[::1] buf, const int64_t[::1] off, const uint64_t[::1] hashes,
               int64_t default=-1):
        cdef int64_t n = hashes.shape[0], i, j, slot, la, lb, mask = self.mask
        cdef uint64_t e
        cdef const char *a
        cdef const char *mine = <const char *> &self.buf[0] if self.buf.shape[0] else NULL
        cdef const char *theirs = <const char *> &buf[0] if buf.shape[0] else NULL
        cdef const uint64_t *table = self.table
        cdef const int64_t *moff = &self.off[0]
        cdef int64_t cand[KI_RING]
        _check_key_columns(buf, off, n, n, "KeyIndex.lookup")
        out_a = np.empty(n, dtype=np.int64)
        cdef int64_t[::1] out = out_a
        with nogil:
            # pipeline: key i + 3A: fetch its slot; key i + 2A: find its candidate,
            # fetch the candidate's offsets; key i + A: fetch the candidate's bytes;
            # key i: compare
            for i in range(-3 * KI_AHEAD, n):
                j = i + 3 * KI_AHEAD
                if j < n:
                    IRS_PREFETCH(table + <int64_t> (hashes[j] & <uint64_t> mask))
                j = i + 2 * KI_AHEAD
                if 0 <= j < n:
                    cand[j & (KI_RING - 1)] = _ki_candidate(table, mask, hashes[j])
                    if cand[j & (KI_RING - 1)] >= 0:
                        IRS_PREFETCH(moff + cand[j & (KI_RING - 1)])
                j = i + KI_AHEAD
                if 0 <= j < n and cand[j & (KI_RING - 1)] >= 0:
                    IRS_PREFETCH(mine + moff[cand[j & (KI_RING - 1)]])
                if i < 0:
                    continue
                out[i] = default
                a = theirs + off[i]
                la = off[i + 1] - off[i]
                j = cand[i & (KI_RING - 1)]
                if j < 0:
                    continue
                lb = moff[j + 1] - moff[j]
                if lb == la and irs_bytes_cmp(mine + moff[j], lb, a, la) == 0:
                    out[i] = j
                    continue
                # the tag matched another key: the rest of the probe sequence
                slot = <int64_t> (hashes[i] & <uint64_t> mask)
                while table[slot] != KI_EMPTY:
                    e = table[slot]
                    j = <int64_t> (e & 0xFFFFFFFFULL)
                    lb = moff[j + 1] - moff[j]
                    if lb == la and irs_bytes_cmp(mine + moff[j], lb, a, la) == 0:
                        out[i] = j
                        break
                    slot = (slot + 1) & mask
        return out_a


def intern_keys(const uint8_t[::1] buf, const int64_t[::1] off, const uint64_t[::1] hashes):
    """Codes of encoded keys (``encode_keys``) in order of first appearance:
    returns ``(codes, first)``, ``codes[i]`` the code of key i (int32) and
    ``first[c]`` the position of the first key with code c (int64)."""
    cdef int64_t n = hashes.shape[0], i, slot, cap = 16, u = 0, j, la
    cdef uint64_t e, tag, mask
    cdef uint64_t *table
    cdef const char *base
    cdef const char *a
    _check_key_columns(buf, off, n, 0x7FFFFFFE, "intern_keys")
    while cap < 2 * n:
        cap *= 2
    codes_a = np.empty(n, dtype=np.int32)
    first_a = np.empty(n, dtype=np.int64)
    cdef int32_t[::1] codes = codes_a
    cdef int64_t[::1] first = first_a
    table = <uint64_t *> malloc(cap * sizeof(uint64_t))
    if table == NULL:
        raise MemoryError()
    mask = <uint64_t> (cap - 1)
    base = <const char *> &buf[0] if buf.shape[0] else NULL
    with nogil:
        for i in range(cap):
            table[i] = KI_EMPTY
        for i in range(n):
            if i + KI_AHEAD < n:
                IRS_PREFETCH(table + <int64_t> (hashes[i + KI_AHEAD] & mask))
            a = base + off[i]
            la = off[i + 1] - off[i]
            tag = hashes[i] & 0xFFFFFFFF00000000ULL
            slot = <int64_t> (hashes[i] & mask)
            while True:
                e = table[slot]
                if e == KI_EMPTY:
                    table[slot] = tag | <uint64_t> u
                    first[u] = i
                    codes[i] = <int32_t> u
                    u += 1
                    break
                if (e & 0xFFFFFFFF00000000ULL) == tag:
                    j = first[<int64_t> (e & 0xFFFFFFFFULL)]
                    if off[j + 1] - off[j] == la and irs_bytes_cmp(base + off[j], la, a, la) == 0:
                        codes[i] = <int32_t> (e & 0xFFFFFFFFULL)
                        break
                slot = <int64_t> ((<uint64_t> slot + 1) & mask)
    free(table)
    return codes_a, first_a[:u].copy()


# ---------------------------------------------------------------------------
# Parallel reading of a whole file in memory (a memory map of a plain file)

cdef extern from "irs_lines.h" nogil:
    ctypedef struct irs_nl_iter:
        pass
    void irs_nl_init(irs_nl_iter *it, const char *s, const char *end)
    const char *irs_nl_next(irs_nl_iter *it)
    int irs_first_token(const char *s, const char *eol, const char **tok, int64_t *len)
    void irs_release_pages(const char *lo, const char *hi)
    void irs_populate(void *p, int64_t n)
    void irs_copy_short(char *dst, const char *src, int64_t n, int64_t room, int64_t avail)

cdef extern from "irs_common.h" nogil:
    void irs_no_hugepages(void *p, size_t n)

cdef extern from "irs_busguard.h" nogil:
    ctypedef int (*irs_bus_fn)(void *arg) noexcept nogil
    int irs_bus_call(irs_bus_fn fn, void *arg, const char *lo, const char *hi)
    int IRS_BUS_FAULT

from irscore._interrupt cimport irs_intr_begin, irs_intr_end, irs_intr_pending, irs_intr_raise

cdef enum:
    RELEASE_EVERY = 1 << 23     # bytes parsed between two releases of a mapping's pages
    INTR_EVERY = 1 << 16        # lines between two looks at a pending SIGINT (about 3 ms)
    E_CHANGED = 10              # the input changed between the count and the parse
    E_INTERRUPTED = 11          # SIGINT (irs_interrupt.h)


cdef struct PartCall:
    void *sp                    # the SplitParser (borrowed: its caller holds it)
    void *tp                    # the part's TrecParser (borrowed)
    int64_t k
    int which                   # 0 count, 1 parse, 2 the part bounds
    char *rid                   # parse: a copy of the run id (malloc'd), rid_len bytes
    int64_t rid_len


cdef int _part_call(void *arg) noexcept nogil:
    """What irs_bus_call runs: the reads of a mapped input, abandoned at a SIGBUS
    (the file shrank) without leaving anything unowned."""
    cdef PartCall *c = <PartCall *> arg
    cdef int rc
    cdef const char *rid
    cdef int64_t rid_len
    if c.which == 2:
        (<SplitParser> c.sp).set_bounds()
        return 0
    if c.which == 0:
        return (<SplitParser> c.sp).count_part(c.k, <TrecParser> c.tp)
    rc = (<SplitParser> c.sp).parse_part(c.k, <TrecParser> c.tp)
    rid = (<TrecParser> c.tp).rid
    rid_len = (<TrecParser> c.tp).rid_len
    (<TrecParser> c.tp).rid = NULL
    if rid != NULL and rid_len > 0:
        c.rid = <char *> malloc(rid_len)
        if c.rid == NULL:
            return 9
        memcpy(c.rid, rid, rid_len)
        c.rid_len = rid_len
    return rc


cdef int vec_alloc(Vec *v, int64_t nbytes) except -1:
    """An empty vector of exactly ``nbytes`` capacity, backed by small pages."""
    v.data = <char *> irs_malloc_cached(nbytes if nbytes > 0 else 1)    # a kept block when one fits
    if v.data == NULL:
        raise MemoryError()
    v.size = 0
    v.cap = nbytes
    irs_no_hugepages(v.data, nbytes)
    return 0


cdef uint8_t PART_BUSY = 0xFF     # SplitParser.done: a part being counted or parsed
cdef uint8_t PART_FAILED = 0xFE   # SplitParser.done: a part whose count or parse raised


def _read_only_map(obj) -> bool:
    """Whether a buffer is a read-only memory map (or a read-only view of one):
    the only kind whose pages ``release`` may drop (a file's pages come back from
    the page cache; any other memory would lose its contents)."""
    if isinstance(obj, memoryview):
        return obj.readonly and isinstance(obj.obj, mmap.mmap)
    if isinstance(obj, mmap.mmap):
        with memoryview(obj) as view:
            return view.readonly
    return False


cdef class SplitParser:
    """A whole run or qrels file in memory, parsed in parts on several threads
    straight into columns grouped by query (no per-part columns to concatenate).

    The input is cut into ``parts`` pieces at line starts.  ``count(k)`` walks the
    lines of part k and counts the entries of each query (first tokens only);
    once every part is counted, ``layout()`` orders the queries (by id bytes),
    sets each query's rows and, for each part, where its entries of each query
    go, and allocates the columns; ``parse(k)`` then tokenizes and checks part k
    and writes each entry at its final row; ``finish()`` closes the gaps between
    the parts' document-id bytes and returns the columns.  ``count`` and
    ``parse`` release the GIL and may run at the same time for different parts.
    Errors (with ``TrecParser``'s messages) name the file and the line counted
    from the file's start.

    ``release=True``: the pages a part has parsed are dropped from the resident
    set as it goes (they stay in the page cache); honoured only when ``data`` is
    a read-only memory map (or a read-only view of one), ignored for any other
    buffer, whose contents dropping would lose.  The parser holds ``data`` (its
    buffer export) until ``finish()`` or ``close()``.
    """
    cdef object data_ref
    cdef const uint8_t[::1] data_view   # holds the caller's buffer (its export) until finish() or close()
    cdef const char *base
    cdef int64_t size
    cdef int64_t nparts
    cdef bint is_run
    cdef bint release
    cdef int stage                 # 0 new, 1 laid out, 2 finished
    cdef str name
    cdef list parsers
    cdef list query_ids
    cdef object offsets_a
    cdef int64_t n
    cdef int64_t *bounds           # nparts + 1 byte offsets (part k is [bounds[k], bounds[k+1]))
    cdef int64_t *nlines           # physical lines of each part
    cdef int64_t *doc_end          # end of the document-id bytes each part wrote
    cdef int64_t *nq_counted       # queries each part saw when counting
    cdef uint8_t *done             # per part: 1 counted, 2 parsed
    cdef Vec *counts               # per part: entries of each local query (int64)
    cdef Vec *fill                 # per part: next row of each local query (int64)
    cdef Vec *lim                  # per part: end of those rows (int64)
    cdef Vec *unordered            # runs, per part: 1 when a local query's rows may be out of trec order (uint8)
    cdef Vec docbuf, start, length, hashes, values
    cdef bint counted_ok
    cdef int64_t *delta            # per part: how far its doc-id bytes moved down (close_gaps)
    cdef bint gaps_closed
    cdef bint moves_shared         # close_gaps left the byte moves to the shift_starts shares
    cdef int64_t shift_n           # shares of the start shifting (shift_starts)
    cdef int64_t shifts_done
    cdef object share_done
    cdef int64_t docbuf_end

    def __cinit__(self, str kind, str name, const uint8_t[::1] data, int64_t parts, bint release=False):
        cdef int64_t k
        cdef int rc
        cdef PartCall c
        if kind not in ("run", "qrels"):
            raise ValueError("kind must be 'run' or 'qrels'")
        if parts < 1 or parts > 1024:
            raise ValueError("parts must be in 1 .. 1024")
        self.is_run = kind == "run"
        self.name = name
        self.release = release and _read_only_map(data.base)
        self.data_ref = data.base if data.shape[0] else None
        self.data_view = data
        self.size = data.shape[0]
        self.base = <const char *> &data[0] if self.size else NULL
        self.nparts = parts
        self.bounds = <int64_t *> calloc(parts + 1, sizeof(int64_t))
        self.nlines = <int64_t *> calloc(parts, sizeof(int64_t))
        self.doc_end = <int64_t *> calloc(parts, sizeof(int64_t))
        self.nq_counted = <int64_t *> calloc(parts, sizeof(int64_t))
        self.done = <uint8_t *> calloc(parts, sizeof(uint8_t))
        self.delta = <int64_t *> calloc(parts, sizeof(int64_t))
        self.counts = <Vec *> calloc(parts, sizeof(Vec))
        self.fill = <Vec *> calloc(parts, sizeof(Vec))
        self.lim = <Vec *> calloc(parts, sizeof(Vec))
        self.unordered = <Vec *> calloc(parts, sizeof(Vec))
        if (self.unordered == NULL or self.delta == NULL or self.bounds == NULL or self.nlines == NULL or self.doc_end == NULL or self.nq_counted == NULL
                or self.counts == NULL or self.fill == NULL or self.lim == NULL or self.done == NULL):
            raise MemoryError()
        c.sp = <void *> self
        c.which = 2
        with nogil:
            rc = irs_bus_call(_part_call, &c, self.base, self.base + self.size)
        if rc == IRS_BUS_FAULT:
            self.raise_shrank()
        if self.bounds[0] == 3:
            warnings.warn(f"{name}: UTF-8 byte-order mark at the start of the file ignored",
                          UserWarning, stacklevel=5)
        self.parsers = []
        for k in range(parts):
            tp = TrecParser(kind, name)
            (<TrecParser> tp).bom_checked = True
            self.parsers.append(tp)

    def __dealloc__(self):
        cdef int64_t k
        if self.counts != NULL:
            for k in range(self.nparts):
                free(self.counts[k].data)
                free(self.fill[k].data)
                free(self.lim[k].data)
                free(self.unordered[k].data)
        free(self.unordered)
        free(self.counts)
        free(self.fill)
        free(self.lim)
        free(self.bounds)
        free(self.nlines)
        free(self.doc_end)
        free(self.nq_counted)
        free(self.done)
        free(self.delta)
        free(self.docbuf.data)
        free(self.start.data)
        free(self.length.data)
        free(self.hashes.data)
        free(self.values.data)

    cdef void set_bounds(self) noexcept nogil:
        """Parts of similar size, each starting at a line start (after a UTF-8
        byte-order mark)."""
        cdef int64_t k, target, off = 0
        cdef int64_t parts = self.nparts
        cdef const char *nl
        if self.size >= 3 and <unsigned char> self.base[0] == 0xEF and <unsigned char> self.base[1] == 0xBB \
                and <unsigned char> self.base[2] == 0xBF:
            off = 3
        self.bounds[0] = off
        for k in range(1, parts):
            target = off + (self.size - off) * k // parts
            if target < self.bounds[k - 1]:
                target = self.bounds[k - 1]
            if target <= off:
                self.bounds[k] = off
                continue
            nl = <const char *> memchr(self.base + target - 1, b'\n', self.size - target + 1)
            self.bounds[k] = (nl - self.base) + 1 if nl != NULL else self.size
        self.bounds[parts] = self.size

    cdef int raise_shrank(self) except -1:
        raise ValueError(f"{self.name}: the file shrank while it was read (truncated by another program?)")

    cdef int run_part(self, int64_t k, TrecParser tp, PartCall *c) except -1:
        """count_part or parse_part (c.which) of part k without the GIL, through
        irs_bus_call (a SIGBUS of the mapping: the file shrank) and with SIGINT
        honoured (irs_interrupt.h); the error of a failed part raised."""
        cdef int rc
        c.sp = <void *> self
        c.tp = <void *> tp
        c.k = k
        c.rid = NULL
        c.rid_len = 0
        tp.intr_since = irs_intr_begin()
        try:
            with nogil:
                rc = irs_bus_call(_part_call, c, self.base, self.base + self.size)
        finally:
            irs_intr_end()
        if rc == 0:
            return 0
        free(c.rid)
        c.rid = NULL
        self.done[k] = PART_FAILED
        tp.err_code = 0 if rc == IRS_BUS_FAULT or rc == E_INTERRUPTED else tp.err_code
        if rc == IRS_BUS_FAULT:
            self.raise_shrank()
        if rc == E_INTERRUPTED:
            irs_intr_raise()
        if rc == E_CHANGED:
            raise ValueError(f"{self.name}: the file changed while it was read (rewritten by another program?)")
        return rc

    cdef int check_part(self, int64_t k, int stage) except -1:
        """Part k exists, the parser is at ``stage`` and the part not yet through it."""
        if k < 0 or k >= self.nparts:
            raise ValueError(f"part {k} out of range (0 .. {self.nparts - 1})")
        if self.stage != stage or self.done[k] != stage:
            raise RuntimeError("SplitParser: count every part once, then layout(), then parse every part once, "
                               "then finish()")
        self.done[k] = PART_BUSY       # stage + 1 once the work is done (layout and the rest wait for it)
        return 0

    def count(self, int64_t k):
        """Count the lines of part ``k`` and the entries of each of its queries."""
        cdef TrecParser tp
        cdef PartCall c
        self.check_part(k, 0)
        tp = self.parsers[k]
        c.which = 0
        if self.run_part(k, tp, &c):
            raise MemoryError()
        self.done[k] = 1

    cdef int count_part(self, int64_t k, TrecParser tp) noexcept nogil:
        cdef const char *s = self.base + self.bounds[k]
        cdef const char *end = self.base + self.bounds[k + 1]
        cdef const char *eol
        cdef const char *tok
        cdef const char *prev = NULL     # the previous data line's query id
        cdef int64_t plen = 0, pq = -1
        cdef int64_t tlen, q, lines = 0
        cdef int64_t zero = 0
        cdef Vec *cnt = &self.counts[k]
        cdef const char *released = s
        cdef irs_nl_iter it
        irs_nl_init(&it, s, end)
        while s < end:
            eol = irs_nl_next(&it)
            lines += 1
            if (lines & (INTR_EVERY - 1)) == 0 and irs_intr_pending(tp.intr_since):
                return E_INTERRUPTED
            # fast path: the line starts with the previous line's query id
            if (pq >= 0 and eol - s > plen and is_space(s[plen]) and s[0] == prev[0]
                    and irs_same_bytes(s, prev, plen)):
                (<int64_t *> cnt.data)[pq] += 1
            elif irs_first_token(s, eol, &tok, &tlen) and tok[0] != b'#':
                q = tp.intern_query(tok, tlen)
                if q < 0:
                    return 9
                while (q + 1) * <int64_t> sizeof(int64_t) > cnt.size:
                    if vec_push(cnt, &zero, sizeof(int64_t)):
                        return 9
                (<int64_t *> cnt.data)[q] += 1
                prev, plen, pq = tok, tlen, q
            s = eol + 1
            if self.release and s - released >= RELEASE_EVERY:
                irs_release_pages(released, s)
                released = s
        if self.release:
            irs_release_pages(released, end)
        self.nlines[k] = lines
        self.nq_counted[k] = tp.nq
        return 0

    def layout(self):
        """Order the queries, give each query its rows and each part its place in
        them, and allocate the columns (after every part is counted)."""
        cdef int64_t k, q, g, ng, r, nk, total = 0, line_base = 0
        cdef TrecParser tp
        cdef const int64_t *qoff
        cdef int64_t *cnt
        cdef int64_t *fl
        cdef int64_t *lm
        if self.stage != 0:
            raise RuntimeError("SplitParser.layout: called twice")
        for k in range(self.nparts):
            if self.done[k] != 1:
                raise RuntimeError(f"SplitParser.layout: part {k} not counted")
        gids = {}
        local_gid = []
        for k in range(self.nparts):
            tp = self.parsers[k]
            tp.line_base = line_base
            line_base += self.nlines[k]
            qoff = <const int64_t *> tp.qoff.data
            ids = []
            for q in range(self.nq_counted[k]):
                key = tp.qbuf.data[qoff[q]:qoff[q + 1]]
                ids.append(gids.setdefault(key, len(gids)))
            local_gid.append(np.asarray(ids, dtype=np.int64))
        keys = list(gids)
        ng = len(keys)
        order = sorted(range(ng), key=keys.__getitem__)
        rank_a = np.empty(ng, dtype=np.int64)
        rank_a[np.asarray(order, dtype=np.int64)] = np.arange(ng, dtype=np.int64)
        cdef int64_t[::1] rank = rank_a
        tot_a = np.zeros(ng + 1, dtype=np.int64)
        cdef int64_t[::1] tot = tot_a
        cdef int64_t[::1] lg
        for k in range(self.nparts):
            lg = local_gid[k]
            cnt = <int64_t *> self.counts[k].data
            for q in range(lg.shape[0]):
                tot[rank[lg[q]] + 1] += cnt[q]
        for g in range(ng):
            tot[g + 1] += tot[g]
        total = tot[ng]
        # tot now holds the offsets; run[] the next free row of each (sorted) query
        run_a = tot_a[:ng].copy()
        cdef int64_t[::1] run = run_a
        for k in range(self.nparts):
            lg = local_gid[k]
            nk = lg.shape[0]
            vec_alloc(&self.fill[k], nk * sizeof(int64_t))
            vec_alloc(&self.lim[k], nk * sizeof(int64_t))
            vec_alloc(&self.unordered[k], nk)
            memset(self.unordered[k].data, 0, nk)
            cnt = <int64_t *> self.counts[k].data
            fl = <int64_t *> self.fill[k].data
            lm = <int64_t *> self.lim[k].data
            for q in range(nk):
                r = rank[lg[q]]
                fl[q] = run[r]
                run[r] += cnt[q]
                lm[q] = run[r]
        self.query_ids = [keys[g] for g in order]
        self.offsets_a = tot_a
        self.n = total
        vec_alloc(&self.docbuf, self.size)
        vec_alloc(&self.start, total * sizeof(int64_t))
        vec_alloc(&self.length, total * sizeof(int32_t))
        vec_alloc(&self.hashes, total * sizeof(uint64_t))
        vec_alloc(&self.values, total * sizeof(double))
        self.stage = 1

    def parse(self, int64_t k):
        """Tokenize and check part ``k``; write its entries at their rows."""
        cdef TrecParser tp
        cdef PartCall c
        cdef int rc
        cdef int64_t q
        cdef const int64_t *fl
        cdef const int64_t *lm
        self.check_part(k, 1)
        tp = self.parsers[k]
        tp.rid = NULL
        with nogil:
            self.populate_share(k)
        c.which = 1
        rc = self.run_part(k, tp, &c)
        if c.rid != NULL:
            tp.run_id = c.rid[:c.rid_len]
            free(c.rid)
        if rc:
            tp.raise_pending()
            raise RuntimeError(f"{self.name}: internal error {rc} while parsing")
        # every row the count gave this part was written (else the file changed in between)
        fl = <const int64_t *> self.fill[k].data
        lm = <const int64_t *> self.lim[k].data
        for q in range(self.nq_counted[k]):
            if fl[q] != lm[q]:
                self.done[k] = PART_FAILED
                raise ValueError(f"{self.name}: the file changed while it was read (rewritten by another program?)")
        self.done[k] = 2

    cdef void populate_share(self, int64_t k) noexcept nogil:
        """Fault in the k-th share of each row column in one call per column
        (the parts write rows all over the columns: each part takes a share)."""
        cdef int64_t lo = self.n * k // self.nparts, hi = self.n * (k + 1) // self.nparts
        irs_populate(self.start.data + lo * sizeof(int64_t), (hi - lo) * sizeof(int64_t))
        irs_populate(self.length.data + lo * sizeof(int32_t), (hi - lo) * sizeof(int32_t))
        irs_populate(self.hashes.data + lo * sizeof(uint64_t), (hi - lo) * sizeof(uint64_t))
        irs_populate(self.values.data + lo * sizeof(double), (hi - lo) * sizeof(double))

    cdef int parse_part(self, int64_t k, TrecParser tp) noexcept nogil:
        cdef const char *s = self.base + self.bounds[k]
        cdef const char *end = self.base + self.bounds[k + 1]
        cdef const char *released = s
        cdef const char *line
        cdef const char *eol
        cdef const char *tok[6]
        cdef int64_t tlen[6]
        cdef int rc
        cdef int64_t q, pos, cursor = self.bounds[k], limit = self.bounds[k + 1]
        cdef int64_t nq = self.nq_counted[k]
        cdef int64_t *fl = <int64_t *> self.fill[k].data
        cdef const int64_t *lm = <const int64_t *> self.lim[k].data
        cdef int64_t *st = <int64_t *> self.start.data
        cdef int32_t *ln = <int32_t *> self.length.data
        cdef uint64_t *hv = <uint64_t *> self.hashes.data
        cdef double *val = <double *> self.values.data
        cdef char *docs = self.docbuf.data
        cdef int32_t grade = 0
        cdef double score = 0.0
        cdef uint8_t *unord = <uint8_t *> self.unordered[k].data
        cdef const int64_t *cnt = <const int64_t *> self.counts[k].data
        cdef int64_t prev_q = -1, prev_cur = 0, prev_len = 0, prev_qlen = 0, prev_qi = -1
        cdef const char *prev_qtok = NULL
        cdef double prev_score = 0.0
        cdef bint is_run = self.is_run
        cdef irs_nl_iter it
        irs_nl_init(&it, s, end)
        while s < end:
            eol = irs_nl_next(&it)
            tp.lineno += 1
            if (tp.lineno & (INTR_EVERY - 1)) == 0 and irs_intr_pending(tp.intr_since):
                return E_INTERRUPTED
            line = s
            s = eol + 1
            rc = tp.check_line(line, eol, end, tok, tlen, &score, &grade)
            if rc < 0:
                continue
            if rc > 0:
                return rc
            # the previous line's query (its id bytes in the input): no call
            if prev_qtok != NULL and tlen[0] == prev_qlen and irs_same_bytes(tok[0], prev_qtok, prev_qlen):
                q = prev_qi
            else:
                q = tp.intern_query(tok[0], tlen[0])
                prev_qtok, prev_qlen, prev_qi = tok[0], tlen[0], q
            if q < 0:
                tp.set_error(9, 0, NULL, 0)
                return 9
            if q >= nq:                 # a query the count did not see: the file changed
                return E_CHANGED
            pos = fl[q]
            if pos >= lm[q] or cursor + tlen[2] > limit or tlen[2] > 2147483647:
                return E_CHANGED
            fl[q] = pos + 1
            if is_run:
                # is the query still in trec order (score descending, then doc id
                # descending)?  Checked against the previous line when it is the
                # same query's; a query whose lines are not consecutive here is
                # left to the sort's own check.
                if q == prev_q:
                    if score > prev_score or (score == prev_score and irs_bytes_cmp(
                            docs + prev_cur, prev_len, tok[2], tlen[2]) < 0):
                        unord[q] = 1
                elif pos != lm[q] - cnt[q]:
                    unord[q] = 1
                prev_q, prev_score, prev_cur, prev_len = q, score, cursor, tlen[2]
            st[pos] = cursor
            ln[pos] = <int32_t> tlen[2]
            hv[pos] = irs_hash_bytes_padded(tok[2], tlen[2], end - tok[2])
            val[pos] = score if self.is_run else <double> grade
            # the source is the id's line (16 bytes on when the part goes on so
            # far); the destination's bytes past the id are scratch up to the
            # part's limit (the next id overwrites them)
            irs_copy_short(docs + cursor, tok[2], tlen[2], limit - cursor, end - tok[2])
            cursor += tlen[2]
            if self.release and s - released >= RELEASE_EVERY:
                irs_release_pages(released, s)
                released = s
        if self.release:
            irs_release_pages(released, end)
        self.doc_end[k] = cursor
        return 0

    cdef object ordered_queries(self):
        """Per query (final order), 1 when the parse saw its rows in trec order in
        one part, on consecutive lines (the sort can skip it), else 0."""
        cdef int64_t k, q, nq = self.offsets_a.shape[0] - 1, row
        cdef const int64_t *fl
        cdef const int64_t *cnt
        cdef const uint8_t *unord
        cdef const int64_t[::1] off = self.offsets_a
        out_a = np.zeros(nq, dtype=np.uint8)
        parts_a = np.zeros(nq, dtype=np.int64)
        cdef uint8_t[::1] out = out_a
        cdef int64_t[::1] parts = parts_a
        cdef uint8_t[::1] bad = np.zeros(nq, dtype=np.uint8)
        cdef int64_t lo_q, hi_q, mid
        for k in range(self.nparts):
            fl = <const int64_t *> self.fill[k].data
            cnt = <const int64_t *> self.counts[k].data
            unord = <const uint8_t *> self.unordered[k].data
            for q in range(self.nq_counted[k]):
                if cnt[q] == 0:
                    continue
                row = fl[q] - 1          # a row of this local query: its global query by bisection
                lo_q, hi_q = 0, nq - 1
                while lo_q < hi_q:
                    mid = (lo_q + hi_q + 1) // 2
                    if off[mid] <= row:
                        lo_q = mid
                    else:
                        hi_q = mid - 1
                parts[lo_q] += 1
                if unord[q]:
                    bad[lo_q] = 1
        for q in range(nq):
            out[q] = 1 if parts[q] <= 1 and not bad[q] else 0
        return out_a

    def close_gaps(self):
        """Move the parts' document-id bytes together (after every part is
        parsed); then ``shift_starts(i, n)`` for i in 0..n-1 (any threads) moves
        the rows' doc-id offsets with them, and ``finish()`` returns the columns
        (``finish()`` alone does both steps on one thread)."""
        cdef int64_t k, q, dst = 0, nk
        cdef int64_t *fl
        cdef int64_t *lm
        if self.stage != 1 or self.gaps_closed:
            raise RuntimeError("SplitParser.close_gaps: parse every part first, once")
        for k in range(self.nparts):
            if self.done[k] != 2:
                raise RuntimeError(f"SplitParser.close_gaps: part {k} not parsed")
        for k in range(self.nparts):
            fl = <int64_t *> self.fill[k].data
            lm = <int64_t *> self.lim[k].data
            for q in range(self.nq_counted[k]):
                if fl[q] != lm[q]:
                    raise RuntimeError(f"{self.name}: internal error: part {k} wrote fewer entries than counted")
        cdef int64_t j, dk, nj
        cdef bint disjoint = True
        for k in range(self.nparts):
            self.delta[k] = dst - self.bounds[k]
            dst += self.doc_end[k] - self.bounds[k]
        # when no part's destination overlaps any moving part's source bytes,
        # the moves are independent: the shift_starts shares make them in
        # slices, on their threads (the destinations are fresh pages, whose
        # faults are most of the cost)
        for k in range(self.nparts):
            if self.delta[k] == 0:
                continue
            dk = self.bounds[k] + self.delta[k]
            nk = self.doc_end[k] - self.bounds[k]
            for j in range(self.nparts):
                nj = self.doc_end[j] - self.bounds[j]
                if self.delta[j] != 0 and nk > 0 and nj > 0 and dk < self.bounds[j] + nj and self.bounds[j] < dk + nk:
                    disjoint = False
        self.moves_shared = disjoint
        if not disjoint:
            with nogil:
                # in part order: a part moves down over space the earlier ones did not use
                for k in range(self.nparts):
                    nk = self.doc_end[k] - self.bounds[k]
                    if self.delta[k] != 0:
                        memmove(self.docbuf.data + self.bounds[k] + self.delta[k], self.docbuf.data + self.bounds[k], nk)
        self.docbuf_end = dst
        self.gaps_closed = True
        self.shift_n = 0
        self.shifts_done = 0

    def shift_starts(self, int64_t i, int64_t n):
        """Share i of n of moving the rows' doc-id offsets by their part's move
        (after ``close_gaps``; the shares may run at once on several threads, each
        share once, all with the same n)."""
        cdef int64_t k, q, r, lo, hi, d, nq
        cdef const int64_t *fl
        cdef const int64_t *cnt
        cdef int64_t *st = <int64_t *> self.start.data
        if not self.gaps_closed or self.stage != 1:
            raise RuntimeError("SplitParser.shift_starts: close_gaps() first")
        if n < 1 or i < 0 or i >= n or (self.shift_n and self.shift_n != n):
            raise ValueError("SplitParser.shift_starts: bad share")
        if not self.shift_n:
            self.shift_n = n
            self.share_done = bytearray(n)
        if self.share_done[i]:
            raise RuntimeError(f"SplitParser.shift_starts: share {i} is done")
        self.share_done[i] = 1
        cdef int64_t nk, b0, b1
        cdef bint moves = self.moves_shared
        with nogil:
            for k in range(self.nparts):
                d = self.delta[k]
                if d == 0:
                    continue
                if moves:       # this share's slice of the part's bytes (disjoint moves: any order)
                    nk = self.doc_end[k] - self.bounds[k]
                    b0 = self.bounds[k] + nk * i // n
                    b1 = self.bounds[k] + nk * (i + 1) // n
                    if b1 > b0:
                        memcpy(self.docbuf.data + b0 + d, self.docbuf.data + b0, b1 - b0)
                fl = <const int64_t *> self.fill[k].data
                cnt = <const int64_t *> self.counts[k].data
                nq = self.nq_counted[k]
                for q in range(nq * i // n, nq * (i + 1) // n):
                    lo = fl[q] - cnt[q]
                    hi = fl[q]
                    for r in range(lo, hi):
                        st[r] += d
        self.shifts_done += 1

    def close(self):
        """Let go of the input buffer (its export ends); no call but ``close``
        after it.  Refused while a part is being counted or parsed."""
        cdef int64_t k
        for k in range(self.nparts):
            if self.done[k] == PART_BUSY:
                raise RuntimeError(f"SplitParser.close: part {k} is being worked on")
        self.stage = 2
        self.base = NULL
        self.size = 0
        self.data_ref = None
        self.data_view = None

    def finish(self):
        """The columns, grouped by query (queries by id bytes; within a query the
        file order): a dict with ``query_ids``, ``offsets``, ``doc_buf``,
        ``doc_start``, ``doc_len``, ``doc_hash`` and ``scores`` (runs, with
        ``run_id``) or ``grades`` (qrels, as float64)."""
        cdef TrecParser tp
        if self.stage != 1:
            raise RuntimeError("SplitParser.finish: parse every part first (and finish once)")
        if not self.gaps_closed:
            self.close_gaps()
            self.shift_starts(0, 1)
        if self.shift_n == 0 or self.shifts_done != self.shift_n:
            raise RuntimeError("SplitParser.finish: shift_starts(i, n) for every share i first")
        self.stage = 2
        dst = self.docbuf_end
        self.docbuf.size = dst
        self.start.size = self.n * sizeof(int64_t)
        self.length.size = self.n * sizeof(int32_t)
        self.hashes.size = self.n * sizeof(uint64_t)
        self.values.size = self.n * sizeof(double)
        self.base = NULL
        self.data_ref = None
        self.data_view = None
        try:
            query_ids = [key.decode("utf-8") for key in self.query_ids]
        except UnicodeDecodeError as exc:
            raise ValueError(f"{self.name}: query ids are not valid UTF-8 ({exc})") from None
        out = {
            "query_ids": query_ids,
            "offsets": self.offsets_a,
            "doc_buf": vec_to_array(&self.docbuf, np.uint8),
            "doc_start": vec_to_array(&self.start, np.int64),
            "doc_len": vec_to_array(&self.length, np.int32),
            "doc_hash": vec_to_array(&self.hashes, np.uint64),
        }
        vals = vec_to_array(&self.values, np.float64)
        if self.is_run:
            out["ordered"] = self.ordered_queries()
            out["scores"] = vals
            run_id = b""
            for tp in self.parsers:
                if len(tp.run_id):
                    run_id = tp.run_id
            out["run_id"] = run_id.decode("utf-8", "replace")
        else:
            out["grades"] = vals
        return out
