"""Reliability & Sensitivity per topic (Amigo, Gonzalo, Verdejo, SIGIR 2013;
docs/reliability_sensitivity.md): ``rs_side`` scores side ``x`` against the
reference ``g`` (the priority score from _org_priority, the relatedness score
here); called as (system, gold) it gives Reliability, as (gold, system)
Sensitivity.

Relatedness: O(N) over cluster memberships (contingency counts: a pair sharing one
cluster and at most one reference cluster counts ag, its probability), plus the
pairs sharing two clusters on either side, one class pair at a time
(_related_exceptional).
"""
from libc.stdint cimport int32_t, int64_t
from libc.math cimport INFINITY, NAN, isnan

from irscore._checks cimport check_min_len
from irscore._org_core cimport (
    Side, Topic, Work, HK, scratch_malloc, scratch_free, _alloc_work, _free_work, _setup_topic,
    _release_topic, _level_weights, _max_topic, _intersect, _class_pair_shares, _unit,
    org_classes, class_pair_keys, check_sides
)
from irscore._org_priority cimport _priority


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

cdef double _related_exceptional(Topic *t, Work *w, const int32_t *xc, const int32_t *gc,
                                 const double *cw) noexcept nogil:
    """The corrections (f - ag) of the pairs a != b of multi documents that share two
    X clusters, or one X cluster and two reference clusters, each counted in every
    X cluster they share (weight cw[cl] = w(level) / |cl|).  Documents with the same
    X and reference clusters form a class (its pairs are counted at once); the pairs
    of classes are found through the pairs of clusters they share, each at its two
    smallest shared clusters.  Returns NaN when the keys would outgrow the topic
    (the caller enumerates pairs instead); sets ``w.oom`` if memory runs out."""
    cdef int64_t nkeys = 0, i, j, lo, hi, pos
    cdef int32_t k, nm = 0, nc = 0, a, b, ax, ag, i1, i2, c1, c2, ci, cj
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
    nc = org_classes(t, True, xc, gc, hk, rep, cnt)
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
    pos = class_pair_keys(t, rep, nc, keys)
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
    cdef int64_t i, j, start, xa = t.xa
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


def rs_side(Side x not None, Side g not None, int64_t n_docs, double[::1] out_priority not None,
            double[::1] out_relatedness not None, *, double c, bint uniform, bint foreign_tail,
            bint pairwise=False):
    """Score side ``x`` against reference ``g`` for every topic.

    Writes the priority and relatedness score of each topic (Reliability when x is
    the system, Sensitivity when x is the gold standard).  ``c`` is the weighting
    constant (1 - w_n) n / w_n, ignored when ``uniform``.  ``pairwise`` (private,
    for the tests) enumerates the pairs of documents with several memberships one
    pair at a time, O(m^2), instead of the O(N log^2 N) decomposition.
    """
    cdef const int64_t[::1] x_ptr = x.ptr
    cdef const int32_t[::1] x_doc = x.doc
    cdef const int32_t[::1] x_level = x.level
    cdef const int32_t[::1] x_cluster = x.cluster
    cdef const int64_t[::1] g_ptr = g.ptr
    cdef const int32_t[::1] g_doc = g.doc
    cdef const int32_t[::1] g_level = g.level
    cdef const int32_t[::1] g_cluster = g.cluster
    cdef Py_ssize_t nt = x_ptr.shape[0] - 1, ti
    cdef Work w
    cdef Topic t
    cdef double Wt = 0.0, Wr = 1.0
    cdef int rc
    cdef int64_t maxocc
    if not uniform and not (0.0 < c < INFINITY):
        raise ValueError(f"rs_side: the weighting constant c must be positive and finite, got {c!r}")
    n_docs = check_sides(x, g, True, n_docs, out_priority.shape[0], "rs_side")
    check_min_len(out_relatedness.shape[0], nt, "rs_side", "out_relatedness")
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
