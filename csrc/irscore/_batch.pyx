"""Kernels of the array API (``irscore.batch``).

Input: flat score and label arrays, and per query the start and the length of
its candidates (dense 2-D input is the special case start = q * n_columns).  A
NaN score marks padding.  Every query is sorted once and all ops are computed
from that order: each candidate is one integer key (``batch_sort.h``: score
code and tie code), sorted by a bucket pass over the score range, exact inside
buckets, or only its top k when every requested measure is a small cutoff.  A
query with few candidates that an op can count (label > 0 or at an op's
level: up to 96 of them where the CPU has AVX-512 or AVX2, else 8) is
not sorted: each of them is placed by counting the keys before its own, a
vector of keys at a time (``batch_count.h``, chosen at run time; with AVX2,
the 32-bit score codes of 8 such candidates at a time, the ties by position;
with VP2INTERSECT, 16 score codes at a time when no two candidates share one).
With the labels in rank order, the positions of the relevant candidates are
listed too (AP, P@k, RR, ... read only those).  The same order can be
written out (``order``) for the measures computed elsewhere, so a query is
never sorted twice.  The rows' loading and ranking live in ``_batch_rank.pxd``,
the ops on a ranked row in ``_batch_ops.pxd``.

``evaluate_rows`` takes any layout (rows by start and length); ``Kernel``
holds a plan and its scratch buffers across calls and evaluates dense 2-D
batches with a few microseconds of call overhead (hot loops).

Ties (``tie_mode``, the enum ``Ties`` of ``_batch.pxd``): TIES_TREC (score
descending, then column descending), TIES_INPUT (column ascending),
TIES_AVERAGE: the expected value over all orders of tied candidates (McSherry
& Najork 2008), computed per tie group in closed form, never by enumeration.

Op kinds: the one op enum of the native measure library (``_measurelib.pxd``,
``OpKind``, re-exported here), whose measure functions this kernel and the
join-based one (``_ranking``) both call; this kernel computes K_NDCG, K_DCG,
K_MAP, K_P, K_RECALL, K_RECIP_RANK, K_RPREC, K_SUCCESS and the counts
K_NUM_RET, K_NUM_REL, K_NUM_REL_RET.  Tie modes and error codes: the enums
``Ties`` and ``Error`` of ``_batch.pxd``, exported to Python (``irscore.batch``
reads them from this module).
"""
from libc.stdint cimport int32_t, int64_t, uint8_t, int8_t, int16_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memset
from libc.math cimport INFINITY

cimport numpy as cnp

from irscore._common cimport GAIN_LINEAR, GAIN_EXP, DISCOUNT_LOG2, DISCOUNT_JARVELIN
from irscore._measurelib cimport (
    K_NDCG, K_DCG, K_MAP, K_P, K_RECALL, K_RECIP_RANK, K_RPREC, K_SUCCESS, K_NUM_RET, K_NUM_REL, K_NUM_REL_RET)
from irscore._batch_rank cimport (
    Work, Row, work_alloc, work_free, score_t, label_t, load_any, load_fast, rank_by_count, gather_labels,
    gather_rel, TOPK_MAX, S_F32, S_F64, L_I8, L_I16, L_I32, L_I64, L_U8, L_F32, L_F64,
    BC_SCALAR, BC_AVX2, BC_AVX512, BC_AVX512_VP2I, BC_HAVE_VP2I, bc_get_level, bc_level_for, bc_get_max_level,
    bc_set_level, bk_topk_exact, bk_topk, bk_minmax, bk_sort, bk_fix_runs, bk_t)
from irscore._batch_ops cimport count_rel, op_plain, op_average
import irscore._measurelib as _measurelib

from irscore._irs_common cimport IRSCORE_BOUNDSCHECK

cnp.import_array()

#: the one op enum of the native measure library (the same object as ``irscore._ranking.OpKind``)
OpKind = _measurelib.OpKind

#: True when the kernels were built with bounds checks (IRSCORE_DEBUG=1)
BOUNDSCHECK = bool(IRSCORE_BOUNDSCHECK)

#: codes of the gain and discount kinds (``op_gain``, ``op_disc``)
GAIN_KINDS = {"linear": GAIN_LINEAR, "exp": GAIN_EXP}
DISCOUNT_KINDS = {"log2": DISCOUNT_LOG2, "jarvelin": DISCOUNT_JARVELIN}

