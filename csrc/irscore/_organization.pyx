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
  sides; read from a dense (level, reference level) table of prefix sums when it
  is no bigger than the corners, else from a sweep; a document whose grid would
  outgrow the topic is scanned instead, O(N log |B|)); pairs of two multi
  documents by dominance sums (see "pairs of two documents with several
  memberships" below): O(N log LX log LG) for two memberships on x and one on the
  reference when the (level, reference level) table is small against the topic,
  O(N log^2 N) otherwise and for three, one pair at a time for the rest
  (O(h^2) in their number h, which no exact method beats in general under SETH:
  docs/reliability_sensitivity.md, "Why the last corner stays quadratic"; both orders of a pair at once, O(k) per pair of k
  memberships from one document's per-level tables when it meets enough
  partners; ``rs_side(pairwise=True)`` enumerates every pair, the tests' reference);
- relatedness: O(N) over cluster memberships (contingency counts: a pair sharing
  one cluster and at most one reference cluster counts ag, its probability), plus
  the pairs sharing two clusters on either side, one class pair at a time
  (_related_exceptional);
- extended BCubed: contingency counts per X cluster give, for every document, the
  sums over its cluster mates counted once per shared cluster; the pairs sharing
  two clusters on either side are corrected one class pair at a time (_ebc_multi).
"""
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport qsort
from libc.string cimport memset, memcpy
from libc.math cimport INFINITY, NAN, isnan

import numpy as np
from irscore._common cimport fenwick_add, fenwick_prefix

# Scratch memory comes from irs_scratch.h, which keeps the large blocks a call frees
# for the next call (see there): one topic of 800,000 occurrences needs about 120 MB,
# which malloc/free would hand back to the system and fault in again every call.
cdef extern from "irs_dd.h" nogil:
    ctypedef struct irs_dd:
        double hi
        double lo
    void irs_dd_add(irs_dd *a, double b)
    void irs_dd_add_dd(irs_dd *a, irs_dd b)
    void irs_dd_mul_add(irs_dd *acc, double c, irs_dd s)
    double irs_dd_value(irs_dd a)

cdef extern from "irs_scratch.h" nogil:
    void *scratch_malloc "irs_scratch_malloc" (size_t n)
    void *scratch_calloc "irs_scratch_calloc" (size_t n, size_t size)
    void scratch_free "irs_scratch_free" (void *p)
    void scratch_release "irs_scratch_release" ()
    void scratch_configure "irs_scratch_configure" (size_t min_bytes, int poison)
    int scratch_init "irs_scratch_init" ()
    size_t SCRATCH_MIN "IRS_SCRATCH_MIN"

cdef extern from "irs_common.h" nogil:
    # a hint only (no fault, no effect on results): the per-document tables are
    # read in the order of the other side, at random once they outgrow the caches
    void IRS_PREFETCH(const void *p)
    void IRS_PREFETCH_W(const void *p)

# how many occurrences ahead the random lookups are prefetched
cdef enum:
    PF = 16


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
    int32_t *xk        # per x occurrence (offset from xa): its local document
    int32_t *gk        # per reference occurrence (offset from ga): its local document
    int32_t *xlv       # level and cluster of each entry of xocc / gocc (the same order:
    int32_t *xcv       # a document's levels are read in a row, not at random)
    int32_t *glv
    int32_t *gcv
    int32_t *gl1       # per local doc: level of its first reference occurrence
    int32_t *gc1       # per local doc: cluster of its first reference occurrence


cdef struct Work:
    int32_t *loc       # global doc -> local id, -1 (n_docs)
    int32_t *gid
    int32_t *kx
    int32_t *kg
    int32_t *xptr
    int32_t *xocc
    int32_t *gptr
    int32_t *gocc
    int32_t *xk
    int32_t *gk
    int32_t *xlv
    int32_t *xcv
    int32_t *glv
    int32_t *gcv
    int32_t *gl1
    int32_t *gc1
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
    scratch_free(w.loc); scratch_free(w.gid); scratch_free(w.kx); scratch_free(w.kg)
    scratch_free(w.xptr); scratch_free(w.xocc); scratch_free(w.gptr); scratch_free(w.gocc); scratch_free(w.fill)
    scratch_free(w.xk); scratch_free(w.gk); scratch_free(w.xlv); scratch_free(w.xcv); scratch_free(w.glv); scratch_free(w.gcv); scratch_free(w.gl1); scratch_free(w.gc1)
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


cdef inline int32_t _simple_ref_level(const Topic *t, int32_t k, bint foreign_tail) noexcept nogil:
    """The reference level of local document k when it is simple (one membership
    on side x, at most one on side g): its g level, ``t.LG`` when it is only on
    side x and ``foreign_tail``; -1 otherwise (not counted among the simple
    documents)."""
    if t.kx[k] != 1 or t.kg[k] > 1:
        return -1
    if t.kg[k] == 1:
        return t.gl1[k]
    return t.LG if foreign_tail else -1


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


cdef inline void _release_topic(Topic *t, Work *w) noexcept nogil:
    cdef int32_t k
    for k in range(t.D):
        if k + PF < t.D:
            IRS_PREFETCH_W(w.loc + w.gid[k + PF])
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
# *Lq* (q = 2 or 3 X occurrences, at most one reference occurrence), *K1* (one X
# occurrence, several reference ones) or *heavy* (the rest).  A document with no
# reference occurrence and no foreign tail relates to nothing (rg = 0).
#
# - K1 x K1: with one X occurrence each, rx = 1 when a is above b, and the pair
#   holds in the reference iff min G(a) < max G(b): a weighted dominance count
#   (levels in order, Fenwick tree over the reference levels), O(N log L).
# - any document a against the Lq documents b (X levels b1 <= .. <= bq, reference
#   level gb): the pair only depends on the region of each b_j among a's X levels
#   and of gb among a's reference levels, and its weight is linear in
#   (wl[b_j], fl[b_j])_j; a's sum over all Lq documents is a combination of box
#   sums over (b1, .., bq, gb), answered offline as dominance sums: divide and
#   conquer over the X coordinates (merging by the next one) and a Fenwick tree
#   over gb, O((P + Q) log^q); for q = 2 with few levels, a sweep over b1 and a
#   2-D Fenwick tree over (b2, gb) instead, O((P + Q) log LX log LG).  Lq
#   documents query the Lq population for "a above b" only (the ordered pairs),
#   L3 documents query L2 both ways, heavy and K1 documents query both
#   populations both ways unless their region grid would outgrow the population
#   (then one pair at a time).
# - heavy x heavy and heavy x K1: one pair at a time (O(h (h + k1))), both orders of
#   a pair from one merge of the two documents' level lists per side (_pair_both),
#   or, when a document meets enough partners, from its per-level tables
#   (_tab_build, O(LX + LG) once; then O(k) per partner of k memberships: _tab_pair).

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



cdef inline int32_t _next_level(const int32_t *la, int32_t na, int32_t *i, const int32_t *lb,
                               int32_t nb, int32_t *j, int32_t *ca, int32_t *cb) noexcept nogil:
    """One step of a merge of two sorted level lists (one of them not yet
    exhausted): the next level l, and how many entries of each list are at l
    (ca, cb; i and j move past them)."""
    cdef int32_t l
    if j[0] >= nb or (i[0] < na and la[i[0]] < lb[j[0]]):
        l = la[i[0]]
    else:
        l = lb[j[0]]
    ca[0] = 0
    while i[0] < na and la[i[0]] == l:
        ca[0] += 1
        i[0] += 1
    cb[0] = 0
    while j[0] < nb and lb[j[0]] == l:
        cb[0] += 1
        j[0] += 1
    return l


cdef inline double _both_orders(int64_t rab, int64_t rba, int64_t gab, int64_t gba, double wab,
                                double wba) noexcept nogil:
    """The terms of a pair in both orders from its x counts (rab: a above b), its
    reference counts and its weight sums (min(rg, rx) / rx * W each)."""
    cdef double out = 0.0
    if rab > 0:
        out += <double> (gab if gab < rab else rab) / <double> rab * wab
    if rba > 0:
        out += <double> (gba if gba < rba else rba) / <double> rba * wba
    return out


cdef inline void _merge_above(const int32_t *la, int32_t na, const int32_t *lb, int32_t nb,
                              int64_t *ab, int64_t *ba) noexcept nogil:
    """Pairs (alpha in A, beta in B) with alpha strictly above beta (ab) and with
    beta strictly above alpha (ba): one merge of the two sorted level lists."""
    cdef int32_t i = 0, j = 0, l, ca, cb
    cdef int64_t ua = 0, ub = 0, rab = 0, rba = 0
    while i < na or j < nb:
        l = _next_level(la, na, &i, lb, nb, &j, &ca, &cb)
        rab += cb * ua
        rba += ca * ub
        ua += ca
        ub += cb
    ab[0] = rab
    ba[0] = rba


cdef inline double _pair_both(Topic *t, Work *w, int32_t a, int32_t b, int32_t tail) noexcept nogil:
    """_pair_term(a, b) + _pair_term(b, a) for two distinct documents with several
    memberships, from one merge of their level lists on each side (xlv/glv: a
    document's levels in a row, ascending) instead of four walks through the
    occurrence lists; ``tail`` >= 0 stands for an empty reference list as in
    _count_above."""
    cdef const int32_t *la = t.xlv + t.xptr[a]
    cdef const int32_t *lb = t.xlv + t.xptr[b]
    cdef int32_t na = t.kx[a], nb = t.kx[b], i = 0, j = 0, l, ca, cb, u
    cdef const int32_t *ga
    cdef const int32_t *gb
    cdef int32_t nga = t.kg[a], ngb = t.kg[b]
    cdef int64_t ua = 0, ub = 0, rab = 0, rba = 0, gab = 0, gba = 0
    cdef double fa = 0.0, sa = 0.0, fb = 0.0, sb = 0.0, wab = 0.0, wba = 0.0, wlv, flv
    # x: counts and weights of both orders (the sums of _cross, term by term)
    while i < na or j < nb:
        l = _next_level(la, na, &i, lb, nb, &j, &ca, &cb)
        wlv = w.wl[l]
        flv = w.fl[l]
        rab += cb * ua
        rba += ca * ub
        for u in range(cb):
            wab += fa * wlv + sa * flv
        for u in range(ca):
            wba += fb * wlv + sb * flv
        for u in range(ca):
            fa += flv
            sa += wlv
        for u in range(cb):
            fb += flv
            sb += wlv
        ua += ca
        ub += cb
    if rab == 0 and rba == 0:
        return 0.0
    # reference: an empty list is the tail's one virtual occurrence, or relates to nothing
    ga = t.glv + t.gptr[a]
    gb = t.glv + t.gptr[b]
    if tail < 0 and (nga == 0 or ngb == 0):
        return 0.0
    if nga == 0:
        ga = &tail
        nga = 1
    if ngb == 0:
        gb = &tail
        ngb = 1
    _merge_above(ga, nga, gb, ngb, &gab, &gba)
    return _both_orders(rab, rba, gab, gba, wab, wba)


cdef struct PairTab:
    # one document a's view of every level, for scoring a against many others:
    # per x level l, the occurrences of a strictly above and strictly below l and
    # the weights a partner's occurrence at l adds to each order
    # (wab: sum over alpha above l of fl[alpha] wl[l] + wl[alpha] fl[l]; wba: the
    # same over alpha below l, roles swapped); per reference level (tail
    # included), the reference occurrences of a above and below it.
    int32_t *xab
    int32_t *xbe
    double *wab
    double *wba
    int32_t *gab
    int32_t *gbe
    bint has_g         # a has a reference list (or the tail stands for it)


cdef inline bint _tab_worth(const Topic *t, int64_t partners) noexcept nogil:
    """Build a document's level tables (O(LX + LG)) rather than merge per pair
    when it meets enough partners to pay for them."""
    return <int64_t> t.LX + t.LG + 2 <= 4 * partners


cdef void _tab_build(Topic *t, Work *w, int32_t a, int32_t tail, PairTab *pt) noexcept nogil:
    cdef const int32_t *la = t.xlv + t.xptr[a]
    cdef const int32_t *lg = t.glv + t.gptr[a]
    cdef int32_t na = t.kx[a], ng = t.kg[a], i = 0, l, c, above = 0, LX = t.LX, LG = t.LG
    cdef double f = 0.0, s = 0.0
    # x, top down: occurrences and weight sums strictly above each level
    for l in range(LX):
        c = 0
        while i < na and la[i] == l:
            c += 1
            i += 1
        pt.xab[l] = above
        pt.xbe[l] = na - above - c
        pt.wab[l] = f * w.wl[l] + s * w.fl[l]
        above += c
        while c > 0:
            f += w.fl[l]
            s += w.wl[l]
            c -= 1
    # x, bottom up: weight sums strictly below each level
    f = 0.0
    s = 0.0
    i = na - 1
    l = LX - 1
    while l >= 0:
        c = 0
        while i >= 0 and la[i] == l:
            c += 1
            i -= 1
        pt.wba[l] = f * w.wl[l] + s * w.fl[l]
        while c > 0:
            f += w.fl[l]
            s += w.wl[l]
            c -= 1
        l -= 1
    # reference levels 0..LG (LG: the tail's virtual level)
    pt.has_g = ng > 0 or tail >= 0
    if not pt.has_g:
        return
    above = 0
    i = 0
    for l in range(LG + 1):
        c = 0
        if ng > 0:
            while i < ng and lg[i] == l:
                c += 1
                i += 1
        elif l == tail:
            c = 1
        pt.gab[l] = above
        pt.gbe[l] = (ng if ng > 0 else 1) - above - c
        above += c


cdef inline double _tab_pair(const Topic *t, const PairTab *pt, int32_t b, int32_t tail) noexcept nogil:
    """_pair_both(a, b) from a's tables (the same sums; each order's weights in
    the order of b's occurrences)."""
    cdef const int32_t *lb = t.xlv + t.xptr[b]
    cdef const int32_t *gb
    cdef int32_t nb = t.kx[b], ngb = t.kg[b], j, l
    cdef int64_t rab = 0, rba = 0, gab = 0, gba = 0
    cdef double wab = 0.0, wba = 0.0
    if not pt.has_g:
        return 0.0
    for j in range(nb):
        l = lb[j]
        rab += pt.xab[l]
        rba += pt.xbe[l]
        wab += pt.wab[l]
        wba += pt.wba[l]
    if rab == 0 and rba == 0:
        return 0.0
    if ngb == 0:
        if tail < 0:
            return 0.0
        gab = pt.gab[tail]
        gba = pt.gbe[tail]
    else:
        gb = t.glv + t.gptr[b]
        for j in range(ngb):
            gab += pt.gab[gb[j]]
            gba += pt.gbe[gb[j]]
    return _both_orders(rab, rba, gab, gba, wab, wba)

cdef struct DQuery:
    int32_t u[3]       # b_j <= u[j] for the coordinates in mask
    int32_t z          # LG - gb <= z
    int32_t mask       # the coordinates constrained (bit j: b_j)
    double c[6]        # coefficients of (wl[b1], fl[b1], wl[b2], fl[b2], ...)


cdef struct Dom:
    # one population: np_ documents with q X levels (pc: q per point), LG - gb (pz),
    # values (pv: 2q per point); queries q[0..nq)
    int32_t qd, V
    int64_t np_, nq, cap
    int32_t *pc
    int32_t *pz
    double *pv
    DQuery *q
    irs_dd acc                  # double-double: the box sums cancel (irs_dd.h)


cdef struct Run:
    # one solving pass: items 0..np_-1 are the points, np_.. the queries qi[]
    int64_t np_
    int32_t V, fsize
    int32_t *cx
    int32_t *cy
    int32_t *cw
    int32_t *cz
    const double *pv
    DQuery *q
    int64_t *qi
    double *fen
    int64_t *ord
    int64_t *tmp
    int64_t *sub
    int64_t *tmp2
    irs_dd acc


cdef inline void _fv_add(double *tr, int32_t size, int32_t i, const double *v, int32_t V) noexcept nogil:
    cdef int32_t k
    i += 1
    while i <= size:
        for k in range(V):
            tr[V * (i - 1) + k] += v[k]
        i += i & (-i)


cdef inline void _fv_clear(double *tr, int32_t size, int32_t i, int32_t V) noexcept nogil:
    cdef int32_t k
    i += 1
    while i <= size:
        for k in range(V):
            tr[V * (i - 1) + k] = 0.0
        i += i & (-i)


cdef inline void _fv_dot(irs_dd *acc, const double *tr, int32_t i, const double *c, int32_t V) noexcept nogil:
    """acc += c . (sum of the positions [0, i)), in double-double (irs_dd.h)."""
    cdef irs_dd s[6]
    cdef int32_t k
    for k in range(V):
        s[k].hi = 0.0
        s[k].lo = 0.0
    while i > 0:
        for k in range(V):
            irs_dd_add(&s[k], tr[V * (i - 1) + k])
        i -= i & (-i)
    for k in range(V):
        irs_dd_mul_add(acc, c[k], s[k])


cdef inline void _f2_add(double *tr, int32_t ny, int32_t nz, int32_t y, int32_t z,
                         const double *v, int32_t V) noexcept nogil:
    """Add the V values v at (y, z) of a 2-D Fenwick tree of ny x nz cells."""
    cdef int32_t i = y + 1, j, k
    cdef int64_t base
    while i <= ny:
        j = z + 1
        while j <= nz:
            base = V * ((<int64_t> i - 1) * nz + (j - 1))
            for k in range(V):
                tr[base + k] += v[k]
            j += j & (-j)
        i += i & (-i)


cdef inline void _f2_dot(irs_dd *acc, const double *tr, int32_t nz, int32_t y, int32_t z,
                         const double *c, int32_t V) noexcept nogil:
    """acc += c . (sum of the cells [0, y) x [0, z)), in double-double."""
    cdef irs_dd s[6]
    cdef int32_t i = y, j, k
    cdef int64_t base
    for k in range(V):
        s[k].hi = 0.0
        s[k].lo = 0.0
    while i > 0:
        j = z
        while j > 0:
            base = V * ((<int64_t> i - 1) * nz + (j - 1))
            for k in range(V):
                irs_dd_add(&s[k], tr[base + k])
            j -= j & (-j)
        i -= i & (-i)
    for k in range(V):
        irs_dd_mul_add(acc, c[k], s[k])


cdef inline void _run_point(Run *r, int64_t it) noexcept nogil:
    _fv_add(r.fen, r.fsize, r.cz[it], r.pv + r.V * it, r.V)


cdef inline void _run_query(Run *r, int64_t it) noexcept nogil:
    _fv_dot(&r.acc, r.fen, r.cz[it] + 1, r.q[r.qi[it - r.np_]].c, r.V)


cdef void _cdq2(Run *r, int64_t *ord, int64_t *tmp, int64_t lo, int64_t hi,
                const int32_t *ky) noexcept nogil:
    """Items ord[lo:hi] sorted by their first coordinate (points first on ties):
    adds to r.acc every query's sum over the points before it with key ky <= its
    own and z <= its own, and leaves ord[lo:hi] sorted by ky."""
    cdef int64_t mid, i, j, a, b, o, it, p
    cdef int64_t NP = r.np_
    if hi - lo < 2:
        return
    mid = (lo + hi) >> 1
    _cdq2(r, ord, tmp, lo, mid, ky)
    _cdq2(r, ord, tmp, mid, hi, ky)
    i = lo
    for j in range(mid, hi):
        it = ord[j]
        if it < NP:
            continue
        while i < mid and ky[ord[i]] <= ky[it]:
            p = ord[i]
            if p < NP:
                _run_point(r, p)
            i += 1
        _run_query(r, it)
    for j in range(lo, i):
        p = ord[j]
        if p < NP:
            _fv_clear(r.fen, r.fsize, r.cz[p], r.V)
    a = lo
    b = mid
    o = lo
    while a < mid and b < hi:
        if ky[ord[a]] <= ky[ord[b]]:
            tmp[o] = ord[a]
            a += 1
        else:
            tmp[o] = ord[b]
            b += 1
        o += 1
    while a < mid:
        tmp[o] = ord[a]
        a += 1
        o += 1
    while b < hi:
        tmp[o] = ord[b]
        b += 1
        o += 1
    for o in range(lo, hi):
        ord[o] = tmp[o]


cdef inline bint _before(Run *r, int64_t a, int64_t b) noexcept nogil:
    """Order by cy, points first on ties."""
    if r.cy[a] != r.cy[b]:
        return r.cy[a] < r.cy[b]
    return a < r.np_ and b >= r.np_


cdef void _cdq3(Run *r, int64_t lo, int64_t hi) noexcept nogil:
    """Three coordinates (cx, cy, cw) and z: r.ord[lo:hi] sorted by cx, points
    first on ties; left points against right queries by _cdq2 over (cy, cw);
    leaves r.ord[lo:hi] sorted by (cy, points first)."""
    cdef int64_t mid, a, b, o, n = 0
    cdef int64_t NP = r.np_
    if hi - lo < 2:
        return
    mid = (lo + hi) >> 1
    _cdq3(r, lo, mid)
    _cdq3(r, mid, hi)
    # left points and right queries, merged by (cy, points first)
    a = lo
    b = mid
    while True:
        while a < mid and r.ord[a] >= NP:
            a += 1
        while b < hi and r.ord[b] < NP:
            b += 1
        if a >= mid and b >= hi:
            break
        if b >= hi or (a < mid and _before(r, r.ord[a], r.ord[b])):
            r.sub[n] = r.ord[a]
            a += 1
        else:
            r.sub[n] = r.ord[b]
            b += 1
        n += 1
    if n > 1:
        _cdq2(r, r.sub, r.tmp2, 0, n, r.cw)
    a = lo
    b = mid
    o = lo
    while a < mid and b < hi:
        if _before(r, r.ord[b], r.ord[a]):
            r.tmp[o] = r.ord[b]
            b += 1
        else:
            r.tmp[o] = r.ord[a]
            a += 1
        o += 1
    while a < mid:
        r.tmp[o] = r.ord[a]
        a += 1
        o += 1
    while b < hi:
        r.tmp[o] = r.ord[b]
        b += 1
        o += 1
    for o in range(lo, hi):
        r.ord[o] = r.tmp[o]


cdef int _dom_sweep(Dom *dm, Run *r, int64_t *pos, int64_t n, int32_t nd, int32_t LX,
                    int32_t LG) noexcept nogil:
    """The sweep of _dom_pass for one or two constrained coordinates (adds to
    r.acc).  pos: the start of each (first coordinate, points first) bucket; the
    items are visited in the order of the counting sort (stable), so the sums are
    the same as over r.ord.  -1 if memory runs out."""
    cdef int32_t V = dm.V, k, y
    cdef int64_t i, o, key, NP = dm.np_
    cdef int32_t *sy = <int32_t *> scratch_malloc(n * sizeof(int32_t))
    cdef int32_t *sz = <int32_t *> scratch_malloc(n * sizeof(int32_t))
    cdef double *sv = <double *> scratch_malloc(n * V * sizeof(double))
    cdef char *st = <char *> scratch_malloc(n * sizeof(char))
    cdef double *tr = NULL
    cdef const double *src
    if nd == 2:
        tr = <double *> scratch_calloc(V * (<int64_t> LX) * (LG + 1), sizeof(double))
    if sy == NULL or sz == NULL or sv == NULL or st == NULL or (nd == 2 and tr == NULL):
        scratch_free(sy); scratch_free(sz); scratch_free(sv); scratch_free(st); scratch_free(tr)
        return -1
    for i in range(n):
        key = 2 * r.cx[i] + (1 if i >= NP else 0)
        o = pos[key]
        pos[key] = o + 1
        sy[o] = r.cy[i]
        sz[o] = r.cz[i]
        st[o] = i >= NP
        src = r.pv + V * i if i < NP else r.q[r.qi[i - NP]].c
        for k in range(V):
            sv[V * o + k] = src[k]
    r.acc.hi = 0.0
    r.acc.lo = 0.0
    if nd == 1:
        for o in range(n):
            if not st[o]:
                _fv_add(r.fen, r.fsize, sz[o], sv + V * o, V)
            else:
                _fv_dot(&r.acc, r.fen, sz[o] + 1, sv + V * o, V)
        for o in range(n):
            if not st[o]:
                _fv_clear(r.fen, r.fsize, sz[o], V)
    else:
        for o in range(n):
            if not st[o]:
                _f2_add(tr, LX, LG + 1, sy[o], sz[o], sv + V * o, V)
            else:
                y = sy[o] + 1
                if y > LX:
                    y = LX
                if y > 0:
                    _f2_dot(&r.acc, tr, LG + 1, y, sz[o] + 1, sv + V * o, V)
    scratch_free(sy); scratch_free(sz); scratch_free(sv); scratch_free(st); scratch_free(tr)
    return 0


cdef int _dom_pass(Dom *dm, int32_t mask, int64_t nq, int32_t LX, int32_t LG, Run *r) noexcept nogil:
    """Answer the nq queries of one mask, r.qi[0..nq) (adds to dm.acc).  r:
    buffers of np_ + nq entries (fen: V (LG + 1)).  -1 if memory runs out."""
    cdef int32_t dims[3]
    cdef int32_t nd = 0, j, x
    cdef int64_t i, n, key, nkey
    cdef int64_t *cnt = NULL
    cdef int rc
    cdef int32_t *cxs[3]
    for j in range(dm.qd):
        if mask & (1 << j):
            dims[nd] = j
            nd += 1
    if nq == 0:
        return 0
    n = dm.np_ + nq
    r.np_ = dm.np_
    r.acc.hi = 0.0
    r.acc.lo = 0.0
    cxs[0] = r.cx
    cxs[1] = r.cy
    cxs[2] = r.cw
    for i in range(dm.np_):
        r.cz[i] = dm.pz[i]
        for j in range(nd):
            cxs[j][i] = dm.pc[dm.qd * i + dims[j]]
    for i in range(nq):
        r.cz[dm.np_ + i] = dm.q[r.qi[i]].z
        for j in range(nd):
            cxs[j][dm.np_ + i] = dm.q[r.qi[i]].u[dims[j]]
    if nd == 0:
        for i in range(dm.np_):
            _run_point(r, i)
        for i in range(nq):
            _run_query(r, dm.np_ + i)
        for i in range(dm.np_):
            _fv_clear(r.fen, r.fsize, r.cz[i], r.V)
        irs_dd_add_dd(&dm.acc, r.acc)
        return 0
    # counting sort by (first coordinate, points first)
    nkey = 2 * (<int64_t> LX + 1)
    cnt = <int64_t *> scratch_calloc(nkey + 1, sizeof(int64_t))
    if cnt == NULL:
        return -1
    for i in range(n):
        cnt[2 * r.cx[i] + (1 if i >= dm.np_ else 0) + 1] += 1
    for key in range(nkey):
        cnt[key + 1] += cnt[key]
    if nd == 1 or (nd == 2 and (<int64_t> LX) * (LG + 1) <= 4 * n + 65536):
        # a sweep: the items copied once into that order (read in push order,
        # written to the buckets' runs), then read in a row; nd = 1: a Fenwick
        # tree over z; nd = 2: a 2-D Fenwick tree over (second coordinate, z),
        # small against the items, it stays in cache (O(n log LX log LG))
        rc = _dom_sweep(dm, r, cnt, n, nd, LX, LG)
        scratch_free(cnt)
        if rc != 0:
            return -1
        irs_dd_add_dd(&dm.acc, r.acc)
        return 0
    for i in range(n):
        key = 2 * r.cx[i] + (1 if i >= dm.np_ else 0)
        r.ord[cnt[key]] = i
        cnt[key] += 1
    scratch_free(cnt)
    if nd == 2:
        _cdq2(r, r.ord, r.tmp, 0, n, r.cy)
    else:
        _cdq3(r, 0, n)
    irs_dd_add_dd(&dm.acc, r.acc)
    return 0


cdef int _dom_solve(Dom *dm, int32_t LX, int32_t LG) noexcept nogil:
    """Answers every query pushed (adds to dm.acc); -1 if memory runs out."""
    cdef Run r
    cdef int64_t n, i
    cdef int32_t mask
    cdef int rc = 0
    cdef int64_t *qall = NULL
    cdef int64_t moff[9]
    if dm.np_ == 0 or dm.nq == 0:
        return 0
    memset(&r, 0, sizeof(Run))
    n = dm.np_ + dm.nq
    r.V = dm.V
    r.fsize = LG + 1
    r.pv = dm.pv
    r.q = dm.q
    r.cx = <int32_t *> scratch_malloc(n * sizeof(int32_t))
    r.cy = <int32_t *> scratch_malloc(n * sizeof(int32_t))
    r.cw = <int32_t *> scratch_malloc(n * sizeof(int32_t))
    r.cz = <int32_t *> scratch_malloc(n * sizeof(int32_t))
    qall = <int64_t *> scratch_malloc(dm.nq * sizeof(int64_t))
    r.ord = <int64_t *> scratch_malloc(n * sizeof(int64_t))
    r.tmp = <int64_t *> scratch_malloc(n * sizeof(int64_t))
    r.sub = <int64_t *> scratch_malloc(n * sizeof(int64_t))
    r.tmp2 = <int64_t *> scratch_malloc(n * sizeof(int64_t))
    r.fen = <double *> scratch_calloc(dm.V * (<int64_t> LG + 2), sizeof(double))
    if (r.cx == NULL or r.cy == NULL or r.cw == NULL or r.cz == NULL or qall == NULL
            or r.ord == NULL or r.tmp == NULL or r.sub == NULL or r.tmp2 == NULL or r.fen == NULL):
        rc = -1
    else:
        # the queries grouped by mask, in push order (one pass over them)
        for mask in range(9):
            moff[mask] = 0
        for i in range(dm.nq):
            moff[dm.q[i].mask + 1] += 1
        for mask in range(1 << dm.qd):
            moff[mask + 1] += moff[mask]
        for i in range(dm.nq):
            qall[moff[dm.q[i].mask]] = i
            moff[dm.q[i].mask] += 1
        for mask in range(1 << dm.qd):
            # moff[mask] is now the end of the mask's queries
            r.qi = qall + (moff[mask - 1] if mask > 0 else 0)
            if _dom_pass(dm, mask, moff[mask] - (moff[mask - 1] if mask > 0 else 0), LX, LG, &r) != 0:
                rc = -1
                break
    scratch_free(r.cx); scratch_free(r.cy); scratch_free(r.cw); scratch_free(r.cz); scratch_free(qall); scratch_free(r.ord); scratch_free(r.tmp)
    scratch_free(r.sub); scratch_free(r.tmp2); scratch_free(r.fen)
    return rc


cdef int _dom_push(Dom *dm, const int32_t *u, int32_t z, int32_t mask,
                   const double *c) noexcept nogil:
    cdef DQuery *nq
    cdef int64_t cap
    cdef int32_t j
    if dm.nq == dm.cap:
        cap = 2 * dm.cap + 64
        nq = <DQuery *> scratch_malloc(cap * sizeof(DQuery))
        if nq == NULL:
            return -1
        if dm.nq > 0:
            memcpy(nq, dm.q, dm.nq * sizeof(DQuery))
        scratch_free(dm.q)
        dm.q = nq
        dm.cap = cap
    nq = dm.q + dm.nq
    for j in range(3):
        nq.u[j] = u[j] if j < dm.qd else 0
    nq.z = z
    nq.mask = mask
    for j in range(6):
        nq.c[j] = c[j] if j < dm.V else 0.0
    dm.nq += 1
    return 0


cdef inline void _dom_free(Dom *dm) noexcept nogil:
    scratch_free(dm.pc); scratch_free(dm.pz); scratch_free(dm.pv); scratch_free(dm.q)


cdef int _dom_points(Dom *dm, Topic *t, Work *w, const int32_t *docs, int64_t n, int32_t qd,
                     const int32_t *lx, const int32_t *lg) noexcept nogil:
    """The population of the documents docs[0..n) (qd X occurrences, at most one
    reference one)."""
    cdef int64_t i
    cdef int32_t b, j, lvl
    memset(dm, 0, sizeof(Dom))
    dm.qd = qd
    dm.V = 2 * qd
    dm.np_ = n
    if n == 0:
        return 0
    dm.pc = <int32_t *> scratch_malloc(qd * n * sizeof(int32_t))
    dm.pz = <int32_t *> scratch_malloc(n * sizeof(int32_t))
    dm.pv = <double *> scratch_malloc(2 * qd * n * sizeof(double))
    if dm.pc == NULL or dm.pz == NULL or dm.pv == NULL:
        return -1
    for i in range(n):
        b = docs[i]
        for j in range(qd):
            lvl = t.xlv[t.xptr[b] + j]
            dm.pc[qd * i + j] = lvl
            dm.pv[2 * qd * i + 2 * j] = w.wl[lvl]
            dm.pv[2 * qd * i + 2 * j + 1] = w.fl[lvl]
        dm.pz[i] = t.LG - (t.glv[t.gptr[b]] if t.kg[b] == 1 else t.LG)
    return 0


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


cdef inline int64_t _grid_cells(Topic *t, int32_t k, int32_t qd, const int32_t *lx,
                                const int32_t *lg) noexcept nogil:
    """Cells of the corner grid of document k against a population of qd X levels:
    (d + 2)^qd (e + 2)."""
    cdef int32_t i, d = 0, e = 0, last = -1, lvl
    cdef int64_t cells
    for i in range(t.kx[k]):
        lvl = t.xlv[t.xptr[k] + i]
        if lvl != last:
            d += 1
            last = lvl
    last = -1
    for i in range(t.kg[k]):
        lvl = t.glv[t.gptr[k] + i]
        if lvl != last:
            e += 1
            last = lvl
    if e == 0:
        e = 1
    cells = <int64_t> e + 2
    for i in range(qd):
        cells *= <int64_t> d + 2
        if cells > 2147483647:
            return 2147483647
    return cells


cdef int _doc_queries(Dom *dm, Topic *t, Work *w, int32_t k, bint both, const int32_t *lx,
                      const int32_t *lg, Scratch *sc) noexcept nogil:
    """Push the dominance queries giving, over every document b of the population,
    the pairs "k above b" and (both = 1) "b above k".  -1 if memory runs out."""
    cdef int32_t p = t.kx[k], d = 0, e = 0, i, j, kk, lvl, LX = t.LX, LG = t.LG, qd = dm.qd
    cdef int32_t tq, orient, sz, D2, E2, mask, m, nbits, minus, V = dm.V
    cdef int32_t reg[3]
    cdef int32_t cor[3]
    cdef int32_t u[3]
    cdef int64_t cell, ncell, c0
    cdef double rx, rg, f, sign
    cdef double c[6]
    cdef double *gr = sc.grid
    # distinct X levels of k, with the weights of its occurrences on each
    for i in range(p):
        lvl = t.xlv[t.xptr[k] + i]
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
            lvl = t.glv[t.gptr[k] + i]
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
    ncell = E2
    for j in range(qd):
        ncell *= D2
    nbits = qd + 1
    for orient in range(2 if both else 1):
        # X region i (0..d) and reference region kk (0..e):
        #   orient 0 (k above b): b in (xv[i], xv[i+1]], gb in (gv[kk], gv[kk+1]];
        #     k's occurrences below b: levels xv[1..i], gv[1..kk]
        #   orient 1 (b above k): b in [xv[i], xv[i+1]), gb in [gv[kk], gv[kk+1]);
        #     k's occurrences above b: levels xv[i+1..d], gv[kk+1..e]
        # thresholds: b <= th[i] (prefix form), gb >= gt[kk] (suffix form)
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
        for cell in range(V * ncell):
            gr[cell] = 0.0
        # boxes: X regions reg[0] <= .. <= reg[qd-1] (b1 <= .. <= bq), reference
        # region kk; a corner's X indices are made non-decreasing (b_j <= b_j+1 <=
        # u_j+1 makes u_j > u_j+1 the same as u_j+1)
        for j in range(qd):
            reg[j] = 0
        while True:
            rx = 0.0
            for j in range(qd):
                rx += sc.rr[reg[j]]
            if rx > 0.0:
                for kk in range(e + 1):
                    rg = sc.ss[kk]
                    if rg == 0.0:
                        continue
                    f = (rg if rg < rx else rx) / rx
                    for j in range(qd):
                        c[2 * j] = f * sc.sf[reg[j]]
                        c[2 * j + 1] = f * sc.sw[reg[j]]
                    for m in range(1 << nbits):
                        minus = 0
                        for j in range(qd):
                            if m & (1 << j):
                                cor[j] = reg[j]
                                minus += 1
                            else:
                                cor[j] = reg[j] + 1
                        for j in range(qd - 2, -1, -1):
                            if cor[j] > cor[j + 1]:
                                cor[j] = cor[j + 1]
                        if m & (1 << qd):
                            sz = kk + 1
                            minus += 1
                        else:
                            sz = kk
                        sign = -1.0 if minus & 1 else 1.0
                        cell = 0
                        for j in range(qd):
                            cell = cell * D2 + cor[j]
                        cell = V * (cell * E2 + sz)
                        for j in range(V):
                            gr[cell + j] += sign * c[j]
            # next non-decreasing region tuple
            j = qd - 1
            while j >= 0 and reg[j] == d:
                j -= 1
            if j < 0:
                break
            reg[j] += 1
            for i in range(j + 1, qd):
                reg[i] = reg[j]
        # the corners as queries (index 0 in X is -inf: empty; e+1 in gb is +inf)
        for cell in range(ncell):
            sz = <int32_t> (cell % E2)
            if sz > e:
                continue
            c0 = V * cell
            m = 0
            for j in range(V):
                if gr[c0 + j] != 0.0:
                    m = 1
                    break
            if not m:
                continue
            tq = sc.gt[sz]
            if tq > LG:
                continue
            c0 = cell // E2
            mask = 0
            m = 1
            for j in range(qd - 1, -1, -1):
                cor[j] = <int32_t> (c0 % D2)
                c0 //= D2
                if cor[j] == 0:
                    m = 0
            if not m:
                continue
            for j in range(qd):
                u[j] = sc.th[cor[j]]
                # constrained unless implied (+inf, or the same bound as b_j+1)
                if u[j] < 0:
                    m = 0
                if cor[j] <= d and (j == qd - 1 or cor[j] < cor[j + 1]):
                    mask |= 1 << j
            if not m:
                continue
            if _dom_push(dm, u, LG - tq, mask, gr + V * cell) != 0:
                return -1
    return 0


cdef double _multi_pairs(Topic *t, Work *w, const int32_t *lx,
                         const int32_t *lg, bint foreign_tail) noexcept nogil:
    """Sum of the priority terms of every (ordered) pair of two documents with several
    memberships, each way (see above).  Sets ``w.oom`` (and returns 0) if memory runs
    out."""
    cdef int32_t k, a, b, l, tail = t.LG if foreign_tail else -1, LG = t.LG
    cdef int32_t maxkx = 3, maxkg = 1, size = t.LG + 1, q, qd
    cdef int64_t i, j, start, nhv = 0, nk1 = 0, ncell, maxcell, xa = t.xa, ga = t.ga
    cdef int64_t nl[4]
    cdef double acc = 0.0, F, G
    cdef int32_t *lq[4]
    cdef int32_t *hv = NULL
    cdef int32_t *k1 = NULL
    cdef char *grid_ok = NULL
    cdef Dom dm
    cdef Scratch sc
    cdef PairTab pt
    cdef bint tabs_ok, by_tab
    cdef int rc = 0
    memset(&dm, 0, sizeof(Dom))
    memset(&pt, 0, sizeof(PairTab))
    tabs_ok = False
    memset(&sc, 0, sizeof(Scratch))
    nl[2] = 0
    nl[3] = 0
    lq[2] = <int32_t *> scratch_malloc((t.D + 1) * sizeof(int32_t))
    lq[3] = <int32_t *> scratch_malloc((t.D + 1) * sizeof(int32_t))
    hv = <int32_t *> scratch_malloc((t.D + 1) * sizeof(int32_t))
    k1 = <int32_t *> scratch_malloc((t.D + 1) * sizeof(int32_t))
    grid_ok = <char *> scratch_malloc((t.D + 1) * sizeof(char))
    if lq[2] == NULL or lq[3] == NULL or hv == NULL or k1 == NULL or grid_ok == NULL:
        rc = -1
    if rc == 0:
        for k in range(t.D):
            if t.kx[k] == 0 or (t.kx[k] == 1 and t.kg[k] <= 1):
                continue  # absent from x, or simple
            if t.kg[k] == 0 and not foreign_tail:
                continue  # relates to nothing in the reference
            if (t.kx[k] == 2 or t.kx[k] == 3) and t.kg[k] <= 1:
                lq[t.kx[k]][nl[t.kx[k]]] = k
                nl[t.kx[k]] += 1
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
        # the level tables of _tab_build (LX + 1 and LG + 2 entries), for the heavy
        # and K1 documents only (without them, pairs are merged one by one)
        if nhv + nk1 > 0:
            pt.xab = <int32_t *> scratch_malloc((t.LX + 1) * sizeof(int32_t))
            pt.xbe = <int32_t *> scratch_malloc((t.LX + 1) * sizeof(int32_t))
            pt.wab = <double *> scratch_malloc((t.LX + 1) * sizeof(double))
            pt.wba = <double *> scratch_malloc((t.LX + 1) * sizeof(double))
            pt.gab = <int32_t *> scratch_malloc((t.LG + 2) * sizeof(int32_t))
            pt.gbe = <int32_t *> scratch_malloc((t.LG + 2) * sizeof(int32_t))
            tabs_ok = (pt.xab != NULL and pt.xbe != NULL and pt.wab != NULL and pt.wba != NULL
                       and pt.gab != NULL and pt.gbe != NULL)
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
                    k = t.xk[i - xa]
                    if t.kx[k] == 1 and t.kg[k] >= 2:
                        q = t.glv[t.gptr[k] + t.kg[k] - 1]
                        F = fenwick_prefix(w.fen_f, q)
                        G = fenwick_prefix(w.fen_g, q)
                        acc += w.wl[l] * F + w.fl[l] * G
                    i += 1
                for j in range(start, i):
                    k = t.xk[j - xa]
                    if t.kx[k] == 1 and t.kg[k] >= 2:
                        q = t.gl1[k]
                        fenwick_add(w.fen_f, size, q, w.fl[l])
                        fenwick_add(w.fen_g, size, q, w.wl[l])
        # --- heavy x heavy, heavy x K1: one pair at a time ----------------------
        for i in range(nhv):
            a = hv[i]
            acc += _pair_term(t, w, a, a, lx, lg, tail)
            if tabs_ok and _tab_worth(t, nhv - i - 1 + nk1):
                _tab_build(t, w, a, tail, &pt)
                for j in range(i + 1, nhv):
                    acc += _tab_pair(t, &pt, hv[j], tail)
                for j in range(nk1):
                    acc += _tab_pair(t, &pt, k1[j], tail)
            else:
                for j in range(i + 1, nhv):
                    acc += _pair_both(t, w, a, hv[j], tail)
                for j in range(nk1):
                    acc += _pair_both(t, w, a, k1[j], tail)
    # --- scratch of the region grids ------------------------------------------------
    if rc == 0 and nl[2] + nl[3] > 0:
        sc.xv = <int32_t *> scratch_malloc((maxkx + 2) * sizeof(int32_t))
        sc.th = <int32_t *> scratch_malloc((maxkx + 2) * sizeof(int32_t))
        sc.xc = <double *> scratch_malloc(6 * (maxkx + 2) * sizeof(double))
        sc.gv = <int32_t *> scratch_malloc((maxkg + 2) * sizeof(int32_t))
        sc.gt = <int32_t *> scratch_malloc((maxkg + 2) * sizeof(int32_t))
        sc.gc = <double *> scratch_malloc(2 * (maxkg + 2) * sizeof(double))
        if (sc.xv == NULL or sc.th == NULL or sc.xc == NULL or sc.gv == NULL or sc.gt == NULL
                or sc.gc == NULL):
            rc = -1
        else:
            sc.xf = sc.xc + (maxkx + 2)
            sc.xw = sc.xc + 2 * (maxkx + 2)
            sc.rr = sc.xc + 3 * (maxkx + 2)
            sc.sf = sc.xc + 4 * (maxkx + 2)
            sc.sw = sc.xc + 5 * (maxkx + 2)
            sc.ss = sc.gc + (maxkg + 2)
    # --- every document against the L2 then the L3 population --------------------
    for qd in range(2, 4):
        if rc != 0 or nl[qd] == 0:
            continue
        # the queries: Lq documents "a above b" (ordered pairs within the
        # population), L3 documents against L2 both ways, heavy and K1 documents
        # both ways, or one pair at a time where that is cheaper: with the
        # level tables a pair costs about a quarter of a grid cell's dominance
        # query, so the grid is taken when it has at most a quarter as many
        # cells as the population has documents (without the tables, when its
        # cells do not outnumber the population four times)
        maxcell = 5 * 5 * 3 if qd == 2 else 5 * 5 * 5 * 3
        by_tab = tabs_ok and _tab_worth(t, nl[qd])
        for i in range(nhv + nk1):
            k = hv[i] if i < nhv else k1[i - nhv]
            ncell = _grid_cells(t, k, qd, lx, lg)
            grid_ok[k] = 4 * ncell <= nl[qd] if by_tab else ncell <= 4 * nl[qd] + 64
            if not grid_ok[k]:
                if by_tab:
                    _tab_build(t, w, k, tail, &pt)
                    for j in range(nl[qd]):
                        acc += _tab_pair(t, &pt, lq[qd][j], tail)
                else:
                    for j in range(nl[qd]):
                        acc += _pair_both(t, w, k, lq[qd][j], tail)
            elif ncell > maxcell:
                maxcell = ncell
        sc.grid = <double *> scratch_malloc(2 * qd * maxcell * sizeof(double))
        if sc.grid == NULL or _dom_points(&dm, t, w, lq[qd], nl[qd], qd, lx, lg) != 0:
            rc = -1
        if rc == 0:
            for i in range(nl[qd]):
                if _doc_queries(&dm, t, w, lq[qd][i], False, lx, lg, &sc) != 0:
                    rc = -1
                    break
        if rc == 0 and qd == 2:
            for i in range(nl[3]):
                if _doc_queries(&dm, t, w, lq[3][i], True, lx, lg, &sc) != 0:
                    rc = -1
                    break
        if rc == 0:
            for i in range(nhv + nk1):
                k = hv[i] if i < nhv else k1[i - nhv]
                if grid_ok[k] and _doc_queries(&dm, t, w, k, True, lx, lg, &sc) != 0:
                    rc = -1
                    break
        if rc == 0:
            rc = _dom_solve(&dm, t.LX, LG)
            acc += irs_dd_value(dm.acc)
        _dom_free(&dm)
        memset(&dm, 0, sizeof(Dom))
        scratch_free(sc.grid)
        sc.grid = NULL
    scratch_free(lq[2]); scratch_free(lq[3]); scratch_free(hv); scratch_free(k1); scratch_free(grid_ok)
    scratch_free(pt.xab); scratch_free(pt.xbe); scratch_free(pt.wab); scratch_free(pt.wba)
    scratch_free(pt.gab); scratch_free(pt.gbe)
    scratch_free(sc.xv); scratch_free(sc.th); scratch_free(sc.xc); scratch_free(sc.gv); scratch_free(sc.gt); scratch_free(sc.gc)
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
            beta = _simple_ref_level(t, t.xk[i - xa], foreign_tail)
            if beta >= 0:
                F = fenwick_prefix(w.fen_f + 1, beta)
                G = fenwick_prefix(w.fen_g + 1, beta)
                acc += w.wl[l] * F + w.fl[l] * G
            i += 1
        for j in range(start, i):
            beta = _simple_ref_level(t, t.xk[j - xa], foreign_tail)
            if beta >= 0:
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
    elif nm > 0 and t.LX > 1:
        # (on a single level no two occurrences are in a priority relation)
        acc += _multi_pairs(t, w, lxp, lgp, foreign_tail)
    # --- a document with several memberships against the simple ones ----------
    if nm > 0:
        acc += _multi_simple(t, w, x_doc, x_level, g_level, foreign_tail)
    # --- relations with the long tail -----------------------------------------
    if Wt > 0.0:
        for i in range(xa, t.xb):
            k = t.xk[i - xa]
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
    cdef int32_t na = t.kx[k], ng_ = t.kg[k], LG = t.LG, ia = 0, ib = 0, x, y, v
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
        y = _simple_ref_level(t, t.xk[pos - xa], foreign_tail)
        if y < 0:
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


cdef void _simple_table(Topic *t, Work *w, const int32_t *lx, bint foreign_tail,
                        double *P) noexcept nogil:
    """P[x][y] (row stride LG + 2, two values per cell): the wl and fl sums of the
    simple documents on an X level < x with reference level < y (the foreign tail
    at LG), for x in 0..LX and y in 0..LG+1; P is zeroed by the caller.  The
    occurrences are counted per (level, reference level), then summed."""
    cdef int64_t YS = <int64_t> t.LG + 2, pos, row, prev
    cdef int32_t k, beta, x, y
    cdef double cf
    # counts (in P's fl slot of row x + 1) of the simple documents on level x
    for pos in range(t.xa, t.xb):
        beta = _simple_ref_level(t, t.xk[pos - t.xa], foreign_tail)
        if beta >= 0:
            P[2 * ((lx[pos] + 1) * YS + beta + 1) + 1] += 1.0
    for x in range(t.LX):
        row = (<int64_t> x + 1) * YS
        prev = <int64_t> x * YS
        cf = 0.0
        for y in range(1, t.LG + 2):
            # cf: the documents of level x with reference level < y
            cf += P[2 * (row + y) + 1]
            P[2 * (row + y)] = P[2 * (prev + y)] + w.wl[x] * cf
            P[2 * (row + y) + 1] = P[2 * (prev + y) + 1] + w.fl[x] * cf
    return


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
    cdef int64_t cell, row0, row1, YS = <int64_t> LG + 2, c00, c01, c10, c11
    cdef double *P = NULL
    cdef bint dense
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
    # the prefix sums at the corners: a dense (LX + 1) x (LG + 2) table when it is
    # no bigger than the corners themselves (read in any order, it stays in cache),
    # else the corners' values one by one from a sweep (grid)
    dense = (<int64_t> LX + 1) * YS <= grid_tot + 2 * <int64_t> t.nx
    mdoc = <int32_t *> scratch_malloc(nmd * sizeof(int32_t))
    xb_ptr = <int64_t *> scratch_malloc((nmd + 1) * sizeof(int64_t))
    gb_ptr = <int64_t *> scratch_malloc((nmd + 1) * sizeof(int64_t))
    grid_ptr = <int64_t *> scratch_malloc((nmd + 1) * sizeof(int64_t))
    xbv = <int32_t *> scratch_malloc(nxb_tot * sizeof(int32_t))
    gbv = <int32_t *> scratch_malloc(ngb_tot * sizeof(int32_t))
    q_ptr = <int64_t *> scratch_calloc(LX + 2, sizeof(int64_t))
    if dense:
        P = <double *> scratch_calloc(2 * (<int64_t> LX + 1) * YS, sizeof(double))
    else:
        q_fill = <int64_t *> scratch_malloc((LX + 2) * sizeof(int64_t))
        grid = <double *> scratch_malloc(grid_tot * sizeof(double))
        q_slot = <int32_t *> scratch_malloc(nxb_tot * sizeof(int32_t))
        q_idx = <int32_t *> scratch_malloc(nxb_tot * sizeof(int32_t))
    if (mdoc == NULL or xb_ptr == NULL or gb_ptr == NULL or grid_ptr == NULL or xbv == NULL
            or gbv == NULL or q_ptr == NULL or (dense and P == NULL)
            or (not dense and (q_fill == NULL or grid == NULL or q_slot == NULL or q_idx == NULL))):
        scratch_free(mdoc); scratch_free(xb_ptr); scratch_free(gb_ptr); scratch_free(grid_ptr); scratch_free(xbv); scratch_free(gbv)
        scratch_free(grid); scratch_free(q_ptr); scratch_free(q_fill); scratch_free(q_slot); scratch_free(q_idx); scratch_free(P)
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
            v = t.xlv[t.xptr[k] + i]
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
            v = t.glv[t.gptr[k] + i] if t.kg[k] > 0 else LG
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
    if dense:
        _simple_table(t, w, lx, foreign_tail, P)
    else:
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
                beta = _simple_ref_level(t, t.xk[pos - xa], foreign_tail)
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
            v = t.xlv[t.xptr[k] + i]
            sf_all += w.fl[v]
            sw_all += w.wl[v]
        ia = 0
        sfl = 0.0
        swl = 0.0
        for i in range(K):
            x = xbv[xb_ptr[s] + i]
            # occurrences of k strictly above x, and at x
            while ia < na and t.xlv[t.xptr[k] + ia] < x:
                v = t.xlv[t.xptr[k] + ia]
                sfl += w.fl[v]
                swl += w.wl[v]
                ia += 1
            ib = ia
            sfg = sf_all - sfl
            swg = sw_all - swl
            while ib < na and t.xlv[t.xptr[k] + ib] == x:
                v = t.xlv[t.xptr[k] + ib]
                sfg -= w.fl[v]
                swg -= w.wl[v]
                ib += 1
            cxl = ia
            cxg = na - ib
            ja = 0
            for j in range(J):
                y = gbv[gb_ptr[s] + j]
                if ng_ > 0:
                    while ja < ng_ and t.glv[t.gptr[k] + ja] < y:
                        ja += 1
                    jb = ja
                    while jb < ng_ and t.glv[t.gptr[k] + jb] == y:
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
                if dense:
                    c00 = 2 * (xbv[xb_ptr[s] + i] * YS + gbv[gb_ptr[s] + j])
                    c01 = 2 * (xbv[xb_ptr[s] + i] * YS + gbv[gb_ptr[s] + j + 1])
                    c10 = 2 * (xbv[xb_ptr[s] + i + 1] * YS + gbv[gb_ptr[s] + j])
                    c11 = 2 * (xbv[xb_ptr[s] + i + 1] * YS + gbv[gb_ptr[s] + j + 1])
                    Sw = P[c11] - P[c01] - P[c10] + P[c00]
                    Sf = P[c11 + 1] - P[c01 + 1] - P[c10 + 1] + P[c00 + 1]
                else:
                    row0 = grid_ptr[s] + 2 * (<int64_t> i * (J + 1) + j)
                    row1 = row0 + 2 * (<int64_t> (J + 1))
                    Sw = grid[row1 + 2] - grid[row0 + 2] - grid[row1] + grid[row0]
                    Sf = grid[row1 + 3] - grid[row0 + 3] - grid[row1 + 1] + grid[row0 + 1]
                acc += coefW * Sw + coefF * Sf
    scratch_free(mdoc); scratch_free(xb_ptr); scratch_free(gb_ptr); scratch_free(grid_ptr); scratch_free(xbv); scratch_free(gbv)
    scratch_free(grid); scratch_free(q_ptr); scratch_free(q_fill); scratch_free(q_slot); scratch_free(q_idx); scratch_free(P)
    return acc


cdef double _relatedness_pairwise(Topic *t, Work *w, const int32_t[::1] x_level,
                                  const int32_t[::1] x_cluster, const int32_t[::1] g_cluster,
                                  double Wt) noexcept nogil:
    """Relatedness with the pairs of multi documents inside a cluster enumerated one
    at a time (the former kernel, kept as the tests' reference)."""
    cdef int64_t i, start, xa = t.xa, ga = t.ga
    cdef int32_t k, g, cl, nm, nt, a, b, ax, ag, m, q
    cdef double acc = Wt, T, f
    i = xa
    while i < t.xb:
        cl = x_cluster[i]
        start = i
        nm = 0
        nt = 0
        while i < t.xb and x_cluster[i] == cl:
            k = t.xk[i - xa]
            if t.kx[k] == 1 and t.kg[k] <= 1:
                if t.kg[k] == 1:
                    g = t.gc1[k]
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
                T += 2.0 * w.cnt[t.gcv[t.gptr[k] + q]]
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


cdef struct HK:
    int64_t key
    int32_t idx


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


cdef inline int32_t _shared2(const int32_t *occ_a, int32_t na, const int32_t *occ_b, int32_t nb,
                             const int32_t *cluster, int64_t base, int32_t *s) noexcept nogil:
    """Clusters shared by two sorted occurrence lists; the first two in s[0], s[1]."""
    cdef int32_t ia = 0, ib = 0, n = 0, ca, cb
    while ia < na and ib < nb:
        ca = cluster[base + occ_a[ia]]
        cb = cluster[base + occ_b[ib]]
        if ca == cb:
            if n < 2:
                s[n] = ca
            n += 1
            ia += 1
            ib += 1
        elif ca < cb:
            ia += 1
        else:
            ib += 1
    return n


cdef inline bint _same_lists(const int32_t *occ_a, const int32_t *occ_b, int32_t n,
                             const int32_t *cluster, int64_t base) noexcept nogil:
    cdef int32_t i
    for i in range(n):
        if cluster[base + occ_a[i]] != cluster[base + occ_b[i]]:
            return False
    return True


cdef int64_t _class_pair_keys(const Topic *t, const int32_t *rep, int32_t nc, HK *keys) noexcept nogil:
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


cdef inline bint _class_pair_shares(const Topic *t, int64_t side, int32_t c1, int32_t c2, int32_t a, int32_t b,
                                    const int32_t *xc, const int32_t *gc, int32_t *ax, int32_t *ag) noexcept nogil:
    """Documents a and b met at the key of clusters (c1, c2) on ``side`` (0: X,
    1: reference): their shared X clusters in ax and reference clusters in ag,
    and True when this key is where the pair is counted (c1, c2 are their two
    smallest shared clusters on that side; through reference clusters only when
    they share exactly one X cluster), else False."""
    cdef int32_t s[2]
    if side == 0:
        ax[0] = _shared2(t.xocc + t.xptr[a], t.kx[a], t.xocc + t.xptr[b], t.kx[b], xc, t.xa, s)
        if s[0] != c1 or s[1] != c2:
            return False
        ag[0] = _intersect(t.gocc + t.gptr[a], t.kg[a], t.gocc + t.gptr[b], t.kg[b], gc, t.ga)
        return True
    ax[0] = _intersect(t.xocc + t.xptr[a], t.kx[a], t.xocc + t.xptr[b], t.kx[b], xc, t.xa)
    if ax[0] != 1:
        return False
    ag[0] = _shared2(t.gocc + t.gptr[a], t.kg[a], t.gocc + t.gptr[b], t.kg[b], gc, t.ga, s)
    return s[0] == c1 and s[1] == c2


cdef double _related_exceptional(Topic *t, Work *w, const int32_t *xc, const int32_t *gc,
                                 const double *cw) noexcept nogil:
    """The corrections (f - ag) of the pairs a != b of multi documents that share two
    X clusters, or one X cluster and two reference clusters, each counted in every
    X cluster they share (weight cw[cl] = w(level) / |cl|).  Documents with the same
    X and reference clusters form a class (its pairs are counted at once); the pairs
    of classes are found through the pairs of clusters they share, each at its two
    smallest shared clusters.  Returns NaN when the keys would outgrow the topic
    (the caller enumerates pairs instead); sets ``w.oom`` if memory runs out."""
    cdef int64_t xa = t.xa, ga = t.ga, nkeys = 0, i, j, lo, hi, pos
    cdef int32_t k, nm = 0, nc = 0, a, b, ax, ag, i1, i2, c1, c2, ci, cj, j0
    cdef int32_t s[2]
    cdef uint64_t h
    cdef double acc = 0.0, f, corr, S
    cdef HK *hk = NULL
    cdef HK *keys = NULL
    cdef int32_t *rep = NULL
    cdef int64_t *cnt = NULL
    for k in range(t.D):
        if t.kx[k] > 0 and t.kg[k] > 0 and not (t.kx[k] == 1 and t.kg[k] == 1):
            nm += 1
            nkeys += (<int64_t> t.kx[k]) * (t.kx[k] - 1) // 2 + (<int64_t> t.kg[k]) * (t.kg[k] - 1) // 2
    if nm < 2:
        return 0.0
    if nkeys > 16 * (<int64_t> t.nx + t.ng) + 1000000:
        return NAN
    hk = <HK *> scratch_malloc(nm * sizeof(HK))
    rep = <int32_t *> scratch_malloc(nm * sizeof(int32_t))
    cnt = <int64_t *> scratch_malloc(nm * sizeof(int64_t))
    keys = <HK *> scratch_malloc((nkeys + 1) * sizeof(HK))
    if hk == NULL or rep == NULL or cnt == NULL or keys == NULL:
        scratch_free(hk); scratch_free(rep); scratch_free(cnt); scratch_free(keys)
        w.oom = 1
        return 0.0
    # classes: documents with identical cluster lists on both sides
    nm = 0
    for k in range(t.D):
        if t.kx[k] > 0 and t.kg[k] > 0 and not (t.kx[k] == 1 and t.kg[k] == 1):
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
                        and _same_lists(t.xocc + t.xptr[a], t.xocc + t.xptr[k], t.kx[k], xc, xa)
                        and _same_lists(t.gocc + t.gptr[a], t.gocc + t.gptr[k], t.kg[k], gc, ga)):
                    cnt[j] += 1
                    break
        lo = hi
    # pairs inside a class: ax = kx, ag = kg, every X cluster shared
    for ci in range(nc):
        if cnt[ci] < 2:
            continue
        a = rep[ci]
        f = <double> (t.kg[a] if t.kg[a] < t.kx[a] else t.kx[a]) / <double> t.kx[a]
        corr = f - <double> t.kg[a]
        if corr == 0.0:
            continue
        S = 0.0
        for i1 in range(t.kx[a]):
            S += cw[t.xcv[t.xptr[a] + i1]]
        acc += <double> (cnt[ci] * (cnt[ci] - 1)) * corr * S
    # keys: each class's pairs of X clusters (type 0) and of reference clusters (type 1)
    pos = _class_pair_keys(t, rep, nc, keys)
    lo = 0
    while lo < pos:
        hi = lo
        while hi < pos and keys[hi].key == keys[lo].key:
            hi += 1
        c1 = <int32_t> ((keys[lo].key >> 31) & 0x7FFFFFFF)
        c2 = <int32_t> (keys[lo].key & 0x7FFFFFFF)
        for i in range(lo, hi):
            ci = keys[i].idx
            a = rep[ci]
            for j in range(i + 1, hi):
                cj = keys[j].idx
                b = rep[cj]
                if not _class_pair_shares(t, keys[lo].key >> 62, c1, c2, a, b, xc, gc, &ax, &ag):
                    continue    # counted at another key of the pair
                f = <double> (ag if ag < ax else ax) / <double> ax
                corr = f - <double> ag
                if corr == 0.0:
                    continue
                S = 0.0
                i1 = 0
                i2 = 0
                while i1 < t.kx[a] and i2 < t.kx[b]:
                    c1 = t.xcv[t.xptr[a] + i1]
                    c2 = t.xcv[t.xptr[b] + i2]
                    if c1 == c2:
                        S += cw[c1]
                        i1 += 1
                        i2 += 1
                    elif c1 < c2:
                        i1 += 1
                    else:
                        i2 += 1
                c1 = <int32_t> ((keys[lo].key >> 31) & 0x7FFFFFFF)
                c2 = <int32_t> (keys[lo].key & 0x7FFFFFFF)
                acc += 2.0 * <double> (cnt[ci] * cnt[cj]) * corr * S
        lo = hi
    scratch_free(hk); scratch_free(rep); scratch_free(cnt); scratch_free(keys)
    return acc


cdef double _relatedness(Topic *t, Work *w, const int32_t[::1] x_level,
                         const int32_t[::1] x_cluster, const int32_t[::1] g_cluster,
                         double Wt, bint pairwise) noexcept nogil:
    """Relatedness: per X cluster, the pairs of its occurrences from contingency
    counts over the reference clusters (sum of squares: every pair sharing one X
    cluster and at most one reference cluster counts ag), plus the self pairs of
    multi documents, plus the corrections of the pairs sharing two clusters
    (_related_exceptional)."""
    cdef int64_t i, j, start, xa = t.xa, ga = t.ga
    cdef int32_t k, g, cl, nt, m, q, nm = 0
    cdef double acc = Wt, T, ex
    cdef double *cw = NULL
    if pairwise:
        return _relatedness_pairwise(t, w, x_level, x_cluster, g_cluster, Wt)
    for k in range(t.D):
        if t.kx[k] > 0 and not (t.kx[k] == 1 and t.kg[k] <= 1):
            nm += 1
    if nm > 0:
        cw = <double *> scratch_malloc((t.CX + 1) * sizeof(double))
        if cw == NULL:
            w.oom = 1
            return 0.0
    i = xa
    while i < t.xb:
        cl = x_cluster[i]
        start = i
        nt = 0
        T = 0.0
        while i < t.xb and x_cluster[i] == cl:
            k = t.xk[i - xa]
            if t.kx[k] == 1 and t.kg[k] <= 1:
                if t.kg[k] == 1:
                    g = t.gc1[k]
                    if w.cnt[g] == 0.0:
                        w.touched[nt] = g
                        nt += 1
                    w.cnt[g] += 1.0
            else:
                for q in range(t.kg[k]):
                    g = t.gcv[t.gptr[k] + q]
                    if w.cnt[g] == 0.0:
                        w.touched[nt] = g
                        nt += 1
                    w.cnt[g] += 1.0
            i += 1
        m = <int32_t> (i - start)
        for q in range(nt):
            T += w.cnt[w.touched[q]] * w.cnt[w.touched[q]]
        if nm > 0:
            # self pairs of multi documents: min(kx, kg) / kx instead of the kg counted
            for j in range(start, start + m):
                k = t.xk[j - xa]
                if not (t.kx[k] == 1 and t.kg[k] <= 1):
                    T += <double> (t.kg[k] if t.kg[k] < t.kx[k] else t.kx[k]) / <double> t.kx[k] - t.kg[k]
            cw[cl] = w.wl[x_level[start]] / m
        for q in range(nt):
            w.cnt[w.touched[q]] = 0.0
        acc += w.wl[x_level[start]] * T / m
    if nm == 0:
        return acc
    ex = _related_exceptional(t, w, &x_cluster[0], &g_cluster[0] if t.ng > 0 else NULL, cw)
    scratch_free(cw)
    if isnan(ex):
        return _relatedness_pairwise(t, w, x_level, x_cluster, g_cluster, Wt)
    return acc + ex


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


cdef enum:
    SMALL_CLUSTER = 64      # clusters checked for repeated documents in a small hash set
    SMALL_SET = 256         # its slots (a power of two, >= 2 SMALL_CLUSTER)


cdef int _check_side(const int64_t[::1] ptr, const int32_t[::1] doc, const int32_t[::1] level,
                     const int32_t[::1] cluster, int64_t n_docs, int64_t ntab, str fn,
                     str side) except -1:
    """The memory preconditions of one side (ValueError): ``ptr`` CSR over the
    occurrences (from >= 0, non-decreasing, within ``doc``; doc/level/cluster of
    one length); ``0 <= doc < n_docs``; per topic, levels and clusters start at
    0 and rise by 0 or 1 from one occurrence to the next (sorted, consecutive),
    a new level starts a new cluster, and a document occurs at most once per
    cluster: the first SMALL_CLUSTER occurrences of a cluster in a small hash set
    (its slots stamped with the cluster), the rest with a table of the documents'
    last cluster (``ntab`` entries, made when a cluster first needs it)."""
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
        if b > doc.shape[0]:
            raise ValueError(f"{fn}: {side}_ptr out of range")
        for i in range(a, b):
            d = doc[i]
            if d < 0 or d >= n_docs or d >= ntab:
                raise ValueError(f"{fn}: {side}_doc[{i}] = {d} is not a document code 0..{n_docs - 1}")
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


cdef int64_t _check_sides(const int64_t[::1] x_ptr, const int32_t[::1] x_doc, const int32_t[::1] x_level,
                      const int32_t[::1] x_cluster, const int64_t[::1] g_ptr, const int32_t[::1] g_doc,
                      const int32_t[::1] g_level, const int32_t[::1] g_cluster, int64_t n_docs,
                      Py_ssize_t n_out, str fn) except -1:
    """Checks both sides; returns the size of the document tables: the largest
    document code + 1 (at most n_docs)."""
    cdef Py_ssize_t nt = x_ptr.shape[0] - 1, ti
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
    _check_side(x_ptr, x_doc, x_level, x_cluster, n_docs, ntab, fn, "x")
    _check_side(g_ptr, g_doc, g_level, g_cluster, n_docs, ntab, fn, "g")
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
    if not uniform and not (0.0 < c < INFINITY):
        raise ValueError(f"rs_side: the weighting constant c must be positive and finite, got {c!r}")
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
                             x_doc, x_level, x_cluster, g_doc, g_level, g_cluster, False)
                _level_weights(&t, &w, x_level, c, uniform, &Wt, &Wr)
                out_priority[ti] = _priority(&t, &w, x_doc, x_level, g_level, uniform,
                                             foreign_tail, Wt, Wr, pairwise)
                out_relatedness[ti] = _relatedness(&t, &w, x_level, x_cluster,
                                                   g_cluster, Wt, pairwise)
                if w.oom:
                    rc = -1
                # both are weighted means of ratios in [0, 1]: what lies outside
                # is rounding
                out_priority[ti] = _unit(out_priority[ti])
                out_relatedness[ti] = _unit(out_relatedness[ti])
                if ti + 1 < nt:
                    _release_topic(&t, &w)   # (after the last topic, w is freed)
                if rc != 0:
                    break
        _free_work(&w)
    if rc != 0:
        raise MemoryError("rs_side: cannot allocate work space")


cdef int _ebc_multi(Topic *t, Work *w, const int32_t *xc, const int32_t *gc, const int32_t *cstart,
                    double *total) noexcept nogil:
    """Extended BCubed, documents with several memberships: adds sum_d S(d) / N(d)
    to total, N(d) the documents sharing an X cluster with d, S(d) their sum of
    min(ax, ag) / ax.  Per X cluster, contingency counts give sum_e ax ag and
    sum_e ax over the cluster mates (exact for the pairs with ax = 1 and ag <= 1);
    the other pairs (sharing two clusters on either side, the self pair) are
    corrected one class pair at a time, as in _related_exceptional.  Returns 0,
    -1 if memory runs out, 1 if the keys would outgrow the topic (the caller scans
    the neighbourhoods instead)."""
    cdef int64_t xa = t.xa, ga = t.ga, nkeys = 0, i, j, lo, hi, pos
    cdef int32_t k, nm = 0, nc = 0, a, b, ax, ag, i1, i2, c1, c2, ci, cj, j0, cl, g, q, nt_
    cdef int32_t s[2]
    cdef uint64_t h
    cdef double f, corr, ncorr
    cdef HK *hk = NULL
    cdef HK *keys = NULL
    cdef int32_t *rep = NULL
    cdef int64_t *cnt = NULL
    cdef double *S1 = NULL
    cdef double *N1 = NULL
    for k in range(t.D):
        if t.kx[k] > 0 and not (t.kx[k] == 1 and t.kg[k] <= 1):
            nm += 1
            nkeys += (<int64_t> t.kx[k]) * (t.kx[k] - 1) // 2 + (<int64_t> t.kg[k]) * (t.kg[k] - 1) // 2
    if nm == 0:
        return 0
    if nkeys > 16 * (<int64_t> t.nx + t.ng) + 1000000:
        return 1
    hk = <HK *> scratch_malloc(nm * sizeof(HK))
    rep = <int32_t *> scratch_malloc(nm * sizeof(int32_t))
    cnt = <int64_t *> scratch_malloc(nm * sizeof(int64_t))
    keys = <HK *> scratch_malloc((nkeys + 1) * sizeof(HK))
    S1 = <double *> scratch_calloc(t.D + 1, sizeof(double))
    N1 = <double *> scratch_calloc(t.D + 1, sizeof(double))
    if hk == NULL or rep == NULL or cnt == NULL or keys == NULL or S1 == NULL or N1 == NULL:
        scratch_free(hk); scratch_free(rep); scratch_free(cnt); scratch_free(keys); scratch_free(S1); scratch_free(N1)
        return -1
    # per X cluster: contingency counts over every document's reference clusters
    for cl in range(t.CX):
        nt_ = 0
        for i in range(xa + cstart[cl], xa + cstart[cl + 1]):
            k = t.xk[i - xa]
            for q in range(t.kg[k]):
                g = t.gcv[t.gptr[k] + q]
                if w.cnt[g] == 0.0:
                    w.touched[nt_] = g
                    nt_ += 1
                w.cnt[g] += 1.0
        for i in range(xa + cstart[cl], xa + cstart[cl + 1]):
            k = t.xk[i - xa]
            if t.kx[k] == 1 and t.kg[k] <= 1:
                continue
            N1[k] += cstart[cl + 1] - cstart[cl]
            for q in range(t.kg[k]):
                S1[k] += w.cnt[t.gcv[t.gptr[k] + q]]
        for q in range(nt_):
            w.cnt[w.touched[q]] = 0.0
    # classes: documents with identical cluster lists on both sides
    nm = 0
    for k in range(t.D):
        if t.kx[k] > 0 and not (t.kx[k] == 1 and t.kg[k] <= 1):
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
                        and _same_lists(t.xocc + t.xptr[a], t.xocc + t.xptr[k], t.kx[k], xc, xa)
                        and _same_lists(t.gocc + t.gptr[a], t.gocc + t.gptr[k], t.kg[k], gc, ga)):
                    cnt[j] += 1
                    break
        lo = hi
    # per class (S1, N1 of its representative, identical for its members): the
    # self pair and the pairs inside the class (ax = kx, ag = kg)
    for ci in range(nc):
        a = rep[ci]
        f = <double> (t.kg[a] if t.kg[a] < t.kx[a] else t.kx[a]) / <double> t.kx[a]
        corr = f - <double> t.kx[a] * t.kg[a]
        S1[a] += <double> cnt[ci] * corr
        N1[a] -= <double> cnt[ci] * (t.kx[a] - 1)
    # class pairs sharing two clusters on either side
    pos = _class_pair_keys(t, rep, nc, keys)
    lo = 0
    while lo < pos:
        hi = lo
        while hi < pos and keys[hi].key == keys[lo].key:
            hi += 1
        c1 = <int32_t> ((keys[lo].key >> 31) & 0x7FFFFFFF)
        c2 = <int32_t> (keys[lo].key & 0x7FFFFFFF)
        for i in range(lo, hi):
            ci = keys[i].idx
            a = rep[ci]
            for j in range(i + 1, hi):
                cj = keys[j].idx
                b = rep[cj]
                if not _class_pair_shares(t, keys[lo].key >> 62, c1, c2, a, b, xc, gc, &ax, &ag):
                    continue    # counted at another key of the pair
                f = <double> (ag if ag < ax else ax) / <double> ax
                corr = f - <double> ax * ag
                ncorr = ax - 1
                S1[a] += <double> cnt[cj] * corr
                N1[a] -= <double> cnt[cj] * ncorr
                S1[b] += <double> cnt[ci] * corr
                N1[b] -= <double> cnt[ci] * ncorr
        lo = hi
    for ci in range(nc):
        a = rep[ci]
        total[0] += <double> cnt[ci] * (S1[a] / N1[a])
    scratch_free(hk); scratch_free(rep); scratch_free(cnt); scratch_free(keys); scratch_free(S1); scratch_free(N1)
    return 0


