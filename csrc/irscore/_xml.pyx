"""Kernels for XML / focused retrieval measures (docs/xml.md).

Everything here works on character spans laid out on one line per topic: the
façade (``irscore.xml``) encodes documents as integer codes and every span as
``(doc, start, end)``, half-open.  Inside a topic each document gets a base
offset so that spans of different documents never touch; all endpoints are then
compressed to elementary segments, and the union of already retrieved text is
kept in a Fenwick tree (covered length, covered highlighted length) plus a
"next uncovered segment" union-find, so a whole run is processed in
O(n log n) per topic instead of comparing every pair of results (HiXEval's sum
over earlier results inside a result: O(n log^2 n) when results cross, Box2).

All inputs are CSR arrays (``off[t]..off[t+1]`` is topic t).  Every entry
point checks, itself, whatever could make it read or write out of bounds
(offsets, lengths, document codes, spans, indices, output shapes; ValueError)
and reports a failed allocation as MemoryError; the façade checks meaning.
Kernels release the GIL, allocate scratch with malloc and keep no state.
"""
from libc.stdlib cimport malloc, free, calloc, realloc, qsort
from libc.string cimport memset, memcpy
from libc.stdint cimport int64_t, uint64_t
from libc.math cimport floor, rint, isnan, fabs, NAN

import numpy as np

from irscore._common cimport fenwick_add, fenwick_prefix
from irscore._checks cimport check_csr, check_min_shape2, check_min_len, check_all_positive

cdef extern from "xml_sort.h" nogil:
    void xml_sort_i64(int64_t *a, Py_ssize_t n)
    void xml_radix_sort_i64(int64_t *a, int64_t *tmp, Py_ssize_t n)


# ---------------------------------------------------------------------------
# input checks (with the GIL, O(n), before any kernel work)
# ---------------------------------------------------------------------------

# deepest nesting of assessed elements the recursive XCG value may follow
cdef enum:
    MAX_DEPTH = 10000


cdef Py_ssize_t _csr(const int64_t[::1] off, Py_ssize_t n, str fn, str name, Py_ssize_t ntop=-1) except -2:
    """``off``: CSR offsets over n entries (``_checks.check_csr``; ntop + 1 entries,
    any ntop >= 0 when -1).  Returns the number of topics."""
    return check_csr(off, n, ntop, fn, name)


cdef Py_ssize_t _spans(const int64_t[::1] off, const int64_t[::1] doc, const int64_t[::1] start,
                       const int64_t[::1] end, Py_ssize_t ndocs, str fn, str name) except -1:
    """Document codes in 0..ndocs-1 and 0 <= start <= end; per topic the sum of
    (end + 1) stays far below 2**62 (the topic's coordinates are int64).
    Returns the largest document code + 1 (0 if none)."""
    cdef Py_ssize_t t, i, nt = off.shape[0] - 1, top = 0
    cdef double tot
    if start.shape[0] != doc.shape[0] or end.shape[0] != doc.shape[0]:
        raise ValueError(f"{fn}: {name}_doc, {name}_start and {name}_end must have one length")
    for t in range(nt):
        tot = 0.0
        for i in range(off[t], off[t + 1]):
            if doc[i] < 0 or doc[i] >= ndocs:
                raise ValueError(f"{fn}: {name}_doc[{i}] = {doc[i]} is not a document code 0..{ndocs - 1}")
            if start[i] < 0 or end[i] < start[i]:
                raise ValueError(f"{fn}: {name} span {i} [{start[i]}, {end[i]}) is not 0 <= start <= end")
            tot += <double> end[i] + 1.0
            if doc[i] >= top:
                top = doc[i] + 1
        if tot > 1e18:
            raise ValueError(f"{fn}: {name} offsets of topic {t} too large")
    return top


cdef Py_ssize_t _doc_codes(const int64_t[::1] doc, Py_ssize_t ndocs, str fn, str name, Py_ssize_t top) except -1:
    """Every ``doc[i]`` a document code 0..ndocs-1; returns max(top, largest code + 1)."""
    cdef Py_ssize_t i
    for i in range(doc.shape[0]):
        if doc[i] < 0 or doc[i] >= ndocs:
            raise ValueError(f"{fn}: {name}[{i}] = {doc[i]} is not a document code 0..{ndocs - 1}")
        if doc[i] >= top:
            top = doc[i] + 1
    return top


cdef struct GpTables:
    # per document code (ntab + 1 entries): topic stamps of the relevant articles,
    # the ranked articles and the best entry points; the article's rank; its
    # relevant size; its best entry point
    Py_ssize_t *rstamp
    Py_ssize_t *dstamp
    Py_ssize_t *bstamp
    Py_ssize_t *dpos
    int64_t *relc
    int64_t *bep
    # per ranked article (cap entries): its document code and first result's start
    Py_ssize_t *order
    int64_t *entry


cdef int gp_tables_alloc(GpTables *tb, Py_ssize_t ntab, Py_ssize_t cap) except -1:
    """Allocate the tables (every stamp -1); MemoryError leaves them to gp_tables_free."""
    cdef Py_ssize_t d
    tb.rstamp = <Py_ssize_t*>malloc((ntab + 1) * sizeof(Py_ssize_t))
    tb.dstamp = <Py_ssize_t*>malloc((ntab + 1) * sizeof(Py_ssize_t))
    tb.bstamp = <Py_ssize_t*>malloc((ntab + 1) * sizeof(Py_ssize_t))
    tb.dpos = <Py_ssize_t*>malloc((ntab + 1) * sizeof(Py_ssize_t))
    tb.relc = <int64_t*>malloc((ntab + 1) * sizeof(int64_t))
    tb.bep = <int64_t*>malloc((ntab + 1) * sizeof(int64_t))
    tb.order = <Py_ssize_t*>malloc(cap * sizeof(Py_ssize_t))
    tb.entry = <int64_t*>malloc(cap * sizeof(int64_t))
    if (tb.rstamp == NULL or tb.dstamp == NULL or tb.bstamp == NULL or tb.dpos == NULL or tb.relc == NULL
            or tb.bep == NULL or tb.order == NULL or tb.entry == NULL):
        raise MemoryError()
    for d in range(ntab + 1):
        tb.rstamp[d] = -1
        tb.dstamp[d] = -1
        tb.bstamp[d] = -1
    return 0


cdef void gp_tables_free(GpTables *tb) noexcept:
    free(tb.rstamp); free(tb.dstamp); free(tb.bstamp); free(tb.dpos); free(tb.relc); free(tb.bep)
    free(tb.order); free(tb.entry)


cdef int _gp_args(const int64_t[::1] run_off, const int64_t[::1] run_doc, const int64_t[::1] bep_off,
                  const int64_t[::1] bep_doc, const int64_t[::1] bep_pos, Py_ssize_t ndocs, int task,
                  double beta, int64_t bep_distance, const int64_t[::1] cutoffs, double[:, ::1] out_gp,
                  double[::1] out_agp, str fn) except -1:
    """The checks both gP kernels make of the arguments they share."""
    if ndocs < 0 or ndocs > (<Py_ssize_t> 1) << 40:
        raise ValueError(f"{fn}: ndocs out of range: {ndocs}")
    if task != 0 and task != 1:
        raise ValueError(f"{fn}: task must be 0 (RiC) or 1 (BiC)")
    if not beta > 0.0 or bep_distance <= 0:
        raise ValueError(f"{fn}: beta and bep_distance must be positive")
    _csr(run_off, run_doc.shape[0], fn, "run_off")
    _csr(bep_off, bep_doc.shape[0], fn, "bep_off", run_off.shape[0] - 1)
    if bep_pos.shape[0] != bep_doc.shape[0]:
        raise ValueError(f"{fn}: bep_doc and bep_pos must have one length")
    _check_cutoffs(cutoffs, fn)
    _out2(out_gp, run_off.shape[0] - 1, cutoffs.shape[0], fn, "out_gp")
    _out1d(out_agp, run_off.shape[0] - 1, fn, "out_agp")
    return 0


cdef Py_ssize_t _max_ranked(const int64_t[::1] run_off) noexcept:
    """The largest number of results of a topic (at least 1)."""
    cdef Py_ssize_t t, cap = 1
    for t in range(run_off.shape[0] - 1):
        if run_off[t + 1] - run_off[t] > cap:
            cap = run_off[t + 1] - run_off[t]
    return cap


cdef int _out2(double[:, ::1] out, Py_ssize_t rows, Py_ssize_t cols, str fn, str name) except -1:
    return check_min_shape2(out.shape[0], out.shape[1], rows, cols, fn, name)


# ---------------------------------------------------------------------------
# small helpers (all nogil, no Python objects)
# ---------------------------------------------------------------------------

#: the most interpolation points a curve may have (its output has one column per point)
cdef Py_ssize_t MAX_POINTS = (<Py_ssize_t> 1) << 30


cdef inline uint64_t _abs_diff(int64_t a, int64_t b) noexcept nogil:
    """|a - b| exactly, for any two int64 (as unsigned: no overflow)."""
    return <uint64_t> a - <uint64_t> b if a >= b else <uint64_t> b - <uint64_t> a


cdef inline void cmax_update(int64_t *tree, Py_ssize_t m, Py_ssize_t i, int64_t v) noexcept nogil:
    # Fenwick tree of prefix maxima: position i gets max(., v)
    i += 1
    while i <= m:
        if tree[i - 1] < v:
            tree[i - 1] = v
        i += i & (-i)


cdef inline int64_t cmax_prefix(const int64_t *tree, Py_ssize_t i) noexcept nogil:
    # maximum over positions [0, i)
    cdef int64_t r = -1
    while i > 0:
        if tree[i - 1] > r:
            r = tree[i - 1]
        i -= i & (-i)
    return r


cdef inline Py_ssize_t lower_bound(const int64_t *a, Py_ssize_t n, int64_t v) noexcept nogil:
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


# ---------------------------------------------------------------------------
# HiXEval's "earlier results inside e_i" for runs whose results cross: a
# Fenwick tree over the start (reversed) whose nodes hold Fenwick trees over
# the ends of the results that node will ever hold (known before the run is
# walked), O(log^2 n) an insertion or a query, O(n log n) memory.
# ---------------------------------------------------------------------------

cdef struct Box2:
    Py_ssize_t M         # outer positions: starts 0..M-1 (as M - 1 - a)
    Py_ssize_t *off      # M + 2: node i's entries are [off[i], off[i + 1])
    int64_t *end         # the ends a node holds, ascending
    double *val          # the inner Fenwick trees


cdef void box2_free(Box2 *bx) noexcept nogil:
    free(bx.off); free(bx.end); free(bx.val)
    bx.off = NULL
    bx.end = NULL
    bx.val = NULL


cdef int box2_build(Box2 *bx, const Py_ssize_t *ra, const Py_ssize_t *rb, Py_ssize_t nr, Py_ssize_t M,
                    int64_t *keys, int64_t *tmp) noexcept nogil:
    """The structure for the results (ra[k], rb[k]), k < nr, with 0 <= ra < M;
    keys/tmp: nr scratch entries each.  -1 if memory runs out."""
    cdef Py_ssize_t k, j, i, total = 0
    cdef Py_ssize_t *fill
    bx.M = M
    bx.off = <Py_ssize_t *> calloc(M + 2, sizeof(Py_ssize_t))
    if bx.off == NULL:
        return -1
    for k in range(nr):
        i = (M - 1 - ra[k]) + 1
        while i <= M:
            bx.off[i + 1] += 1
            total += 1
            i += i & (-i)
    for i in range(M + 1):
        bx.off[i + 1] += bx.off[i]
    bx.end = <int64_t *> malloc((total + 1) * sizeof(int64_t))
    bx.val = <double *> calloc(total + 1, sizeof(double))
    fill = <Py_ssize_t *> malloc((M + 2) * sizeof(Py_ssize_t))
    if bx.end == NULL or bx.val == NULL or fill == NULL:
        free(fill)
        return -1
    memcpy(fill, bx.off, (M + 2) * sizeof(Py_ssize_t))
    # by end ascending: each node's ends come out sorted
    for k in range(nr):
        keys[k] = (<int64_t> rb[k]) * (nr + 1) + k
    xml_radix_sort_i64(keys, tmp, nr)
    for j in range(nr):
        k = <Py_ssize_t> (keys[j] % (nr + 1))
        i = (M - 1 - ra[k]) + 1
        while i <= M:
            bx.end[fill[i]] = rb[k]
            fill[i] += 1
            i += i & (-i)
    free(fill)
    return 0


cdef inline void box2_add(Box2 *bx, Py_ssize_t a, Py_ssize_t b, double v) noexcept nogil:
    """Add v at the result (a, b) (one of those it was built for)."""
    cdef Py_ssize_t i = (bx.M - 1 - a) + 1, o, n, j
    while i <= bx.M:
        o = bx.off[i]
        n = bx.off[i + 1] - o
        j = lower_bound(bx.end + o, n, b) + 1
        while j <= n:
            bx.val[o + j - 1] += v
            j += j & (-j)
        i += i & (-i)