from irscore._interrupt cimport irs_intr_begin, irs_intr_end, irs_intr_pending, irs_intr_raise

cdef enum:
    E_INTERRUPTED = 100         # SIGINT during run_rows (irs_interrupt.h); raised, never returned
    INTR_MIN_CELLS = 1 << 20    # calls of fewer cells (< ~30 ms) do not watch for SIGINT

# tie modes and error codes: the cpdef enums of _batch.pxd; op kinds: _measurelib.pxd


# 0: plans made from now on take no shortcut that has a general path (the
# tests compare the two; see _set_fast_paths)
cdef int fast_paths = 1


def _set_fast_paths(bint on):
    """Testing only: whether plans made from now on (``Kernel``, ``evaluate_rows``)
    take the kernel's shortcuts that have a general path; the values are the same
    either way (tests/batch/test_batch_fast_paths.py compares them).  Returns the
    previous setting."""
    global fast_paths
    cdef bint old = fast_paths
    fast_paths = 1 if on else 0
    return old


#: the vector levels of rank by counting (batch_count.h)
SIMD_LEVELS = {"scalar": BC_SCALAR, "avx2": BC_AVX2, "avx512": BC_AVX512, "avx512_vp2intersect": BC_AVX512_VP2I}
#: whether this build has the VP2INTERSECT code (GCC >= 10, Clang >= 12, x86-64)
_VP2I_BUILT = bool(BC_HAVE_VP2I)
bc_get_level()      # detected once, at import, before any thread can ask


def _simd_level():
    """The vector level rank by counting uses: ``(level in use, highest this CPU
    supports)``, values of ``SIMD_LEVELS``."""
    return bc_get_level(), bc_get_max_level()


def _set_simd_level(int level):
    """Testing only: rank by counting with at most this vector level (lowered to
    what the CPU supports); the values are the same at every level (tests
    compare them).  Returns the previous level."""
    cdef int old = bc_get_level()
    bc_set_level(level)
    return old


def _simd_level_for(features):
    """Testing only: the level chosen for a CPU with these features (names as
    ``__builtin_cpu_supports`` spells them: ``avx512f``, ``avx512dq``,
    ``avx512vl``, ``avx512cd``, ``avx512vp2intersect``, ``avx2``, ``popcnt``),
    whatever this CPU has."""
    f = frozenset(features)
    return bc_level_for("avx512f" in f, "avx512dq" in f, "avx512vl" in f, "avx512cd" in f,
                        "avx512vp2intersect" in f, "avx2" in f, "popcnt" in f)


# ------------------------------------------------------------------- the driver

cdef struct Plan:
    const int32_t *kind
    const int64_t *k
    const double *thr
    const int32_t *gain
    const int32_t *disc
    int64_t nops
    int tie_mode
    int partial       # only small cutoffs: the top kmax suffice
    int64_t kmax
    int want_hist     # nDCG: grade counters while loading
    int exp_gain      # gain=exp: labels below 1024
    int64_t ndisc     # discount table depth (-1: whole rows)
    int has_rp        # list the relevant positions at level rp_thr (the first level an op compares with)
    double rp_thr
    int count_ok      # rows with few candidates that can count may be ranked by counting
    double sthr       # the lowest level an op compares with (+inf: none)


cdef inline bint batch_op(int kind) noexcept nogil:
    """Whether this kernel computes the op kind."""
    return (kind == K_NDCG or kind == K_DCG or kind == K_MAP or kind == K_P or kind == K_RECALL
            or kind == K_RECIP_RANK or kind == K_RPREC or kind == K_SUCCESS or kind == K_NUM_RET
            or kind == K_NUM_REL or kind == K_NUM_REL_RET)


