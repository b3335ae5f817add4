/* Splitting one text line into white-space separated tokens.
 *
 * The line is classified 64 bytes at a time into a bit mask of white space
 * (SSE2 where available, a scalar loop otherwise); token starts and ends are the
 * 0->1 / 1->0 transitions of that mask, found with count-trailing-zeros.  This
 * avoids the per-byte branches (and their mispredictions at every token
 * boundary) of a byte loop.  White space is ' ', '\t', '\n', '\v', '\f', '\r'.
 * Never reads outside [line, bufend).
 */
#ifndef IRS_TOKENIZE_H
#define IRS_TOKENIZE_H

#include <stdint.h>

#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#include <emmintrin.h>
#define IRS_HAVE_SSE2 1
#endif

#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
static inline int irs_ctz64(uint64_t x)
{
    unsigned long i;
    _BitScanForward64(&i, x);
    return (int)i;
}
#else
static inline int irs_ctz64(uint64_t x) { return __builtin_ctzll(x); }
#endif

static inline int irs_is_space(unsigned char c)
{
    return c == ' ' || (c >= 9 && c <= 13);
}

/* Mask of the white-space bytes among p[0..n) (n <= 64); bits >= n are 0.
 * *odd gets the mask of the bytes that are not ASCII or are NUL (the same
 * loads).  With ``full`` the 64 bytes at p may be read; only the 16-byte chunks
 * that hold bytes of p[0..n) are (a TREC line is typically 30-40 bytes). */
static inline uint64_t irs_space_mask(const char *p, int64_t n, int full, uint64_t *odd)
{
    uint64_t m = 0, o = 0;
#ifdef IRS_HAVE_SSE2
    if (full) {
        int k;
        const __m128i sp = _mm_set1_epi8(' ');
        const __m128i nine = _mm_set1_epi8(9);
        const __m128i four = _mm_set1_epi8(4);
        const __m128i zero = _mm_setzero_si128();
        int nchunk = (int)((n + 15) >> 4);   /* only the 16-byte chunks the line reaches */
        for (k = 0; k < nchunk; k++) {
            __m128i x = _mm_loadu_si128((const __m128i *)(p + 16 * k));
            __m128i t = _mm_sub_epi8(x, nine);
            __m128i ctl = _mm_cmpeq_epi8(_mm_min_epu8(t, four), t);
            __m128i s = _mm_or_si128(_mm_cmpeq_epi8(x, sp), ctl);
            m |= (uint64_t)(uint32_t)_mm_movemask_epi8(s) << (16 * k);
            o |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_or_si128(x, _mm_cmpeq_epi8(x, zero))) << (16 * k);
        }
        if (n < 64) {
            m &= (((uint64_t)1) << n) - 1;
            o &= (((uint64_t)1) << n) - 1;
        }
        *odd = o;
        return m;
    }
#else
    (void)full;
#endif
    {
        int64_t i;
        for (i = 0; i < n; i++) {
            unsigned char c = (unsigned char)p[i];
            if (irs_is_space(c))
                m |= ((uint64_t)1) << i;
            if (c == 0 || c >= 0x80)
                o |= ((uint64_t)1) << i;
        }
    }
    *odd = o;
    return m;
}

/* Tokens of line [s, eol); bufend bounds what may be read.  Stores the first
 * maxtok tokens (start, length) and returns the total number of tokens;
 * *plain is set to 1 when every byte of the line is ASCII and none is NUL (the
 * line is text), else 0. */
static inline int irs_tokens(const char *s, const char *eol, const char *bufend,
                             const char **tok, int64_t *tlen, int maxtok, int *plain)
{
    int n = 0;
    int in_tok = 0;
    uint64_t odd_any = 0;
    const char *p = s;
    while (p < eol) {
        int64_t avail = eol - p;
        int64_t w = avail < 64 ? avail : 64;
        uint64_t valid = w == 64 ? ~(uint64_t)0 : ((((uint64_t)1) << w) - 1);
        uint64_t odd;
        uint64_t M = irs_space_mask(p, w, bufend - p >= 64, &odd);
        uint64_t ns = ~M & valid;
        uint64_t prev_ns = (ns << 1) | (uint64_t)in_tok;
        uint64_t starts = ns & ~prev_ns;
        uint64_t ends = (M | ~valid) & prev_ns;   /* first white space after a token */
        if (w < 64)
            ends &= (((uint64_t)1) << w) | valid;
        /* starts and ends alternate; an end before the first start closes the
         * token carried over from the previous window */
        if (in_tok && ends) {
            int j = irs_ctz64(ends);
            if (n < maxtok)
                tlen[n] = (p + j) - tok[n];
            n++;
            ends &= ends - 1;
        }
        while (starts) {
            int i = irs_ctz64(starts);
            starts &= starts - 1;
            if (n < maxtok)
                tok[n] = p + i;
            if (!ends)
                break;      /* runs into the next window */
            {
                int j = irs_ctz64(ends);
                ends &= ends - 1;
                if (n < maxtok)
                    tlen[n] = (p + j) - tok[n];
                n++;
            }
        }
        /* a token running to eol inside this window was closed by bit w above */
        in_tok = w == 64 ? (int)((ns >> 63) & 1) : 0;
        odd_any |= odd;
        p += w;
    }
    if (in_tok) {
        if (n < maxtok)
            tlen[n] = eol - tok[n];
        n++;
    }
    *plain = odd_any == 0;
    return n;
}

#endif
