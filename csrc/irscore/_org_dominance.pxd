# Declarations of _org_dominance that _org_priority cimports: a population of
# documents with q X occurrences (Dom), its queries (DQuery), the per-document
# scratch of _doc_queries (Scratch).
from libc.stdint cimport int32_t, int64_t

from irscore._org_core cimport Topic, Work, irs_dd


cdef struct DQuery:
    int32_t u[3]       # b_j <= u[j] for the coordinates in mask
    int32_t z          # LG - gb <= z
    int32_t mask       # the coordinates constrained (bit j: b_j)
    double c[6]        # coefficients of (wl[b1], fl[b1], wl[b2], fl[b2], ...)


cdef struct Dom:
    # one population: np_ documents with q X levels (pc: q per point), LG - gb (pz),
    # values (pv: 2q per point); queries q[0..nq)
    int32_t qd, V
    int64_t np_, nq, cap
    int32_t *pc
    int32_t *pz
    double *pv
    DQuery *q
    irs_dd acc                  # double-double: the box sums cancel (irs_dd.h)


cdef struct Scratch:
    # per-document scratch of _doc_queries
    int32_t *xv        # distinct X levels (1..d)
    double *xc         # occurrences, fl and wl sums on each
    double *xf
    double *xw
    double *rr         # per X region: occurrences, fl and wl sums above / below it
    double *sf
    double *sw
    int32_t *th        # X thresholds (prefix form b <= th)
    int32_t *gv        # distinct reference levels (1..e)
    double *gc
    double *ss         # per reference region: occurrences above / below it
    int32_t *gt        # reference thresholds (suffix form gb >= gt)
    double *grid
    int64_t ncell


cdef int _dom_solve(Dom *dm, int32_t LX, int32_t LG) noexcept nogil
cdef void _dom_free(Dom *dm) noexcept nogil
cdef int _dom_points(Dom *dm, Topic *t, Work *w, const int32_t *docs, int64_t n, int32_t qd,
                     const int32_t *lx, const int32_t *lg) noexcept nogil
cdef int64_t _grid_cells(Topic *t, int32_t k, int32_t qd, const int32_t *lx,
                         const int32_t *lg) noexcept nogil
cdef int _doc_queries(Dom *dm, Topic *t, Work *w, int32_t k, bint both, const int32_t *lx,
                      const int32_t *lg, Scratch *sc) noexcept nogil
