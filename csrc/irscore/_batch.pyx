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
with VP2INTERSECT, 16 score codes at a time when no two candidates share one).  With the
labels in rank order, the positions of the relevant candidates are listed too (AP, P@k, RR, ... read only those).  The same order
can be written out (``order``) for the measures computed elsewhere, so a query
is never sorted twice.

``evaluate_rows`` takes any layout (rows by start and length); ``Kernel``
holds a plan and its scratch buffers across calls and evaluates dense 2-D
batches with a few microseconds of call overhead (hot loops).

Ties (``tie_mode``, the enum ``Ties`` of ``_batch.pxd``): TIES_TREC (score
descending, then column descending), TIES_INPUT (column ascending),
TIES_AVERAGE: the expected value over all orders of tied candidates (McSherry
& Najork 2008), computed per tie group in closed form, never by enumeration.

Op kinds and error codes: the enums ``Op`` and ``Error`` of ``_batch.pxd``,
exported to Python (``irscore.batch`` reads them from this module).
"""
from libc.stdint cimport int32_t, int64_t, uint8_t, int8_t, int16_t, uint32_t, uint64_t, UINT64_MAX
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset
from libc.math cimport log2, pow, INFINITY

cimport numpy as cnp

from irscore._common cimport gain_of, disc_of, GAIN_LINEAR, GAIN_EXP, DISCOUNT_LOG2, DISCOUNT_JARVELIN

cdef extern from "irs_common.h":
    int IRSCORE_BOUNDSCHECK

cnp.import_array()

#: True when the kernels were built with bounds checks (IRSCORE_DEBUG=1)
BOUNDSCHECK = bool(IRSCORE_BOUNDSCHECK)

#: codes of the gain and discount kinds (``op_gain``, ``op_disc``)
GAIN_KINDS = {"linear": GAIN_LINEAR, "exp": GAIN_EXP}
DISCOUNT_KINDS = {"log2": DISCOUNT_LOG2, "jarvelin": DISCOUNT_JARVELIN}

from irscore._interrupt cimport irs_intr_begin, irs_intr_end, irs_intr_pending, irs_intr_raise

cdef enum:
    E_INTERRUPTED = 100         # SIGINT during run_rows (irs_interrupt.h); raised, never returned
    INTR_MIN_CELLS = 1 << 20    # calls of fewer cells (< ~30 ms) do not watch for SIGINT

cdef extern from "irs_disc.h" nogil:
    int64_t IRS_DISC_EXACT
    double irs_inv_log2_sum(int64_t y0, int64_t y1)

cdef extern from "batch_count.h" nogil:
    int BC_SCALAR
    int BC_AVX2
    int BC_AVX512
    int BC_AVX512_VP2I
    int BC_HAVE_VP2I
    int bc_count_lt_codes(const uint32_t *c, int64_t n, uint64_t *x, int64_t m)
    int bc_count_lt_pos(const uint64_t *keys, int64_t n, const int32_t *pos, uint64_t *x, int64_t m, int trec)
    int bc_get_level()
    int bc_level_for(int avx512f, int avx512dq, int avx512vl, int avx512cd, int avx512vp2intersect,
                     int avx2, int popcnt)
    int bc_get_max_level()
    int bc_set_level(int lv)
    int64_t bc_count_max()
    int64_t bc_positions(const double *a, int64_t n, double thr, int gt, int64_t *pos)
    void bc_fill(double *a, int64_t n, double v)
    void bc_count_lt(const uint64_t *keys, int64_t n, uint64_t *x, int64_t m)

cdef extern from "batch_load.h" nogil:
    ctypedef struct bl_stats:
        int64_t lmin
        int64_t lmax
        int64_t grade[5]
    int64_t bl_load(const void *sc, int sk, const void *lb, int lk, int64_t n, int trec, double sthr,
                    uint64_t *keys, uint32_t *hc, double *sv, double *vl, int64_t *col, uint64_t *xq, int32_t *si,
                    bl_stats *st)

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
    uint32_t bk_code_f32(float f)
    uint32_t bk_code_f64(double d)
    uint32_t bk_tie(int64_t t, int trec)
    uint32_t BK_TIE_MAX
    int64_t bk_t(uint64_t key, int trec)
    bint bk_before(uint64_t a, uint64_t b, const double *sv, int trec)
    uint64_t *bk_sort(uint64_t *a, int64_t n, const double *sv, double lo, double hi, uint64_t *tmp,
                      int32_t *bk, int32_t *hist)
    int64_t bk_topk(const uint64_t *a, int64_t n, int64_t k, uint64_t *out)
    void bk_fix_runs(uint64_t *a, int64_t n, const double *sv, int trec, bs_item *scr)
    void bk_minmax(const double *a, int64_t n, double *lo, double *hi)
    int64_t bk_topk_exact(const uint64_t *a, int64_t n, int64_t k, uint64_t *out, const double *sv, int trec,
                          bs_item *scr)

# op kinds, tie modes and error codes: the cpdef enums of _batch.pxd

cdef enum:
    TOPK_MAX = 32     # partial selection only for cutoffs up to this

# 0: plans made from now on take no shortcut that has a general path (the
# tests compare the two; see _set_fast_paths)
cdef int fast_paths = 1


def _set_fast_paths(bint on):
    """Testing only: whether plans made from now on (``Kernel``, ``evaluate_rows``)
    take the kernel's shortcuts that have a general path; the values are the same
    either way (tests/test_batch_fast_paths.py compares them).  Returns the
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
    uint64_t *keys     # keys of the valid candidates, candidate order (t)
    uint32_t *hc       # their high halves (score codes; filled by the vector loader only)
    uint64_t *ktmp     # sorted keys (bucket pass)
    uint64_t *ktop     # the top k (partial selection)
    double *sv         # scores of the valid candidates (candidate order)
    int64_t *col       # column of each valid candidate
    bs_item *scr       # scratch
    bs_item *scr2      # scratch (ideal gains)
    int32_t *bk
    int32_t *hist
    double *vl         # labels of valid candidates (candidate order)
    double *rl         # labels in rank order
    int64_t *rp        # positions (0-based ranks) of the relevant candidates at the plan's level
    int64_t *pk        # positions of the positive labels among the first k (DCG)
    double *run_v      # ideal: distinct label values, descending
    int64_t *run_c     # ideal: how many of each
    int64_t *gb        # tie-group boundaries (average ties)
    double *idisc      # 1 / log2(i + 2), ndisc entries
    int64_t ndisc
    double *inv        # 1 / (i + 1)
    int64_t *ghist     # 4 x 256 grade counters, zero between uses
    int64_t cap
    int intr_on        # run_rows watches for SIGINT (irs_intr_pending(intr_since)) before each row
    unsigned long intr_since


