"""Reliability & Sensitivity kernels (Amigo, Gonzalo, Verdejo, SIGIR 2013; docs/reliability_sensitivity.md).

An organization side is given as CSR arrays over all topics:

- ``ptr[t]..ptr[t+1]``: the occurrences of topic ``t``;
- ``doc[i]``: global document code (``0 <= doc < n_docs``; the same code on both sides
  means the same document of the same topic);
- ``level[i]``: topic-local level index, ``0`` = highest priority, consecutive;
- ``cluster[i]``: topic-local cluster index, consecutive, numbered in level order.

Occurrences are sorted by (level, cluster) and a document occurs at most once per
cluster.  Every entry point checks all of this itself (``ValueError``), whatever
the caller checked, before it touches memory.  Every function scores the side
``x`` against the reference side ``g``: called as (system, gold) it gives
Reliability, as (gold, system) Sensitivity.

Complexity per topic, with N occurrences, L reference levels and m *multi* documents
(documents with more than one membership on either side; all others are *simple*):

- priority: O(N log L) for the pairs of simple documents (weighted dominance count:
  levels in order, Fenwick tree over the reference levels); each multi document
  against the simple ones by 2-D prefix sums over the at most (2|A|+1)(2|B|+1)
  rectangles where its relation counts are constant (A, B: its levels on the two
  sides; a document whose grid would outgrow the topic is scanned instead,
  O(N log |B|)); pairs of two multi documents one document pair at a time: O(m^2);
- relatedness and extended BCubed: O(N) over cluster memberships (contingency
  counts) plus the pairs of multi documents inside one cluster.
"""
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memset
from libc.math cimport NAN, isnan

import numpy as np
from irscore._common cimport fenwick_add, fenwick_prefix


cdef struct Topic:
    # local view of one topic: documents renumbered 0..D-1
    int64_t xa, xb, ga, gb
    int32_t nx, ng, D, LX, LG, CX, CG
    int32_t *gid       # local -> global doc code
    int32_t *kx        # memberships on side x
    int32_t *kg        # memberships on side g
    int32_t *xptr      # per local doc: CSR into xocc (occurrence offsets from xa), D+1
    int32_t *xocc
    int32_t *gptr
    int32_t *gocc


cdef struct Work:
    int32_t *loc       # global doc -> local id, -1 (n_docs)
    int32_t *gid
    int32_t *kx
    int32_t *kg
    int32_t *xptr
    int32_t *xocc
    int32_t *gptr
    int32_t *gocc
    int32_t *fill
    double *wl         # per x level: weight of one occurrence
    double *fl         # per x level: wl / (1 - W(level)) (0 if no other level and no tail)
    int32_t *neq       # per x level: occurrences
    double *fen_f      # Fenwick tree over reference levels (+ tail)
    double *fen_g
    double *cnt        # per reference cluster
    int32_t *touched
    int32_t *multi
    int32_t *mark
    int oom            # set when a scratch allocation inside a topic failed


cdef inline void _free_work(Work *w) noexcept nogil:
    free(w.loc); free(w.gid); free(w.kx); free(w.kg)
    free(w.xptr); free(w.xocc); free(w.gptr); free(w.gocc); free(w.fill)
    free(w.wl); free(w.fl); free(w.neq); free(w.fen_f); free(w.fen_g)
    free(w.cnt); free(w.touched); free(w.multi); free(w.mark)


cdef int _alloc_work(Work *w, int64_t n_docs, int64_t maxocc) noexcept nogil:
    cdef int64_t i
    cdef int64_t m = maxocc + 2
    w.oom = 0
    w.loc = <int32_t *> malloc((n_docs + 1) * sizeof(int32_t))
    w.gid = <int32_t *> malloc(m * sizeof(int32_t))
    w.kx = <int32_t *> malloc(m * sizeof(int32_t))
    w.kg = <int32_t *> malloc(m * sizeof(int32_t))
    w.xptr = <int32_t *> malloc((m + 1) * sizeof(int32_t))
    w.xocc = <int32_t *> malloc(m * sizeof(int32_t))
    w.gptr = <int32_t *> malloc((m + 1) * sizeof(int32_t))
    w.gocc = <int32_t *> malloc(m * sizeof(int32_t))
    w.fill = <int32_t *> malloc(m * sizeof(int32_t))
    w.wl = <double *> malloc(m * sizeof(double))
    w.fl = <double *> malloc(m * sizeof(double))
    w.neq = <int32_t *> malloc(m * sizeof(int32_t))
    w.fen_f = <double *> malloc((m + 1) * sizeof(double))
    w.fen_g = <double *> malloc((m + 1) * sizeof(double))
    w.cnt = <double *> calloc(m, sizeof(double))
    w.touched = <int32_t *> malloc(m * sizeof(int32_t))
    w.multi = <int32_t *> malloc(m * sizeof(int32_t))
    w.mark = <int32_t *> malloc(m * sizeof(int32_t))
    if (w.loc == NULL or w.gid == NULL or w.kx == NULL or w.kg == NULL or w.xptr == NULL
            or w.xocc == NULL or w.gptr == NULL or w.gocc == NULL or w.fill == NULL
            or w.wl == NULL or w.fl == NULL or w.neq == NULL or w.fen_f == NULL
            or w.fen_g == NULL or w.cnt == NULL or w.touched == NULL or w.multi == NULL
            or w.mark == NULL):
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
                       const int32_t[::1] g_cluster) noexcept nogil:
    cdef int64_t i
    cdef int32_t d, k, D = 0
    t.xa = xa; t.xb = xb; t.ga = ga; t.gb = gb
    t.nx = <int32_t> (xb - xa)
    t.ng = <int32_t> (gb - ga)
    t.LX = x_level[xb - 1] + 1 if xb > xa else 0
    t.LG = g_level[gb - 1] + 1 if gb > ga else 0
    t.CX = x_cluster[xb - 1] + 1 if xb > xa else 0
    t.CG = g_cluster[gb - 1] + 1 if gb > ga else 0
    t.gid = w.gid; t.kx = w.kx; t.kg = w.kg
    t.xptr = w.xptr; t.xocc = w.xocc; t.gptr = w.gptr; t.gocc = w.gocc
    for i in range(xa, xb):
        D = _local_doc(w, x_doc[i], D)
        w.kx[w.loc[x_doc[i]]] += 1
    for i in range(ga, gb):
        D = _local_doc(w, g_doc[i], D)
        w.kg[w.loc[g_doc[i]]] += 1
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
        k = w.loc[x_doc[i]]
        w.xocc[w.fill[k]] = <int32_t> (i - xa)
        w.fill[k] += 1
    for k in range(D):
        w.fill[k] = w.gptr[k]
    for i in range(ga, gb):
        k = w.loc[g_doc[i]]
        w.gocc[w.fill[k]] = <int32_t> (i - ga)
        w.fill[k] += 1


cdef inline void _release_topic(Topic *t, Work *w) noexcept nogil:
    cdef int32_t k
    for k in range(t.D):
        w.loc[w.gid[k]] = -1


cdef inline int64_t _count_above(const int32_t *occ_a, int32_t na, const int32_t *occ_b,
                                 int32_t nb, const int32_t *level, int64_t base,
                                 int32_t tail_a, int32_t tail_b) noexcept nogil:
    """Pairs (alpha in A, beta in B) with alpha strictly above beta (smaller level).

    A and B are sorted occurrence lists; ``tail_a``/``tail_b`` >= 0 replace an empty
    list by one virtual occurrence at that level (the long tail)."""
    cdef int64_t total = 0
    cdef int32_t ia = 0, ib, lb
    if na == 0 and tail_a < 0:
        return 0
    if nb == 0 and tail_b < 0:
        return 0
    if nb == 0:
        lb = tail_b
        if na == 0:
            return 1 if tail_a < lb else 0
        for ia in range(na):
            if level[base + occ_a[ia]] < lb:
                total += 1
        return total
    for ib in range(nb):
        lb = level[base + occ_b[ib]]
        if na == 0:
            if tail_a < lb:
                total += 1
            continue
        while ia < na and level[base + occ_a[ia]] < lb:
            ia += 1
        total += ia
    return total


cdef inline int64_t _cross(const int32_t *occ_a, int32_t na, const int32_t *occ_b, int32_t nb,
                           const int32_t *level, int64_t base, const double *wl,
                           const double *fl, double *W) noexcept nogil:
    """Pairs (alpha in A, beta in B) with alpha on a strictly higher level than beta,
    and their weight sum  sum fl[alpha] wl[beta] + wl[alpha] fl[beta]  (sorted lists)."""
    cdef int64_t total = 0
    cdef int32_t ia = 0, ib, lb, la
    cdef double sf = 0.0, sw = 0.0, acc = 0.0
    for ib in range(nb):
        lb = level[base + occ_b[ib]]
        while ia < na:
            la = level[base + occ_a[ia]]
            if la >= lb:
                break
            sf += fl[la]
            sw += wl[la]
            ia += 1
        total += ia
        acc += sf * wl[lb] + sw * fl[lb]
    W[0] = acc
    return total


