/* Exact sums of doubles in a fixed-size integer accumulator (a Kulisch-style
 * long accumulator): every finite double is m * 2^(e - 53) with |m| < 2^53;
 * its bits are added, without rounding, into 32-bit limbs held in int64_t
 * (limb i weighs 2^(32 i - IRS_EXACT_BIAS)).  Sums of such accumulators are
 * elementwise integer sums, so two accumulators (two workers, two processes of
 * an all-reduce) merge exactly, in any order: the value does not depend on how
 * the numbers were split or in which order they came.
 *
 * After irs_exact_normalize every limb but the last is in [0, 2^32) and the last
 * holds the sign; up to 2^30 additions (or sums of 2^30 normalized
 * accumulators) fit before the next normalization. */
#ifndef IRS_EXACTSUM_H
#define IRS_EXACTSUM_H

#include <stdint.h>
#include <string.h>

/* bit 0 weighs 2^-IRS_EXACT_BIAS; the smallest subnormal's bit is bit 1 and
 * the largest double's top bit is bit 2151: 68 limbs, 2 more of headroom for
 * sums beyond DBL_MAX (up to 2^63 of them). */
#define IRS_EXACT_BIAS 1127
#define IRS_EXACT_LIMBS 70
#define IRS_EXACT_BATCH (1 << 30)

/* Adds a finite double (the caller checks finiteness): its 53-bit significand,
 * read from the IEEE 754 bits, at the bit position of its lowest bit. */
static inline void irs_exact_add(int64_t *L, double v) {
    uint64_t bits, u, lo, hi;
    int ef, i, sh;
    int64_t s;
    memcpy(&bits, &v, sizeof bits);
    ef = (int)((bits >> 52) & 0x7ff);
    u = bits & ((UINT64_C(1) << 52) - 1);
    if (ef == 0) {                           /* zero or subnormal: u * 2^-1074 */
        if (u == 0) return;
        ef = 1;
    } else {
        u |= UINT64_C(1) << 52;              /* normal: u * 2^(ef - 1075) */
    }
    s = (bits >> 63) ? -1 : 1;
    i = ef - 1075 + IRS_EXACT_BIAS;          /* bit position of u's lowest bit, >= 53 */
    sh = i & 31;
    i >>= 5;
    /* u << sh spans at most 85 bits: three 32-bit chunks */
    lo = u << sh;                            /* the low 64 bits */
    hi = sh ? (u >> (64 - sh)) : 0;          /* bits 64.. */
    L[i] += s * (int64_t)(lo & 0xffffffffu);
    L[i + 1] += s * (int64_t)(lo >> 32);
    L[i + 2] += s * (int64_t)hi;
}

/* Carries propagated: limbs 0..n-2 in [0, 2^32), the last one signed. */
static inline void irs_exact_normalize(int64_t *L, int n) {
    int i;
    int64_t c;
    for (i = 0; i < n - 1; i++) {
        c = L[i] >> 32;                      /* arithmetic shift: floor division by 2^32 */
        L[i] -= (int64_t)((uint64_t)c << 32);
        L[i + 1] += c;
    }
}

#endif
