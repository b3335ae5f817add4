"""Kernels of the classic ranked-retrieval measures (trec_eval 10 definitions).

Input per query: its relevance list in rank order (``rel``, CSR ``ret_off``;
values >= 0 are judged grades, -1 not in the qrels, -2 judged with a negative
grade) and its judgment counts per grade (``levels``).  ``compute`` evaluates a
list of *ops* for every query in one call; each op is one measure family with
its relevance level, parameters (CSR ``par_off``/``params``) and the first
output column it writes.  Every ``m_<name>`` function is the kernel of the
trec_eval measure of that name and follows its source line by line, including
its edge cases (documented in the README's Conventions); the measures that the
array kernel (``_batch``) computes too are the native measure library's
(``_measurelib.pxd``), which both kernels call.
"""
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport malloc, free
from libc.math cimport log, log2, lround, NAN

from irscore._checks cimport check_csr, check_len
import irscore._measurelib as _measurelib

from irscore._common cimport GAIN_LINEAR, GAIN_EXP, DISCOUNT_LOG2, DISCOUNT_JARVELIN
from irscore._measurelib cimport (
    ml_rel_count, ml_first_rel, ml_dcg, ml_ideal_dcg, ml_ap, ml_p, ml_recall, ml_rel_p, ml_success,
    ml_rprec, ml_rr, ml_ndcg, ml_ncg, ml_hole, op_width, op_min_params,
    K_NUM_Q, K_NUM_RET, K_NUM_REL, K_NUM_REL_RET, K_MAP, K_GM_MAP, K_RPREC, K_BPREF, K_RECIP_RANK,
    K_IPREC, K_P, K_RECALL, K_INFAP, K_GM_BPREF, K_RPREC_MULT, K_UTILITY, K_11PT, K_BING, K_G, K_NDCG,
    K_NDCG_REL, K_RNDCG, K_NDCG_CUT, K_MAP_CUT, K_REL_P, K_SUCCESS, K_SET_P, K_SET_REL_P, K_SET_RECALL,
    K_SET_MAP, K_SET_F, K_NUM_NONREL_JUDGED_RET, K_RBP, K_RBP_RESID, K_UNJ, K_DCG, K_IDEAL_DCG, K_DCG_CUT,
    K_JUDGED, K_YAAP, K_NDCG_GAINS_CUT, K_JUDGED_RATE, K_RBP_BIN, K_HITS, K_F1, K_AP_MIN_K_R, K_RBP_GRADE,
    K_NCG, K_HOLE, F_JUDGED_ONLY)

from irscore._irs_common cimport IRSCORE_BOUNDSCHECK

#: the one op enum of the native measure library (``_measurelib.pxd``); ``irscore._batch.OpKind`` is
#: the same object
OpKind = _measurelib.OpKind
OpFlag = _measurelib.OpFlag

#: True when the kernels were built with bounds checks (IRSCORE_DEBUG=1)
BOUNDSCHECK = bool(IRSCORE_BOUNDSCHECK)

#: codes of the gain and discount kinds of the dcg_cut op (parameters 1 and 2)
GAIN_KINDS = {"linear": GAIN_LINEAR, "exp": GAIN_EXP}
DISCOUNT_KINDS = {"log2": DISCOUNT_LOG2, "jarvelin": DISCOUNT_JARVELIN}

# op kinds: the cpdef enum OpKind of _measurelib.pxd

cdef double MIN_GEO_MEAN = 0.00001
cdef double INFAP_EPSILON = 0.00001


cdef struct Query:
    const int32_t *rel     # relevance list in rank order
    int64_t n              # number retrieved
    const int64_t *lv      # judgments per grade
    int64_t G              # number of grades counted (max grade + 1)


cdef struct Gain:
    int64_t level
    double gain
    int64_t num


cdef inline int64_t num_rel(const Query *q, int64_t level) noexcept nogil:
    cdef int64_t g, s = 0
    for g in range(level if level > 0 else 0, q.G):
        s += q.lv[g]
    return s


cdef inline int64_t num_rel_ret(const Query *q, int64_t level) noexcept nogil:
    """trec_eval's num_rel_ret: judged documents (grade >= 0) at the level; the
    measures that scan the list themselves test ``rel >= level`` only, which
    differs for a negative level (-l -1)."""
    cdef int64_t i, s = 0
    for i in range(q.n):
        if q.rel[i] >= level and q.rel[i] >= 0:
            s += 1
    return s


cdef inline int64_t num_rel_levels(const Query *q) noexcept nogil:
    cdef int64_t g
    for g in range(q.G - 1, -1, -1):
        if q.lv[g]:
            return g + 1
    return 0


cdef inline double m_map(const Query *q, int64_t level) noexcept nogil:
    return ml_ap(q.rel, q.n, <double> level, num_rel(q, level), NULL, 0)