cdef inline int32_t _intersect(const int32_t *occ_a, int32_t na, const int32_t *occ_b,
                               int32_t nb, const int32_t *cluster, int64_t base) noexcept nogil:
    """Number of clusters shared by two sorted occurrence lists."""
    cdef int32_t ia = 0, ib = 0, n = 0, ca, cb
    while ia < na and ib < nb:
        ca = cluster[base + occ_a[ia]]
        cb = cluster[base + occ_b[ib]]
        if ca == cb:
            n += 1
            ia += 1
            ib += 1
        elif ca < cb:
            ia += 1
        else:
            ib += 1
    return n


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


# ---------------------------------------------------------------------------
# pairs of two documents with several memberships
# ---------------------------------------------------------------------------
# A document is *simple* (one X occurrence, at most one reference occurrence),
# *L2* (two X occurrences, at most one reference occurrence), *K1* (one X
# occurrence, several reference ones) or *heavy* (the rest).  A document with no
# reference occurrence and no foreign tail relates to nothing (rg = 0).
#
# - K1 x K1: with one X occurrence each, rx = 1 when a is above b, and the pair
#   holds in the reference iff min G(a) < max G(b): a weighted dominance count
#   (levels in order, Fenwick tree over the reference levels), O(N log L).
# - L2 x L2 and heavy x L2: for a document a, the pair with an L2 document b
#   (X levels b1 <= b2, reference level gb) only depends on the cell of b1 and of
#   b2 among a's X levels and of gb among a's reference levels; a's sum over all
#   L2 documents is a combination of box sums of (wl[b1], fl[b1], wl[b2], fl[b2])
#   over (b1, b2, gb), answered offline as dominance sums: 3-D ones by divide and
#   conquer over b1 (merge by b2, Fenwick tree over gb), O((P + Q) log^2), the
#   others by a sweep, O((P + Q) log L).  A heavy document whose cell grid would
#   outgrow the L2 documents is matched against them one pair at a time.
# - heavy x heavy and heavy x K1: one pair at a time (O(h (h + k1))).

cdef inline double _pair_term(Topic *t, Work *w, int32_t a, int32_t b, const int32_t *lx,
                              const int32_t *lg, int32_t tail) noexcept nogil:
    """The priority relations "a above b" of two documents, weighted, times the
    probability that they hold in the reference (min(rg, rx) / rx)."""
    cdef double W = 0.0, rx, rg
    rx = <double> _cross(t.xocc + t.xptr[a], t.kx[a], t.xocc + t.xptr[b], t.kx[b],
                         lx, t.xa, w.wl, w.fl, &W)
    if rx > 0:
        rg = <double> _count_above(t.gocc + t.gptr[a], t.kg[a], t.gocc + t.gptr[b],
                                   t.kg[b], lg, t.ga, tail, tail)
        return (rg if rg < rx else rx) / rx * W
    return 0.0


cdef struct DQuery:
    int32_t u          # b1 <= u
    int32_t v          # b2 <= v
    int32_t z          # LG - gb <= z
    int32_t kind       # 0: 3-D, 1: b1 and gb only, 2: b2 and gb only
    double c[4]        # coefficients of (wl[b1], fl[b1], wl[b2], fl[b2])


cdef struct Dom:
    int64_t np_, nq, cap
    int32_t *px
    int32_t *py
    int32_t *pz
    double *pv         # 4 per point
    DQuery *q
    double *fen        # 4 per node
    int32_t fsize
    int64_t *ord
    int64_t *tmp
    int32_t *qy        # y of every CDQ item (points then 3-D queries)
    int32_t *qz
    int64_t nq3
    int64_t *q3        # index into q of the 3-D queries
    double acc


cdef inline void _f4_add(double *tr, int32_t size, int32_t i, const double *v) noexcept nogil:
    i += 1
    while i <= size:
        tr[4 * (i - 1)] += v[0]
        tr[4 * (i - 1) + 1] += v[1]
        tr[4 * (i - 1) + 2] += v[2]
        tr[4 * (i - 1) + 3] += v[3]
        i += i & (-i)


cdef inline void _f4_clear(double *tr, int32_t size, int32_t i) noexcept nogil:
    i += 1
    while i <= size:
        tr[4 * (i - 1)] = 0.0
        tr[4 * (i - 1) + 1] = 0.0
        tr[4 * (i - 1) + 2] = 0.0
        tr[4 * (i - 1) + 3] = 0.0
        i += i & (-i)


cdef inline double _f4_dot(const double *tr, int32_t i, const double *c) noexcept nogil:
    """c . (sum of the positions [0, i))."""
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    while i > 0:
        s0 += tr[4 * (i - 1)]
        s1 += tr[4 * (i - 1) + 1]
        s2 += tr[4 * (i - 1) + 2]
        s3 += tr[4 * (i - 1) + 3]
        i -= i & (-i)
    return c[0] * s0 + c[1] * s1 + c[2] * s2 + c[3] * s3


cdef int _dom_push(Dom *dm, int32_t u, int32_t v, int32_t z, int32_t kind,
                   const double *c) noexcept nogil:
    cdef DQuery *nq
    cdef int64_t cap
    if dm.nq == dm.cap:
        cap = 2 * dm.cap + 64
        nq = <DQuery *> realloc(dm.q, cap * sizeof(DQuery))
        if nq == NULL:
            return -1
        dm.q = nq
        dm.cap = cap
    nq = dm.q + dm.nq
    nq.u = u
    nq.v = v
    nq.z = z
    nq.kind = kind
    nq.c[0] = c[0]
    nq.c[1] = c[1]
    nq.c[2] = c[2]
    nq.c[3] = c[3]
    dm.nq += 1
    return 0


cdef void _dom_sweep(Dom *dm, int32_t LX, int32_t kind, int64_t *pcnt, int64_t *qcnt,
                     int64_t *pidx, int64_t *qidx) noexcept nogil:
    """2-D (and 1-D) queries of one kind: a sweep over the key (b1 for kind 1, b2
    for kind 2) with a Fenwick tree over the reference level.  pcnt/qcnt: LX + 2
    entries; pidx: np_ entries; qidx: nq entries."""
    cdef int64_t i, j
    cdef int32_t x, key
    cdef DQuery *q
    for x in range(LX + 2):
        pcnt[x] = 0
        qcnt[x] = 0
    for i in range(dm.np_):
        key = dm.px[i] if kind == 1 else dm.py[i]
        pcnt[key + 1] += 1
    for i in range(dm.nq):
        q = dm.q + i
        if q.kind == kind:
            key = q.u if kind == 1 else q.v
            qcnt[key + 1] += 1
    for x in range(LX + 1):
        pcnt[x + 1] += pcnt[x]
        qcnt[x + 1] += qcnt[x]
    for i in range(dm.np_):
        key = dm.px[i] if kind == 1 else dm.py[i]
        pidx[pcnt[key]] = i
        pcnt[key] += 1
    for i in range(dm.nq):
        q = dm.q + i
        if q.kind == kind:
            key = q.u if kind == 1 else q.v
            qidx[qcnt[key]] = i
            qcnt[key] += 1
    # pcnt[x] / qcnt[x] now end the bucket of key x
    i = 0
    j = 0
    for x in range(LX + 1):
        while i < pcnt[x]:
            _f4_add(dm.fen, dm.fsize, dm.pz[pidx[i]], dm.pv + 4 * pidx[i])
            i += 1
        while j < qcnt[x]:
            q = dm.q + qidx[j]
            dm.acc += _f4_dot(dm.fen, q.z + 1, q.c)
            j += 1
    for i in range(dm.np_):
        _f4_clear(dm.fen, dm.fsize, dm.pz[i])


cdef void _dom_cdq(Dom *dm, int64_t lo, int64_t hi) noexcept nogil:
    """Points (items < np_) before 3-D queries in dm.ord[lo:hi] (sorted by b1 / u,
    points first on ties): adds every query's dominance sum to dm.acc, and leaves
    dm.ord[lo:hi] sorted by b2 / v."""
    cdef int64_t mid, i, j, a, b, o, it, p
    cdef int64_t NP = dm.np_
    cdef DQuery *q
    if hi - lo < 2:
        return
    mid = (lo + hi) >> 1
    _dom_cdq(dm, lo, mid)
    _dom_cdq(dm, mid, hi)
    i = lo
    for j in range(mid, hi):
        it = dm.ord[j]
        if it < NP:
            continue
        while i < mid and dm.qy[dm.ord[i]] <= dm.qy[it]:
            p = dm.ord[i]
            if p < NP:
                _f4_add(dm.fen, dm.fsize, dm.qz[p], dm.pv + 4 * p)
            i += 1
        q = dm.q + dm.q3[it - NP]
        dm.acc += _f4_dot(dm.fen, dm.qz[it] + 1, q.c)
    for j in range(lo, i):
        p = dm.ord[j]
        if p < NP:
            _f4_clear(dm.fen, dm.fsize, dm.qz[p])
    a = lo
    b = mid
    o = lo
    while a < mid and b < hi:
        if dm.qy[dm.ord[a]] <= dm.qy[dm.ord[b]]:
            dm.tmp[o] = dm.ord[a]
            a += 1
        else:
            dm.tmp[o] = dm.ord[b]
            b += 1
        o += 1
    while a < mid:
        dm.tmp[o] = dm.ord[a]
        a += 1
        o += 1
    while b < hi:
        dm.tmp[o] = dm.ord[b]
        b += 1
        o += 1
    for o in range(lo, hi):
        dm.ord[o] = dm.tmp[o]


