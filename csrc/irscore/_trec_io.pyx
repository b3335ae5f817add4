"""Native tokenizer for TREC qrels and run files: the streaming parser.

The parser is fed the file in chunks (so ``.gz`` files stream through Python's
``gzip`` module) and never builds a Python object per line.  It produces, in file
order, columnar arrays: the query index of each line (queries interned by id),
the document ids as one UTF-8 byte buffer plus offsets, a 64-bit hash of each
document id, and the score (runs) or grade (qrels).  A plain file of 16 MiB or
more is parsed in parts on several threads instead (``_trec_io_split``, which
runs this parser's line checks on each part).

Line rules follow trec_eval 10: fields are separated by white space; blank lines
and lines whose first non-blank character is ``#`` are skipped; a run line is
``qid iter docno rank score run_id [ignored ...]`` and a qrels line is exactly
``qid iter docno rel``.  Unlike trec_eval, a malformed line, a score that is not a
finite number or a grade that is not an int32 integer raises ``ValueError`` naming
the file and the physical line number; so does binary data (a NUL byte, or ids
that are not UTF-8), reported as such.  Echoed tokens are short escaped
excerpts.  A UTF-8 byte-order mark at the start of the input is skipped with
one ``UserWarning``.

Also here: the column buffers handed to numpy without a copy (kept a few seconds
for the next read, irs_reaper.h), and the hashing, encoding, interning and
indexing of id keys (``hash_strings``, ``hash_slices``, ``encode_keys``,
``intern_keys``, ``KeyIndex``).
"""
from libc.stdint cimport int32_t, int64_t, uint64_t, uint8_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memchr, memcpy

from irscore._checks cimport check_csr, check_csr_exact

import warnings

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


# longest excerpt of an offending token in an error message
_EXCERPT = 40


def _excerpt(bytes tok):
    """A short, escaped, printable excerpt of a token for an error message."""
    text = tok.decode("utf-8", "backslashreplace")
    r = repr(text)
    if len(r) > _EXCERPT:
        r = r[:_EXCERPT - 4] + "...'"
    return r


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


cdef int vec_alloc(Vec *v, int64_t nbytes) except -1:
    """An empty vector of exactly ``nbytes`` capacity, backed by small pages."""
    v.data = <char *> irs_malloc_cached(nbytes if nbytes > 0 else 1)    # a kept block when one fits
    if v.data == NULL:
        raise MemoryError()
    v.size = 0
    v.cap = nbytes
    irs_no_hugepages(v.data, nbytes)
    return 0


cdef class TrecParser:
    """Streaming parser.  ``kind`` is ``"run"`` or ``"qrels"``."""

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
        cdef int64_t slot
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
        if not plain and (irs_not_text(tok[0], tlen[0]) or irs_not_text(tok[2], tlen[2])):
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
            if (self.line_base == 0 and end - s >= 3 and <unsigned char> s[0] == 0xEF
                    and <unsigned char> s[1] == 0xBB and <unsigned char> s[2] == 0xBF):
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
    cdef int64_t n = check_csr(off, buf.shape[0], -1, "hash_slices", "off"), i
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
    if n > most:
        raise ValueError(f"{fn}: at most {most} keys")
    check_csr_exact(off, buf.shape[0], n, fn, "off")
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
