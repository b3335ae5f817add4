"""Extended BCubed (Amigo, Gonzalo, Artiles, Verdejo 2009) per topic
(docs/reliability_sensitivity.md): ``extended_bcubed_side`` gives the precision
of side ``x`` against ``g``, the recall with the sides exchanged.

Contingency counts per X cluster give, for every document, the sums over its
cluster mates counted once per shared cluster; the pairs sharing two clusters on
either side are corrected one class pair at a time (_ebc_multi).
"""
from libc.stdint cimport int32_t, int64_t

from irscore._org_core cimport (
    Side, Topic, Work, HK, scratch_malloc, scratch_calloc, scratch_free, _alloc_work, _free_work,
    _setup_topic, _release_topic, _max_topic, _intersect, _class_pair_shares, _unit, org_classes,
    class_pair_keys, check_sides
)


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
    cdef int64_t xa = t.xa, nkeys = 0, i, j, lo, hi, pos
    cdef int32_t k, nm = 0, nc = 0, a, b, ax, ag, c1, c2, ci, cj, cl, g, q, nt_
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
    nc = org_classes(t, False, xc, gc, hk, rep, cnt)
    # per class (S1, N1 of its representative, identical for its members): the
    # self pair and the pairs inside the class (ax = kx, ag = kg)
    for ci in range(nc):
        a = rep[ci]
        f = <double> (t.kg[a] if t.kg[a] < t.kx[a] else t.kx[a]) / <double> t.kx[a]
        corr = f - <double> t.kx[a] * t.kg[a]
        S1[a] += <double> cnt[ci] * corr
        N1[a] -= <double> cnt[ci] * (t.kx[a] - 1)
    # class pairs sharing two clusters on either side
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


def extended_bcubed_side(Side x not None, Side g not None, int64_t n_docs, double[::1] out not None, *,
                         bint pairwise=False):
    """Extended BCubed precision of x against g (Amigo et al. 2009), per topic.

    P = avg_d avg_{e sharing a cluster with d} min(|C(d)&C(e)|, |L(d)&L(e)|) / |C(d)&C(e)|
    over the documents d of x.  Recall is the same call with the sides exchanged.
    Reads each side's ``ptr``, ``doc`` and ``cluster`` (not ``level``: the clusters
    are checked as their own levels).  ``pairwise`` (private, for the tests) scans
    every neighbourhood of a document with several memberships instead of the
    contingency counts and class pairs.
    """
    cdef const int64_t[::1] x_ptr = x.ptr
    cdef const int32_t[::1] x_doc = x.doc
    cdef const int32_t[::1] x_cluster = x.cluster
    cdef const int64_t[::1] g_ptr = g.ptr
    cdef const int32_t[::1] g_doc = g.doc
    cdef const int32_t[::1] g_cluster = g.cluster
    cdef Py_ssize_t nt = x_ptr.shape[0] - 1, ti
    cdef Work w
    cdef Topic t
    cdef int rc
    cdef int64_t maxocc, i, j, xa, ga
    cdef int32_t k, e, gq, q, cl, nt_, ax, ag, cnt_e, ndoc
    cdef int scan
    cdef double total, s
    cdef int32_t *cstart = NULL
    n_docs = check_sides(x, g, False, n_docs, out.shape[0], "extended_bcubed_side")
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
                            gq = t.gcv[t.gptr[k] + q]
                            if w.cnt[gq] == 0.0:
                                w.touched[nt_] = gq
                                nt_ += 1
                            w.cnt[gq] += 1.0
                    for i in range(xa + cstart[cl], xa + cstart[cl + 1]):
                        k = t.xk[i - xa]
                        if t.kx[k] == 1 and t.kg[k] == 1:
                            gq = t.gc1[k]
                            total += w.cnt[gq] / (cstart[cl + 1] - cstart[cl])
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
