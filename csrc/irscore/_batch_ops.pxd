# The array kernel's rows (``_batch``), part 2: the value of one op on a row
# in rank order (``_batch_rank``): plain ties by the native measure library's
# functions (``_measurelib.pxd``, shared with ``_ranking``), average ties in
# closed form per tie group; the ideal ranking (runs of equal grades) and R.
# All inline, nogil; cimported by ``_batch``, no module of its own.
from libc.stdint cimport int64_t, uint64_t, UINT64_MAX
from libc.math cimport INFINITY

from irscore._common cimport gain_of, GAIN_LINEAR, DISCOUNT_LOG2
from irscore._measurelib cimport (
    ml_rel_count, ml_first_rel, ml_dcg, ml_ideal_dcg, ml_ap, ml_p, ml_recall, ml_success, ml_rprec, ml_rr,
    ml_ndcg, IRS_DISC_EXACT,
    K_NDCG, K_DCG, K_MAP, K_P, K_RECALL, K_RECIP_RANK, K_RPREC, K_SUCCESS, K_NUM_RET, K_NUM_REL, K_NUM_REL_RET)
from irscore._batch_rank cimport Work, Row, idisc_of, bs_item, bs_sort, bk_before, bc_positions

cdef inline int64_t count_rel(const Work *w, const Row *r, double thr) noexcept nogil:
    cdef int64_t t, c = 0
    for t in range(r.n):
        if w.vl[t] >= thr:
            c += 1
    return c


cdef inline int64_t total_rel(const Work *w, Row *r, double thr, int nrel_mode, int64_t nrel1,
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


cdef inline void build_runs(Work *w, Row *r, int nrel_mode, int64_t nrel1, const int64_t *nrel2,
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


cdef inline double ideal_dcg(const Work *w, const Row *r, int64_t k, int gk, int dk) noexcept nogil:
    """Ideal DCG@k (k = 2**62: no cutoff) of the row's runs; the positions from
    IRS_DISC_EXACT on, which only huge ``n_relevant`` values reach, in closed
    form, so the time does not depend on the number of relevant documents."""
    return ml_ideal_dcg(w.run_v, w.run_c, r.nruns, k, gk, dk, w.disc, w.ndisc, IRS_DISC_EXACT)


# ------------------------------------------------------------- one op, plain ties

cdef inline double op_plain(Work *w, Row *r, int kind, int64_t k, double thr, int gk, int dk,
                            int nrel_mode, int64_t nrel1, const int64_t *nrel2, int64_t G,
                            double default_thr, double extra_label) noexcept nogil:
    """One op of a row whose first r.ns labels are in rank order (w.rl), by the
    measure library's functions; the relevant positions (w.rp) stand for the
    labels where the plan listed them at this threshold."""
    cdef int64_t m, c = 0, R, best, t
    cdef uint64_t kb, kx
    cdef double s
    cdef const double *rl = w.rl
    cdef const int64_t *rp = w.rp if (r.has_rp and thr == r.rp_thr) else NULL
    if kind == K_NDCG or kind == K_DCG:
        m = r.ns if (k < 0 or r.ns < k) else k
        if gk == GAIN_LINEAR and dk == DISCOUNT_LOG2 and m <= w.ndisc:
            # the positive labels only (listed 8 positions at a time with
            # AVX-512): a label <= 0 would add +0.0, which leaves s (>= +0) as it is
            c = bc_positions(rl, m, 0.0, 1, w.pk)
            s = ml_dcg(rl, m, gk, dk, w.disc, w.ndisc, w.pk, c)
        else:
            s = ml_dcg(rl, m, gk, dk, w.disc, w.ndisc, NULL, 0)
        if kind == K_DCG:
            return s
        if r.nruns < 0:
            build_runs(w, r, nrel_mode, nrel1, nrel2, G, default_thr, extra_label)
        return ml_ndcg(s, ideal_dcg(w, r, k if k >= 0 else (<int64_t> 1) << 62, gk, dk))
    if kind == K_MAP:
        m = r.ns if (k < 0 or r.ns < k) else k
        if nrel_mode == 0 and m == r.n:
            R = -1      # every candidate is seen: R is the relevant ones found
        else:
            R = total_rel(w, r, thr, nrel_mode, nrel1, nrel2, G)
            if R <= 0:
                return 0.0
        return ml_ap(rl, m, thr, R, rp, r.nrp)
    if kind == K_P or kind == K_RECALL or kind == K_SUCCESS:
        c = ml_rel_count(rl, r.ns if r.ns < k else k, thr, rp, r.nrp)
        if kind == K_P:
            return ml_p(c, k)
        if kind == K_SUCCESS:
            return ml_success(c)
        return ml_recall(c, total_rel(w, r, thr, nrel_mode, nrel1, nrel2, G))
    if kind == K_RPREC:
        R = total_rel(w, r, thr, nrel_mode, nrel1, nrel2, G)
        if R <= 0:
            return 0.0
        return ml_rprec(ml_rel_count(rl, r.ns if r.ns < R else R, thr, rp, r.nrp), R)
    if kind == K_RECIP_RANK:
        if k > 0:
            # RR@k: the top k are sorted (partial selection keeps at least them)
            return ml_rr(ml_first_rel(rl, r.ns if r.ns < k else k, thr, rp, r.nrp))
        # the sorted prefix (all of it, or the exact top ns) holds the first
        # relevant candidate if it holds any
        t = ml_first_rel(rl, r.ns, thr, rp, r.nrp)
        if t >= 0:
            return ml_rr(t)
        if r.ns == r.n:
            return 0.0
        # partial order only, none relevant in the top ns: the best relevant
        # candidate, then its rank
        if not r.coarse and r.fast:
            # exact keys: the smallest key of a relevant candidate, then the
            # keys below it, both branch-free (keys are never UINT64_MAX: its
            # code is a NaN's)
            kb = UINT64_MAX
            for t in range(r.n):
                kx = w.keys[t]
                kb = kx if ((w.vl[t] >= thr) & (kx < kb)) else kb
            if kb == UINT64_MAX:
                return 0.0
            c = 1
            for t in range(r.n):
                c += w.keys[t] < kb
            return 1.0 / <double> c
        best = -1
        for t in range(r.n):
            if w.vl[t] >= thr and (best < 0 or bk_before(w.keys[t], w.keys[best], w.sv, r.trec)):
                best = t
        if best < 0:
            return 0.0
        c = 1
        for t in range(r.n):
            if bk_before(w.keys[t], w.keys[best], w.sv, r.trec):
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

cdef inline double expected_top(const Work *w, const Row *r, int64_t k, double thr) noexcept nogil:
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


cdef inline double op_average(Work *w, Row *r, int kind, int64_t k, double thr, int gk, int dk,
                              int nrel_mode, int64_t nrel1, const int64_t *nrel2, int64_t G,
                              double default_thr, double extra_label) noexcept nogil:
    cdef int64_t g, a, b, i, m, rc, hi, R, j
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
    if kind == K_MAP:
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
    if kind == K_RECALL:
        R = total_rel(w, r, thr, nrel_mode, nrel1, nrel2, G)
        return expected_top(w, r, k, thr) / <double> R if R > 0 else 0.0
    if kind == K_RPREC:
        R = total_rel(w, r, thr, nrel_mode, nrel1, nrel2, G)
        return expected_top(w, r, R, thr) / <double> R if R > 0 else 0.0
    if kind == K_RECIP_RANK or kind == K_SUCCESS:
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
