# The native measure library: the op enum of every ranked measure, defined once
# here and exported to Python by ``irscore._measurelib`` (``OpKind``,
# ``OpFlag``; ``irscore._ranking`` and ``irscore._batch`` re-export the same
# objects), and each measure over one rank-ordered relevance list written once
# as an inline nogil function, which both the join-based kernel (``_ranking``:
# int32 grades, -1 not judged, -2 judged negative) and the array kernel
# (``_batch``: float64 labels) call.  Everything is inline: no module-level
# state, no Python objects; ``_measurelib.pyx`` only exports the enums.
#
# The scans take the list ``rl`` (grades in rank order), how many of its
# entries count (``m``: the cutoff, already capped by the list's length) and
# the relevance threshold ``thr`` (a grade is relevant when >= thr).  ``rp``,
# when not NULL, lists the positions (0-based, ascending) of the relevant
# entries of the whole list, ``nrp`` of them (``_batch`` builds it once per
# row); the scans then read only those.  The values follow trec_eval's source:
# the same operations in the same order, so a printed number never moves.
from libc.stdint cimport int32_t, int64_t
from irscore._common cimport gain_of, disc_of, DISCOUNT_LOG2

cdef extern from "irs_disc.h" nogil:
    int64_t IRS_DISC_EXACT
    double irs_inv_log2_sum(int64_t y0, int64_t y1)


cpdef enum OpKind:
    K_NUM_Q = 0
    K_NUM_RET = 1
    K_NUM_REL = 2
    K_NUM_REL_RET = 3
    K_MAP = 4
    K_GM_MAP = 5
    K_RPREC = 6
    K_BPREF = 7
    K_RECIP_RANK = 8
    K_IPREC = 9
    K_P = 10
    K_RECALL = 11
    K_INFAP = 12
    K_GM_BPREF = 13
    K_RPREC_MULT = 14
    K_UTILITY = 15
    K_11PT = 16
    K_BING = 17
    K_G = 18
    K_NDCG = 19
    K_NDCG_REL = 20
    K_RNDCG = 21
    K_NDCG_CUT = 22
    K_MAP_CUT = 23
    K_REL_P = 24
    K_SUCCESS = 25
    K_SET_P = 26
    K_SET_REL_P = 27
    K_SET_RECALL = 28
    K_SET_MAP = 29
    K_SET_F = 30
    K_NUM_NONREL_JUDGED_RET = 31
    K_RBP = 32
    K_RBP_RESID = 33
    K_UNJ = 34
    K_DCG = 35
    K_IDEAL_DCG = 36
    K_DCG_CUT = 37
    K_JUDGED = 38
    K_YAAP = 60
    # measure-name extensions (RR@k reuses K_RECIP_RANK with an optional cutoff)
    K_NDCG_GAINS_CUT = 50   # nDCG(gains={...})@k: trec_eval's ndcg gain pairs, cut at k
    K_JUDGED_RATE = 51      # ir_measures' Judged(@k): judged / min(k, ranking length)
    K_RBP_BIN = 52          # ir_measures' RBP(rel=l): binary RBP at level l
    K_HITS = 53             # ranx's hits(@k): relevant documents in the top k
    K_F1 = 54               # ranx's f1(@k): harmonic mean of P@k and R@k
    K_AP_MIN_K_R = 55       # sentence-transformers' MAP@k: AP@k with denominator min(k, R)
    K_RBP_GRADE = 56        # ranx's rbp.p: RBP with the raw grades as gains
    K_NCG = 57              # NCG@k: cumulative gain at k over the ideal ranking's
    K_HOLE = 58             # Hole@k (BEIR): share of the top k that no query's judgments hold


cpdef enum OpFlag:
    # or-ed into an op kind: compute the op on the ranking without its unjudged
    # documents (ir_measures' judged_only=True, trec_eval's -J for one measure)
    F_JUDGED_ONLY = 1024


# ------------------------------------------------------------------ the op table