cdef double m_yaap(const Query *q, int64_t level) noexcept nogil:
    # trec_eval's yaap (Robertson 2012): log((1 + S) / (1 + R - S)), S the
    # sum of precisions at the relevant retrieved documents
    cdef int64_t i, so_far = 0
    cdef double s = 0.0
    for i in range(q.n):
        if q.rel[i] >= level:
            so_far += 1
            s += <double> so_far / <double> (i + 1)
    return log((1.0 + s) / (1.0 + <double> num_rel(q, level) - s))


cdef double m_rprec(const Query *q, int64_t level) noexcept nogil:
    cdef int64_t R = num_rel(q, level)
    return ml_rprec(ml_rel_count(q.rel, q.n if q.n < R else R, <double> level, NULL, 0), R)


cdef double m_bpref(const Query *q, int64_t level) noexcept nogil:
    cdef int64_t R = num_rel(q, level)
    cdef int64_t g, j, num_nonrel = 0, nonrel_so_far = 0
    cdef double b = 0.0
    cdef int64_t mr, mn
    for g in range(level if level < q.G else q.G):
        if g >= 0:
            num_nonrel += q.lv[g]
    for j in range(q.n):
        if q.rel[j] < 0:
            continue
        if q.rel[j] < level:
            nonrel_so_far += 1
        else:
            if nonrel_so_far > 0:
                mr = nonrel_so_far if nonrel_so_far < R else R
                mn = num_nonrel if num_nonrel < R else R
                b += 1.0 - (<double> mr) / (<double> mn)
            else:
                b += 1.0
    if R:
        b /= <double> R
    return b


cdef double m_recip_rank(const Query *q, int64_t level, const double *par, int64_t np_) noexcept nogil:
    """recip_rank; with a parameter k (RR@k, MS MARCO's MRR@10), only the top k count."""
    cdef int64_t m = q.n
    if np_ >= 1 and par[0] < <double> m:
        m = <int64_t> par[0]
    return ml_rr(ml_first_rel(q.rel, m, <double> level, NULL, 0))


cdef void m_iprec(const Query *q, int64_t level, const double *cut, int64_t nc,
                  int64_t *cutoffs, double *out, double *sum_out) noexcept nogil:
    """iprec_at_recall (out != NULL) and 11pt_avg (sum_out != NULL)."""
    cdef int64_t R = num_rel(q, level)
    cdef int64_t rr = num_rel_ret(q, level)
    cdef int64_t i, c, so_far
    cdef double precis, int_precis, s = 0.0
    for i in range(nc):
        cutoffs[i] = lround(cut[i] * R)
    c = nc - 1
    while c >= 0 and cutoffs[c] > rr:
        c -= 1
    precis = (<double> rr / <double> q.n) if q.n > 0 else 0.0
    int_precis = precis
    so_far = rr
    i = q.n
    while i > 0 and so_far > 0:
        precis = <double> so_far / <double> i
        if int_precis < precis:
            int_precis = precis
        if q.rel[i - 1] >= level:
            while c >= 0 and so_far == cutoffs[c]:
                if out != NULL:
                    out[c] = int_precis
                s += int_precis
                c -= 1
            so_far -= 1
        i -= 1
    while c >= 0:
        if out != NULL:
            out[c] = int_precis
        s += int_precis
        c -= 1
    if sum_out != NULL:
        sum_out[0] = s / <double> nc if nc > 0 else 0.0


cdef void m_cut_counts(const Query *q, int64_t level, const double *cut, int64_t nc,
                       int kind, double *out) noexcept nogil:
    """P, recall, relative_P, success, unj, map_cut: statistics of the top k."""
    cdef int64_t R = num_rel(q, level)
    cdef int64_t i, c = 0, so_far = 0, k
    cdef double apsum = 0.0
    if (kind == K_RECALL or kind == K_REL_P or kind == K_MAP_CUT) and R == 0:
        for c in range(nc):
            out[c] = 0.0
        return
    for i in range(q.n):
        if c >= nc:
            break
        if i == <int64_t> cut[c]:
            _cut_value(kind, so_far, apsum, i, R, &out[c])
            c += 1
            if c >= nc:
                break
        if kind == K_UNJ:
            if q.rel[i] < 0:
                so_far += 1
        elif q.rel[i] >= level:
            so_far += 1
            if kind == K_MAP_CUT:
                apsum += <double> so_far / <double> (i + 1)
    while c < nc:
        k = <int64_t> cut[c]
        _cut_value(kind, so_far, apsum, k, R, &out[c])
        c += 1


cdef inline void _cut_value(int kind, int64_t so_far, double apsum, int64_t k, int64_t R,
                            double *out) noexcept nogil:
    if kind == K_P or kind == K_UNJ or kind == K_JUDGED:
        out[0] = ml_p(so_far, k)
    elif kind == K_RECALL:
        out[0] = ml_recall(so_far, R)
    elif kind == K_REL_P:
        out[0] = ml_rel_p(so_far, k, R)
    elif kind == K_SUCCESS:
        out[0] = ml_success(so_far)
    elif kind == K_MAP_CUT:
        out[0] = apsum / <double> R


