/* Rank by counting (irscore._batch): how many keys lie below each of a few
 * query keys, with the widest vector unit the CPU has.  static inline, no state
 * but the detected level.
 *
 * bc_count_lt(keys, n, x, m): x[u] <- #{j < n : keys[j] < x[u]} for u < m
 * (in place: x holds the query keys on entry, the counts on return).  This is
 * O(m n) comparisons, which a vector unit does 8 at a time (AVX-512; with
 * AVX2, bc_count_lt_pos compares 8 of the row's own keys by their 32-bit
 * codes): a row of 100 candidates of which 40 can count is ranked in a
 * fraction of the time its sort takes.  Every level gives the same integers
 * (plain unsigned comparisons, counted exactly); tests compare them.
 *
 * The level is chosen once, at run time (bc_detect), from what this CPU
 * supports: the code for every level is compiled (function target attributes,
 * GCC and Clang on x86-64), so a wheel built for the baseline x86-64 still uses
 * AVX-512 where it exists.  Elsewhere only the scalar loop is built.
 * bc_set_level lowers the level (tests compare the levels).
 */
#ifndef IRS_BATCH_COUNT_H
#define IRS_BATCH_COUNT_H

#include <stdint.h>

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define BC_X86 1
#include <immintrin.h>
#else
#define BC_X86 0
#endif

#define BC_SCALAR 0
#define BC_AVX2 1
#define BC_AVX512 2
#define BC_AVX512_VP2I 3    /* AVX-512 with VP2INTERSECT: 32-bit codes where the row has no tie */

/* VP2INTERSECT is known to GCC from 10 and to Clang from 12 */
#if BC_X86 && ((defined(__clang__) && __clang_major__ >= 12) || (!defined(__clang__) && __GNUC__ >= 10))
#define BC_HAVE_VP2I 1
#else
#define BC_HAVE_VP2I 0
#endif

static int bc_level = -1;          /* -1: not detected yet */
static int bc_max_level = -1;

/* The level for a CPU with these features (1/0); what bc_detect asks of the CPU,
 * apart so that tests can check the choice for CPUs other than theirs.  The
 * AVX-512 level needs DQ and VL besides F (the row loader's conversions and
 * 256-bit masked compares); VP2INTERSECT adds CD (VPCONFLICTD). */
static inline int bc_level_for(int avx512f, int avx512dq, int avx512vl, int avx512cd,
                               int avx512vp2intersect, int avx2, int popcnt)
{
    int lv = BC_SCALAR;
    if (avx512f && avx512dq && avx512vl && popcnt) {
        lv = BC_AVX512;
        if (BC_HAVE_VP2I && avx512cd && avx512vp2intersect)
            lv = BC_AVX512_VP2I;
    } else if (avx2 && popcnt) {
        lv = BC_AVX2;
    }
    return lv;
}

static inline int bc_detect(void)
{
#if BC_X86
    __builtin_cpu_init();
    return bc_level_for(__builtin_cpu_supports("avx512f") != 0, __builtin_cpu_supports("avx512dq") != 0,
                        __builtin_cpu_supports("avx512vl") != 0, __builtin_cpu_supports("avx512cd") != 0,
#if BC_HAVE_VP2I
                        __builtin_cpu_supports("avx512vp2intersect") != 0,
#else
                        0,
#endif
                        __builtin_cpu_supports("avx2") != 0, __builtin_cpu_supports("popcnt") != 0);
#else
    return BC_SCALAR;
#endif
}

/* the level in use (detected on the first call) */
static inline int bc_get_level(void)
{
    if (bc_level < 0) {
        bc_max_level = bc_detect();
        bc_level = bc_max_level;
    }
    return bc_level;
}

/* the highest level this CPU supports */
static inline int bc_get_max_level(void)
{
    bc_get_level();
    return bc_max_level;
}

/* use level lv, at most the highest supported one; returns the level now in use */
static inline int bc_set_level(int lv)
{
    bc_get_level();
    if (lv < BC_SCALAR)
        lv = BC_SCALAR;
    bc_level = lv < bc_max_level ? lv : bc_max_level;
    return bc_level;
}

static inline void bc_count_lt_scalar(const uint64_t *keys, int64_t n, uint64_t *x, int64_t m)
{
    int64_t u, j;
    for (u = 0; u < m; u++) {
        uint64_t v = x[u];
        int64_t c = 0;
        for (j = 0; j < n; j++)
            c += keys[j] < v;
        x[u] = (uint64_t)c;
    }
}