cdef inline int64_t op_width(int kind, int64_t np_) noexcept nogil:
    """Output columns of an op with np_ parameters; -1 for a kind that is not an op."""
    if kind < 0 or kind > K_YAAP:
        return -1
    if (kind == K_IPREC or kind == K_P or kind == K_RECALL or kind == K_RPREC_MULT or kind == K_NDCG_CUT
            or kind == K_MAP_CUT or kind == K_REL_P or kind == K_SUCCESS or kind == K_UNJ or kind == K_JUDGED
            or kind == K_NCG or kind == K_HOLE):
        return np_              # one column per cutoff (or recall point)
    if kind == K_DCG_CUT:
        return np_ - 3 if np_ > 3 else 0
    if kind <= K_JUDGED or (K_NDCG_GAINS_CUT <= kind <= K_RBP_GRADE) or kind == K_YAAP:
        return 1
    return -1


cdef inline int64_t op_min_params(int kind) noexcept nogil:
    """Parameters an op needs at least."""
    if kind == K_UTILITY:
        return 5
    if kind == K_DCG_CUT:
        return 3
    if (kind == K_RBP or kind == K_RBP_RESID or kind == K_SET_F or kind == K_NDCG_GAINS_CUT or kind == K_RBP_BIN
            or kind == K_AP_MIN_K_R or kind == K_RBP_GRADE):
        return 1
    return 0


ctypedef fused grade_t:
    int32_t
    double


# ------------------------------------------------------------------ the scans

cdef inline int64_t ml_rel_count(const grade_t *rl, int64_t m, double thr, const int64_t *rp,
                                 int64_t nrp) noexcept nogil:
    """Relevant entries among the first m."""
    cdef int64_t i, c = 0
    if rp != NULL:
        while c < nrp and rp[c] < m:
            c += 1
        return c
    for i in range(m):
        c += rl[i] >= thr
    return c


cdef inline int64_t ml_first_rel(const grade_t *rl, int64_t m, double thr, const int64_t *rp,
                                 int64_t nrp) noexcept nogil:
    """Position of the first relevant entry among the first m, or -1."""
    cdef int64_t i
    if rp != NULL:
        return rp[0] if (nrp > 0 and rp[0] < m) else -1
    for i in range(m):
        if rl[i] >= thr:
            return i
    return -1


cdef inline double ml_dcg(const grade_t *rl, int64_t m, int gk, int dk, const double *disc, int64_t ndisc,
                          const int64_t *pos, int64_t npos) noexcept nogil:
    """DCG of the first m entries: gain(grade) / discount(rank) over the positive
    grades, in rank order.  ``disc``: log2(i + 2) for the positions below ndisc
    (the log2 discount's table; NULL: computed); ``pos``: when not NULL, the
    positions of the positive grades among the first m (npos of them)."""
    cdef int64_t i, x
    cdef double s = 0.0
    if pos != NULL:
        for x in range(npos):
            i = pos[x]
            s += gain_of(<double> rl[i], gk) / _disc(i, dk, disc, ndisc)
        return s
    for i in range(m):
        if rl[i] > 0:
            s += gain_of(<double> rl[i], gk) / _disc(i, dk, disc, ndisc)
    return s


cdef inline double _disc(int64_t i, int dk, const double *disc, int64_t ndisc) noexcept nogil:
    if disc != NULL and dk == DISCOUNT_LOG2 and i < ndisc:
        return disc[i]
    return disc_of(i + 1, dk)


cdef inline double ml_ideal_dcg(const double *run_v, const int64_t *run_c, int64_t nruns, int64_t k, int gk,
                                int dk, const double *disc, int64_t ndisc, int64_t exact) noexcept nogil:
    """Ideal DCG@k of a query whose judged grades come as runs, highest first:
    ``run_c[u]`` documents of grade ``run_v[u]``; with run_v NULL, run_c counts
    the documents of each grade (index = grade) and the runs are its grades
    nruns - 1 down to 1.  The positions from ``exact`` on (which only huge
    judgment counts reach) are summed in closed form (irs_disc.h)."""
    cdef int64_t u, c, i = 0, mm
    cdef double s = 0.0, g, v
    for u in range(nruns):
        if run_v != NULL:
            v = run_v[u]
            c = run_c[u]
        else:
            v = <double> (nruns - 1 - u)
            c = run_c[nruns - 1 - u]
        if not v > 0.0:
            break
        g = gain_of(v, gk)
        while c > 0 and i < k:
            if i >= exact:
                mm = c if c < k - i else k - i
                s += g * _disc_sum(i, i + mm, dk)
                i += mm
                break
            s += g / _disc(i, dk, disc, ndisc)
            i += 1
            c -= 1
        if i >= k:
            break
    return s


