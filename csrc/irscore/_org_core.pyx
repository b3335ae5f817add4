"""The shared machinery of the organization kernels (docs/reliability_sensitivity.md):
scratch memory, a topic's local view, classes of documents, the entry points' checks.

An organization side is given as CSR arrays over all topics (a ``Side``):

- ``ptr[t]..ptr[t+1]``: the occurrences of topic ``t``;
- ``doc[i]``: global document code (``0 <= doc < n_docs``; the same code on both sides
  means the same document of the same topic);
- ``level[i]``: topic-local level index, ``0`` = highest priority, consecutive;
- ``cluster[i]``: topic-local cluster index, consecutive, numbered in level order.

Occurrences are sorted by (level, cluster) and a document occurs at most once per
cluster.  Every entry point (``_org_rs.rs_side``, ``_org_bcubed.extended_bcubed_side``)
checks all of this itself (``check_sides``, ValueError), whatever the caller
checked, before it touches memory.  Every kernel scores the side ``x`` against the
reference side ``g``: called as (system, gold) it gives Reliability, as (gold,
system) Sensitivity.

Modules: ``_org_core`` (this one), ``_org_dominance`` (offline dominance sums),
``_org_priority`` (the priority pairs), ``_org_rs`` (relatedness and ``rs_side``),
``_org_bcubed`` (extended BCubed).
"""
cimport cython
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport qsort
from libc.string cimport memset, memcpy

import numpy as np
from irscore._checks cimport check_csr, check_min_len, check_same_len

# Scratch memory comes from irs_scratch.h, which keeps the large blocks a call frees
# for the next call (see there): one topic of 800,000 occurrences needs about 120 MB,
# which malloc/free would hand back to the system and fault in again every call.
# The header keeps one cache per compiled module: it is included here only, and
# the other organization kernels allocate through the functions below.
cdef extern from "irs_scratch.h" nogil:
    void *irs_scratch_malloc(size_t n)
    void *irs_scratch_calloc(size_t n, size_t size)
    void irs_scratch_free(void *p)
    void irs_scratch_release()
    void irs_scratch_configure(size_t min_bytes, int poison)
    int irs_scratch_init()
    size_t IRS_SCRATCH_MIN


cdef void *scratch_malloc(size_t n) noexcept nogil:
    return irs_scratch_malloc(n)


cdef void *scratch_calloc(size_t n, size_t size) noexcept nogil:
    return irs_scratch_calloc(n, size)


cdef void scratch_free(void *p) noexcept nogil:
    irs_scratch_free(p)


@cython.auto_pickle(False)
cdef class Side:
    """One side of an organization: ``ptr`` (int64, n_topics + 1 offsets), ``doc``,
    ``level``, ``cluster`` (int32, one entry per occurrence); see the module
    docstring.  Holds the arrays, checks nothing: each entry point checks them."""

    def __init__(self, const int64_t[::1] ptr not None, const int32_t[::1] doc not None,
                 const int32_t[::1] level not None, const int32_t[::1] cluster not None):
        self.ptr = ptr
        self.doc = doc
        self.level = level
        self.cluster = cluster

    @property
    def n_topics(self):
        """``len(ptr) - 1``."""
        return self.ptr.shape[0] - 1


# ---------------------------------------------------------------------------
# a topic's local view
# ---------------------------------------------------------------------------
cdef void _free_work(Work *w) noexcept nogil:
    scratch_free(w.loc); scratch_free(w.gid); scratch_free(w.kx); scratch_free(w.kg)
    scratch_free(w.xptr); scratch_free(w.xocc); scratch_free(w.gptr); scratch_free(w.gocc); scratch_free(w.fill)
    scratch_free(w.xk); scratch_free(w.gk); scratch_free(w.xlv); scratch_free(w.xcv)
    scratch_free(w.glv); scratch_free(w.gcv); scratch_free(w.gl1); scratch_free(w.gc1)
    scratch_free(w.wl); scratch_free(w.fl); scratch_free(w.neq); scratch_free(w.fen_f); scratch_free(w.fen_g)
    scratch_free(w.cnt); scratch_free(w.touched); scratch_free(w.multi); scratch_free(w.mark)


