# Shared declarations of the organization kernels (Reliability & Sensitivity,
# extended BCubed): cimported by _org_dominance, _org_priority, _org_rs and
# _org_bcubed (``from irscore._org_core cimport ...``).
#
# - the C headers they read (irs_dd.h, irs_common.h's prefetch), declared here
#   once; irs_scratch.h is included by _org_core alone, so that the kernels
#   share one cache of scratch blocks (scratch_malloc/calloc/free below);
# - a topic's local view (Topic) and the work space it lives in (Work), set up
#   by _org_core (_alloc_work, _setup_topic, _release_topic, _level_weights);
# - Side: the CSR arrays of one side of an organization, the entry points'
#   argument (their checks: check_sides);
# - classes of documents with identical cluster lists (org_classes) and the
#   keys of their cluster pairs (class_pair_keys);
# - the small inline helpers of the inner loops.
from libc.stdint cimport int32_t, int64_t

cdef extern from "irs_dd.h" nogil:
    ctypedef struct irs_dd:
        double hi
        double lo
    void irs_dd_add(irs_dd *a, double b)
    void irs_dd_add_dd(irs_dd *a, irs_dd b)
    void irs_dd_mul_add(irs_dd *acc, double c, irs_dd s)
    double irs_dd_value(irs_dd a)

# IRS_PREFETCH(_W): a hint only (no fault, no effect on results): the per-document
# tables are read in the order of the other side, at random once they outgrow the caches
from irscore._irs_common cimport IRS_PREFETCH, IRS_PREFETCH_W

# how many occurrences ahead the random lookups are prefetched
cdef enum:
    PF = 16


cdef struct Topic:
    # local view of one topic: documents renumbered 0..D-1
    int64_t xa, xb, ga, gb
    int32_t nx, ng, D, LX, LG, CX, CG
    int32_t *gid       # local -> global doc code
    int32_t *kx        # memberships on side x
    int32_t *kg        # memberships on side g
    int32_t *xptr      # per local doc: CSR into xocc (occurrence offsets from xa), D+1
    int32_t *xocc
    int32_t *gptr
    int32_t *gocc
    int32_t *xk        # per x occurrence (offset from xa): its local document
    int32_t *gk        # per reference occurrence (offset from ga): its local document
    int32_t *xlv       # level and cluster of each entry of xocc / gocc (the same order:
    int32_t *xcv       # a document's levels are read in a row, not at random)
    int32_t *glv
    int32_t *gcv
    int32_t *gl1       # per local doc: level of its first reference occurrence
    int32_t *gc1       # per local doc: cluster of its first reference occurrence


cdef struct Work:
    int32_t *loc       # global doc -> local id, -1 (n_docs)
    int32_t *gid
    int32_t *kx
    int32_t *kg
    int32_t *xptr
    int32_t *xocc
    int32_t *gptr
    int32_t *gocc
    int32_t *xk
    int32_t *gk
    int32_t *xlv
    int32_t *xcv
    int32_t *glv
    int32_t *gcv
    int32_t *gl1
    int32_t *gc1
    int32_t *fill
    double *wl         # per x level: weight of one occurrence
    double *fl         # per x level: wl / (1 - W(level)) (0 if no other level and no tail)
    int32_t *neq       # per x level: occurrences
    double *fen_f      # Fenwick tree over reference levels (+ tail)
    double *fen_g
    double *cnt        # per reference cluster
    int32_t *touched
    int32_t *multi
    int32_t *mark
    int oom            # set when a scratch allocation inside a topic failed


cdef struct HK:
    # a sort key and the index it belongs to (_sort_hk sorts by (key, idx))
    int64_t key
    int32_t idx


cdef class Side:
    """One side of an organization as CSR arrays over its topics (see _org_core)."""
    cdef readonly const int64_t[::1] ptr
    cdef readonly const int32_t[::1] doc
    cdef readonly const int32_t[::1] level
    cdef readonly const int32_t[::1] cluster


# --- scratch memory (one cache for every organization kernel: irs_scratch.h) ---
cdef void *scratch_malloc(size_t n) noexcept nogil
cdef void *scratch_calloc(size_t n, size_t size) noexcept nogil
cdef void scratch_free(void *p) noexcept nogil

# --- a topic's local view -------------------------------------------------------
cdef int _alloc_work(Work *w, int64_t n_docs, int64_t maxocc) noexcept nogil
cdef void _free_work(Work *w) noexcept nogil
cdef void _setup_topic(Topic *t, Work *w, int64_t xa, int64_t xb, int64_t ga, int64_t gb,
                       const int32_t[::1] x_doc, const int32_t[::1] x_level,
                       const int32_t[::1] x_cluster,
                       const int32_t[::1] g_doc, const int32_t[::1] g_level,
                       const int32_t[::1] g_cluster, bint values) noexcept nogil
cdef void _release_topic(Topic *t, Work *w) noexcept nogil
cdef double _level_weights(Topic *t, Work *w, const int32_t[::1] x_level, double c,
                           bint uniform, double *Wt, double *Wr) noexcept nogil
cdef int64_t _max_topic(const int64_t[::1] x_ptr, const int64_t[::1] g_ptr) noexcept nogil

# --- classes of documents with several memberships --------------------------------
cdef void _sort_hk(HK *a, int64_t n) noexcept nogil
cdef int32_t org_classes(const Topic *t, bint need_reference, const int32_t *xc, const int32_t *gc,
                         HK *hk, int32_t *rep, int64_t *cnt) noexcept nogil
cdef int64_t class_pair_keys(const Topic *t, const int32_t *rep, int32_t nc, HK *keys) noexcept nogil

