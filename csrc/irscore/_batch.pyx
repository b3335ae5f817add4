"""Kernels of the array API (``irscore.batch``).

Input: flat score and label arrays, and per query the start and the length of
its candidates (dense 2-D input is the special case start = q * n_columns).  A
NaN score marks padding.  Every query is sorted once (``batch_sort.h``: a bucket
pass over the score range, exact inside buckets; or only its top k when every
requested measure is a small cutoff) and all ops are computed from that order.

Ties (``tie_mode``, the enum ``Ties`` of ``_batch.pxd``): TIES_TREC (score
descending, then column descending), TIES_INPUT (column ascending),
TIES_AVERAGE: the expected value over all orders of tied candidates (McSherry
& Najork 2008), computed per tie group in closed form, never by enumeration.

Op kinds and error codes: the enums ``Op`` and ``Error`` of ``_batch.pxd``,
exported to Python (``irscore.batch`` reads them from this module).
"""
from libc.stdint cimport int32_t, int64_t, uint8_t, int8_t, int16_t
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset
from libc.math cimport log2, pow, INFINITY

from irscore._common cimport gain_of, disc_of, GAIN_LINEAR, GAIN_EXP, DISCOUNT_LOG2, DISCOUNT_JARVELIN

cdef extern from "irs_common.h":
    int IRSCORE_BOUNDSCHECK

#: True when the kernels were built with bounds checks (IRSCORE_DEBUG=1)
BOUNDSCHECK = bool(IRSCORE_BOUNDSCHECK)

#: codes of the gain and discount kinds (``op_gain``, ``op_disc``)
GAIN_KINDS = {"linear": GAIN_LINEAR, "exp": GAIN_EXP}
DISCOUNT_KINDS = {"log2": DISCOUNT_LOG2, "jarvelin": DISCOUNT_JARVELIN}

cdef extern from "irs_disc.h" nogil:
    int64_t IRS_DISC_EXACT
    double irs_inv_log2_sum(int64_t y0, int64_t y1)

cdef extern from "batch_sort.h" nogil:
    ctypedef struct bs_item:
        double s
        int32_t t
        int32_t tb
    bint bs_before(const bs_item *a, const bs_item *b)
    bs_item *bs_sort(bs_item *a, int64_t n, bs_item *tmp, int32_t *bk, int32_t *hist)
    bs_item *bs_sort_range(bs_item *a, int64_t n, double lo, double hi, bs_item *tmp, int32_t *bk,
                           int32_t *hist)
    void bs_cmp_sort(bs_item *a, int64_t n)
    int64_t bs_topk(const bs_item *a, int64_t n, int64_t k, bs_item *out)

# op kinds, tie modes and error codes: the cpdef enums of _batch.pxd

cdef enum:
    TOPK_MAX = 32     # partial selection only for cutoffs up to this

ctypedef fused score_t:
    float
    double

ctypedef fused label_t:
    int8_t
    int16_t
    int32_t
    int64_t
    uint8_t
    float
    double


cdef struct Work:
    bs_item *items     # valid candidates, candidate order
    bs_item *top       # the top k (partial selection)
    bs_item *scr       # scratch
    bs_item *scr2      # scratch (ideal gains)
    int32_t *bk
    int32_t *hist
    double *vl         # labels of valid candidates (candidate order)
    double *rl         # labels in rank order
    double *run_v      # ideal: distinct label values, descending
    int64_t *run_c     # ideal: how many of each
    int64_t *gb        # tie-group boundaries (average ties)
    double *idisc      # 1 / log2(i + 2), ndisc entries
    int64_t ndisc
    double *inv        # 1 / (i + 1)
    int64_t *ghist     # 4 x 256 grade counters, zero between uses
    int64_t cap