cdef double m_infap(const Query *q, int64_t level) noexcept nogil:
    cdef int64_t R = num_rel(q, level)
    cdef int64_t j, nonrel = 0, relsf = 0, unj = 0
    cdef double ap = 0.0, fj
    for j in range(q.n):
        if q.rel[j] == -1:
            continue
        if q.rel[j] == -2:
            unj += 1
            continue
        if q.rel[j] >= 0 and q.rel[j] < level:
            nonrel += 1
        else:
            relsf += 1
            if j == 0:
                ap += 1.0
            else:
                fj = <double> j
                ap += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * \
                    ((relsf - 1 + nonrel + unj) / fj) * \
                    ((relsf - 1 + INFAP_EPSILON) / (relsf - 1 + nonrel + 2 * INFAP_EPSILON))
    if R:
        ap /= <double> R
    return ap


cdef void m_rprec_mult(const Query *q, int64_t level, const double *cut, int64_t nc,
                       int64_t *cutoffs, double *out) noexcept nogil:
    cdef int64_t R = num_rel(q, level)
    cdef int64_t rr = num_rel_ret(q, level)
    cdef int64_t i, c, so_far
    cdef double precis
    for i in range(nc):
        cutoffs[i] = <int64_t> (cut[i] * R + 0.9)
        out[i] = 0.0
    c = nc - 1
    while c >= 0 and cutoffs[c] > q.n:
        out[c] = <double> rr / <double> cutoffs[c]
        c -= 1
    so_far = rr
    i = q.n
    while i > 0 and so_far > 0:
        precis = <double> so_far / <double> i
        while c >= 0 and i == cutoffs[c]:
            out[c] = precis
            c -= 1
        if q.rel[i - 1] >= level:
            so_far -= 1
        i -= 1


cdef double m_bing(const Query *q, int64_t level) noexcept nogil:
    cdef int64_t i, so_far = 0
    cdef double s = 0.0
    for i in range(q.n):
        if q.rel[i] >= level:
            so_far += 1
            s += 1.0 / log2(<double> (3 + i - so_far))
    if so_far:
        return s / <double> num_rel(q, level)
    return 0.0


cdef int64_t setup_gains(const Query *q, const double *pairs, int64_t npairs, Gain *gains) noexcept nogil:
    """trec_eval's setup_gains: explicit (level, gain) pairs, then every grade
    up to the highest judged one with gain = grade; sorted by gain ascending
    (stable, where trec_eval's comparator truncates differences to int)."""
    cdef int64_t i, j, ng = 0, nl = num_rel_levels(q)
    cdef Gain t
    for i in range(npairs):
        gains[ng].level = <int64_t> pairs[2 * i]
        gains[ng].gain = pairs[2 * i + 1]
        gains[ng].num = 0
        ng += 1
    for i in range(nl):
        # only the explicit pairs can name grade i (each grade is appended once):
        # O(nl * npairs), not O(nl^2) (one grade of 10**6: minutes)
        j = 0
        while j < npairs and gains[j].level != i:
            j += 1
        if j < npairs:
            gains[j].num = q.lv[i]
        else:
            gains[ng].level = i
            gains[ng].gain = <double> i
            gains[ng].num = q.lv[i]
            ng += 1
    # insertion sort by gain (stable)
    for i in range(1, ng):
        t = gains[i]
        j = i
        while j > 0 and gains[j - 1].gain > t.gain:
            gains[j] = gains[j - 1]
            j -= 1
        gains[j] = t
    return ng


cdef inline double get_gain(int64_t rel, const Gain *gains, int64_t ng) noexcept nogil:
    cdef int64_t i
    for i in range(ng):
        if gains[i].level == rel:
            return gains[i].gain
    return 0.0


cdef struct IdealIter:
    int64_t cur
    int64_t num_at
    double gain


cdef inline void ideal_init(IdealIter *it, const Gain *gains, int64_t ng) noexcept nogil:
    it.cur = ng - 1
    it.gain = gains[it.cur].gain if it.cur >= 0 else 0.0
    it.num_at = 0


cdef inline void ideal_next(IdealIter *it, const Gain *gains) noexcept nogil:
    it.num_at += 1
    while it.cur >= 0 and it.num_at > gains[it.cur].num:
        it.num_at = 1
        it.cur -= 1
        it.gain = gains[it.cur].gain if it.cur >= 0 else 0.0


cdef void m_ndcg(const Query *q, const Gain *gains, int64_t ng, double *dcg_out,
                 double *ideal_out) noexcept nogil:
    cdef double rg, dcg = 0.0, idcg = 0.0
    cdef int64_t i = 0
    cdef IdealIter it
    ideal_init(&it, gains, ng)
    while i < q.n and it.gain > 0.0:
        rg = get_gain(q.rel[i], gains, ng)
        if rg != 0:
            dcg += rg / log2(<double> (i + 2))
        ideal_next(&it, gains)
        if it.gain > 0.0:
            idcg += it.gain / log2(<double> (i + 2))
        i += 1
    while i < q.n:
        rg = get_gain(q.rel[i], gains, ng)
        if rg != 0:
            dcg += rg / log2(<double> (i + 2))
        i += 1
    while it.gain > 0.0:
        ideal_next(&it, gains)
        if it.gain > 0.0:
            idcg += it.gain / log2(<double> (i + 2))
        i += 1
    dcg_out[0] = dcg
    ideal_out[0] = idcg