cdef int plan_check(Plan *p) except -1:
    """Checks the op codes (they drive the loops) and derives the plan's facts."""
    cdef int64_t o
    cdef int kind
    cdef bint counts
    if p.tie_mode < TIES_TREC or p.tie_mode > TIES_AVERAGE:
        raise ValueError("evaluate_rows: bad tie mode")
    p.partial = 1
    p.kmax = 0
    p.want_hist = 0
    p.exp_gain = 0
    p.ndisc = 0
    p.has_rp = 0
    p.rp_thr = 0.0
    p.count_ok = fast_paths and p.tie_mode != TIES_AVERAGE
    p.sthr = INFINITY
    for o in range(p.nops):
        kind = p.kind[o]
        if not batch_op(kind):
            raise ValueError(f"evaluate_rows: op kind {kind} is not one this kernel computes")
        counts = (kind == K_MAP or kind == K_P or kind == K_RECALL or kind == K_SUCCESS or kind == K_RPREC
                  or kind == K_RECIP_RANK)     # reads the labels at its threshold
        if not p.has_rp and fast_paths and counts:
            p.has_rp = 1
            p.rp_thr = p.thr[o]
        if counts and p.thr[o] < p.sthr:
            p.sthr = p.thr[o]
        if (kind == K_P or kind == K_RECALL or kind == K_SUCCESS) and p.k[o] <= 0:
            raise ValueError("evaluate_rows: cutoff must be positive")
        if kind == K_RECIP_RANK and p.k[o] == 0:
            raise ValueError("evaluate_rows: cutoff must be positive (-1: none)")
        if kind == K_RPREC or ((kind == K_NDCG or kind == K_DCG or kind == K_MAP)
                               and (p.k[o] < 0 or p.k[o] > TOPK_MAX)):
            p.partial = 0
        if p.k[o] > p.kmax:
            p.kmax = p.k[o]
        if kind == K_NDCG:
            p.want_hist = 1
        if kind == K_NDCG or kind == K_DCG:
            if p.gain[o] == GAIN_EXP:
                p.exp_gain = 1
            if p.k[o] < 0:
                p.ndisc = -1
            elif p.ndisc >= 0 and p.k[o] > p.ndisc:
                p.ndisc = p.k[o]
    if p.tie_mode == TIES_AVERAGE or p.kmax > TOPK_MAX:
        p.partial = 0
    return 0


cdef inline int64_t plan_ndisc(const Plan *p, int64_t cap) noexcept nogil:
    return cap if (p.ndisc < 0 or p.ndisc > cap) else p.ndisc


cdef int64_t row_failed(Work *w, int64_t code) noexcept nogil:
    """An error stops the rows where load_row may have left grade counts, which
    the next row (of this call, or of the next call of a Kernel, whose buffers
    live on) would read as its own: clears them, returns code."""
    memset(w.ghist, 0, 4 * 256 * sizeof(int64_t))
    return code