cdef int work_alloc(Work *w, int64_t cap, int64_t ndisc, int64_t nruns) noexcept nogil:
    """Buffers for rows of up to cap candidates; the discount table has ndisc
    entries; the ideal holds up to max(cap, nruns) + 1 runs."""
    cdef int64_t i, c = cap + 2
    cdef int64_t cr = (nruns if nruns > cap else cap) + 2
    w.cap = cap
    w.ndisc = ndisc if ndisc < c else c
    w.items = <bs_item *> malloc(c * sizeof(bs_item))
    w.top = <bs_item *> malloc((TOPK_MAX + 1) * sizeof(bs_item))
    w.scr = <bs_item *> malloc(c * sizeof(bs_item))
    w.scr2 = <bs_item *> malloc(c * sizeof(bs_item))
    w.bk = <int32_t *> malloc(c * sizeof(int32_t))
    w.hist = <int32_t *> malloc((2 * c + 1) * sizeof(int32_t))
    w.vl = <double *> malloc(c * sizeof(double))
    w.rl = <double *> malloc(c * sizeof(double))
    w.run_v = <double *> malloc((cr + 1) * sizeof(double))
    w.run_c = <int64_t *> malloc((cr + 1) * sizeof(int64_t))
    w.gb = <int64_t *> malloc((c + 1) * sizeof(int64_t))
    w.idisc = <double *> malloc(c * sizeof(double))
    w.inv = <double *> malloc(c * sizeof(double))
    w.ghist = <int64_t *> calloc(4 * 256, sizeof(int64_t))
    if (w.items == NULL or w.top == NULL or w.inv == NULL or w.ghist == NULL or w.scr == NULL or w.scr2 == NULL or w.bk == NULL or w.hist == NULL or w.vl == NULL
            or w.rl == NULL or w.run_v == NULL or w.run_c == NULL or w.gb == NULL or w.idisc == NULL):
        return -1
    for i in range(c):
        w.inv[i] = 1.0 / <double> (i + 1)
    for i in range(w.ndisc):
        w.idisc[i] = 1.0 / disc_of(i + 1, DISCOUNT_LOG2)
    return 0


cdef void work_free(Work *w) noexcept nogil:
    free(w.items)
    free(w.top)
    free(w.scr)
    free(w.scr2)
    free(w.bk)
    free(w.hist)
    free(w.vl)
    free(w.rl)
    free(w.run_v)
    free(w.run_c)
    free(w.gb)
    free(w.idisc)
    free(w.inv)
    free(w.ghist)


cdef inline double idisc_of(const Work *w, int64_t i, int dk) noexcept nogil:
    """1 / discount of 0-based position i."""
    if dk == DISCOUNT_LOG2 and i < w.ndisc:
        return w.idisc[i]
    return 1.0 / disc_of(i + 1, dk)


cdef struct Row:
    int64_t n          # valid candidates
    int64_t ns         # candidates in rl (sorted prefix)
    int64_t ng         # tie groups (average ties)
    int64_t nruns      # ideal runs (-1: not built yet)
    double cache_thr
    int64_t cache_R
    int has_cache
    int hist_state     # grade counters filled by load_row: 0 no, 1 yes (all small), 2 gave up
    int64_t maxg       # highest grade counted
    double lo          # lowest and highest valid score
    double hi


cdef int64_t count_rel(const Work *w, const Row *r, double thr) noexcept nogil:
    cdef int64_t t, c = 0
    for t in range(r.n):
        if w.vl[t] >= thr:
            c += 1
    return c


cdef int64_t total_rel(const Work *w, Row *r, double thr, int nrel_mode, int64_t nrel1,
                       const int64_t *nrel2, int64_t G) noexcept nogil:
    """R: relevant documents of the query at threshold thr."""
    cdef int64_t g, g0, c = 0
    if nrel_mode == 1:
        return nrel1
    if nrel_mode == 2:
        g0 = <int64_t> thr
        if <double> g0 < thr:
            g0 += 1
        if g0 < 0:
            g0 = 0
        for g in range(g0, G):
            c += nrel2[g]
        return c
    if r.has_cache and r.cache_thr == thr:
        return r.cache_R
    c = count_rel(w, r, thr)
    r.cache_thr = thr
    r.cache_R = c
    r.has_cache = 1
    return c