cdef int _dom_solve(Dom *dm, int32_t LX) noexcept nogil:
    """Answers every query pushed (adds to dm.acc); -1 if memory runs out."""
    cdef int64_t i, n, nkey, key
    cdef int64_t *pcnt = NULL
    cdef int64_t *qcnt = NULL
    cdef int64_t *pidx = NULL
    cdef int64_t *qidx = NULL
    cdef int64_t *cnt = NULL
    cdef int rc = 0
    if dm.np_ == 0 or dm.nq == 0:
        return 0
    pcnt = <int64_t *> malloc((LX + 2) * sizeof(int64_t))
    qcnt = <int64_t *> malloc((LX + 2) * sizeof(int64_t))
    pidx = <int64_t *> malloc(dm.np_ * sizeof(int64_t))
    qidx = <int64_t *> malloc(dm.nq * sizeof(int64_t))
    if pcnt == NULL or qcnt == NULL or pidx == NULL or qidx == NULL:
        rc = -1
    else:
        _dom_sweep(dm, LX, 1, pcnt, qcnt, pidx, qidx)
        _dom_sweep(dm, LX, 2, pcnt, qcnt, pidx, qidx)
    free(pcnt); free(qcnt); free(pidx); free(qidx)
    if rc != 0:
        return rc
    # 3-D queries: items 0..np_-1 are the points, np_.. the queries
    dm.nq3 = 0
    for i in range(dm.nq):
        if dm.q[i].kind == 0:
            dm.nq3 += 1
    if dm.nq3 == 0:
        return 0
    n = dm.np_ + dm.nq3
    nkey = 2 * (<int64_t> LX + 1)
    dm.q3 = <int64_t *> malloc(dm.nq3 * sizeof(int64_t))
    dm.ord = <int64_t *> malloc(n * sizeof(int64_t))
    dm.tmp = <int64_t *> malloc(n * sizeof(int64_t))
    dm.qy = <int32_t *> malloc(n * sizeof(int32_t))
    dm.qz = <int32_t *> malloc(n * sizeof(int32_t))
    cnt = <int64_t *> calloc(nkey + 1, sizeof(int64_t))
    if (dm.q3 == NULL or dm.ord == NULL or dm.tmp == NULL or dm.qy == NULL or dm.qz == NULL
            or cnt == NULL):
        free(cnt)
        return -1
    n = 0
    for i in range(dm.nq):
        if dm.q[i].kind == 0:
            dm.q3[n] = i
            n += 1
    for i in range(dm.np_):
        dm.qy[i] = dm.py[i]
        dm.qz[i] = dm.pz[i]
        cnt[2 * dm.px[i] + 1] += 1
    for i in range(dm.nq3):
        dm.qy[dm.np_ + i] = dm.q[dm.q3[i]].v
        dm.qz[dm.np_ + i] = dm.q[dm.q3[i]].z
        cnt[2 * dm.q[dm.q3[i]].u + 2] += 1
    for key in range(nkey):
        cnt[key + 1] += cnt[key]
    # counting sort by (b1 / u, points first)
    for i in range(dm.np_):
        key = 2 * dm.px[i]
        dm.ord[cnt[key]] = i
        cnt[key] += 1
    for i in range(dm.nq3):
        key = 2 * dm.q[dm.q3[i]].u + 1
        dm.ord[cnt[key]] = dm.np_ + i
        cnt[key] += 1
    free(cnt)
    _dom_cdq(dm, 0, dm.np_ + dm.nq3)
    return 0


cdef inline void _dom_free(Dom *dm) noexcept nogil:
    free(dm.px); free(dm.py); free(dm.pz); free(dm.pv); free(dm.q); free(dm.fen)
    free(dm.ord); free(dm.tmp); free(dm.qy); free(dm.qz); free(dm.q3)


cdef struct Scratch:
    # per-document scratch of _doc_queries
    int32_t *xv        # distinct X levels (1..d)
    double *xc         # occurrences, fl and wl sums on each
    double *xf
    double *xw
    double *rr         # per X region: occurrences, fl and wl sums above / below it
    double *sf
    double *sw
    int32_t *th        # X thresholds (prefix form b <= th)
    int32_t *gv        # distinct reference levels (1..e)
    double *gc
    double *ss         # per reference region: occurrences above / below it
    int32_t *gt        # reference thresholds (suffix form gb >= gt)
    double *grid
    int64_t ncell


cdef inline int64_t _grid_cells(Topic *t, int32_t k, const int32_t *lx, const int32_t *lg) noexcept nogil:
    """Cells of the corner grid of document k: (d + 2)^2 (e + 2)."""
    cdef int32_t i, d = 0, e = 0, last = -1, lvl
    for i in range(t.kx[k]):
        lvl = lx[t.xa + t.xocc[t.xptr[k] + i]]
        if lvl != last:
            d += 1
            last = lvl
    last = -1
    for i in range(t.kg[k]):
        lvl = lg[t.ga + t.gocc[t.gptr[k] + i]]
        if lvl != last:
            e += 1
            last = lvl
    if e == 0:
        e = 1
    return (<int64_t> d + 2) * (<int64_t> d + 2) * (<int64_t> e + 2)