cdef inline double _disc_sum(int64_t i0, int64_t i1, int dk) noexcept nogil:
    """Sum of 1 / discount over the 0-based positions i0 .. i1 - 1 (i0 >= 2)."""
    if dk != DISCOUNT_LOG2:
        return irs_inv_log2_sum(i0 + 1, i1 + 1)
    return irs_inv_log2_sum(i0 + 2, i1 + 2)


# ------------------------------------------------------------ the measures

cdef inline double ml_ap(const grade_t *rl, int64_t m, double thr, int64_t R, const int64_t *rp,
                         int64_t nrp) noexcept nogil:
    """AP (AP@k: m = k): the sum of the precisions at the relevant entries of the
    first m, over R (R < 0: the relevant entries found, when the list holds
    every relevant document); 0 when none is found (trec_eval's map)."""
    cdef int64_t i, x, c = 0
    cdef double s = 0.0
    if rp != NULL:
        for x in range(nrp):
            i = rp[x]
            if i >= m:
                break
            c = x + 1
            s += <double> c / <double> (i + 1)
    else:
        for i in range(m):
            if rl[i] >= thr:
                c += 1
                s += <double> c / <double> (i + 1)
    if c == 0:
        return 0.0
    return s / <double> (c if R < 0 else R)


cdef inline double ml_p(int64_t c, int64_t k) noexcept nogil:
    """P@k from the relevant entries among the first k (c)."""
    return <double> c / <double> k


cdef inline double ml_recall(int64_t c, int64_t R) noexcept nogil:
    """R@k from the relevant entries among the first k (c); 0 when R is 0."""
    return <double> c / <double> R if R > 0 else 0.0


cdef inline double ml_rel_p(int64_t c, int64_t k, int64_t R) noexcept nogil:
    """relative_P@k: c over min(k, R) (R > 0)."""
    return <double> c / <double> (R if k > R else k)


cdef inline double ml_success(int64_t c) noexcept nogil:
    """Success@k: 1 when a relevant entry is among the first k."""
    return 1.0 if c > 0 else 0.0


cdef inline double ml_rprec(int64_t c, int64_t R) noexcept nogil:
    """R-precision from the relevant entries among the first R (c)."""
    return <double> c / <double> R if R > 0 else 0.0


cdef inline double ml_rr(int64_t first) noexcept nogil:
    """RR from the position of the first relevant entry (-1: none)."""
    return 1.0 / <double> (first + 1) if first >= 0 else 0.0


cdef inline double ml_ndcg(double dcg, double idcg) noexcept nogil:
    """nDCG from the DCG and the ideal DCG; 0 when the ideal is 0."""
    return dcg / idcg if idcg > 0.0 else 0.0


cdef inline double ml_ncg(const grade_t *rl, int64_t m, const double *run_v, const int64_t *run_c, int64_t nruns,
                          int64_t k) noexcept nogil:
    """NCG@k: the gains (the positive grades) of the first m entries summed (m:
    k capped by the list's length), over the ideal ranking's at k (the runs of
    judged grades, as ml_ideal_dcg reads them); 0 when the ideal is 0."""
    cdef int64_t i, u, c, taken = 0
    cdef double cg = 0.0, icg = 0.0, v
    for i in range(m):
        if rl[i] > 0:
            cg += <double> rl[i]
    for u in range(nruns):
        if taken >= k:
            break
        v = run_v[u] if run_v != NULL else <double> (nruns - 1 - u)
        c = run_c[u] if run_v != NULL else run_c[nruns - 1 - u]
        if not v > 0.0:
            break
        if c > k - taken:
            c = k - taken
        icg += v * <double> c
        taken += c
    return cg / icg if icg > 0.0 else 0.0


cdef inline double ml_hole(const grade_t *rl, int64_t m, int64_t k) noexcept nogil:
    """Hole@k (BEIR, MTEB): the entries among the first m (k capped by the
    list's length) that no query's judgments hold, over k (a list shorter than
    k still divides by k).  Read on a list whose -1 entries are the documents
    judged for no query (``irscore.classic`` joins the run with the judgments
    pooled over the queries for it); -2 (judged with a negative grade) is judged."""
    cdef int64_t i, c = 0
    for i in range(m):
        c += rl[i] == -1
    return <double> c / <double> k
