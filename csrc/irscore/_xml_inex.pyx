"""INEX kernels (docs/xml.md): inex_eval's Precall (published reading and
RePrec 0.32's whole-unit reading), inex_eval_ng, T2I, and numpy-exact sums
(segment sums, row means).  Each reproduces, operation for operation, the
floating-point order of the reference computation the tests keep (numpy's
pairwise sums where it summed arrays, running sums where it summed in Python),
so the numbers are the same to the last bit.  Every entry point checks, itself,
whatever could make it read or write out of bounds (ValueError); the GIL is
released.
"""
from libc.stdlib cimport malloc, free, qsort
from libc.stdint cimport int64_t
from libc.math cimport floor, isnan, fabs

from irscore._checks cimport check_len, check_min_len, check_same_len
from irscore._xml_common cimport (
    _check_ndocs, _csr, _spans, _out1, _out1d, _out2, _check_cutoffs, span_set, np_sum,
)


def pairwise_sum(const double[::1] a):
    """``numpy.sum`` of ``a`` as the kernels compute it (for the tests)."""
    cdef double s
    with nogil:
        s = np_sum(&a[0] if a.shape[0] else NULL, a.shape[0])
    return s


# -- inex_eval: Precall (published reading) ---------------------------------


def precall_published(
    const int64_t[::1] run_off, const double[::1] q, const double[::1] score,
    const double[::1] total, const double[::1] collection_size, int ties, Py_ssize_t npoints,
    double[:, ::1] out_pre, double[::1] out_mean,
):
    """Precall at recall k / npoints, k = 1..npoints, per topic (Raghavan's
    expected search length; docs/xml.md, inex_eval): ``q`` relevant units per
    result, tie groups of equal ``score`` (``ties``), ``total`` the recall base
    per topic, ``collection_size`` per topic (NaN: none; else the unretrieved
    units form a final group).  out_mean[t] = mean over the levels."""
    cdef Py_ssize_t ntop = run_off.shape[0] - 1, cap = 2
    cdef Py_ssize_t t, i, j, n, lo, ng, g, gstart, k
    cdef double tot, got, rest_rel, rest_n, xn, x, s_need
    cdef bint mono
    cdef int err = 0
    cdef double *gr = NULL
    cdef double *gn = NULL
    cdef double *brel = NULL
    cdef double *bnon = NULL
    fn = "precall_published"
    _csr(run_off, q.shape[0], fn, "run_off")
    check_same_len(q.shape[0], score.shape[0], fn, "q and score")
    check_min_len(total.shape[0], ntop, fn, "total")
    check_min_len(collection_size.shape[0], ntop, fn, "collection_size")
    if npoints < 1:
        raise ValueError(f"{fn}: npoints must be positive")
    _out2(out_pre, ntop, npoints, fn, "out_pre")
    _out1d(out_mean, ntop, fn, "out_mean")
    for t in range(ntop):
        if run_off[t + 1] - run_off[t] + 2 > cap:
            cap = run_off[t + 1] - run_off[t] + 2
    gr = <double*>malloc(cap * sizeof(double))
    gn = <double*>malloc(cap * sizeof(double))
    brel = <double*>malloc(cap * sizeof(double))
    bnon = <double*>malloc(cap * sizeof(double))
    try:
        if gr == NULL or gn == NULL or brel == NULL or bnon == NULL:
            raise MemoryError()
        with nogil:
            for t in range(ntop):
                for k in range(npoints):
                    out_pre[t, k] = 0.0
                tot = total[t]
                if tot <= 0.0:
                    out_mean[t] = np_sum(&out_pre[t, 0], npoints) / npoints
                    continue
                lo = run_off[t]
                n = run_off[t + 1] - lo
                ng = 0
                i = 0
                while i < n:
                    j = i + 1
                    if ties:
                        while j < n and score[lo + j] == score[lo + i]:
                            j += 1
                    gr[ng] = np_sum(&q[lo + i], j - i)
                    gn[ng] = (<double> (j - i)) - gr[ng]
                    ng += 1
                    i = j
                got = 0.0
                for g in range(ng):
                    got = got + gr[g]
                if not isnan(collection_size[t]):
                    x = tot - got
                    rest_rel = 0.0 if 0.0 > x else x
                    rest_n = collection_size[t] - n
                    if rest_n < rest_rel - 1e-9:
                        err = 1
                        break
                    gr[ng] = rest_rel
                    x = rest_n - rest_rel
                    gn[ng] = 0.0 if 0.0 > x else x
                    ng += 1
                # relevant / non-relevant units before each group, summed in order
                mono = True
                x = 0.0
                s_need = 0.0
                for g in range(ng):
                    brel[g] = x
                    bnon[g] = s_need
                    if not (gr[g] >= 0.0):
                        mono = False
                    x += gr[g]
                    s_need += gn[g]
                gstart = 0
                for k in range(1, npoints + 1):
                    xn = tot * k / npoints
                    for g in range(gstart, ng):
                        if brel[g] + gr[g] >= xn - 1e-9 and gr[g] > 0:
                            x = xn - brel[g]
                            s_need = 0.0 if 0.0 > x else x
                            out_pre[t, k - 1] = xn / (xn + (bnon[g] + s_need * gn[g] / (gr[g] + 1.0)))
                            if mono:
                                gstart = g
                            break
                    else:
                        if mono:
                            break
                out_mean[t] = np_sum(&out_pre[t, 0], npoints) / npoints
        if err:
            raise ValueError("collection_size is smaller than the retrieved plus unretrieved relevant units")
    finally:
        free(gr); free(gn); free(brel); free(bnon)