cdef int _doc_queries(Dom *dm, Topic *t, Work *w, int32_t k, bint both, const int32_t *lx,
                      const int32_t *lg, Scratch *sc) noexcept nogil:
    """Push the dominance queries giving, over every L2 document b, the pairs
    "k above b" and (both = 1) "b above k".  -1 if memory runs out."""
    cdef int32_t p = t.kx[k], d = 0, e = 0, i, j, i1, i2, kk, lvl, LX = t.LX, LG = t.LG
    cdef int32_t u, v, tq, kind, orient, sx, sy, sz, D2, E2
    cdef int64_t cell, ncell
    cdef double rx, rg, f, sign
    cdef double c[4]
    cdef double *gr = sc.grid
    # distinct X levels of k, with the weights of its occurrences on each
    for i in range(p):
        lvl = lx[t.xa + t.xocc[t.xptr[k] + i]]
        if d == 0 or sc.xv[d] != lvl:
            d += 1
            sc.xv[d] = lvl
            sc.xc[d] = 0.0
            sc.xf[d] = 0.0
            sc.xw[d] = 0.0
        sc.xc[d] += 1.0
        sc.xf[d] += w.fl[lvl]
        sc.xw[d] += w.wl[lvl]
    # reference levels (no reference occurrence: one virtual one in the tail, LG)
    if t.kg[k] > 0:
        for i in range(t.kg[k]):
            lvl = lg[t.ga + t.gocc[t.gptr[k] + i]]
            if e == 0 or sc.gv[e] != lvl:
                e += 1
                sc.gv[e] = lvl
                sc.gc[e] = 0.0
            sc.gc[e] += 1.0
    else:
        e = 1
        sc.gv[1] = LG
        sc.gc[1] = 1.0
    D2 = d + 2
    E2 = e + 2
    ncell = <int64_t> D2 * D2 * E2
    for orient in range(2 if both else 1):
        # X region i (0..d) and reference region kk (0..e):
        #   orient 0 (k above b): b in (xv[i], xv[i+1]], gb in (gv[kk], gv[kk+1]];
        #     counts of k's occurrences below b: levels xv[1..i], gv[1..kk]
        #   orient 1 (b above k): b in [xv[i], xv[i+1]), gb in [gv[kk], gv[kk+1]);
        #     counts of k's occurrences below b... above b: levels xv[i+1..d], gv[kk+1..e]
        if orient == 0:
            sc.rr[0] = 0.0
            sc.sf[0] = 0.0
            sc.sw[0] = 0.0
            for i in range(1, d + 1):
                sc.rr[i] = sc.rr[i - 1] + sc.xc[i]
                sc.sf[i] = sc.sf[i - 1] + sc.xf[i]
                sc.sw[i] = sc.sw[i - 1] + sc.xw[i]
                sc.th[i] = sc.xv[i]
            sc.ss[0] = 0.0
            sc.gt[0] = 0
            for kk in range(1, e + 1):
                sc.ss[kk] = sc.ss[kk - 1] + sc.gc[kk]
                sc.gt[kk] = sc.gv[kk] + 1
        else:
            sc.rr[d] = 0.0
            sc.sf[d] = 0.0
            sc.sw[d] = 0.0
            for i in range(d - 1, -1, -1):
                sc.rr[i] = sc.rr[i + 1] + sc.xc[i + 1]
                sc.sf[i] = sc.sf[i + 1] + sc.xf[i + 1]
                sc.sw[i] = sc.sw[i + 1] + sc.xw[i + 1]
            for i in range(1, d + 1):
                sc.th[i] = sc.xv[i] - 1
            sc.ss[e] = 0.0
            for kk in range(e - 1, -1, -1):
                sc.ss[kk] = sc.ss[kk + 1] + sc.gc[kk + 1]
            sc.gt[0] = 0
            for kk in range(1, e + 1):
                sc.gt[kk] = sc.gv[kk]
        sc.th[0] = -1
        sc.th[d + 1] = LX
        sc.gt[e + 1] = LG + 1
        for cell in range(4 * ncell):
            gr[cell] = 0.0
        # boxes: X regions i1 <= i2 (b1 <= b2), reference region kk
        for i1 in range(d + 1):
            for i2 in range(i1, d + 1):
                rx = sc.rr[i1] + sc.rr[i2]
                if rx == 0.0:
                    continue
                for kk in range(e + 1):
                    rg = sc.ss[kk]
                    if rg == 0.0:
                        continue
                    f = (rg if rg < rx else rx) / rx
                    c[0] = f * sc.sf[i1]
                    c[1] = f * sc.sw[i1]
                    c[2] = f * sc.sf[i2]
                    c[3] = f * sc.sw[i2]
                    # inclusion-exclusion over the corners (prefix in b1, b2; suffix in gb)
                    for sx in range(i1, i1 + 2):
                        for sy in range(i2, i2 + 2):
                            for sz in range(kk, kk + 2):
                                # one minus sign per lower corner
                                if ((i1 + 1 - sx) + (i2 + 1 - sy) + (sz - kk)) % 2 == 0:
                                    sign = 1.0
                                else:
                                    sign = -1.0
                                cell = 4 * ((<int64_t> sx * D2 + sy) * E2 + sz)
                                gr[cell] += sign * c[0]
                                gr[cell + 1] += sign * c[1]
                                gr[cell + 2] += sign * c[2]
                                gr[cell + 3] += sign * c[3]
        # the corners as queries
        for i in range(1, d + 2):
            u = sc.th[i]
            if u < 0:
                continue
            for j in range(1, d + 2):
                v = sc.th[j]
                if v < 0:
                    continue
                for kk in range(e + 1):
                    tq = sc.gt[kk]
                    if tq > LG:
                        continue
                    cell = 4 * ((<int64_t> i * D2 + j) * E2 + kk)
                    if gr[cell] == 0.0 and gr[cell + 1] == 0.0 and gr[cell + 2] == 0.0 and gr[cell + 3] == 0.0:
                        continue
                    if v >= LX:
                        if u >= LX:
                            kind = 2  # gb alone
                        else:
                            kind = 1  # b1 <= u
                    elif u >= LX or u >= v:
                        kind = 2      # b1 <= b2 <= v
                    else:
                        kind = 0
                    if _dom_push(dm, u if u < LX else LX, v if v < LX else LX, LG - tq, kind,
                                 gr + cell) != 0:
                        return -1
    return 0


cdef double _multi_pairs(Topic *t, Work *w, const int32_t *xd, const int32_t *lx,
                         const int32_t *lg, bint foreign_tail) noexcept nogil:
    """Sum of the priority terms of every (ordered) pair of two documents with several
    memberships, each way (see above).  Sets ``w.oom`` (and returns 0) if memory runs
    out."""
    cdef int32_t k, a, b, l, tail = t.LG if foreign_tail else -1, LG = t.LG
    cdef int32_t maxkx = 2, maxkg = 1, size = t.LG + 1, gb, q
    cdef int64_t i, j, start, nl2 = 0, nhv = 0, nk1 = 0, ncell, maxcell = 0, xa = t.xa, ga = t.ga
    cdef double acc = 0.0, F, G
    cdef int32_t *l2 = NULL
    cdef int32_t *hv = NULL
    cdef int32_t *k1 = NULL
    cdef char *grid_ok = NULL
    cdef Dom dm
    cdef Scratch sc
    cdef int rc = 0
    memset(&dm, 0, sizeof(Dom))
    memset(&sc, 0, sizeof(Scratch))
    l2 = <int32_t *> malloc((t.D + 1) * sizeof(int32_t))
    hv = <int32_t *> malloc((t.D + 1) * sizeof(int32_t))
    k1 = <int32_t *> malloc((t.D + 1) * sizeof(int32_t))
    grid_ok = <char *> malloc((t.D + 1) * sizeof(char))
    if l2 == NULL or hv == NULL or k1 == NULL or grid_ok == NULL:
        rc = -1
    if rc == 0:
        for k in range(t.D):
            if t.kx[k] == 0 or (t.kx[k] == 1 and t.kg[k] <= 1):
                continue  # absent from x, or simple
            if t.kg[k] == 0 and not foreign_tail:
                continue  # relates to nothing in the reference
            if t.kx[k] == 2 and t.kg[k] <= 1:
                l2[nl2] = k
                nl2 += 1
            elif t.kx[k] == 1:
                k1[nk1] = k
                nk1 += 1
            else:
                hv[nhv] = k
                nhv += 1
            if t.kx[k] > maxkx:
                maxkx = t.kx[k]
            if t.kg[k] > maxkg:
                maxkg = t.kg[k]
        # --- K1 x K1: weighted dominance count -------------------------------
        if nk1 > 1:
            for i in range(size + 1):
                w.fen_f[i] = 0.0
                w.fen_g[i] = 0.0
            i = xa
            while i < t.xb:
                l = lx[i]
                start = i
                while i < t.xb and lx[i] == l:
                    k = w.loc[xd[i]]
                    if t.kx[k] == 1 and t.kg[k] >= 2:
                        q = lg[ga + t.gocc[t.gptr[k] + t.kg[k] - 1]]
                        F = fenwick_prefix(w.fen_f, q)
                        G = fenwick_prefix(w.fen_g, q)
                        acc += w.wl[l] * F + w.fl[l] * G
                    i += 1
                for j in range(start, i):
                    k = w.loc[xd[j]]
                    if t.kx[k] == 1 and t.kg[k] >= 2:
                        q = lg[ga + t.gocc[t.gptr[k]]]
                        fenwick_add(w.fen_f, size, q, w.fl[l])
                        fenwick_add(w.fen_g, size, q, w.wl[l])
        # --- heavy x heavy, heavy x K1: one pair at a time ----------------------
        for i in range(nhv):
            a = hv[i]
            for j in range(i, nhv):
                b = hv[j]
                acc += _pair_term(t, w, a, b, lx, lg, tail)
                if a != b:
                    acc += _pair_term(t, w, b, a, lx, lg, tail)
            for j in range(nk1):
                b = k1[j]
                acc += _pair_term(t, w, a, b, lx, lg, tail)
                acc += _pair_term(t, w, b, a, lx, lg, tail)
    # --- L2 x L2, heavy x L2: dominance sums --------------------------------------
    if rc == 0 and nl2 > 0:
        maxcell = 4 * 4 * 3
        for i in range(nhv + nk1):
            k = hv[i] if i < nhv else k1[i - nhv]
            ncell = _grid_cells(t, k, lx, lg)
            # a grid larger than the L2 documents: one pair at a time instead
            grid_ok[k] = ncell <= 4 * nl2 + 64
            if not grid_ok[k]:
                for j in range(nl2):
                    b = l2[j]
                    acc += _pair_term(t, w, k, b, lx, lg, tail)
                    acc += _pair_term(t, w, b, k, lx, lg, tail)
            elif ncell > maxcell:
                maxcell = ncell
        dm.np_ = nl2
        dm.fsize = size
        dm.px = <int32_t *> malloc(nl2 * sizeof(int32_t))
        dm.py = <int32_t *> malloc(nl2 * sizeof(int32_t))
        dm.pz = <int32_t *> malloc(nl2 * sizeof(int32_t))
        dm.pv = <double *> malloc(4 * nl2 * sizeof(double))
        dm.fen = <double *> calloc(4 * (<int64_t> size + 1), sizeof(double))
        sc.xv = <int32_t *> malloc((maxkx + 2) * sizeof(int32_t))
        sc.th = <int32_t *> malloc((maxkx + 2) * sizeof(int32_t))
        sc.xc = <double *> malloc(6 * (maxkx + 2) * sizeof(double))
        sc.gv = <int32_t *> malloc((maxkg + 2) * sizeof(int32_t))
        sc.gt = <int32_t *> malloc((maxkg + 2) * sizeof(int32_t))
        sc.gc = <double *> malloc(2 * (maxkg + 2) * sizeof(double))
        sc.grid = <double *> malloc(4 * maxcell * sizeof(double))
        if (dm.px == NULL or dm.py == NULL or dm.pz == NULL or dm.pv == NULL or dm.fen == NULL
                or sc.xv == NULL or sc.th == NULL or sc.xc == NULL or sc.gv == NULL
                or sc.gt == NULL or sc.gc == NULL or sc.grid == NULL):
            rc = -1
        else:
            sc.xf = sc.xc + (maxkx + 2)
            sc.xw = sc.xc + 2 * (maxkx + 2)
            sc.rr = sc.xc + 3 * (maxkx + 2)
            sc.sf = sc.xc + 4 * (maxkx + 2)
            sc.sw = sc.xc + 5 * (maxkx + 2)
            sc.ss = sc.gc + (maxkg + 2)
            for i in range(nl2):
                b = l2[i]
                dm.px[i] = lx[xa + t.xocc[t.xptr[b]]]
                dm.py[i] = lx[xa + t.xocc[t.xptr[b] + 1]]
                gb = lg[ga + t.gocc[t.gptr[b]]] if t.kg[b] == 1 else LG
                dm.pz[i] = LG - gb
                dm.pv[4 * i] = w.wl[dm.px[i]]
                dm.pv[4 * i + 1] = w.fl[dm.px[i]]
                dm.pv[4 * i + 2] = w.wl[dm.py[i]]
                dm.pv[4 * i + 3] = w.fl[dm.py[i]]
            for i in range(nl2):
                if _doc_queries(&dm, t, w, l2[i], False, lx, lg, &sc) != 0:
                    rc = -1
                    break
            for i in range(nhv + nk1):
                if rc != 0:
                    break
                k = hv[i] if i < nhv else k1[i - nhv]
                if grid_ok[k]:
                    if _doc_queries(&dm, t, w, k, True, lx, lg, &sc) != 0:
                        rc = -1
            if rc == 0:
                rc = _dom_solve(&dm, t.LX)
            acc += dm.acc
    free(l2); free(hv); free(k1); free(grid_ok)
    free(sc.xv); free(sc.th); free(sc.xc); free(sc.gv); free(sc.gt); free(sc.gc); free(sc.grid)
    _dom_free(&dm)
    if rc != 0:
        w.oom = 1
        return 0.0
    return acc