cdef inline double box2_sum(const Box2 *bx, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    """The sum over the results added so far with start >= a and end <= b."""
    cdef Py_ssize_t i = (bx.M - 1 - a) + 1, o, n, j
    cdef double tot = 0.0
    if i > bx.M:
        i = bx.M
    while i > 0:
        o = bx.off[i]
        n = bx.off[i + 1] - o
        j = lower_bound(bx.end + o, n, b + 1)      # the ends <= b
        while j > 0:
            tot += bx.val[o + j - 1]
            j -= j & (-j)
        i -= i & (-i)
    return tot



cdef inline Py_ssize_t uf_find(Py_ssize_t *nxt, Py_ssize_t k) noexcept nogil:
    # smallest uncovered segment index >= k (nxt[m] == m is the sentinel)
    cdef Py_ssize_t root = k, tmp
    while nxt[root] != root:
        root = nxt[root]
    while nxt[k] != root:
        tmp = nxt[k]
        nxt[k] = root
        k = tmp
    return root


cdef struct Scratch:
    int64_t *pts        # compressed endpoints (global coordinates)
    int64_t *seglen     # length of segment k
    int64_t *hlpre      # prefix sums of highlighted length over segments
    int64_t *cov        # Fenwick: covered length
    int64_t *covrel     # Fenwick: covered highlighted length
    int64_t *cmax       # Fenwick prefix max: largest end index of a result starting at or before
    Py_ssize_t m        # number of segments of the current topic
    int seen_mode       # 0: fully seen = overlap 1; 1: an earlier result contains it
    Py_ssize_t *nxt     # union-find over segments
    int64_t *keys       # sort keys
    int64_t *tmp        # radix sort buffer
    Py_ssize_t *ra      # run: compressed start index
    Py_ssize_t *rb      # run: compressed end index
    double *hbit        # Fenwick over start index of HiXEval rval
    int64_t *ishl       # segment is highlighted (0/1)
    Py_ssize_t *owner   # ideal element owning segment k, or -1
    Py_ssize_t *na      # tree nodes (preorder): compressed start
    Py_ssize_t *nb      # compressed end
    Py_ssize_t *nlast   # last descendant in preorder
    Py_ssize_t *norig   # original index of the node
    int64_t *nkey       # node sort keys (for exact-match lookup)
    Py_ssize_t *stack
    int64_t *base       # per document slot: base offset
    int64_t *maxend     # per document slot: largest end seen
    Py_ssize_t *slot    # per document code: slot or -1 (size ndocs)
    Py_ssize_t *slotdoc # slot -> document code


cdef inline Py_ssize_t get_slot(Scratch *s, Py_ssize_t *nslots, int64_t doc, int64_t end) noexcept nogil:
    cdef Py_ssize_t k = s.slot[doc]
    if k < 0:
        k = nslots[0]
        nslots[0] += 1
        s.slot[doc] = k
        s.slotdoc[k] = doc
        s.maxend[k] = 0
    if end > s.maxend[k]:
        s.maxend[k] = end
    return k


cdef inline void add_slots(Scratch *s, Py_ssize_t *nslots, const int64_t[::1] doc, const int64_t[::1] end,
                           Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """Give the documents of spans lo..hi-1 a slot of the current topic (first come,
    first served) and record the largest end seen in each."""
    cdef Py_ssize_t j
    for j in range(lo, hi):
        get_slot(s, nslots, doc[j], end[j])


cdef inline void set_bases(Scratch *s, Py_ssize_t nslots) noexcept nogil:
    """Base offsets of the topic's document slots, in slot order: documents laid
    end to end with a gap, so spans of different documents never touch."""
    cdef Py_ssize_t k
    cdef int64_t g0 = 0
    for k in range(nslots):
        s.base[k] = g0
        g0 += s.maxend[k] + 1


cdef inline Py_ssize_t add_points(Scratch *s, Py_ssize_t m, const int64_t[::1] doc, const int64_t[::1] start,
                                  const int64_t[::1] end, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """Append the endpoints of spans lo..hi-1, in the topic's global coordinates
    (their documents' slot bases), to ``s.pts`` from index m; returns the new count."""
    cdef Py_ssize_t j, sl
    for j in range(lo, hi):
        sl = s.slot[doc[j]]
        s.pts[m] = s.base[sl] + start[j]
        s.pts[m + 1] = s.base[sl] + end[j]
        m += 2
    return m


cdef inline Py_ssize_t compress_points(Scratch *s, Py_ssize_t m) noexcept nogil:
    """Sort the m endpoints in ``s.pts`` and drop repeats; returns the number of
    distinct points (they bound that number minus one segments)."""
    cdef Py_ssize_t k, mm = 0
    xml_radix_sort_i64(s.pts, s.tmp, m)
    for k in range(m):
        if mm == 0 or s.pts[k] != s.pts[mm - 1]:
            s.pts[mm] = s.pts[k]
            mm += 1
    return mm


cdef double node_value(const Scratch *s, Py_ssize_t c, const double *nq,
                       double alpha, Py_ssize_t nn) noexcept nogil:
    """v(c) * |c| for an assessed node c, following the recursive XCG gain of docs/xml.md, XCG."""
    cdef int64_t size = s.pts[s.nb[c]] - s.pts[s.na[c]]
    cdef int64_t covered
    cdef Py_ssize_t cc
    cdef double acc
    if size <= 0:
        return 0.0
    covered = fenwick_prefix(s.cov, s.nb[c]) - fenwick_prefix(s.cov, s.na[c])
    if covered == 0:
        return nq[c] * size
    if s.seen_mode == 0:
        if covered >= size:
            return (1.0 - alpha) * nq[c] * size
    elif s.na[c] < s.m and cmax_prefix(s.cmax, s.na[c] + 1) >= s.nb[c]:
        return (1.0 - alpha) * nq[c] * size
    acc = 0.0
    cc = c + 1
    while cc <= s.nlast[c]:
        acc += node_value(s, cc, nq, alpha, nn)
        cc = s.nlast[cc] + 1
    return alpha * acc + (1.0 - alpha) * nq[c] * size


cdef double inside_value(const Scratch *s, Py_ssize_t a, Py_ssize_t b, const double *nq,
                         double alpha, Py_ssize_t nn) noexcept nogil:
    """Sum of v(c)|c| over the maximal assessed nodes strictly inside [a, b)."""
    cdef Py_ssize_t lo = 0, hi = nn, mid, c
    cdef double acc = 0.0
    while lo < hi:
        mid = (lo + hi) >> 1
        if s.na[mid] < a:
            lo = mid + 1
        else:
            hi = mid
    c = lo
    while c < nn and s.na[c] < b:
        if s.nb[c] <= b and not (s.na[c] == a and s.nb[c] == b):
            acc += node_value(s, c, nq, alpha, nn)
            c = s.nlast[c] + 1
        else:
            c += 1          # crosses or equals the span: look at its descendants
    return acc


def focused_pass(
    const int64_t[::1] run_off, const int64_t[::1] run_doc,
    const int64_t[::1] run_start, const int64_t[::1] run_end,
    const int64_t[::1] hl_off, const int64_t[::1] hl_doc,
    const int64_t[::1] hl_start, const int64_t[::1] hl_end,
    const int64_t[::1] el_off, const int64_t[::1] el_doc,
    const int64_t[::1] el_start, const int64_t[::1] el_end, const double[::1] el_q,
    const double[::1] el_rsize,
    const int64_t[::1] id_off, const int64_t[::1] id_doc,
    const int64_t[::1] id_start, const int64_t[::1] id_end,
    Py_ssize_t ndocs, double alpha_hix, double alpha_xcg, int seen_mode,
    int64_t[::1] out_size, int64_t[::1] out_covered, int64_t[::1] out_contained,
    int64_t[::1] out_rsize, int64_t[::1] out_novel_rel,
    double[::1] out_rval, double[::1] out_tree_w,
    int64_t[::1] out_match, int64_t[::1] out_ideal,
):
    """One pass over every topic of a run, in rank order.

    Per retrieved span i (outputs, length = len(run_doc)):
      out_size      size(e_i)
      out_covered   size(e_i ∩ union_{j<i} e_j)      (overlap(i) * size)
      out_contained 1 if an earlier result contains e_i, else 0
      out_rsize     highlighted characters in e_i
      out_novel_rel highlighted characters of e_i not in any e_j, j < i
      out_rval      HiXEval rval(i) with ``alpha_hix``; rsize is the highlighted
                    text of e_i or, when ``el_rsize`` is not empty, the rsize of
                    the assessed element equal to e_i (0 if none)
      out_tree_w    XCG: sum over the maximal assessed elements c strictly
                    inside e_i of rv(c) * |c| (recursive, ``alpha_xcg``), for
                    partially seen results and for unseen results that are
                    not assessed elements (0 otherwise)
      out_match     index into the el_* arrays of the assessed element equal
                    to e_i, or -1
      out_ideal     index into the id_* arrays of the ideal element that
                    contains e_i, or -1
    Highlighted passages must be disjoint within a document, ideal elements
    disjoint, assessed elements sorted by nothing in particular.
    """
    cdef Py_ssize_t ntop = run_off.shape[0] - 1
    cdef Py_ssize_t t, i, j, k, m, nr, nh, ne, ni, cap_pts, cap_run, cap_el, cap_docs
    cdef Py_ssize_t nslots, a, b, sl, top, nn, mm, lo
    cdef int64_t cov, covrel, size, key, prev
    cdef double csum, rv, rs
    cdef bint use_el_rsize = el_rsize.shape[0] > 0
    cdef bint laminar
    cdef Scratch s
    cdef Box2 bx
    cdef double *nq = NULL
    cdef int err = 0
    memset(&bx, 0, sizeof(Box2))
    if (hl_off.shape[0] - 1 != ntop or el_off.shape[0] - 1 != ntop
            or id_off.shape[0] - 1 != ntop):
        raise ValueError("CSR offsets disagree on the number of topics")
    if use_el_rsize and el_rsize.shape[0] != el_doc.shape[0]:
        raise ValueError("el_rsize must be empty or have one value per assessed element")
    fn = "focused_pass"
    if ndocs < 0 or ndocs > (<Py_ssize_t> 1) << 40:
        raise ValueError(f"{fn}: ndocs out of range: {ndocs}")
    if not (0.0 <= alpha_hix <= 1.0) or not (0.0 <= alpha_xcg <= 1.0):
        raise ValueError(f"{fn}: alpha_hix and alpha_xcg must lie in [0, 1], got {alpha_hix} and {alpha_xcg}")
    _csr(run_off, run_doc.shape[0], fn, "run_off", ntop)
    _csr(hl_off, hl_doc.shape[0], fn, "hl_off", ntop)
    _csr(el_off, el_doc.shape[0], fn, "el_off", ntop)
    _csr(id_off, id_doc.shape[0], fn, "id_off", ntop)
    if el_q.shape[0] != el_doc.shape[0]:
        raise ValueError(f"{fn}: el_q must have one value per assessed element")
    # the document slot table only needs the codes in use
    ntab = _spans(run_off, run_doc, run_start, run_end, ndocs, fn, "run")
    ntab = max(ntab, _spans(hl_off, hl_doc, hl_start, hl_end, ndocs, fn, "hl"))
    ntab = max(ntab, _spans(el_off, el_doc, el_start, el_end, ndocs, fn, "el"))
    ntab = max(ntab, _spans(id_off, id_doc, id_start, id_end, ndocs, fn, "id"))
    ndocs = ntab
    nr = run_doc.shape[0]
    if (out_size.shape[0] < nr or out_covered.shape[0] < nr or out_contained.shape[0] < nr
            or out_rsize.shape[0] < nr or out_novel_rel.shape[0] < nr or out_rval.shape[0] < nr
            or out_tree_w.shape[0] < nr or out_match.shape[0] < nr or out_ideal.shape[0] < nr):
        raise ValueError(f"{fn}: every out_* array needs one entry per run result ({nr})")
    cap_run = 1
    cap_pts = 2
    cap_el = 1
    cap_docs = 1
    for t in range(ntop):
        nr = run_off[t + 1] - run_off[t]
        nh = hl_off[t + 1] - hl_off[t]
        ne = el_off[t + 1] - el_off[t]
        ni = id_off[t + 1] - id_off[t]
        if nr > cap_run:
            cap_run = nr
        if ne > cap_el:
            cap_el = ne
        if 2 * (nr + nh + ne + ni) + 2 > cap_pts:
            cap_pts = 2 * (nr + nh + ne + ni) + 2
        if nr + nh + ne + ni > cap_docs:
            cap_docs = nr + nh + ne + ni
        # sort keys (a * (m + 1) + (m - b)) * (n + 1) + j must fit in int64
        if (<double> (2 * (nr + nh + ne + ni) + 2)) ** 2 * (<double> (nr if nr > ne else ne) + 1.0) > 9.0e18:
            raise ValueError(f"focused_pass: topic {t} too large for the kernel's sort keys")
    memset(&s, 0, sizeof(Scratch))
    s.pts = <int64_t*>malloc(cap_pts * sizeof(int64_t))
    s.seglen = <int64_t*>malloc(cap_pts * sizeof(int64_t))
    s.hlpre = <int64_t*>malloc((cap_pts + 1) * sizeof(int64_t))
    s.cov = <int64_t*>malloc(cap_pts * sizeof(int64_t))
    s.covrel = <int64_t*>malloc(cap_pts * sizeof(int64_t))
    s.cmax = <int64_t*>malloc(cap_pts * sizeof(int64_t))
    s.seen_mode = seen_mode
    s.nxt = <Py_ssize_t*>malloc((cap_pts + 1) * sizeof(Py_ssize_t))
    s.keys = <int64_t*>malloc((cap_run + cap_el + 1) * sizeof(int64_t))
    s.tmp = <int64_t*>malloc((cap_pts + cap_run + cap_el + 1) * sizeof(int64_t))
    s.ra = <Py_ssize_t*>malloc(cap_run * sizeof(Py_ssize_t))
    s.rb = <Py_ssize_t*>malloc(cap_run * sizeof(Py_ssize_t))
    s.hbit = <double*>malloc(cap_pts * sizeof(double))
    s.ishl = <int64_t*>malloc(cap_pts * sizeof(int64_t))
    s.owner = <Py_ssize_t*>malloc(cap_pts * sizeof(Py_ssize_t))
    s.na = <Py_ssize_t*>malloc(cap_el * sizeof(Py_ssize_t))
    s.nb = <Py_ssize_t*>malloc(cap_el * sizeof(Py_ssize_t))
    s.nlast = <Py_ssize_t*>malloc(cap_el * sizeof(Py_ssize_t))
    s.norig = <Py_ssize_t*>malloc(cap_el * sizeof(Py_ssize_t))
    s.nkey = <int64_t*>malloc(cap_el * sizeof(int64_t))
    s.stack = <Py_ssize_t*>malloc((cap_run + cap_el + 1) * sizeof(Py_ssize_t))
    s.base = <int64_t*>malloc(cap_docs * sizeof(int64_t))
    s.maxend = <int64_t*>malloc(cap_docs * sizeof(int64_t))
    s.slotdoc = <Py_ssize_t*>malloc(cap_docs * sizeof(Py_ssize_t))
    s.slot = <Py_ssize_t*>malloc((ndocs + 1) * sizeof(Py_ssize_t))
    nq = <double*>malloc(cap_el * sizeof(double))
    if (s.pts == NULL or s.seglen == NULL or s.hlpre == NULL or s.cov == NULL
            or s.covrel == NULL or s.cmax == NULL or s.nxt == NULL or s.keys == NULL or s.tmp == NULL or s.ra == NULL
            or s.rb == NULL or s.hbit == NULL or s.ishl == NULL or s.owner == NULL
            or s.na == NULL or s.nb == NULL or s.nlast == NULL or s.norig == NULL
            or s.nkey == NULL or s.stack == NULL or s.base == NULL or s.maxend == NULL
            or s.slotdoc == NULL or s.slot == NULL or nq == NULL):
        _free_scratch(&s)
        free(nq)
        raise MemoryError()
    try:
        with nogil:
            for k in range(ndocs + 1):
                s.slot[k] = -1
            for t in range(ntop):
                # -- 1. documents of the topic: slots and base offsets
                nslots = 0
                add_slots(&s, &nslots, el_doc, el_end, el_off[t], el_off[t + 1])
                add_slots(&s, &nslots, hl_doc, hl_end, hl_off[t], hl_off[t + 1])
                add_slots(&s, &nslots, id_doc, id_end, id_off[t], id_off[t + 1])
                add_slots(&s, &nslots, run_doc, run_end, run_off[t], run_off[t + 1])
                set_bases(&s, nslots)
                # -- 2. endpoints, compressed
                m = add_points(&s, 0, run_doc, run_start, run_end, run_off[t], run_off[t + 1])
                m = add_points(&s, m, hl_doc, hl_start, hl_end, hl_off[t], hl_off[t + 1])
                m = add_points(&s, m, el_doc, el_start, el_end, el_off[t], el_off[t + 1])
                m = add_points(&s, m, id_doc, id_start, id_end, id_off[t], id_off[t + 1])
                mm = compress_points(&s, m)
                # mm points -> mm - 1 segments (at least 0)
                m = mm - 1 if mm > 0 else 0
                s.m = m
                for k in range(m):
                    s.seglen[k] = s.pts[k + 1] - s.pts[k]
                    s.ishl[k] = 0
                    s.cov[k] = 0
                    s.covrel[k] = 0
                    s.cmax[k] = -1
                    s.hbit[k] = 0.0
                    s.owner[k] = -1
                    s.nxt[k] = k
                s.nxt[m] = m
                # -- 3. highlighted segments and ideal owners
                for j in range(hl_off[t], hl_off[t + 1]):
                    sl = s.slot[hl_doc[j]]
                    a = lower_bound(s.pts, mm, s.base[sl] + hl_start[j])
                    b = lower_bound(s.pts, mm, s.base[sl] + hl_end[j])
                    for k in range(a, b):
                        s.ishl[k] = 1
                s.hlpre[0] = 0
                for k in range(m):
                    s.hlpre[k + 1] = s.hlpre[k] + (s.seglen[k] if s.ishl[k] else 0)
                for j in range(id_off[t], id_off[t + 1]):
                    sl = s.slot[id_doc[j]]
                    a = lower_bound(s.pts, mm, s.base[sl] + id_start[j])
                    b = lower_bound(s.pts, mm, s.base[sl] + id_end[j])
                    for k in range(a, b):
                        s.owner[k] = j
                # -- 4. assessed elements as a preorder tree
                nn = el_off[t + 1] - el_off[t]
                for j in range(nn):
                    i = el_off[t] + j
                    sl = s.slot[el_doc[i]]
                    a = lower_bound(s.pts, mm, s.base[sl] + el_start[i])
                    b = lower_bound(s.pts, mm, s.base[sl] + el_end[i])
                    s.keys[j] = ((<int64_t>a * (m + 1) + (m - b)) * (nn + 1)) + j
                xml_radix_sort_i64(s.keys, s.tmp, nn)
                for k in range(nn):
                    j = <Py_ssize_t>(s.keys[k] % (nn + 1))
                    key = s.keys[k] // (nn + 1)
                    i = el_off[t] + j
                    s.na[k] = <Py_ssize_t>(key // (m + 1))
                    s.nb[k] = m - <Py_ssize_t>(key % (m + 1))
                    s.norig[k] = i
                    s.nkey[k] = key
                    s.nlast[k] = k
                    nq[k] = el_q[i]
                # nlast: last index whose span is inside node k (preorder, laminar
                # assessments); computed right to left
                for k in range(nn - 1, -1, -1):
                    j = k + 1
                    while j < nn and s.nb[j] <= s.nb[k] and s.na[j] < s.nb[k]:
                        j = s.nlast[j] + 1
                    s.nlast[k] = j - 1
                # nesting depth (the XCG value recurses along it)
                top = 0
                for k in range(nn):
                    while top > 0 and s.nlast[s.stack[top - 1]] < k:
                        top -= 1
                    s.stack[top] = k
                    top += 1
                    if top > MAX_DEPTH:
                        err = 1
                        break
                if err:
                    break
                # -- 5. the run, in rank order
                nr = run_off[t + 1] - run_off[t]
                for j in range(nr):
                    i = run_off[t] + j
                    sl = s.slot[run_doc[i]]
                    s.ra[j] = lower_bound(s.pts, mm, s.base[sl] + run_start[i])
                    s.rb[j] = lower_bound(s.pts, mm, s.base[sl] + run_end[i])
                    s.keys[j] = ((<int64_t>s.ra[j] * (m + 1) + (m - s.rb[j])) * (nr + 1)) + j
                # laminar run?  (no two spans cross)
                xml_radix_sort_i64(s.keys, s.tmp, nr)
                laminar = True
                top = 0
                for k in range(nr):
                    j = <Py_ssize_t>(s.keys[k] % (nr + 1))
                    while top > 0 and s.rb[s.stack[top - 1]] <= s.ra[j]:
                        top -= 1
                    if top > 0 and s.rb[s.stack[top - 1]] < s.rb[j]:
                        laminar = False
                        break
                    s.stack[top] = j
                    top += 1
                if not laminar:
                    if box2_build(&bx, s.ra, s.rb, nr, m + 1, s.keys, s.tmp) != 0:
                        err = 2
                        break
                for j in range(nr):
                    i = run_off[t] + j
                    a = s.ra[j]
                    b = s.rb[j]
                    size = s.pts[b] - s.pts[a] if b > a else 0
                    cov = fenwick_prefix(s.cov, b) - fenwick_prefix(s.cov, a)
                    out_size[i] = size
                    out_covered[i] = cov
                    out_contained[i] = 1 if (b > a and cov >= size and a < m
                                             and cmax_prefix(s.cmax, a + 1) >= b) else 0
                    out_rsize[i] = s.hlpre[b] - s.hlpre[a]
                    if out_rsize[i] > 0 and cov > 0:
                        covrel = fenwick_prefix(s.covrel, b) - fenwick_prefix(s.covrel, a)
                    else:
                        covrel = 0
                    out_novel_rel[i] = out_rsize[i] - covrel
                    # exact assessed element
                    out_match[i] = -1
                    if nn > 0:
                        key = <int64_t>a * (m + 1) + (m - b)
                        lo = lower_bound(s.nkey, nn, key)
                        if lo < nn and s.nkey[lo] == key:
                            out_match[i] = s.norig[lo]
                    # HiXEval rval
                    if use_el_rsize:
                        rs = el_rsize[out_match[i]] if out_match[i] >= 0 else 0.0
                    else:
                        rs = <double>out_rsize[i]
                    if cov == 0:
                        rv = rs
                    elif cov >= size:
                        rv = (1.0 - alpha_hix) * rs
                    else:
                        if laminar:
                            csum = fenwick_prefix(s.hbit, b) - fenwick_prefix(s.hbit, a)
                        else:       # earlier results inside [a, b)
                            csum = box2_sum(&bx, a, b)
                        rv = rs - alpha_hix * csum
                    out_rval[i] = rv
                    if not laminar and rv != 0.0:
                        box2_add(&bx, a, b, rv)
                    if a < m and rv != 0.0:
                        fenwick_add(s.hbit, m, a, rv)
                    # XCG: value of the assessed elements inside e_i (partially
                    # seen results, and unseen results that are not elements)
                    if nn > 0 and (cov > 0 or out_match[i] < 0) and (
                            (seen_mode == 0 and cov < size) or (seen_mode != 0 and out_contained[i] == 0)):
                        out_tree_w[i] = inside_value(&s, a, b, nq, alpha_xcg, nn)
                    else:
                        out_tree_w[i] = 0.0
                    # containing ideal element
                    out_ideal[i] = -1
                    if b > a and s.owner[a] >= 0:
                        k = s.owner[a]
                        sl = s.slot[id_doc[k]]
                        if s.base[sl] + id_end[k] >= s.pts[b]:
                            out_ideal[i] = k
                    # mark e_i as seen
                    if b > a:
                        cmax_update(s.cmax, m, a, b)
                    k = uf_find(s.nxt, a)
                    while k < b:
                        fenwick_add(s.cov, m, k, s.seglen[k])
                        if s.ishl[k]:
                            fenwick_add(s.covrel, m, k, s.seglen[k])
                        s.nxt[k] = k + 1
                        k = uf_find(s.nxt, k + 1)
                box2_free(&bx)
                # reset document slots
                for k in range(nslots):
                    s.slot[s.slotdoc[k]] = -1
    finally:
        _free_scratch(&s)
        free(nq)
        box2_free(&bx)
    if err == 2:
        raise MemoryError()
    if err:
        raise ValueError(f"focused_pass: assessed elements nested deeper than {MAX_DEPTH} levels")


cdef void _free_scratch(Scratch *s) noexcept:
    free(s.pts); free(s.seglen); free(s.hlpre); free(s.cov); free(s.covrel); free(s.cmax)
    free(s.nxt); free(s.keys); free(s.tmp); free(s.ra); free(s.rb); free(s.hbit); free(s.ishl)
    free(s.owner); free(s.na); free(s.nb); free(s.nlast); free(s.norig); free(s.nkey)
    free(s.stack); free(s.base); free(s.maxend); free(s.slotdoc); free(s.slot)


# ---------------------------------------------------------------------------
# cumulation
# ---------------------------------------------------------------------------

def xcg_cap(const int64_t[::1] run_off, const int64_t[::1] ideal_of,
            const double[::1] ideal_gain, double[::1] gain):
    """Cap, in place: gain collected under an ideal element never exceeds its
    ideal gain (rank order within each topic).  ``ideal_of[i]`` indexes
    ``ideal_gain`` or is -1 (not under an ideal element: left as is)."""
    cdef Py_ssize_t ntop = run_off.shape[0] - 1, t, i, k
    cdef Py_ssize_t ni = ideal_gain.shape[0]
    cdef double *rem
    cdef double g
    if gain.shape[0] != ideal_of.shape[0]:
        raise ValueError("xcg_cap: gain and ideal_of must have one length")
    _csr(run_off, gain.shape[0], "xcg_cap", "run_off")
    for i in range(run_off[0], run_off[ntop]):
        if ideal_of[i] < -1 or ideal_of[i] >= ni:
            raise ValueError(f"xcg_cap: ideal_of[{i}] = {ideal_of[i]} is not -1 or an index 0..{ni - 1}")
    rem = <double*>malloc((ni + 1) * sizeof(double))
    if rem == NULL:
        raise MemoryError()
    with nogil:
        for k in range(ni):
            rem[k] = ideal_gain[k]
        for t in range(ntop):
            for i in range(run_off[t], run_off[t + 1]):
                k = ideal_of[i]
                if k >= 0:
                    g = gain[i]
                    if g > rem[k]:
                        g = rem[k]
                    if g < 0.0:
                        g = 0.0
                    gain[i] = g
                    rem[k] -= g
    free(rem)


def xcg_passage_cap(
    const int64_t[::1] run_off, const int64_t[::1] run_doc,
    const int64_t[::1] run_start, const int64_t[::1] run_end,
    const int64_t[::1] id_off, const int64_t[::1] id_doc,
    const int64_t[::1] id_start, const int64_t[::1] id_end,
    const double[::1] ideal_gain, Py_ssize_t ndocs, double alpha,
    double[::1] gain, int64_t[::1] out_first,
):
    """Cap with passage assessments, in place (docs/xml.md, XCG, "Cap").

    The gain of result i is attributed to the ideal passages it touches, in
    proportion to w_ik = (1 - alpha) h_ik + alpha n_ik, where h_ik is the text
    of passage k inside e_i and n_ik the part of it no earlier result of the
    topic retrieved; passage k keeps min(share, what is left of its ideal
    gain), so the gain collected for a passage never exceeds its ideal gain,
    whatever the results' geometry.  A result with gain but w = 0 (no
    highlighted text) keeps its gain.  out_first[i] = 1 when result i is the
    first to collect gain for some passage (or collects gain attributed to no
    passage): the ranks MAep counts.  Ideal passages must be disjoint.

    O((n + p) log(n + p)) per topic for alpha = 1 (each character is new
    once); with alpha < 1 each result also visits the passages it touches that
    still have gain to collect.
    """
    cdef Py_ssize_t ntop = run_off.shape[0] - 1
    cdef Py_ssize_t t, i, j, k, m, mm, nr, ni, o, p, npos, ntouch, a, b, sl, nslots
    cdef Py_ssize_t cap_pts, cap_id, cap_docs, ntab
    cdef int64_t ntot, htot, h, lo_pt, hi_pt
    cdef double g, wsum, w, share, total
    cdef int newhit
    cdef int err = 0
    cdef Scratch s
    cdef Py_ssize_t *pfirst = NULL
    cdef Py_ssize_t *plast = NULL
    cdef Py_ssize_t *pord = NULL
    cdef Py_ssize_t *prank = NULL
    cdef Py_ssize_t *nextpos = NULL
    cdef Py_ssize_t *pskip = NULL
    cdef Py_ssize_t *stamp = NULL
    cdef Py_ssize_t *touch = NULL
    cdef int64_t *accn = NULL
    cdef double *rem = NULL
    cdef char *hit = NULL
    fn = "xcg_passage_cap"
    if ndocs < 0 or ndocs > (<Py_ssize_t> 1) << 40:
        raise ValueError(f"{fn}: ndocs out of range: {ndocs}")
    if not (0.0 <= alpha <= 1.0):
        raise ValueError(f"{fn}: alpha must lie in [0, 1], got {alpha}")
    _csr(run_off, run_doc.shape[0], fn, "run_off", ntop)
    _csr(id_off, id_doc.shape[0], fn, "id_off", ntop)
    if ideal_gain.shape[0] != id_doc.shape[0]:
        raise ValueError(f"{fn}: ideal_gain must have one value per ideal passage")
    if gain.shape[0] != run_doc.shape[0] or out_first.shape[0] < run_doc.shape[0]:
        raise ValueError(f"{fn}: gain and out_first need one entry per run result ({run_doc.shape[0]})")
    ntab = _spans(run_off, run_doc, run_start, run_end, ndocs, fn, "run")
    ntab = max(ntab, _spans(id_off, id_doc, id_start, id_end, ndocs, fn, "id"))
    cap_pts = 2
    cap_id = 1
    cap_docs = 1
    for t in range(ntop):
        nr = run_off[t + 1] - run_off[t]
        ni = id_off[t + 1] - id_off[t]
        if 2 * (nr + ni) + 2 > cap_pts:
            cap_pts = 2 * (nr + ni) + 2
        if ni + 1 > cap_id:
            cap_id = ni + 1
        if nr + ni > cap_docs:
            cap_docs = nr + ni
    memset(&s, 0, sizeof(Scratch))
    s.pts = <int64_t*>malloc(cap_pts * sizeof(int64_t))
    s.tmp = <int64_t*>malloc(cap_pts * sizeof(int64_t))
    s.seglen = <int64_t*>malloc(cap_pts * sizeof(int64_t))
    s.hlpre = <int64_t*>malloc((cap_pts + 1) * sizeof(int64_t))
    s.owner = <Py_ssize_t*>malloc(cap_pts * sizeof(Py_ssize_t))
    s.nxt = <Py_ssize_t*>malloc((cap_pts + 1) * sizeof(Py_ssize_t))
    s.base = <int64_t*>malloc(cap_docs * sizeof(int64_t))
    s.maxend = <int64_t*>malloc(cap_docs * sizeof(int64_t))
    s.slotdoc = <Py_ssize_t*>malloc(cap_docs * sizeof(Py_ssize_t))
    s.slot = <Py_ssize_t*>malloc((ntab + 1) * sizeof(Py_ssize_t))
    nextpos = <Py_ssize_t*>malloc((cap_pts + 1) * sizeof(Py_ssize_t))
    pfirst = <Py_ssize_t*>malloc(cap_id * sizeof(Py_ssize_t))
    plast = <Py_ssize_t*>malloc(cap_id * sizeof(Py_ssize_t))
    pord = <Py_ssize_t*>malloc(cap_id * sizeof(Py_ssize_t))
    prank = <Py_ssize_t*>malloc(cap_id * sizeof(Py_ssize_t))
    pskip = <Py_ssize_t*>malloc(cap_id * sizeof(Py_ssize_t))
    stamp = <Py_ssize_t*>malloc(cap_id * sizeof(Py_ssize_t))
    touch = <Py_ssize_t*>malloc(cap_id * sizeof(Py_ssize_t))
    accn = <int64_t*>malloc(cap_id * sizeof(int64_t))
    rem = <double*>malloc(cap_id * sizeof(double))
    hit = <char*>malloc(cap_id)
    try:
        if (s.pts == NULL or s.tmp == NULL or s.seglen == NULL or s.hlpre == NULL or s.owner == NULL
                or s.nxt == NULL or s.base == NULL or s.maxend == NULL or s.slotdoc == NULL
                or s.slot == NULL or nextpos == NULL or pfirst == NULL or plast == NULL or pord == NULL
                or prank == NULL or pskip == NULL or stamp == NULL or touch == NULL or accn == NULL
                or rem == NULL or hit == NULL):
            raise MemoryError()
        with nogil:
            for k in range(ntab + 1):
                s.slot[k] = -1
            for t in range(ntop):
                # -- documents of the topic: slots and base offsets
                nslots = 0
                add_slots(&s, &nslots, id_doc, id_end, id_off[t], id_off[t + 1])
                add_slots(&s, &nslots, run_doc, run_end, run_off[t], run_off[t + 1])
                set_bases(&s, nslots)
                # -- endpoints, compressed into segments
                m = add_points(&s, 0, run_doc, run_start, run_end, run_off[t], run_off[t + 1])
                m = add_points(&s, m, id_doc, id_start, id_end, id_off[t], id_off[t + 1])
                mm = compress_points(&s, m)
                m = mm - 1 if mm > 0 else 0
                for k in range(m):
                    s.seglen[k] = s.pts[k + 1] - s.pts[k]
                    s.owner[k] = -1
                    s.nxt[k] = k
                s.nxt[m] = m
                # -- passages: segment ranges, owners (disjointness checked)
                ni = id_off[t + 1] - id_off[t]
                for p in range(ni):
                    j = id_off[t] + p
                    sl = s.slot[id_doc[j]]
                    a = lower_bound(s.pts, mm, s.base[sl] + id_start[j])
                    b = lower_bound(s.pts, mm, s.base[sl] + id_end[j])
                    pfirst[p] = a
                    plast[p] = b
                    rem[p] = ideal_gain[j]
                    hit[p] = 0
                    accn[p] = 0
                    stamp[p] = -1
                    prank[p] = -1
                    for k in range(a, b):
                        if s.owner[k] >= 0:
                            err = 1
                            break
                        s.owner[k] = p
                    if err:
                        break
                if err:
                    break
                s.hlpre[0] = 0
                for k in range(m):
                    s.hlpre[k + 1] = s.hlpre[k] + (s.seglen[k] if s.owner[k] >= 0 else 0)
                # passages in text order (by first segment); nextpos[k]: first
                # position whose passage starts at segment k or later
                npos = 0
                for k in range(m):
                    if s.owner[k] >= 0 and (k == 0 or s.owner[k - 1] != s.owner[k]):
                        pord[npos] = s.owner[k]
                        prank[s.owner[k]] = npos
                        npos += 1
                p = 0
                for k in range(m + 1):
                    while p < npos and pfirst[pord[p]] < k:
                        p += 1
                    nextpos[k] = p
                for p in range(npos + 1):
                    pskip[p] = p
                for p in range(npos):
                    if rem[pord[p]] <= 0.0:
                        pskip[p] = p + 1
                # -- the run, in rank order
                nr = run_off[t + 1] - run_off[t]
                for j in range(nr):
                    i = run_off[t] + j
                    sl = s.slot[run_doc[i]]
                    a = lower_bound(s.pts, mm, s.base[sl] + run_start[i])
                    b = lower_bound(s.pts, mm, s.base[sl] + run_end[i])
                    # new text of e_i, per passage (each segment is new once)
                    ntot = 0
                    ntouch = 0
                    k = uf_find(s.nxt, a)
                    while k < b:
                        o = s.owner[k]
                        if o >= 0:
                            accn[o] += s.seglen[k]
                            ntot += s.seglen[k]
                            if stamp[o] != j:
                                stamp[o] = j
                                touch[ntouch] = o
                                ntouch += 1
                        s.nxt[k] = k + 1
                        k = uf_find(s.nxt, k + 1)
                    g = gain[i]
                    out_first[i] = 0
                    if g > 0.0:
                        htot = s.hlpre[b] - s.hlpre[a] if b > a else 0
                        wsum = (1.0 - alpha) * <double> htot + alpha * <double> ntot
                        if not (wsum > 0.0):
                            out_first[i] = 1            # gain attributed to no passage: kept
                        else:
                            total = 0.0
                            newhit = 0
                            if alpha < 1.0:
                                # every passage touched that has gain left
                                p = prank[s.owner[a]] if (a < m and s.owner[a] >= 0) else nextpos[a]
                                p = uf_find(pskip, p)
                                while p < npos and pfirst[pord[p]] < b:
                                    o = pord[p]
                                    lo_pt = s.pts[a if a > pfirst[o] else pfirst[o]]
                                    hi_pt = s.pts[b if b < plast[o] else plast[o]]
                                    h = hi_pt - lo_pt if hi_pt > lo_pt else 0
                                    w = (1.0 - alpha) * <double> h + alpha * <double> accn[o]
                                    if w > 0.0:
                                        share = g * (w / wsum)
                                        if share > rem[o]:
                                            share = rem[o]
                                        if share > 0.0:
                                            rem[o] -= share
                                            total += share
                                            if not hit[o]:
                                                hit[o] = 1
                                                newhit = 1
                                        if rem[o] <= 0.0:
                                            pskip[p] = p + 1
                                    p = uf_find(pskip, p + 1)
                            else:
                                for p in range(ntouch):
                                    o = touch[p]
                                    if rem[o] > 0.0:
                                        share = g * (<double> accn[o] / wsum)
                                        if share > rem[o]:
                                            share = rem[o]
                                        if share > 0.0:
                                            rem[o] -= share
                                            total += share
                                            if not hit[o]:
                                                hit[o] = 1
                                                newhit = 1
                                        if rem[o] <= 0.0 and prank[o] >= 0:
                                            pskip[prank[o]] = prank[o] + 1
                            gain[i] = total
                            out_first[i] = newhit
                    for p in range(ntouch):
                        accn[touch[p]] = 0
                for k in range(nslots):
                    s.slot[s.slotdoc[k]] = -1
            if err:
                for k in range(ntab + 1):
                    s.slot[k] = -1
    finally:
        _free_scratch(&s)
        free(nextpos); free(pfirst); free(plast); free(pord); free(prank); free(pskip)
        free(stamp); free(touch); free(accn); free(rem); free(hit)
    if err:
        raise ValueError(f"{fn}: ideal passages of topic {t} overlap (they must be disjoint)")


def xcg_measures(
    const int64_t[::1] run_off, const double[::1] gain, const int64_t[::1] count_rank,
    const int64_t[::1] id_off, const double[::1] ideal_sorted,
    const int64_t[::1] cutoffs, Py_ssize_t npoints, int maep_mode,
    double[:, ::1] out_xcg, double[:, ::1] out_nxcg, double[::1] out_maep,
    double[:, ::1] out_iep,
):
    """XCG@k, nxCG@k (for each cutoff), MAep and interpolated ep per topic.

    ideal_sorted: per topic (CSR id_off) ideal gains sorted descending.
    maep_mode: 0 -> divide by |ideal set|, 1 -> by the number of ranks with gain.
    count_rank: empty (MAep counts every rank with gain) or one flag per result
    (MAep counts a rank with gain only when its flag is set: with passage
    assessments, the first rank to collect gain for an ideal passage).
    out_iep[t, p] = max{ep[k] : gr[k] >= p / npoints} (0 if none).
    """
    cdef Py_ssize_t ntop = run_off.shape[0] - 1, nk = cutoffs.shape[0]
    cdef Py_ssize_t t, i, n, ni, c, k, r, p, cap
    cdef double xcg, total, xci, ep, gr, acc, cnt
    cdef double *xci_arr
    cdef double pd
    cdef bint use_count = count_rank.shape[0] > 0
    _csr(run_off, gain.shape[0], "xcg_measures", "run_off")
    if use_count and count_rank.shape[0] != gain.shape[0]:
        raise ValueError("xcg_measures: count_rank must be empty or have one flag per result")
    _csr(id_off, ideal_sorted.shape[0], "xcg_measures", "id_off", ntop)
    if npoints < 0 or npoints > MAX_POINTS:
        raise ValueError(f"xcg_measures: npoints must be in 0 .. {MAX_POINTS}, got {npoints}")
    for c in range(nk):
        if cutoffs[c] < 0:
            raise ValueError(f"xcg_measures: cutoffs must be >= 0, got {cutoffs[c]}")
    _out2(out_xcg, ntop, nk, "xcg_measures", "out_xcg")
    _out2(out_nxcg, ntop, nk, "xcg_measures", "out_nxcg")
    _out2(out_iep, ntop, npoints + 1, "xcg_measures", "out_iep")
    if out_maep.shape[0] < ntop:
        raise ValueError("xcg_measures: out_maep needs one entry per topic")
    cap = 1
    for t in range(ntop):
        if id_off[t + 1] - id_off[t] + 1 > cap:
            cap = id_off[t + 1] - id_off[t] + 1
    xci_arr = <double*>malloc(cap * sizeof(double))
    if xci_arr == NULL:
        raise MemoryError()
    with nogil:
        for t in range(ntop):
            n = run_off[t + 1] - run_off[t]
            ni = id_off[t + 1] - id_off[t]
            xci_arr[0] = 0.0
            for k in range(ni):
                xci_arr[k + 1] = xci_arr[k] + ideal_sorted[id_off[t] + k]
            total = xci_arr[ni]
            # cutoffs
            for c in range(nk):
                k = cutoffs[c]
                r = k if k < n else n
                xcg = 0.0
                for i in range(r):
                    xcg += gain[run_off[t] + i]
                out_xcg[t, c] = xcg
                xci = xci_arr[k if k < ni else ni]
                out_nxcg[t, c] = xcg / xci if xci > 0.0 else 0.0
            for p in range(npoints + 1):
                out_iep[t, p] = 0.0
            # ep / gr at every rank
            xcg = 0.0
            acc = 0.0
            cnt = 0.0
            for r in range(n):
                xcg += gain[run_off[t] + r]
                if xcg <= 0.0 or total <= 0.0:
                    continue
                # min{i : xCI[i] >= xcg}, i in 1..ni; ni if never reached
                i = _first_geq(xci_arr, ni, xcg)
                ep = (<double>i) / (r + 1)
                gr = xcg / total
                if gain[run_off[t] + r] > 0.0 and (not use_count or count_rank[run_off[t] + r] != 0):
                    acc += ep
                    cnt += 1.0
                pd = floor(gr * npoints + 1e-12)
                if pd > npoints:
                    pd = npoints
                if not (pd >= 0.0):     # NaN or negative gains: bucket 0
                    pd = 0.0
                p = <Py_ssize_t> pd
                if ep > out_iep[t, p]:
                    out_iep[t, p] = ep
            for p in range(npoints - 1, -1, -1):
                if out_iep[t, p + 1] > out_iep[t, p]:
                    out_iep[t, p] = out_iep[t, p + 1]
            if maep_mode == 0:
                out_maep[t] = acc / ni if ni > 0 else 0.0
            else:
                out_maep[t] = acc / cnt if cnt > 0 else 0.0
    free(xci_arr)


cdef inline Py_ssize_t _first_geq(const double *xci, Py_ssize_t ni, double v) noexcept nogil:
    # xci[0..ni] non-decreasing; smallest i in 1..ni with xci[i] >= v (ni if none)
    cdef Py_ssize_t lo = 1, hi = ni, mid
    if ni <= 0:
        return 1
    if xci[ni] < v * (1.0 - 1e-12):
        return ni
    while lo < hi:
        mid = (lo + hi) >> 1
        if xci[mid] >= v * (1.0 - 1e-12):
            hi = mid
        else:
            lo = mid + 1
    return lo


cdef void _ep_gr(const double *gain, Py_ssize_t n, const double *ideal_sorted, Py_ssize_t ni,
                 double *xci, double *out_ep, double *out_gr) noexcept nogil:
    # ep[k], gr[k] at every rank k of one topic; xci: scratch of ni + 1
    cdef Py_ssize_t k, i
    cdef double xcg = 0.0, total
    xci[0] = 0.0
    for k in range(ni):
        xci[k + 1] = xci[k] + ideal_sorted[k]
    total = xci[ni]
    for k in range(n):
        xcg += gain[k]
        if xcg <= 0.0 or total <= 0.0:
            out_ep[k] = 0.0
            out_gr[k] = 0.0 if total <= 0.0 else xcg / total
            continue
        i = _first_geq(xci, ni, xcg)
        out_ep[k] = (<double>i) / (k + 1)
        out_gr[k] = xcg / total


def ep_gr_curve(const double[::1] gain, const double[::1] ideal_sorted,
                double[::1] out_ep, double[::1] out_gr):
    """ep[k] and gr[k] at every rank of one topic (for plots)."""
    cdef Py_ssize_t n = gain.shape[0], ni = ideal_sorted.shape[0]
    cdef double *xci
    if out_ep.shape[0] < n or out_gr.shape[0] < n:
        raise ValueError("ep_gr_curve: out_ep and out_gr need one entry per rank")
    xci = <double*>malloc((ni + 1) * sizeof(double))
    if xci == NULL:
        raise MemoryError()
    if n > 0:
        with nogil:
            _ep_gr(&gain[0], n, &ideal_sorted[0] if ni > 0 else NULL, ni, xci, &out_ep[0], &out_gr[0])
    free(xci)


def hixeval_at(const int64_t[::1] run_off, const double[::1] rval,
               const int64_t[::1] size, const double[::1] trel,
               const int64_t[::1] cutoffs,
               double[:, ::1] out_p, double[:, ::1] out_r):
    """HiXEval P@k = sum rval / sum size and R@k = sum rval / Trel."""
    cdef Py_ssize_t ntop = run_off.shape[0] - 1, nk = cutoffs.shape[0]
    cdef Py_ssize_t t, c, i, r, n
    cdef double sr, ss
    _csr(run_off, rval.shape[0] if rval.shape[0] < size.shape[0] else size.shape[0], "hixeval_at", "run_off")
    if trel.shape[0] < ntop:
        raise ValueError("hixeval_at: trel needs one value per topic")
    _check_cutoffs(cutoffs, "hixeval_at")
    _out2(out_p, ntop, nk, "hixeval_at", "out_p")
    _out2(out_r, ntop, nk, "hixeval_at", "out_r")
    with nogil:
        for t in range(ntop):
            n = run_off[t + 1] - run_off[t]
            for c in range(nk):
                r = cutoffs[c] if cutoffs[c] < n else n
                sr = 0.0
                ss = 0.0
                for i in range(run_off[t], run_off[t] + r):
                    sr += rval[i]
                    ss += size[i]
                out_p[t, c] = sr / ss if ss > 0.0 else 0.0
                out_r[t, c] = sr / trel[t] if trel[t] > 0.0 else 0.0


def interpolated_precision(
    const int64_t[::1] run_off, const int64_t[::1] rel, const int64_t[::1] size,
    const int64_t[::1] trel, Py_ssize_t npoints, int bucketing,
    double[:, ::1] out_ip,
):
    """iP[p / npoints] for p = 0..npoints per topic.

    P[r] = sum_{i<=r} rel_i / sum_{i<=r} size_i, R[r] = sum rel / Trel.
    bucketing 0 (exact): R[r] >= p/npoints tested in integers;
    bucketing 1 ("inex_eval"): level = floor(npoints * (double) R[r]).
    """
    cdef Py_ssize_t ntop = run_off.shape[0] - 1, t, i, p, lvl
    cdef int64_t cr, cs
    cdef double prec, lv
    _csr(run_off, rel.shape[0] if rel.shape[0] < size.shape[0] else size.shape[0],
         "interpolated_precision", "run_off")
    if trel.shape[0] < ntop:
        raise ValueError("interpolated_precision: trel needs one value per topic")
    if npoints < 0 or npoints > MAX_POINTS:
        raise ValueError(f"interpolated_precision: npoints must be in 0 .. {MAX_POINTS}, got {npoints}")
    _out2(out_ip, ntop, npoints + 1, "interpolated_precision", "out_ip")
    with nogil:
        for t in range(ntop):
            for p in range(npoints + 1):
                out_ip[t, p] = 0.0
            if trel[t] <= 0:
                continue
            cr = 0
            cs = 0
            for i in range(run_off[t], run_off[t + 1]):
                cr += rel[i]
                cs += size[i]
                prec = (<double>cr) / cs if cs > 0 else 0.0
                if bucketing == 0:
                    lv = floor((<double> cr * <double> npoints) / <double> trel[t])
                    if cr >= 0 and cr <= (<int64_t> 1) << 40 and npoints <= 1048576:
                        lv = <double> ((cr * npoints) // trel[t])     # exact in integers
                else:
                    lv = floor(npoints * ((<double>cr) / trel[t]))
                # negative or absurd sums (meaningless, refused by the façade) stay in range
                if lv > npoints:
                    lv = npoints
                if not (lv >= 0.0):
                    lv = 0.0
                lvl = <Py_ssize_t> lv
                if prec > out_ip[t, lvl]:
                    out_ip[t, lvl] = prec
            for p in range(npoints - 1, -1, -1):
                if out_ip[t, p + 1] > out_ip[t, p]:
                    out_ip[t, p] = out_ip[t, p + 1]


# ---------------------------------------------------------------------------
# assessed element trees: nesting check and the ideal recall base
# ---------------------------------------------------------------------------

def check_nesting(const int64_t[::1] off, const int64_t[::1] doc,
                  const int64_t[::1] start, const int64_t[::1] end):
    """Elements sorted per topic by (doc, start asc, end desc) must form trees.

    Returns (i, j, kind): the first offending element i, the element j it
    clashes with and kind 1 (crossing) or 2 (same span twice); (-1, -1, 0)
    if the assessments nest."""
    cdef Py_ssize_t ntop = off.shape[0] - 1, n = doc.shape[0], t, i, top
    cdef Py_ssize_t bad_i = -1, bad_j = -1
    cdef int kind = 0
    cdef Py_ssize_t *stack
    if start.shape[0] != n or end.shape[0] != n:
        raise ValueError("check_nesting: doc, start and end must have one length")
    _csr(off, n, "check_nesting", "off")
    stack = <Py_ssize_t*>malloc((n + 1) * sizeof(Py_ssize_t))
    if stack == NULL:
        raise MemoryError()
    with nogil:
        for t in range(ntop):
            top = 0
            for i in range(off[t], off[t + 1]):
                while top > 0 and (doc[stack[top - 1]] != doc[i] or end[stack[top - 1]] <= start[i]):
                    top -= 1
                if top > 0 and end[stack[top - 1]] < end[i]:
                    bad_i = i
                    bad_j = stack[top - 1]
                    kind = 1
                    break
                if top > 0 and start[stack[top - 1]] == start[i] and end[stack[top - 1]] == end[i]:
                    bad_i = i
                    bad_j = stack[top - 1]
                    kind = 2
                    break
                stack[top] = i
                top += 1
            if kind != 0:
                break
    free(stack)
    return bad_i, bad_j, kind


def ideal_elements(const int64_t[::1] off, const int64_t[::1] doc,
                   const int64_t[::1] start, const int64_t[::1] end,
                   const double[::1] q, int rule, int64_t[::1] out_keep):
    """Ideal recall base over nested assessed elements (sorted per topic by
    doc, start asc, end desc).  On each relevant path (root to a relevant
    element with no relevant descendant) the element with the highest q is
    chosen, ties to the deeper one; rule 0 then drops chosen elements with a
    chosen ancestor, rule 1 those with a chosen descendant.
    out_keep[i] = 1 for the ideal elements."""
    cdef Py_ssize_t ntop = off.shape[0] - 1, n = doc.shape[0], t, i, top, p, best
    cdef double bq
    cdef Py_ssize_t *parent
    cdef Py_ssize_t *stack
    cdef char *flag      # bit 1: has relevant descendant, 2: chosen,
                         # 4: chosen ancestor, 8: chosen descendant
    if start.shape[0] != n or end.shape[0] != n or q.shape[0] != n or out_keep.shape[0] < n:
        raise ValueError("ideal_elements: doc, start, end, q and out_keep must have one length")
    _csr(off, n, "ideal_elements", "off")
    parent = <Py_ssize_t*>malloc((n + 1) * sizeof(Py_ssize_t))
    stack = <Py_ssize_t*>malloc((n + 1) * sizeof(Py_ssize_t))
    flag = <char*>malloc(n + 1)
    if parent == NULL or stack == NULL or flag == NULL:
        free(parent); free(stack); free(flag)
        raise MemoryError()
    with nogil:
        for i in range(n):
            flag[i] = 0
            out_keep[i] = 0
        for t in range(ntop):
            top = 0
            for i in range(off[t], off[t + 1]):
                while top > 0 and (doc[stack[top - 1]] != doc[i] or end[stack[top - 1]] <= start[i]):
                    top -= 1
                parent[i] = stack[top - 1] if top > 0 else -1
                stack[top] = i
                top += 1
            for i in range(off[t + 1] - 1, off[t] - 1, -1):
                if (q[i] > 0.0 or (flag[i] & 1)) and parent[i] >= 0:
                    flag[parent[i]] |= 1
            for i in range(off[t], off[t + 1]):
                if q[i] > 0.0 and not (flag[i] & 1):
                    best = i
                    bq = q[i]
                    p = parent[i]
                    while p >= 0:
                        if q[p] > bq:
                            best = p
                            bq = q[p]
                        p = parent[p]
                    flag[best] |= 2
            # chosen ancestors (preorder) and chosen descendants (reverse)
            for i in range(off[t], off[t + 1]):
                p = parent[i]
                if p >= 0 and ((flag[p] & 2) or (flag[p] & 4)):
                    flag[i] |= 4
            for i in range(off[t + 1] - 1, off[t] - 1, -1):
                p = parent[i]
                if p >= 0 and ((flag[i] & 2) or (flag[i] & 8)):
                    flag[p] |= 8
            for i in range(off[t], off[t + 1]):
                if flag[i] & 2:
                    if rule == 0 and not (flag[i] & 4):
                        out_keep[i] = 1
                    elif rule != 0 and not (flag[i] & 8):
                        out_keep[i] = 1
    free(parent); free(stack); free(flag)


# ---------------------------------------------------------------------------
# INEX families: GR/EPRUM, gP/MAgP, inex_eval (Precall), inex_eval_ng, T2I,
# ep/gr at cutoffs.  Each reproduces, operation for operation, the floating-point
# order of the reference computation the tests keep (numpy's pairwise sums where
# it summed arrays, running sums where it summed in Python), so the numbers are
# the same to the last bit.
# ---------------------------------------------------------------------------

cdef double _pairwise(const double *a, Py_ssize_t n) noexcept nogil:
    # numpy's pairwise summation (blocks of 128, eight accumulators)
    cdef Py_ssize_t i, n2
    cdef double res, r0, r1, r2, r3, r4, r5, r6, r7
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    if n <= 128:
        r0 = a[0]; r1 = a[1]; r2 = a[2]; r3 = a[3]
        r4 = a[4]; r5 = a[5]; r6 = a[6]; r7 = a[7]
        i = 8
        while i < n - (n % 8):
            r0 += a[i]; r1 += a[i + 1]; r2 += a[i + 2]; r3 += a[i + 3]
            r4 += a[i + 4]; r5 += a[i + 5]; r6 += a[i + 6]; r7 += a[i + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            res += a[i]
            i += 1
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return _pairwise(a, n2) + _pairwise(a + n2, n - n2)


cdef inline double np_sum(const double *a, Py_ssize_t n) noexcept nogil:
    """``numpy.sum`` of a contiguous float64 array, bit for bit."""
    return 0.0 + _pairwise(a, n)


def pairwise_sum(const double[::1] a):
    """``numpy.sum`` of ``a`` as the kernels compute it (for the tests)."""
    cdef double s
    with nogil:
        s = np_sum(&a[0] if a.shape[0] else NULL, a.shape[0])
    return s


cdef int _check_cutoffs(const int64_t[::1] cutoffs, str fn) except -1:
    return check_all_positive(cutoffs, fn, "cutoffs")


cdef int _out1(const int64_t[::1] out, Py_ssize_t n, str fn, str name) except -1:
    return check_min_len(out.shape[0], n, fn, name)


cdef int _out1d(double[::1] out, Py_ssize_t n, str fn, str name) except -1:
    return check_min_len(out.shape[0], n, fn, name)


# -- ep/gr at cutoffs -------------------------------------------------------

def epgr_at(const int64_t[::1] run_off, const double[::1] gain, const int64_t[::1] id_off,
            const double[::1] ideal_sorted, const int64_t[::1] cutoffs,
            double[:, ::1] out_ep, double[:, ::1] out_gr):
    """ep@k and gr@k per topic (docs/xml.md, XCG): gr at rank min(k, n); ep at
    rank min(k, n), times n / k when the run is shorter than k (the gain
    stays, the effort grows); 0 for a topic without results."""
    cdef Py_ssize_t ntop = run_off.shape[0] - 1, nk = cutoffs.shape[0]
    cdef Py_ssize_t t, c, n, ni, r, cap_n = 1, cap_i = 1
    cdef double *xci = NULL
    cdef double *ep = NULL
    cdef double *gr = NULL
    fn = "epgr_at"
    _csr(run_off, gain.shape[0], fn, "run_off")
    _csr(id_off, ideal_sorted.shape[0], fn, "id_off", ntop)
    _check_cutoffs(cutoffs, fn)
    _out2(out_ep, ntop, nk, fn, "out_ep")
    _out2(out_gr, ntop, nk, fn, "out_gr")
    for t in range(ntop):
        if run_off[t + 1] - run_off[t] > cap_n:
            cap_n = run_off[t + 1] - run_off[t]
        if id_off[t + 1] - id_off[t] + 1 > cap_i:
            cap_i = id_off[t + 1] - id_off[t] + 1
    xci = <double*>malloc(cap_i * sizeof(double))
    ep = <double*>malloc(cap_n * sizeof(double))
    gr = <double*>malloc(cap_n * sizeof(double))
    try:
        if xci == NULL or ep == NULL or gr == NULL:
            raise MemoryError()
        with nogil:
            for t in range(ntop):
                n = run_off[t + 1] - run_off[t]
                ni = id_off[t + 1] - id_off[t]
                if n > 0:
                    _ep_gr(&gain[run_off[t]], n, &ideal_sorted[id_off[t]] if ni > 0 else NULL, ni, xci, ep, gr)
                for c in range(nk):
                    r = cutoffs[c] if cutoffs[c] < n else n
                    if r == 0:
                        out_ep[t, c] = 0.0
                        out_gr[t, c] = 0.0
                        continue
                    out_gr[t, c] = gr[r - 1]
                    out_ep[t, c] = ep[r - 1] * r / cutoffs[c] if cutoffs[c] > n else ep[r - 1]
    finally:
        free(xci)
        free(ep)
        free(gr)


# -- GR / EPRUM -------------------------------------------------------------

cdef struct Dist:
    # a distribution over gain sums, in insertion order (the reference is a dict)
    double *key
    double *val
    Py_ssize_t n
    Py_ssize_t cap
    Py_ssize_t *tab     # open-addressing table of entry indexes (-1 empty)
    Py_ssize_t tcap     # power of two


cdef inline size_t _hash_double(double x) noexcept nogil:
    cdef uint64_t b
    if x == 0.0:
        x = 0.0
    memcpy(&b, &x, sizeof(double))
    b ^= b >> 33
    b *= <uint64_t> 0xff51afd7ed558ccdULL
    b ^= b >> 33
    return <size_t> b


cdef int _dist_reserve(Dist *d, Py_ssize_t n) noexcept nogil:
    # room for n entries; clears the table (entries are dropped)
    cdef Py_ssize_t tc, k
    cdef double *p
    cdef Py_ssize_t *q
    if n > d.cap:
        p = <double*>realloc(d.key, n * sizeof(double))
        if p == NULL:
            return -1
        d.key = p
        p = <double*>realloc(d.val, n * sizeof(double))
        if p == NULL:
            return -1
        d.val = p
        d.cap = n
    tc = 16
    while tc < 2 * n:
        tc *= 2
    if tc > d.tcap:
        q = <Py_ssize_t*>realloc(d.tab, tc * sizeof(Py_ssize_t))
        if q == NULL:
            return -1
        d.tab = q
        d.tcap = tc
    for k in range(d.tcap):
        d.tab[k] = -1
    d.n = 0
    return 0


cdef inline void _dist_add(Dist *d, double key, double x) noexcept nogil:
    # d[key] = d.get(key, 0.0) + x   (room reserved by _dist_reserve)
    cdef size_t mask = <size_t> (d.tcap - 1)
    cdef size_t h = _hash_double(key) & mask
    cdef Py_ssize_t e
    while True:
        e = d.tab[h]
        if e < 0:
            d.tab[h] = d.n
            d.key[d.n] = key
            d.val[d.n] = 0.0 + x
            d.n += 1
            return
        if d.key[e] == key:
            d.val[e] = d.val[e] + x
            return
        h = (h + 1) & mask


cdef int _prob_dist(Dist *a, Dist *b, const double *p, const double *g, Py_ssize_t ni,
                    Dist **out) noexcept nogil:
    """Distribution of sum_x g_x B_x for independent Bernoulli(p_x), as the
    reference's dictionary (sums rounded as numpy rounds to 12 decimals);
    -1: out of memory, -2: more than 2,000,000 distinct sums."""
    cdef Dist *src = a
    cdef Dist *dst = b
    cdef Dist *tmp
    cdef Py_ssize_t k, e
    cdef double px, gx, v, pr
    if _dist_reserve(src, 1) < 0:
        return -1
    _dist_add(src, 0.0, 1.0)
    for k in range(ni):
        px = p[k]
        gx = g[k]
        if px <= 0.0 or gx <= 0.0:
            continue
        if _dist_reserve(dst, 2 * src.n) < 0:
            return -1
        for e in range(src.n):
            v = src.key[e]
            pr = src.val[e]
            _dist_add(dst, v, pr * (1.0 - px))
            _dist_add(dst, rint((v + gx) * 1e12) / 1e12, pr * px)
        tmp = src
        src = dst
        dst = tmp
        if src.n > 2000000:
            return -2
    out[0] = src
    return 0


cdef inline double _nav(int64_t rs, int64_t re, int64_t xs, int64_t xe,
                        double pa, double pd, double psib) noexcept nogil:
    # default_navigation: result [rs, re) and ideal element [xs, xe) of one document
    if rs == xs and re == xe:
        return 1.0
    if xs <= rs and re <= xe:
        return pa
    if rs <= xs and xe <= re:
        return pd
    return psib


cdef int _cmp_double(const void *a, const void *b) noexcept nogil:
    cdef double x = (<const double*>a)[0], y = (<const double*>b)[0]
    return -1 if x < y else (1 if x > y else 0)


cdef bint _eprum_fast(bint use_pairs, const int64_t[::1] pair_off, const double[::1] pair_p,
                      Py_ssize_t lo, Py_ssize_t hi, const double *g, Py_ssize_t ni,
                      double pa, double pd, double psib) noexcept nogil:
    """Whether a topic's EPRUM reduces to one gain sum: every navigation
    probability is 0 or 1 (the reference's distribution then holds all its mass
    on one sum, every other entry 0), and every positive gain is large enough
    for the rounded running sum to grow with each element seen (so the rank at
    which the sum reaches a level is found by bisection)."""
    cdef Py_ssize_t k
    cdef double gpos = 0.0, gmin = 1e308
    if use_pairs:
        for k in range(pair_off[lo], pair_off[hi]):
            if pair_p[k] != 0.0 and pair_p[k] != 1.0:
                return False
    else:
        if (pa != 0.0 and pa != 1.0) or (pd != 0.0 and pd != 1.0) or (psib != 0.0 and psib != 1.0):
            return False
    for k in range(ni):
        if g[k] > 0.0:
            gpos += g[k]
            if g[k] < gmin:
                gmin = g[k]
        elif not (g[k] <= 0.0):
            return False
    return gpos == 0.0 or (gmin > 1e-9 + gpos * 1e-13 and gpos < 1e250)


cdef double _seen_sum(const double *g, const Py_ssize_t *seen_at, Py_ssize_t ni, Py_ssize_t j) noexcept nogil:
    # the reference's gain sum (rounded to 12 decimals as numpy rounds, in the
    # ideal elements' order) of the elements seen by rank j
    cdef Py_ssize_t k
    cdef double v = 0.0
    for k in range(ni):
        if seen_at[k] <= j and g[k] > 0.0:
            v = rint((v + g[k]) * 1e12) / 1e12
    return v


def eprum_measures(
    const int64_t[::1] run_off, const int64_t[::1] run_doc,
    const int64_t[::1] run_start, const int64_t[::1] run_end,
    const int64_t[::1] id_off, const int64_t[::1] id_doc,
    const int64_t[::1] id_start, const int64_t[::1] id_end,
    const double[::1] ideal_gain, Py_ssize_t ndocs,
    double p_ancestor, double p_descendant, double p_sibling,
    const int64_t[::1] pair_off, const double[::1] pair_p,
    const int64_t[::1] cutoffs, const double[::1] levels,
    double[:, ::1] out_gr, double[:, ::1] out_ep, int64_t[::1] out_valid,
):
    """GR@k and EPRUM at recall ``levels`` (each in (0, 1]) per topic
    (docs/xml.md, GR/EPRUM).  Navigation: the default model with the three
    probabilities when ``pair_off`` is empty; otherwise result i's
    probabilities towards the ideal elements of its document, in their order,
    are ``pair_p[pair_off[i]:pair_off[i + 1]]`` (a caller's model).  ``ndocs``:
    documents of the assessments (ideal codes below it; a run code at or above
    it matches nothing).  out_valid[t] = 1 when topic t has ideal elements of
    positive total gain (its values are set), else 0.
    """
    cdef Py_ssize_t ntop = run_off.shape[0] - 1, nk = cutoffs.shape[0], nl = levels.shape[0]
    cdef Py_ssize_t t, c, l, j, i, k, i0, ni, nr, d, cap_i = 1, r
    cdef double G, old, pr, s
    cdef bint touched, use_pairs, fast
    cdef Py_ssize_t *seen_at = NULL
    cdef int err = 0
    cdef Py_ssize_t pidx
    cdef Dist da, db
    cdef Dist *dd = NULL
    cdef Py_ssize_t *stamp = NULL
    cdef Py_ssize_t *dhead = NULL
    cdef Py_ssize_t *nxt = NULL
    cdef Py_ssize_t *mstar = NULL
    cdef double *notseen = NULL
    cdef double *F = NULL
    cdef double *prod = NULL
    cdef double *gs = NULL
    cdef double *need = NULL
    cdef double *prev = NULL
    cdef double *acc = NULL
    cdef double *cdf = NULL
    fn = "eprum_measures"
    if ndocs < 0 or ndocs > (<Py_ssize_t> 1) << 40:
        raise ValueError(f"{fn}: ndocs out of range: {ndocs}")
    for s in (p_ancestor, p_descendant, p_sibling):
        if not (0.0 <= s <= 1.0):
            raise ValueError(f"{fn}: navigation probabilities must lie in [0, 1], got {s}")
    _csr(run_off, run_doc.shape[0], fn, "run_off")
    _csr(id_off, id_doc.shape[0], fn, "id_off", ntop)
    if run_start.shape[0] != run_doc.shape[0] or run_end.shape[0] != run_doc.shape[0]:
        raise ValueError(f"{fn}: run_doc, run_start and run_end must have one length")
    for i in range(run_doc.shape[0]):
        if run_doc[i] < 0:
            raise ValueError(f"{fn}: run_doc[{i}] = {run_doc[i]} is not a document code")
    # the document tables only need the ideal elements' codes (a run code beyond matches nothing)
    ndocs = _spans(id_off, id_doc, id_start, id_end, ndocs, fn, "id")
    if ideal_gain.shape[0] != id_doc.shape[0]:
        raise ValueError(f"{fn}: ideal_gain must have one value per ideal element")
    use_pairs = pair_off.shape[0] > 0
    if use_pairs:
        _csr(pair_off, pair_p.shape[0], fn, "pair_off", run_doc.shape[0])
        for i in range(pair_p.shape[0]):
            if not (0.0 <= pair_p[i] <= 1.0):
                raise ValueError(f"{fn}: pair_p[{i}] = {pair_p[i]} is not a probability")
    _check_cutoffs(cutoffs, fn)
    for l in range(nl):
        if not (0.0 < levels[l] <= 1.0):
            raise ValueError(f"{fn}: recall levels must lie in (0, 1], got {levels[l]}")
    _out2(out_gr, ntop, nk, fn, "out_gr")
    _out2(out_ep, ntop, nl, fn, "out_ep")
    _out1(out_valid, ntop, fn, "out_valid")
    for t in range(ntop):
        if id_off[t + 1] - id_off[t] + 1 > cap_i:
            cap_i = id_off[t + 1] - id_off[t] + 1
    memset(&da, 0, sizeof(Dist))
    memset(&db, 0, sizeof(Dist))
    stamp = <Py_ssize_t*>malloc((ndocs + 1) * sizeof(Py_ssize_t))
    dhead = <Py_ssize_t*>malloc((ndocs + 1) * sizeof(Py_ssize_t))
    nxt = <Py_ssize_t*>malloc(cap_i * sizeof(Py_ssize_t))
    notseen = <double*>malloc(cap_i * sizeof(double))
    seen_at = <Py_ssize_t*>malloc(cap_i * sizeof(Py_ssize_t))
    F = <double*>malloc(cap_i * sizeof(double))
    prod = <double*>malloc(cap_i * sizeof(double))
    gs = <double*>malloc(cap_i * sizeof(double))
    mstar = <Py_ssize_t*>malloc((nl + 1) * sizeof(Py_ssize_t))
    need = <double*>malloc((nl + 1) * sizeof(double))
    prev = <double*>malloc((nl + 1) * sizeof(double))
    acc = <double*>malloc((nl + 1) * sizeof(double))
    cdf = <double*>malloc((nl + 1) * sizeof(double))
    try:
        if (stamp == NULL or dhead == NULL or nxt == NULL or notseen == NULL or seen_at == NULL or F == NULL or prod == NULL
                or gs == NULL or mstar == NULL or need == NULL or prev == NULL or acc == NULL or cdf == NULL):
            raise MemoryError()
        with nogil:
            for d in range(ndocs + 1):
                stamp[d] = -1
            for t in range(ntop):
                out_valid[t] = 0
                i0 = id_off[t]
                ni = id_off[t + 1] - i0
                if ni == 0:
                    continue
                G = np_sum(&ideal_gain[i0], ni)
                if G <= 0.0:
                    continue
                out_valid[t] = 1
                # ideal elements of each document, in their order
                for k in range(ni - 1, -1, -1):
                    d = id_doc[i0 + k]
                    if stamp[d] != t:
                        stamp[d] = t
                        dhead[d] = -1
                    nxt[k] = dhead[d]
                    dhead[d] = k
                    notseen[k] = 1.0
                    F[k] = 0.0
                # the ideal list: gains sorted, decreasing, cumulated
                for k in range(ni):
                    gs[k] = ideal_gain[i0 + k]
                qsort(gs, ni, sizeof(double), _cmp_double)
                for k in range(ni // 2):
                    s = gs[k]
                    gs[k] = gs[ni - 1 - k]
                    gs[ni - 1 - k] = s
                for k in range(1, ni):
                    gs[k] = gs[k - 1] + gs[k]
                for l in range(nl):
                    need[l] = levels[l] * G * (1.0 - 1e-12)
                    # numpy.searchsorted(xci, need, side="left") + 1
                    i = 0
                    j = ni
                    while i < j:
                        r = i + ((j - i) >> 1)
                        if gs[r] < need[l]:
                            i = r + 1
                        else:
                            j = r
                    mstar[l] = i + 1
                    prev[l] = 0.0
                    acc[l] = 0.0
                    cdf[l] = 0.0
                nr = run_off[t + 1] - run_off[t]
                if nr == 0:
                    for c in range(nk):
                        out_gr[t, c] = 0.0 / G
                fast = _eprum_fast(use_pairs, pair_off, pair_p, run_off[t], run_off[t + 1], &ideal_gain[i0], ni,
                                   p_ancestor, p_descendant, p_sibling) if nl > 0 else False
                for k in range(ni):
                    seen_at[k] = nr
                for j in range(nr):
                    i = run_off[t] + j
                    d = run_doc[i]
                    touched = j == 0
                    pidx = pair_off[i] if use_pairs else 0
                    if d < ndocs and stamp[d] == t:
                        k = dhead[d]
                        while k >= 0:
                            if use_pairs:
                                if pidx >= pair_off[i + 1]:
                                    err = -3
                                    break
                                pr = pair_p[pidx]
                                pidx += 1
                            else:
                                pr = _nav(run_start[i], run_end[i], id_start[i0 + k], id_end[i0 + k],
                                          p_ancestor, p_descendant, p_sibling)
                            old = notseen[k]
                            notseen[k] *= (1.0 - pr)
                            if notseen[k] != old:
                                touched = True
                                F[k] = 1.0 - notseen[k]
                                if seen_at[k] == nr:
                                    seen_at[k] = j
                            k = nxt[k]
                    if use_pairs and pidx != pair_off[i + 1]:
                        err = -3
                    if err < 0:
                        break
                    if touched and nl > 0 and not fast:
                        err = _prob_dist(&da, &db, F, &ideal_gain[i0], ni, &dd)
                        if err < 0:
                            break
                        for l in range(nl):
                            s = 0.0
                            for k in range(dd.n):
                                if dd.key[k] >= need[l]:
                                    s += dd.val[k]
                            cdf[l] = s
                    for c in range(nk):
                        r = cutoffs[c] if cutoffs[c] < nr else nr
                        if r - 1 == j:
                            for k in range(ni):
                                prod[k] = F[k] * ideal_gain[i0 + k]
                            out_gr[t, c] = np_sum(prod, ni) / G
                    if not fast:
                        for l in range(nl):
                            acc[l] += (cdf[l] - prev[l]) * mstar[l] / (j + 1)
                            prev[l] = cdf[l]
                if err < 0:
                    break
                if fast:
                    # every probability 0 or 1: all the mass on one gain sum, reached at one
                    # rank (the first whose sum reaches the level); found by bisection
                    for l in range(nl):
                        i = 0
                        j = nr
                        while i < j:
                            r = i + ((j - i) >> 1)
                            if _seen_sum(&ideal_gain[i0], seen_at, ni, r) >= need[l]:
                                j = r
                            else:
                                i = r + 1
                        out_ep[t, l] = 0.0 + (1.0 * mstar[l]) / (i + 1) if i < nr else 0.0
                else:
                    for l in range(nl):
                        out_ep[t, l] = acc[l]
        if err == -1:
            raise MemoryError()
        if err == -2:
            raise ValueError("EPRUM: too many distinct gain sums for the exact computation")
        if err == -3:
            raise ValueError(f"{fn}: pair_off does not give each result one probability per ideal "
                             "element of its document")
    finally:
        free(da.key); free(da.val); free(da.tab)
        free(db.key); free(db.val); free(db.tab)
        free(stamp); free(dhead); free(nxt); free(notseen); free(seen_at); free(F); free(prod); free(gs)
        free(mstar); free(need); free(prev); free(acc); free(cdf)


# -- gP / MAgP (RiC, BiC) ---------------------------------------------------

def gp_measures(
    const int64_t[::1] run_off, const int64_t[::1] run_doc, const int64_t[::1] run_start,
    const double[::1] novel, const double[::1] novel_rel,
    const int64_t[::1] hl_off, const int64_t[::1] hl_doc,
    const int64_t[::1] hl_start, const int64_t[::1] hl_end,
    const int64_t[::1] bep_off, const int64_t[::1] bep_doc, const int64_t[::1] bep_pos,
    Py_ssize_t ndocs, int task, double beta, int64_t bep_distance, const int64_t[::1] cutoffs,
    double[:, ::1] out_gp, double[::1] out_magp, int64_t[::1] out_valid,
):
    """Generalised precision per topic (docs/xml.md, gP): articles ranked by their
    first result; ``task`` 0 (RiC: F-beta of the article's retrieved text,
    ``novel``/``novel_rel`` per result) or 1 (BiC: distance of the article's
    first result's start to its best entry point, ``bep_*`` per topic).
    out_gp[t, c] = gP@cutoffs[c]; out_magp[t] = AgP; out_valid[t] = 1 when the
    topic has a relevant article (an article with highlighted text)."""
    cdef Py_ssize_t ntop = run_off.shape[0] - 1, nk = cutoffs.shape[0]
    cdef Py_ssize_t t, c, i, j, d, na, nrel, cap, r, ntab
    cdef uint64_t ud
    cdef double p, rr, b2 = beta * beta, cum
    cdef GpTables tb
    cdef double *ret = NULL
    cdef double *relret = NULL
    cdef double *sc = NULL
    cdef double *gsel = NULL
    fn = "gp_measures"
    _gp_args(run_off, run_doc, bep_off, bep_doc, bep_pos, ndocs, task, beta, bep_distance, cutoffs,
             out_gp, out_magp, fn)
    _csr(hl_off, hl_doc.shape[0], fn, "hl_off", ntop)
    if (run_start.shape[0] != run_doc.shape[0] or novel.shape[0] != run_doc.shape[0]
            or novel_rel.shape[0] != run_doc.shape[0]):
        raise ValueError(f"{fn}: run_doc, run_start, novel and novel_rel must have one length")
    ntab = _spans(hl_off, hl_doc, hl_start, hl_end, ndocs, fn, "hl")
    ntab = _doc_codes(run_doc, ndocs, fn, "run_doc", ntab)
    ntab = _doc_codes(bep_doc, ndocs, fn, "bep_doc", ntab)     # the tables only need the codes in use
    _out1(out_valid, ntop, fn, "out_valid")
    cap = _max_ranked(run_off)
    memset(&tb, 0, sizeof(GpTables))
    ret = <double*>malloc(cap * sizeof(double))
    relret = <double*>malloc(cap * sizeof(double))
    sc = <double*>malloc(cap * sizeof(double))
    gsel = <double*>malloc(cap * sizeof(double))
    try:
        gp_tables_alloc(&tb, ntab, cap)
        if ret == NULL or relret == NULL or sc == NULL or gsel == NULL:
            raise MemoryError()
        with nogil:
            for t in range(ntop):
                # relevant articles: highlighted characters per document
                nrel = 0
                for j in range(hl_off[t], hl_off[t + 1]):
                    d = hl_doc[j]
                    if tb.rstamp[d] != t:
                        tb.rstamp[d] = t
                        tb.relc[d] = 0
                        nrel += 1
                    tb.relc[d] += hl_end[j] - hl_start[j]
                out_valid[t] = 1 if nrel > 0 else 0
                if nrel == 0:
                    continue
                for j in range(bep_off[t], bep_off[t + 1]):
                    tb.bstamp[bep_doc[j]] = t
                    tb.bep[bep_doc[j]] = bep_pos[j]
                # articles in the order of their first result
                na = 0
                for i in range(run_off[t], run_off[t + 1]):
                    d = run_doc[i]
                    if tb.dstamp[d] != t:
                        tb.dstamp[d] = t
                        tb.dpos[d] = na
                        tb.order[na] = d
                        ret[na] = 0.0
                        relret[na] = 0.0
                        tb.entry[na] = run_start[i]
                        na += 1
                    ret[tb.dpos[d]] += novel[i]
                    relret[tb.dpos[d]] += novel_rel[i]
                for j in range(na):
                    d = tb.order[j]
                    if task == 0:
                        if tb.rstamp[d] != t or tb.relc[d] == 0 or ret[j] <= 0.0 or relret[j] <= 0.0:
                            sc[j] = 0.0
                            continue
                        p = relret[j] / ret[j]
                        rr = relret[j] / (<double> tb.relc[d])
                        sc[j] = (1 + b2) * p * rr / (b2 * p + rr)
                    else:
                        if tb.bstamp[d] != t or tb.rstamp[d] != t:
                            sc[j] = 0.0
                            continue
                        ud = _abs_diff(tb.entry[j], tb.bep[d])
                        sc[j] = ((<double> (bep_distance - <int64_t> ud)) / (<double> bep_distance)
                                 if ud < <uint64_t> bep_distance else 0.0)
                # AgP: gP[r] = cumulated score / r at the relevant articles' ranks
                cum = 0.0
                r = 0
                for j in range(na):
                    cum = sc[j] if j == 0 else cum + sc[j]
                    if tb.rstamp[tb.order[j]] == t:
                        gsel[r] = cum / (j + 1)
                        r += 1
                out_magp[t] = np_sum(gsel, r) / nrel
                for c in range(nk):
                    out_gp[t, c] = np_sum(sc, cutoffs[c] if cutoffs[c] < na else na) / cutoffs[c]
    finally:
        gp_tables_free(&tb)
        free(ret); free(relret); free(sc); free(gsel)


# -- inex_eval: Precall (published reading) ---------------------------------

def precall_published(
    const int64_t[::1] run_off, const double[::1] q, const double[::1] score,
    const double[::1] total, const double[::1] collection_size, int ties, Py_ssize_t npoints,
    double[:, ::1] out_pre, double[::1] out_mean,
):
    """Precall at recall k / npoints, k = 1..npoints, per topic (Raghavan's
    expected search length; docs/xml.md, inex_eval): ``q`` relevant units per
    result, tie groups of equal ``score`` (``ties``), ``total`` the recall base
    per topic, ``collection_size`` per topic (NaN: none; else the unretrieved
    units form a final group).  out_mean[t] = mean over the levels."""
    cdef Py_ssize_t ntop = run_off.shape[0] - 1, cap = 2
    cdef Py_ssize_t t, i, j, n, lo, ng, g, gstart, k
    cdef double tot, got, rest_rel, rest_n, xn, x, s_need
    cdef bint mono
    cdef int err = 0
    cdef Py_ssize_t bad = -1
    cdef double *gr = NULL
    cdef double *gn = NULL
    cdef double *brel = NULL
    cdef double *bnon = NULL
    fn = "precall_published"
    _csr(run_off, q.shape[0], fn, "run_off")
    if score.shape[0] != q.shape[0]:
        raise ValueError(f"{fn}: q and score must have one length")
    if total.shape[0] < ntop or collection_size.shape[0] < ntop:
        raise ValueError(f"{fn}: total and collection_size need one value per topic")
    if npoints < 1:
        raise ValueError(f"{fn}: npoints must be positive")
    _out2(out_pre, ntop, npoints, fn, "out_pre")
    _out1d(out_mean, ntop, fn, "out_mean")
    for t in range(ntop):
        if run_off[t + 1] - run_off[t] + 2 > cap:
            cap = run_off[t + 1] - run_off[t] + 2
    gr = <double*>malloc(cap * sizeof(double))
    gn = <double*>malloc(cap * sizeof(double))
    brel = <double*>malloc(cap * sizeof(double))
    bnon = <double*>malloc(cap * sizeof(double))
    try:
        if gr == NULL or gn == NULL or brel == NULL or bnon == NULL:
            raise MemoryError()
        with nogil:
            for t in range(ntop):
                for k in range(npoints):
                    out_pre[t, k] = 0.0
                tot = total[t]
                if tot <= 0.0:
                    out_mean[t] = np_sum(&out_pre[t, 0], npoints) / npoints
                    continue
                lo = run_off[t]
                n = run_off[t + 1] - lo
                ng = 0
                i = 0
                while i < n:
                    j = i + 1
                    if ties:
                        while j < n and score[lo + j] == score[lo + i]:
                            j += 1
                    gr[ng] = np_sum(&q[lo + i], j - i)
                    gn[ng] = (<double> (j - i)) - gr[ng]
                    ng += 1
                    i = j
                got = 0.0
                for g in range(ng):
                    got = got + gr[g]
                if not isnan(collection_size[t]):
                    x = tot - got
                    rest_rel = 0.0 if 0.0 > x else x
                    rest_n = collection_size[t] - n
                    if rest_n < rest_rel - 1e-9:
                        err = 1
                        bad = t
                        break
                    gr[ng] = rest_rel
                    x = rest_n - rest_rel
                    gn[ng] = 0.0 if 0.0 > x else x
                    ng += 1
                # relevant / non-relevant units before each group, summed in order
                mono = True
                x = 0.0
                s_need = 0.0
                for g in range(ng):
                    brel[g] = x
                    bnon[g] = s_need
                    if not (gr[g] >= 0.0):
                        mono = False
                    x += gr[g]
                    s_need += gn[g]
                gstart = 0
                for k in range(1, npoints + 1):
                    xn = tot * k / npoints
                    for g in range(gstart, ng):
                        if brel[g] + gr[g] >= xn - 1e-9 and gr[g] > 0:
                            x = xn - brel[g]
                            s_need = 0.0 if 0.0 > x else x
                            out_pre[t, k - 1] = xn / (xn + (bnon[g] + s_need * gn[g] / (gr[g] + 1.0)))
                            if mono:
                                gstart = g
                            break
                    else:
                        if mono:
                            break
                out_mean[t] = np_sum(&out_pre[t, 0], npoints) / npoints
        if err:
            raise ValueError("collection_size is smaller than the retrieved plus unretrieved relevant units")
    finally:
        free(gr); free(gn); free(brel); free(bnon)


# -- inex_eval_ng -------------------------------------------------------------

def ng_at(
    const int64_t[::1] run_off, const double[::1] exh, const double[::1] spe,
    const double[::1] size, const double[::1] w, const double[::1] tot_exh,
    const int64_t[::1] cutoffs, double[:, ::1] out_p, double[:, ::1] out_r,
):
    """inex_eval_ng at each cutoff k (docs/xml.md): P = sum spe size w / sum size w,
    R = sum exh w / ``tot_exh`` over the first k results (w = 1 - overlap, or 1).
    Topics with tot_exh <= 0 are left at 0."""
    cdef Py_ssize_t ntop = run_off.shape[0] - 1, nk = cutoffs.shape[0], cap = 1
    cdef Py_ssize_t t, c, i, lo, hi
    cdef double den
    cdef double *a = NULL
    cdef double *b = NULL
    cdef double *e = NULL
    fn = "ng_at"
    _csr(run_off, exh.shape[0], fn, "run_off")
    if spe.shape[0] != exh.shape[0] or size.shape[0] != exh.shape[0] or w.shape[0] != exh.shape[0]:
        raise ValueError(f"{fn}: exh, spe, size and w must have one length")
    if tot_exh.shape[0] < ntop:
        raise ValueError(f"{fn}: tot_exh needs one value per topic")
    _check_cutoffs(cutoffs, fn)
    _out2(out_p, ntop, nk, fn, "out_p")
    _out2(out_r, ntop, nk, fn, "out_r")
    for t in range(ntop):
        if run_off[t + 1] - run_off[t] > cap:
            cap = run_off[t + 1] - run_off[t]
    a = <double*>malloc(cap * sizeof(double))
    b = <double*>malloc(cap * sizeof(double))
    e = <double*>malloc(cap * sizeof(double))
    try:
        if a == NULL or b == NULL or e == NULL:
            raise MemoryError()
        with nogil:
            for t in range(ntop):
                lo = run_off[t]
                for i in range(lo, run_off[t + 1]):
                    a[i - lo] = size[i] * w[i]
                    b[i - lo] = spe[i] * size[i] * w[i]
                    e[i - lo] = exh[i] * w[i]
                for c in range(nk):
                    out_p[t, c] = 0.0
                    out_r[t, c] = 0.0
                    if tot_exh[t] <= 0.0:
                        continue
                    hi = run_off[t + 1]
                    if cutoffs[c] < hi - lo:        # (lo + cutoff may overflow)
                        hi = lo + cutoffs[c]
                    den = np_sum(a, hi - lo)
                    out_p[t, c] = np_sum(b, hi - lo) / den if den > 0.0 else 0.0
                    out_r[t, c] = np_sum(e, hi - lo) / tot_exh[t]
    finally:
        free(a); free(b); free(e)


# -- T2I ----------------------------------------------------------------------

cdef struct Iv:
    int64_t s
    int64_t e


cdef int _cmp_iv(const void *a, const void *b) noexcept nogil:
    cdef const Iv *x = <const Iv*>a
    cdef const Iv *y = <const Iv*>b
    if x.s != y.s:
        return -1 if x.s < y.s else 1
    if x.e != y.e:
        return -1 if x.e < y.e else 1
    return 0


cdef int64_t _t2i_stop(const Iv *hl, Py_ssize_t nh, int64_t start, int64_t doclen, int64_t tol) noexcept nogil:
    # position after the last character read from ``start`` (hl sorted)
    cdef int64_t pos = start, gap
    cdef Py_ssize_t k
    for k in range(nh):
        if hl[k].e <= pos:
            continue
        gap = hl[k].s - pos
        if gap < 0:
            gap = 0
        if gap >= tol:
            return pos + tol if tol < doclen - pos else doclen      # (pos + tol may overflow)
        if hl[k].e > pos:
            pos = hl[k].e
        if pos >= doclen:
            return doclen
    if doclen > pos:
        return pos + tol if tol < doclen - pos else doclen
    return doclen if doclen > start else start


cdef int64_t _add_read(Iv *read, Py_ssize_t *nread, Iv *tmp, int64_t s, int64_t e,
                       const Iv *hl, Py_ssize_t nh) noexcept nogil:
    # highlighted characters of [s, e) not read before (hl in assessment order);
    # merges [s, e) into the read intervals (kept disjoint, sorted)
    cdef int64_t new = 0, a, b, x, y, covered, ns, ne
    cdef Py_ssize_t k, r, m, n = nread[0]
    if e <= s:
        return 0
    for k in range(nh):
        a = hl[k].s if hl[k].s > s else s
        b = hl[k].e if hl[k].e < e else e
        if b <= a:
            continue
        covered = 0
        for r in range(n):
            x = read[r].s if read[r].s > a else a
            y = read[r].e if read[r].e < b else b
            if y > x:
                covered += y - x
        new += (b - a) - covered
    m = 0
    ns = s
    ne = e
    for r in range(n):
        if read[r].e < ns or read[r].s > ne:
            tmp[m] = read[r]
            m += 1
        else:
            if read[r].s < ns:
                ns = read[r].s
            if read[r].e > ne:
                ne = read[r].e
    # the kept intervals stay in order; insert the merged one (a sort by
    # (start, end) of distinct intervals: one order whatever the method)
    r = m
    while r > 0 and (tmp[r - 1].s > ns or (tmp[r - 1].s == ns and tmp[r - 1].e > ne)):
        r -= 1
    for k in range(m, r, -1):
        tmp[k] = tmp[k - 1]
    tmp[r].s = ns
    tmp[r].e = ne
    m += 1
    for r in range(m):
        read[r] = tmp[r]
    nread[0] = m
    return new


def t2i_at(
    const int64_t[::1] run_off, const int64_t[::1] run_doc,
    const int64_t[::1] run_start, const int64_t[::1] run_end,
    const int64_t[::1] hl_off, const int64_t[::1] hl_doc,
    const int64_t[::1] hl_start, const int64_t[::1] hl_end,
    const int64_t[::1] doclen, Py_ssize_t ndocs, int64_t tolerance, const int64_t[::1] cutoffs,
    double[:, ::1] out_p, double[:, ::1] out_r, int64_t[::1] out_valid,
):
    """T2I precision and recall at each cutoff per topic (docs/xml.md, T2I): from
    each result's start the reader reads on until ``tolerance`` consecutive
    non-relevant characters or the document's end (``doclen[code]``; the span's
    end when the code has no length or a negative one).  out_valid[t] = 1 when
    the topic has highlighted text."""
    cdef Py_ssize_t ntop = run_off.shape[0] - 1, nk = cutoffs.shape[0]
    cdef Py_ssize_t t, c, i, j, d, n, nd, k, cap_h = 1, cap_r = 1, r, ntab
    cdef int64_t trel, dl, stop, cg, ce
    cdef Py_ssize_t *stamp = NULL
    cdef Py_ssize_t *dslot = NULL
    cdef Py_ssize_t *hcnt = NULL
    cdef Py_ssize_t *hoff = NULL
    cdef Py_ssize_t *rcnt = NULL
    cdef Py_ssize_t *roff = NULL
    cdef Py_ssize_t *nread = NULL
    cdef Iv *hl = NULL
    cdef Iv *hls = NULL
    cdef Iv *read = NULL
    cdef Iv *tmp = NULL
    fn = "t2i_at"
    if ndocs < 0 or ndocs > (<Py_ssize_t> 1) << 40:
        raise ValueError(f"{fn}: ndocs out of range: {ndocs}")
    if tolerance <= 0:
        raise ValueError(f"{fn}: tolerance must be positive")
    _csr(run_off, run_doc.shape[0], fn, "run_off")
    _csr(hl_off, hl_doc.shape[0], fn, "hl_off", ntop)
    ntab = _spans(run_off, run_doc, run_start, run_end, ndocs, fn, "run")
    ntab = max(ntab, _spans(hl_off, hl_doc, hl_start, hl_end, ndocs, fn, "hl"))
    ndocs = ntab     # the document tables only need the codes in use
    _check_cutoffs(cutoffs, fn)
    _out2(out_p, ntop, nk, fn, "out_p")
    _out2(out_r, ntop, nk, fn, "out_r")
    _out1(out_valid, ntop, fn, "out_valid")
    for t in range(ntop):
        if hl_off[t + 1] - hl_off[t] > cap_h:
            cap_h = hl_off[t + 1] - hl_off[t]
        if run_off[t + 1] - run_off[t] + hl_off[t + 1] - hl_off[t] > cap_r:
            cap_r = run_off[t + 1] - run_off[t] + hl_off[t + 1] - hl_off[t]
    stamp = <Py_ssize_t*>malloc((ndocs + 1) * sizeof(Py_ssize_t))
    dslot = <Py_ssize_t*>malloc((ndocs + 1) * sizeof(Py_ssize_t))
    hcnt = <Py_ssize_t*>malloc((cap_r + 1) * sizeof(Py_ssize_t))
    hoff = <Py_ssize_t*>malloc((cap_r + 2) * sizeof(Py_ssize_t))
    rcnt = <Py_ssize_t*>malloc((cap_r + 1) * sizeof(Py_ssize_t))
    roff = <Py_ssize_t*>malloc((cap_r + 2) * sizeof(Py_ssize_t))
    nread = <Py_ssize_t*>malloc((cap_r + 1) * sizeof(Py_ssize_t))
    hl = <Iv*>malloc(cap_h * sizeof(Iv))
    hls = <Iv*>malloc(cap_h * sizeof(Iv))
    read = <Iv*>malloc((2 * cap_r + 1) * sizeof(Iv))
    tmp = <Iv*>malloc((2 * cap_r + 1) * sizeof(Iv))
    try:
        if (stamp == NULL or dslot == NULL or hcnt == NULL or hoff == NULL or rcnt == NULL or roff == NULL
                or nread == NULL or hl == NULL or hls == NULL or read == NULL or tmp == NULL):
            raise MemoryError()
        with nogil:
            for d in range(ndocs + 1):
                stamp[d] = -1
            for t in range(ntop):
                trel = 0
                for j in range(hl_off[t], hl_off[t + 1]):
                    trel += hl_end[j] - hl_start[j]
                out_valid[t] = 1 if trel > 0 else 0
                for c in range(nk):
                    out_p[t, c] = 0.0
                    out_r[t, c] = 0.0
                if trel <= 0:
                    continue
                # document slots; passages grouped by document (assessment order) and
                # a sorted copy; room for the read intervals of each document
                nd = 0
                for j in range(hl_off[t], hl_off[t + 1]):
                    d = hl_doc[j]
                    if stamp[d] != t:
                        stamp[d] = t
                        dslot[d] = nd
                        hcnt[nd] = 0
                        rcnt[nd] = 0
                        nd += 1
                    hcnt[dslot[d]] += 1
                for i in range(run_off[t], run_off[t + 1]):
                    d = run_doc[i]
                    if stamp[d] != t:
                        stamp[d] = t
                        dslot[d] = nd
                        hcnt[nd] = 0
                        rcnt[nd] = 0
                        nd += 1
                    rcnt[dslot[d]] += 1
                hoff[0] = 0
                roff[0] = 0
                for k in range(nd):
                    hoff[k + 1] = hoff[k] + hcnt[k]
                    roff[k + 1] = roff[k] + rcnt[k] + 1
                    hcnt[k] = 0
                    nread[k] = 0
                for j in range(hl_off[t], hl_off[t + 1]):
                    k = dslot[hl_doc[j]]
                    hl[hoff[k] + hcnt[k]].s = hl_start[j]
                    hl[hoff[k] + hcnt[k]].e = hl_end[j]
                    hls[hoff[k] + hcnt[k]] = hl[hoff[k] + hcnt[k]]
                    hcnt[k] += 1
                for k in range(nd):
                    if hcnt[k] > 1:
                        qsort(&hls[hoff[k]], hcnt[k], sizeof(Iv), _cmp_iv)
                n = run_off[t + 1] - run_off[t]
                cg = 0
                ce = 0
                for j in range(n):
                    i = run_off[t] + j
                    d = run_doc[i]
                    k = dslot[d]
                    dl = doclen[d] if d < doclen.shape[0] and doclen[d] >= 0 else run_end[i]
                    stop = _t2i_stop(&hls[hoff[k]], hcnt[k], run_start[i], dl, tolerance)
                    cg += _add_read(&read[roff[k]], &nread[k], tmp, run_start[i], stop,
                                    &hl[hoff[k]], hcnt[k])
                    ce += stop - run_start[i]
                    for c in range(nk):
                        r = cutoffs[c] if cutoffs[c] < n else n
                        if r - 1 == j:
                            out_p[t, c] = (<double> cg) / (<double> ce) if ce > 0 else 0.0
                            out_r[t, c] = (<double> cg) / (<double> trel)
    finally:
        free(stamp); free(dslot); free(hcnt); free(hoff); free(rcnt); free(roff); free(nread)
        free(hl); free(hls); free(read); free(tmp)


def segment_sums(const int64_t[::1] off, const double[::1] values, double[::1] out):
    """out[t] = numpy.sum(values[off[t]:off[t + 1]]), bit for bit."""
    cdef Py_ssize_t ntop = off.shape[0] - 1, t
    _csr(off, values.shape[0], "segment_sums", "off")
    _out1d(out, ntop, "segment_sums", "out")
    with nogil:
        for t in range(ntop):
            out[t] = np_sum(&values[off[t]] if off[t + 1] > off[t] else NULL, off[t + 1] - off[t])


# -- inex_eval: Precall as RePrec 0.32 (whole relevant units) -----------------

def precall_reprec_at(
    const int64_t[::1] run_off, const double[::1] q, const double[::1] score,
    const double[::1] total, const double[::1] collection_size, int ties, Py_ssize_t npoints,
    double[:, ::1] out_pre,
):
    """Precall at k / npoints, k = 1..npoints, per topic in RePrec's whole-unit
    reading (irscore.xml.precall): tie groups summed unit by unit, a relevant
    level reached in the group completing its ceil(xN)-th whole unit, leftover
    fractions as a final virtual group when the distribution holds the whole
    recall base.  Arguments as :func:`precall_published`."""
    cdef Py_ssize_t ntop = run_off.shape[0] - 1, cap = 2
    cdef Py_ssize_t t, i, j, n, lo, ng, g, k, nunits
    cdef int64_t whole, need
    cdef double tot, got, x, rest_rel, rest_n, n_tot, cr, cn, part_r, part_n, nr_x, c, kk, jj, ii, rr
    cdef bint complete
    cdef int err = 0
    cdef double *gr = NULL
    cdef double *gn = NULL
    cdef double *cumr = NULL
    cdef double *cumn = NULL
    cdef int64_t *units = NULL
    fn = "precall_reprec_at"
    _csr(run_off, q.shape[0], fn, "run_off")
    if score.shape[0] != q.shape[0]:
        raise ValueError(f"{fn}: q and score must have one length")
    if total.shape[0] < ntop or collection_size.shape[0] < ntop:
        raise ValueError(f"{fn}: total and collection_size need one value per topic")
    if npoints < 1:
        raise ValueError(f"{fn}: npoints must be positive")
    _out2(out_pre, ntop, npoints, fn, "out_pre")
    for t in range(ntop):
        if run_off[t + 1] - run_off[t] + 3 > cap:
            cap = run_off[t + 1] - run_off[t] + 3
    gr = <double*>malloc(cap * sizeof(double))
    gn = <double*>malloc(cap * sizeof(double))
    cumr = <double*>malloc(cap * sizeof(double))
    cumn = <double*>malloc(cap * sizeof(double))
    units = <int64_t*>malloc(cap * sizeof(int64_t))
    try:
        if gr == NULL or gn == NULL or cumr == NULL or cumn == NULL or units == NULL:
            raise MemoryError()
        with nogil:
            for t in range(ntop):
                for k in range(npoints):
                    out_pre[t, k] = 0.0
                tot = total[t]
                if tot <= 0.0:
                    continue
                lo = run_off[t]
                n = run_off[t + 1] - lo
                ng = 0
                i = 0
                while i < n:
                    j = i + 1
                    if ties:
                        while j < n and score[lo + j] == score[lo + i]:
                            j += 1
                    gr[ng] = 0.0
                    gn[ng] = 0.0
                    for k in range(lo + i, lo + j):
                        gr[ng] += q[k]
                        gn[ng] += 1.0 - q[k]
                    ng += 1
                    i = j
                got = 0.0
                for g in range(ng):
                    got += gr[g]
                if not isnan(collection_size[t]):
                    x = tot - got
                    rest_rel = 0.0 if 0.0 > x else x
                    rest_n = collection_size[t] - n
                    if rest_n < rest_rel - 1e-9:
                        err = 1
                        break
                    gr[ng] = rest_rel
                    x = rest_n - rest_rel
                    gn[ng] = 0.0 if 0.0 > x else x
                    ng += 1
                    complete = True
                else:
                    complete = fabs(tot - got) <= 1e-9 * tot
                # precall_reprec(groups, levels[, total])
                x = 0.0
                for g in range(ng):
                    x += gr[g]
                n_tot = x if complete else tot
                if not n_tot > 0.0:
                    continue
                cr = 0.0
                cn = 0.0
                part_r = 0.0
                part_n = 0.0
                nunits = 0
                for g in range(ng):
                    cr += gr[g]
                    cn += gn[g]
                    cumr[g] = cr
                    cumn[g] = cn
                    if not (gr[g] + part_r < 1e15 and gn[g] + part_n < 1e15):
                        err = 2
                        break
                    whole = <int64_t> (gr[g] + part_r)
                    if whole > 0:
                        nunits += whole
                    units[g] = nunits          # whole units completed by group g
                    part_r = gr[g] + part_r - whole
                    whole = <int64_t> (gn[g] + part_n)
                    part_n = gn[g] + part_n - whole
                if err:
                    break
                if complete and (part_r != 0.0 or part_n != 0.0):
                    cumr[ng] = cr + part_r
                    cumn[ng] = cn + part_n
                    nunits += 1
                    units[ng] = nunits
                    ng += 1
                g = 0
                for k in range(npoints):
                    nr_x = ((<double> (k + 1)) / npoints) * n_tot
                    c = floor(nr_x)
                    if nr_x - c > 1e-9 * (1.0 if 1.0 > fabs(nr_x) else fabs(nr_x)):
                        c += 1.0
                    if c < 1.0 or c > nunits:
                        continue
                    need = <int64_t> c
                    # the group completing the need-th whole unit (need grows with k)
                    while units[g] < need:
                        g += 1
                    kk = cumr[g - 1] if g else 0.0
                    jj = cumn[g - 1] if g else 0.0
                    ii = cumn[g] - jj
                    rr = cumr[g] - kk
                    out_pre[t, k] = nr_x / (nr_x + jj + (need - kk) * ii / (rr + 1.0))
        if err == 1:
            raise ValueError("collection_size is smaller than the retrieved plus unretrieved relevant units")
        if err == 2:
            raise ValueError(f"{fn}: too many relevant units (10^15 or more, or not a number)")
    finally:
        free(gr); free(gn); free(cumr); free(cumn); free(units)


def row_means(const double[:, ::1] a, double[::1] out):
    """out[t] = numpy.mean(a[t]), bit for bit."""
    cdef Py_ssize_t t, n = a.shape[1]
    _out1d(out, a.shape[0], "row_means", "out")
    if n == 0:
        raise ValueError("row_means: rows must not be empty")
    with nogil:
        for t in range(a.shape[0]):
            out[t] = np_sum(&a[t, 0], n) / n


# -- gP / MAgP as inex_eval v1.0 computes them (compat="inex2008") ------------

def gp_inex2008(
    const int64_t[::1] run_off, const int64_t[::1] run_doc, const int64_t[::1] entry_pos,
    const int64_t[::1] size, const int64_t[::1] rel,
    const int64_t[::1] rel_off, const int64_t[::1] rel_doc, const int64_t[::1] rel_size,
    const int64_t[::1] bep_off, const int64_t[::1] bep_doc, const int64_t[::1] bep_pos,
    Py_ssize_t ndocs, int task, double beta, int64_t bep_distance, const int64_t[::1] cutoffs,
    double[:, ::1] out_gp, double[::1] out_agp, int64_t[::1] out_warn,
):
    """gP@k and AgP per topic as inex_eval v1.0 (irscore.xml.inex2008): articles
    ranked by their first result (``entry_pos``: its start), ``size``/``rel``
    per result summed per article; relevant articles and their relevant size
    per topic in ``rel_*`` (each document once per topic, size > 0); best entry
    points in ``bep_*``.  gP@k = cumulated score / rank at rank min(k, n) (0
    without results); AgP = sum of gP at the relevant articles / their number
    (NaN without any).  out_warn[0] / out_warn[1]: the first topic whose
    article results are interleaved / (BiC) repeated, or -1."""
    cdef Py_ssize_t ntop = run_off.shape[0] - 1, nk = cutoffs.shape[0]
    cdef Py_ssize_t t, c, i, j, d, na, nrel, cap, r, ntab, prev
    cdef int64_t rc
    cdef uint64_t ud
    cdef double p, rr, b2 = beta * beta, s, sum_gp
    cdef int err = 0
    cdef GpTables tb
    cdef int64_t *ret = NULL
    cdef int64_t *relret = NULL
    cdef double *g = NULL
    fn = "gp_inex2008"
    _gp_args(run_off, run_doc, bep_off, bep_doc, bep_pos, ndocs, task, beta, bep_distance, cutoffs,
             out_gp, out_agp, fn)
    _csr(rel_off, rel_doc.shape[0], fn, "rel_off", ntop)
    if (entry_pos.shape[0] != run_doc.shape[0] or size.shape[0] != run_doc.shape[0]
            or rel.shape[0] != run_doc.shape[0]):
        raise ValueError(f"{fn}: run_doc, entry_pos, size and rel must have one length")
    if rel_size.shape[0] != rel_doc.shape[0]:
        raise ValueError(f"{fn}: rel_doc and rel_size must have one length")
    ntab = _doc_codes(run_doc, ndocs, fn, "run_doc", 0)
    ntab = _doc_codes(rel_doc, ndocs, fn, "rel_doc", ntab)
    ntab = _doc_codes(bep_doc, ndocs, fn, "bep_doc", ntab)
    _out1(out_warn, 2, fn, "out_warn")
    cap = _max_ranked(run_off)
    memset(&tb, 0, sizeof(GpTables))
    ret = <int64_t*>malloc(cap * sizeof(int64_t))
    relret = <int64_t*>malloc(cap * sizeof(int64_t))
    g = <double*>malloc(cap * sizeof(double))
    try:
        gp_tables_alloc(&tb, ntab, cap)
        if ret == NULL or relret == NULL or g == NULL:
            raise MemoryError()
        with nogil:
            out_warn[0] = -1
            out_warn[1] = -1
            for t in range(ntop):
                nrel = 0
                for j in range(rel_off[t], rel_off[t + 1]):
                    d = rel_doc[j]
                    if tb.rstamp[d] != t:
                        nrel += 1
                    tb.rstamp[d] = t
                    tb.relc[d] = rel_size[j]
                for j in range(bep_off[t], bep_off[t + 1]):
                    tb.bstamp[bep_doc[j]] = t
                    tb.bep[bep_doc[j]] = bep_pos[j]
                na = 0
                prev = -1
                for i in range(run_off[t], run_off[t + 1]):
                    d = run_doc[i]
                    if tb.dstamp[d] != t:
                        tb.dstamp[d] = t
                        tb.dpos[d] = na
                        tb.order[na] = d
                        ret[na] = 0
                        relret[na] = 0
                        tb.entry[na] = entry_pos[i]
                        na += 1
                    elif d != prev:
                        if out_warn[0] < 0:
                            out_warn[0] = t
                    elif task == 1 and out_warn[1] < 0:
                        out_warn[1] = t
                    prev = d
                    ret[tb.dpos[d]] += size[i]
                    relret[tb.dpos[d]] += rel[i]
                s = 0.0
                sum_gp = 0.0
                for j in range(na):
                    d = tb.order[j]
                    rc = tb.relc[d] if tb.rstamp[d] == t else 0
                    p = 0.0         # the article's score
                    if task == 0:
                        if relret[j] > 0:
                            if rc == 0 or ret[j] == 0:
                                err = 1
                                break
                            rr = (<double> relret[j]) / (<double> rc)
                            p = (<double> relret[j]) / (<double> ret[j])
                            p = ((1 + b2) * p * rr) / ((b2 * p) + rr)
                    elif rc > 0 and tb.bstamp[d] == t and tb.bep[d] > -1:
                        ud = _abs_diff(tb.bep[d], tb.entry[j])
                        if ud <= <uint64_t> bep_distance:
                            p = ((<double> bep_distance) - <double> ud) / bep_distance
                    s += p
                    g[j] = s / (j + 1)
                    if rc > 0:
                        sum_gp += s / (j + 1)
                if err:
                    break
                out_agp[t] = sum_gp / nrel if nrel else NAN
                for c in range(nk):
                    r = cutoffs[c] if cutoffs[c] < na else na
                    out_gp[t, c] = g[r - 1] if r > 0 else 0.0
        if err:
            raise ZeroDivisionError("division by zero")
    finally:
        gp_tables_free(&tb)
        free(ret); free(relret); free(g)