#if BC_X86
/* the sum of the eight lanes (no AVX-512 reduction intrinsics: older compilers lack them) */
__attribute__((target("avx512f")))
static inline int64_t bc_sum8(__m512i v)
{
    __m256i h = _mm256_add_epi64(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    __m128i q = _mm_add_epi64(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    return (int64_t)_mm_cvtsi128_si64(q) + (int64_t)_mm_extract_epi64(q, 1);
}

/* four query keys per pass, each with a vector of eight counters: a block of
   keys is loaded once for the four, and a comparison costs a masked add */
__attribute__((target("avx512f,popcnt")))
static void bc_count_lt_avx512(const uint64_t *keys, int64_t n, uint64_t *x, int64_t m)
{
    int64_t u = 0, j;
    int64_t nf = n & ~(int64_t)7;
    __mmask8 lm = (__mmask8)((1u << (n - nf)) - 1u);     /* the tail's lanes */
    const __m512i one = _mm512_set1_epi64(1);
    for (; u + 4 <= m; u += 4) {
        __m512i a = _mm512_set1_epi64((long long)x[u]);
        __m512i b = _mm512_set1_epi64((long long)x[u + 1]);
        __m512i c = _mm512_set1_epi64((long long)x[u + 2]);
        __m512i d = _mm512_set1_epi64((long long)x[u + 3]);
        __m512i ca = _mm512_setzero_si512(), cb = ca, cc = ca, cd = ca;
        for (j = 0; j < nf; j += 8) {
            __m512i k = _mm512_loadu_si512((const void *)(keys + j));
            ca = _mm512_mask_add_epi64(ca, _mm512_cmplt_epu64_mask(k, a), ca, one);
            cb = _mm512_mask_add_epi64(cb, _mm512_cmplt_epu64_mask(k, b), cb, one);
            cc = _mm512_mask_add_epi64(cc, _mm512_cmplt_epu64_mask(k, c), cc, one);
            cd = _mm512_mask_add_epi64(cd, _mm512_cmplt_epu64_mask(k, d), cd, one);
        }
        if (lm) {
            __m512i k = _mm512_maskz_loadu_epi64(lm, (const void *)(keys + nf));
            ca = _mm512_mask_add_epi64(ca, _mm512_mask_cmplt_epu64_mask(lm, k, a), ca, one);
            cb = _mm512_mask_add_epi64(cb, _mm512_mask_cmplt_epu64_mask(lm, k, b), cb, one);
            cc = _mm512_mask_add_epi64(cc, _mm512_mask_cmplt_epu64_mask(lm, k, c), cc, one);
            cd = _mm512_mask_add_epi64(cd, _mm512_mask_cmplt_epu64_mask(lm, k, d), cd, one);
        }
        x[u] = (uint64_t)bc_sum8(ca);
        x[u + 1] = (uint64_t)bc_sum8(cb);
        x[u + 2] = (uint64_t)bc_sum8(cc);
        x[u + 3] = (uint64_t)bc_sum8(cd);
    }
    for (; u < m; u++) {
        __m512i a = _mm512_set1_epi64((long long)x[u]);
        int64_t ca = 0;
        for (j = 0; j < nf; j += 8) {
            __m512i k = _mm512_loadu_si512((const void *)(keys + j));
            ca += __builtin_popcount((unsigned)_mm512_cmplt_epu64_mask(k, a));
        }
        if (lm) {
            __m512i k = _mm512_maskz_loadu_epi64(lm, (const void *)(keys + nf));
            ca += __builtin_popcount((unsigned)_mm512_mask_cmplt_epu64_mask(lm, k, a));
        }
        x[u] = (uint64_t)ca;
    }
}

/* AVX2 has only signed 64-bit comparisons: both sides with the sign bit flipped */
__attribute__((target("avx2,popcnt")))
static void bc_count_lt_avx2(const uint64_t *keys, int64_t n, uint64_t *x, int64_t m)
{
    int64_t u = 0, j;
    int64_t nf = n & ~(int64_t)3;
    const __m256i sg = _mm256_set1_epi64x((long long)0x8000000000000000ull);
    for (; u < m; u++) {
        __m256i a = _mm256_xor_si256(_mm256_set1_epi64x((long long)x[u]), sg);
        __m256i acc = _mm256_setzero_si256();
        int64_t c;
        uint64_t v = x[u];
        long long t[4];
        for (j = 0; j < nf; j += 4) {
            __m256i k = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(keys + j)), sg);
            acc = _mm256_sub_epi64(acc, _mm256_cmpgt_epi64(a, k));     /* keys[j] < v: -1 */
        }
        _mm256_storeu_si256((__m256i *)t, acc);
        c = (int64_t)(t[0] + t[1] + t[2] + t[3]);
        for (; j < n; j++)
            c += keys[j] < v;
        x[u] = (uint64_t)c;
    }
}
#endif