cdef int _alloc_work(Work *w, int64_t n_docs, int64_t maxocc) noexcept nogil:
    cdef int64_t i
    cdef int64_t m = maxocc + 2
    w.oom = 0
    w.loc = <int32_t *> scratch_malloc((n_docs + 1) * sizeof(int32_t))
    w.gid = <int32_t *> scratch_malloc(m * sizeof(int32_t))
    w.kx = <int32_t *> scratch_malloc(m * sizeof(int32_t))
    w.kg = <int32_t *> scratch_malloc(m * sizeof(int32_t))
    w.xptr = <int32_t *> scratch_malloc((m + 1) * sizeof(int32_t))
    w.xocc = <int32_t *> scratch_malloc(m * sizeof(int32_t))
    w.gptr = <int32_t *> scratch_malloc((m + 1) * sizeof(int32_t))
    w.gocc = <int32_t *> scratch_malloc(m * sizeof(int32_t))
    w.fill = <int32_t *> scratch_malloc(m * sizeof(int32_t))
    w.xk = <int32_t *> scratch_malloc(m * sizeof(int32_t))
    w.gk = <int32_t *> scratch_malloc(m * sizeof(int32_t))
    w.xlv = <int32_t *> scratch_malloc(m * sizeof(int32_t))
    w.xcv = <int32_t *> scratch_malloc(m * sizeof(int32_t))
    w.glv = <int32_t *> scratch_malloc(m * sizeof(int32_t))
    w.gcv = <int32_t *> scratch_malloc(m * sizeof(int32_t))
    w.gl1 = <int32_t *> scratch_malloc(m * sizeof(int32_t))
    w.gc1 = <int32_t *> scratch_malloc(m * sizeof(int32_t))
    w.wl = <double *> scratch_malloc(m * sizeof(double))
    w.fl = <double *> scratch_malloc(m * sizeof(double))
    w.neq = <int32_t *> scratch_malloc(m * sizeof(int32_t))
    w.fen_f = <double *> scratch_malloc((m + 1) * sizeof(double))
    w.fen_g = <double *> scratch_malloc((m + 1) * sizeof(double))
    w.cnt = <double *> scratch_calloc(m, sizeof(double))
    w.touched = <int32_t *> scratch_malloc(m * sizeof(int32_t))
    w.multi = <int32_t *> scratch_malloc(m * sizeof(int32_t))
    w.mark = <int32_t *> scratch_malloc(m * sizeof(int32_t))
    if (w.loc == NULL or w.gid == NULL or w.kx == NULL or w.kg == NULL or w.xptr == NULL
            or w.xocc == NULL or w.gptr == NULL or w.gocc == NULL or w.fill == NULL
            or w.wl == NULL or w.fl == NULL or w.neq == NULL or w.fen_f == NULL
            or w.fen_g == NULL or w.cnt == NULL or w.touched == NULL or w.multi == NULL
            or w.mark == NULL or w.xk == NULL or w.gk == NULL or w.xlv == NULL or w.xcv == NULL
            or w.glv == NULL or w.gcv == NULL or w.gl1 == NULL or w.gc1 == NULL):
        return -1
    for i in range(n_docs + 1):
        w.loc[i] = -1
    return 0


cdef inline int32_t _local_doc(Work *w, int32_t d, int32_t D) noexcept nogil:
    """Give document d a topic-local index (the next, D) on first sight; returns
    the new count of local documents."""
    if w.loc[d] < 0:
        w.loc[d] = D
        w.gid[D] = d
        w.kx[D] = 0
        w.kg[D] = 0
        D += 1
    return D