# -- inex_eval_ng -------------------------------------------------------------


def ng_at(
    const int64_t[::1] run_off, const double[::1] exh, const double[::1] spe,
    const double[::1] size, const double[::1] w, const double[::1] tot_exh,
    const int64_t[::1] cutoffs, double[:, ::1] out_p, double[:, ::1] out_r,
):
    """inex_eval_ng at each cutoff k (docs/xml.md): P = sum spe size w / sum size w,
    R = sum exh w / ``tot_exh`` over the first k results (w = 1 - overlap, or 1).
    Topics with tot_exh <= 0 are left at 0."""
    cdef Py_ssize_t ntop = run_off.shape[0] - 1, nk = cutoffs.shape[0], cap = 1
    cdef Py_ssize_t t, c, i, lo, hi
    cdef double den
    cdef double *a = NULL
    cdef double *b = NULL
    cdef double *e = NULL
    fn = "ng_at"
    _csr(run_off, exh.shape[0], fn, "run_off")
    check_len(spe.shape[0], exh.shape[0], fn, "spe")
    check_len(size.shape[0], exh.shape[0], fn, "size")
    check_len(w.shape[0], exh.shape[0], fn, "w")
    check_min_len(tot_exh.shape[0], ntop, fn, "tot_exh")
    _check_cutoffs(cutoffs, fn)
    _out2(out_p, ntop, nk, fn, "out_p")
    _out2(out_r, ntop, nk, fn, "out_r")
    for t in range(ntop):
        if run_off[t + 1] - run_off[t] > cap:
            cap = run_off[t + 1] - run_off[t]
    a = <double*>malloc(cap * sizeof(double))
    b = <double*>malloc(cap * sizeof(double))
    e = <double*>malloc(cap * sizeof(double))
    try:
        if a == NULL or b == NULL or e == NULL:
            raise MemoryError()
        with nogil:
            for t in range(ntop):
                lo = run_off[t]
                for i in range(lo, run_off[t + 1]):
                    a[i - lo] = size[i] * w[i]
                    b[i - lo] = spe[i] * size[i] * w[i]
                    e[i - lo] = exh[i] * w[i]
                for c in range(nk):
                    out_p[t, c] = 0.0
                    out_r[t, c] = 0.0
                    if tot_exh[t] <= 0.0:
                        continue
                    hi = run_off[t + 1]
                    if cutoffs[c] < hi - lo:        # (lo + cutoff may overflow)
                        hi = lo + cutoffs[c]
                    den = np_sum(a, hi - lo)
                    out_p[t, c] = np_sum(b, hi - lo) / den if den > 0.0 else 0.0
                    out_r[t, c] = np_sum(e, hi - lo) / tot_exh[t]
    finally:
        free(a); free(b); free(e)


# -- T2I ----------------------------------------------------------------------


cdef struct Iv:
    int64_t s
    int64_t e


