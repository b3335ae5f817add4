# irs_sort.h, declared once for the kernels that use it (cimported:
# ``from irscore._irs_sort cimport irs_sort_entries``; no module of its own).
from libc.stdint cimport int32_t, int64_t, uint64_t

cdef extern from "irs_sort.h" nogil:
    ctypedef struct irs_entry:
        double score
        int64_t start
        uint64_t hash
        int32_t len
        int32_t pos
    void irs_sort_entries(irs_entry *a, int64_t n, const char *buf, int mode)
    ctypedef struct irs_idkey:
        uint64_t key
        int64_t start
        int32_t len
        int32_t pos
    uint64_t irs_id_prefix(const char *p, int64_t n)
    void irs_idkey_sort(irs_idkey *a, int64_t n, const char *buf)