static inline void bc_count_lt(const uint64_t *keys, int64_t n, uint64_t *x, int64_t m)
{
#if BC_X86
    int lv = bc_get_level();
    if (lv >= BC_AVX512) {
        bc_count_lt_avx512(keys, n, x, m);
        return;
    }
    if (lv == BC_AVX2) {
        bc_count_lt_avx2(keys, n, x, m);
        return;
    }
#endif
    bc_count_lt_scalar(keys, n, x, m);
}

#if BC_X86
__attribute__((target("avx512f")))
static void bc_fill_avx512(double *a, int64_t n, double v)
{
    int64_t j;
    const __m512d x = _mm512_set1_pd(v);
    for (j = 0; j + 8 <= n; j += 8)
        _mm512_storeu_pd((void *)(a + j), x);
    if (j < n)
        _mm512_mask_storeu_pd((void *)(a + j), (__mmask8)((1u << (n - j)) - 1u), x);
}
#endif

#if BC_X86
__attribute__((target("avx2")))
static void bc_fill_avx2(double *a, int64_t n, double v)
{
    int64_t j;
    const __m256d x = _mm256_set1_pd(v);
    for (j = 0; j + 4 <= n; j += 4)
        _mm256_storeu_pd(a + j, x);
    for (; j < n; j++)
        a[j] = v;
}
#endif

/* a[0..n) = v */
static inline void bc_fill(double *a, int64_t n, double v)
{
    int64_t j;
#if BC_X86
    int lv = bc_get_level();
    if (lv >= BC_AVX512) {
        bc_fill_avx512(a, n, v);
        return;
    }
    if (lv == BC_AVX2) {
        bc_fill_avx2(a, n, v);
        return;
    }
#endif
    for (j = 0; j < n; j++)
        a[j] = v;
}

#if BC_X86
__attribute__((target("avx512f,popcnt")))
static int64_t bc_positions_avx512(const double *a, int64_t n, double thr, int gt, int64_t *pos)
{
    int64_t j, c = 0;
    const __m512d t = _mm512_set1_pd(thr);
    const __m512i iota = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    for (j = 0; j < n; j += 8) {
        __mmask8 lm = (n - j >= 8) ? (__mmask8)0xFF : (__mmask8)((1u << (n - j)) - 1u);
        __m512d v = _mm512_maskz_loadu_pd(lm, (const void *)(a + j));
        __mmask8 k = gt ? _mm512_mask_cmp_pd_mask(lm, v, t, _CMP_GT_OQ) : _mm512_mask_cmp_pd_mask(lm, v, t, _CMP_GE_OQ);
        /* compressed in a register, stored whole: pos needs 8 slots of slack */
        _mm512_storeu_si512((void *)(pos + c),
                            _mm512_maskz_compress_epi64(k, _mm512_add_epi64(_mm512_set1_epi64((long long)j), iota)));
        c += __builtin_popcount((unsigned)k);
    }
    return c;
}
#endif

#if BC_X86
/* for a 4-bit lane mask: the 32-bit lanes that gather its 64-bit lanes
   first, the rest 0 (AVX2 has no compress: _mm256_permutevar8x32_epi32) */
static const int32_t bc_cq[16][8] = {
    {0, 0, 0, 0, 0, 0, 0, 0}, {0, 1, 0, 0, 0, 0, 0, 0}, {2, 3, 0, 0, 0, 0, 0, 0}, {0, 1, 2, 3, 0, 0, 0, 0},
    {4, 5, 0, 0, 0, 0, 0, 0}, {0, 1, 4, 5, 0, 0, 0, 0}, {2, 3, 4, 5, 0, 0, 0, 0}, {0, 1, 2, 3, 4, 5, 0, 0},
    {6, 7, 0, 0, 0, 0, 0, 0}, {0, 1, 6, 7, 0, 0, 0, 0}, {2, 3, 6, 7, 0, 0, 0, 0}, {0, 1, 2, 3, 6, 7, 0, 0},
    {4, 5, 6, 7, 0, 0, 0, 0}, {0, 1, 4, 5, 6, 7, 0, 0}, {2, 3, 4, 5, 6, 7, 0, 0}, {0, 1, 2, 3, 4, 5, 6, 7}};