cdef int _cmp_iv(const void *a, const void *b) noexcept nogil:
    cdef const Iv *x = <const Iv*>a
    cdef const Iv *y = <const Iv*>b
    if x.s != y.s:
        return -1 if x.s < y.s else 1
    if x.e != y.e:
        return -1 if x.e < y.e else 1
    return 0


cdef int64_t _t2i_stop(const Iv *hl, Py_ssize_t nh, int64_t start, int64_t doclen, int64_t tol) noexcept nogil:
    # position after the last character read from ``start`` (hl sorted)
    cdef int64_t pos = start, gap
    cdef Py_ssize_t k
    for k in range(nh):
        if hl[k].e <= pos:
            continue
        gap = hl[k].s - pos
        if gap < 0:
            gap = 0
        if gap >= tol:
            return pos + tol if tol < doclen - pos else doclen      # (pos + tol may overflow)
        if hl[k].e > pos:
            pos = hl[k].e
        if pos >= doclen:
            return doclen
    if doclen > pos:
        return pos + tol if tol < doclen - pos else doclen
    return doclen if doclen > start else start


cdef int64_t _add_read(Iv *read, Py_ssize_t *nread, Iv *tmp, int64_t s, int64_t e,
                       const Iv *hl, Py_ssize_t nh) noexcept nogil:
    # highlighted characters of [s, e) not read before (hl in assessment order);
    # merges [s, e) into the read intervals (kept disjoint, sorted)
    cdef int64_t new = 0, a, b, x, y, covered, ns, ne
    cdef Py_ssize_t k, r, m, n = nread[0]
    if e <= s:
        return 0
    for k in range(nh):
        a = hl[k].s if hl[k].s > s else s
        b = hl[k].e if hl[k].e < e else e
        if b <= a:
            continue
        covered = 0
        for r in range(n):
            x = read[r].s if read[r].s > a else a
            y = read[r].e if read[r].e < b else b
            if y > x:
                covered += y - x
        new += (b - a) - covered
    m = 0
    ns = s
    ne = e
    for r in range(n):
        if read[r].e < ns or read[r].s > ne:
            tmp[m] = read[r]
            m += 1
        else:
            if read[r].s < ns:
                ns = read[r].s
            if read[r].e > ne:
                ne = read[r].e
    # the kept intervals stay in order; insert the merged one (a sort by
    # (start, end) of distinct intervals: one order whatever the method)
    r = m
    while r > 0 and (tmp[r - 1].s > ns or (tmp[r - 1].s == ns and tmp[r - 1].e > ne)):
        r -= 1
    for k in range(m, r, -1):
        tmp[k] = tmp[k - 1]
    tmp[r].s = ns
    tmp[r].e = ne
    m += 1
    for r in range(m):
        read[r] = tmp[r]
    nread[0] = m
    return new