cdef int work_alloc(Work *w, int64_t cap, int64_t ndisc, int64_t nruns) noexcept nogil:
    """Buffers for rows of up to cap candidates; the discount table has ndisc
    entries; the ideal holds up to max(cap, nruns) + 1 runs."""
    cdef int64_t i, c = cap + 2
    cdef int64_t cr = (nruns if nruns > cap else cap) + 2
    w.cap = cap
    w.ndisc = ndisc if ndisc < c else c
    w.keys = <uint64_t *> malloc(c * sizeof(uint64_t))
    w.hc = <uint32_t *> malloc(c * sizeof(uint32_t))
    w.ktmp = <uint64_t *> malloc((c + 8) * sizeof(uint64_t))     # + 8: the vector paths store 8 at a time
    w.ktop = <uint64_t *> malloc((TOPK_MAX + 1) * sizeof(uint64_t))
    w.sv = <double *> malloc(c * sizeof(double))
    w.col = <int64_t *> malloc(c * sizeof(int64_t))
    w.scr = <bs_item *> malloc(c * sizeof(bs_item))
    w.scr2 = <bs_item *> malloc(c * sizeof(bs_item))
    w.bk = <int32_t *> malloc((c + 8) * sizeof(int32_t))
    w.hist = <int32_t *> malloc((4 * c + 1) * sizeof(int32_t))
    w.vl = <double *> malloc(c * sizeof(double))
    w.rl = <double *> malloc(c * sizeof(double))
    w.rp = <int64_t *> malloc((c + 8) * sizeof(int64_t))
    w.pk = <int64_t *> malloc((c + 8) * sizeof(int64_t))
    w.run_v = <double *> malloc((cr + 1) * sizeof(double))
    w.run_c = <int64_t *> malloc((cr + 1) * sizeof(int64_t))
    w.gb = <int64_t *> malloc((c + 1) * sizeof(int64_t))
    w.idisc = <double *> malloc(c * sizeof(double))
    w.inv = <double *> malloc(c * sizeof(double))
    w.ghist = <int64_t *> calloc(4 * 256, sizeof(int64_t))
    if (w.hc == NULL or w.keys == NULL or w.ktmp == NULL or w.ktop == NULL or w.sv == NULL or w.col == NULL or w.inv == NULL or w.ghist == NULL or w.scr == NULL or w.scr2 == NULL or w.bk == NULL or w.hist == NULL or w.vl == NULL
            or w.rl == NULL or w.rp == NULL or w.pk == NULL or w.run_v == NULL or w.run_c == NULL or w.gb == NULL or w.idisc == NULL):
        return -1
    for i in range(c):
        w.inv[i] = 1.0 / <double> (i + 1)
    for i in range(w.ndisc):
        w.idisc[i] = 1.0 / disc_of(i + 1, DISCOUNT_LOG2)
    return 0


