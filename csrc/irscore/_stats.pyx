"""Resampling kernels of the significance tests (``irscore.stats``).

Every entry point takes its samples in CSR form: ``values[offsets[p]:offsets[p + 1]]``
is sample ``p`` (one system pair's per-query differences, NaNs already dropped),
and processes all samples in one call without the GIL.  Random numbers come from
xoshiro256** (Blackman & Vigna) seeded by splitmix64 from ``(seed, p)``: sample
``p`` draws from its own stream, so a result does not depend on which other
samples are in the call, and a seed reproduces it on every platform.

- ``sign_flip``: Fisher's paired randomization test.  The null distribution of
  the sum of differences under independent random signs; exact (all 2^n sign
  vectors, visited in Gray-code order, one update per step) when
  ``2**n <= n_resamples``, else Monte Carlo with ``n_resamples`` sign vectors
  drawn 64 signs per random word and summed through per-byte lookup tables
  (eight queries per table look-up).  p = count / 2^n (exact) or
  (count + 1) / (n_resamples + 1) (Monte Carlo), count = number of sign vectors
  whose |sum| >= |observed sum| - tol, tol = 1e-11 * sum |d_i| (float ties).
- ``bootstrap``: paired bootstrap; per resample the mean of n differences drawn
  with replacement and the studentised statistic of the centred differences.
  ``bootstrap_count`` draws the same resamples and keeps only the means and,
  per sample, the number of |t*| >= a threshold (the p-value's count): half the
  memory, and no (samples x resamples) array of t*.
- ``tukey_range``: randomised Tukey HSD (Carterette 2012): per resample, permute
  each topic's scores over the systems, record max - min of the system means.

Every loop polls for SIGINT (``irs_interrupt.h``) about every 2^18 elementary
steps (well under 10 ms) and, when one arrived, stops, frees its buffers and
raises KeyboardInterrupt (or what the Python handler raises); outputs are then
partly written and must not be used.
"""
from libc.stdint cimport int64_t, uint64_t, uint32_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy
from libc.math cimport fabs, sqrt, NAN, INFINITY

from irscore._interrupt cimport irs_intr_begin, irs_intr_end, irs_intr_pending, irs_intr_raise

cdef extern from *:
    """
    static inline uint64_t irs_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    static inline int irs_ctz64(uint64_t x) {
    #if defined(__GNUC__) || defined(__clang__)
        return __builtin_ctzll(x);
    #else
        int n = 0; while (!(x & 1)) { x >>= 1; n++; } return n;
    #endif
    }
    """
    uint64_t irs_rotl(uint64_t x, int k) nogil
    int irs_ctz64(uint64_t x) nogil

# largest number of queries whose 2^n sign vectors are enumerated
cdef enum:
    MAX_EXACT = 40
    RECOMPUTE_EVERY = 4096
    POLL_WORK = 1 << 18     # elementary steps between two polls for SIGINT
# the most resamples any test draws (10**9: seconds of work per pair; more would
# run for hours in a loop that cannot be interrupted)
cdef int64_t MAX_RESAMPLES = 1000000000
cdef double TIE_RTOL = 1e-11

cdef struct Rng:
    uint64_t s0, s1, s2, s3