cdef double _priority(Topic *t, Work *w, const int32_t[::1] x_doc, const int32_t[::1] x_level,
                      const int32_t[::1] g_level, bint uniform, bint foreign_tail,
                      double Wt, double Wr, bint pairwise) noexcept nogil:
    cdef int64_t i, j, start, xa = t.xa, ga = t.ga
    cdef int32_t l, k, beta, a, b, tail_a, size = t.LG + 1, nm, qi, qj
    cdef double acc = 0.0, F, G, pt
    cdef int32_t *loc = w.loc
    cdef const int32_t *lxp = &x_level[0]
    cdef const int32_t *lgp = &g_level[0] if g_level.shape[0] > 0 else NULL
    # --- pairs of simple documents: weighted dominance count -------------------
    for k in range(size + 1):
        w.fen_f[k] = 0.0
        w.fen_g[k] = 0.0
    i = xa
    while i < t.xb:
        l = x_level[i]
        start = i
        while i < t.xb and x_level[i] == l:
            k = loc[x_doc[i]]
            if t.kx[k] == 1 and t.kg[k] <= 1:
                if t.kg[k] == 1:
                    beta = g_level[ga + t.gocc[t.gptr[k]]]
                elif foreign_tail:
                    beta = t.LG
                else:
                    beta = -1
                if beta >= 0:
                    F = fenwick_prefix(w.fen_f + 1, beta)
                    G = fenwick_prefix(w.fen_g + 1, beta)
                    acc += w.wl[l] * F + w.fl[l] * G
            i += 1
        for j in range(start, i):
            k = loc[x_doc[j]]
            if t.kx[k] == 1 and t.kg[k] <= 1:
                if t.kg[k] == 1:
                    beta = g_level[ga + t.gocc[t.gptr[k]]]
                elif foreign_tail:
                    beta = t.LG
                else:
                    continue
                fenwick_add(w.fen_f + 1, size, beta, w.fl[l])
                fenwick_add(w.fen_g + 1, size, beta, w.wl[l])
    # --- pairs of two documents with several memberships ----------------------
    nm = 0
    for k in range(t.D):
        if t.kx[k] > 0 and not (t.kx[k] == 1 and t.kg[k] <= 1):
            w.multi[nm] = k
            nm += 1
    tail_a = t.LG if foreign_tail else -1
    if pairwise:
        # the former quadratic enumeration, one document pair at a time (kept as
        # the tests' reference)
        for qi in range(nm):
            a = w.multi[qi]
            for qj in range(qi, nm):
                b = w.multi[qj]
                # a above b (for a == b: the document's own occurrences on two levels)
                acc += _pair_term(t, w, a, b, lxp, lgp, tail_a)
                if a != b:
                    acc += _pair_term(t, w, b, a, lxp, lgp, tail_a)
    elif nm > 0:
        acc += _multi_pairs(t, w, &x_doc[0], lxp, lgp, foreign_tail)
    # --- a document with several memberships against the simple ones ----------
    if nm > 0:
        acc += _multi_simple(t, w, x_doc, x_level, g_level, foreign_tail)
    # --- relations with the long tail -----------------------------------------
    if Wt > 0.0:
        for i in range(xa, t.xb):
            k = loc[x_doc[i]]
            l = x_level[i]
            pt = <double> (t.kg[k] if t.kg[k] < t.kx[k] else t.kx[k]) / <double> t.kx[k]
            acc += pt * (w.fl[l] * Wt + w.wl[l] * Wt / Wr)
    return acc


cdef inline bint _use_grid(int32_t kx, int32_t kg, int32_t nx) noexcept nogil:
    """Rectangle decomposition for a multi document unless its grid would outgrow a scan."""
    cdef int64_t cells = (2 * <int64_t> kx + 2) * (2 * <int64_t> (kg if kg > 0 else 1) + 2)
    return cells <= 64 or cells <= nx // 4


cdef inline int32_t _count_lt(const int32_t *occ, int32_t n, const int32_t *level, int64_t base,
                              int32_t y, bint strict) noexcept nogil:
    """Entries of a sorted occurrence list on a level < y (strict) or <= y."""
    cdef int32_t lo = 0, hi = n, mid, v
    while lo < hi:
        mid = (lo + hi) >> 1
        v = level[base + occ[mid]]
        if v < y or (not strict and v == y):
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef double _multi_simple_direct(Topic *t, Work *w, int32_t k, const int32_t[::1] x_doc,
                                 const int32_t[::1] x_level, const int32_t[::1] g_level,
                                 bint foreign_tail) noexcept nogil:
    """The pairs of one multi document with every simple one, by a scan (O(N log k))."""
    cdef int64_t xa = t.xa, ga = t.ga, pos
    cdef int32_t na = t.kx[k], ng_ = t.kg[k], LG = t.LG, ia = 0, ib = 0, x, y, k2, v
    cdef const int32_t *ax = t.xocc + t.xptr[k]
    cdef const int32_t *bg = t.gocc + t.gptr[k]
    cdef const int32_t *lx = &x_level[0]
    cdef const int32_t *lg = NULL
    cdef double acc = 0.0, sf_all = 0.0, sw_all = 0.0, sfl = 0.0, swl = 0.0, sfe, swe
    cdef double cxl, cxg, cgl, cgg, pbel, pabo
    if t.ng > 0:
        lg = &g_level[0]
    for ia in range(na):
        v = lx[xa + ax[ia]]
        sf_all += w.fl[v]
        sw_all += w.wl[v]
    ia = 0
    for pos in range(xa, t.xb):
        k2 = w.loc[x_doc[pos]]
        if not (t.kx[k2] == 1 and t.kg[k2] <= 1):
            continue
        if t.kg[k2] == 1:
            y = lg[ga + t.gocc[t.gptr[k2]]]
        elif foreign_tail:
            y = LG
        else:
            continue
        x = lx[pos]
        while ia < na and lx[xa + ax[ia]] < x:
            v = lx[xa + ax[ia]]
            sfl += w.fl[v]
            swl += w.wl[v]
            ia += 1
        if ib < ia:
            ib = ia
        sfe = 0.0
        swe = 0.0
        while ib < na and lx[xa + ax[ib]] == x:
            ib += 1
        for v in range(ia, ib):
            sfe += w.fl[x]
            swe += w.wl[x]
        cxl = ia
        cxg = na - ib
        if ng_ > 0:
            cgl = _count_lt(bg, ng_, lg, ga, y, True)
            cgg = ng_ - _count_lt(bg, ng_, lg, ga, y, False)
        else:
            cgl = 1.0 if LG < y else 0.0
            cgg = 1.0 if LG > y else 0.0
        pbel = (cgl if cgl < cxl else cxl) / cxl if cxl > 0 else 0.0
        pabo = (cgg if cgg < cxg else cxg) / cxg if cxg > 0 else 0.0
        acc += pbel * (sfl * w.wl[x] + swl * w.fl[x])
        acc += pabo * ((sf_all - sfl - sfe) * w.wl[x] + (sw_all - swl - swe) * w.fl[x])
    return acc


