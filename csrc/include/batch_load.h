/* Loading a row of the batch kernels (irscore._batch) eight candidates at a
 * time (AVX-512), for the usual inputs: float32 or float64 scores, int64 or
 * int32 labels, no NaN score.  static inline; the caller checks bc_get_level()
 * (batch_count.h) before calling, and falls back to its scalar loader when the
 * function returns -1 (a NaN score in the row: padding to skip).
 *
 * Writes, for the n candidates of the row (t = column, as no candidate is
 * skipped):
 *   keys[t]  the rank key (batch_sort.h: score code << 32 | tie code),
 *   hc[t]    its high half (the score code; never 0),
 *   sv[t]    the score as a double,
 *   vl[t]    the label as a double,
 *   col[t]   t (when col is not NULL),
 *   xq[0..m) the keys of the candidates an op can count (label > 0 or
 *            >= sthr), in column order, and si[0..m) their columns;
 * and the label statistics into st (smallest and largest label, how many of
 * each grade 1 to 4).  Returns m.  keys, sv, vl and col are
 * written in their first n entries only (masked stores at the tail); xq and si
 * are written 8 entries at a time (compressed in a register, stored whole), so
 * they need n + 8 entries.
 */
#ifndef IRS_BATCH_LOAD_H
#define IRS_BATCH_LOAD_H

#include <stdint.h>
#include "batch_count.h"

typedef struct {
    int64_t lmin;     /* smallest label */
    int64_t lmax;     /* largest label */
    int64_t grade[5]; /* how many labels are 1, 2, 3, 4 (grade[1..4]; grade[0] unused) */
} bl_stats;

#if BC_X86
#define BL_TARGET __attribute__((target("avx512f,avx512dq,avx512vl,popcnt")))

/* the tie codes of columns j..j+7: trec 0x7FFFFFFF - t, input t */
BL_TARGET static inline __m512i bl_ties(int64_t j, int trec)
{
    const __m512i iota = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    __m512i t = _mm512_add_epi64(_mm512_set1_epi64((long long)j), iota);
    return trec ? _mm512_sub_epi64(_mm512_set1_epi64(0x7FFFFFFFLL), t) : t;
}

/* descending codes of eight float scores (-0 reads as +0), widened to the key's high half */
BL_TARGET static inline __m512i bl_code_f32(__m256 f)
{
    __m256i u, m;
    f = _mm256_add_ps(f, _mm256_setzero_ps());
    u = _mm256_castps_si256(f);
    m = _mm256_or_si256(_mm256_srai_epi32(u, 31), _mm256_set1_epi32((int)0x80000000u));
    u = _mm256_xor_si256(_mm256_xor_si256(u, m), _mm256_set1_epi32(-1));
    return _mm512_slli_epi64(_mm512_cvtepu32_epi64(u), 32);
}

/* the high 32 bits of the descending codes of eight double scores, in the key's high half */
BL_TARGET static inline __m512i bl_code_f64(__m512d d)
{
    __m512i u, m;
    d = _mm512_add_pd(d, _mm512_setzero_pd());
    u = _mm512_castpd_si512(d);
    m = _mm512_or_si512(_mm512_srai_epi64(u, 63), _mm512_set1_epi64((long long)0x8000000000000000ull));
    u = _mm512_xor_si512(_mm512_xor_si512(u, m), _mm512_set1_epi64(-1));
    return _mm512_slli_epi64(_mm512_srli_epi64(u, 32), 32);
}

/* one block of eight (lm: its lanes): score codes kc and scores s (as doubles)
   from the caller, labels L (int64) read here; returns the lanes an op can count */
