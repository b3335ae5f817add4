# Native helpers shared by the kernels: cimported (``from irscore._common
# cimport ...``), all inline, nogil, no Python objects; no module of its own.
#
# - gain and discount of the DCG family (``_ranking``'s dcg_cut, ``_batch``);
#   their kind codes, defined here once and exported to Python by the kernels
#   that take them (``_ranking.GAIN_KINDS``/``DISCOUNT_KINDS``, same in ``_batch``);
# - a Fenwick tree (binary indexed tree) over int64 or double weights
#   (``_xml``'s coverage sums and HiXEval values, ``_organization``'s level sums).
from libc.stdint cimport int64_t
from libc.math cimport log2, pow

cdef enum:
    GAIN_LINEAR = 0        # gain = grade
    GAIN_EXP = 1           # gain = 2**grade - 1
    DISCOUNT_LOG2 = 0      # discount of rank r = log2(r + 1)
    DISCOUNT_JARVELIN = 1  # discount of rank r = log2(max(r, 2)) (Jarvelin & Kekalainen)


cdef inline double gain_of(double grade, int gain_kind) noexcept nogil:
    """Gain of a grade; grades <= 0 gain nothing."""
    if grade <= 0:
        return 0.0
    if gain_kind == GAIN_EXP:
        return pow(2.0, grade) - 1.0
    return grade


cdef inline double disc_of(int64_t rank, int disc_kind) noexcept nogil:
    """Discount of the 1-based ``rank``."""
    if disc_kind == DISCOUNT_JARVELIN:
        return log2(<double> (rank if rank > 2 else 2))
    return log2(<double> (rank + 1))


ctypedef fused weight_t:
    int64_t
    double


cdef inline void fenwick_add(weight_t *tree, Py_ssize_t m, Py_ssize_t i, weight_t v) noexcept nogil:
    """Add ``v`` at position ``i`` (0-based) of a Fenwick tree of ``m`` entries
    (``tree[0..m-1]``)."""
    i += 1
    while i <= m:
        tree[i - 1] += v
        i += i & (-i)


cdef inline weight_t fenwick_prefix(const weight_t *tree, Py_ssize_t i) noexcept nogil:
    """Sum of positions ``[0, i)``."""
    cdef weight_t s = 0
    while i > 0:
        s += tree[i - 1]
        i -= i & (-i)
    return s