cdef void work_free(Work *w) noexcept nogil:
    free(w.keys)
    free(w.hc)
    free(w.ktmp)
    free(w.ktop)
    free(w.sv)
    free(w.col)
    free(w.scr)
    free(w.scr2)
    free(w.bk)
    free(w.hist)
    free(w.vl)
    free(w.rl)
    free(w.rp)
    free(w.pk)
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
    int trec           # tie codes of trec ties (else input order)
    int coarse         # keys hold only the high bits of double scores
    double maxlab      # highest valid label (want_max)
    int neg            # a valid candidate has a negative label
    int has_rp         # w.rp lists the relevant candidates at level rp_thr among the first ns
    double rp_thr
    int64_t nrp        # how many


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
    cdef uint64_t kb, kx
    cdef double s = 0.0, idcg
    cdef const double *rl = w.rl
    cdef const double *inv = w.inv
    if kind == K_NDCG or kind == K_DCG:
        m = r.ns if (k < 0 or r.ns < k) else k
        if gk == GAIN_LINEAR and dk == DISCOUNT_LOG2 and m <= w.ndisc:
            # the positive labels only (listed 8 positions at a time with
            # AVX-512): a label <= 0 would add +0.0, which leaves s (>= +0) as it is
            c = bc_positions(rl, m, 0.0, 1, w.pk)
            for x in range(c):
                i = w.pk[x]
                s += rl[i] * w.idisc[i]
        else:
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
        if r.has_rp and thr == r.rp_thr:
            # the relevant positions only: a non-relevant one adds +0.0 below,
            # which leaves s (>= +0) as it is; the sum keeps its order
            for x in range(r.nrp):
                i = w.rp[x]
                if i >= m:
                    break
                c = x + 1
                s += <double> c * inv[i]
        else:
            for i in range(m):
                x = rl[i] >= thr
                c += x
                s += <double> (x * c) * inv[i]
        if nrel_mode == 0 and m == r.n:
            R = c       # every candidate was seen
        else:
            R = total_rel(w, r, thr, nrel_mode, nrel1, nrel2, G)
        return s / <double> R if R > 0 else 0.0
    if kind == K_P or kind == K_R or kind == K_SUCCESS:
        m = r.ns if r.ns < k else k
        if r.has_rp and thr == r.rp_thr:
            while c < r.nrp and w.rp[c] < m:
                c += 1
        else:
            for i in range(m):
                c += rl[i] >= thr
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
        if r.has_rp and thr == r.rp_thr:
            while c < r.nrp and w.rp[c] < m:
                c += 1
        else:
            for i in range(m):
                if rl[i] >= thr:
                    c += 1
        return <double> c / <double> R
    if kind == K_RR:
        if k > 0:
            # RR@k: the top k are sorted (partial selection keeps at least them)
            m = r.ns if r.ns < k else k
            if r.has_rp and thr == r.rp_thr:
                return 1.0 / <double> (w.rp[0] + 1) if (r.nrp > 0 and w.rp[0] < m) else 0.0
            for i in range(m):
                if rl[i] >= thr:
                    return 1.0 / <double> (i + 1)
            return 0.0
        # the sorted prefix (all of it, or the exact top ns) holds the first
        # relevant candidate if it holds any
        if r.has_rp and thr == r.rp_thr:
            if r.nrp > 0:
                return 1.0 / <double> (w.rp[0] + 1)
        else:
            for i in range(r.ns):
                if rl[i] >= thr:
                    return 1.0 / <double> (i + 1)
        if r.ns == r.n:
            return 0.0
        # partial order only, none relevant in the top ns: the best relevant
        # candidate, then its rank
        if not r.coarse and fast_paths:
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

