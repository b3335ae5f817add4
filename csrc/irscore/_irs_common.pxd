# irs_common.h, declared once for every kernel that uses it (cimported:
# ``from irscore._irs_common cimport irs_hash_bytes``; no module of its own).
# Each C header shared by several kernels has one such .pxd (_irs_sort.pxd); a
# header that one kernel alone uses is declared in that kernel or its .pxd.
from libc.stdint cimport int32_t, int64_t, uint64_t

cdef extern from "irs_common.h" nogil:
    # 1 in a build with bounds checks (IRSCORE_DEBUG=1), else 0
    int IRSCORE_BOUNDSCHECK
    # a hint only (no fault, no effect on results)
    void IRS_PREFETCH(const void *p)
    void IRS_PREFETCH_W(const void *p)
    uint64_t irs_hash_bytes(const char *p, int64_t n)
    int irs_bytes_cmp(const char *a, int64_t na, const char *b, int64_t nb)
    int irs_parse_double(const char *p, int64_t n, double *out)
    int irs_parse_int32(const char *p, int64_t n, int32_t *out)
    int irs_not_text(const char *p, int64_t n)
    void irs_no_hugepages(void *p, size_t n)