cdef void _setup_topic(Topic *t, Work *w, int64_t xa, int64_t xb, int64_t ga, int64_t gb,
                       const int32_t[::1] x_doc, const int32_t[::1] x_level,
                       const int32_t[::1] x_cluster,
                       const int32_t[::1] g_doc, const int32_t[::1] g_level,
                       const int32_t[::1] g_cluster, bint values) noexcept nogil:
    """The topic's local view.  xlv/xcv/glv/gcv (levels and clusters in the order
    of the occurrence lists) are filled for every document when ``values``, else
    for the documents with several memberships on either side (only the code for
    those reads them)."""
    cdef int64_t i
    cdef int32_t d, k, j, D = 0
    cdef bint multi = False
    t.xa = xa; t.xb = xb; t.ga = ga; t.gb = gb
    t.nx = <int32_t> (xb - xa)
    t.ng = <int32_t> (gb - ga)
    t.LX = x_level[xb - 1] + 1 if xb > xa else 0
    t.LG = g_level[gb - 1] + 1 if gb > ga else 0
    t.CX = x_cluster[xb - 1] + 1 if xb > xa else 0
    t.CG = g_cluster[gb - 1] + 1 if gb > ga else 0
    t.gid = w.gid; t.kx = w.kx; t.kg = w.kg
    t.xptr = w.xptr; t.xocc = w.xocc; t.gptr = w.gptr; t.gocc = w.gocc
    t.xk = w.xk; t.gk = w.gk; t.gl1 = w.gl1; t.gc1 = w.gc1
    t.xlv = w.xlv; t.xcv = w.xcv; t.glv = w.glv; t.gcv = w.gcv
    # local ids (the one random access per occurrence, prefetched: later passes
    # read xk/gk and the per-document arrays, whose ids follow the order of x)
    for i in range(xa, xb):
        if i + PF < xb:
            IRS_PREFETCH(w.loc + x_doc[i + PF])
        d = x_doc[i]
        k = w.loc[d]
        if k < 0:
            D = _local_doc(w, d, D)
            k = D - 1
        elif not multi:
            multi = True
        w.kx[k] += 1
        w.xk[i - xa] = k
    for i in range(ga, gb):
        if i + 2 * PF < gb:
            IRS_PREFETCH(w.loc + g_doc[i + 2 * PF])
        if i + PF < gb:
            k = w.loc[g_doc[i + PF]]
            if k >= 0:
                IRS_PREFETCH_W(w.kg + k)
        d = g_doc[i]
        k = w.loc[d]
        if k < 0:
            D = _local_doc(w, d, D)
            k = D - 1
        if w.kg[k] == 0:
            w.gl1[k] = g_level[i]
            w.gc1[k] = g_cluster[i]
        elif not multi:
            multi = True
        w.kg[k] += 1
        w.gk[i - ga] = k
    t.D = D
    # CSR of each document's occurrences; filled in occurrence order, so the
    # level and cluster lists read through them are sorted ascending.
    w.xptr[0] = 0
    w.gptr[0] = 0
    for k in range(D):
        w.xptr[k + 1] = w.xptr[k] + w.kx[k]
        w.gptr[k + 1] = w.gptr[k] + w.kg[k]
        w.fill[k] = w.xptr[k]
    for i in range(xa, xb):
        k = w.xk[i - xa]
        j = w.fill[k]
        w.xocc[j] = <int32_t> (i - xa)
        if values:
            w.xlv[j] = x_level[i]
            w.xcv[j] = x_cluster[i]
        w.fill[k] = j + 1
    for k in range(D):
        w.fill[k] = w.gptr[k]
    for i in range(ga, gb):
        # (the scatter of the reference side: fill, then the slots it points to)
        if i + 2 * PF < gb:
            IRS_PREFETCH_W(w.fill + w.gk[i + 2 * PF - ga])
        if i + PF < gb:
            IRS_PREFETCH_W(w.gocc + w.fill[w.gk[i + PF - ga]])
        k = w.gk[i - ga]
        j = w.fill[k]
        w.gocc[j] = <int32_t> (i - ga)
        if values:
            w.glv[j] = g_level[i]
            w.gcv[j] = g_cluster[i]
        w.fill[k] = j + 1
    if multi and not values:
        for k in range(D):
            if w.kx[k] > 1 or w.kg[k] > 1:
                for j in range(w.xptr[k], w.xptr[k + 1]):
                    w.xlv[j] = x_level[xa + w.xocc[j]]
                    w.xcv[j] = x_cluster[xa + w.xocc[j]]
                for j in range(w.gptr[k], w.gptr[k + 1]):
                    w.glv[j] = g_level[ga + w.gocc[j]]
                    w.gcv[j] = g_cluster[ga + w.gocc[j]]


