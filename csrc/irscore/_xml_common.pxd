# Native helpers shared by the XML / focused retrieval kernels (_xml_focused,
# _xml_xcg, _xml_eprum, _xml_gp, _xml_inex): cimported, all inline, no module of
# its own.  Argument checks build on _checks.pxd; see docs/xml.md for the
# measures.
#
# Span sets: the façade encodes documents as integer codes and every span as
# (doc, start, end), half-open; a span set is passed to a kernel as one tuple
# ``(off, doc, start, end)`` of int64 arrays (CSR ``off``: topic t's spans are
# off[t]..off[t+1]), unpacked by ``span_set``.  Inside a topic each document
# gets a base offset so that spans of different documents never touch
# (``Scratch``: slots, bases, endpoints compressed to elementary segments, a
# "next uncovered segment" union-find).
#
# - checks (with the GIL): _check_ndocs, _csr (CSR offsets, _checks.check_csr), _spans (codes
#   and spans of a span set), _doc_codes, _check_cutoffs, _out1/_out1d/_out2/_out2_i64
#   (output sizes), span_set (a record tuple of the right length);
# - nogil: lower_bound, uf_find, cmax_update/cmax_prefix (Fenwick prefix
#   maxima), the Scratch helpers, _first_geq/_ep_gr (ep/gr of XCG), np_sum
#   (numpy's pairwise summation, bit for bit), _abs_diff.
from libc.stdlib cimport free
from libc.stdint cimport int64_t, uint64_t

from irscore._checks cimport check_csr, check_min_shape2, check_min_len, check_all_positive


cdef inline tuple span_set(object rec, Py_ssize_t n, str fn, str name):
    """``rec`` unchecked but for its shape: a tuple of ``n`` arrays (a CSR record,
    offsets first); the caller unpacks it into typed memoryviews."""
    if type(rec) is not tuple:
        raise TypeError(f"{fn}: {name} must be a tuple of {n} arrays, got {type(rec).__name__}")
    if len(<tuple> rec) != n:
        raise ValueError(f"{fn}: {name} must be a tuple of {n} arrays, got {len(<tuple> rec)}")
    return <tuple> rec


cdef extern from "xml_sort.h" nogil:
    void xml_sort_i64(int64_t *a, Py_ssize_t n)
    void xml_radix_sort_i64(int64_t *a, int64_t *tmp, Py_ssize_t n)


# deepest nesting of assessed elements the recursive XCG value may follow
cdef enum:
    MAX_DEPTH = 10000


cdef inline Py_ssize_t _csr(const int64_t[::1] off, Py_ssize_t n, str fn, str name, Py_ssize_t ntop=-1) except -2:
    """``off``: CSR offsets over n entries (``_checks.check_csr``; ntop + 1 entries,
    any ntop >= 0 when -1).  Returns the number of topics."""
    return check_csr(off, n, ntop, fn, name)


cdef inline int _check_ndocs(Py_ssize_t ndocs, str fn) except -1:
    """The number of document codes: 0 .. 2**40 (the kernels' tables hold one entry each)."""
    if ndocs < 0 or ndocs > (<Py_ssize_t> 1) << 40:
        raise ValueError(f"{fn}: ndocs out of range: {ndocs}")
    return 0


cdef inline Py_ssize_t _spans(const int64_t[::1] off, const int64_t[::1] doc, const int64_t[::1] start,
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


cdef inline Py_ssize_t _doc_codes(const int64_t[::1] doc, Py_ssize_t ndocs, str fn, str name, Py_ssize_t top) except -1:
    """Every ``doc[i]`` a document code 0..ndocs-1; returns max(top, largest code + 1)."""
    cdef Py_ssize_t i
    for i in range(doc.shape[0]):
        if doc[i] < 0 or doc[i] >= ndocs:
            raise ValueError(f"{fn}: {name}[{i}] = {doc[i]} is not a document code 0..{ndocs - 1}")
        if doc[i] >= top:
            top = doc[i] + 1
    return top


cdef inline Py_ssize_t _max_ranked(const int64_t[::1] run_off) noexcept:
    """The largest number of results of a topic (at least 1)."""
    cdef Py_ssize_t t, cap = 1
    for t in range(run_off.shape[0] - 1):
        if run_off[t + 1] - run_off[t] > cap:
            cap = run_off[t + 1] - run_off[t]
    return cap


cdef inline int _out2(double[:, ::1] out, Py_ssize_t rows, Py_ssize_t cols, str fn, str name) except -1:
    return check_min_shape2(out.shape[0], out.shape[1], rows, cols, fn, name)


cdef inline int _out2_i64(int64_t[:, ::1] out, Py_ssize_t rows, Py_ssize_t cols, str fn, str name) except -1:
    return check_min_shape2(out.shape[0], out.shape[1], rows, cols, fn, name)


#: the most interpolation points a curve may have (its output has one column per point)
cdef enum:
    MAX_POINTS = 1073741824


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
    Py_ssize_t *slotdoc  # slot -> document code


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


cdef inline void _free_scratch(Scratch *s) noexcept:
    free(s.pts); free(s.seglen); free(s.hlpre); free(s.cov); free(s.covrel); free(s.cmax)
    free(s.nxt); free(s.keys); free(s.tmp); free(s.ra); free(s.rb); free(s.hbit); free(s.ishl)
    free(s.owner); free(s.na); free(s.nb); free(s.nlast); free(s.norig); free(s.nkey)
    free(s.stack); free(s.base); free(s.maxend); free(s.slotdoc); free(s.slot)


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


cdef inline void _ep_gr(const double *gain, Py_ssize_t n, const double *ideal_sorted, Py_ssize_t ni,
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


cdef inline double _pairwise(const double *a, Py_ssize_t n) noexcept nogil:
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


cdef inline int _check_cutoffs(const int64_t[::1] cutoffs, str fn) except -1:
    return check_all_positive(cutoffs, fn, "cutoffs")


cdef inline int _out1(const int64_t[::1] out, Py_ssize_t n, str fn, str name) except -1:
    return check_min_len(out.shape[0], n, fn, name)


cdef inline int _out1d(double[::1] out, Py_ssize_t n, str fn, str name) except -1:
    return check_min_len(out.shape[0], n, fn, name)
