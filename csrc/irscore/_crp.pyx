"""Kernels of the Cumulated Relative Position (Angelini et al. 2012; docs/crp.md).

Input per query: its relevance list in rank order (``rel``: judged grade,
-1 not in the qrels, -2 judged with a negative grade), CSR ``offsets`` and the
judged pool per grade (``levels[q, g]``).  Grades >= ``level`` are relevance
degrees, each its own block of the ideal vector (highest grade first); every
other document (judged below ``level``, judged negative, and -- unless
``condensed`` -- not judged) is non-relevant, whose block is [R + 1, ...).
With ``condensed`` the unjudged documents (-1) are removed and the others
renumbered.  A list shorter than ``pad_to`` is padded with non-relevant
documents.

RP(j) = j - min(g) before the block of its grade g, j - max(g) after it, 0 in it;
CRP(j) = RP(1) + ... + RP(j).  One linear pass per query.
"""
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport malloc, free
from libc.math cimport NAN

# output columns of ``scalars``
cdef enum:
    C_LOSS = 0
    C_WORST = 1
    C_RECOVERY = 2
    C_BALANCE = 3
    C_TURN = 4
    N_COLS = 5


cdef int _check(const int32_t[::1] rel, const int64_t[::1] offsets, Py_ssize_t nrows, Py_ssize_t G,
                int64_t level, str fn) except -1:
    """The memory preconditions of every entry point (whatever the caller
    checked): offsets CSR over ``rel`` (nrows + 1 entries from 0,
    non-decreasing, ending within rel); with ``G`` >= 0 (levels given):
    ``level`` >= 0 and every rel value in -2..G-1."""
    cdef Py_ssize_t q, i, nq = offsets.shape[0] - 1
    cdef int32_t r
    if nq < 0 or (nrows >= 0 and nq != nrows):
        raise ValueError(f"{fn}: offsets must have n_queries + 1 entries (levels rows + 1)")
    if offsets[0] != 0 or offsets[nq] > rel.shape[0]:
        raise ValueError(f"{fn}: offsets out of range")
    for q in range(nq):
        if offsets[q + 1] < offsets[q]:
            raise ValueError(f"{fn}: offsets not increasing")
    if G >= 0:
        if level < 0:
            raise ValueError(f"{fn}: level must be >= 0, got {level}")
        for i in range(offsets[nq]):
            r = rel[i]
            if r < -2 or r >= G:
                raise ValueError(f"{fn}: rel[{i}] = {r} is not a grade 0..{G - 1}, -1 or -2")
    return 0


cdef inline int64_t blocks(const int64_t[:, ::1] levels, Py_ssize_t q, int64_t level,
                           int64_t *bmin, int64_t *bmax) noexcept nogil:
    """Ideal blocks [bmin[g], bmax[g]] of the grades >= level; returns R."""
    cdef Py_ssize_t G = levels.shape[1]
    cdef int64_t g = G - 1
    cdef int64_t above = 0
    while g >= level and g >= 0:
        bmin[g] = above + 1
        above += levels[q, g]
        bmax[g] = above
        g -= 1
    return above


cdef inline int64_t rp_at(int64_t j, int32_t g, int64_t level, int64_t R,
                          const int64_t *bmin, const int64_t *bmax) noexcept nogil:
    if g >= level:
        if j < bmin[g]:
            return j - bmin[g]
        if j > bmax[g]:
            return j - bmax[g]
        return 0
    if j <= R:
        return j - (R + 1)
    return 0


def curve_lengths(const int32_t[::1] rel, const int64_t[::1] offsets, bint condensed,
                  int64_t pad_to, int64_t[::1] out):
    """``out[q]`` = length of query q's curve (condensed list, padded)."""
    cdef Py_ssize_t nq = offsets.shape[0] - 1
    cdef Py_ssize_t q, i
    cdef int64_t n
    _check(rel, offsets, -1, -1, 0, "curve_lengths")
    if out.shape[0] != nq:
        raise ValueError("curve_lengths: out must have one entry per query")
    with nogil:
        for q in range(nq):
            if condensed:
                n = 0
                for i in range(offsets[q], offsets[q + 1]):
                    if rel[i] != -1:
                        n += 1
            else:
                n = offsets[q + 1] - offsets[q]
            out[q] = n if n >= pad_to else pad_to