cdef enum:
    S_F32 = 0         # score kinds
    S_F64 = 1
    L_I8 = 0          # label kinds
    L_I16 = 1
    L_I32 = 2
    L_I64 = 3
    L_U8 = 4
    L_F32 = 5
    L_F64 = 6


cdef int64_t load_row(Work *w, Row *r, const score_t *sc, const label_t *lb, int64_t n, int want_hist,
                      int want_max, int want_col, int64_t *bad) noexcept nogil:
    """Valid candidates (score not NaN) into w.keys / w.sv / w.vl / w.col; returns
    their number.  With want_hist, also counts the grades of the valid candidates
    (ideal DCG) in w.ghist (four interleaved counters per grade) while every label
    is a small non-negative integer or non-positive; with want_max, the highest
    label into r.maxlab; with want_col, each candidate's column into w.col."""
    cdef int64_t j, t = 0, iv, maxg = 0
    cdef double v, mx = -INFINITY
    cdef score_t s
    cdef int small = want_hist, neg = 0, trec = r.trec
    cdef int64_t *hist = w.ghist
    # the buffers in locals: a store through one cannot change another (no reloads)
    cdef uint64_t *keys = w.keys
    cdef double *sv = w.sv
    cdef int64_t *col = w.col
    cdef double *vl = w.vl
    cdef uint32_t code, tb = BK_TIE_MAX if trec else 0
    cdef int64_t tstep = -1 if trec else 1
    bad[0] = 0
    for j in range(n):
        s = sc[j]
        if s != s:
            continue
        v = <double> lb[j]
        if label_t is float or label_t is double:
            if not (v - v == 0.0):
                bad[0] = 1
        if label_t is float or label_t is double:
            if small:
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
            neg |= v < 0.0
        else:
            iv = <int64_t> lb[j]
            if <uint64_t> iv < 256:
                if small:
                    hist[(iv << 2) | (t & 3)] += 1
                    if iv > maxg:
                        maxg = iv
            elif iv < 0:
                neg = 1
            else:
                small = 0
        if want_max and v > mx:
            mx = v
        if score_t is float:
            code = bk_code_f32(s)
        else:
            code = bk_code_f64(s)
        keys[t] = ((<uint64_t> code) << 32) | tb
        sv[t] = <double> s
        if want_col:
            col[t] = j
        vl[t] = v
        t += 1
        tb += tstep
    r.maxg = maxg
    r.hist_state = 0 if not want_hist else (1 if small else 2)
    r.neg = neg
    r.maxlab = mx
    return t