cdef void build_runs(Work *w, Row *r, int nrel_mode, int64_t nrel1, const int64_t *nrel2,
                     int64_t G, double default_thr, double extra_label) noexcept nogil:
    """Ideal ranking as runs (value, count), values descending, positive only."""
    cdef int64_t t, g, nr = 0, npos = 0, small = 1, extra, iv, maxg = 0, c
    cdef int64_t n = r.n
    cdef const double *vl = w.vl
    cdef bs_item *srt
    cdef double v
    cdef int64_t *hist = w.ghist      # all zero between calls
    if nrel_mode == 2:
        for g in range(G - 1, 0, -1):
            if nrel2[g] > 0:
                w.run_v[nr] = <double> g
                w.run_c[nr] = nrel2[g]
                nr += 1
        r.nruns = nr
        return
    # the counters were filled by load_row (hist_state 1) unless a label was not
    # a small integer (2); rows loaded without counting (0) count here
    if r.hist_state == 0:
        t = 0
        while t < n:
            v = vl[t]
            if v >= 0.0 and v < 256.0:
                iv = <int64_t> v
                if <double> iv == v:
                    hist[(iv << 2) | (t & 3)] += 1
                    if iv > maxg:
                        maxg = iv
                    t += 1
                    continue
            if v > 0.0:
                small = 0
                break
            t += 1
    else:
        maxg = r.maxg
        small = r.hist_state == 1
    if small:
        for g in range(maxg, 0, -1):
            c = hist[4 * g] + hist[4 * g + 1] + hist[4 * g + 2] + hist[4 * g + 3]
            if c > 0:
                w.run_v[nr] = <double> g
                w.run_c[nr] = c
                nr += 1
    for g in range(4 * maxg + 4):
        hist[g] = 0
    if not small:
        for t in range(r.n):
            v = w.vl[t]
            if v > 0.0:
                w.scr[npos].s = v
                w.scr[npos].t = 0
                w.scr[npos].tb = 0
                npos += 1
        srt = bs_sort(w.scr, npos, w.scr2, w.bk, w.hist)
        for t in range(npos):
            if nr > 0 and w.run_v[nr - 1] == srt[t].s:
                w.run_c[nr - 1] += 1
            else:
                w.run_v[nr] = srt[t].s
                w.run_c[nr] = 1
                nr += 1
    if nrel_mode == 1 and extra_label > 0.0:
        extra = nrel1 - count_rel(w, r, default_thr)
        if extra > 0:
            # insert (extra_label, extra) keeping values descending
            t = 0
            while t < nr and w.run_v[t] > extra_label:
                t += 1
            if t < nr and w.run_v[t] == extra_label:
                w.run_c[t] += extra
            else:
                g = nr
                while g > t:
                    w.run_v[g] = w.run_v[g - 1]
                    w.run_c[g] = w.run_c[g - 1]
                    g -= 1
                w.run_v[t] = extra_label
                w.run_c[t] = extra
                nr += 1
    r.nruns = nr


cdef inline double disc_sum(int64_t i0, int64_t i1, int dk) noexcept nogil:
    """Sum of 1 / discount over 0-based positions i0 .. i1 - 1 (i0 >= 2), in
    closed form (``irs_disc.h``)."""
    if dk == 1:
        return irs_inv_log2_sum(i0 + 1, i1 + 1)
    return irs_inv_log2_sum(i0 + 2, i1 + 2)


cdef double ideal_dcg(const Work *w, const Row *r, int64_t k, int gk, int dk) noexcept nogil:
    """Ideal DCG@k (k = 2**62: no cutoff).  The first IRS_DISC_EXACT positions
    are added one by one (as trec_eval); the positions beyond, which only huge
    ``n_relevant`` values reach, in closed form (Euler-Maclaurin), so the time
    does not depend on the number of relevant documents."""
    cdef int64_t u, c, i = 0, m
    cdef double s = 0.0, g
    for u in range(r.nruns):
        g = gain_of(w.run_v[u], gk)
        c = w.run_c[u]
        while c > 0 and i < k:
            if i >= IRS_DISC_EXACT:
                m = c if c < k - i else k - i
                s += g * disc_sum(i, i + m, dk)
                i += m
                break
            s += g * idisc_of(w, i, dk)
            i += 1
            c -= 1
        if i >= k:
            break
    return s


# ------------------------------------------------------------- one op, plain ties