cdef void _release_topic(Topic *t, Work *w) noexcept nogil:
    cdef int32_t k
    for k in range(t.D):
        if k + PF < t.D:
            IRS_PREFETCH_W(w.loc + w.gid[k + PF])
        w.loc[w.gid[k]] = -1

cdef double _level_weights(Topic *t, Work *w, const int32_t[::1] x_level, double c,
                           bint uniform, double *Wt, double *Wr) noexcept nogil:
    cdef int32_t l
    cdef int64_t i
    cdef double ngt = 0.0, neq, Wl, denom, nx = t.nx
    for l in range(t.LX):
        w.neq[l] = 0
    for i in range(t.xa, t.xb):
        w.neq[x_level[i]] += 1
    if uniform:
        Wt[0] = 0.0
        Wr[0] = 1.0
    else:
        Wt[0] = c / (c + nx)
        Wr[0] = nx / (c + nx)
    for l in range(t.LX):
        neq = w.neq[l]
        if uniform:
            w.wl[l] = 1.0 / nx
            denom = (nx - neq) / nx
        else:
            # c (1/(c+a) - 1/(c+a+neq)) without the cancellation of the
            # difference (c ~ 1e10 for w_n = 1e-9)
            Wl = c * neq / ((c + ngt) * (c + ngt + neq))
            w.wl[l] = Wl / neq
            # 1 - Wl = ((c+a)^2 + a neq) / ((c+a)(c+a+neq)): no cancellation
            # when Wl is close to 1 (w_n close to 1)
            denom = ((c + ngt) * (c + ngt) + ngt * neq) / ((c + ngt) * (c + ngt + neq))
        w.fl[l] = w.wl[l] / denom if denom > 0.0 else 0.0
        ngt += neq
    return 0.0

cdef int64_t _max_topic(const int64_t[::1] x_ptr, const int64_t[::1] g_ptr) noexcept nogil:
    cdef Py_ssize_t t
    cdef int64_t best = 1, n
    for t in range(x_ptr.shape[0] - 1):
        n = (x_ptr[t + 1] - x_ptr[t]) + (g_ptr[t + 1] - g_ptr[t])
        if n > best:
            best = n
    return best


# ---------------------------------------------------------------------------
# classes of documents with identical cluster lists on both sides
# ---------------------------------------------------------------------------
cdef int _cmp_hk(const void *pa, const void *pb) noexcept nogil:
    cdef const HK *a = <const HK *> pa
    cdef const HK *b = <const HK *> pb
    if a.key != b.key:
        return -1 if a.key < b.key else 1
    if a.idx != b.idx:
        return -1 if a.idx < b.idx else 1
    return 0