cdef double m_ndcg_rel(const Query *q, const Gain *gains, int64_t ng) noexcept nogil:
    cdef double rg, dcg = 0.0, idcg = 0.0, s = 0.0
    cdef int64_t i = 0, nrel = 0, nrr = 0
    cdef IdealIter it
    ideal_init(&it, gains, ng)
    while i < q.n and it.gain > 0.0:
        rg = get_gain(q.rel[i], gains, ng)
        if rg != 0:
            dcg += rg / log2(<double> (i + 2))
        ideal_next(&it, gains)
        if it.gain > 0.0:
            nrel += 1
            idcg += it.gain / log2(<double> (i + 2))
        if rg > 0:
            s += dcg / idcg
            nrr += 1
        i += 1
    while i < q.n:
        rg = get_gain(q.rel[i], gains, ng)
        if rg != 0:
            dcg += rg / log2(<double> (i + 2))
        if rg > 0:
            s += dcg / idcg
            nrr += 1
        i += 1
    while it.gain > 0.0:
        ideal_next(&it, gains)
        if it.gain > 0.0:
            nrel += 1
            idcg += it.gain / log2(<double> (i + 2))
        i += 1
    if idcg > 0.0:
        s += (<double> (nrel - nrr)) * dcg / idcg
    if s > 0.0:
        return s / <double> nrel
    return 0.0


cdef double m_rndcg(const Query *q, const Gain *gains, int64_t ng, int64_t level) noexcept nogil:
    cdef double rg, dcg = 0.0, idcg = 0.0, s = 0.0, old_gain
    cdef int64_t i = 0, nchanged = 0
    cdef IdealIter it
    if num_rel(q, level) == 0:
        return 0.0
    ideal_init(&it, gains, ng)
    old_gain = it.gain
    while i < q.n and it.gain > 0.0:
        rg = get_gain(q.rel[i], gains, ng)
        ideal_next(&it, gains)
        if old_gain != it.gain:
            if idcg > 0.0:
                s += dcg / idcg
                nchanged += 1
            old_gain = it.gain
        if rg != 0:
            dcg += rg / log2(<double> (i + 2))
        if it.gain > 0.0:
            idcg += it.gain / log2(<double> (i + 2))
        i += 1
    if i < q.n:
        while i < q.n:
            rg = get_gain(q.rel[i], gains, ng)
            if rg != 0:
                dcg += rg / log2(<double> (i + 2))
            i += 1
        if idcg > 0.0:
            s += dcg / idcg
            nchanged += 1
    while it.gain > 0.0:
        ideal_next(&it, gains)
        if old_gain != it.gain:
            if idcg > 0.0:
                s += dcg / idcg
                nchanged += 1
            old_gain = it.gain
        if it.gain > 0.0:
            idcg += it.gain / log2(<double> (i + 2))
        i += 1
    if nchanged == 0:
        return 0.0
    return s / <double> nchanged


cdef double m_g(const Query *q, const Gain *gains, int64_t ng) noexcept nogil:
    cdef double rg, sum_res = 0.0, sum_ideal = 0.0, sum_cost = 0.0, min_cost = 1.0, res_g = 0.0
    cdef int64_t i = 0
    cdef IdealIter it
    ideal_init(&it, gains, ng)
    while i < q.n and it.gain > 0.0:
        rg = get_gain(q.rel[i], gains, ng)
        sum_res += rg
        ideal_next(&it, gains)
        if it.gain > 0.0:
            sum_ideal += it.gain
        if it.gain >= min_cost:
            sum_cost += it.gain
        else:
            sum_cost += min_cost
        if rg != 0:
            res_g += rg / log2(2.0 + sum_cost - sum_res)
        i += 1
    while i < q.n:
        rg = get_gain(q.rel[i], gains, ng)
        sum_res += rg
        sum_cost += min_cost
        if rg != 0:
            res_g += rg / log2(2.0 + sum_cost - sum_res)
        i += 1
    while it.gain > 0.0:
        ideal_next(&it, gains)
        if it.gain > 0.0:
            sum_ideal += it.gain
        i += 1
    if sum_ideal > 0.0:
        return res_g / sum_ideal
    return 0.0


