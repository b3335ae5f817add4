/* Small C helpers shared by the irscore kernels (static inline, no state).
 *
 * - irs_hash_bytes: a fast 64-bit hash of a byte string (doc ids, query ids)
 * - irs_bytes_cmp:  strcmp-order comparison of two byte strings with lengths
 * - irs_parse_double / irs_parse_long: strict number parsing of one token
 */
#ifndef IRS_COMMON_H
#define IRS_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "irs_float.h"

/* 1 in a build with Cython bounds checks (IRSCORE_DEBUG=1 at build time) */
#ifndef IRSCORE_BOUNDSCHECK
#define IRSCORE_BOUNDSCHECK 0
#endif

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

/* Ask for small pages on a freshly allocated, not yet touched buffer.  numpy
 * advises transparent huge pages for large arrays; with the kernel's default
 * "defrag=madvise" the first touch of such memory may compact memory
 * synchronously, which made first calls markedly slower than later ones. */
static inline void irs_no_hugepages(void *p, size_t n)
{
#if defined(__linux__) && defined(MADV_NOHUGEPAGE)
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t a, b;
    if (page <= 0 || n < (size_t)(4 << 20))
        return;
    a = ((uintptr_t)p + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    b = ((uintptr_t)p + n) & ~((uintptr_t)page - 1);
    if (b > a)
        (void)madvise((void *)a, b - a, MADV_NOHUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}

static inline uint64_t irs_mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

/* A hint to fetch the cache line of p (read, or write) ahead of a random access:
 * no fault, no effect on results. */
#if defined(__GNUC__) || defined(__clang__)
#define IRS_PREFETCH(p) __builtin_prefetch((const void *)(p), 0)
#define IRS_PREFETCH_W(p) __builtin_prefetch((const void *)(p), 1)
#else
#define IRS_PREFETCH(p) ((void)0)
#define IRS_PREFETCH_W(p) ((void)0)
#endif

static inline uint64_t irs_hash_bytes(const char *p, int64_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (uint64_t)n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 31;
        p += 8;
        n -= 8;
    }
    if (n > 0) {
        uint64_t w = 0;
        int64_t i;
        for (i = 0; i < n; i++)
            w |= ((uint64_t)(unsigned char)p[i]) << (8 * i);
        h = (h ^ w) * 0x94d049bb133111ebULL;
    }
    return irs_mix64(h);
}

#if defined(_MSC_VER) && !defined(__clang__)
#include <stdlib.h>
#define IRS_BSWAP64(x) _byteswap_uint64(x)
#else
#define IRS_BSWAP64(x) __builtin_bswap64(x)
#endif

/* strcmp order on unsigned bytes (the sign of the result); a proper prefix sorts
 * first.  Inline, eight bytes at a time: ids are short, and a libc memcmp call
 * costs more than the compare. */
static inline int irs_bytes_cmp(const char *a, int64_t na, const char *b, int64_t nb)
{
    int64_t n = na < nb ? na : nb, i = 0;
#if (defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) || defined(_M_X64) || \
    defined(_M_IX86) || defined(_M_ARM64)
    for (; i + 8 <= n; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y) {
            x = IRS_BSWAP64(x);
            y = IRS_BSWAP64(y);
            return x < y ? -1 : 1;
        }
    }
#endif
    for (; i < n; i++) {
        unsigned char ca = (unsigned char)a[i], cb = (unsigned char)b[i];
        if (ca != cb)
            return ca < cb ? -1 : 1;
    }
    return (na > nb) - (na < nb);
}

static const double irs_pow10_exact[23] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* strtod in the "C" locale, whatever locale the process has set (a program that
 * called setlocale(LC_NUMERIC, "de_DE") must not read "1,5" as 1.5 nor refuse
 * "0.5").  glibc, macOS and the BSDs: strtod_l with a "C" locale made once per
 * module (atomically: threads may parse at the same time); Windows: _strtod_l;
 * elsewhere (musl, whose strtod ignores the locale) plain strtod. */