#define BL_BLOCK(LOADL)                                                                       \
    do {                                                                                      \
        __m512i L = LOADL;                                                                     \
        __m512d v = _mm512_cvtepi64_pd(L);                                                     \
        __m512i k = _mm512_or_si512(kc, bl_ties(j, trec));                                     \
        __mmask8 cm;                                                                           \
        _mm512_mask_storeu_epi64((void *)(keys + j), lm, k);                                   \
        _mm256_mask_storeu_epi32((void *)(hc + j), lm, _mm512_cvtepi64_epi32(_mm512_srli_epi64(kc, 32))); \
        _mm512_mask_storeu_pd((void *)(sv + j), lm, s);                                        \
        _mm512_mask_storeu_pd((void *)(vl + j), lm, v);                                        \
        if (col != NULL)                                                                       \
            _mm512_mask_storeu_epi64((void *)(col + j), lm,                                    \
                                     _mm512_add_epi64(_mm512_set1_epi64((long long)j), iota)); \
        lo = _mm512_mask_min_epi64(lo, lm, lo, L);                                             \
        g1 += __builtin_popcount((unsigned)_mm512_mask_cmpeq_epi64_mask(lm, L, _mm512_set1_epi64(1))); \
        g2 += __builtin_popcount((unsigned)_mm512_mask_cmpeq_epi64_mask(lm, L, _mm512_set1_epi64(2))); \
        g3 += __builtin_popcount((unsigned)_mm512_mask_cmpeq_epi64_mask(lm, L, _mm512_set1_epi64(3))); \
        g4 += __builtin_popcount((unsigned)_mm512_mask_cmpeq_epi64_mask(lm, L, _mm512_set1_epi64(4))); \
        hi = _mm512_mask_max_epi64(hi, lm, hi, L);                                             \
        cm = _mm512_mask_cmp_pd_mask(lm, v, zero, _CMP_GT_OQ)                                  \
             | _mm512_mask_cmp_pd_mask(lm, v, thr, _CMP_GE_OQ);                               \
        _mm512_storeu_si512((void *)(xq + m), _mm512_maskz_compress_epi64(cm, k));             \
        _mm256_storeu_si256((__m256i *)(si + m), _mm256_maskz_compress_epi32(cm,              \
            _mm512_cvtepi64_epi32(_mm512_add_epi64(_mm512_set1_epi64((long long)j), iota)))); \
        m += __builtin_popcount((unsigned)cm);                                                 \
    } while (0)

#define BL_BODY(SCORE_BLOCK, LOADL)                                                            \
    int64_t j, m = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0;                                          \
    const __m512i iota = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);                             \
    const __m512d zero = _mm512_setzero_pd();                                                  \
    const __m512d thr = _mm512_set1_pd(sthr);                                                  \
    __m512i lo = _mm512_set1_epi64(INT64_MAX), hi = _mm512_set1_epi64(INT64_MIN);              \
    __mmask8 nan = 0;                                                                          \
    for (j = 0; j < n; j += 8) {                                                               \
        __mmask8 lm = (n - j >= 8) ? (__mmask8)0xFF : (__mmask8)((1u << (n - j)) - 1u);       \
        __m512i kc;                                                                            \
        __m512d s;                                                                             \
        SCORE_BLOCK;                                                                           \
        BL_BLOCK(LOADL);                                                                       \
    }                                                                                          \
    if (nan)                                                                                   \
        return -1;                                                                             \
    st->lmin = _mm512_reduce_min_epi64(lo);                                                    \
    st->lmax = _mm512_reduce_max_epi64(hi);                                                    \
    st->grade[0] = 0;                                                                          \
    st->grade[1] = g1;                                                                         \
    st->grade[2] = g2;                                                                         \
    st->grade[3] = g3;                                                                         \
    st->grade[4] = g4;                                                                         \
    return m;

#define BL_SCORE_F32                                                                           \
    do {                                                                                       \
        __m256 f = _mm256_maskz_loadu_ps(lm, (const void *)(sc + j));                          \
        nan |= _mm256_mask_cmp_ps_mask(lm, f, f, _CMP_UNORD_Q);                                \
        kc = bl_code_f32(f);                                                                   \
        s = _mm512_cvtps_pd(f);                                                                \
    } while (0)

#define BL_SCORE_F64                                                                           \
    do {                                                                                       \
        s = _mm512_maskz_loadu_pd(lm, (const void *)(sc + j));                                 \
        nan |= _mm512_mask_cmp_pd_mask(lm, s, s, _CMP_UNORD_Q);                                \
        kc = bl_code_f64(s);                                                                   \
    } while (0)

#define BL_LABEL_I64 _mm512_maskz_loadu_epi64(lm, (const void *)(lb + j))
#define BL_LABEL_I32 _mm512_cvtepi32_epi64(_mm256_maskz_loadu_epi32(lm, (const void *)(lb + j)))

