"""Kernels of the user-model measures of one ranked list (docs/user_models.md,
docs/web_diversity.md): ERR and nERR (cascade model), the C/W/L measures
INST, INSQ, BPM and SDCG, and the compatibility measure (rank-biased overlap
with the ideal ranking).

Input per query: its relevance list in rank order (``rel``: judged grade,
-1 not in the qrels, -2 judged with a negative grade), CSR ``offsets`` and
the judged pool per grade (``levels[q, g]`` = number of judged documents of
grade g).  Every entry point checks its own memory preconditions (shapes,
offsets, grades against ``levels``) and raises ``ValueError``; each makes
one pass over each ranking, without the GIL.
"""
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport calloc, malloc, free
from libc.math cimport pow, log2, NAN

cdef enum:
    CWL_INST = 0
    CWL_INSQ = 1
    CWL_BPM = 2
    CWL_SDCG = 3
    CWL_NERR8 = 4
    CWL_NERR9 = 5
    CWL_NERR10 = 6
    CWL_NERR11 = 7


#: the most documents a query's levels may count (their row sums)
cdef int64_t MAX_JUDGED = (<int64_t> 1) << 62


cdef int check_lists(const int32_t[::1] rel, const int64_t[::1] offsets,
                     const int64_t[:, ::1] levels, Py_ssize_t n_out, int64_t depth=-1) except -1:
    """The CSR layout, the per-grade pool and the output length agree; every
    grade indexes ``levels`` (with ``depth >= 0``: every grade among the first
    ``depth`` of each list, the only ones the caller reads)."""
    cdef Py_ssize_t nq, q, i, g, hi
    cdef Py_ssize_t G = levels.shape[1]
    cdef int64_t row
    if offsets.shape[0] < 1:
        raise ValueError("offsets must hold at least one entry")
    nq = offsets.shape[0] - 1
    if offsets[0] != 0 or offsets[nq] > rel.shape[0]:
        raise ValueError("offsets must start at 0 and end within rel")
    for q in range(nq):
        if offsets[q + 1] < offsets[q]:
            raise ValueError("offsets must be non-decreasing")
    if levels.shape[0] != nq or G < 1:
        raise ValueError(f"levels must have shape (n_queries={nq}, n_grades >= 1), got "
                         f"({levels.shape[0]}, {G})")
    if n_out != nq:
        raise ValueError(f"out must have n_queries={nq} entries, got {n_out}")
    for q in range(nq):
        row = 0
        for g in range(G):
            if levels[q, g] < 0:
                raise ValueError("levels must be non-negative")
            if levels[q, g] > MAX_JUDGED - row:     # (their sums may not overflow)
                raise ValueError(f"levels of query {q} count more than 2**62 documents")
            row += levels[q, g]
    if depth < 0:
        for i in range(offsets[nq]):
            if rel[i] >= G:
                raise ValueError(f"grade {rel[i]} at position {i} is beyond levels (n_grades={G})")
        return 0
    for q in range(nq):
        hi = offsets[q + 1]
        if hi - offsets[q] > depth:
            hi = offsets[q] + depth
        for i in range(offsets[q], hi):
            if rel[i] >= G:
                raise ValueError(f"grade {rel[i]} at position {i} is beyond levels (n_grades={G})")
    return 0


def err(const int32_t[::1] rel, const int64_t[::1] offsets, const int64_t[:, ::1] levels,
        int64_t cutoff, int64_t max_rel, double[::1] out_err, double[::1] out_nerr):
    """ERR (Chapelle et al. 2009) of the first ``cutoff`` documents (all if
    ``cutoff < 0``): stop probability R(g) = (2**g - 1) / 2**max_rel of grade g
    (grades above ``max_rel`` count as ``max_rel``; unjudged and non-positive
    grades as 0); ERR = sum_r R_r / r * prod_{i<r} (1 - R_i).  ``out_nerr``:
    ERR divided by the ERR of the ideal ranking (the judged grades in
    decreasing order, same cutoff); NaN without a positive grade."""
    cdef Py_ssize_t nq = offsets.shape[0] - 1 if offsets.shape[0] > 0 else 0
    cdef Py_ssize_t G = levels.shape[1]
    cdef Py_ssize_t q, i, lo, hi, pos
    cdef int64_t g, c
    cdef double scale, r, decay, s, ideal
    check_lists(rel, offsets, levels, out_err.shape[0], cutoff)
    if out_nerr.shape[0] != nq:
        raise ValueError(f"out_nerr must have n_queries={nq} entries")
    if max_rel < 1 or max_rel > 1000:
        raise ValueError(f"max_rel must be in 1..1000, got {max_rel}")
    scale = pow(2.0, <double> max_rel)
    with nogil:
        for q in range(nq):
            lo = offsets[q]
            hi = offsets[q + 1]
            if cutoff >= 0 and hi - lo > cutoff:
                hi = lo + cutoff
            s = 0.0
            decay = 1.0
            for i in range(lo, hi):
                g = rel[i]
                if g > 0:
                    if g > max_rel:
                        g = max_rel
                    r = (pow(2.0, <double> g) - 1.0) / scale
                    s += r * decay / <double> (i - lo + 1)
                    decay *= 1.0 - r
            out_err[q] = s
            # ideal: grades in decreasing order, cut at ``cutoff``
            ideal = 0.0
            decay = 1.0
            pos = 0
            g = G - 1
            while g > 0 and (cutoff < 0 or pos < cutoff):
                c = levels[q, g]
                r = (pow(2.0, <double> (g if g < max_rel else max_rel)) - 1.0) / scale
                while c > 0 and (cutoff < 0 or pos < cutoff):
                    pos += 1
                    ideal += r * decay / <double> pos
                    decay *= 1.0 - r
                    c -= 1
                g -= 1
            out_nerr[q] = s / ideal if ideal > 0.0 else NAN