cdef double op_plain(Work *w, Row *r, int kind, int64_t k, double thr, int gk, int dk,
                     int nrel_mode, int64_t nrel1, const int64_t *nrel2, int64_t G,
                     double default_thr, double extra_label) noexcept nogil:
    cdef int64_t i, m, c = 0, R, best, t, x
    cdef double s = 0.0, idcg
    cdef const double *rl = w.rl
    if kind == K_NDCG or kind == K_DCG:
        m = r.ns if (k < 0 or r.ns < k) else k
        for i in range(m):
            if rl[i] > 0.0:
                s += gain_of(rl[i], gk) * idisc_of(w, i, dk)
        if kind == K_DCG:
            return s
        if r.nruns < 0:
            build_runs(w, r, nrel_mode, nrel1, nrel2, G, default_thr, extra_label)
        idcg = ideal_dcg(w, r, k if k >= 0 else (<int64_t> 1) << 62, gk, dk)
        return s / idcg if idcg > 0.0 else 0.0
    if kind == K_AP:
        m = r.ns if (k < 0 or r.ns < k) else k
        for i in range(m):
            x = rl[i] >= thr
            c += x
            s += <double> (x * c) * w.inv[i]
        if nrel_mode == 0 and m == r.n:
            R = c       # every candidate was seen
        else:
            R = total_rel(w, r, thr, nrel_mode, nrel1, nrel2, G)
        return s / <double> R if R > 0 else 0.0
    if kind == K_P or kind == K_R or kind == K_SUCCESS:
        m = r.ns if r.ns < k else k
        for i in range(m):
            if rl[i] >= thr:
                c += 1
        if kind == K_P:
            return <double> c / <double> k
        if kind == K_SUCCESS:
            return 1.0 if c > 0 else 0.0
        R = total_rel(w, r, thr, nrel_mode, nrel1, nrel2, G)
        return <double> c / <double> R if R > 0 else 0.0
    if kind == K_RPREC:
        R = total_rel(w, r, thr, nrel_mode, nrel1, nrel2, G)
        if R <= 0:
            return 0.0
        m = r.ns if r.ns < R else R
        for i in range(m):
            if rl[i] >= thr:
                c += 1
        return <double> c / <double> R
    if kind == K_RR:
        if k > 0:
            # RR@k: the top k are sorted (partial selection keeps at least them)
            m = r.ns if r.ns < k else k
            for i in range(m):
                if rl[i] >= thr:
                    return 1.0 / <double> (i + 1)
            return 0.0
        if r.ns == r.n:
            for i in range(r.ns):
                if rl[i] >= thr:
                    return 1.0 / <double> (i + 1)
            return 0.0
        # partial order only: the best relevant candidate, then its rank
        best = -1
        for t in range(r.n):
            if w.vl[t] >= thr and (best < 0 or bs_before(&w.items[t], &w.items[best])):
                best = t
        if best < 0:
            return 0.0
        c = 1
        for t in range(r.n):
            if bs_before(&w.items[t], &w.items[best]):
                c += 1
        return 1.0 / <double> c
    if kind == K_NUM_RET:
        return <double> r.n
    if kind == K_NUM_REL:
        return <double> total_rel(w, r, thr, nrel_mode, nrel1, nrel2, G)
    if kind == K_NUM_REL_RET:
        return <double> count_rel(w, r, thr)
    return 0.0


# ------------------------------------------------------------ one op, average ties

cdef double expected_top(const Work *w, const Row *r, int64_t k, double thr) noexcept nogil:
    """Expected number of relevant candidates in the top k."""
    cdef int64_t g, a, b, i, rc, hi
    cdef double e = 0.0
    for g in range(r.ng):
        a = w.gb[g]
        b = w.gb[g + 1]
        if a >= k:
            break
        rc = 0
        for i in range(a, b):
            if w.rl[i] >= thr:
                rc += 1
        if rc == 0:
            continue
        hi = b if b < k else k
        if hi == b:
            e += <double> rc
        else:
            e += <double> rc * <double> (hi - a) / <double> (b - a)
    return e