cdef double _multi_simple(Topic *t, Work *w, const int32_t[::1] x_doc, const int32_t[::1] x_level,
                          const int32_t[::1] g_level, bint foreign_tail) noexcept nogil:
    """Priority pairs (occurrence of a multi document, occurrence of a simple one).

    For a multi document a with X levels A and reference levels B, the pair with a
    simple document b at (x', y') only depends on the rank of x' among A and of y'
    among B: the plane is cut into at most (2|A|+1)(2|B|+1) rectangles of constant
    coefficient, and the weights of the simple documents inside each rectangle are
    2-D prefix sums, answered offline: queries sorted by x', a sweep over the X
    levels inserting the simple documents into a Fenwick tree over y'.
    Sets ``w.oom`` (and returns 0) if memory runs out."""
    cdef int32_t LX = t.LX, LG = t.LG, size = t.LG + 1
    cdef int64_t xa = t.xa, ga = t.ga, pos
    cdef int32_t k, s, nmd = 0, i, j, q, K, J, v, last, beta, x, y, kg_eff
    cdef int64_t nxb_tot = 0, ngb_tot = 0, grid_tot = 0
    cdef int32_t *mdoc = NULL
    cdef int64_t *xb_ptr = NULL
    cdef int64_t *gb_ptr = NULL
    cdef int64_t *grid_ptr = NULL
    cdef int32_t *xbv = NULL
    cdef int32_t *gbv = NULL
    cdef double *grid = NULL
    cdef int64_t *q_ptr = NULL
    cdef int32_t *q_slot = NULL
    cdef int32_t *q_idx = NULL
    cdef int64_t *q_fill = NULL
    cdef double acc = 0.0, Sw, Sf, sfl, swl, sfg, swg, sf_all, sw_all
    cdef double cxl, cxg, cgl, cgg, pbel, pabo, coefW, coefF
    cdef int32_t ia, ib, ja, jb, na, ng_
    cdef int64_t cell, row0, row1
    cdef const int32_t *lx = &x_level[0]
    cdef const int32_t *lg = NULL
    if t.ng > 0:
        lg = &g_level[0]
    for k in range(t.D):
        if t.kx[k] == 0 or (t.kx[k] == 1 and t.kg[k] <= 1):
            continue
        if t.kg[k] == 0 and not foreign_tail:
            continue  # every relation of an absent document is wrong
        if not _use_grid(t.kx[k], t.kg[k], t.nx):
            acc += _multi_simple_direct(t, w, k, x_doc, x_level, g_level, foreign_tail)
            continue
        nmd += 1
        nxb_tot += 2 * t.kx[k] + 2
        ngb_tot += 2 * (t.kg[k] if t.kg[k] > 0 else 1) + 2
        grid_tot += 2 * (2 * t.kx[k] + 2) * (2 * (t.kg[k] if t.kg[k] > 0 else 1) + 2)
    if nmd == 0:
        return acc
    mdoc = <int32_t *> malloc(nmd * sizeof(int32_t))
    xb_ptr = <int64_t *> malloc((nmd + 1) * sizeof(int64_t))
    gb_ptr = <int64_t *> malloc((nmd + 1) * sizeof(int64_t))
    grid_ptr = <int64_t *> malloc((nmd + 1) * sizeof(int64_t))
    xbv = <int32_t *> malloc(nxb_tot * sizeof(int32_t))
    gbv = <int32_t *> malloc(ngb_tot * sizeof(int32_t))
    q_ptr = <int64_t *> calloc(LX + 2, sizeof(int64_t))
    q_fill = <int64_t *> malloc((LX + 2) * sizeof(int64_t))
    grid = <double *> malloc(grid_tot * sizeof(double))
    q_slot = <int32_t *> malloc(nxb_tot * sizeof(int32_t))
    q_idx = <int32_t *> malloc(nxb_tot * sizeof(int32_t))
    if (mdoc == NULL or xb_ptr == NULL or gb_ptr == NULL or grid_ptr == NULL or xbv == NULL
            or gbv == NULL or q_ptr == NULL or q_fill == NULL or grid == NULL or q_slot == NULL
            or q_idx == NULL):
        free(mdoc); free(xb_ptr); free(gb_ptr); free(grid_ptr); free(xbv); free(gbv)
        free(grid); free(q_ptr); free(q_fill); free(q_slot); free(q_idx)
        w.oom = 1
        return 0.0
    # boundaries: X buckets [b_i, b_i+1) over levels 0..LX, reference buckets over 0..LG+1
    s = 0
    xb_ptr[0] = 0
    gb_ptr[0] = 0
    grid_ptr[0] = 0
    for k in range(t.D):
        if t.kx[k] == 0 or (t.kx[k] == 1 and t.kg[k] <= 1):
            continue
        if t.kg[k] == 0 and not foreign_tail:
            continue
        if not _use_grid(t.kx[k], t.kg[k], t.nx):
            continue
        mdoc[s] = k
        K = 0
        pos = xb_ptr[s]
        xbv[pos] = 0
        last = 0
        for i in range(t.kx[k]):
            v = lx[xa + t.xocc[t.xptr[k] + i]]
            if v > last:
                K += 1
                xbv[pos + K] = v
                last = v
            if v + 1 > last:
                K += 1
                xbv[pos + K] = v + 1
                last = v + 1
        if LX > last:
            K += 1
            xbv[pos + K] = LX
        xb_ptr[s + 1] = pos + K + 1
        J = 0
        pos = gb_ptr[s]
        gbv[pos] = 0
        last = 0
        kg_eff = t.kg[k] if t.kg[k] > 0 else 1
        for i in range(kg_eff):
            v = lg[ga + t.gocc[t.gptr[k] + i]] if t.kg[k] > 0 else LG
            if v > last:
                J += 1
                gbv[pos + J] = v
                last = v
            if v + 1 > last:
                J += 1
                gbv[pos + J] = v + 1
                last = v + 1
        if LG + 1 > last:
            J += 1
            gbv[pos + J] = LG + 1
        gb_ptr[s + 1] = pos + J + 1
        grid_ptr[s + 1] = grid_ptr[s] + 2 * (K + 1) * (J + 1)
        for i in range(K + 1):
            q_ptr[xbv[xb_ptr[s] + i] + 1] += 1
        s += 1
    for x in range(LX + 1):
        q_ptr[x + 1] += q_ptr[x]
    for x in range(LX + 1):
        q_fill[x] = q_ptr[x]
    for s in range(nmd):
        for i in range(<int32_t> (xb_ptr[s + 1] - xb_ptr[s])):
            x = xbv[xb_ptr[s] + i]
            q_slot[q_fill[x]] = s
            q_idx[q_fill[x]] = i
            q_fill[x] += 1
    # sweep over the X levels
    for k in range(size + 1):
        w.fen_f[k] = 0.0
        w.fen_g[k] = 0.0
    pos = xa
    for x in range(LX + 1):
        for q in range(<int32_t> q_ptr[x], <int32_t> q_ptr[x + 1]):
            s = q_slot[q]
            i = q_idx[q]
            J = <int32_t> (gb_ptr[s + 1] - gb_ptr[s])
            for j in range(J):
                y = gbv[gb_ptr[s] + j]
                cell = grid_ptr[s] + 2 * (<int64_t> i * J + j)
                grid[cell] = fenwick_prefix(w.fen_g + 1, y)
                grid[cell + 1] = fenwick_prefix(w.fen_f + 1, y)
        while pos < t.xb and lx[pos] == x:
            k = w.loc[x_doc[pos]]
            if t.kx[k] == 1 and t.kg[k] <= 1:
                if t.kg[k] == 1:
                    beta = lg[ga + t.gocc[t.gptr[k]]]
                elif foreign_tail:
                    beta = LG
                else:
                    beta = -1
                if beta >= 0:
                    fenwick_add(w.fen_f + 1, size, beta, w.fl[x])
                    fenwick_add(w.fen_g + 1, size, beta, w.wl[x])
            pos += 1
    # rectangles
    for s in range(nmd):
        k = mdoc[s]
        na = t.kx[k]
        ng_ = t.kg[k]
        K = <int32_t> (xb_ptr[s + 1] - xb_ptr[s]) - 1
        J = <int32_t> (gb_ptr[s + 1] - gb_ptr[s]) - 1
        sf_all = 0.0
        sw_all = 0.0
        for i in range(na):
            v = lx[xa + t.xocc[t.xptr[k] + i]]
            sf_all += w.fl[v]
            sw_all += w.wl[v]
        ia = 0
        sfl = 0.0
        swl = 0.0
        for i in range(K):
            x = xbv[xb_ptr[s] + i]
            # occurrences of k strictly above x, and at x
            while ia < na and lx[xa + t.xocc[t.xptr[k] + ia]] < x:
                v = lx[xa + t.xocc[t.xptr[k] + ia]]
                sfl += w.fl[v]
                swl += w.wl[v]
                ia += 1
            ib = ia
            sfg = sf_all - sfl
            swg = sw_all - swl
            while ib < na and lx[xa + t.xocc[t.xptr[k] + ib]] == x:
                v = lx[xa + t.xocc[t.xptr[k] + ib]]
                sfg -= w.fl[v]
                swg -= w.wl[v]
                ib += 1
            cxl = ia
            cxg = na - ib
            ja = 0
            for j in range(J):
                y = gbv[gb_ptr[s] + j]
                if ng_ > 0:
                    while ja < ng_ and lg[ga + t.gocc[t.gptr[k] + ja]] < y:
                        ja += 1
                    jb = ja
                    while jb < ng_ and lg[ga + t.gocc[t.gptr[k] + jb]] == y:
                        jb += 1
                    cgl = ja
                    cgg = ng_ - jb
                else:  # in the reference's tail: one virtual occurrence at LG
                    cgl = 1.0 if LG < y else 0.0
                    cgg = 1.0 if LG > y else 0.0
                pbel = (cgl if cgl < cxl else cxl) / cxl if cxl > 0 else 0.0
                pabo = (cgg if cgg < cxg else cxg) / cxg if cxg > 0 else 0.0
                coefW = pbel * sfl + pabo * sfg
                coefF = pbel * swl + pabo * swg
                if coefW == 0.0 and coefF == 0.0:
                    continue
                row0 = grid_ptr[s] + 2 * (<int64_t> i * (J + 1) + j)
                row1 = row0 + 2 * (<int64_t> (J + 1))
                Sw = grid[row1 + 2] - grid[row0 + 2] - grid[row1] + grid[row0]
                Sf = grid[row1 + 3] - grid[row0 + 3] - grid[row1 + 1] + grid[row0 + 1]
                acc += coefW * Sw + coefF * Sf
    free(mdoc); free(xb_ptr); free(gb_ptr); free(grid_ptr); free(xbv); free(gbv)
    free(grid); free(q_ptr); free(q_fill); free(q_slot); free(q_idx)
    return acc