cdef inline double scaled_gain(int32_t code, int64_t min_rel, int64_t max_rel) noexcept nogil:
    """Gain in [0, 1] of a relevance code: unjudged 0, negative grades as 0,
    clipped to [min_rel, max_rel] and scaled (cwl_eval's gains)."""
    cdef int64_t g = code
    if code == -1:
        return 0.0
    if g < 0:
        g = 0
    if g < min_rel:
        g = min_rel
    if g > max_rel:
        g = max_rel
    return <double> (g - min_rel) / <double> (max_rel - min_rel)


cdef void cwl_kernel(const int32_t[::1] rel, const int64_t[::1] offsets, int kind, double T,
                     int64_t cutoff, int64_t min_rel, int64_t max_rel, int64_t depth,
                     double[::1] out) noexcept nogil:
    """Expected utility per item, sum_i W_i g_i, of the C/W/L model over the
    first ``depth`` positions (the ranking padded with zero gains): W_i is
    proportional to prod_{j<i} C_j and sums to 1.  Past the ranking the loop
    ends where the sums stop changing (the same value as running to ``depth``)."""
    cdef Py_ssize_t nq = offsets.shape[0] - 1
    cdef Py_ssize_t q, lo, n
    cdef int64_t i
    cdef double g, cg, P, sumP, sumPG, C, Ti, a
    for q in range(nq):
        lo = offsets[q]
        n = offsets[q + 1] - lo
        cg = 0.0
        P = 1.0
        sumP = 0.0
        sumPG = 0.0
        for i in range(1, depth + 1):
            g = scaled_gain(rel[lo + i - 1], min_rel, max_rel) if i <= n else 0.0
            cg += g
            sumP += P
            sumPG += P * g
            if kind == CWL_INST:
                Ti = T - cg
                a = <double> i + T + Ti
                C = (a - 1.0) / a
                C = C * C
            elif kind == CWL_INSQ:
                a = <double> i + 2.0 * T
                C = (a - 1.0) / a
                C = C * C
            elif kind == CWL_BPM:
                C = 1.0 if (cg < T and i < cutoff) else 0.0
            elif kind == CWL_SDCG:
                C = log2(<double> (i + 1)) / log2(<double> (i + 2)) if i < cutoff else 0.0
            elif kind == CWL_NERR8:
                C = 1.0 - g if i < cutoff else 0.0
            elif kind == CWL_NERR9:
                C = (<double> i / <double> (i + 1)) * (1.0 - g) if i < cutoff else 0.0
            elif kind == CWL_NERR10:
                C = T * (1.0 - g)
            else:   # NERR11
                a = <double> i + 2.0 * T
                C = (a - 1.0) / a
                C = C * C * (1.0 - g)
            P *= C
            if P == 0.0:
                break
            # past the ranking (gain 0) with C <= 1, which stays so (C is constant there or
            # increases towards 1): P never grows, so once adding it leaves sumP unchanged every
            # later position does too, and sumPG gains exact zeros: the value is final
            if i >= n and C <= 1.0 and sumP + P == sumP:
                break
        out[q] = sumPG / sumP