cdef double op_average(Work *w, Row *r, int kind, int64_t k, double thr, int gk, int dk,
                       int nrel_mode, int64_t nrel1, const int64_t *nrel2, int64_t G,
                       double default_thr, double extra_label) noexcept nogil:
    cdef int64_t g, a, b, i, m, rc, hi, R, j, t
    cdef double s = 0.0, gs, ds, idcg, p, qq, c, prod, e
    cdef const double *rl = w.rl
    cdef int64_t kk = k if k >= 0 else (<int64_t> 1) << 62
    if kind == K_NDCG or kind == K_DCG:
        for g in range(r.ng):
            a = w.gb[g]
            b = w.gb[g + 1]
            if a >= kk:
                break
            gs = 0.0
            for i in range(a, b):
                if rl[i] > 0.0:
                    gs += gain_of(rl[i], gk)
            if gs == 0.0:
                continue
            hi = b if b < kk else kk
            ds = 0.0
            for i in range(a, hi):
                ds += idisc_of(w, i, dk)
            s += gs / <double> (b - a) * ds
        if kind == K_DCG:
            return s
        if r.nruns < 0:
            build_runs(w, r, nrel_mode, nrel1, nrel2, G, default_thr, extra_label)
        idcg = ideal_dcg(w, r, kk, gk, dk)
        if idcg <= 0.0:
            return 0.0
        e = s / idcg
        # the expected DCG is at most the ideal: an excess of a few ulps is the
        # rounding of the per-group averages (a perfect ranking with ties)
        return 1.0 if (e > 1.0 and e < 1.0 + 1e-12) else e
    if kind == K_AP:
        R = total_rel(w, r, thr, nrel_mode, nrel1, nrel2, G)
        if R <= 0:
            return 0.0
        c = 0.0
        for g in range(r.ng):
            a = w.gb[g]
            b = w.gb[g + 1]
            if a >= kk:
                break
            rc = 0
            for i in range(a, b):
                if rl[i] >= thr:
                    rc += 1
            if rc == 0:
                continue
            m = b - a
            p = <double> rc / <double> m
            qq = (<double> rc * <double> (rc - 1)) / (<double> m * <double> (m - 1)) if m > 1 else 0.0
            hi = b if b < kk else kk
            for i in range(a, hi):
                # E[rel_i * (relevant in the top i+1)] at position i of the group
                s += (p * (c + 1.0) + <double> (i - a) * qq) / <double> (i + 1)
            c += <double> rc
        return s / <double> R
    if kind == K_P:
        return expected_top(w, r, k, thr) / <double> k
    if kind == K_R:
        R = total_rel(w, r, thr, nrel_mode, nrel1, nrel2, G)
        return expected_top(w, r, k, thr) / <double> R if R > 0 else 0.0
    if kind == K_RPREC:
        R = total_rel(w, r, thr, nrel_mode, nrel1, nrel2, G)
        return expected_top(w, r, R, thr) / <double> R if R > 0 else 0.0
    if kind == K_RR or kind == K_SUCCESS:
        for g in range(r.ng):
            a = w.gb[g]
            b = w.gb[g + 1]
            if (kind == K_SUCCESS or k > 0) and a >= k:
                return 0.0
            rc = 0
            for i in range(a, b):
                if rl[i] >= thr:
                    rc += 1
            if rc == 0:
                continue
            m = b - a
            if kind == K_SUCCESS:
                if b <= k:
                    return 1.0
                # P(no relevant among the k - a first slots of the group)
                prod = 1.0
                for j in range(k - a):
                    prod *= <double> (m - rc - j) / <double> (m - j)
                    if prod <= 0.0:
                        prod = 0.0
                        break
                return 1.0 - prod
            # first relevant of the group at offset j: P = prod_{i<j} (m-rc-i)/(m-i) * rc/(m-j);
            # RR@k counts it only at ranks a + j + 1 <= k
            prod = 1.0
            e = 0.0
            for j in range(m - rc + 1):
                if k > 0 and a + j >= k:
                    break
                e += prod * (<double> rc / <double> (m - j)) / <double> (a + j + 1)
                prod *= <double> (m - rc - j) / <double> (m - j)
            return e
        return 0.0
    return op_plain(w, r, kind, k, thr, gk, dk, nrel_mode, nrel1, nrel2, G, default_thr, extra_label)


# ------------------------------------------------------------------- the driver