cdef double _relatedness(Topic *t, Work *w, const int32_t[::1] x_doc, const int32_t[::1] x_level,
                         const int32_t[::1] x_cluster, const int32_t[::1] g_cluster,
                         double Wt) noexcept nogil:
    cdef int64_t i, start, xa = t.xa, ga = t.ga
    cdef int32_t k, g, cl, nm, nt, a, b, ax, ag, m, q
    cdef double acc = Wt, T, f
    cdef int32_t *loc = w.loc
    i = xa
    while i < t.xb:
        cl = x_cluster[i]
        start = i
        nm = 0
        nt = 0
        while i < t.xb and x_cluster[i] == cl:
            k = loc[x_doc[i]]
            if t.kx[k] == 1 and t.kg[k] <= 1:
                if t.kg[k] == 1:
                    g = g_cluster[ga + t.gocc[t.gptr[k]]]
                    if w.cnt[g] == 0.0:
                        w.touched[nt] = g
                        nt += 1
                    w.cnt[g] += 1.0
            else:
                w.multi[nm] = k
                nm += 1
            i += 1
        m = <int32_t> (i - start)
        T = 0.0
        for q in range(nt):
            T += w.cnt[w.touched[q]] * w.cnt[w.touched[q]]
        for a in range(nm):
            k = w.multi[a]
            for q in range(t.kg[k]):
                T += 2.0 * w.cnt[g_cluster[ga + t.gocc[t.gptr[k] + q]]]
            for b in range(a, nm):
                k = w.multi[a]
                g = w.multi[b]
                if k == g:
                    ax = t.kx[k]
                    ag = t.kg[k]
                else:
                    ax = _intersect(t.xocc + t.xptr[k], t.kx[k], t.xocc + t.xptr[g], t.kx[g],
                                    &x_cluster[0], xa)
                    ag = _intersect(t.gocc + t.gptr[k], t.kg[k], t.gocc + t.gptr[g], t.kg[g],
                                    &g_cluster[0], ga)
                f = <double> (ag if ag < ax else ax) / <double> ax
                T += f if k == g else 2.0 * f
        for q in range(nt):
            w.cnt[w.touched[q]] = 0.0
        acc += w.wl[x_level[start]] * T / m
    return acc


cdef int64_t _max_topic(const int64_t[::1] x_ptr, const int64_t[::1] g_ptr) noexcept nogil:
    cdef Py_ssize_t t
    cdef int64_t best = 1, n
    for t in range(x_ptr.shape[0] - 1):
        n = (x_ptr[t + 1] - x_ptr[t]) + (g_ptr[t + 1] - g_ptr[t])
        if n > best:
            best = n
    return best


cdef inline double _unit(double v) noexcept nogil:
    if v < 0.0:
        return 0.0
    if v > 1.0:
        return 1.0
    return v


cdef int _check_side(const int64_t[::1] ptr, const int32_t[::1] doc, const int32_t[::1] level,
                     const int32_t[::1] cluster, int64_t n_docs, int64_t[::1] seen, str fn,
                     str side) except -1:
    """The memory preconditions of one side (ValueError): ``ptr`` CSR over the
    occurrences (from >= 0, non-decreasing, within ``doc``; doc/level/cluster of
    one length); ``0 <= doc < n_docs``; per topic, levels and clusters start at
    0 and rise by 0 or 1 from one occurrence to the next (sorted, consecutive),
    a new level starts a new cluster, and a document occurs at most once per
    cluster.  ``seen`` (n_docs entries) is scratch."""
    cdef Py_ssize_t nt = ptr.shape[0] - 1, ti
    cdef int64_t i, a, b, gc = 0
    cdef int32_t d, dl, dc
    if nt < 0:
        raise ValueError(f"{fn}: {side}_ptr must have n_topics + 1 entries")
    if level.shape[0] != doc.shape[0] or cluster.shape[0] != doc.shape[0]:
        raise ValueError(f"{fn}: {side}_doc, {side}_level and {side}_cluster must have one length")
    if ptr[0] < 0 or ptr[nt] > doc.shape[0]:
        raise ValueError(f"{fn}: {side}_ptr out of range")
    for ti in range(nt):
        a = ptr[ti]
        b = ptr[ti + 1]
        if b < a:
            raise ValueError(f"{fn}: {side}_ptr not increasing")
        for i in range(a, b):
            d = doc[i]
            if d < 0 or d >= n_docs or d >= seen.shape[0]:
                raise ValueError(f"{fn}: {side}_doc[{i}] = {d} is not a document code 0..{n_docs - 1}")
            if i == a:
                if level[i] != 0 or cluster[i] != 0:
                    raise ValueError(f"{fn}: topic {ti} of {side} must start at level 0, cluster 0")
                gc += 1
            else:
                dl = level[i] - level[i - 1]
                dc = cluster[i] - cluster[i - 1]
                if dl < 0 or dl > 1 or dc < 0 or dc > 1 or (dl == 1 and dc == 0):
                    raise ValueError(f"{fn}: {side} occurrences of topic {ti} are not sorted by "
                                     "(level, cluster) with consecutive indices")
                if dc:
                    gc += 1
            if seen[d] == gc:
                raise ValueError(f"{fn}: document {d} occurs twice in one cluster of {side} topic {ti}")
            seen[d] = gc
    return 0