def curves(const int32_t[::1] rel, const int64_t[::1] offsets, const int64_t[:, ::1] levels,
           int64_t level, bint condensed, const int64_t[::1] out_off,
           int64_t[::1] rp, int64_t[::1] crp):
    """RP and CRP of every query into ``rp[out_off[q]:out_off[q+1]]`` (same for
    ``crp``); ``out_off`` comes from ``curve_lengths``."""
    cdef Py_ssize_t nq = offsets.shape[0] - 1
    cdef Py_ssize_t G = levels.shape[1]
    cdef Py_ssize_t S = G if G > 1 else 1
    cdef int64_t *bmin
    cdef int64_t *bmax
    cdef Py_ssize_t q, i, o, end
    cdef int64_t R, j, v, c
    cdef int32_t g
    _check(rel, offsets, levels.shape[0], G, level, "curves")
    if out_off.shape[0] != nq + 1 or crp.shape[0] != rp.shape[0] or out_off[0] != 0 \
            or out_off[nq] > rp.shape[0]:
        raise ValueError("curves: out_off must have n_queries + 1 entries from 0 to at most len(rp) == len(crp)")
    for q in range(nq):
        if out_off[q + 1] < out_off[q]:
            raise ValueError("curves: out_off must be non-decreasing")
        j = offsets[q + 1] - offsets[q]
        if condensed:
            for i in range(offsets[q], offsets[q + 1]):
                if rel[i] == -1:
                    j -= 1
        if out_off[q + 1] - out_off[q] < j:
            raise ValueError(f"curves: out_off gives query {q} fewer than its {j} ranks")
    bmin = <int64_t *> malloc(2 * S * sizeof(int64_t))
    if bmin == NULL:
        raise MemoryError()
    bmax = bmin + S
    try:
        with nogil:
            for q in range(nq):
                R = blocks(levels, q, level, bmin, bmax)
                o = out_off[q]
                end = out_off[q + 1]
                j = 0
                c = 0
                for i in range(offsets[q], offsets[q + 1]):
                    g = rel[i]
                    if g == -1 and condensed:
                        continue
                    j += 1
                    v = rp_at(j, g, level, R, bmin, bmax)
                    c += v
                    rp[o] = v
                    crp[o] = c
                    o += 1
                while o < end:
                    j += 1
                    v = j - (R + 1) if j <= R else 0
                    c += v
                    rp[o] = v
                    crp[o] = c
                    o += 1
    finally:
        free(bmin)


def scalars(const int32_t[::1] rel, const int64_t[::1] offsets, const int64_t[:, ::1] levels,
            int64_t level, bint condensed, int64_t pad_to, bint matters, double[:, ::1] out):
    """Fill ``out[q, :]`` with loss CRP@R, worst loss, recovery rho, balance
    point, turn-around point (NaN where undefined; all NaN when R = 0)."""
    cdef Py_ssize_t nq = offsets.shape[0] - 1
    cdef Py_ssize_t G = levels.shape[1]
    cdef Py_ssize_t S = G if G > 1 else 1
    cdef int64_t *bmin
    cdef int64_t *bmax
    cdef Py_ssize_t q, i, t, end
    cdef int64_t R, j, c, minv, argmin, bal, chg, b
    cdef int32_t g
    cdef bint allzero, prev_pos, pos
    cdef double loss
    _check(rel, offsets, levels.shape[0], G, level, "scalars")
    if out.shape[0] != nq or out.shape[1] < N_COLS:
        raise ValueError("scalars: out must have shape (n_queries, 5)")
    bmin = <int64_t *> malloc(2 * S * sizeof(int64_t))
    if bmin == NULL:
        raise MemoryError()
    bmax = bmin + S
    try:
        with nogil:
            for q in range(nq):
                R = blocks(levels, q, level, bmin, bmax)
                if R == 0:
                    for t in range(N_COLS):
                        out[q, t] = NAN
                    continue
                j = 0
                c = 0
                loss = NAN
                minv = 0
                argmin = 0
                bal = 0
                chg = 0
                allzero = True
                prev_pos = False
                i = offsets[q]
                end = offsets[q + 1]
                # ranks 1..R: the curve may go up and down
                while j < R:
                    if i < end:
                        g = rel[i]
                        i += 1
                        if g == -1 and condensed:
                            continue
                    elif j < pad_to:
                        g = -2          # padding: a non-relevant document
                    else:
                        break
                    j += 1
                    c += rp_at(j, g, level, R, bmin, bmax)
                    if argmin == 0 or c < minv:
                        minv = c
                        argmin = j
                    pos = c > 0
                    if j > 1 and chg == 0 and pos != prev_pos:
                        chg = j - 1
                    prev_pos = pos
                    if c != 0:
                        allzero = False
                if j == R:
                    loss = <double> c
                    if c >= 0:
                        bal = R
                    # after R every RP is >= 0 (non-relevant: 0, relevant: too late), so
                    # the curve is non-decreasing, its minimum is behind, and padding adds
                    # nothing: only the first rank where it reaches 0 (> 0 for MATTERS)
                    # is left to find
                    if (bal == 0 and not matters) or (chg == 0 and matters):
                        while i < end:
                            g = rel[i]
                            i += 1
                            if g < level:
                                if g != -1 or not condensed:
                                    j += 1
                                continue
                            j += 1
                            c += j - bmax[g]
                            if matters:
                                if c > 0:
                                    chg = j - 1
                                    break
                            elif c >= 0:
                                bal = j
                                break
                out[q, C_LOSS] = loss
                out[q, C_WORST] = -0.5 * <double> R * <double> (R + 1)
                out[q, C_TURN] = <double> argmin if argmin > 0 else NAN
                if matters:
                    if j == 0:
                        out[q, C_BALANCE] = NAN
                        out[q, C_RECOVERY] = 0.0
                    elif chg > 0:
                        b = chg if chg > R else R
                        out[q, C_BALANCE] = <double> b
                        out[q, C_RECOVERY] = <double> R / <double> b
                    elif allzero:
                        out[q, C_BALANCE] = <double> R
                        out[q, C_RECOVERY] = 1.0
                    else:
                        out[q, C_BALANCE] = NAN
                        out[q, C_RECOVERY] = 0.0
                else:
                    if bal > 0:
                        out[q, C_BALANCE] = <double> bal
                        out[q, C_RECOVERY] = <double> R / <double> bal
                    else:
                        out[q, C_BALANCE] = NAN
                        out[q, C_RECOVERY] = 0.0
    finally:
        free(bmin)