BL_TARGET static int64_t bl_load_f32_i64(const float *sc, const int64_t *lb, int64_t n, int trec, double sthr,
                                         uint64_t *keys, uint32_t *hc, double *sv, double *vl, int64_t *col,
                                         uint64_t *xq, int32_t *si, bl_stats *st)
{
    BL_BODY(BL_SCORE_F32, BL_LABEL_I64)
}

BL_TARGET static int64_t bl_load_f32_i32(const float *sc, const int32_t *lb, int64_t n, int trec, double sthr,
                                         uint64_t *keys, uint32_t *hc, double *sv, double *vl, int64_t *col,
                                         uint64_t *xq, int32_t *si, bl_stats *st)
{
    BL_BODY(BL_SCORE_F32, BL_LABEL_I32)
}

BL_TARGET static int64_t bl_load_f64_i64(const double *sc, const int64_t *lb, int64_t n, int trec, double sthr,
                                         uint64_t *keys, uint32_t *hc, double *sv, double *vl, int64_t *col,
                                         uint64_t *xq, int32_t *si, bl_stats *st)
{
    BL_BODY(BL_SCORE_F64, BL_LABEL_I64)
}

BL_TARGET static int64_t bl_load_f64_i32(const double *sc, const int32_t *lb, int64_t n, int trec, double sthr,
                                         uint64_t *keys, uint32_t *hc, double *sv, double *vl, int64_t *col,
                                         uint64_t *xq, int32_t *si, bl_stats *st)
{
    BL_BODY(BL_SCORE_F64, BL_LABEL_I32)
}


/* ---- the same loader four candidates at a time (AVX2) ----
 * The same outputs to the bit: the scores' codes by the same integer
 * operations, int64 labels converted to double exactly rounded as cvtsi2sd
 * does (bl2_i64_to_f64), the countable candidates compressed by a table of
 * lane permutations, the tail by masked loads and stores. */
#define BL2_TARGET __attribute__((target("avx2,popcnt")))

/* for a 4-bit lane mask: its lanes in order (bl2_cl; bc_cq in batch_count.h
   gathers them as 64-bit lanes); the rest 0 */
