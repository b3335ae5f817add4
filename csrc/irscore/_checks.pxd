# Argument checks shared by the kernels' entry points: cimported
# (``from irscore._checks cimport ...``), all inline, no module of its own.
# They run with the GIL, before any kernel work, and raise ValueError with one
# line that starts with the entry point's name (``fn``) and names the argument
# (``name``); each returns 0 (or a count) when the argument is fine.
#
# - check_csr(off, n, nrows, fn, name): CSR offsets over data of length n:
#   int64, nrows + 1 entries (any number >= 1 of them when nrows < 0), the first
#   0, non-decreasing, the last at most n.  Returns the number of rows.
# - check_csr_exact(off, n, nrows, fn, name): the same, and the last entry
#   is exactly n (every data entry belongs to a row).
# - check_len(got, want, fn, name): a parallel array has exactly ``want``
#   entries (``got`` is its shape[0]).
# - check_same_len(a, b, fn, names): two parallel arrays have one length
#   (``names`` lists them, e.g. "run_doc and run_start").
# - check_min_len(got, want, fn, name): an output has at least ``want`` entries.
# - check_min_shape2(rows, cols, want_rows, want_cols, fn, name): a 2-D output
#   has at least that shape.
# - check_shape2(rows, cols, want_rows, want_cols, fn, name): exactly that shape.
# - check_nonneg(v, fn, name): a count or size is >= 0.
# - check_codes(a, lo, hi, fn, name): every entry of an int64 index array is in
#   lo..hi-1 (codes used to index tables of hi entries).
# - check_all_positive(a, fn, name): every entry of an int64 array is >= 1
#   (cutoffs, ranks).
from libc.stdint cimport int64_t


cdef inline Py_ssize_t _csr_rows(const int64_t[::1] off, Py_ssize_t nrows, str fn, str name) except -1:
    cdef Py_ssize_t m = off.shape[0] - 1
    if m < 0:
        raise ValueError(f"{fn}: {name} must have at least one entry")
    if nrows >= 0 and m != nrows:
        raise ValueError(f"{fn}: {name} must have n_rows + 1 = {nrows + 1} entries, got {m + 1}")
    return m


cdef inline int _csr_increasing(const int64_t[::1] off, Py_ssize_t m, str fn, str name) except -1:
    cdef Py_ssize_t i
    for i in range(m):
        if off[i + 1] < off[i]:
            raise ValueError(f"{fn}: {name} must be non-decreasing ({name}[{i + 1}] = {off[i + 1]} "
                             f"< {name}[{i}] = {off[i]})")
    return 0


cdef inline Py_ssize_t check_csr(const int64_t[::1] off, Py_ssize_t n, Py_ssize_t nrows,
                                 str fn, str name) except -1:
    """CSR offsets from 0, non-decreasing, ending at most at ``n``; returns the row count."""
    cdef Py_ssize_t m = _csr_rows(off, nrows, fn, name)
    if off[0] != 0 or off[m] > n:
        raise ValueError(f"{fn}: {name} must start at 0 and end within 0..{n}, got {off[0]}..{off[m]}")
    _csr_increasing(off, m, fn, name)
    return m


cdef inline Py_ssize_t check_csr_exact(const int64_t[::1] off, Py_ssize_t n, Py_ssize_t nrows,
                                       str fn, str name) except -1:
    """CSR offsets from 0, non-decreasing, ending exactly at ``n``; returns the row count."""
    cdef Py_ssize_t m = _csr_rows(off, nrows, fn, name)
    if off[0] != 0 or off[m] != n:
        raise ValueError(f"{fn}: {name} must start at 0 and end at {n}, got {off[0]}..{off[m]}")
    _csr_increasing(off, m, fn, name)
    return m


cdef inline int check_len(Py_ssize_t got, Py_ssize_t want, str fn, str name) except -1:
    if got != want:
        raise ValueError(f"{fn}: {name} must have {want} entries, got {got}")
    return 0


cdef inline int check_same_len(Py_ssize_t a, Py_ssize_t b, str fn, str names) except -1:
    if a != b:
        raise ValueError(f"{fn}: {names} must have one length ({a} != {b})")
    return 0


cdef inline int check_min_len(Py_ssize_t got, Py_ssize_t want, str fn, str name) except -1:
    if got < want:
        raise ValueError(f"{fn}: {name} needs at least {want} entries, got {got}")
    return 0


cdef inline int check_min_shape2(Py_ssize_t rows, Py_ssize_t cols, Py_ssize_t want_rows, Py_ssize_t want_cols,
                                 str fn, str name) except -1:
    if rows < want_rows or cols < want_cols:
        raise ValueError(f"{fn}: {name} must have shape at least ({want_rows}, {want_cols}), got ({rows}, {cols})")
    return 0


cdef inline int check_shape2(Py_ssize_t rows, Py_ssize_t cols, Py_ssize_t want_rows, Py_ssize_t want_cols,
                             str fn, str name) except -1:
    if rows != want_rows or cols != want_cols:
        raise ValueError(f"{fn}: {name} must have shape ({want_rows}, {want_cols}), got ({rows}, {cols})")
    return 0


cdef inline int check_nonneg(int64_t v, str fn, str name) except -1:
    if v < 0:
        raise ValueError(f"{fn}: {name} must be >= 0, got {v}")
    return 0


cdef inline int check_codes(const int64_t[::1] a, int64_t lo, int64_t hi, str fn, str name) except -1:
    cdef Py_ssize_t i
    for i in range(a.shape[0]):
        if a[i] < lo or a[i] >= hi:
            raise ValueError(f"{fn}: {name}[{i}] = {a[i]} is out of range {lo}..{hi - 1}")
    return 0


cdef inline int check_all_positive(const int64_t[::1] a, str fn, str name) except -1:
    cdef Py_ssize_t i
    for i in range(a.shape[0]):
        if a[i] < 1:
            raise ValueError(f"{fn}: {name} must be positive, got {name}[{i}] = {a[i]}")
    return 0
