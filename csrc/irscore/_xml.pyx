"""Kernels for XML / focused retrieval measures (docs/xml.md).

Everything here works on character spans laid out on one line per topic: the
façade (``irscore.xml``) encodes documents as integer codes and every span as
``(doc, start, end)``, half-open.  Inside a topic each document gets a base
offset so that spans of different documents never touch; all endpoints are then
compressed to elementary segments, and the union of already retrieved text is
kept in a Fenwick tree (covered length, covered highlighted length) plus a
"next uncovered segment" union-find, so a whole run is processed in
O(n log n) per topic instead of comparing every pair of results.

All inputs are CSR arrays (``off[t]..off[t+1]`` is topic t).  Every entry
point checks, itself, whatever could make it read or write out of bounds
(offsets, lengths, document codes, spans, indices, output shapes; ValueError)
and reports a failed allocation as MemoryError; the façade checks meaning.
Kernels release the GIL, allocate scratch with malloc and keep no state.
"""
from libc.stdlib cimport malloc, free, calloc
from libc.string cimport memset
from libc.stdint cimport int64_t
from libc.math cimport floor

import numpy as np

from irscore._common cimport fenwick_add, fenwick_prefix

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
    """``off``: ntop + 1 entries (any ntop >= 0 when -1), from >= 0, non-decreasing,
    ending at most at n.  Returns the number of topics."""
    cdef Py_ssize_t t, nt = off.shape[0] - 1
    if nt < 0 or (ntop >= 0 and nt != ntop):
        raise ValueError(f"{fn}: {name} must have n_topics + 1 entries")
    if off[0] < 0 or off[nt] > n:
        raise ValueError(f"{fn}: {name} out of range (0..{n})")
    for t in range(nt):
        if off[t + 1] < off[t]:
            raise ValueError(f"{fn}: {name} not increasing")
    return nt


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


cdef int _out2(double[:, ::1] out, Py_ssize_t rows, Py_ssize_t cols, str fn, str name) except -1:
    if out.shape[0] < rows or out.shape[1] < cols:
        raise ValueError(f"{fn}: {name} must have shape at least ({rows}, {cols})")
    return 0