cdef int64_t run_rows(Work *w, const Plan *p, const void *sc, int sk, const void *lb, int lk,
                      const int64_t *starts, const int64_t *lens, int64_t ncol, int64_t q0, int64_t q1,
                      double default_thr, double extra_label, int nrel_mode, const int64_t *nrel1,
                      const int64_t *nrel2, int64_t G, double *out, int64_t out_q, int64_t out_o,
                      const int64_t *order_off, int64_t *order, int64_t *err_row, double *err_val,
                      int *neg) noexcept nogil:
    """Evaluates rows q0..q1-1 (start starts[q], length lens[q]; or, with starts
    NULL, dense rows of ncol columns) into out[q * out_q + o * out_o]; with order,
    writes each row's valid candidates in rank order (flat indices) at
    order[order_off[q]:].  Everything was bounds-checked by the caller.  Returns
    an error code (err_row: its row)."""
    cdef int64_t q, o, i, n, bad, st, ln, oo, pre, nrp = 0
    cdef int64_t n1 = 0
    cdef const int64_t *n2 = NULL
    cdef uint64_t *srt
    cdef Row r
    cdef int partial = p.partial and order == NULL
    cdef int counted
    cdef int want_hist = p.want_hist and nrel_mode != 2
    cdef double lo, hi
    r.trec = p.tie_mode == TIES_TREC
    r.has_rp = 0
    r.fast = fast_paths
    for q in range(q0, q1):
        if w.intr_on and irs_intr_pending(w.intr_since):
            return row_failed(w, E_INTERRUPTED)
        if starts == NULL:
            st = q * ncol
            ln = ncol
        else:
            st = starts[q]
            ln = lens[q]
        pre = -1
        if fast_paths and (lk == L_I64 or lk == L_I32):
            pre = load_fast(w, &r, sc, sk, lb, lk, st, ln, want_hist, p.exp_gain, order != NULL, p.sthr)
        if pre >= 0:
            n = ln
            bad = 0
        else:
            n = load_any(w, &r, sc, sk, lb, lk, st, ln, want_hist, p.exp_gain, order != NULL, &bad)
        if bad:
            err_row[0] = q
            return row_failed(w, E_LABEL)
        if p.exp_gain and r.maxlab >= 1024.0:
            err_row[0] = q
            err_val[0] = r.maxlab
            return row_failed(w, E_EXPGAIN)
        neg[0] |= r.neg
        r.n = n
        r.nruns = -1
        r.has_cache = 0
        r.ng = 0
        if nrel_mode == 1:
            n1 = nrel1[q]
            if n1 < count_rel(w, &r, default_thr):
                err_row[0] = q
                return row_failed(w, E_NREL)
        elif nrel_mode == 2:
            n2 = &nrel2[q * G]
        if order != NULL and order_off[q + 1] - order_off[q] != n:
            err_row[0] = q
            return row_failed(w, E_ORDER)
        counted = 0
        # rank by counting where it can; with only small cutoffs (top kmax) too
        # when the vector loader has listed the m candidates that can count and
        # kmax >= m / 8 (rows of 100, m = 40: the top-k selection's mispredicted
        # branches cost more than counting with AVX-512 from kmax = 5 on)
        if (p.count_ok and order == NULL and (not partial or (pre >= 0 and 8 * p.kmax >= pre))
                and rank_by_count(w, &r, n, p.sthr, pre, p.has_rp, p.rp_thr, &nrp)):
            counted = 1
            r.ns = n
        elif partial:
            if r.coarse:
                r.ns = bk_topk_exact(w.keys, n, p.kmax, w.ktop, w.sv, r.trec, w.scr)
            else:
                r.ns = bk_topk(w.keys, n, p.kmax, w.ktop)
            srt = w.ktop
        else:
            lo = 0.0
            hi = 0.0
            if n > 32:
                bk_minmax(w.sv, n, &lo, &hi)
            srt = bk_sort(w.keys, n, w.sv, lo, hi, w.ktmp, w.bk, w.hist)
            if r.coarse:
                bk_fix_runs(srt, n, w.sv, r.trec, w.scr)
            r.ns = n
            if p.tie_mode == TIES_AVERAGE:
                for i in range(n):
                    if i == 0 or w.sv[bk_t(srt[i], 0)] != w.sv[bk_t(srt[i - 1], 0)]:
                        w.gb[r.ng] = i
                        r.ng += 1
                w.gb[r.ng] = n
            if order != NULL:
                oo = order_off[q]
                for i in range(n):
                    order[oo + i] = st + w.col[bk_t(srt[i], r.trec)]
        if counted:
            if p.has_rp:
                r.nrp = nrp
        elif p.has_rp:
            r.nrp = gather_rel(w.rl, w.rp, w.vl, srt, r.ns, r.trec, p.rp_thr)
        else:
            gather_labels(w.rl, w.vl, srt, r.ns, r.trec)
        if p.has_rp:
            r.has_rp = 1
            r.rp_thr = p.rp_thr
            if r.ns == n and nrel_mode == 0:
                # every valid candidate was gathered: R at this level, for total_rel
                r.cache_thr = p.rp_thr
                r.cache_R = r.nrp
                r.has_cache = 1
        for o in range(p.nops):
            if p.tie_mode == TIES_AVERAGE:
                out[q * out_q + o * out_o] = op_average(w, &r, p.kind[o], p.k[o], p.thr[o], p.gain[o], p.disc[o],
                                                        nrel_mode, n1, n2, G, default_thr, extra_label)
            else:
                out[q * out_q + o * out_o] = op_plain(w, &r, p.kind[o], p.k[o], p.thr[o], p.gain[o], p.disc[o],
                                                      nrel_mode, n1, n2, G, default_thr, extra_label)
    return E_OK


cdef int check_nrel_exp(const Plan *p, int nrel_mode, const int64_t *nrel2, int64_t G, int64_t q0, int64_t q1,
                        double extra_label) except -1:
    """gain=exp: the grades that n_relevant adds must be below 1024 too."""
    cdef int64_t q, g
    cdef double worst = -INFINITY
    if not p.exp_gain:
        return 0
    if nrel_mode == 2:
        for q in range(q0, q1):
            for g in range(1024, G):
                if nrel2[q * G + g] > 0 and g > worst:
                    worst = g
    if nrel_mode == 1 and extra_label > worst:
        worst = extra_label
    if worst >= 1024.0:
        raise_exp_gain(worst)
    return 0


