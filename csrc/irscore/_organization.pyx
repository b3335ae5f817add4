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
from libc.stdlib cimport malloc, calloc, free
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


cdef double _priority(Topic *t, Work *w, const int32_t[::1] x_doc, const int32_t[::1] x_level,
                      const int32_t[::1] g_level, bint uniform, bint foreign_tail,
                      double Wt, double Wr) noexcept nogil:
    cdef int64_t i, j, start, xa = t.xa, ga = t.ga
    cdef int32_t l, k, beta, a, b, tail_a, size = t.LG + 1, nm, qi, qj
    cdef double acc = 0.0, F, G, rx, rg, pt, W = 0.0
    cdef int32_t *loc = w.loc
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
    # --- pairs of two documents with several memberships: per document pair ----
    nm = 0
    for k in range(t.D):
        if t.kx[k] > 0 and not (t.kx[k] == 1 and t.kg[k] <= 1):
            w.multi[nm] = k
            nm += 1
    tail_a = t.LG if foreign_tail else -1
    for qi in range(nm):
        a = w.multi[qi]
        for qj in range(qi, nm):
            b = w.multi[qj]
            # a above b (for a == b: the document's own occurrences on two levels)
            rx = <double> _cross(t.xocc + t.xptr[a], t.kx[a], t.xocc + t.xptr[b], t.kx[b],
                                 &x_level[0], xa, w.wl, w.fl, &W)
            if rx > 0:
                rg = <double> _count_above(t.gocc + t.gptr[a], t.kg[a], t.gocc + t.gptr[b],
                                           t.kg[b], &g_level[0], ga, tail_a, tail_a)
                acc += (rg if rg < rx else rx) / rx * W
            if a == b:
                continue
            rx = <double> _cross(t.xocc + t.xptr[b], t.kx[b], t.xocc + t.xptr[a], t.kx[a],
                                 &x_level[0], xa, w.wl, w.fl, &W)
            if rx > 0:
                rg = <double> _count_above(t.gocc + t.gptr[b], t.kg[b], t.gocc + t.gptr[a],
                                           t.kg[a], &g_level[0], ga, tail_a, tail_a)
                acc += (rg if rg < rx else rx) / rx * W
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
            double[::1] out_priority, double[::1] out_relatedness):
    """Score side ``x`` against reference ``g`` for every topic.

    Writes the priority and relatedness score of each topic (Reliability when x is
    the system, Sensitivity when x is the gold standard).  ``c`` is the weighting
    constant (1 - w_n) n / w_n, ignored when ``uniform``.
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
                                             foreign_tail, Wt, Wr)
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