def t2i_at(
    tuple run, tuple hl, const int64_t[::1] doclen, Py_ssize_t ndocs, int64_t tolerance,
    const int64_t[::1] cutoffs, double[:, ::1] out_p, double[:, ::1] out_r, int64_t[::1] out_valid,
):
    """T2I precision and recall at each cutoff per topic (docs/xml.md, T2I); span
    sets ``run`` and ``hl`` (highlighted passages) ``(off, doc, start, end)``: from
    each result's start the reader reads on until ``tolerance`` consecutive
    non-relevant characters or the document's end (``doclen[code]``; the span's
    end when the code has no length or a negative one).  out_valid[t] = 1 when
    the topic has highlighted text."""
    cdef const int64_t[::1] run_off, run_doc, run_start, run_end, hl_off, hl_doc, hl_start, hl_end
    cdef Py_ssize_t ntop, nk = cutoffs.shape[0]
    cdef Py_ssize_t t, c, i, j, d, n, nd, k, cap_h = 1, cap_r = 1, r, ntab
    cdef int64_t trel, dl, stop, cg, ce
    cdef Py_ssize_t *stamp = NULL
    cdef Py_ssize_t *dslot = NULL
    cdef Py_ssize_t *hcnt = NULL
    cdef Py_ssize_t *hoff = NULL
    cdef Py_ssize_t *rcnt = NULL
    cdef Py_ssize_t *roff = NULL
    cdef Py_ssize_t *nread = NULL
    cdef Iv *hlv = NULL
    cdef Iv *hls = NULL
    cdef Iv *read = NULL
    cdef Iv *tmp = NULL
    fn = "t2i_at"
    run_off, run_doc, run_start, run_end = span_set(run, 4, fn, "run")
    hl_off, hl_doc, hl_start, hl_end = span_set(hl, 4, fn, "hl")
    ntop = run_off.shape[0] - 1
    _check_ndocs(ndocs, fn)
    if tolerance <= 0:
        raise ValueError(f"{fn}: tolerance must be positive")
    _csr(run_off, run_doc.shape[0], fn, "run_off")
    _csr(hl_off, hl_doc.shape[0], fn, "hl_off", ntop)
    ntab = _spans(run_off, run_doc, run_start, run_end, ndocs, fn, "run")
    ntab = max(ntab, _spans(hl_off, hl_doc, hl_start, hl_end, ndocs, fn, "hl"))
    ndocs = ntab     # the document tables only need the codes in use
    _check_cutoffs(cutoffs, fn)
    _out2(out_p, ntop, nk, fn, "out_p")
    _out2(out_r, ntop, nk, fn, "out_r")
    _out1(out_valid, ntop, fn, "out_valid")
    for t in range(ntop):
        if hl_off[t + 1] - hl_off[t] > cap_h:
            cap_h = hl_off[t + 1] - hl_off[t]
        if run_off[t + 1] - run_off[t] + hl_off[t + 1] - hl_off[t] > cap_r:
            cap_r = run_off[t + 1] - run_off[t] + hl_off[t + 1] - hl_off[t]
    stamp = <Py_ssize_t*>malloc((ndocs + 1) * sizeof(Py_ssize_t))
    dslot = <Py_ssize_t*>malloc((ndocs + 1) * sizeof(Py_ssize_t))
    hcnt = <Py_ssize_t*>malloc((cap_r + 1) * sizeof(Py_ssize_t))
    hoff = <Py_ssize_t*>malloc((cap_r + 2) * sizeof(Py_ssize_t))
    rcnt = <Py_ssize_t*>malloc((cap_r + 1) * sizeof(Py_ssize_t))
    roff = <Py_ssize_t*>malloc((cap_r + 2) * sizeof(Py_ssize_t))
    nread = <Py_ssize_t*>malloc((cap_r + 1) * sizeof(Py_ssize_t))
    hlv = <Iv*>malloc(cap_h * sizeof(Iv))
    hls = <Iv*>malloc(cap_h * sizeof(Iv))
    read = <Iv*>malloc((2 * cap_r + 1) * sizeof(Iv))
    tmp = <Iv*>malloc((2 * cap_r + 1) * sizeof(Iv))
    try:
        if (stamp == NULL or dslot == NULL or hcnt == NULL or hoff == NULL or rcnt == NULL or roff == NULL
                or nread == NULL or hlv == NULL or hls == NULL or read == NULL or tmp == NULL):
            raise MemoryError()
        with nogil:
            for d in range(ndocs + 1):
                stamp[d] = -1
            for t in range(ntop):
                trel = 0
                for j in range(hl_off[t], hl_off[t + 1]):
                    trel += hl_end[j] - hl_start[j]
                out_valid[t] = 1 if trel > 0 else 0
                for c in range(nk):
                    out_p[t, c] = 0.0
                    out_r[t, c] = 0.0
                if trel <= 0:
                    continue
                # document slots; passages grouped by document (assessment order) and
                # a sorted copy; room for the read intervals of each document
                nd = 0
                for j in range(hl_off[t], hl_off[t + 1]):
                    d = hl_doc[j]
                    if stamp[d] != t:
                        stamp[d] = t
                        dslot[d] = nd
                        hcnt[nd] = 0
                        rcnt[nd] = 0
                        nd += 1
                    hcnt[dslot[d]] += 1
                for i in range(run_off[t], run_off[t + 1]):
                    d = run_doc[i]
                    if stamp[d] != t:
                        stamp[d] = t
                        dslot[d] = nd
                        hcnt[nd] = 0
                        rcnt[nd] = 0
                        nd += 1
                    rcnt[dslot[d]] += 1
                hoff[0] = 0
                roff[0] = 0
                for k in range(nd):
                    hoff[k + 1] = hoff[k] + hcnt[k]
                    roff[k + 1] = roff[k] + rcnt[k] + 1
                    hcnt[k] = 0
                    nread[k] = 0
                for j in range(hl_off[t], hl_off[t + 1]):
                    k = dslot[hl_doc[j]]
                    hlv[hoff[k] + hcnt[k]].s = hl_start[j]
                    hlv[hoff[k] + hcnt[k]].e = hl_end[j]
                    hls[hoff[k] + hcnt[k]] = hlv[hoff[k] + hcnt[k]]
                    hcnt[k] += 1
                for k in range(nd):
                    if hcnt[k] > 1:
                        qsort(&hls[hoff[k]], hcnt[k], sizeof(Iv), _cmp_iv)
                n = run_off[t + 1] - run_off[t]
                cg = 0
                ce = 0
                for j in range(n):
                    i = run_off[t] + j
                    d = run_doc[i]
                    k = dslot[d]
                    dl = doclen[d] if d < doclen.shape[0] and doclen[d] >= 0 else run_end[i]
                    stop = _t2i_stop(&hls[hoff[k]], hcnt[k], run_start[i], dl, tolerance)
                    cg += _add_read(&read[roff[k]], &nread[k], tmp, run_start[i], stop,
                                    &hlv[hoff[k]], hcnt[k])
                    ce += stop - run_start[i]
                    for c in range(nk):
                        r = cutoffs[c] if cutoffs[c] < n else n
                        if r - 1 == j:
                            out_p[t, c] = (<double> cg) / (<double> ce) if ce > 0 else 0.0
                            out_r[t, c] = (<double> cg) / (<double> trel)
    finally:
        free(stamp); free(dslot); free(hcnt); free(hoff); free(rcnt); free(roff); free(nread)
        free(hlv); free(hls); free(read); free(tmp)


