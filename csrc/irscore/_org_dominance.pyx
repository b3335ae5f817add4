"""Offline dominance sums for the priority pairs of two documents with several
memberships (docs/reliability_sensitivity.md; the plan in _org_priority): a
population of documents with q = 2 or 3 X occurrences and at most one reference
one (``_dom_points``), box-sum queries pushed per document (``_doc_queries``:
the regions of a document's levels, as corners), answered at once
(``_dom_solve``): divide and conquer over the X coordinates (merging by the next
one) and a Fenwick tree over the reference level, O((P + Q) log^q); for q = 2
with few levels, a sweep over the first coordinate and a 2-D Fenwick tree over
(second, reference) instead.  Sums in double-double (irs_dd.h): the box sums
cancel."""
from libc.stdint cimport int32_t, int64_t
from libc.string cimport memset, memcpy

from irscore._org_core cimport (
    Topic, Work, irs_dd, irs_dd_add, irs_dd_add_dd, irs_dd_mul_add, scratch_malloc, scratch_calloc,
    scratch_free
)


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
    cdef int32_t nd = 0, j
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
    scratch_free(r.cx); scratch_free(r.cy); scratch_free(r.cw); scratch_free(r.cz); scratch_free(qall)
    scratch_free(r.ord); scratch_free(r.tmp)
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

cdef void _dom_free(Dom *dm) noexcept nogil:
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


cdef int64_t _grid_cells(Topic *t, int32_t k, int32_t qd, const int32_t *lx,
                         const int32_t *lg) noexcept nogil:
    """Cells of the corner grid of document k against a population of qd X levels:
    (d + 2)^qd (e + 2)."""
    cdef int32_t i, _q, d = 0, e = 0, last = -1, lvl
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
    for _q in range(qd):
        cells *= <int64_t> d + 2
        if cells > 2147483647:
            return 2147483647
    return cells


cdef int _doc_queries(Dom *dm, Topic *t, Work *w, int32_t k, bint both, const int32_t *lx,
                      const int32_t *lg, Scratch *sc) noexcept nogil:
    """Push the dominance queries giving, over every document b of the population,
    the pairs "k above b" and (both = 1) "b above k".  -1 if memory runs out."""
    cdef int32_t p = t.kx[k], d = 0, e = 0, i, j, kk, lvl, LX = t.LX, LG = t.LG, qd = dm.qd
    cdef int32_t tq, orient, sz, D2, E2, mask, m, nbits, minus, V = dm.V, _q
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
    for _q in range(qd):
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