# --- the entry points' checks -------------------------------------------------------
cdef int64_t check_sides(Side x, Side g, bint with_levels, int64_t n_docs, Py_ssize_t n_out,
                         str fn) except -1


# --- inline helpers -------------------------------------------------------------------
cdef inline int32_t _simple_ref_level(const Topic *t, int32_t k, bint foreign_tail) noexcept nogil:
    """The reference level of local document k when it is simple (one membership
    on side x, at most one on side g): its g level, ``t.LG`` when it is only on
    side x and ``foreign_tail``; -1 otherwise (not counted among the simple
    documents)."""
    if t.kx[k] != 1 or t.kg[k] > 1:
        return -1
    if t.kg[k] == 1:
        return t.gl1[k]
    return t.LG if foreign_tail else -1


cdef inline int64_t _count_above(const int32_t *occ_a, int32_t na, const int32_t *occ_b,
                                 int32_t nb, const int32_t *level, int64_t base,
                                 int32_t tail_a, int32_t tail_b) noexcept nogil:
    """Pairs (alpha in A, beta in B) with alpha strictly above beta (smaller level).

    A and B are sorted occurrence lists; ``tail_a``/``tail_b`` >= 0 replace an empty
    list by one virtual occurrence at that level (the long tail)."""
    cdef int64_t total = 0
    cdef int32_t ia = 0, ib, lb
    if na == 0 and tail_a < 0:
        return 0
    if nb == 0 and tail_b < 0:
        return 0
    if nb == 0:
        lb = tail_b
        if na == 0:
            return 1 if tail_a < lb else 0
        for ia in range(na):
            if level[base + occ_a[ia]] < lb:
                total += 1
        return total
    for ib in range(nb):
        lb = level[base + occ_b[ib]]
        if na == 0:
            if tail_a < lb:
                total += 1
            continue
        while ia < na and level[base + occ_a[ia]] < lb:
            ia += 1
        total += ia
    return total


cdef inline int64_t _cross(const int32_t *occ_a, int32_t na, const int32_t *occ_b, int32_t nb,
                           const int32_t *level, int64_t base, const double *wl,
                           const double *fl, double *W) noexcept nogil:
    """Pairs (alpha in A, beta in B) with alpha on a strictly higher level than beta,
    and their weight sum  sum fl[alpha] wl[beta] + wl[alpha] fl[beta]  (sorted lists)."""
    cdef int64_t total = 0
    cdef int32_t ia = 0, ib, lb, la
    cdef double sf = 0.0, sw = 0.0, acc = 0.0
    for ib in range(nb):
        lb = level[base + occ_b[ib]]
        while ia < na:
            la = level[base + occ_a[ia]]
            if la >= lb:
                break
            sf += fl[la]
            sw += wl[la]
            ia += 1
        total += ia
        acc += sf * wl[lb] + sw * fl[lb]
    W[0] = acc
    return total


cdef inline int32_t _intersect(const int32_t *occ_a, int32_t na, const int32_t *occ_b,
                               int32_t nb, const int32_t *cluster, int64_t base) noexcept nogil:
    """Number of clusters shared by two sorted occurrence lists."""
    cdef int32_t ia = 0, ib = 0, n = 0, ca, cb
    while ia < na and ib < nb:
        ca = cluster[base + occ_a[ia]]
        cb = cluster[base + occ_b[ib]]
        if ca == cb:
            n += 1
            ia += 1
            ib += 1
        elif ca < cb:
            ia += 1
        else:
            ib += 1
    return n


cdef inline int32_t _shared2(const int32_t *occ_a, int32_t na, const int32_t *occ_b, int32_t nb,
                             const int32_t *cluster, int64_t base, int32_t *s) noexcept nogil:
    """Clusters shared by two sorted occurrence lists; the first two in s[0], s[1]."""
    cdef int32_t ia = 0, ib = 0, n = 0, ca, cb
    while ia < na and ib < nb:
        ca = cluster[base + occ_a[ia]]
        cb = cluster[base + occ_b[ib]]
        if ca == cb:
            if n < 2:
                s[n] = ca
            n += 1
            ia += 1
            ib += 1
        elif ca < cb:
            ia += 1
        else:
            ib += 1
    return n


cdef inline bint _class_pair_shares(const Topic *t, int64_t side, int32_t c1, int32_t c2, int32_t a, int32_t b,
                                    const int32_t *xc, const int32_t *gc, int32_t *ax, int32_t *ag) noexcept nogil:
    """Documents a and b met at the key of clusters (c1, c2) on ``side`` (0: X,
    1: reference): their shared X clusters in ax and reference clusters in ag,
    and True when this key is where the pair is counted (c1, c2 are their two
    smallest shared clusters on that side; through reference clusters only when
    they share exactly one X cluster), else False."""
    cdef int32_t s[2]
    if side == 0:
        ax[0] = _shared2(t.xocc + t.xptr[a], t.kx[a], t.xocc + t.xptr[b], t.kx[b], xc, t.xa, s)
        if s[0] != c1 or s[1] != c2:
            return False
        ag[0] = _intersect(t.gocc + t.gptr[a], t.kg[a], t.gocc + t.gptr[b], t.kg[b], gc, t.ga)
        return True
    ax[0] = _intersect(t.xocc + t.xptr[a], t.kx[a], t.xocc + t.xptr[b], t.kx[b], xc, t.xa)
    if ax[0] != 1:
        return False
    ag[0] = _shared2(t.gocc + t.gptr[a], t.kg[a], t.gocc + t.gptr[b], t.kg[b], gc, t.ga, s)
    return s[0] == c1 and s[1] == c2


cdef inline double _unit(double v) noexcept nogil:
    if v < 0.0:
        return 0.0
    if v > 1.0:
        return 1.0
    return v