# ---------------------------------------------------------------------------
# small helpers (all nogil, no Python objects)
# ---------------------------------------------------------------------------

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
    cdef int64_t g0, g1, cov, covrel, size, key, prev
    cdef double csum, rv, rs
    cdef bint use_el_rsize = el_rsize.shape[0] > 0
    cdef bint laminar
    cdef Scratch s
    cdef double *nq = NULL
    cdef int err = 0
    if (hl_off.shape[0] - 1 != ntop or el_off.shape[0] - 1 != ntop
            or id_off.shape[0] - 1 != ntop):
        raise ValueError("CSR offsets disagree on the number of topics")
    if use_el_rsize and el_rsize.shape[0] != el_doc.shape[0]:
        raise ValueError("el_rsize must be empty or have one value per assessed element")
    fn = "focused_pass"
    if ndocs < 0 or ndocs > (<Py_ssize_t> 1) << 40:
        raise ValueError(f"{fn}: ndocs out of range: {ndocs}")
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
                for j in range(el_off[t], el_off[t + 1]):
                    get_slot(&s, &nslots, el_doc[j], el_end[j])
                for j in range(hl_off[t], hl_off[t + 1]):
                    get_slot(&s, &nslots, hl_doc[j], hl_end[j])
                for j in range(id_off[t], id_off[t + 1]):
                    get_slot(&s, &nslots, id_doc[j], id_end[j])
                for j in range(run_off[t], run_off[t + 1]):
                    get_slot(&s, &nslots, run_doc[j], run_end[j])
                g0 = 0
                for k in range(nslots):
                    s.base[k] = g0
                    g0 += s.maxend[k] + 1
                # -- 2. endpoints, compressed
                m = 0
                for j in range(run_off[t], run_off[t + 1]):
                    sl = s.slot[run_doc[j]]
                    s.pts[m] = s.base[sl] + run_start[j]
                    s.pts[m + 1] = s.base[sl] + run_end[j]
                    m += 2
                for j in range(hl_off[t], hl_off[t + 1]):
                    sl = s.slot[hl_doc[j]]
                    s.pts[m] = s.base[sl] + hl_start[j]
                    s.pts[m + 1] = s.base[sl] + hl_end[j]
                    m += 2
                for j in range(el_off[t], el_off[t + 1]):
                    sl = s.slot[el_doc[j]]
                    s.pts[m] = s.base[sl] + el_start[j]
                    s.pts[m + 1] = s.base[sl] + el_end[j]
                    m += 2
                for j in range(id_off[t], id_off[t + 1]):
                    sl = s.slot[id_doc[j]]
                    s.pts[m] = s.base[sl] + id_start[j]
                    s.pts[m + 1] = s.base[sl] + id_end[j]
                    m += 2
                xml_radix_sort_i64(s.pts, s.tmp, m)
                mm = 0
                for k in range(m):
                    if mm == 0 or s.pts[k] != s.pts[mm - 1]:
                        s.pts[mm] = s.pts[k]
                        mm += 1
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
                        else:
                            csum = 0.0
                            for k in range(j):
                                if s.ra[k] >= a and s.rb[k] <= b:
                                    csum += out_rval[run_off[t] + k]
                        rv = rs - alpha_hix * csum
                    out_rval[i] = rv
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
                # reset document slots
                for k in range(nslots):
                    s.slot[s.slotdoc[k]] = -1
    finally:
        _free_scratch(&s)
        free(nq)
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
    cdef int64_t g0, ntot, htot, h, lo_pt, hi_pt
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
                for j in range(id_off[t], id_off[t + 1]):
                    get_slot(&s, &nslots, id_doc[j], id_end[j])
                for j in range(run_off[t], run_off[t + 1]):
                    get_slot(&s, &nslots, run_doc[j], run_end[j])
                g0 = 0
                for k in range(nslots):
                    s.base[k] = g0
                    g0 += s.maxend[k] + 1
                # -- endpoints, compressed into segments
                m = 0
                for j in range(run_off[t], run_off[t + 1]):
                    sl = s.slot[run_doc[j]]
                    s.pts[m] = s.base[sl] + run_start[j]
                    s.pts[m + 1] = s.base[sl] + run_end[j]
                    m += 2
                for j in range(id_off[t], id_off[t + 1]):
                    sl = s.slot[id_doc[j]]
                    s.pts[m] = s.base[sl] + id_start[j]
                    s.pts[m + 1] = s.base[sl] + id_end[j]
                    m += 2
                xml_radix_sort_i64(s.pts, s.tmp, m)
                mm = 0
                for k in range(m):
                    if mm == 0 or s.pts[k] != s.pts[mm - 1]:
                        s.pts[mm] = s.pts[k]
                        mm += 1
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
    if npoints < 0:
        raise ValueError(f"xcg_measures: npoints must be >= 0, got {npoints}")
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


def ep_gr_curve(const double[::1] gain, const double[::1] ideal_sorted,
                double[::1] out_ep, double[::1] out_gr):
    """ep[k] and gr[k] at every rank of one topic (for plots)."""
    cdef Py_ssize_t n = gain.shape[0], ni = ideal_sorted.shape[0], k, i
    cdef double *xci
    cdef double xcg = 0.0, total
    if out_ep.shape[0] < n or out_gr.shape[0] < n:
        raise ValueError("ep_gr_curve: out_ep and out_gr need one entry per rank")
    xci = <double*>malloc((ni + 1) * sizeof(double))
    if xci == NULL:
        raise MemoryError()
    with nogil:
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
    if npoints < 0:
        raise ValueError(f"interpolated_precision: npoints must be >= 0, got {npoints}")
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
