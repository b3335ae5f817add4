"""Exact running state of the streaming accumulators (``irscore.batch.Accumulator``).

Per measure j the state is: ``limbs[j]`` an exact sum of the per-query values
(``irs_exactsum.h``: integer limbs, merged by adding them elementwise),
``running[j]`` trec_eval's running double sum (the values added one by one in
arrival order) and ``counts[j]`` the number of values summed (NaN values are
left out when ``skip_nan``).  The state is fixed-size: it does not grow with
the number of queries.
"""
from libc.stdint cimport int64_t
from libc.math cimport isnan, isinf

cdef extern from "irs_exactsum.h" nogil:
    int IRS_EXACT_BIAS
    int IRS_EXACT_LIMBS
    int IRS_EXACT_BATCH
    void irs_exact_add(int64_t *L, double v)
    void irs_exact_normalize(int64_t *L, int n)

#: limbs of one exact sum, and the weight of limb 0's lowest bit (2 ** -BIAS)
N_LIMBS = IRS_EXACT_LIMBS
BIAS = IRS_EXACT_BIAS


cdef int _check_state(const int64_t[:, ::1] limbs, const double[::1] running, const int64_t[::1] counts,
                      Py_ssize_t nm) except -1:
    if limbs.shape[0] != nm or limbs.shape[1] != IRS_EXACT_LIMBS:
        raise ValueError(f"limbs: expected shape ({nm}, {IRS_EXACT_LIMBS}), "
                         f"got ({limbs.shape[0]}, {limbs.shape[1]})")
    if running.shape[0] != nm or counts.shape[0] != nm:
        raise ValueError(f"running/counts: expected {nm} entries, got {running.shape[0]} and {counts.shape[0]}")
    return 0


def add(tuple values, int64_t[:, ::1] limbs, double[::1] running, int64_t[::1] counts, bint skip_nan):
    """Adds ``values[j]`` (1-D float64 arrays, any stride, one per measure) to measure j's
    state.  Every value is checked first (a NaN is left out when ``skip_nan``,
    else refused; an infinite value is refused), so a refused call changes
    nothing.  Returns None; raises ValueError naming the measure's index and
    the query's position."""
    cdef Py_ssize_t nm = len(values), j, i, n
    cdef const double[:] v
    cdef double x
    _check_state(limbs, running, counts, nm)
    if nm > 64:
        raise ValueError(f"values: at most 64 measures per call, got {nm}")
    # the arrays' data (the tuple keeps them alive during the call)
    cdef const char *ptr[64]
    cdef Py_ssize_t stride[64]
    cdef Py_ssize_t length[64]
    for j in range(nm):
        v = values[j]
        n = v.shape[0]
        length[j] = n
        stride[j] = v.strides[0]
        ptr[j] = <const char *> &v[0] if n > 0 else NULL
        for i in range(n):
            x = v[i]
            if isinf(x) or (isnan(x) and not skip_nan):
                raise ValueError(f"values[{j}][{i}] = {x!r}: a per-query value must be finite"
                                 + ("" if skip_nan else " (NaN is left out only with empty=nan)"))
    cdef int64_t c, pending
    cdef double r
    with nogil:
        for j in range(nm):
            n = length[j]
            c = 0
            pending = 0
            r = running[j]
            for i in range(n):
                x = (<const double *> (ptr[j] + i * stride[j]))[0]
                if isnan(x):
                    continue
                r += x
                c += 1
                irs_exact_add(&limbs[j, 0], x)
                pending += 1
                if pending == IRS_EXACT_BATCH:
                    irs_exact_normalize(&limbs[j, 0], IRS_EXACT_LIMBS)
                    pending = 0
            irs_exact_normalize(&limbs[j, 0], IRS_EXACT_LIMBS)
            running[j] = r
            counts[j] += c


def normalize(int64_t[:, ::1] limbs):
    """Carries propagated in every row (after adding accumulators elementwise)."""
    cdef Py_ssize_t j
    if limbs.shape[1] != IRS_EXACT_LIMBS:
        raise ValueError(f"limbs: expected {IRS_EXACT_LIMBS} columns, got {limbs.shape[1]}")
    with nogil:
        for j in range(limbs.shape[0]):
            irs_exact_normalize(&limbs[j, 0], IRS_EXACT_LIMBS)