cdef int raise_exp_gain(double worst) except -1:
    raise ValueError(f"nDCG/DCG(gain=exp): label {worst:g} gives the gain 2**label - 1, beyond the "
                     "range of a double; gain=exp takes labels below 1024 (use the linear gain)")


def evaluate_rows(const score_t[::1] scores, const label_t[::1] labels,
                  const int64_t[::1] starts, const int64_t[::1] lens, int64_t q0, int64_t q1,
                  const int32_t[::1] op_kind, const int64_t[::1] op_k, const double[::1] op_thr,
                  const int32_t[::1] op_gain, const int32_t[::1] op_disc,
                  int tie_mode, double default_thr, double extra_label,
                  int nrel_mode, const int64_t[::1] nrel1, const int64_t[:, ::1] nrel2,
                  double[:, ::1] out, const int64_t[::1] order_off=None, int64_t[::1] order=None):
    """Evaluate queries q0..q1-1; writes ``out[q, o]``.  With ``order_off`` and
    ``order``, also writes the flat indices of each query's valid candidates in
    rank order to ``order[order_off[q]:order_off[q + 1]]`` (which must hold
    exactly them).  Returns (error code, row)."""
    cdef int64_t nq = starts.shape[0]
    cdef int64_t nops = op_kind.shape[0]
    cdef int64_t N = scores.shape[0]
    cdef int64_t G = nrel2.shape[1]
    cdef int64_t q, cap = 0, code, err_row = -1
    cdef double err_val = 0.0
    cdef int neg = 0, sk, lk
    cdef Work w
    cdef Plan p
    cdef const int64_t *ooff = NULL
    cdef int64_t *optr = NULL
    cdef const void *sp = NULL
    cdef const void *lp = NULL
    cdef const int64_t *stp = NULL
    cdef const int64_t *lnp = NULL
    cdef const int64_t *n1p = NULL
    cdef const int64_t *n2p = NULL
    cdef double *outp = NULL
    # everything that could make the loop read or write out of bounds is checked here
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
    for q in range(q0, q1):
        if starts[q] < 0 or lens[q] < 0 or starts[q] > N or lens[q] > N - starts[q]:
            raise ValueError(f"evaluate_rows: row {q} is out of range")
        if lens[q] > cap:
            cap = lens[q]
    if cap >= 2147483647:
        raise ValueError("evaluate_rows: rows are limited to 2**31 - 2 candidates")
    if (order_off is None) != (order is None):
        raise ValueError("evaluate_rows: order_off and order go together")
    if order is not None:
        if order_off.shape[0] != nq + 1:
            raise ValueError("evaluate_rows: order_off must have n_queries + 1 values")
        for q in range(q0, q1):
            if order_off[q] < 0 or order_off[q + 1] < order_off[q] or order_off[q + 1] > order.shape[0]:
                raise ValueError(f"evaluate_rows: order_off[{q}] is out of range")
        ooff = &order_off[0]
        optr = &order[0] if order.shape[0] else NULL
    p.kind = &op_kind[0] if nops else NULL
    p.k = &op_k[0] if nops else NULL
    p.thr = &op_thr[0] if nops else NULL
    p.gain = &op_gain[0] if nops else NULL
    p.disc = &op_disc[0] if nops else NULL
    p.nops = nops
    p.tie_mode = tie_mode
    plan_check(&p)
    if nrel_mode == 2 and nq:
        check_nrel_exp(&p, nrel_mode, &nrel2[0, 0], G, q0, q1, extra_label)
    else:
        check_nrel_exp(&p, nrel_mode, NULL, G, q0, q1, extra_label)
    sk = S_F32 if score_t is float else S_F64
    if label_t is int8_t:
        lk = L_I8
    elif label_t is int16_t:
        lk = L_I16
    elif label_t is int32_t:
        lk = L_I32
    elif label_t is int64_t:
        lk = L_I64
    elif label_t is uint8_t:
        lk = L_U8
    elif label_t is float:
        lk = L_F32
    else:
        lk = L_F64
    if N:
        sp = &scores[0]
        lp = &labels[0]
    if nq:
        stp = &starts[0]
        lnp = &lens[0]
        if nrel_mode == 1:
            n1p = &nrel1[0]
        elif nrel_mode == 2:
            n2p = &nrel2[0, 0]
    if nops and q1 > q0:
        outp = &out[0, 0]
    memset(&w, 0, sizeof(Work))
    if work_alloc(&w, cap, plan_ndisc(&p, cap), G if nrel_mode == 2 else 0) != 0:
        work_free(&w)
        raise MemoryError()
    w.intr_on = N >= INTR_MIN_CELLS
    if w.intr_on:
        w.intr_since = irs_intr_begin()
    with nogil:
        code = run_rows(&w, &p, sp, sk, lp, lk, stp, lnp, 0, q0, q1, default_thr, extra_label, nrel_mode,
                        n1p, n2p, G, outp, nops, 1, ooff, optr, &err_row, &err_val, &neg)
    if w.intr_on:
        irs_intr_end()
    work_free(&w)
    if code == E_INTERRUPTED:
        irs_intr_raise()
    if code == E_EXPGAIN:
        raise_exp_gain(err_val)
    if code == E_ORDER:
        raise ValueError(f"evaluate_rows: order_off does not match the valid candidates of row {err_row}")
    return code, err_row