def segment_sums(const int64_t[::1] off, const double[::1] values, double[::1] out):
    """out[t] = numpy.sum(values[off[t]:off[t + 1]]), bit for bit."""
    cdef Py_ssize_t ntop = off.shape[0] - 1, t
    _csr(off, values.shape[0], "segment_sums", "off")
    _out1d(out, ntop, "segment_sums", "out")
    with nogil:
        for t in range(ntop):
            out[t] = np_sum(&values[off[t]] if off[t + 1] > off[t] else NULL, off[t + 1] - off[t])


# -- inex_eval: Precall as RePrec 0.32 (whole relevant units) -----------------


def precall_reprec_at(
    const int64_t[::1] run_off, const double[::1] q, const double[::1] score,
    const double[::1] total, const double[::1] collection_size, int ties, Py_ssize_t npoints,
    double[:, ::1] out_pre,
):
    """Precall at k / npoints, k = 1..npoints, per topic in RePrec's whole-unit
    reading (irscore.xml.precall): tie groups summed unit by unit, a relevant
    level reached in the group completing its ceil(xN)-th whole unit, leftover
    fractions as a final virtual group when the distribution holds the whole
    recall base.  Arguments as :func:`precall_published`."""
    cdef Py_ssize_t ntop = run_off.shape[0] - 1, cap = 2
    cdef Py_ssize_t t, i, j, n, lo, ng, g, k, nunits
    cdef int64_t whole, need
    cdef double tot, got, x, rest_rel, rest_n, n_tot, cr, cn, part_r, part_n, nr_x, c, kk, jj, ii, rr
    cdef bint complete
    cdef int err = 0
    cdef double *gr = NULL
    cdef double *gn = NULL
    cdef double *cumr = NULL
    cdef double *cumn = NULL
    cdef int64_t *units = NULL
    fn = "precall_reprec_at"
    _csr(run_off, q.shape[0], fn, "run_off")
    check_same_len(q.shape[0], score.shape[0], fn, "q and score")
    check_min_len(total.shape[0], ntop, fn, "total")
    check_min_len(collection_size.shape[0], ntop, fn, "collection_size")
    if npoints < 1:
        raise ValueError(f"{fn}: npoints must be positive")
    _out2(out_pre, ntop, npoints, fn, "out_pre")
    for t in range(ntop):
        if run_off[t + 1] - run_off[t] + 3 > cap:
            cap = run_off[t + 1] - run_off[t] + 3
    gr = <double*>malloc(cap * sizeof(double))
    gn = <double*>malloc(cap * sizeof(double))
    cumr = <double*>malloc(cap * sizeof(double))
    cumn = <double*>malloc(cap * sizeof(double))
    units = <int64_t*>malloc(cap * sizeof(int64_t))
    try:
        if gr == NULL or gn == NULL or cumr == NULL or cumn == NULL or units == NULL:
            raise MemoryError()
        with nogil:
            for t in range(ntop):
                for k in range(npoints):
                    out_pre[t, k] = 0.0
                tot = total[t]
                if tot <= 0.0:
                    continue
                lo = run_off[t]
                n = run_off[t + 1] - lo
                ng = 0
                i = 0
                while i < n:
                    j = i + 1
                    if ties:
                        while j < n and score[lo + j] == score[lo + i]:
                            j += 1
                    gr[ng] = 0.0
                    gn[ng] = 0.0
                    for k in range(lo + i, lo + j):
                        gr[ng] += q[k]
                        gn[ng] += 1.0 - q[k]
                    ng += 1
                    i = j
                got = 0.0
                for g in range(ng):
                    got += gr[g]
                if not isnan(collection_size[t]):
                    x = tot - got
                    rest_rel = 0.0 if 0.0 > x else x
                    rest_n = collection_size[t] - n
                    if rest_n < rest_rel - 1e-9:
                        err = 1
                        break
                    gr[ng] = rest_rel
                    x = rest_n - rest_rel
                    gn[ng] = 0.0 if 0.0 > x else x
                    ng += 1
                    complete = True
                else:
                    complete = fabs(tot - got) <= 1e-9 * tot
                # precall_reprec(groups, levels[, total])
                x = 0.0
                for g in range(ng):
                    x += gr[g]
                n_tot = x if complete else tot
                if not n_tot > 0.0:
                    continue
                cr = 0.0
                cn = 0.0
                part_r = 0.0
                part_n = 0.0
                nunits = 0
                for g in range(ng):
                    cr += gr[g]
                    cn += gn[g]
                    cumr[g] = cr
                    cumn[g] = cn
                    if not (gr[g] + part_r < 1e15 and gn[g] + part_n < 1e15):
                        err = 2
                        break
                    whole = <int64_t> (gr[g] + part_r)
                    if whole > 0:
                        nunits += whole
                    units[g] = nunits          # whole units completed by group g
                    part_r = gr[g] + part_r - whole
                    whole = <int64_t> (gn[g] + part_n)
                    part_n = gn[g] + part_n - whole
                if err:
                    break
                if complete and (part_r != 0.0 or part_n != 0.0):
                    cumr[ng] = cr + part_r
                    cumn[ng] = cn + part_n
                    nunits += 1
                    units[ng] = nunits
                    ng += 1
                g = 0
                for k in range(npoints):
                    nr_x = ((<double> (k + 1)) / npoints) * n_tot
                    c = floor(nr_x)
                    if nr_x - c > 1e-9 * (1.0 if 1.0 > fabs(nr_x) else fabs(nr_x)):
                        c += 1.0
                    if c < 1.0 or c > nunits:
                        continue
                    need = <int64_t> c
                    # the group completing the need-th whole unit (need grows with k)
                    while units[g] < need:
                        g += 1
                    kk = cumr[g - 1] if g else 0.0
                    jj = cumn[g - 1] if g else 0.0
                    ii = cumn[g] - jj
                    rr = cumr[g] - kk
                    out_pre[t, k] = nr_x / (nr_x + jj + (need - kk) * ii / (rr + 1.0))
        if err == 1:
            raise ValueError("collection_size is smaller than the retrieved plus unretrieved relevant units")
        if err == 2:
            raise ValueError(f"{fn}: too many relevant units (10^15 or more, or not a number)")
    finally:
        free(gr); free(gn); free(cumr); free(cumn); free(units)


def row_means(const double[:, ::1] a, double[::1] out):
    """out[t] = numpy.mean(a[t]), bit for bit."""
    cdef Py_ssize_t t, n = a.shape[1]
    _out1d(out, a.shape[0], "row_means", "out")
    if n == 0:
        raise ValueError("row_means: rows must not be empty")
    with nogil:
        for t in range(a.shape[0]):
            out[t] = np_sum(&a[t, 0], n) / n
