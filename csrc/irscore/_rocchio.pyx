"""Kernels of Rocchio's indices (SMART report, 1966; docs/rocchio.md).

Input per query: its relevance list in rank order (``rel``: judged grade,
-1 not in the qrels, -2 judged with a negative grade), the scores in the same
order (equal adjacent scores form a tie group), CSR ``offsets``, the judged
pool per grade (``levels[q, g]`` = number of judged documents of grade g) and
the collection size ``n_docs[q]`` (Rocchio's N).

Ranks: every document of a tie group gets the average of the ranks the group
spans; the N - k documents not retrieved form one tie group at the bottom
(rank (k + 1 + N) / 2).  The relevant documents of a relevance level are
paired, in rank order, with that level's ideal ranks (the positions after all
higher levels); the error is the sum of the positive parts of the differences
(rank - ideal) for R_norm and (ln rank - ln ideal) for P_norm.  The documents
of one level that share a tie group share their average rank and are taken as
one unit: the positive part is taken of their summed difference (so binary
relevance gives exactly Rocchio's sums over average ranks).  Normalisation:
the same error of the worst order (relevant documents at the bottom, in
reverse level order).  With ``graded`` false there is a single level
(grade >= level).

Everything is linear in the run length: the rank order is given, tie groups
are runs of equal scores; the scan looks for the relevant documents and
measures the tie group around each one.
"""
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport malloc, free
from libc.math cimport log, lgamma, NAN

# output columns of ``rocchio``
cdef enum:
    C_RNORM = 0
    C_PNORM = 1
    C_RANK_RECALL = 2
    C_LOG_PRECISION = 3
    C_SCALED_RECALL = 4
    C_ERR = 5
    C_ERR_LN = 6
    C_ERR_MAX = 7
    C_ERR_LN_MAX = 8
    C_SIGNED = 9
    N_COLS = 10


cdef int _check_csr(const int64_t[::1] offsets, Py_ssize_t n, Py_ssize_t nrows, str fn) except -1:
    """offsets: nrows + 1 entries, from 0, non-decreasing, ending within n."""
    cdef Py_ssize_t q, nq = offsets.shape[0] - 1
    if nq < 0:
        raise ValueError(f"{fn}: offsets must have n_queries + 1 entries")
    if nq != nrows:
        raise ValueError(f"{fn}: offsets have {nq} queries, levels {nrows} rows")
    if offsets[0] != 0 or offsets[nq] > n:
        raise ValueError(f"{fn}: offsets out of range")
    for q in range(nq):
        if offsets[q + 1] < offsets[q]:
            raise ValueError(f"{fn}: offsets not increasing")
    return 0


def min_collection_size(const int32_t[::1] rel, const int64_t[::1] offsets,
                        const int64_t[:, ::1] levels, int64_t[::1] out):
    """``out[q]`` = the smallest collection size consistent with query q:
    its retrieved documents plus its judged (grade >= 0) documents not
    retrieved."""
    cdef Py_ssize_t nq = offsets.shape[0] - 1
    cdef Py_ssize_t G = levels.shape[1]
    cdef Py_ssize_t q, i, g
    cdef int64_t judged, judged_ret
    _check_csr(offsets, rel.shape[0], levels.shape[0], "min_collection_size")
    if out.shape[0] != nq:
        raise ValueError("min_collection_size: out must have one entry per query")
    with nogil:
        for q in range(nq):
            judged = 0
            for g in range(G):
                judged += levels[q, g]
            judged_ret = 0
            for i in range(offsets[q], offsets[q + 1]):
                if rel[i] >= 0:
                    judged_ret += 1
            out[q] = (offsets[q + 1] - offsets[q]) + (judged - judged_ret)


cdef inline double _snap(double v) noexcept nogil:
    """Rounding just outside [0, 1] (the error sums are taken along two paths,
    log of ranks and lgamma, so e.g. the worst order gives Pnorm -2.2e-16) is
    put back on the bound.  Larger departures are not rounding and are kept:
    Pnorm is legitimately negative with tied relevant documents (README)."""
    if v < 0.0 and v > -1e-12:
        return 0.0
    if v > 1.0 and v < 1.0 + 1e-12:
        return 1.0
    return v