# ------------------------------------------------------------ the reusable kernel

cdef int label_kind(cnp.ndarray a) noexcept:
    """The label kind of a's dtype, or -1."""
    cdef int t = cnp.PyArray_TYPE(a)
    cdef Py_ssize_t size = cnp.PyArray_ITEMSIZE(a)
    if t == cnp.NPY_BYTE or t == cnp.NPY_SHORT or t == cnp.NPY_INT or t == cnp.NPY_LONG or t == cnp.NPY_LONGLONG:
        if size == 1:
            return L_I8
        if size == 2:
            return L_I16
        if size == 4:
            return L_I32
        if size == 8:
            return L_I64
    elif t == cnp.NPY_UBYTE:
        return L_U8
    elif t == cnp.NPY_FLOAT:
        return L_F32
    elif t == cnp.NPY_DOUBLE:
        return L_F64
    return -1


cdef bint dense_ok(cnp.ndarray a) noexcept:
    """2-D, C-contiguous, aligned, native byte order."""
    return (cnp.PyArray_NDIM(a) == 2 and cnp.PyArray_IS_C_CONTIGUOUS(a) and cnp.PyArray_ISALIGNED(a)
            and cnp.PyArray_ISNOTSWAPPED(a))


cdef void extent(cnp.ndarray a, size_t *lo, size_t *hi):
    """The lowest and one past the highest byte address an array touches
    (whatever its strides); the array holds at least one element."""
    cdef size_t l = <size_t> cnp.PyArray_DATA(a)
    cdef size_t h = l
    cdef int d
    cdef cnp.npy_intp st, n
    for d in range(cnp.PyArray_NDIM(a)):
        n = cnp.PyArray_DIM(a, d)
        st = cnp.PyArray_STRIDE(a, d)
        if st < 0:
            l -= <size_t> (-st) * <size_t> (n - 1)
        else:
            h += <size_t> st * <size_t> (n - 1)
    lo[0] = l
    hi[0] = h + <size_t> cnp.PyArray_ITEMSIZE(a)


cdef bint overlaps(cnp.ndarray a, cnp.ndarray b):
    """Whether the byte spans of two arrays meet."""
    cdef size_t alo, ahi, blo, bhi
    if cnp.PyArray_SIZE(a) == 0 or cnp.PyArray_SIZE(b) == 0:
        return False
    extent(a, &alo, &ahi)
    extent(b, &blo, &bhi)
    return alo < bhi and blo < ahi