__attribute__((target("avx2,popcnt")))
static int64_t bc_positions_avx2(const double *a, int64_t n, double thr, int gt, int64_t *pos)
{
    int64_t j, c = 0;
    const __m256d t = _mm256_set1_pd(thr);
    const __m256i iota = _mm256_setr_epi64x(0, 1, 2, 3);
    for (j = 0; j + 4 <= n; j += 4) {
        __m256d v = _mm256_loadu_pd(a + j);
        int k = _mm256_movemask_pd(gt ? _mm256_cmp_pd(v, t, _CMP_GT_OQ) : _mm256_cmp_pd(v, t, _CMP_GE_OQ));
        /* gathered in a register, stored whole: pos needs 8 slots of slack */
        _mm256_storeu_si256((__m256i *)(pos + c),
                            _mm256_permutevar8x32_epi32(_mm256_add_epi64(_mm256_set1_epi64x((long long)j), iota),
                                                        _mm256_loadu_si256((const __m256i *)bc_cq[k])));
        c += __builtin_popcount((unsigned)k);
    }
    for (; j < n; j++) {
        pos[c] = j;
        c += gt ? a[j] > thr : a[j] >= thr;
    }
    return c;
}
#endif

/* the positions i < n with a[i] > thr (gt) or a[i] >= thr (else) into pos,
   ascending; returns their number.  pos: n + 8 slots (the vector path stores
   8 at a time past the last position it keeps). */
static inline int64_t bc_positions(const double *a, int64_t n, double thr, int gt, int64_t *pos)
{
    int64_t i, c = 0;
#if BC_X86
    int lv = bc_get_level();
    if (lv >= BC_AVX512)
        return bc_positions_avx512(a, n, thr, gt, pos);
    if (lv == BC_AVX2)
        return bc_positions_avx2(a, n, thr, gt, pos);
#endif
    if (gt) {
        for (i = 0; i < n; i++) {       /* branch-free */
            pos[c] = i;
            c += a[i] > thr;
        }
    } else {
        for (i = 0; i < n; i++) {
            pos[c] = i;
            c += a[i] >= thr;
        }
    }
    return c;
}

/* ---- 32-bit codes where no two candidates share one (VP2INTERSECT) ----
 *
 * A key is a 32-bit score code and a 32-bit tie code; when no two candidates
 * of a row share a score code, the codes alone order them, and 16 of them fit
 * a vector where 8 keys do: counting takes half the comparisons.  Whether two
 * codes are equal is asked of every pair of 16-code blocks at once: VPCONFLICTD
 * inside a block, VP2INTERSECTD across two (n <= BC_VP2I_MAX_N: 8 blocks, 36
 * instructions for a row of 100). */
#define BC_VP2I_MAX_N 256

#if BC_HAVE_VP2I
#define BC_VP2I_TARGET __attribute__((target("avx512f,avx512cd,avx512vp2intersect,popcnt")))

/* whether two of the codes c[0..n) are equal, 0 < n <= BC_VP2I_MAX_N; a code
   is never 0 (a score code of 0 would be a NaN's) */
BC_VP2I_TARGET static int bc_codes_repeat(const uint32_t *c, int64_t n)
{
    __m512i v[BC_VP2I_MAX_N / 16];
    __mmask16 lmk[BC_VP2I_MAX_N / 16];
    __mmask16 any = 0;
    int64_t nb = (n + 15) >> 4, b, b2;
    for (b = 0; b < nb; b++) {
        int64_t r = n - 16 * b;
        lmk[b] = r >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << r) - 1u);
        v[b] = _mm512_maskz_loadu_epi32(lmk[b], (const void *)(c + 16 * b));
    }
    for (b = 0; b < nb; b++) {
        /* lane i: the earlier lanes equal to it; the tail's lanes (zero, which
           no valid code is) are all in the last block, after its real lanes */
        __m512i cf = _mm512_conflict_epi32(v[b]);
        any |= _mm512_mask_test_epi32_mask(lmk[b], cf, cf);
        for (b2 = b + 1; b2 < nb; b2++) {
            __mmask16 k1, k2;
            _mm512_2intersect_epi32(v[b], v[b2], &k1, &k2);
            any |= k1;          /* v[b] is a whole block: a real code each */
        }
    }
    return any != 0;
}