cdef void _sort_hk(HK *a, int64_t n) noexcept nogil:
    """Sort by (key, idx) when a[] is in increasing idx order (as every caller fills
    it): a stable LSD radix sort on the non-negative keys, 11 bits a pass, passes
    whose digit is the same for every key skipped (O(n)); qsort below 64 entries
    (or without memory for the radix sort's buffer)."""
    cdef HK *tmp
    cdef HK *src = a
    cdef HK *dst
    cdef HK *sw
    cdef int64_t cnt[2048]
    cdef int64_t i, acc, c
    cdef int shift
    cdef uint64_t dg, first
    cdef bint same
    if n < 64:
        qsort(a, n, sizeof(HK), _cmp_hk)
        return
    tmp = <HK *> scratch_malloc(n * sizeof(HK))
    if tmp == NULL:
        qsort(a, n, sizeof(HK), _cmp_hk)
        return
    dst = tmp
    for shift in range(0, 64, 11):
        memset(cnt, 0, sizeof(cnt))
        first = (<uint64_t> src[0].key >> shift) & 2047
        same = True
        for i in range(n):
            dg = (<uint64_t> src[i].key >> shift) & 2047
            cnt[dg] += 1
            if dg != first:
                same = False
        if same:
            continue
        acc = 0
        for i in range(2048):
            c = cnt[i]
            cnt[i] = acc
            acc += c
        for i in range(n):
            dg = (<uint64_t> src[i].key >> shift) & 2047
            dst[cnt[dg]] = src[i]
            cnt[dg] += 1
        sw = src
        src = dst
        dst = sw
    if src != a:
        memcpy(a, src, n * sizeof(HK))
    scratch_free(tmp)


cdef inline bint _same_lists(const int32_t *occ_a, const int32_t *occ_b, int32_t n,
                             const int32_t *cluster, int64_t base) noexcept nogil:
    cdef int32_t i
    for i in range(n):
        if cluster[base + occ_a[i]] != cluster[base + occ_b[i]]:
            return False
    return True


cdef int64_t class_pair_keys(const Topic *t, const int32_t *rep, int32_t nc, HK *keys) noexcept nogil:
    """For each class (its representative document rep[ci]), a key per pair of its
    X clusters (type 0) and per pair of its reference clusters (type 1, bit 62),
    sorted; returns their number."""
    cdef int64_t pos = 0
    cdef int32_t ci, a, i1, i2, c1, c2
    for ci in range(nc):
        a = rep[ci]
        for i1 in range(t.kx[a]):
            c1 = t.xcv[t.xptr[a] + i1]
            for i2 in range(i1 + 1, t.kx[a]):
                c2 = t.xcv[t.xptr[a] + i2]
                keys[pos].key = ((<int64_t> c1) << 31) | c2
                keys[pos].idx = ci
                pos += 1
        for i1 in range(t.kg[a]):
            c1 = t.gcv[t.gptr[a] + i1]
            for i2 in range(i1 + 1, t.kg[a]):
                c2 = t.gcv[t.gptr[a] + i2]
                keys[pos].key = (1LL << 62) | ((<int64_t> c1) << 31) | c2
                keys[pos].idx = ci
                pos += 1
    _sort_hk(keys, pos)
    return pos


cdef int32_t org_classes(const Topic *t, bint need_reference, const int32_t *xc, const int32_t *gc,
                         HK *hk, int32_t *rep, int64_t *cnt) noexcept nogil:
    """The classes of the documents with several memberships (on side x, and on
    the reference when ``need_reference``; simple documents excluded): documents
    with the same cluster lists on both sides, found by a hash of the lists and
    then compared.  Writes each class's representative (its first document in
    hash order) to rep[] and its size to cnt[] (hk: scratch of one entry per
    such document); returns the number of classes."""
    cdef int64_t i, j, lo, hi
    cdef int32_t k, nm = 0, nc = 0, a, i1, j0
    cdef uint64_t h
    for k in range(t.D):
        if t.kx[k] == 0 or (t.kx[k] == 1 and t.kg[k] <= 1) or (need_reference and t.kg[k] == 0):
            continue
        h = 1469598103934665603ULL ^ <uint64_t> t.kx[k]
        for i1 in range(t.kx[k]):
            h = (h ^ <uint64_t> t.xcv[t.xptr[k] + i1]) * 1099511628211ULL
        h = (h ^ (<uint64_t> t.kg[k] << 32)) * 1099511628211ULL
        for i1 in range(t.kg[k]):
            h = (h ^ <uint64_t> t.gcv[t.gptr[k] + i1]) * 1099511628211ULL
        hk[nm].key = <int64_t> (h >> 1)
        hk[nm].idx = k
        nm += 1
    _sort_hk(hk, nm)
    lo = 0
    while lo < nm:
        hi = lo
        while hi < nm and hk[hi].key == hk[lo].key:
            hi += 1
        # one hash: usually one class; compare the lists to be sure
        j0 = nc
        for i in range(lo, hi):
            k = hk[i].idx
            for j in range(j0, nc + 1):
                if j == nc:
                    rep[nc] = k
                    cnt[nc] = 1
                    nc += 1
                    break
                a = rep[j]
                if (t.kx[a] == t.kx[k] and t.kg[a] == t.kg[k]
                        and _same_lists(t.xocc + t.xptr[a], t.xocc + t.xptr[k], t.kx[k], xc, t.xa)
                        and _same_lists(t.gocc + t.gptr[a], t.gocc + t.gptr[k], t.kg[k], gc, t.ga)):
                    cnt[j] += 1
                    break
        lo = hi
    return nc


