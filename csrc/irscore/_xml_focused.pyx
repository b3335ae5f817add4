"""Focused retrieval kernels (docs/xml.md): the one pass over a run that the
overlap-aware measures share (sizes, overlap, highlighted text, HiXEval's rval,
the recursive XCG value of the assessed elements inside each result, the
assessed and ideal element of each result), HiXEval P/R@k, interpolated
precision (iP, MAiP), and the assessed element trees (nesting check, ideal
recall base).

The union of already retrieved text is kept in a Fenwick tree (covered length,
covered highlighted length) plus a "next uncovered segment" union-find, so a
whole run is processed in O(n log n) per topic instead of comparing every pair
of results (HiXEval's sum over earlier results inside a result: O(n log^2 n)
when results cross, Box2).  Span sets are tuples ``(off, doc, start, end)``
(_xml_common.pxd).  Every entry point checks, itself, whatever could make it
read or write out of bounds (ValueError) and reports a failed allocation as
MemoryError; the façade checks meaning.  Kernels release the GIL, allocate
scratch with malloc and keep no state.
"""
from libc.stdlib cimport malloc, free, calloc
from libc.string cimport memset, memcpy
from libc.stdint cimport int64_t
from libc.math cimport floor

from irscore._common cimport fenwick_add, fenwick_prefix
from irscore._checks cimport check_len, check_min_len
from irscore._xml_common cimport (
    _check_ndocs,
    MAX_DEPTH, MAX_POINTS, Scratch, _csr, _spans, _out2, _out2_i64, _check_cutoffs, span_set, lower_bound, uf_find,
    cmax_update, cmax_prefix, add_slots, set_bases, add_points, compress_points, _free_scratch,
    xml_radix_sort_i64,
)


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


cdef struct FocusedParams:
    Py_ssize_t ndocs        # document codes are 0..ndocs-1
    double alpha_hix        # HiXEval's alpha
    double alpha_xcg        # XCG's alpha (recursive value of partly seen elements)
    int seen_mode           # 0: fully seen = overlap 1; 1: an earlier result contains it


# rows of focused_pass's outputs
cdef enum:
    ROW_SIZE = 0
    ROW_COVERED = 1
    ROW_CONTAINED = 2
    ROW_RSIZE = 3
    ROW_NOVEL_REL = 4
    ROW_MATCH = 5
    ROW_IDEAL = 6
    N_INT_ROWS = 7
    ROW_RVAL = 0
    ROW_TREE_W = 1
    N_FLOAT_ROWS = 2