cdef class Kernel:
    """A plan (the op arrays of ``evaluate_rows``) and scratch buffers kept across
    calls: ``dense(scores, labels, default_thr, out)`` evaluates every row of a
    dense 2-D batch (no padding but NaN scores, no ``n_relevant``) into
    ``out[o, q]`` (one contiguous row per op) with well under a microsecond of
    call overhead.  Thread-safe: a call that finds the buffers in use by
    another thread allocates its own."""

    cdef Plan p
    cdef int32_t *kind
    cdef int64_t *k
    cdef double *thr
    cdef int32_t *gain
    cdef int32_t *disc
    cdef Work w
    cdef int64_t wcap
    cdef bint busy

    def __cinit__(self, const int32_t[::1] op_kind, const int64_t[::1] op_k, const double[::1] op_thr,
                  const int32_t[::1] op_gain, const int32_t[::1] op_disc, int tie_mode):
        cdef int64_t o, nops = op_kind.shape[0]
        memset(&self.w, 0, sizeof(Work))
        self.wcap = -1
        self.busy = False
        if op_k.shape[0] != nops or op_thr.shape[0] != nops or op_gain.shape[0] != nops \
                or op_disc.shape[0] != nops:
            raise ValueError("Kernel: inconsistent array shapes")
        self.kind = <int32_t *> malloc((nops + 1) * sizeof(int32_t))
        self.k = <int64_t *> malloc((nops + 1) * sizeof(int64_t))
        self.thr = <double *> malloc((nops + 1) * sizeof(double))
        self.gain = <int32_t *> malloc((nops + 1) * sizeof(int32_t))
        self.disc = <int32_t *> malloc((nops + 1) * sizeof(int32_t))
        if self.kind == NULL or self.k == NULL or self.thr == NULL or self.gain == NULL or self.disc == NULL:
            raise MemoryError()
        for o in range(nops):
            self.kind[o] = op_kind[o]
            self.k[o] = op_k[o]
            self.thr[o] = op_thr[o]
            self.gain[o] = op_gain[o]
            self.disc[o] = op_disc[o]
        self.p.kind = self.kind
        self.p.k = self.k
        self.p.thr = self.thr
        self.p.gain = self.gain
        self.p.disc = self.disc
        self.p.nops = nops
        self.p.tie_mode = tie_mode
        plan_check(&self.p)

    def __dealloc__(self):
        work_free(&self.w)
        free(self.kind)
        free(self.k)
        free(self.thr)
        free(self.gain)
        free(self.disc)

    def dense(self, cnp.ndarray scores not None, cnp.ndarray labels not None, double default_thr,
              cnp.ndarray out not None):
        """Evaluate every row of 2-D ``scores``/``labels`` (NaN score: padding) into
        ``out`` (float64, ``(n_ops, n_rows)``).  Returns (error code, row, whether a
        candidate has a negative label); the code is -1, and nothing is computed,
        when the arrays are not a plain dense batch (2-D, same shape, C-contiguous,
        aligned, native float32/float64 scores and int8/16/32/64, uint8,
        float32/float64 labels)."""
        cdef int neg = 0
        cdef int64_t code, err_row = -1
        if cnp.PyArray_NDIM(out) != 2 or cnp.PyArray_TYPE(out) != cnp.NPY_DOUBLE \
                or not cnp.PyArray_IS_C_CONTIGUOUS(out) or not cnp.PyArray_ISALIGNED(out) \
                or not cnp.PyArray_ISNOTSWAPPED(out) or not cnp.PyArray_ISWRITEABLE(out):
            raise ValueError("out: expected a writable C-contiguous float64 array")
        if dense_ok(scores) and (cnp.PyArray_DIM(out, 0) != self.p.nops
                                 or cnp.PyArray_DIM(out, 1) != cnp.PyArray_DIM(scores, 0)):
            raise ValueError("out: expected the shape (n_ops, n_rows)")
        if overlaps(out, scores) or overlaps(out, labels):
            raise ValueError("out: must not share memory with scores or labels")
        code = self.run_dense(scores, labels, default_thr, <double *> cnp.PyArray_DATA(out), &err_row, &neg)
        return code, err_row, bool(neg)

    cdef int64_t run_dense(self, cnp.ndarray scores, cnp.ndarray labels, double default_thr, double *out,
                           int64_t *err_row, int *neg) except -2:
        """dense() into out (n_ops x n_rows doubles, which the caller provides):
        the error code, or -1 (nothing computed) for anything but a plain dense
        batch."""
        cdef int sk, lk
        cdef int64_t nq, ncol, code
        cdef double err_val = 0.0
        cdef Work tmp
        cdef Work *w
        cdef bint own
        err_row[0] = -1
        neg[0] = 0
        # anything but a plain dense batch: -1, the caller takes its general path
        if not (dense_ok(scores) and dense_ok(labels)):
            return -1
        nq = cnp.PyArray_DIM(scores, 0)
        ncol = cnp.PyArray_DIM(scores, 1)
        if cnp.PyArray_DIM(labels, 0) != nq or cnp.PyArray_DIM(labels, 1) != ncol or ncol >= 2147483647:
            return -1
        if cnp.PyArray_TYPE(scores) == cnp.NPY_FLOAT:
            sk = S_F32
        elif cnp.PyArray_TYPE(scores) == cnp.NPY_DOUBLE:
            sk = S_F64
        else:
            return -1
        lk = label_kind(labels)
        if lk < 0:
            return -1
        if self.p.nops == 0:
            return 0            # nothing to compute (and no rows to walk)
        own = self.busy
        if own:
            memset(&tmp, 0, sizeof(Work))
            w = &tmp
            if work_alloc(w, ncol, plan_ndisc(&self.p, ncol), 0) != 0:
                work_free(w)
                raise MemoryError()
        else:
            w = &self.w
            if ncol > self.wcap:
                work_free(w)
                memset(w, 0, sizeof(Work))
                self.wcap = -1
                if work_alloc(w, ncol, plan_ndisc(&self.p, ncol), 0) != 0:
                    work_free(w)
                    memset(w, 0, sizeof(Work))
                    raise MemoryError()
                self.wcap = ncol
            self.busy = True
        w.intr_on = nq * ncol >= INTR_MIN_CELLS
        if w.intr_on:
            w.intr_since = irs_intr_begin()
        try:
            with nogil:
                code = run_rows(w, &self.p, cnp.PyArray_DATA(scores), sk, cnp.PyArray_DATA(labels), lk, NULL, NULL,
                                ncol, 0, nq, default_thr, 0.0, 0, NULL, NULL, 1, out,
                                1, nq, NULL, NULL, err_row, &err_val, neg)
        finally:
            if w.intr_on:
                irs_intr_end()
            w.intr_on = 0
            if own:
                work_free(w)
            else:
                self.busy = False
        if code == E_INTERRUPTED:
            irs_intr_raise()
        if code == E_EXPGAIN:
            raise_exp_gain(err_val)
        return code