/* x[u] <- #{j < n : c[j] < (x[u] >> 32)} for u < m (x holds keys whose high
   half is a code of c); four query codes per pass */
BC_VP2I_TARGET static void bc_count_lt32(const uint32_t *c, int64_t n, uint64_t *x, int64_t m)
{
    int64_t u = 0, j;
    int64_t nf = n & ~(int64_t)15;
    __mmask16 lm = (__mmask16)((1u << (n - nf)) - 1u);
    const __m512i one = _mm512_set1_epi32(1);
    for (; u + 4 <= m; u += 4) {
        __m512i a = _mm512_set1_epi32((int)(uint32_t)(x[u] >> 32));
        __m512i b = _mm512_set1_epi32((int)(uint32_t)(x[u + 1] >> 32));
        __m512i cc = _mm512_set1_epi32((int)(uint32_t)(x[u + 2] >> 32));
        __m512i d = _mm512_set1_epi32((int)(uint32_t)(x[u + 3] >> 32));
        __m512i ca = _mm512_setzero_si512(), cb = ca, c3 = ca, cd = ca;
        for (j = 0; j < nf; j += 16) {
            __m512i k = _mm512_loadu_si512((const void *)(c + j));
            ca = _mm512_mask_add_epi32(ca, _mm512_cmplt_epu32_mask(k, a), ca, one);
            cb = _mm512_mask_add_epi32(cb, _mm512_cmplt_epu32_mask(k, b), cb, one);
            c3 = _mm512_mask_add_epi32(c3, _mm512_cmplt_epu32_mask(k, cc), c3, one);
            cd = _mm512_mask_add_epi32(cd, _mm512_cmplt_epu32_mask(k, d), cd, one);
        }
        if (lm) {
            __m512i k = _mm512_maskz_loadu_epi32(lm, (const void *)(c + nf));
            ca = _mm512_mask_add_epi32(ca, _mm512_mask_cmplt_epu32_mask(lm, k, a), ca, one);
            cb = _mm512_mask_add_epi32(cb, _mm512_mask_cmplt_epu32_mask(lm, k, b), cb, one);
            c3 = _mm512_mask_add_epi32(c3, _mm512_mask_cmplt_epu32_mask(lm, k, cc), c3, one);
            cd = _mm512_mask_add_epi32(cd, _mm512_mask_cmplt_epu32_mask(lm, k, d), cd, one);
        }
        x[u] = (uint64_t)(uint32_t)_mm512_reduce_add_epi32(ca);
        x[u + 1] = (uint64_t)(uint32_t)_mm512_reduce_add_epi32(cb);
        x[u + 2] = (uint64_t)(uint32_t)_mm512_reduce_add_epi32(c3);
        x[u + 3] = (uint64_t)(uint32_t)_mm512_reduce_add_epi32(cd);
    }
    for (; u < m; u++) {
        __m512i a = _mm512_set1_epi32((int)(uint32_t)(x[u] >> 32));
        int64_t ca = 0;
        for (j = 0; j < nf; j += 16) {
            __m512i k = _mm512_loadu_si512((const void *)(c + j));
            ca += __builtin_popcount((unsigned)_mm512_cmplt_epu32_mask(k, a));
        }
        if (lm) {
            __m512i k = _mm512_maskz_loadu_epi32(lm, (const void *)(c + nf));
            ca += __builtin_popcount((unsigned)_mm512_mask_cmplt_epu32_mask(lm, k, a));
        }
        x[u] = (uint64_t)ca;
    }
}

/* bc_count_lt32 with its m <= 16 NV query codes in NV vectors, and every code
   of the row broadcast in turn: each lane counts its own query, no reduction
   (measured 73 against 105 ns for 40 queries in a row of 100) */
