"""Native parser of a whole TREC run or qrels file in memory (a memory map of a
plain file, or a stream's content), in parts on several threads, straight into
columns grouped by query (``SplitParser``).  The line rules and error messages
are the streaming parser's (``_trec_io.TrecParser``, one per part); a file that
shrinks or changes while it is read is an error, never a crash (irs_busguard.h),
and Ctrl-C is honoured (irs_interrupt.h).
"""
from libc.stdint cimport int32_t, int64_t, uint64_t, uint8_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memchr, memcpy, memmove, memset

from irscore._interrupt cimport irs_intr_begin, irs_intr_end, irs_intr_pending, irs_intr_raise
from irscore._trec_io cimport (
    TrecParser, Vec, irs_bytes_cmp, irs_copy_short, irs_first_token, irs_hash_bytes_padded, irs_nl_init,
    irs_nl_iter, irs_nl_next, irs_populate, irs_release_pages, irs_same_bytes, vec_alloc, vec_push,
    vec_to_array,
)

import mmap
import warnings

import numpy as np


cdef unsigned char SPACE[256]
for _c in range(256):
    SPACE[_c] = 1 if _c in (9, 10, 11, 12, 13, 32) else 0


cdef inline bint is_space(char c) noexcept nogil:
    return SPACE[<unsigned char> c]


cdef extern from "irs_busguard.h" nogil:
    ctypedef int (*irs_bus_fn)(void *arg) noexcept nogil
    int irs_bus_call(irs_bus_fn fn, void *arg, const char *lo, const char *hi)
    int IRS_BUS_FAULT

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
        cdef int64_t _k
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
        if (self.unordered == NULL or self.delta == NULL or self.bounds == NULL or self.nlines == NULL
                or self.doc_end == NULL or self.nq_counted == NULL or self.counts == NULL or self.fill == NULL
                or self.lim == NULL or self.done == NULL):
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
        for _k in range(parts):
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
                        memmove(self.docbuf.data + self.bounds[k] + self.delta[k],
                                self.docbuf.data + self.bounds[k], nk)
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
