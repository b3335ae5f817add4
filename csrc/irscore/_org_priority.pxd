# Declarations of _org_priority that _org_rs cimports.
from libc.stdint cimport int32_t

from irscore._org_core cimport Topic, Work


cdef double _priority(Topic *t, Work *w, const int32_t[::1] x_doc, const int32_t[::1] x_level,
                      const int32_t[::1] g_level, bint uniform, bint foreign_tail,
                      double Wt, double Wr, bint pairwise) noexcept nogil