#if defined(_WIN32)
#include <locale.h>
#include <intrin.h>
static inline double irs_strtod_c(const char *s, char **endp)
{
    static _locale_t loc = NULL;
    _locale_t cur = (_locale_t)_InterlockedCompareExchangePointer((void *volatile *)&loc, NULL, NULL);
    if (cur == NULL) {
        _locale_t mine = _create_locale(LC_NUMERIC, "C");
        if (mine == NULL)
            return strtod(s, endp);
        cur = (_locale_t)_InterlockedCompareExchangePointer((void *volatile *)&loc, mine, NULL);
        if (cur != NULL)
            _free_locale(mine);
        else
            cur = mine;
    }
    return _strtod_l(s, endp, cur);
}
#elif defined(__GLIBC__) || defined(__APPLE__) || defined(__FreeBSD__) || defined(__NetBSD__) || defined(__OpenBSD__)
#include <locale.h>
#if defined(__APPLE__) || defined(__FreeBSD__)
#include <xlocale.h>
#endif
static inline double irs_strtod_c(const char *s, char **endp)
{
    static locale_t loc = (locale_t)0;
    locale_t cur = __atomic_load_n(&loc, __ATOMIC_ACQUIRE);
    if (cur == (locale_t)0) {
        locale_t expected = (locale_t)0;
        locale_t mine = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
        if (mine == (locale_t)0)
            return strtod(s, endp);
        if (__atomic_compare_exchange_n(&loc, &expected, mine, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            cur = mine;
        } else {
            freelocale(mine);
            cur = expected;
        }
    }
    return strtod_l(s, endp, cur);
}
#else
static inline double irs_strtod_c(const char *s, char **endp)
{
    return strtod(s, endp);
}
#endif

/* Parse the token p[0..n) as a finite decimal number.
 * Returns 0 on success, -1 if the token is not a number, -2 if NaN/inf.
 * Exact: simple decimals take Clinger's fast path (mantissa < 2^53, |exp| <= 22,
 * one correctly rounded operation), other decimals of up to 19 significant
 * digits Eisel-Lemire (irs_float.h); everything else (longer significands, the
 * cases Eisel-Lemire declines, hexadecimal, inf/nan spellings) goes through
 * strtod in the C locale, so the result is always the correctly rounded double,
 * as trec_eval's atof gives. */
static inline int irs_parse_double(const char *p, int64_t n, double *out)
{
    const char *s = p, *end = p + n;
    int neg = 0;
    uint64_t mant = 0;
    int ndig = 0, frac = 0, any = 0;
    int64_t e10 = 0;
    if (n <= 0)
        return -1;
    if (n <= 17) {
        /* fast path, the usual score: a sign, at most 15 digits (so below
         * 2^53) and at most one '.', nothing else; one correctly rounded
         * division, the same as the general Clinger path below.  Anything
         * else is parsed again by the general code. */
        const char *t = p;
        uint64_t m = 0;
        int nd = 0, fr = -1, sg = 0;
        if (*t == '+' || *t == '-') {
            sg = (*t == '-');
            t++;
        }
        for (; t < end; t++) {
            unsigned d = (unsigned)((unsigned char)*t - '0');
            if (d <= 9) {
                m = m * 10 + d;
                nd++;
            } else if (*t == '.' && fr < 0) {
                fr = (int)(end - t - 1);
            } else {
                break;
            }
        }
        if (t == end && nd > 0 && nd <= 15) {
            double v = (double)m;
            if (fr > 0)
                v = v / irs_pow10_exact[fr];
            *out = sg ? -v : v;
            return 0;
        }
    }
    if (*s == '+' || *s == '-') {
        neg = (*s == '-');
        s++;
    }
    while (s < end && *s >= '0' && *s <= '9') {
        if (ndig < 19) {
            mant = mant * 10 + (uint64_t)(*s - '0');
            if (mant) ndig++;
        } else {
            e10++;
            ndig++;
        }
        s++;
        any = 1;
    }
    if (s < end && *s == '.') {
        s++;
        while (s < end && *s >= '0' && *s <= '9') {
            if (ndig < 19) {
                mant = mant * 10 + (uint64_t)(*s - '0');
                if (mant) ndig++;
                frac++;
            } else {
                ndig++;
            }
            s++;
            any = 1;
        }
    }
    if (any && s < end && (*s == 'e' || *s == 'E')) {
        const char *t = s + 1;
        int eneg = 0;
        int64_t ev = 0;
        int edig = 0;
        if (t < end && (*t == '+' || *t == '-')) {
            eneg = (*t == '-');
            t++;
        }
        while (t < end && *t >= '0' && *t <= '9') {
            if (ev < 100000)
                ev = ev * 10 + (*t - '0');
            t++;
            edig = 1;
        }
        if (!edig)
            return -1;
        e10 += eneg ? -ev : ev;
        s = t;
    }
    if (any && s == end) {
        int64_t e = e10 - frac;
        if (ndig <= 19 && mant <= (1ULL << 53) && e >= -22 && e <= 22) {
            double v = (double)mant;
            v = e < 0 ? v / irs_pow10_exact[-e] : v * irs_pow10_exact[e];
            *out = neg ? -v : v;
            return 0;
        }
        /* up to 19 significant digits (the significand exact): Eisel-Lemire,
         * which declines the rare cases it cannot decide */
        if (ndig <= 19 && irs_eisel_lemire(mant, e, neg, out))
            return 0;
    }
    {
        /* general path: strtod on a NUL-terminated copy */
        char buf[128];
        char *endp;
        char *heap = NULL;
        char *tok = buf;
        double v;
        if (n >= (int64_t)sizeof(buf)) {
            heap = (char *)malloc((size_t)n + 1);
            if (!heap)
                return -1;
            tok = heap;
        }
        memcpy(tok, p, (size_t)n);
        tok[n] = '\0';
        v = irs_strtod_c(tok, &endp);
        if (endp != tok + n) {
            free(heap);
            return -1;
        }
        free(heap);
        if (!isfinite(v))
            return -2;
        *out = v;
        return 0;
    }
}

/* Parse p[0..n) as a base-10 integer that fits in int32 (-2147483648 ..
 * 2147483647).  0 on success, -1 if it is not an integer, -2 if it is an
 * integer outside the int32 range. */
static inline int irs_parse_int32(const char *p, int64_t n, int32_t *out)
{
    const char *s = p, *end = p + n;
    int neg = 0, big = 0;
    int64_t v = 0;
    if (n <= 0)
        return -1;
    if (*s == '+' || *s == '-') {
        neg = (*s == '-');
        s++;
    }
    if (s == end)
        return -1;
    while (s < end) {
        if (*s < '0' || *s > '9')
            return -1;
        if (!big) {
            v = v * 10 + (*s - '0');
            if (v > 2147483648LL)
                big = 1;
        }
        s++;
    }
    if (big || (!neg && v > 2147483647LL))
        return -2;
    *out = (int32_t)(neg ? -v : v);
    return 0;
}

/* 1 if p[0..n) holds a NUL byte or is not valid UTF-8 (overlong forms,
 * surrogates and code points above U+10FFFF are invalid).  ASCII text is
 * checked eight bytes at a time. */
static inline int irs_not_text(const char *p, int64_t n)
{
    const unsigned char *s = (const unsigned char *)p, *end = s + n;
    while (s < end) {
        unsigned char c;
        if (end - s >= 8) {
            uint64_t w;
            memcpy(&w, s, 8);
            if (!(w & 0x8080808080808080ULL) &&
                !((w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL)) {
                s += 8;
                continue;
            }
        }
        c = *s;
        if (c == 0)
            return 1;
        if (c < 0x80) {
            s++;
        } else if (c >= 0xC2 && c <= 0xDF) {
            if (end - s < 2 || (s[1] & 0xC0) != 0x80)
                return 1;
            s += 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            if (end - s < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80)
                return 1;
            if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0))
                return 1;
            s += 3;
        } else if (c >= 0xF0 && c <= 0xF4) {
            if (end - s < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80)
                return 1;
            if ((c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90))
                return 1;
            s += 4;
        } else {
            return 1;
        }
    }
    return 0;
}

#endif