cdef void m_ndcg_cut(const Query *q, const double *cut, int64_t nc, double *out) noexcept nogil:
    """trec_eval ndcg_cut: gain = grade (relevance level ignored)."""
    cdef int64_t i, c = 0, cur, cnt
    cdef double s = 0.0, ideal = 0.0, g
    for i in range(q.n):
        if c >= nc:
            break
        if i == <int64_t> cut[c]:
            out[c] = s
            c += 1
            if c >= nc:
                break
        g = <double> q.rel[i]
        if g > 0:
            s += g / log2(<double> (i + 2))
    while c < nc:
        out[c] = s
        c += 1
    if nc == 0:
        return
    c = 0
    cur = num_rel_levels(q) - 1
    cnt = 0
    i = 0
    while True:
        cnt += 1
        while cur > 0 and cnt > q.lv[cur]:
            cur -= 1
            cnt = 1
        if cur <= 0:
            break
        if i == <int64_t> cut[c]:
            if ideal > 0.0:
                out[c] /= ideal
            c += 1
            if c >= nc:
                break
        g = <double> cur
        ideal += g / log2(<double> (i + 2))
        i += 1
    while c < nc:
        if ideal > 0.0:
            out[c] /= ideal
        c += 1


cdef void m_dcg_cut(const Query *q, const double *par, int64_t np, double *out) noexcept nogil:
    """nDCG@k / DCG@k with a gain (linear, exp) and discount (log2(i+1), Jarvelin)
    choice.  par = [normalize, gain_kind, disc_kind, k1, k2, ...]; ideal = judged
    grades sorted descending."""
    cdef int normalize = <int> par[0]
    cdef int gk = <int> par[1]
    cdef int dk = <int> par[2]
    cdef const double *cut = par + 3
    cdef int64_t nc = np - 3
    cdef int64_t c, k
    cdef double s
    for c in range(nc):
        k = <int64_t> cut[c]
        s = ml_dcg(q.rel, q.n if q.n < k else k, gk, dk, NULL, 0, NULL, 0)
        if normalize:
            # every position exactly, as trec_eval (no closed form)
            out[c] = ml_ndcg(s, ml_ideal_dcg(NULL, q.lv, q.G, k, gk, dk, NULL, 0, k))
        else:
            out[c] = s