# ---------------------------------------------------------------------------
# the entry points' checks
# ---------------------------------------------------------------------------
cdef enum:
    SMALL_CLUSTER = 64      # clusters checked for repeated documents in a small hash set
    SMALL_SET = 256         # its slots (a power of two, >= 2 SMALL_CLUSTER)


cdef int _check_side(Side s, bint with_levels, int64_t n_docs, int64_t ntab, str fn,
                     str side) except -1:
    """The memory preconditions of one side past its offsets (ValueError):
    doc/level/cluster of one length (level not read unless ``with_levels``: the
    clusters stand for the levels); ``0 <= doc < n_docs``; per topic, levels and
    clusters start at 0 and rise by 0 or 1 from one occurrence to the next
    (sorted, consecutive), a new level starts a new cluster, and a document occurs
    at most once per cluster: the first SMALL_CLUSTER occurrences of a cluster in
    a small hash set (its slots stamped with the cluster), the rest with a table
    of the documents' last cluster (``ntab`` entries, made when a cluster first
    needs it)."""
    cdef const int64_t[::1] ptr = s.ptr
    cdef const int32_t[::1] doc = s.doc
    cdef const int32_t[::1] cluster = s.cluster
    cdef const int32_t[::1] level = s.level if with_levels else s.cluster
    cdef Py_ssize_t nt = ptr.shape[0] - 1, ti
    cdef int64_t i, j, a, b, cs = 0, gc = 0
    cdef int32_t d, dl, dc
    cdef int64_t[::1] seen = None
    cdef bint have_seen = False
    cdef int64_t hst[SMALL_SET]
    cdef int32_t hdoc[SMALL_SET]
    cdef uint32_t h
    for j in range(SMALL_SET):
        hst[j] = -1
    if with_levels:
        check_same_len(level.shape[0], doc.shape[0], fn, f"{side}.level and {side}.doc")
    check_same_len(cluster.shape[0], doc.shape[0], fn, f"{side}.cluster and {side}.doc")
    for ti in range(nt):
        a = ptr[ti]
        b = ptr[ti + 1]
        for i in range(a, b):
            d = doc[i]
            if d < 0 or d >= n_docs or d >= ntab:
                raise ValueError(f"{fn}: {side}.doc[{i}] = {d} is not a document code 0..{n_docs - 1}")
            if i == a:
                if level[i] != 0 or cluster[i] != 0:
                    raise ValueError(f"{fn}: topic {ti} of {side} must start at level 0, cluster 0")
                gc += 1
                cs = i
            else:
                dl = level[i] - level[i - 1]
                dc = cluster[i] - cluster[i - 1]
                if dl < 0 or dl > 1 or dc < 0 or dc > 1 or (dl == 1 and dc == 0):
                    raise ValueError(f"{fn}: {side} occurrences of topic {ti} are not sorted by "
                                     "(level, cluster) with consecutive indices")
                if dc:
                    gc += 1
                    cs = i
            if i - cs < SMALL_CLUSTER:
                h = ((<uint32_t> d * 2654435761U) >> 24) & (SMALL_SET - 1)
                while hst[h] == gc:
                    if hdoc[h] == d:
                        raise ValueError(f"{fn}: document {d} occurs twice in one cluster of {side} topic {ti}")
                    h = (h + 1) & (SMALL_SET - 1)
                hst[h] = gc
                hdoc[h] = d
                continue
            if not have_seen:
                seen = np.full(ntab, -1, dtype=np.int64)
                have_seen = True
            if i - cs == SMALL_CLUSTER:
                # (the cluster's first occurrences, distinct)
                for j in range(cs, i):
                    seen[doc[j]] = gc
            if seen[d] == gc:
                raise ValueError(f"{fn}: document {d} occurs twice in one cluster of {side} topic {ti}")
            seen[d] = gc
    return 0