cdef inline uint64_t splitmix64(uint64_t *x) noexcept nogil:
    x[0] += <uint64_t>0x9E3779B97F4A7C15
    cdef uint64_t z = x[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef inline void rng_seed(Rng *r, uint64_t seed, uint64_t stream) noexcept nogil:
    cdef uint64_t x = seed
    x = splitmix64(&x) ^ (stream * <uint64_t>0xD1B54A32D192ED03)
    r.s0 = splitmix64(&x)
    r.s1 = splitmix64(&x)
    r.s2 = splitmix64(&x)
    r.s3 = splitmix64(&x)


cdef inline uint64_t rng_next(Rng *r) noexcept nogil:
    cdef uint64_t result = irs_rotl(r.s1 * 5, 7) * 9
    cdef uint64_t t = r.s1 << 17
    r.s2 ^= r.s0
    r.s3 ^= r.s1
    r.s1 ^= r.s2
    r.s0 ^= r.s3
    r.s2 ^= t
    r.s3 = irs_rotl(r.s3, 45)
    return result


cdef inline uint32_t rng_below(Rng *r, uint32_t n) noexcept nogil:
    """Uniform integer in [0, n), n >= 1 (Lemire's multiply-shift, unbiased)."""
    cdef uint64_t m = (rng_next(r) >> 32) * n
    cdef uint32_t low = <uint32_t>m
    cdef uint32_t thresh
    if low < n:
        thresh = <uint32_t>(-n) % n
        while low < thresh:
            m = (rng_next(r) >> 32) * n
            low = <uint32_t>m
    return <uint32_t>(m >> 32)


cdef int check_csr(const double[::1] values, const int64_t[::1] offsets) except -1:
    cdef Py_ssize_t P = offsets.shape[0] - 1
    cdef Py_ssize_t p
    if P < 0:
        raise ValueError("offsets must have at least one element")
    if offsets[0] != 0:
        raise ValueError("offsets[0] must be 0")
    for p in range(P):
        if offsets[p + 1] < offsets[p]:
            raise ValueError("offsets must be non-decreasing")
        if offsets[p + 1] - offsets[p] > 0xFFFFFFFF:
            raise ValueError("a sample has more than 2^32 - 1 values")
    if offsets[P] != values.shape[0]:
        raise ValueError(f"offsets[-1] = {offsets[P]} but values has {values.shape[0]} elements")
    # a NaN or infinite value (or a sum of |values| that overflows) would make every
    # comparison with the observed statistic false: p = 0 or 1/(B + 1), silently
    cdef double tot
    cdef Py_ssize_t i
    for p in range(P):
        tot = 0.0
        for i in range(offsets[p], offsets[p + 1]):
            tot += fabs(values[i])
        if not (tot - tot == 0.0):
            raise ValueError(f"sample {p} holds a value that is not finite, or values whose sum overflows")
    return 0


cdef int check_resamples(int64_t n_resamples) except -1:
    if n_resamples < 1 or n_resamples > MAX_RESAMPLES:
        raise ValueError(f"n_resamples must be in 1 .. {MAX_RESAMPLES:,}, got {n_resamples}")
    return 0


cdef inline uint64_t sample_stream(const double *d, int64_t n) noexcept nogil:
    """The random stream of a sample: a hash of its values' bits (so a pair's
    result depends on its differences, the seed and B, not on its place in the call)."""
    cdef uint64_t h = <uint64_t> n, bits
    cdef int64_t i
    for i in range(n):
        memcpy(&bits, &d[i], 8)
        h ^= bits
        h = splitmix64(&h)
    return h


cdef double exact_flip(const double *d, int64_t n, double obs, double tol, int *sg, unsigned long since,
                       int *stop) noexcept nogil:
    """Share of the 2^n sign vectors with |sum| >= |obs| - tol (Gray-code walk);
    sets ``*stop`` and returns early when a SIGINT is pending."""
    cdef uint64_t total = (<uint64_t>1) << n
    cdef uint64_t k, count = 0
    cdef int64_t i, b
    cdef double s = obs
    cdef double lim = fabs(obs) - tol
    for i in range(n):
        sg[i] = 1
    if fabs(s) >= lim:
        count += 1
    for k in range(1, total):
        b = irs_ctz64(k)
        sg[b] = -sg[b]
        s += 2.0 * sg[b] * d[b]
        if (k & (RECOMPUTE_EVERY - 1)) == 0:  # bound the drift of the running sum
            s = 0.0
            for i in range(n):
                s += sg[i] * d[i]
            if (k & (POLL_WORK - 1)) == 0 and irs_intr_pending(since):
                stop[0] = 1
                return NAN
        if fabs(s) >= lim:
            count += 1
    return <double>count / <double>total


cdef double mc_flip(const double *d, int64_t n, double obs, double tol, int64_t B, Rng *r,
                    double *table, unsigned long since, int *stop) noexcept nogil:
    """(count + 1) / (B + 1) over B random sign vectors; table: ceil(n/8) * 256 doubles.
    Sets ``*stop`` and returns early when a SIGINT is pending."""
    cdef int64_t nb = (n + 7) // 8
    cdef int64_t blk, j, m, idx, _it
    cdef double x, neg, s
    cdef double lim = fabs(obs) - tol
    cdef uint64_t word = 0
    cdef int64_t count = 0
    cdef int64_t work = 0
    cdef int avail
    # table[blk*256 + m] = sum of d[8*blk + j] over the set bits j of m (0 past n)
    for blk in range(nb):
        table[blk * 256] = 0.0
        for m in range(1, 256):
            j = irs_ctz64(<uint64_t>m)
            idx = 8 * blk + j
            x = d[idx] if idx < n else 0.0
            table[blk * 256 + m] = table[blk * 256 + (m & (m - 1))] + x
    for _it in range(B):
        neg = 0.0
        avail = 0
        for blk in range(nb):
            if avail == 0:
                word = rng_next(r)
                avail = 8
            neg += table[blk * 256 + <int64_t>(word & 255)]
            word >>= 8
            avail -= 1
        s = obs - 2.0 * neg
        if fabs(s) >= lim:
            count += 1
        work += nb + 1
        if work >= POLL_WORK:
            work = 0
            if irs_intr_pending(since):
                stop[0] = 1
                return NAN
    return (count + 1.0) / (B + 1.0)


def sign_flip(const double[::1] values, const int64_t[::1] offsets, int64_t n_resamples, uint64_t seed,
              double[::1] out_p, signed char[::1] out_exact):
    """Two-sided p-value of the paired randomization test of each sample
    (``out_p[p]``; NaN for an empty sample) and whether it was exact."""
    check_csr(values, offsets)
    cdef Py_ssize_t P = offsets.shape[0] - 1
    if out_p.shape[0] != P or out_exact.shape[0] != P:
        raise ValueError("out_p and out_exact need one element per sample")
    check_resamples(n_resamples)
    cdef int64_t maxn = 0
    cdef Py_ssize_t p
    for p in range(P):
        if offsets[p + 1] - offsets[p] > maxn:
            maxn = offsets[p + 1] - offsets[p]
    cdef double *table = <double *>malloc(((maxn + 7) // 8 + 1) * 256 * sizeof(double))
    cdef int *sg = <int *>malloc((min(maxn, MAX_EXACT) + 1) * sizeof(int))
    if table == NULL or sg == NULL:
        free(table)
        free(sg)
        raise MemoryError()
    cdef int64_t n, i
    cdef double obs, tol
    cdef const double *d
    cdef Rng r
    cdef int stop = 0
    cdef unsigned long since = irs_intr_begin()
    try:
        with nogil:
            for p in range(P):
                n = offsets[p + 1] - offsets[p]
                out_exact[p] = 0
                if n == 0:
                    out_p[p] = NAN
                    continue
                d = &values[offsets[p]]
                obs = 0.0
                tol = 0.0
                for i in range(n):
                    obs += d[i]
                    tol += fabs(d[i])
                tol *= TIE_RTOL
                if n <= MAX_EXACT and ((<uint64_t>1) << n) <= <uint64_t>n_resamples:
                    out_exact[p] = 1
                    out_p[p] = exact_flip(d, n, obs, tol, sg, since, &stop)
                else:
                    rng_seed(&r, seed, sample_stream(d, n))
                    out_p[p] = mc_flip(d, n, obs, tol, n_resamples, &r, table, since, &stop)
                if stop:
                    break
    finally:
        irs_intr_end()
        free(table)
        free(sg)
    if stop:
        irs_intr_raise()


cdef void boot_sample(const double *d, int64_t n, int64_t B, Rng *r, double *out_mean, double *out_t,
                      double thr, int64_t *count, unsigned long since, int *stop) noexcept nogil:
    """B resamples of one sample: the means into ``out_mean``; the studentised
    statistics into ``out_t`` when it is not NULL, else ``count[0]`` = the number
    with |t*| >= ``thr`` (a NaN t* never counts)."""
    cdef double mean = 0.0, ztol = 0.0, z, zm, m2, delta, t
    cdef int64_t i, b, work = 0, cnt = 0
    for i in range(n):
        mean += d[i]
    mean /= n
    # |z| this small is the mean itself, to rounding (0.2 - mean(0.1, 0.2, 0.3)
    # is 2.8e-17, not 0): every draw of it is a mean of 0, not +-inf
    for i in range(n):
        ztol += fabs(d[i] - mean)
    ztol *= TIE_RTOL
    for b in range(B):
        # Welford's running mean and sum of squared deviations: no
        # cancellation, and exactly 0 when every draw is the same value
        zm = 0.0
        m2 = 0.0
        for i in range(n):
            z = d[rng_below(r, <uint32_t>n)] - mean
            delta = z - zm
            zm += delta / (i + 1)
            m2 += delta * (z - zm)
        out_mean[b] = mean + zm
        if n < 2:
            t = NAN
        elif m2 > 0.0:
            t = zm / sqrt(m2 / (n - 1) / n)
        elif fabs(zm) > ztol:
            t = INFINITY if zm > 0.0 else -INFINITY    # no spread, mean not 0
        else:
            t = NAN       # 0 / 0 (a value equal to the mean, to rounding)
        if out_t != NULL:
            out_t[b] = t
        elif fabs(t) >= thr:
            cnt += 1
        work += n + 1
        if work >= POLL_WORK:
            work = 0
            if irs_intr_pending(since):
                stop[0] = 1
                return
    if out_t == NULL:
        count[0] = cnt


cdef int boot_all(const double[::1] values, const int64_t[::1] offsets, int64_t B, uint64_t seed,
                  double[:, ::1] out_mean, double[:, ::1] out_t, const double[::1] thr,
                  int64_t[::1] out_count) except -1:
    cdef Py_ssize_t P = offsets.shape[0] - 1
    cdef Py_ssize_t p
    cdef int64_t n, b
    cdef Rng r
    cdef int stop = 0
    cdef bint keep_t = out_count is None
    cdef unsigned long since = irs_intr_begin()
    try:
        with nogil:
            for p in range(P):
                n = offsets[p + 1] - offsets[p]
                if n == 0:
                    for b in range(B):
                        out_mean[p, b] = NAN
                        if keep_t:
                            out_t[p, b] = NAN
                    if not keep_t:
                        out_count[p] = 0
                    continue
                rng_seed(&r, seed, sample_stream(&values[offsets[p]], n))
                if keep_t:
                    boot_sample(&values[offsets[p]], n, B, &r, &out_mean[p, 0], &out_t[p, 0], 0.0, NULL,
                                since, &stop)
                else:
                    boot_sample(&values[offsets[p]], n, B, &r, &out_mean[p, 0], NULL, thr[p], &out_count[p],
                                since, &stop)
                if stop:
                    break
    finally:
        irs_intr_end()
    if stop:
        irs_intr_raise()
    return 0


def bootstrap(const double[::1] values, const int64_t[::1] offsets, int64_t n_resamples, uint64_t seed,
              double[:, ::1] out_mean, double[:, ::1] out_t):
    """Paired bootstrap of each sample: ``out_mean[p, b]`` the mean of resample b;
    ``out_t[p, b]`` the studentised statistic mean(z*) / (sd(z*) / sqrt(n)) of the
    resampled centred values z = d - mean(d): +-inf when every draw is the same
    non-zero value (sd 0), NaN when it is 0 or n < 2."""
    check_csr(values, offsets)
    cdef Py_ssize_t P = offsets.shape[0] - 1
    check_resamples(n_resamples)
    if out_mean.shape[0] != P or out_t.shape[0] != P or out_mean.shape[1] != n_resamples \
            or out_t.shape[1] != n_resamples:
        raise ValueError("out_mean and out_t must have shape (n_samples, n_resamples)")
    boot_all(values, offsets, n_resamples, seed, out_mean, out_t, None, None)


def bootstrap_count(const double[::1] values, const int64_t[::1] offsets, int64_t n_resamples, uint64_t seed,
                    const double[::1] threshold, double[:, ::1] out_mean, int64_t[::1] out_count):
    """The resamples of :func:`bootstrap` (same seed, same means), keeping the
    means (``out_mean[p, b]``) and, instead of every t*, ``out_count[p]`` = the
    number of resamples with |t*| >= ``threshold[p]`` (NaN t* never count)."""
    check_csr(values, offsets)
    cdef Py_ssize_t P = offsets.shape[0] - 1
    check_resamples(n_resamples)
    if out_mean.shape[0] != P or out_mean.shape[1] != n_resamples:
        raise ValueError("out_mean must have shape (n_samples, n_resamples)")
    if threshold.shape[0] != P or out_count.shape[0] != P:
        raise ValueError("threshold and out_count need one element per sample")
    boot_all(values, offsets, n_resamples, seed, out_mean, None, threshold, out_count)


def tukey_range(const double[:, ::1] scores, int64_t n_resamples, uint64_t seed, double[::1] out_range):
    """Randomised Tukey HSD null distribution: ``scores[t, s]`` (topics x systems);
    ``out_range[b]`` = max - min of the system means after permuting every topic's
    row at random."""
    cdef Py_ssize_t T = scores.shape[0]
    cdef Py_ssize_t K = scores.shape[1]
    check_resamples(n_resamples)
    if out_range.shape[0] != n_resamples:
        raise ValueError("out_range must have n_resamples elements")
    if K < 2 or T < 1:
        raise ValueError("scores must have at least one topic and two systems")
    if K > 0xFFFFFFF:
        raise ValueError("too many systems")
    cdef Py_ssize_t ti, si
    for ti in range(T):
        for si in range(K):
            if not (scores[ti, si] - scores[ti, si] == 0.0) or fabs(scores[ti, si]) > 1e300:
                raise ValueError(f"scores[{ti}, {si}] is not finite (or too large to sum)")
    cdef double *sums = <double *>malloc(K * sizeof(double))
    cdef int64_t *perm = <int64_t *>malloc(K * sizeof(int64_t))
    if sums == NULL or perm == NULL:
        free(sums)
        free(perm)
        raise MemoryError()
    cdef Rng r
    cdef int64_t b, t, j, k, tmp, work = 0
    cdef double lo, hi
    cdef int stop = 0
    cdef unsigned long since = irs_intr_begin()
    try:
        with nogil:
            rng_seed(&r, seed, 0)
            for j in range(K):
                perm[j] = j
            for b in range(n_resamples):
                for j in range(K):
                    sums[j] = 0.0
                for t in range(T):
                    for j in range(K - 1, 0, -1):  # Fisher-Yates
                        k = rng_below(&r, <uint32_t>(j + 1))
                        tmp = perm[j]
                        perm[j] = perm[k]
                        perm[k] = tmp
                    for j in range(K):
                        sums[perm[j]] += scores[t, j]
                lo = sums[0]
                hi = sums[0]
                for j in range(1, K):
                    if sums[j] < lo:
                        lo = sums[j]
                    if sums[j] > hi:
                        hi = sums[j]
                out_range[b] = (hi - lo) / T
                work += T * K + 1
                if work >= POLL_WORK:
                    work = 0
                    if irs_intr_pending(since):
                        stop = 1
                        break
    finally:
        irs_intr_end()
        free(sums)
        free(perm)
    if stop:
        irs_intr_raise()