cdef double m_rbp(const Query *q, const double *par, int64_t np, Gain *gains) noexcept nogil:
    """par = [p, level1, gain1, ...] (rbp.p=0.8,1=0.5,...)."""
    cdef double p = par[0]
    cdef int64_t ng = setup_gains(q, par + 1, (np - 1) // 2, gains)
    cdef double mn = 0.0, mx = 0.0, s = 0.0, cur = 1.0, g
    cdef int64_t i
    if ng > 0:
        mn = gains[0].gain
        mx = gains[0].gain
    for i in range(ng):
        if gains[i].gain < mn:
            mn = gains[i].gain
        if gains[i].gain > mx:
            mx = gains[i].gain
    if (mn < 0 or mx > 1) and mx > mn:
        for i in range(ng):
            gains[i].gain = (gains[i].gain - mn) / (mx - mn)
    for i in range(q.n):
        g = get_gain(q.rel[i], gains, ng)
        if g != 0:
            s += g * cur
        cur *= p
    return (1.0 - p) * s


cdef double m_ndcg_gains_cut(const Query *q, const double *par, int64_t np_, Gain *gains) noexcept nogil:
    """nDCG@k with a gain map: par = [k, level1, gain1, ...] (trec_eval's ndcg
    gain pairs; a grade without a pair gains its grade).  Only positive gains
    count, in the ranking and in the ideal (trec_eval's ndcg_cut on the mapped
    grades, which is what ir_measures' nDCG(gains=...)@k computes)."""
    cdef int64_t ng = setup_gains(q, par + 1, (np_ - 1) // 2, gains)
    cdef int64_t i, m = q.n
    cdef double k = par[0], rg, dcg = 0.0, idcg = 0.0
    cdef IdealIter it
    if k < <double> m:
        m = <int64_t> k
    for i in range(m):
        rg = get_gain(q.rel[i], gains, ng)
        if rg > 0.0:
            dcg += rg / log2(<double> (i + 2))
    ideal_init(&it, gains, ng)
    i = 0
    while <double> i < k:
        ideal_next(&it, gains)
        if not it.gain > 0.0:
            break
        idcg += it.gain / log2(<double> (i + 2))
        i += 1
    return dcg / idcg if idcg > 0.0 else 0.0


cdef double m_judged_rate(const Query *q, const double *par, int64_t np_) noexcept nogil:
    """ir_measures' Judged@k: documents with a judgment (any grade, negative
    included) among the top min(k, n), divided by min(k, n); without k the
    whole ranking; 0 for an empty ranking."""
    cdef int64_t i, m = q.n, c = 0
    if np_ >= 1 and par[0] < <double> m:
        m = <int64_t> par[0]
    if m <= 0:
        return 0.0
    for i in range(m):
        if q.rel[i] != -1:
            c += 1
    return <double> c / <double> m


cdef double m_rbp_bin(const Query *q, int64_t level, double p) noexcept nogil:
    """Binary RBP at a level (ir_measures' RBP(rel=l), cwl_eval's reading): a
    judged document gains 1 iff max(grade, 0) >= level; unjudged ones gain 0."""
    cdef double s = 0.0, cur = 1.0
    cdef int64_t i, g
    for i in range(q.n):
        g = q.rel[i]
        if g == -2:
            g = 0
        if g >= 0 and g >= level:
            s += cur
        cur *= p
    return (1.0 - p) * s


cdef double m_hits(const Query *q, int64_t level, const double *par, int64_t np_) noexcept nogil:
    """ranx's hits@k: judged documents at the level among the top k (all without k)."""
    cdef int64_t i, m = q.n, c = 0
    if np_ >= 1 and par[0] < <double> m:
        m = <int64_t> par[0]
    for i in range(m):
        if q.rel[i] >= level and q.rel[i] >= 0:
            c += 1
    return <double> c


cdef double m_f1(const Query *q, int64_t level, const double *par, int64_t np_) noexcept nogil:
    """ranx's f1@k: 2 (P R) / (P + R), P = hits / k, R = hits / num_rel (k: the
    ranking's length without a cutoff); 0 without a relevant document or a hit."""
    cdef int64_t R = num_rel(q, level)
    cdef double k = par[0] if np_ >= 1 else <double> q.n, hits, P, Rc
    if R == 0 or k == 0:
        return 0.0
    hits = m_hits(q, level, par, np_)
    P = hits / k
    Rc = hits / <double> R
    if P + Rc == 0:
        return 0.0
    return 2.0 * ((P * Rc) / (P + Rc))


cdef double m_ap_min_k_r(const Query *q, int64_t level, double k) noexcept nogil:
    """AP@k over min(k, R) (sentence-transformers' MAP@k): the sum of the
    precisions at the relevant documents of the top k, divided by min(k, R);
    0 without a relevant document."""
    cdef int64_t R = num_rel(q, level)
    cdef int64_t i, m = q.n, so_far = 0
    cdef double apsum = 0.0
    if R == 0:
        return 0.0
    if k < <double> m:
        m = <int64_t> k
    for i in range(m):
        if q.rel[i] >= level:
            so_far += 1
            apsum += <double> so_far / <double> (i + 1)
    return apsum / (k if k < <double> R else <double> R)


cdef double m_rbp_grade(const Query *q, int64_t level, double p) noexcept nogil:
    """ranx's rbp.p: (1 - p) times the sum of grade * p^(i-1) over the ranked
    documents judged at or above the level (the raw grades, not rescaled)."""
    cdef double s = 0.0, cur = 1.0
    cdef int64_t i
    for i in range(q.n):
        if q.rel[i] >= 0 and q.rel[i] >= level:
            s += <double> q.rel[i] * cur
        cur *= p
    return (1.0 - p) * s


cdef double m_rbp_resid(const Query *q, double p) noexcept nogil:
    cdef double s = 0.0, cur = 1.0
    cdef int64_t i, unj = 0
    for i in range(q.n):
        if q.rel[i] < 0:
            unj += 1
            s += cur
        cur *= p
    if unj:
        return cur + (1 - p) * s
    return 0.0


def compute(const int32_t[::1] rel, const int64_t[::1] ret_off, const int64_t[:, ::1] levels,
            const int32_t[::1] op_kind, const int64_t[::1] op_level, const int64_t[::1] op_col,
            const int64_t[::1] par_off, const double[::1] params, double[:, ::1] out,
            int64_t lo=0, int64_t hi=-1):
    """Evaluate every op for queries [lo, hi) (all by default); ``out`` has shape
    (n_queries, n_columns).  Disjoint ranges may run in parallel threads."""
    cdef int64_t nq = ret_off.shape[0] - 1
    cdef int64_t nops = op_kind.shape[0]
    cdef int64_t G = levels.shape[1]
    cdef int64_t e, o, np_, maxp = 0, col, level
    cdef int kind
    cdef Query qq
    cdef const double *par
    cdef int64_t *cutoffs
    cdef Gain *gains
    cdef int32_t *jrel = NULL
    cdef Query jq
    cdef int64_t maxn = 0, i, jbuilt
    cdef bint any_judged_only = False
    check_csr(ret_off, rel.shape[0], -1, "compute", "ret_off")
    check_len(levels.shape[0], nq, "compute", "levels (rows)")
    check_len(out.shape[0], nq, "compute", "out (rows)")
    check_len(op_level.shape[0], nops, "compute", "op_level")
    check_len(op_col.shape[0], nops, "compute", "op_col")
    check_len(par_off.shape[0], nops + 1, "compute", "par_off")
    for e in range(nq):
        if ret_off[e + 1] - ret_off[e] > maxn:
            maxn = ret_off[e + 1] - ret_off[e]
    for o in range(nops):
        if par_off[o] < 0 or par_off[o + 1] < par_off[o] or par_off[o + 1] > params.shape[0] or op_col[o] < 0:
            raise ValueError("compute: bad op parameters")
        kind = op_kind[o] & ~F_JUDGED_ONLY
        if op_kind[o] & F_JUDGED_ONLY:
            any_judged_only = True
        np_ = par_off[o + 1] - par_off[o]
        if op_width(kind, np_) < 0:
            raise ValueError(f"compute: op {o} has an unknown kind {op_kind[o]}")
        if np_ > maxp:
            maxp = np_
        if np_ < op_min_params(kind):
            raise ValueError(f"compute: op {o} (kind {op_kind[o]}) needs at least {op_min_params(kind)} parameters")
        if op_col[o] > out.shape[1] - op_width(kind, np_):        # (op_col + width may overflow)
            raise ValueError("compute: op writes past the output")
    if G < 1:
        raise ValueError("compute: levels must have at least one column")
    for o in range(nops):
        # the exp gain's range, judged-only or not; the gain code as m_dcg_cut reads it
        if (op_kind[o] & ~F_JUDGED_ONLY) == K_DCG_CUT and <int> params[par_off[o] + 1] == GAIN_EXP:
            _check_exp_gain(rel, ret_off, levels)
            break
    if hi < 0:
        hi = nq
    if lo < 0 or hi > nq or lo > hi:
        raise ValueError("compute: bad query range")
    cutoffs = <int64_t *> malloc((maxp + 1) * sizeof(int64_t))
    gains = <Gain *> malloc((maxp + G + 1) * sizeof(Gain))
    if any_judged_only:
        jrel = <int32_t *> malloc((maxn + 1) * sizeof(int32_t))
    if cutoffs == NULL or gains == NULL or (any_judged_only and jrel == NULL):
        free(cutoffs)
        free(gains)
        free(jrel)
        raise MemoryError()
    with nogil:
        for e in range(lo, hi):
            qq.rel = &rel[ret_off[e]] if ret_off[e + 1] > ret_off[e] else NULL
            qq.n = ret_off[e + 1] - ret_off[e]
            qq.lv = &levels[e, 0]
            qq.G = G
            jbuilt = 0
            for o in range(nops):
                kind = op_kind[o]
                level = op_level[o]
                col = op_col[o]
                par = &params[par_off[o]] if par_off[o + 1] > par_off[o] else NULL
                np_ = par_off[o + 1] - par_off[o]
                if kind & F_JUDGED_ONLY:
                    if not jbuilt:
                        # the ranking without its unjudged documents (not in the
                        # qrels, or judged with a negative grade), as trec_eval -J
                        jq.n = 0
                        for i in range(qq.n):
                            if qq.rel[i] >= 0:
                                jrel[jq.n] = qq.rel[i]
                                jq.n += 1
                        jq.rel = jrel
                        jq.lv = qq.lv
                        jq.G = G
                        jbuilt = 1
                    _dispatch(&jq, kind & ~F_JUDGED_ONLY, level, par, np_, cutoffs, gains, &out[e, col])
                else:
                    _dispatch(&qq, kind, level, par, np_, cutoffs, gains, &out[e, col])
    free(cutoffs)
    free(gains)
    free(jrel)


cdef int _check_exp_gain(const int32_t[::1] rel, const int64_t[::1] ret_off,
                         const int64_t[:, ::1] levels) except -1:
    """gain=exp: 2**grade - 1 must be finite (grades below 1024)."""
    cdef int64_t i, q, g, worst = -1
    for i in range(ret_off[0], ret_off[ret_off.shape[0] - 1]):
        if rel[i] > worst:
            worst = rel[i]
    for q in range(levels.shape[0]):
        for g in range(1024, levels.shape[1]):
            if levels[q, g] > 0 and g > worst:
                worst = g
    if worst >= 1024:
        raise ValueError(f"nDCG/DCG(gain=exp): grade {worst} gives the gain 2**grade - 1, beyond the "
                         "range of a double; gain=exp takes grades below 1024 (use the linear gain)")
    return 0


cdef void _dispatch(const Query *q, int kind, int64_t level, const double *par, int64_t np_,
                    int64_t *cutoffs, Gain *gains, double *out) noexcept nogil:
    cdef double a, b, P, Rc
    cdef int64_t R, rr, ng
    if kind == K_NUM_Q:
        out[0] = 1.0
    elif kind == K_NUM_RET:
        out[0] = <double> q.n
    elif kind == K_NUM_REL:
        out[0] = <double> num_rel(q, level)
    elif kind == K_NUM_REL_RET:
        out[0] = <double> num_rel_ret(q, level)
    elif kind == K_MAP:
        out[0] = m_map(q, level)
    elif kind == K_YAAP:
        out[0] = m_yaap(q, level)
    elif kind == K_GM_MAP:
        a = m_map(q, level)
        out[0] = log(a if a > MIN_GEO_MEAN else MIN_GEO_MEAN)
    elif kind == K_RPREC:
        out[0] = m_rprec(q, level)
    elif kind == K_BPREF:
        out[0] = m_bpref(q, level)
    elif kind == K_GM_BPREF:
        a = m_bpref(q, level)
        out[0] = log(a if a > MIN_GEO_MEAN else MIN_GEO_MEAN)
    elif kind == K_RECIP_RANK:
        out[0] = m_recip_rank(q, level, par, np_)
    elif kind == K_IPREC:
        m_iprec(q, level, par, np_, cutoffs, out, NULL)
    elif kind == K_11PT:
        m_iprec(q, level, par, np_, cutoffs, NULL, out)
    elif kind == K_P or kind == K_RECALL or kind == K_REL_P or kind == K_SUCCESS \
            or kind == K_UNJ or kind == K_MAP_CUT:
        m_cut_counts(q, level, par, np_, kind, out)
    elif kind == K_JUDGED:
        m_cut_counts(q, 0, par, np_, K_P, out)
    elif kind == K_INFAP:
        out[0] = m_infap(q, level)
    elif kind == K_RPREC_MULT:
        m_rprec_mult(q, level, par, np_, cutoffs, out)
    elif kind == K_UTILITY:
        R = num_rel(q, level)
        rr = num_rel_ret(q, level)
        # par = [rel_ret, nonrel_ret, rel_nonret, nonrel_nonret, num_docs_in_coll]
        out[0] = par[0] * rr + par[1] * (q.n - rr) + par[2] * (R - rr) + \
            par[3] * (par[4] + rr - q.n - R)
    elif kind == K_BING:
        out[0] = m_bing(q, level)
    elif kind == K_G:
        ng = setup_gains(q, par, np_ // 2, gains)
        out[0] = m_g(q, gains, ng)
    elif kind == K_NDCG or kind == K_DCG or kind == K_IDEAL_DCG:
        ng = setup_gains(q, par, np_ // 2, gains)
        m_ndcg(q, gains, ng, &a, &b)
        if kind == K_NDCG:
            out[0] = a / b if b > 0.0 else 0.0
        elif kind == K_DCG:
            out[0] = a
        else:
            out[0] = b
    elif kind == K_NDCG_REL:
        ng = setup_gains(q, par, np_ // 2, gains)
        out[0] = m_ndcg_rel(q, gains, ng)
    elif kind == K_RNDCG:
        ng = setup_gains(q, par, np_ // 2, gains)
        out[0] = m_rndcg(q, gains, ng, level)
    elif kind == K_NDCG_CUT:
        m_ndcg_cut(q, par, np_, out)
    elif kind == K_DCG_CUT:
        m_dcg_cut(q, par, np_, out)
    elif kind == K_SET_P:
        out[0] = (<double> num_rel_ret(q, level) / <double> q.n) if q.n else 0.0
    elif kind == K_SET_REL_P:
        R = num_rel(q, level)
        rr = num_rel_ret(q, level)
        out[0] = (<double> rr / <double> (q.n if q.n < R else R)) if (q.n and R) else 0.0
    elif kind == K_SET_RECALL:
        R = num_rel(q, level)
        out[0] = (<double> num_rel_ret(q, level) / <double> R) if R else 0.0
    elif kind == K_SET_MAP:
        R = num_rel(q, level)
        rr = num_rel_ret(q, level)
        out[0] = ((<double> rr * <double> rr) / (<double> q.n * <double> R)) if (q.n and R) else 0.0
    elif kind == K_SET_F:
        R = num_rel(q, level)
        rr = num_rel_ret(q, level)
        if rr:
            P = <double> rr / <double> q.n
            Rc = <double> rr / <double> R
            a = par[0]
            out[0] = (a + 1.0) * P * Rc / (a * P + Rc)
        else:
            out[0] = 0.0
    elif kind == K_NUM_NONREL_JUDGED_RET:
        rr = 0
        for R in range(q.n):
            if q.rel[R] >= 0 and q.rel[R] < level:
                rr += 1
        out[0] = <double> rr
    elif kind == K_RBP:
        out[0] = m_rbp(q, par, np_, gains)
    elif kind == K_RBP_RESID:
        out[0] = m_rbp_resid(q, par[0])
    elif kind == K_NDCG_GAINS_CUT:
        out[0] = m_ndcg_gains_cut(q, par, np_, gains)
    elif kind == K_JUDGED_RATE:
        out[0] = m_judged_rate(q, par, np_)
    elif kind == K_RBP_BIN:
        out[0] = m_rbp_bin(q, level, par[0])
    elif kind == K_HITS:
        out[0] = m_hits(q, level, par, np_)
    elif kind == K_F1:
        out[0] = m_f1(q, level, par, np_)
    elif kind == K_AP_MIN_K_R:
        out[0] = m_ap_min_k_r(q, level, par[0])
    elif kind == K_RBP_GRADE:
        out[0] = m_rbp_grade(q, level, par[0])
    elif kind == K_NCG:
        for ng in range(np_):
            out[ng] = ml_ncg(q.rel, q.n if <double> q.n < par[ng] else <int64_t> par[ng], NULL, q.lv, q.G,
                             <int64_t> par[ng])
    elif kind == K_HOLE:
        for ng in range(np_):
            out[ng] = ml_hole(q.rel, q.n if <double> q.n < par[ng] else <int64_t> par[ng], <int64_t> par[ng])
    else:
        out[0] = NAN