static const int32_t bl2_cl[16][4] = {
    {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {2, 0, 0, 0}, {0, 2, 0, 0}, {1, 2, 0, 0}, {0, 1, 2, 0},
    {3, 0, 0, 0}, {0, 3, 0, 0}, {1, 3, 0, 0}, {0, 1, 3, 0}, {2, 3, 0, 0}, {0, 2, 3, 0}, {1, 2, 3, 0}, {0, 1, 2, 3}};

/* int64 to double, rounded once as cvtsi2sd rounds: the high 16 bits scaled
   by 2**48 and the low 48 bits, each held exactly in a double's mantissa
   (biased by 3 * 2**67 and 2**52), subtracted exactly and added with the one
   rounding */
BL2_TARGET static inline __m256d bl2_i64_to_f64(__m256i x)
{
    __m256i hi = _mm256_blend_epi16(_mm256_srai_epi32(x, 16), _mm256_setzero_si256(), 0x33);
    __m256i lo = _mm256_blend_epi16(x, _mm256_set1_epi64x(0x4330000000000000LL), 0x88);
    __m256d h;
    hi = _mm256_add_epi64(hi, _mm256_set1_epi64x(0x4438000000000000LL));      /* 3 * 2**67 */
    h = _mm256_sub_pd(_mm256_castsi256_pd(hi), _mm256_set1_pd(442726361368656609280.0));  /* 3 * 2**67 + 2**52 */
    return _mm256_add_pd(h, _mm256_castsi256_pd(lo));
}

/* descending codes of four float scores (-0 reads as +0) */
BL2_TARGET static inline __m128i bl2_code_f32(__m128 f)
{
    __m128i u, m;
    f = _mm_add_ps(f, _mm_setzero_ps());
    u = _mm_castps_si128(f);
    m = _mm_or_si128(_mm_srai_epi32(u, 31), _mm_set1_epi32((int)0x80000000u));
    return _mm_xor_si128(_mm_xor_si128(u, m), _mm_set1_epi32(-1));
}

/* the high 32 bits of the descending codes of four double scores */
BL2_TARGET static inline __m128i bl2_code_f64(__m256d d)
{
    __m256i u, m;
    d = _mm256_add_pd(d, _mm256_setzero_pd());
    u = _mm256_castpd_si256(d);
    m = _mm256_or_si256(_mm256_cmpgt_epi64(_mm256_setzero_si256(), u),
                        _mm256_set1_epi64x((long long)0x8000000000000000ull));
    u = _mm256_xor_si256(_mm256_xor_si256(u, m), _mm256_set1_epi64x(-1));
    u = _mm256_permutevar8x32_epi32(u, _mm256_setr_epi32(1, 3, 5, 7, 1, 3, 5, 7));
    return _mm256_castsi256_si128(u);
}

/* one block of four at j: lanes lm (64-bit lanes), lm32 (32-bit), bits lb4;
   FULL (a constant): the whole block, plain loads and stores */
#define BL2_BLOCK(FULL, LOADSCORE, LOADLABEL)                                                   \
    do {                                                                                       \
        __m128i code;                                                                          \
        __m256d s, v;                                                                          \
        __m256i L, k, jv, lt;                                                                  \
        int cm;                                                                                \
        LOADSCORE(FULL);                                                                       \
        LOADLABEL(FULL);                                                                       \
        jv = _mm256_add_epi64(_mm256_set1_epi64x((long long)j), iota);                         \
        k = _mm256_or_si256(_mm256_slli_epi64(_mm256_cvtepu32_epi64(code), 32),                \
                            trec ? _mm256_sub_epi64(tmax, jv) : jv);                           \
        if (FULL) {                                                                            \
            _mm256_storeu_si256((__m256i *)(keys + j), k);                                     \
            _mm_storeu_si128((__m128i *)(hc + j), code);                                       \
            _mm256_storeu_pd(sv + j, s);                                                       \
            _mm256_storeu_pd(vl + j, v);                                                       \
            if (col != NULL)                                                                   \
                _mm256_storeu_si256((__m256i *)(col + j), jv);                                 \
        } else {                                                                               \
            _mm256_maskstore_epi64((long long *)(keys + j), lm, k);                            \
            _mm_maskstore_epi32((int *)(hc + j), lm32, code);                                  \
            _mm256_maskstore_pd(sv + j, lm, s);                                                \
            _mm256_maskstore_pd(vl + j, lm, v);                                                \
            if (col != NULL)                                                                   \
                _mm256_maskstore_epi64((long long *)(col + j), lm, jv);                        \
        }                                                                                      \
        lt = _mm256_cmpgt_epi64(lo, L);                                                        \
        if (!(FULL))                                                                           \
            lt = _mm256_and_si256(lt, lm);                                                     \
        lo = _mm256_blendv_epi8(lo, L, lt);                                                    \
        lt = _mm256_cmpgt_epi64(L, hi);                                                        \
        if (!(FULL))                                                                           \
            lt = _mm256_and_si256(lt, lm);                                                     \
        hi = _mm256_blendv_epi8(hi, L, lt);                                                    \
        g1 = _mm256_sub_epi64(g1, _mm256_cmpeq_epi64(L, _mm256_set1_epi64x(1)));               \
        g2 = _mm256_sub_epi64(g2, _mm256_cmpeq_epi64(L, _mm256_set1_epi64x(2)));               \
        g3 = _mm256_sub_epi64(g3, _mm256_cmpeq_epi64(L, _mm256_set1_epi64x(3)));               \
        g4 = _mm256_sub_epi64(g4, _mm256_cmpeq_epi64(L, _mm256_set1_epi64x(4)));               \
        cm = _mm256_movemask_pd(_mm256_or_pd(_mm256_cmp_pd(v, zero, _CMP_GT_OQ),               \
                                             _mm256_cmp_pd(v, thr, _CMP_GE_OQ))) & lb4;        \
        _mm256_storeu_si256((__m256i *)(xq + m),                                               \
                            _mm256_permutevar8x32_epi32(k, _mm256_loadu_si256((const __m256i *)bc_cq[cm]))); \
        _mm_storeu_si128((__m128i *)(si + m), _mm_add_epi32(_mm_set1_epi32((int)j),            \
                                                            _mm_loadu_si128((const __m128i *)bl2_cl[cm]))); \
        m += __builtin_popcount((unsigned)cm);                                                 \
    } while (0)

#define BL2_SCORE_F32(FULL)                                                                    \
    do {                                                                                       \
        __m128 f = (FULL) ? _mm_loadu_ps(sc + j) : _mm_maskload_ps(sc + j, lm32);              \
        nan |= _mm_movemask_ps(_mm_cmpunord_ps(f, f));                                         \
        code = bl2_code_f32(f);                                                                \
        s = _mm256_cvtps_pd(f);                                                                \
    } while (0)

#define BL2_SCORE_F64(FULL)                                                                    \
    do {                                                                                       \
        s = (FULL) ? _mm256_loadu_pd(sc + j) : _mm256_maskload_pd(sc + j, lm);                 \
        nan |= _mm256_movemask_pd(_mm256_cmp_pd(s, s, _CMP_UNORD_Q));                          \
        code = bl2_code_f64(s);                                                                \
    } while (0)

#define BL2_LABEL_I64(FULL)                                                                    \
    do {                                                                                       \
        L = (FULL) ? _mm256_loadu_si256((const __m256i *)(lb + j))                             \
                   : _mm256_maskload_epi64((const long long *)(lb + j), lm);                   \
        v = bl2_i64_to_f64(L);                                                                 \
    } while (0)

#define BL2_LABEL_I32(FULL)                                                                    \
    do {                                                                                       \
        __m128i l32 = (FULL) ? _mm_loadu_si128((const __m128i *)(lb + j))                      \
                             : _mm_maskload_epi32((const int *)(lb + j), lm32);                \
        L = _mm256_cvtepi32_epi64(l32);                                                        \
        v = _mm256_cvtepi32_pd(l32);                                                           \
    } while (0)

#define BL2_BODY(LOADSCORE, LOADLABEL)                                                         \
    int64_t j, m = 0, r;                                                                       \
    int nan = 0, lb4 = 15;                                                                     \
    int64_t t4[4];                                                                             \
    const __m256i iota = _mm256_setr_epi64x(0, 1, 2, 3);                                       \
    const __m256i tmax = _mm256_set1_epi64x(0x7FFFFFFFLL);                                     \
    const __m256d zero = _mm256_setzero_pd();                                                  \
    const __m256d thr = _mm256_set1_pd(sthr);                                                  \
    __m256i lm = _mm256_set1_epi64x(-1);                                                       \
    __m128i lm32 = _mm_set1_epi32(-1);                                                         \
    __m256i lo = _mm256_set1_epi64x(INT64_MAX), hi = _mm256_set1_epi64x(INT64_MIN);           \
    __m256i g1 = _mm256_setzero_si256(), g2 = g1, g3 = g1, g4 = g1;                            \
    for (j = 0; j + 4 <= n; j += 4)                                                            \
        BL2_BLOCK(1, LOADSCORE, LOADLABEL);                                                    \
    r = n - j;                                                                                 \
    if (r > 0) {                                                                               \
        lm = _mm256_cmpgt_epi64(_mm256_set1_epi64x(r), iota);                                  \
        lm32 = _mm_cmpgt_epi32(_mm_set1_epi32((int)r), _mm_setr_epi32(0, 1, 2, 3));            \
        lb4 = (1 << r) - 1;                                                                    \
        BL2_BLOCK(0, LOADSCORE, LOADLABEL);    /* the masked lanes read 0: no NaN, no grade */ \
    }                                                                                          \
    if (nan)                                                                                   \
        return -1;                                                                             \
    _mm256_storeu_si256((__m256i *)t4, lo);                                                    \
    st->lmin = t4[0];                                                                          \
    for (r = 1; r < 4; r++)                                                                    \
        st->lmin = t4[r] < st->lmin ? t4[r] : st->lmin;                                        \
    _mm256_storeu_si256((__m256i *)t4, hi);                                                    \
    st->lmax = t4[0];                                                                          \
    for (r = 1; r < 4; r++)                                                                    \
        st->lmax = t4[r] > st->lmax ? t4[r] : st->lmax;                                        \
    st->grade[0] = 0;                                                                          \
    _mm256_storeu_si256((__m256i *)t4, g1);                                                    \
    st->grade[1] = t4[0] + t4[1] + t4[2] + t4[3];                                              \
    _mm256_storeu_si256((__m256i *)t4, g2);                                                    \
    st->grade[2] = t4[0] + t4[1] + t4[2] + t4[3];                                              \
    _mm256_storeu_si256((__m256i *)t4, g3);                                                    \
    st->grade[3] = t4[0] + t4[1] + t4[2] + t4[3];                                              \
    _mm256_storeu_si256((__m256i *)t4, g4);                                                    \
    st->grade[4] = t4[0] + t4[1] + t4[2] + t4[3];                                              \
    return m;

BL2_TARGET static int64_t bl2_load_f32_i64(const float *sc, const int64_t *lb, int64_t n, int trec, double sthr,
                                           uint64_t *keys, uint32_t *hc, double *sv, double *vl, int64_t *col,
                                           uint64_t *xq, int32_t *si, bl_stats *st)
{
    BL2_BODY(BL2_SCORE_F32, BL2_LABEL_I64)
}

BL2_TARGET static int64_t bl2_load_f32_i32(const float *sc, const int32_t *lb, int64_t n, int trec, double sthr,
                                           uint64_t *keys, uint32_t *hc, double *sv, double *vl, int64_t *col,
                                           uint64_t *xq, int32_t *si, bl_stats *st)
{
    BL2_BODY(BL2_SCORE_F32, BL2_LABEL_I32)
}

BL2_TARGET static int64_t bl2_load_f64_i64(const double *sc, const int64_t *lb, int64_t n, int trec, double sthr,
                                           uint64_t *keys, uint32_t *hc, double *sv, double *vl, int64_t *col,
                                           uint64_t *xq, int32_t *si, bl_stats *st)
{
    BL2_BODY(BL2_SCORE_F64, BL2_LABEL_I64)
}

BL2_TARGET static int64_t bl2_load_f64_i32(const double *sc, const int32_t *lb, int64_t n, int trec, double sthr,
                                           uint64_t *keys, uint32_t *hc, double *sv, double *vl, int64_t *col,
                                           uint64_t *xq, int32_t *si, bl_stats *st)
{
    BL2_BODY(BL2_SCORE_F64, BL2_LABEL_I32)
}
#define BL_HAVE 1
#else
#define BL_HAVE 0
#endif

/* score kind sk (0 float32, 1 float64), label kind lk (2 int32, 3 int64):
   -1 when this build or CPU has no vector loader for them, or on a NaN score */
static inline int64_t bl_load(const void *sc, int sk, const void *lb, int lk, int64_t n, int trec, double sthr,
                              uint64_t *keys, uint32_t *hc, double *sv, double *vl, int64_t *col, uint64_t *xq,
                              int32_t *si, bl_stats *st)
{
#if BL_HAVE
    int lv = bc_get_level();
    if (n <= 0 || n > 0x7FFFFFFF || lv < BC_AVX2)
        return -1;
    if (lv == BC_AVX2) {
        if (sk == 0 && lk == 3)
            return bl2_load_f32_i64((const float *)sc, (const int64_t *)lb, n, trec, sthr, keys, hc, sv, vl, col, xq, si, st);
        if (sk == 0 && lk == 2)
            return bl2_load_f32_i32((const float *)sc, (const int32_t *)lb, n, trec, sthr, keys, hc, sv, vl, col, xq, si, st);
        if (sk == 1 && lk == 3)
            return bl2_load_f64_i64((const double *)sc, (const int64_t *)lb, n, trec, sthr, keys, hc, sv, vl, col, xq, si, st);
        if (sk == 1 && lk == 2)
            return bl2_load_f64_i32((const double *)sc, (const int32_t *)lb, n, trec, sthr, keys, hc, sv, vl, col, xq, si, st);
        return -1;
    }
    if (sk == 0 && lk == 3)
        return bl_load_f32_i64((const float *)sc, (const int64_t *)lb, n, trec, sthr, keys, hc, sv, vl, col, xq, si, st);
    if (sk == 0 && lk == 2)
        return bl_load_f32_i32((const float *)sc, (const int32_t *)lb, n, trec, sthr, keys, hc, sv, vl, col, xq, si, st);
    if (sk == 1 && lk == 3)
        return bl_load_f64_i64((const double *)sc, (const int64_t *)lb, n, trec, sthr, keys, hc, sv, vl, col, xq, si, st);
    if (sk == 1 && lk == 2)
        return bl_load_f64_i32((const double *)sc, (const int32_t *)lb, n, trec, sthr, keys, hc, sv, vl, col, xq, si, st);
#else
    (void)sc; (void)sk; (void)lb; (void)lk; (void)n; (void)trec; (void)sthr; (void)keys; (void)hc; (void)sv;
    (void)vl; (void)col; (void)xq; (void)si; (void)st;
#endif
    return -1;
}

#endif