cdef inline void add_unit(int64_t m, double avg, double log_avg, int64_t before,
                          double *err, double *err_ln, double *sgn) noexcept nogil:
    """m documents of one level at average rank ``avg``, paired with the
    level's ideal ranks before+1 .. before+m."""
    cdef double d, dl
    if m == 1:
        d = avg - <double> (before + 1)
        sgn[0] += d
        if d > 0.0:
            err[0] += d
            err_ln[0] += log_avg - log(<double> (before + 1))
        return
    d = <double> m * avg - (<double> m * <double> before + 0.5 * <double> m * <double> (m + 1))
    sgn[0] += d
    if d > 0.0:
        err[0] += d
    dl = <double> m * log_avg - (lgamma(<double> (before + m + 1)) - lgamma(<double> (before + 1)))
    if dl > 0.0:
        err_ln[0] += dl


def rocchio(const int32_t[::1] rel, const double[::1] scores, const int64_t[::1] offsets,
            const int64_t[:, ::1] levels, const int64_t[::1] n_docs, int64_t level,
            bint graded, bint smart1966, double[:, ::1] out):
    """Fill ``out[q, :]`` with R_norm, P_norm, rank_recall, log_precision,
    scaled_recall of every query (NaN when n0 = 0 or n0 >= N), then the
    errors behind them: E, E_ln (positive parts), E_max, E_ln_max (worst
    order) and the signed error sum(rank - ideal) (NaN when n0 = 0).

    Checked here (ValueError): array shapes agree, offsets run from 0,
    non-decreasing, within ``rel``; ``level >= 0``; every ``rel`` value is
    >= -2 and < ``levels.shape[1]``.  Checked by the façade (meaning only):
    ``n_docs[q]`` >= ``min_collection_size``, ``levels`` >= 0.
    """
    cdef Py_ssize_t nq = offsets.shape[0] - 1
    cdef Py_ssize_t G = levels.shape[1]
    cdef Py_ssize_t S = G if G > 1 else 1
    cdef int64_t *base
    cdef int64_t *total
    cdef int64_t *seen
    cdef int64_t *cnt
    cdef int64_t *touched
    cdef Py_ssize_t q, i, j, a, t, u, lo, hi, nt
    cdef int64_t g, key, n0, N, k, m, above, gmax
    cdef double err, err_ln, err_max, err_ln_max, avg, log_avg, s, d
    cdef double sum_ideal, sum_ln_ideal, rn, sgn
    cdef int64_t nlev
    cdef int32_t r
    _check_csr(offsets, rel.shape[0], levels.shape[0], "rocchio")
    if scores.shape[0] != rel.shape[0] or n_docs.shape[0] != nq or out.shape[0] != nq \
            or out.shape[1] < N_COLS or G < 1:
        raise ValueError("rocchio: inconsistent array shapes")
    if level < 0:
        raise ValueError(f"rocchio: level must be >= 0, got {level}")
    for i in range(offsets[nq] if nq >= 0 else 0):
        r = rel[i]
        if r < -2 or r >= G:
            raise ValueError(f"rocchio: rel[{i}] = {r} is not a grade 0..{G - 1}, -1 or -2")

    base = <int64_t *> malloc(5 * S * sizeof(int64_t))
    if base == NULL:
        raise MemoryError()
    total = base + S
    seen = total + S
    cnt = seen + S
    touched = cnt + S
    try:
        with nogil:
            for q in range(nq):
                lo = offsets[q]
                hi = offsets[q + 1]
                N = n_docs[q]
                k = hi - lo
                # levels: binary -> key 0 holds every grade >= level
                for g in range(S):
                    base[g] = 0
                    total[g] = 0
                    seen[g] = 0
                    cnt[g] = 0
                above = 0
                g = G - 1
                while g >= level and g >= 0:
                    if graded:
                        base[g] = above
                        total[g] = levels[q, g]
                    else:
                        total[0] += levels[q, g]
                    above += levels[q, g]
                    g -= 1
                n0 = above
                if n0 == 0:
                    for t in range(N_COLS):
                        out[q, t] = NAN
                    continue
                err = 0.0
                err_ln = 0.0
                sgn = 0.0
                # retrieved documents: find the relevant ones, then their tie group
                i = lo
                while i < hi:
                    if rel[i] < level:
                        i += 1
                        continue
                    s = scores[i]
                    a = i
                    while a > lo and scores[a - 1] == s:
                        a -= 1
                    j = i + 1
                    while j < hi and scores[j] == s:
                        j += 1
                    # tie group [a, j): ranks a-lo+1 .. j-lo
                    avg = 0.5 * <double> ((a - lo + 1) + (j - lo))
                    if j - a == 1:
                        g = rel[i]
                        key = g if graded else 0
                        add_unit(1, avg, log(avg), base[key] + seen[key], &err, &err_ln, &sgn)
                        seen[key] += 1
                    else:
                        nt = 0
                        for t in range(i, j):
                            g = rel[t]
                            if g >= level:
                                key = g if graded else 0
                                if cnt[key] == 0:
                                    touched[nt] = key
                                    nt += 1
                                cnt[key] += 1
                        log_avg = log(avg)
                        for u in range(nt):
                            key = touched[u]
                            add_unit(cnt[key], avg, log_avg, base[key] + seen[key], &err, &err_ln, &sgn)
                            seen[key] += cnt[key]
                            cnt[key] = 0
                    i = j
                # documents not retrieved: one tie group at the bottom
                avg = 0.5 * (<double> (k + 1) + <double> N)
                log_avg = log(avg)
                err_max = 0.0
                err_ln_max = 0.0
                if graded:
                    gmax = G
                else:
                    gmax = 1
                for g in range(level if graded else 0, gmax):
                    m = total[g] - seen[g]
                    if m > 0:
                        add_unit(m, avg, log_avg, base[g] + seen[g], &err, &err_ln, &sgn)
                    # worst order: this level just above the higher levels, at the bottom
                    nlev = total[g]
                    if nlev > 0:
                        d = <double> (N - 2 * base[g] - nlev)
                        if d > 0.0:
                            err_max += <double> nlev * d
                            err_ln_max += (lgamma(<double> (N - base[g] + 1))
                                           - lgamma(<double> (N - base[g] - nlev + 1))
                                           - lgamma(<double> (base[g] + nlev + 1)) + lgamma(<double> (base[g] + 1)))
                out[q, C_ERR] = err
                out[q, C_ERR_LN] = err_ln
                out[q, C_ERR_MAX] = err_max
                out[q, C_ERR_LN_MAX] = err_ln_max
                out[q, C_SIGNED] = sgn
                if n0 >= N:
                    for t in range(C_ERR):
                        out[q, t] = NAN
                    continue
                sum_ideal = 0.5 * <double> n0 * <double> (n0 + 1)
                sum_ln_ideal = lgamma(<double> (n0 + 1))
                if smart1966:
                    rn = 1.0 - err / (err_max + <double> n0)
                else:
                    rn = 1.0 - err / err_max
                rn = _snap(rn)
                out[q, C_RNORM] = rn
                out[q, C_PNORM] = _snap(1.0 - err_ln / err_ln_max)
                out[q, C_RANK_RECALL] = _snap(sum_ideal / (sum_ideal + err))
                if sum_ln_ideal + err_ln > 0.0:
                    out[q, C_LOG_PRECISION] = _snap(sum_ln_ideal / (sum_ln_ideal + err_ln))
                else:
                    out[q, C_LOG_PRECISION] = 1.0
                out[q, C_SCALED_RECALL] = 1.0 - 5.0 * (1.0 - rn)
    finally:
        free(base)