cdef class Dense:
    """``batch.Evaluator``'s path for a plain dense batch of numpy arrays, in one
    native call: the kernels of its two plans (integer and float labels), their
    default levels and the result names.  ``run(scores, labels)`` returns
    ``{name: float64 array (n_rows,)}``, or None when the batch is not a plain
    dense one of at most ``max_cells`` cells (the caller takes its general
    path); a NaN or infinite label raises ValueError.  ``neg``: whether the last
    batch run had a negative label."""

    cdef Kernel ki
    cdef Kernel kf
    cdef double thr_i
    cdef double thr_f
    cdef tuple keys
    cdef int64_t max_cells
    cdef public bint neg

    def __cinit__(self, Kernel ki not None, Kernel kf not None, double thr_i, double thr_f, tuple keys not None,
                  int64_t max_cells):
        if len(keys) != ki.p.nops or len(keys) != kf.p.nops:
            raise ValueError("Dense: one name per op")
        self.ki = ki
        self.kf = kf
        self.thr_i = thr_i
        self.thr_f = thr_f
        self.keys = keys
        self.max_cells = max_cells
        self.neg = False

    def run(self, scores, labels):
        cdef cnp.ndarray s, lab, out
        cdef Kernel k
        cdef double thr
        cdef int64_t nq, nops, code, err_row = -1, o
        cdef int neg = 0
        cdef cnp.npy_intp dims[2]
        cdef dict res
        if type(scores) is not cnp.ndarray or type(labels) is not cnp.ndarray:
            return None
        s = <cnp.ndarray> scores
        lab = <cnp.ndarray> labels
        if cnp.PyArray_NDIM(s) != 2:
            return None
        nq = cnp.PyArray_DIM(s, 0)
        if nq <= 0 or nq * cnp.PyArray_DIM(s, 1) >= self.max_cells:
            return None
        if cnp.PyArray_ISFLOAT(lab):
            k = self.kf
            thr = self.thr_f
        else:
            k = self.ki
            thr = self.thr_i
        nops = k.p.nops
        dims[0] = nops
        dims[1] = nq
        out = cnp.PyArray_EMPTY(2, dims, cnp.NPY_DOUBLE, 0)
        code = k.run_dense(s, lab, thr, <double *> cnp.PyArray_DATA(out), &err_row, &neg)
        if code < 0:
            return None
        if code > 0:
            raise ValueError(f"labels: NaN or infinite label at a scored position of query {err_row}")
        self.neg = neg != 0
        res = {}
        for o in range(nops):
            res[self.keys[o]] = out[o]
        return res