cdef int64_t load_any(Work *w, Row *r, const void *sc, int sk, const void *lb, int lk, int64_t st, int64_t n,
                      int want_hist, int want_max, int want_col, int64_t *bad) noexcept nogil:
    """load_row for the score kind sk and the label kind lk (row start st)."""
    if sk == S_F32:
        r.coarse = 0
        if lk == L_I8:
            return load_row(w, r, <const float *> sc + st, <const int8_t *> lb + st, n, want_hist, want_max, want_col, bad)
        if lk == L_I16:
            return load_row(w, r, <const float *> sc + st, <const int16_t *> lb + st, n, want_hist, want_max, want_col, bad)
        if lk == L_I32:
            return load_row(w, r, <const float *> sc + st, <const int32_t *> lb + st, n, want_hist, want_max, want_col, bad)
        if lk == L_I64:
            return load_row(w, r, <const float *> sc + st, <const int64_t *> lb + st, n, want_hist, want_max, want_col, bad)
        if lk == L_U8:
            return load_row(w, r, <const float *> sc + st, <const uint8_t *> lb + st, n, want_hist, want_max, want_col, bad)
        if lk == L_F32:
            return load_row(w, r, <const float *> sc + st, <const float *> lb + st, n, want_hist, want_max, want_col, bad)
        return load_row(w, r, <const float *> sc + st, <const double *> lb + st, n, want_hist, want_max, want_col, bad)
    r.coarse = 1
    if lk == L_I8:
        return load_row(w, r, <const double *> sc + st, <const int8_t *> lb + st, n, want_hist, want_max, want_col, bad)
    if lk == L_I16:
        return load_row(w, r, <const double *> sc + st, <const int16_t *> lb + st, n, want_hist, want_max, want_col, bad)
    if lk == L_I32:
        return load_row(w, r, <const double *> sc + st, <const int32_t *> lb + st, n, want_hist, want_max, want_col, bad)
    if lk == L_I64:
        return load_row(w, r, <const double *> sc + st, <const int64_t *> lb + st, n, want_hist, want_max, want_col, bad)
    if lk == L_U8:
        return load_row(w, r, <const double *> sc + st, <const uint8_t *> lb + st, n, want_hist, want_max, want_col, bad)
    if lk == L_F32:
        return load_row(w, r, <const double *> sc + st, <const float *> lb + st, n, want_hist, want_max, want_col, bad)
    return load_row(w, r, <const double *> sc + st, <const double *> lb + st, n, want_hist, want_max, want_col, bad)


cdef int64_t load_fast(Work *w, Row *r, const void *sc, int sk, const void *lb, int lk, int64_t st, int64_t n,
                       int want_hist, int want_max, int want_col, double sthr) noexcept nogil:
    """load_any by the vector loader (batch_load.h: float32 or float64 scores,
    int32 or int64 labels, AVX-512 or AVX2), which also lists the candidates that can
    count (label > 0 or >= sthr: columns into w.bk, keys into w.ktmp); returns
    their number, or -1 (nothing valid written: load_any must load the row)
    when there is no such loader or a score is NaN.  The grade counters count
    the grades >= 1 exactly (grade 0's, which nothing reads, count what they
    may: load_row's count every grade 0)."""
    cdef bl_stats sts
    cdef int64_t m, u, t, iv
    cdef int64_t *hist = w.ghist
    cdef const double *vl = w.vl
    cdef const int32_t *si = w.bk
    cdef int64_t ssz = 4 if sk == S_F32 else 8
    cdef int64_t lsz = 4 if lk == L_I32 else 8
    m = bl_load(<const char *> sc + st * ssz, sk, <const char *> lb + st * lsz, 3 if lk == L_I64 else 2, n,
                r.trec, sthr, w.keys, w.hc, w.sv, w.vl, w.col if want_col else NULL, w.ktmp, w.bk, &sts)
    if m < 0:
        return -1
    r.coarse = sk != S_F32
    r.neg = sts.lmin < 0
    r.maxlab = <double> sts.lmax
    r.maxg = 0
    if not want_hist:
        r.hist_state = 0
    elif sts.lmax >= 256:
        r.hist_state = 2
    else:
        r.hist_state = 1
        r.maxg = sts.lmax if sts.lmax > 0 else 0
        if sts.lmax <= 4:
            # the loader counted the grades 1 to 4 (the consumers add a grade's
            # four counters)
            for iv in range(1, r.maxg + 1):
                hist[iv << 2] += sts.grade[iv]
            return m
        for u in range(m):
            # branch-free: a countable label <= 0 (a level <= 0) lands in grade
            # 0's counters, which nothing reads (build_runs clears them)
            t = si[u]
            iv = <int64_t> vl[t]
            iv = iv if iv > 0 else 0
            hist[(iv << 2) | (t & 3)] += 1
    return m


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