def focused_pass(tuple run, tuple hl, tuple el, tuple ideal, const double[::1] el_rsize,
                 FocusedParams params, int64_t[:, ::1] out_int, double[:, ::1] out_float):
    """One pass over every topic of a run, in rank order.

    Span sets ``run``, ``hl`` (highlighted passages), ``ideal`` (ideal elements):
    ``(off, doc, start, end)``; ``el`` (assessed elements): ``(off, doc, start,
    end, q)`` with q their quantised value.  ``params``: a FocusedParams
    (``{"ndocs", "alpha_hix", "alpha_xcg", "seen_mode"}``).  Outputs, one column
    per retrieved span i: ``out_int`` (7 rows: size, covered, contained, rsize,
    novel_rel, match, ideal) and ``out_float`` (2 rows: rval, tree_w):
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
    cdef const int64_t[::1] run_off, run_doc, run_start, run_end, hl_off, hl_doc, hl_start, hl_end
    cdef const int64_t[::1] el_off, el_doc, el_start, el_end, id_off, id_doc, id_start, id_end
    cdef const double[::1] el_q
    cdef int64_t[::1] out_size, out_covered, out_contained, out_rsize, out_novel_rel, out_match, out_ideal
    cdef double[::1] out_rval, out_tree_w
    cdef Py_ssize_t ndocs = params.ndocs
    cdef double alpha_hix = params.alpha_hix, alpha_xcg = params.alpha_xcg
    cdef int seen_mode = params.seen_mode
    cdef Py_ssize_t ntop
    cdef Py_ssize_t t, i, j, k, m, nr, nh, ne, ni, cap_pts, cap_run, cap_el, cap_docs
    cdef Py_ssize_t nslots, a, b, sl, top, nn, mm, lo
    cdef int64_t cov, covrel, size, key
    cdef double csum, rv, rs
    cdef bint use_el_rsize = el_rsize.shape[0] > 0
    cdef bint laminar
    cdef Scratch s
    cdef Box2 bx
    cdef double *nq = NULL
    cdef int err = 0
    fn = "focused_pass"
    run_off, run_doc, run_start, run_end = span_set(run, 4, fn, "run")
    hl_off, hl_doc, hl_start, hl_end = span_set(hl, 4, fn, "hl")
    el_off, el_doc, el_start, el_end, el_q = span_set(el, 5, fn, "el")
    id_off, id_doc, id_start, id_end = span_set(ideal, 4, fn, "ideal")
    ntop = run_off.shape[0] - 1
    memset(&bx, 0, sizeof(Box2))
    if use_el_rsize:
        check_len(el_rsize.shape[0], el_doc.shape[0], fn, "el_rsize (when not empty)")
    _check_ndocs(ndocs, fn)
    if not (0.0 <= alpha_hix <= 1.0) or not (0.0 <= alpha_xcg <= 1.0):
        raise ValueError(f"{fn}: alpha_hix and alpha_xcg must lie in [0, 1], got {alpha_hix} and {alpha_xcg}")
    _csr(run_off, run_doc.shape[0], fn, "run_off", ntop)
    _csr(hl_off, hl_doc.shape[0], fn, "hl_off", ntop)
    _csr(el_off, el_doc.shape[0], fn, "el_off", ntop)
    _csr(id_off, id_doc.shape[0], fn, "id_off", ntop)
    check_len(el_q.shape[0], el_doc.shape[0], fn, "el_q")
    # the document slot table only needs the codes in use
    ntab = _spans(run_off, run_doc, run_start, run_end, ndocs, fn, "run")
    ntab = max(ntab, _spans(hl_off, hl_doc, hl_start, hl_end, ndocs, fn, "hl"))
    ntab = max(ntab, _spans(el_off, el_doc, el_start, el_end, ndocs, fn, "el"))
    ntab = max(ntab, _spans(id_off, id_doc, id_start, id_end, ndocs, fn, "id"))
    ndocs = ntab
    nr = run_doc.shape[0]
    _out2_i64(out_int, N_INT_ROWS, nr, fn, "out_int")
    _out2(out_float, N_FLOAT_ROWS, nr, fn, "out_float")
    out_size = out_int[ROW_SIZE]
    out_covered = out_int[ROW_COVERED]
    out_contained = out_int[ROW_CONTAINED]
    out_rsize = out_int[ROW_RSIZE]
    out_novel_rel = out_int[ROW_NOVEL_REL]
    out_match = out_int[ROW_MATCH]
    out_ideal = out_int[ROW_IDEAL]
    out_rval = out_float[ROW_RVAL]
    out_tree_w = out_float[ROW_TREE_W]
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


def hixeval_at(const int64_t[::1] run_off, const double[::1] rval,
               const int64_t[::1] size, const double[::1] trel,
               const int64_t[::1] cutoffs,
               double[:, ::1] out_p, double[:, ::1] out_r):
    """HiXEval P@k = sum rval / sum size and R@k = sum rval / Trel."""
    cdef Py_ssize_t ntop = run_off.shape[0] - 1, nk = cutoffs.shape[0]
    cdef Py_ssize_t t, c, i, r, n
    cdef double sr, ss
    _csr(run_off, rval.shape[0] if rval.shape[0] < size.shape[0] else size.shape[0], "hixeval_at", "run_off")
    check_min_len(trel.shape[0], ntop, "hixeval_at", "trel")
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
    check_min_len(trel.shape[0], ntop, "interpolated_precision", "trel")
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


def check_nesting(tuple el):
    """Elements (span set ``el = (off, doc, start, end)``) sorted per topic by
    (doc, start asc, end desc) must form trees.

    Returns (i, j, kind): the first offending element i, the element j it
    clashes with and kind 1 (crossing) or 2 (same span twice); (-1, -1, 0)
    if the assessments nest."""
    cdef const int64_t[::1] off, doc, start, end
    cdef Py_ssize_t ntop, n, t, i, top
    cdef Py_ssize_t bad_i = -1, bad_j = -1
    cdef int kind = 0
    cdef Py_ssize_t *stack
    off, doc, start, end = span_set(el, 4, "check_nesting", "el")
    ntop = off.shape[0] - 1
    n = doc.shape[0]
    check_len(start.shape[0], n, "check_nesting", "start")
    check_len(end.shape[0], n, "check_nesting", "end")
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


def ideal_elements(tuple el, int rule, int64_t[::1] out_keep):
    """Ideal recall base over nested assessed elements (``el = (off, doc, start,
    end, q)``, sorted per topic by doc, start asc, end desc).  On each relevant path (root to a relevant
    element with no relevant descendant) the element with the highest q is
    chosen, ties to the deeper one; rule 0 then drops chosen elements with a
    chosen ancestor, rule 1 those with a chosen descendant.
    out_keep[i] = 1 for the ideal elements."""
    cdef const int64_t[::1] off, doc, start, end
    cdef const double[::1] q
    cdef Py_ssize_t ntop, n, t, i, top, p, best
    cdef double bq
    cdef Py_ssize_t *parent
    cdef Py_ssize_t *stack
    # flag bits: 1 has a relevant descendant, 2 chosen, 4 chosen ancestor, 8 chosen descendant
    cdef char *flag
    off, doc, start, end, q = span_set(el, 5, "ideal_elements", "el")
    ntop = off.shape[0] - 1
    n = doc.shape[0]
    check_len(start.shape[0], n, "ideal_elements", "start")
    check_len(end.shape[0], n, "ideal_elements", "end")
    check_len(q.shape[0], n, "ideal_elements", "q")
    check_min_len(out_keep.shape[0], n, "ideal_elements", "out_keep")
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