cdef int64_t _check_sides(const int64_t[::1] x_ptr, const int32_t[::1] x_doc, const int32_t[::1] x_level,
                      const int32_t[::1] x_cluster, const int64_t[::1] g_ptr, const int32_t[::1] g_doc,
                      const int32_t[::1] g_level, const int32_t[::1] g_cluster, int64_t n_docs,
                      Py_ssize_t n_out, str fn) except -1:
    """Checks both sides; returns the size of the document tables: the largest
    document code + 1 (at most n_docs)."""
    cdef Py_ssize_t nt = x_ptr.shape[0] - 1, ti
    cdef int64_t[::1] seen
    cdef int64_t i, ntab = 0
    if nt < 0 or g_ptr.shape[0] != nt + 1 or n_out < nt:
        raise ValueError(f"{fn}: inconsistent topic arrays")
    if n_docs < 0 or n_docs > 2147483647:
        raise ValueError(f"{fn}: n_docs must be in 0..2**31 - 1, got {n_docs}")
    if x_ptr[0] < 0 or x_ptr[nt] > x_doc.shape[0] or g_ptr[0] < 0 or g_ptr[nt] > g_doc.shape[0]:
        raise ValueError(f"{fn}: x_ptr/g_ptr out of range")
    for i in range(x_ptr[0], x_ptr[nt]):
        if x_doc[i] >= ntab:
            ntab = x_doc[i] + 1
    for i in range(g_ptr[0], g_ptr[nt]):
        if g_doc[i] >= ntab:
            ntab = g_doc[i] + 1
    if ntab > n_docs:
        raise ValueError(f"{fn}: document code {ntab - 1} is not below n_docs={n_docs}")
    seen = np.full(ntab, -1, dtype=np.int64)
    _check_side(x_ptr, x_doc, x_level, x_cluster, n_docs, seen, fn, "x")
    seen[:] = -1
    _check_side(g_ptr, g_doc, g_level, g_cluster, n_docs, seen, fn, "g")
    for ti in range(nt):
        # one topic's occurrences (both sides) index int32 scratch arrays
        if (x_ptr[ti + 1] - x_ptr[ti]) + (g_ptr[ti + 1] - g_ptr[ti]) > 2147483600:
            raise ValueError(f"{fn}: topic {ti} has too many occurrences")
    return ntab


def rs_side(const int64_t[::1] x_ptr, const int32_t[::1] x_doc, const int32_t[::1] x_level,
            const int32_t[::1] x_cluster,
            const int64_t[::1] g_ptr, const int32_t[::1] g_doc, const int32_t[::1] g_level,
            const int32_t[::1] g_cluster,
            int64_t n_docs, double c, bint uniform, bint foreign_tail,
            double[::1] out_priority, double[::1] out_relatedness, bint pairwise=False):
    """Score side ``x`` against reference ``g`` for every topic.

    Writes the priority and relatedness score of each topic (Reliability when x is
    the system, Sensitivity when x is the gold standard).  ``c`` is the weighting
    constant (1 - w_n) n / w_n, ignored when ``uniform``.  ``pairwise`` (private,
    for the tests) enumerates the pairs of documents with several memberships one
    pair at a time, O(m^2), instead of the O(N log^2 N) decomposition.
    """
    cdef Py_ssize_t nt = x_ptr.shape[0] - 1, ti
    cdef Work w
    cdef Topic t
    cdef double Wt = 0.0, Wr = 1.0
    cdef int rc
    cdef int64_t maxocc
    if out_relatedness.shape[0] < nt:
        raise ValueError("rs_side: inconsistent topic arrays")
    n_docs = _check_sides(x_ptr, x_doc, x_level, x_cluster, g_ptr, g_doc, g_level, g_cluster, n_docs,
                          out_priority.shape[0], "rs_side")
    with nogil:
        maxocc = _max_topic(x_ptr, g_ptr)
        rc = _alloc_work(&w, n_docs, maxocc)
        if rc == 0:
            for ti in range(nt):
                if x_ptr[ti + 1] == x_ptr[ti]:
                    out_priority[ti] = 0.0
                    out_relatedness[ti] = 0.0
                    continue
                _setup_topic(&t, &w, x_ptr[ti], x_ptr[ti + 1], g_ptr[ti], g_ptr[ti + 1],
                             x_doc, x_level, x_cluster, g_doc, g_level, g_cluster)
                _level_weights(&t, &w, x_level, c, uniform, &Wt, &Wr)
                out_priority[ti] = _priority(&t, &w, x_doc, x_level, g_level, uniform,
                                             foreign_tail, Wt, Wr, pairwise)
                if w.oom:
                    rc = -1
                out_relatedness[ti] = _relatedness(&t, &w, x_doc, x_level, x_cluster,
                                                   g_cluster, Wt)
                # both are weighted means of ratios in [0, 1]: what lies outside
                # is rounding
                out_priority[ti] = _unit(out_priority[ti])
                out_relatedness[ti] = _unit(out_relatedness[ti])
                _release_topic(&t, &w)
                if rc != 0:
                    break
        _free_work(&w)
    if rc != 0:
        raise MemoryError("rs_side: cannot allocate work space")


def extended_bcubed_side(const int64_t[::1] x_ptr, const int32_t[::1] x_doc,
                         const int32_t[::1] x_cluster,
                         const int64_t[::1] g_ptr, const int32_t[::1] g_doc,
                         const int32_t[::1] g_cluster,
                         int64_t n_docs, double[::1] out):
    """Extended BCubed precision of x against g (Amigo et al. 2009), per topic.

    P = avg_d avg_{e sharing a cluster with d} min(|C(d)&C(e)|, |L(d)&L(e)|) / |C(d)&C(e)|
    over the documents d of x.  Recall is the same call with the sides exchanged.
    """
    cdef Py_ssize_t nt = x_ptr.shape[0] - 1, ti
    cdef Work w
    cdef Topic t
    cdef int rc
    cdef int64_t maxocc, i, j, xa, ga
    cdef int32_t k, e, g, q, cl, nt_, ax, ag, cnt_e, ndoc
    cdef double total, s
    cdef int32_t *cstart = NULL
    n_docs = _check_sides(x_ptr, x_doc, x_cluster, x_cluster, g_ptr, g_doc, g_cluster, g_cluster, n_docs,
                          out.shape[0], "extended_bcubed_side")
    with nogil:
        maxocc = _max_topic(x_ptr, g_ptr)
        rc = _alloc_work(&w, n_docs, maxocc)
        cstart = <int32_t *> malloc((maxocc + 2) * sizeof(int32_t))
        if cstart == NULL:
            rc = -1
        if rc == 0:
            for ti in range(nt):
                if x_ptr[ti + 1] == x_ptr[ti]:
                    out[ti] = 0.0
                    continue
                _setup_topic(&t, &w, x_ptr[ti], x_ptr[ti + 1], g_ptr[ti], g_ptr[ti + 1],
                             x_doc, x_cluster, x_cluster, g_doc, g_cluster, g_cluster)
                xa = t.xa
                ga = t.ga
                # cluster start offsets (occurrences are sorted by cluster)
                for i in range(xa, t.xb):
                    cl = x_cluster[i]
                    if i == xa or x_cluster[i - 1] != cl:
                        cstart[cl] = <int32_t> (i - xa)
                cstart[t.CX] = t.nx
                total = 0.0
                # documents with one membership on each side: contingency counts
                for cl in range(t.CX):
                    nt_ = 0
                    for i in range(xa + cstart[cl], xa + cstart[cl + 1]):
                        k = w.loc[x_doc[i]]
                        for q in range(t.kg[k]):
                            g = g_cluster[ga + t.gocc[t.gptr[k] + q]]
                            if w.cnt[g] == 0.0:
                                w.touched[nt_] = g
                                nt_ += 1
                            w.cnt[g] += 1.0
                    for i in range(xa + cstart[cl], xa + cstart[cl + 1]):
                        k = w.loc[x_doc[i]]
                        if t.kx[k] == 1 and t.kg[k] == 1:
                            g = g_cluster[ga + t.gocc[t.gptr[k]]]
                            total += w.cnt[g] / (cstart[cl + 1] - cstart[cl])
                    for q in range(nt_):
                        w.cnt[w.touched[q]] = 0.0
                # the other documents: explicit neighbourhoods
                ndoc = 0
                for k in range(t.D):
                    w.mark[k] = -1
                for k in range(t.D):
                    if t.kx[k] == 0:
                        continue
                    ndoc += 1
                    if t.kx[k] == 1 and t.kg[k] <= 1:
                        continue
                    s = 0.0
                    cnt_e = 0
                    for q in range(t.kx[k]):
                        cl = x_cluster[xa + t.xocc[t.xptr[k] + q]]
                        for j in range(xa + cstart[cl], xa + cstart[cl + 1]):
                            e = w.loc[x_doc[j]]
                            if w.mark[e] == k:
                                continue
                            w.mark[e] = k
                            cnt_e += 1
                            ax = _intersect(t.xocc + t.xptr[k], t.kx[k], t.xocc + t.xptr[e],
                                            t.kx[e], &x_cluster[0], xa)
                            ag = _intersect(t.gocc + t.gptr[k], t.kg[k], t.gocc + t.gptr[e],
                                            t.kg[e], &g_cluster[0], ga)
                            s += <double> (ag if ag < ax else ax) / <double> ax
                    total += s / cnt_e
                out[ti] = _unit(total / ndoc)
                _release_topic(&t, &w)
        _free_work(&w)
        free(cstart)
    if rc != 0:
        raise MemoryError("extended_bcubed_side: cannot allocate work space")
