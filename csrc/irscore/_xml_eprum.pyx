"""GR / EPRUM kernel (docs/xml.md, GR/EPRUM): generalised recall at cutoffs and
EPRUM's expected precision at recall levels under a navigation model, to the
last bit of the reference computation (its dictionary of gain sums, numpy's
rounding and pairwise sums).  Span sets are tuples ``(off, doc, start, end)``
(_xml_common.pxd).  The entry point checks, itself, whatever could make it read
or write out of bounds (ValueError); the GIL is released.
"""
from libc.stdlib cimport malloc, free, realloc, qsort
from libc.string cimport memset, memcpy
from libc.stdint cimport int64_t, uint64_t
from libc.math cimport rint

from irscore._checks cimport check_len
from irscore._xml_common cimport (
    _check_ndocs, _csr, _spans, _out1, _out2, _check_cutoffs, span_set, np_sum,
)


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


cdef struct Navigation:
    Py_ssize_t ndocs        # documents of the assessments (ideal codes below it)
    double p_ancestor       # default model: result inside the ideal element
    double p_descendant     # ideal element inside the result
    double p_sibling        # elsewhere in the same document


def eprum_measures(
    tuple run, tuple ideal, const double[::1] ideal_gain, Navigation nav, tuple pairs,
    const int64_t[::1] cutoffs, const double[::1] levels,
    double[:, ::1] out_gr, double[:, ::1] out_ep, int64_t[::1] out_valid,
):
    """GR@k and EPRUM at recall ``levels`` (each in (0, 1]) per topic
    (docs/xml.md, GR/EPRUM).  Span sets ``run`` and ``ideal`` (ideal elements,
    ``ideal_gain`` each): ``(off, doc, start, end)``.  ``nav``: a Navigation
    (``{"ndocs", "p_ancestor", "p_descendant", "p_sibling"}``).  Navigation:
    the default model with the three probabilities when ``pairs = (pair_off,
    pair_p)`` has an empty ``pair_off``; otherwise result i's probabilities
    towards the ideal elements of its document, in their order, are
    ``pair_p[pair_off[i]:pair_off[i + 1]]`` (a caller's model).  ``ndocs``:
    documents of the assessments (ideal codes below it; a run code at or above
    it matches nothing).  out_valid[t] = 1 when topic t has ideal elements of
    positive total gain (its values are set), else 0.
    """
    cdef const int64_t[::1] run_off, run_doc, run_start, run_end, id_off, id_doc, id_start, id_end, pair_off
    cdef const double[::1] pair_p
    cdef Py_ssize_t ndocs = nav.ndocs
    cdef double p_ancestor = nav.p_ancestor, p_descendant = nav.p_descendant, p_sibling = nav.p_sibling
    cdef Py_ssize_t ntop, nk = cutoffs.shape[0], nl = levels.shape[0]
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
    run_off, run_doc, run_start, run_end = span_set(run, 4, fn, "run")
    id_off, id_doc, id_start, id_end = span_set(ideal, 4, fn, "ideal")
    pair_off, pair_p = span_set(pairs, 2, fn, "pairs")
    ntop = run_off.shape[0] - 1
    _check_ndocs(ndocs, fn)
    for s in (p_ancestor, p_descendant, p_sibling):
        if not (0.0 <= s <= 1.0):
            raise ValueError(f"{fn}: navigation probabilities must lie in [0, 1], got {s}")
    _csr(run_off, run_doc.shape[0], fn, "run_off")
    _csr(id_off, id_doc.shape[0], fn, "id_off", ntop)
    check_len(run_start.shape[0], run_doc.shape[0], fn, "run_start")
    check_len(run_end.shape[0], run_doc.shape[0], fn, "run_end")
    for i in range(run_doc.shape[0]):
        if run_doc[i] < 0:
            raise ValueError(f"{fn}: run_doc[{i}] = {run_doc[i]} is not a document code")
    # the document tables only need the ideal elements' codes (a run code beyond matches nothing)
    ndocs = _spans(id_off, id_doc, id_start, id_end, ndocs, fn, "id")
    check_len(ideal_gain.shape[0], id_doc.shape[0], fn, "ideal_gain")
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
        if (stamp == NULL or dhead == NULL or nxt == NULL or notseen == NULL or seen_at == NULL or F == NULL
                or prod == NULL
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
