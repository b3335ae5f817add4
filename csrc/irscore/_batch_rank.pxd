# The array kernel's rows (``_batch``), part 1: a row's candidates loaded
# (valid ones, keys, labels, grade counters) and put in rank order (sorted, a
# top k selected, or ranked by counting), into the per-call buffers ``Work``
# and the row's facts ``Row``.  All inline, nogil; cimported by ``_batch`` and
# ``_batch_ops``, no module of its own.  The C headers batch_count.h,
# batch_load.h and batch_sort.h are declared here, once.
from libc.stdint cimport int32_t, int64_t, uint8_t, int8_t, int16_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, calloc, free
from libc.math cimport INFINITY

from irscore._common cimport disc_of, DISCOUNT_LOG2

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


cdef enum:
    TOPK_MAX = 32     # partial selection only for cutoffs up to this


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
    double *disc       # log2(i + 2), ndisc entries
    int64_t ndisc
    int64_t *ghist     # 4 x 256 grade counters, zero between uses
    int64_t cap
    int intr_on        # run_rows watches for SIGINT (irs_intr_pending(intr_since)) before each row
    unsigned long intr_since


cdef inline int work_alloc(Work *w, int64_t cap, int64_t ndisc, int64_t nruns) noexcept nogil:
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
    w.disc = <double *> malloc(c * sizeof(double))
    w.ghist = <int64_t *> calloc(4 * 256, sizeof(int64_t))
    if (w.hc == NULL or w.keys == NULL or w.ktmp == NULL or w.ktop == NULL or w.sv == NULL or w.col == NULL
            or w.ghist == NULL or w.scr == NULL or w.scr2 == NULL or w.bk == NULL or w.hist == NULL
            or w.vl == NULL or w.rl == NULL or w.rp == NULL or w.pk == NULL or w.run_v == NULL
            or w.run_c == NULL or w.gb == NULL or w.disc == NULL):
        return -1
    for i in range(w.ndisc):
        w.disc[i] = disc_of(i + 1, DISCOUNT_LOG2)
    return 0


cdef inline void work_free(Work *w) noexcept nogil:
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
    free(w.disc)
    free(w.ghist)


cdef inline double idisc_of(const Work *w, int64_t i, int dk) noexcept nogil:
    """1 / discount of 0-based position i."""
    if dk == DISCOUNT_LOG2 and i < w.ndisc:
        return 1.0 / w.disc[i]
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
    int fast           # the kernel's shortcuts that have a general path are on (_set_fast_paths)


cdef inline int64_t load_row(Work *w, Row *r, const score_t *sc, const label_t *lb, int64_t n, int want_hist,
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


cdef inline int64_t load_any(Work *w, Row *r, const void *sc, int sk, const void *lb, int lk, int64_t st, int64_t n,
                             int want_hist, int want_max, int want_col, int64_t *bad) noexcept nogil:
    """load_row for the score kind sk and the label kind lk (row start st)."""
    r.coarse = sk != S_F32
    if sk == S_F32:
        return load_labels(w, r, <const float *> sc + st, lb, lk, st, n, want_hist, want_max, want_col, bad)
    return load_labels(w, r, <const double *> sc + st, lb, lk, st, n, want_hist, want_max, want_col, bad)


cdef inline int64_t load_labels(Work *w, Row *r, const score_t *sc, const void *lb, int lk, int64_t st, int64_t n,
                                int want_hist, int want_max, int want_col, int64_t *bad) noexcept nogil:
    """load_row with the labels' type chosen by their kind lk (the scores' by the fused type)."""
    cdef int h = want_hist, x = want_max, c = want_col
    if lk == L_I8:
        return load_row(w, r, sc, <const int8_t *> lb + st, n, h, x, c, bad)
    if lk == L_I16:
        return load_row(w, r, sc, <const int16_t *> lb + st, n, h, x, c, bad)
    if lk == L_I32:
        return load_row(w, r, sc, <const int32_t *> lb + st, n, h, x, c, bad)
    if lk == L_I64:
        return load_row(w, r, sc, <const int64_t *> lb + st, n, h, x, c, bad)
    if lk == L_U8:
        return load_row(w, r, sc, <const uint8_t *> lb + st, n, h, x, c, bad)
    if lk == L_F32:
        return load_row(w, r, sc, <const float *> lb + st, n, h, x, c, bad)
    return load_row(w, r, sc, <const double *> lb + st, n, h, x, c, bad)


cdef inline int64_t load_fast(Work *w, Row *r, const void *sc, int sk, const void *lb, int lk, int64_t st, int64_t n,
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


cdef inline void gather_labels(double *rl, const double *vl, const uint64_t *srt, int64_t n, int trec) noexcept nogil:
    """rl[i] = the label of the candidate of key srt[i]."""
    cdef int64_t i
    if trec:
        for i in range(n):
            rl[i] = vl[BK_TIE_MAX - <uint32_t> srt[i]]
    else:
        for i in range(n):
            rl[i] = vl[<uint32_t> srt[i]]


cdef inline int rank_by_count(Work *w, const Row *r, int64_t n, double sthr, int64_t pre, int want_rp, double rp_thr,
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


cdef inline int64_t gather_rel(double *rl, int64_t *rp, const double *vl, const uint64_t *srt, int64_t n, int trec,
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