def cwl(const int32_t[::1] rel, const int64_t[::1] offsets, const int64_t[:, ::1] levels,
        str measure, double T, int64_t cutoff, int64_t min_rel, int64_t max_rel, int64_t depth,
        double[::1] out):
    """INST, INSQ (target gain ``T``), BPM (``T`` and ``cutoff``), SDCG
    (``cutoff``), NERR8, NERR9 (``cutoff``), NERR10 (persistence ``T``) or
    NERR11 (``T``) of every query, as cwl_eval computes them: gains scaled to
    [0, 1] by ``min_rel``/``max_rel``, the ranking truncated or padded to
    ``depth`` positions."""
    cdef int kind
    check_lists(rel, offsets, levels, out.shape[0])
    if measure == "INST":
        kind = CWL_INST
    elif measure == "INSQ":
        kind = CWL_INSQ
    elif measure == "BPM":
        kind = CWL_BPM
    elif measure == "SDCG":
        kind = CWL_SDCG
    elif measure == "NERR8":
        kind = CWL_NERR8
    elif measure == "NERR9":
        kind = CWL_NERR9
    elif measure == "NERR10":
        kind = CWL_NERR10
    elif measure == "NERR11":
        kind = CWL_NERR11
    else:
        raise ValueError(f"unknown C/W/L measure {measure!r}")
    if not (T > 0.0 and T < 1e300):
        raise ValueError(f"T must be positive and finite, got {T}")
    if max_rel <= min_rel:
        raise ValueError(f"max_rel ({max_rel}) must exceed min_rel ({min_rel})")
    if depth < 1:
        raise ValueError(f"depth must be positive, got {depth}")
    if kind in (CWL_BPM, CWL_SDCG, CWL_NERR8, CWL_NERR9) and cutoff < 1:
        raise ValueError(f"{measure} needs a positive cutoff, got {cutoff}")
    with nogil:
        cwl_kernel(rel, offsets, kind, T, cutoff, min_rel, max_rel, depth, out)


def compat(const int32_t[::1] rel, const int64_t[::1] offsets, const int64_t[:, ::1] levels,
           double p, bint normalize, double[::1] out):
    """Compatibility (Clarke, Vtyurina & Smucker 2020): rank-biased overlap,
    persistence ``p``, of the ranking with the ideal ranking (every document
    of positive grade, by grade descending; within a grade the retrieved
    documents in ranking order, then the others), to depth max(n, R);
    ``normalize`` divides by the ideal's overlap with itself."""
    cdef Py_ssize_t nq = offsets.shape[0] - 1 if offsets.shape[0] > 0 else 0
    cdef Py_ssize_t G = levels.shape[1]
    cdef Py_ssize_t q, i, lo, n, g, d
    cdef int64_t R, t, m, depth, maxdepth = 1, acc, ov, bad = 0
    cdef int64_t *start
    cdef int64_t *seen
    cdef int64_t *cnt
    cdef double w, score, norm, best
    check_lists(rel, offsets, levels, out.shape[0])
    if not (p > 0.0 and p < 1.0):
        raise ValueError(f"p must be in (0, 1), got {p}")
    for q in range(nq):
        R = 0
        for g in range(1, G):
            R += levels[q, g]           # (check_lists bounds the sum)
        n = offsets[q + 1] - offsets[q]
        depth = n if n > R else R
        if depth > maxdepth:
            maxdepth = depth
    start = <int64_t *> malloc(2 * G * sizeof(int64_t))
    cnt = <int64_t *> calloc(maxdepth + 1, sizeof(int64_t))
    if start == NULL or cnt == NULL:
        free(start)
        free(cnt)
        raise MemoryError()
    seen = start + G
    try:
        with nogil:
            for q in range(nq):
                lo = offsets[q]
                n = offsets[q + 1] - lo
                acc = 0
                for g in range(G - 1, 0, -1):     # ideal positions of each grade start here
                    start[g] = acc
                    seen[g] = 0
                    acc += levels[q, g]
                R = acc
                depth = n if n > R else R
                for d in range(depth + 1):
                    cnt[d] = 0
                for i in range(n):
                    g = rel[lo + i]
                    if g >= 1:
                        if seen[g] >= levels[q, g]:
                            bad = 1
                            break
                        t = start[g] + seen[g]
                        seen[g] += 1
                        m = i if i > t else t      # 0-based depth where both prefixes hold it
                        cnt[m] += 1
                if bad:
                    break
                w = 1.0
                ov = 0
                score = 0.0
                norm = 0.0
                best = 0.0
                for d in range(1, depth + 1):
                    ov += cnt[d - 1]
                    score += w * <double> ov / <double> d
                    best += w * <double> (d if d < R else R) / <double> d
                    norm += w
                    w *= p
                if depth == 0:
                    out[q] = 0.0
                elif normalize and best > 0.0:
                    out[q] = score / best
                else:
                    out[q] = score / norm
    finally:
        free(start)
        free(cnt)
    if bad:
        raise ValueError("a ranking holds more documents of some grade than levels counts")