cdef int plan_check(Plan *p) except -1:
    """Checks the op codes (they drive the loops) and derives the plan's facts."""
    cdef int64_t o
    cdef int kind
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
        if kind < K_NDCG or kind > K_NUM_REL_RET:
            raise ValueError("evaluate_rows: bad op kind")
        if (not p.has_rp and fast_paths and (kind == K_AP or kind == K_P or kind == K_R or kind == K_SUCCESS
                                             or kind == K_RPREC or kind == K_RR)):
            p.has_rp = 1
            p.rp_thr = p.thr[o]
        if ((kind == K_AP or kind == K_P or kind == K_R or kind == K_SUCCESS or kind == K_RPREC or kind == K_RR)
                and p.thr[o] < p.sthr):
            p.sthr = p.thr[o]
        if (kind == K_P or kind == K_R or kind == K_SUCCESS) and p.k[o] <= 0:
            raise ValueError("evaluate_rows: cutoff must be positive")
        if kind == K_RR and p.k[o] == 0:
            raise ValueError("evaluate_rows: cutoff must be positive (-1: none)")
        if kind == K_RPREC or ((kind == K_NDCG or kind == K_DCG or kind == K_AP) and (p.k[o] < 0 or p.k[o] > TOPK_MAX)):
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


cdef void gather_labels(double *rl, const double *vl, const uint64_t *srt, int64_t n, int trec) noexcept nogil:
    """rl[i] = the label of the candidate of key srt[i]."""
    cdef int64_t i
    if trec:
        for i in range(n):
            rl[i] = vl[BK_TIE_MAX - <uint32_t> srt[i]]
    else:
        for i in range(n):
            rl[i] = vl[<uint32_t> srt[i]]