#define BC_TR(NV)                                                                              \
BC_VP2I_TARGET static void bc_count_lt32_tr##NV(const uint32_t *c, int64_t n, uint64_t *x, int64_t m) \
{                                                                                              \
    __m512i q[NV], acc[NV];                                                                    \
    uint32_t t[16 * NV];                                                                       \
    int64_t j, u;                                                                              \
    int v;                                                                                     \
    const __m512i one = _mm512_set1_epi32(1);                                                  \
    for (u = 0; u < 16 * NV; u++)                                                              \
        t[u] = u < m ? (uint32_t)(x[u] >> 32) : 0u;                                            \
    _Pragma("GCC unroll 8")                                                                    \
    for (v = 0; v < NV; v++) {                                                                 \
        q[v] = _mm512_loadu_si512((const void *)(t + 16 * v));                                 \
        acc[v] = _mm512_setzero_si512();                                                       \
    }                                                                                          \
    for (j = 0; j < n; j++) {                                                                  \
        __m512i k = _mm512_set1_epi32((int)c[j]);                                              \
        _Pragma("GCC unroll 8")                                                                \
        for (v = 0; v < NV; v++)                                                               \
            acc[v] = _mm512_mask_add_epi32(acc[v], _mm512_cmplt_epu32_mask(k, q[v]), acc[v], one); \
    }                                                                                          \
    _Pragma("GCC unroll 8")                                                                    \
    for (v = 0; v < NV; v++)                                                                   \
        _mm512_storeu_si512((void *)(t + 16 * v), acc[v]);                                     \
    for (u = 0; u < m; u++)                                                                    \
        x[u] = (uint64_t)t[u];                                                                 \
}
BC_TR(1)
BC_TR(2)
BC_TR(3)
BC_TR(4)
BC_TR(5)
BC_TR(6)
#endif

/* bc_count_lt by the 32-bit codes c (the keys' high halves) when the level is
   BC_AVX512_VP2I, n <= BC_VP2I_MAX_N and no two codes are equal (then they
   order the candidates as the keys do): returns 1; else 0, x untouched. */
static inline int bc_count_lt_codes(const uint32_t *c, int64_t n, uint64_t *x, int64_t m)
{
#if BC_HAVE_VP2I
    if (bc_get_level() == BC_AVX512_VP2I && n > 0 && n <= BC_VP2I_MAX_N && !bc_codes_repeat(c, n)) {
        switch ((m + 15) >> 4) {
        case 0: break;
        case 1: bc_count_lt32_tr1(c, n, x, m); break;
        case 2: bc_count_lt32_tr2(c, n, x, m); break;
        case 3: bc_count_lt32_tr3(c, n, x, m); break;
        case 4: bc_count_lt32_tr4(c, n, x, m); break;
        case 5: bc_count_lt32_tr5(c, n, x, m); break;
        case 6: bc_count_lt32_tr6(c, n, x, m); break;
        default: bc_count_lt32(c, n, x, m);
        }
        return 1;
    }
#else
    (void)c; (void)n; (void)x; (void)m;
#endif
    return 0;
}

/* ---- ranks of a row's own keys from their 32-bit codes (AVX2) ----
 *
 * The keys of a row of the batch kernel are code << 32 | tie, the tie code a
 * function of the key's position j alone (trec: BK_TIE_MAX - j, input: j), so
 * two keys of equal codes are ordered by position: a key at j < p is below the
 * query key at p when its code is <= the query's (input order) or < it (trec
 * order), and the other way round at j > p.  So the 64-bit order is counted
 * exactly with 32-bit compares, 8 queries to a vector, whether or not codes
 * repeat (the VP2INTERSECT path needs them distinct): the row's codes are
 * broadcast in turn against up to 6 vectors of query thresholds (no
 * reductions; more queries take more sweeps).  With the queries in ascending
 * position, the 8 of a vector lie in one span of the row: before it, all 8
 * thresholds are "<=" (input; trec "<"), after it the other one, and only
 * inside it is each lane's threshold chosen by comparing j with its
 * position.  Spans do not overlap, so the per-lane choice costs about two
 * operations per key of the row, and the sweep's branches depend only on
 * the 2 NV + 1 span bounds (a branch per query, taken at random positions,
 * was measured mispredicted into costing more than the compares); a single
 * vector of queries takes the per-lane choice at every key (no bounds). */
#if BC_X86
/* one key of the row (its code, the high half, sign-flipped for the signed
   compare, broadcast by one load) against the NV threshold vectors; vector
   VQ (-1: none) inside its span: lanes whose position is above j (input;
   trec: below j) take <= */
#define BC_POS_STEP(NV, VQ, TREC)                                                              \
    do {                                                                                       \
        __m256i c_ = _mm256_xor_si256(_mm256_castps_si256(_mm256_broadcast_ss(                 \
            (const float *)((const char *)(keys + j) + 4))), sg);                              \
        __m256i j_ = _mm256_set1_epi32((int)j);                                                \
        _Pragma("GCC unroll 8")                                                                \
        for (v = 0; v < NV; v++) {                                                             \
            __m256i th_ = thr[v];                                                              \
            if (v == (VQ))                                                                     \
                th_ = _mm256_sub_epi32(th_, (TREC) ? _mm256_cmpgt_epi32(j_, P[v])              \
                                                   : _mm256_cmpgt_epi32(P[v], j_));            \
            acc[v] = _mm256_sub_epi32(acc[v], _mm256_cmpgt_epi32(th_, c_));                    \
        }                                                                                      \
    } while (0)