def extended_bcubed_side(const int64_t[::1] x_ptr, const int32_t[::1] x_doc,
                         const int32_t[::1] x_cluster,
                         const int64_t[::1] g_ptr, const int32_t[::1] g_doc,
                         const int32_t[::1] g_cluster,
                         int64_t n_docs, double[::1] out, bint pairwise=False):
    """Extended BCubed precision of x against g (Amigo et al. 2009), per topic.

    P = avg_d avg_{e sharing a cluster with d} min(|C(d)&C(e)|, |L(d)&L(e)|) / |C(d)&C(e)|
    over the documents d of x.  Recall is the same call with the sides exchanged.
    ``pairwise`` (private, for the tests) scans every neighbourhood of a document
    with several memberships instead of the contingency counts and class pairs.
    """
    cdef Py_ssize_t nt = x_ptr.shape[0] - 1, ti
    cdef Work w
    cdef Topic t
    cdef int rc
    cdef int64_t maxocc, i, j, xa, ga
    cdef int32_t k, e, g, q, cl, nt_, ax, ag, cnt_e, ndoc
    cdef int scan
    cdef double total, s
    cdef int32_t *cstart = NULL
    n_docs = _check_sides(x_ptr, x_doc, x_cluster, x_cluster, g_ptr, g_doc, g_cluster, g_cluster, n_docs,
                          out.shape[0], "extended_bcubed_side")
    with nogil:
        maxocc = _max_topic(x_ptr, g_ptr)
        rc = _alloc_work(&w, n_docs, maxocc)
        cstart = <int32_t *> scratch_malloc((maxocc + 2) * sizeof(int32_t))
        if cstart == NULL:
            rc = -1
        if rc == 0:
            for ti in range(nt):
                if x_ptr[ti + 1] == x_ptr[ti]:
                    out[ti] = 0.0
                    continue
                _setup_topic(&t, &w, x_ptr[ti], x_ptr[ti + 1], g_ptr[ti], g_ptr[ti + 1],
                             x_doc, x_cluster, x_cluster, g_doc, g_cluster, g_cluster, True)
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
                        k = t.xk[i - xa]
                        for q in range(t.kg[k]):
                            g = t.gcv[t.gptr[k] + q]
                            if w.cnt[g] == 0.0:
                                w.touched[nt_] = g
                                nt_ += 1
                            w.cnt[g] += 1.0
                    for i in range(xa + cstart[cl], xa + cstart[cl + 1]):
                        k = t.xk[i - xa]
                        if t.kx[k] == 1 and t.kg[k] == 1:
                            g = t.gc1[k]
                            total += w.cnt[g] / (cstart[cl + 1] - cstart[cl])
                    for q in range(nt_):
                        w.cnt[w.touched[q]] = 0.0
                ndoc = 0
                for k in range(t.D):
                    w.mark[k] = -1
                    if t.kx[k] > 0:
                        ndoc += 1
                # the other documents: contingency counts and class pairs, or
                # (pairwise, or too many keys) explicit neighbourhoods
                scan = 1
                if not pairwise:
                    scan = _ebc_multi(&t, &w, &x_cluster[0], &g_cluster[0] if t.ng > 0 else NULL,
                                      cstart, &total)
                    if scan < 0:
                        rc = -1
                        _release_topic(&t, &w)
                        break
                for k in range(t.D):
                    if not scan or t.kx[k] == 0:
                        continue
                    if t.kx[k] == 1 and t.kg[k] <= 1:
                        continue
                    s = 0.0
                    cnt_e = 0
                    for q in range(t.kx[k]):
                        cl = t.xcv[t.xptr[k] + q]
                        for j in range(xa + cstart[cl], xa + cstart[cl + 1]):
                            e = t.xk[j - xa]
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
                if ti + 1 < nt:
                    _release_topic(&t, &w)   # (after the last topic, w is freed)
        _free_work(&w)
        scratch_free(cstart)
    if rc != 0:
        raise MemoryError("extended_bcubed_side: cannot allocate work space")


if scratch_init() != 0:          # the cache's lock around fork (irs_scratch.h)
    raise ImportError("irscore._organization: pthread_atfork failed")


def release_scratch():
    """Free the scratch blocks the R&S kernels keep for their next call (at most
    384 MiB; see irs_scratch.h).  Only memory is given back: results never depend
    on whether a block was reused."""
    scratch_release()


def _scratch_test_mode(bint on):
    """Test hook: on, every freed scratch block is cached (not only those of
    256 KiB or more) and a reused block is filled with 0xA5 bytes; off, the
    defaults.  Either way the cache is emptied first."""
    scratch_configure(0 if on else SCRATCH_MIN, 1 if on else 0)