cdef int64_t load_row(Work *w, Row *r, const score_t *sc, const label_t *lb, int64_t n, int tie_mode,
                      int want_hist, int64_t *bad) noexcept nogil:
    """Valid candidates (score not NaN) into w.items / w.vl; returns their number.
    With want_hist, also counts the grades of the valid candidates (ideal DCG) in
    w.ghist (four interleaved counters per grade) while every label is a small
    non-negative integer or non-positive."""
    cdef int64_t j, t = 0, iv, maxg = 0
    cdef double s, v, lo = INFINITY, hi = -INFINITY
    cdef int small = want_hist
    cdef int64_t *hist = w.ghist
    bad[0] = 0
    for j in range(n):
        s = <double> sc[j]
        if s != s:
            continue
        v = <double> lb[j]
        if label_t is float or label_t is double:
            if not (v - v == 0.0):
                bad[0] = 1
        if small:
            if label_t is float or label_t is double:
                if v >= 0.0 and v < 256.0:
                    iv = <int64_t> v
                    if <double> iv == v:
                        hist[(iv << 2) | (t & 3)] += 1
                        if iv > maxg:
                            maxg = iv
                    else:
                        small = 0
                elif v > 0.0:
                    small = 0
            else:
                iv = <int64_t> lb[j]
                if iv >= 0 and iv < 256:
                    hist[(iv << 2) | (t & 3)] += 1
                    if iv > maxg:
                        maxg = iv
                elif iv > 0:
                    small = 0
        lo = s if s < lo else lo
        hi = s if s > hi else hi
        w.items[t].s = s
        w.items[t].t = <int32_t> t
        w.items[t].tb = <int32_t> (-j if tie_mode == TIES_TREC else j)
        w.vl[t] = v
        t += 1
    r.lo = lo
    r.hi = hi
    r.maxg = maxg
    r.hist_state = 0 if not want_hist else (1 if small else 2)
    return t


cdef int _check_exp_gain(const score_t[::1] scores, const label_t[::1] labels,
                         const int64_t[::1] starts, const int64_t[::1] lens, int64_t q0, int64_t q1,
                         int nrel_mode, const int64_t[:, ::1] nrel2, double extra_label) except -1:
    """gain=exp: 2**label - 1 must be finite (labels below 1024)."""
    cdef int64_t q, j, g
    cdef double v, worst = -INFINITY
    for q in range(q0, q1):
        for j in range(starts[q], starts[q] + lens[q]):
            if scores[j] == scores[j]:
                v = <double> labels[j]
                if v > worst:
                    worst = v
        if nrel_mode == 2:
            for g in range(1024, nrel2.shape[1]):
                if nrel2[q, g] > 0 and g > worst:
                    worst = g
    if nrel_mode == 1 and extra_label > worst:
        worst = extra_label
    if worst >= 1024.0:
        raise ValueError(f"nDCG/DCG(gain=exp): label {worst:g} gives the gain 2**label - 1, beyond the "
                         "range of a double; gain=exp takes labels below 1024 (use the linear gain)")
    return 0