cdef int64_t check_sides(Side x, Side g, bint with_levels, int64_t n_docs, Py_ssize_t n_out,
                         str fn) except -1:
    """Checks both sides (``x.ptr`` and ``g.ptr``: CSR offsets of one topic count,
    from 0, non-decreasing, within their sides' occurrences; then _check_side) and
    that an output of ``n_out`` entries holds every topic; returns the size of the
    document tables: the largest document code + 1 (at most n_docs)."""
    cdef Py_ssize_t nt, ti
    cdef int64_t i, ntab = 0
    cdef const int32_t[::1] xd
    cdef const int32_t[::1] gd
    if x is None or g is None:
        raise TypeError(f"{fn}: x and g must be Side objects, not None")
    nt = check_csr(x.ptr, x.doc.shape[0], -1, fn, "x.ptr")
    check_csr(g.ptr, g.doc.shape[0], nt, fn, "g.ptr")
    check_min_len(n_out, nt, fn, "the output")
    if n_docs < 0 or n_docs > 2147483647:
        raise ValueError(f"{fn}: n_docs must be in 0..2**31 - 1, got {n_docs}")
    xd = x.doc
    gd = g.doc
    for i in range(x.ptr[nt]):
        if xd[i] >= ntab:
            ntab = xd[i] + 1
    for i in range(g.ptr[nt]):
        if gd[i] >= ntab:
            ntab = gd[i] + 1
    if ntab > n_docs:
        raise ValueError(f"{fn}: document code {ntab - 1} is not below n_docs={n_docs}")
    _check_side(x, with_levels, n_docs, ntab, fn, "x")
    _check_side(g, with_levels, n_docs, ntab, fn, "g")
    for ti in range(nt):
        # one topic's occurrences (both sides) index int32 scratch arrays
        if (x.ptr[ti + 1] - x.ptr[ti]) + (g.ptr[ti + 1] - g.ptr[ti]) > 2147483600:
            raise ValueError(f"{fn}: topic {ti} has too many occurrences")
    return ntab


# ---------------------------------------------------------------------------
# the scratch cache
# ---------------------------------------------------------------------------
if irs_scratch_init() != 0:          # the cache's lock around fork (irs_scratch.h)
    raise ImportError("irscore._org_core: pthread_atfork failed")


def release_scratch():
    """Free the scratch blocks the organization kernels keep for their next call
    (at most 384 MiB; see irs_scratch.h).  Only memory is given back: results
    never depend on whether a block was reused."""
    irs_scratch_release()


def _scratch_test_mode(bint on):
    """Test hook: on, every freed scratch block is cached (not only those of
    256 KiB or more) and a reused block is filled with 0xA5 bytes; off, the
    defaults.  Either way the cache is emptied first."""
    irs_scratch_configure(0 if on else IRS_SCRATCH_MIN, 1 if on else 0)