cdef int rank_by_count(Work *w, const Row *r, int64_t n, double sthr, int64_t pre, int want_rp, double rp_thr,
                       int64_t *nrp) noexcept nogil:
    """rl without a sort, for a row with at most bc_count_max() candidates that
    an op can count (label > 0, or >= sthr): each one's position is the number
    of keys before its own (batch_count.h: n comparisons each, 8 at a time
    where the CPU has AVX-512 or AVX2 (8 candidates' 32-bit codes at once, ties
    by position: bc_count_lt_pos); double scores' coarse keys are counted
    by code, and compared exactly where another candidate shares the code), and
    every other position holds -inf, which no op counts.  O(m n).  Returns 0,
    having written only scratch, when the row has more such candidates, or
    seems to (found in chunks of 8: a row with many stops early).  pre >= 0:
    the vector loader (load_fast) has already listed the pre candidates that
    can count (columns in w.bk, keys in w.ktmp).  With want_rp, also lists the
    positions of the labels >= rp_thr in w.rp, ascending, and their number in
    nrp (8 positions at a time with AVX-512)."""
    cdef int64_t t = 0, e, u, m = 0, j, c, eq
    cdef int64_t cmax = bc_count_max()
    cdef int32_t *si = w.bk          # n + 2 int32 of scratch
    cdef const double *vl = w.vl
    cdef const uint64_t *keys = w.keys
    cdef double *rl = w.rl
    cdef uint64_t *xq = w.ktmp       # n + 2 keys of scratch: the queries, then their counts
    cdef uint64_t *xe = <uint64_t *> w.scr   # 2n + 4 of scratch (coarse keys: the next code's counts)
    cdef uint64_t x, hx
    cdef double v
    cdef const int64_t *hist = w.ghist
    if pre >= 0:
        if pre > cmax:
            return 0
        m = pre
        t = n
    elif r.hist_state == 1 and sthr > 0.0:
        # load_row counted the grades (every label a small integer, or < 0):
        # the candidates that can count are those of grade >= 1
        for j in range(4, 4 * r.maxg + 4):
            m += hist[j]
        if m > cmax:
            return 0
        m = 0
    while t < n:
        e = t + 8 if t + 8 < n else n
        for u in range(t, e):
            v = vl[u]
            si[m] = <int32_t> u
            m += (v > 0.0) | (v >= sthr)
        # too many, or (a guess, which only chooses the path) heading for twice too many
        if m > cmax or m * n > 2 * cmax * e:
            return 0
        t = e
    bc_fill(rl, n, -INFINITY)
    if not r.coarse:
        # exact keys: the count below a key is its position
        if pre < 0:
            for u in range(m):
                xq[u] = keys[si[u]]
        if ((pre < 0 or not bc_count_lt_codes(w.hc, n, xq, m))
                and not bc_count_lt_pos(keys, n, si, xq, m, r.trec)):
            bc_count_lt(keys, n, xq, m)
        for u in range(m):
            rl[xq[u]] = vl[si[u]]
        if want_rp:
            nrp[0] = bc_positions(rl, n, rp_thr, 0, w.rp)
        return 1
    # coarse keys whose codes are all distinct: the codes alone order them
    if pre >= 0 and bc_count_lt_codes(w.hc, n, xq, m):
        for u in range(m):
            rl[xq[u]] = vl[si[u]]
        if want_rp:
            nrp[0] = bc_positions(rl, n, rp_thr, 0, w.rp)
        return 1
    # coarse keys: the keys of lower codes, and of lower or equal codes (a
    # valid score's code is below 0xFFFFFFFF: its code + 1 does not wrap)
    for u in range(m):
        hx = keys[si[u]] >> 32
        xq[u] = hx << 32
        xe[u] = (hx + 1) << 32
    if not bc_count_lt_pos(keys, n, NULL, xq, m, 0):
        bc_count_lt(keys, n, xq, m)
    if not bc_count_lt_pos(keys, n, NULL, xe, m, 0):
        bc_count_lt(keys, n, xe, m)
    for u in range(m):
        t = si[u]
        x = keys[t]
        hx = x >> 32
        c = <int64_t> xq[u]
        eq = <int64_t> xe[u] - c
        if eq > 1:
            for j in range(n):
                if j != t and (keys[j] >> 32) == hx and bk_before(keys[j], x, w.sv, r.trec):
                    c += 1
        rl[c] = vl[t]
    if want_rp:
        nrp[0] = bc_positions(rl, n, rp_thr, 0, w.rp)
    return 1


cdef int64_t gather_rel(double *rl, int64_t *rp, const double *vl, const uint64_t *srt, int64_t n, int trec,
                        double thr) noexcept nogil:
    """gather_labels, and the positions i with rl[i] >= thr into rp (ascending,
    branch-free); returns their number."""
    cdef int64_t i, c = 0
    cdef double v
    if trec:
        for i in range(n):
            v = vl[BK_TIE_MAX - <uint32_t> srt[i]]
            rl[i] = v
            rp[c] = i
            c += v >= thr
    else:
        for i in range(n):
            v = vl[<uint32_t> srt[i]]
            rl[i] = v
            rp[c] = i
            c += v >= thr
    return c


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