/* m <= 8 NV queries x[0..m) at positions pos[0..m), ascending; pos NULL:
   queries whose low half is 0 (x[u] <- how many codes are below x[u] >> 32) */
#define BC_POS(NV, TREC)                                                                       \
__attribute__((target("avx2"))) static void bc_count_pos_avx2_##NV##_##TREC(                   \
    const uint64_t *keys, int64_t n, const int32_t *pos, uint64_t *x, int64_t m)               \
{                                                                                              \
    __m256i thr[NV], acc[NV], P[NV];                                                           \
    int32_t t[8], p[8];                                                                        \
    int64_t j = 0, u, a, b;                                                                    \
    int v, vq;                                                                                 \
    const __m256i sg = _mm256_set1_epi32((int)0x80000000u);                                    \
    const __m256i one = _mm256_set1_epi32(1);                                                  \
    /* the thresholds before the spans: input <=, trec < */                                   \
    const __m256i first = _mm256_set1_epi32((pos == NULL || (TREC)) ? 0 : 1);                  \
    const __m256i hix = _mm256_setr_epi32(1, 3, 5, 7, 1, 3, 5, 7);                             \
    _Pragma("GCC unroll 8")                                                                    \
    for (v = 0; v < NV; v++) {                                                                 \
        __m256i h_, p_ = _mm256_setzero_si256();                                               \
        if (8 * v + 8 <= m) {                                                                  \
            /* the high halves of 8 keys: two loads, two lane permutations */                 \
            __m256i lo_ = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)(x + 8 * v)), hix); \
            __m256i hi_ = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)(x + 8 * v + 4)), hix); \
            h_ = _mm256_permute2x128_si256(lo_, hi_, 0x20);                                    \
            if (pos != NULL)                                                                   \
                p_ = _mm256_loadu_si256((const __m256i *)(pos + 8 * v));                       \
        } else {                                                                               \
            /* the last, partial vector (no loads past m) */                                  \
            for (u = 0; u < 8; u++) {                                                          \
                t[u] = 8 * v + u < m ? (int32_t)(uint32_t)(x[8 * v + u] >> 32) : 0;            \
                p[u] = (8 * v + u < m && pos != NULL) ? pos[8 * v + u] : 0;                    \
            }                                                                                  \
            h_ = _mm256_loadu_si256((const __m256i *)t);                                       \
            p_ = _mm256_loadu_si256((const __m256i *)p);                                       \
        }                                                                                      \
        thr[v] = _mm256_xor_si256(_mm256_add_epi32(h_, first), sg);                            \
        P[v] = p_;                                                                             \
        acc[v] = _mm256_setzero_si256();                                                       \
    }                                                                                          \
    if (pos != NULL && NV == 1) {                                                              \
        /* one vector: the per-lane choice at every key, no bounds */                         \
        if (!(TREC))                                                                           \
            thr[0] = _mm256_sub_epi32(thr[0], one);                                            \
        for (j = 0; j < n; j++)                                                                \
            BC_POS_STEP(NV, 0, TREC);                                                          \
    } else if (pos != NULL) {                                                                  \
        _Pragma("GCC unroll 8")                                                                \
        for (vq = 0; vq < NV; vq++) {                                                          \
            a = pos[8 * vq];                                                                   \
            b = pos[8 * vq + 7 < m ? 8 * vq + 7 : m - 1];                                      \
            for (; j < a; j++)                                                                 \
                BC_POS_STEP(NV, -1, TREC);                                                     \
            if (!(TREC))                                                                       \
                thr[vq] = _mm256_sub_epi32(thr[vq], one);                                      \
            for (; j <= b; j++)                                                                \
                BC_POS_STEP(NV, vq, TREC);                                                     \
            if (TREC)                                                                          \
                thr[vq] = _mm256_add_epi32(thr[vq], one);                                      \
        }                                                                                      \
    }                                                                                          \
    for (; j < n; j++)                                                                         \
        BC_POS_STEP(NV, -1, TREC);                                                             \
    _Pragma("GCC unroll 8")                                                                    \
    for (v = 0; v < NV; v++) {                                                                 \
        if (8 * v + 8 <= m) {                                                                  \
            _mm256_storeu_si256((__m256i *)(x + 8 * v),                                        \
                                _mm256_cvtepu32_epi64(_mm256_castsi256_si128(acc[v])));        \
            _mm256_storeu_si256((__m256i *)(x + 8 * v + 4),                                    \
                                _mm256_cvtepu32_epi64(_mm256_extracti128_si256(acc[v], 1)));   \
        } else {                                                                               \
            _mm256_storeu_si256((__m256i *)t, acc[v]);                                         \
            for (u = 8 * v; u < m; u++)                                                        \
                x[u] = (uint64_t)(uint32_t)t[u - 8 * v];                                       \
        }                                                                                      \
    }                                                                                          \
}
#define BC_POS_BOTH(NV) BC_POS(NV, 0) BC_POS(NV, 1)
BC_POS_BOTH(1)
BC_POS_BOTH(2)
BC_POS_BOTH(3)
BC_POS_BOTH(4)
BC_POS_BOTH(5)
BC_POS_BOTH(6)
#endif

