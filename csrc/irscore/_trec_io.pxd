# Declarations of _trec_io that other kernels cimport (``from irscore._trec_io
# cimport owned_array``).
from libc.stdint cimport int64_t

cdef object owned_array(char **data, int64_t size, object dtype)