def evaluate_rows(const score_t[::1] scores, const label_t[::1] labels,
                  const int64_t[::1] starts, const int64_t[::1] lens, int64_t q0, int64_t q1,
                  const int32_t[::1] op_kind, const int64_t[::1] op_k, const double[::1] op_thr,
                  const int32_t[::1] op_gain, const int32_t[::1] op_disc,
                  int tie_mode, double default_thr, double extra_label,
                  int nrel_mode, const int64_t[::1] nrel1, const int64_t[:, ::1] nrel2,
                  double[:, ::1] out):
    """Evaluate queries q0..q1-1; writes ``out[q, o]``.  Returns (error code, row)."""
    cdef int64_t nq = starts.shape[0]
    cdef int64_t nops = op_kind.shape[0]
    cdef int64_t N = scores.shape[0]
    cdef int64_t G = nrel2.shape[1]
    cdef int64_t q, o, cap = 0, kmax = 0, n, i, bad, code = E_OK, err_row = -1, ndisc
    cdef int partial = 1, want_hist
    cdef Work w
    cdef Row r
    cdef int kind
    cdef const int64_t *n2 = NULL
    cdef bs_item *srt
    cdef int64_t n1 = 0
    # everything that could make the loop read out of bounds is checked here
    if labels.shape[0] != N or lens.shape[0] != nq or out.shape[1] != nops \
            or op_k.shape[0] != nops or op_thr.shape[0] != nops or op_gain.shape[0] != nops \
            or op_disc.shape[0] != nops:
        raise ValueError("evaluate_rows: inconsistent array shapes")
    if q0 < 0 or q1 > nq or q0 > q1 or out.shape[0] < q1:
        raise ValueError("evaluate_rows: bad row range")
    if nrel_mode == 1 and nrel1.shape[0] != nq:
        raise ValueError("evaluate_rows: n_relevant must have one value per query")
    if nrel_mode == 2 and (nrel2.shape[0] != nq or G < 1):
        raise ValueError("evaluate_rows: n_relevant must have one row per query and at least one grade")
    if nrel_mode < 0 or nrel_mode > 2:
        raise ValueError("evaluate_rows: bad n_relevant mode")
    if tie_mode < TIES_TREC or tie_mode > TIES_AVERAGE:
        raise ValueError("evaluate_rows: bad tie mode")
    for q in range(q0, q1):
        if starts[q] < 0 or lens[q] < 0 or starts[q] > N or lens[q] > N - starts[q]:
            raise ValueError(f"evaluate_rows: row {q} is out of range")
        if lens[q] > cap:
            cap = lens[q]
    if cap >= 2147483647:
        raise ValueError("evaluate_rows: rows are limited to 2**31 - 2 candidates")
    for o in range(nops):
        kind = op_kind[o]
        if kind < K_NDCG or kind > K_NUM_REL_RET:
            raise ValueError("evaluate_rows: bad op kind")
        if (kind == K_P or kind == K_R or kind == K_SUCCESS) and op_k[o] <= 0:
            raise ValueError("evaluate_rows: cutoff must be positive")
        if kind == K_RR and op_k[o] == 0:
            raise ValueError("evaluate_rows: cutoff must be positive (-1: none)")
        if kind == K_RPREC or ((kind == K_NDCG or kind == K_DCG or kind == K_AP) and (op_k[o] < 0 or op_k[o] > TOPK_MAX)):
            partial = 0
        if op_k[o] > kmax:
            kmax = op_k[o]
    if tie_mode == TIES_AVERAGE or kmax > TOPK_MAX:
        partial = 0
    # discount table: as deep as the deepest nDCG/DCG op reads (whole rows without a cutoff)
    ndisc = 0
    want_hist = 0
    for o in range(nops):
        if op_kind[o] == K_NDCG and nrel_mode != 2:
            want_hist = 1
        if op_kind[o] == K_NDCG or op_kind[o] == K_DCG:
            if op_k[o] < 0 or op_k[o] > cap:
                ndisc = cap
            elif op_k[o] > ndisc:
                ndisc = op_k[o]
    for o in range(nops):
        if (op_kind[o] == K_NDCG or op_kind[o] == K_DCG) and op_gain[o] == 1:
            _check_exp_gain(scores, labels, starts, lens, q0, q1, nrel_mode, nrel2, extra_label)
            break
    if work_alloc(&w, cap, ndisc, G if nrel_mode == 2 else 0) != 0:
        work_free(&w)
        raise MemoryError()
    with nogil:
        for q in range(q0, q1):
            n = load_row(&w, &r, &scores[0] + starts[q] if N else NULL,
                         &labels[0] + starts[q] if N else NULL, lens[q], tie_mode, want_hist, &bad)
            if bad:
                code = E_LABEL
                err_row = q
                break
            r.n = n
            r.nruns = -1
            r.has_cache = 0
            r.ng = 0
            if nrel_mode == 1:
                n1 = nrel1[q]
                if n1 < count_rel(&w, &r, default_thr):
                    code = E_NREL
                    err_row = q
                    break
            elif nrel_mode == 2:
                n2 = &nrel2[q, 0]
            if partial:
                r.ns = bs_topk(w.items, n, kmax, w.top)
                for i in range(r.ns):
                    w.rl[i] = w.vl[w.top[i].t]
            else:
                srt = bs_sort_range(w.items, n, r.lo, r.hi, w.scr, w.bk, w.hist)
                r.ns = n
                for i in range(n):
                    w.rl[i] = w.vl[srt[i].t]
                if tie_mode == TIES_AVERAGE:
                    r.ng = 0
                    for i in range(n):
                        if i == 0 or srt[i].s != srt[i - 1].s:
                            w.gb[r.ng] = i
                            r.ng += 1
                    w.gb[r.ng] = n
            for o in range(nops):
                if tie_mode == TIES_AVERAGE:
                    out[q, o] = op_average(&w, &r, op_kind[o], op_k[o], op_thr[o], op_gain[o], op_disc[o],
                                           nrel_mode, n1, n2, G, default_thr, extra_label)
                else:
                    out[q, o] = op_plain(&w, &r, op_kind[o], op_k[o], op_thr[o], op_gain[o], op_disc[o],
                                         nrel_mode, n1, n2, G, default_thr, extra_label)
    work_free(&w)
    return code, err_row