/* bc_count_lt(keys, n, x, m) for the keys of a row of the batch kernel
 * (keys[j] = code << 32 | tie, the tie BK_TIE_MAX - j with trec, else j, so
 * all distinct) and queries that are keys of the row: x[u] = keys[pos[u]],
 * pos ascending; or, pos NULL, for queries whose low half is 0 (then the
 * count is how many codes are below x[u] >> 32, whatever the ties).  Returns
 * 1, x holding the counts, where the level in use has this path (AVX2), else
 * 0 (x untouched): bc_count_lt then. */
static inline int bc_count_lt_pos(const uint64_t *keys, int64_t n, const int32_t *pos, uint64_t *x, int64_t m,
                                  int trec)
{
#if BC_X86
    int64_t u, r;
    const int32_t *p;
    if (bc_get_level() != BC_AVX2 || n <= 0 || n >= 0x7FFFFFFF)
        return 0;
    trec = (trec != 0 && pos != NULL);
    for (u = 0; u < m; u += 48) {
        r = m - u < 48 ? m - u : 48;
        p = pos == NULL ? NULL : pos + u;
        switch (((r + 7) >> 3) * 2 + trec) {
        case 2: bc_count_pos_avx2_1_0(keys, n, p, x + u, r); break;
        case 3: bc_count_pos_avx2_1_1(keys, n, p, x + u, r); break;
        case 4: bc_count_pos_avx2_2_0(keys, n, p, x + u, r); break;
        case 5: bc_count_pos_avx2_2_1(keys, n, p, x + u, r); break;
        case 6: bc_count_pos_avx2_3_0(keys, n, p, x + u, r); break;
        case 7: bc_count_pos_avx2_3_1(keys, n, p, x + u, r); break;
        case 8: bc_count_pos_avx2_4_0(keys, n, p, x + u, r); break;
        case 9: bc_count_pos_avx2_4_1(keys, n, p, x + u, r); break;
        case 10: bc_count_pos_avx2_5_0(keys, n, p, x + u, r); break;
        case 11: bc_count_pos_avx2_5_1(keys, n, p, x + u, r); break;
        case 12: bc_count_pos_avx2_6_0(keys, n, p, x + u, r); break;
        default: bc_count_pos_avx2_6_1(keys, n, p, x + u, r);
        }
    }
    return 1;
#else
    (void)keys; (void)n; (void)pos; (void)x; (void)m; (void)trec;
    return 0;
#endif
}

/* How many candidates that can count a row may have for bc_count_lt to rank
 * it rather than sort it, at the level in use: its m n comparisons against
 * the sort's few ns per candidate.  Measured with AVX-512 (the four measures,
 * rows of 100 and of 1,000): counting 40 of 100 took about 0.036 ns per key
 * pair (145 ns a row), so it stays cheaper than sorting up to m ~ 110 (rows of
 * 100) to ~150 (rows of 1,000).  With AVX2 (bc_count_lt_pos, 8 queries a
 * compare) counting 40 of 100 took 199 ns, 96 of 100 483 ns, where the
 * sort of a row of 100 takes about 1 us. */
static inline int64_t bc_count_max(void)
{
    int lv = bc_get_level();
    return lv >= BC_AVX2 ? 96 : 8;
}

#endif
