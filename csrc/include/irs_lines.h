/* Line-level helpers of the parallel TREC reader.
 *
 * - irs_first_token: the first white-space separated token of a line, as
 *   irs_tokens (irs_tokenize.h) finds it
 * - irs_release_pages: give back the pages of a consumed range of a read-only
 *   file mapping (they stay in the page cache; the process' resident set drops)
 */
#ifndef IRS_LINES_H
#define IRS_LINES_H

#include <stdint.h>
#include <string.h>
#include "irs_tokenize.h"
#include "irs_common.h"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

/* Iterator over the newlines of [s, end): 64 bytes classified at a time into a
 * bit mask (SSE2), so that short lines cost a bit scan, not a memchr call. */
typedef struct {
    const char *blk;    /* start of the current block */
    const char *end;
    uint64_t mask;      /* newlines of the block not yet returned */
} irs_nl_iter;

static inline uint64_t irs_nl_mask(const char *p, int64_t n)
{
    uint64_t m = 0;
#ifdef IRS_HAVE_SSE2
    if (n >= 64) {
        const __m128i nl = _mm_set1_epi8('\n');
        int k;
        for (k = 0; k < 4; k++)
            m |= (uint64_t)(uint32_t)_mm_movemask_epi8(
                     _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * k)), nl)) << (16 * k);
        return m;
    }
#endif
    {
        int64_t i, w = n < 64 ? n : 64;
        for (i = 0; i < w; i++)
            if (p[i] == '\n')
                m |= ((uint64_t)1) << i;
    }
    return m;
}

static inline void irs_nl_init(irs_nl_iter *it, const char *s, const char *end)
{
    it->blk = s;
    it->end = end;
    it->mask = s < end ? irs_nl_mask(s, end - s) : 0;
}

/* The next newline, or end when there is none. */
static inline const char *irs_nl_next(irs_nl_iter *it)
{
    while (!it->mask) {
        it->blk += 64;
        if (it->blk >= it->end) {
            it->blk = it->end;
            return it->end;
        }
        it->mask = irs_nl_mask(it->blk, it->end - it->blk);
    }
    {
        const char *nl = it->blk + irs_ctz64(it->mask);
        it->mask &= it->mask - 1;
        return nl;
    }
}

/* The first token of line [s, eol): 1 with the token (tok, len) set, 0 for a blank line. */
static inline int irs_first_token(const char *s, const char *eol, const char **tok, int64_t *len)
{
    const char *p = s, *q;
    while (p < eol && irs_is_space((unsigned char)*p))
        p++;
    if (p == eol)
        return 0;
    q = p + 1;
    while (q < eol && !irs_is_space((unsigned char)*q))
        q++;
    *tok = p;
    *len = q - p;
    return 1;
}

/* Drop the whole pages inside [lo, hi) of a read-only shared file mapping from
 * the resident set (MADV_DONTNEED: later reads fault them in again from the page
 * cache).  Only for memory that is such a mapping. */
static inline void irs_release_pages(const char *lo, const char *hi)
{
#if defined(__linux__) && defined(MADV_DONTNEED)
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t a, b;
    if (page <= 0)
        return;
    a = ((uintptr_t)lo + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    b = (uintptr_t)hi & ~((uintptr_t)page - 1);
    if (b > a)
        (void)madvise((void *)a, b - a, MADV_DONTNEED);
#else
    (void)lo;
    (void)hi;
#endif
}

/* Fault in the pages of [p, p + n) for writing in one call (MADV_POPULATE_WRITE,
 * Linux 5.14+): cheaper than a page fault per page.  Where it is unknown or
 * fails, the pages are faulted in as they are first written. */
static inline void irs_populate(void *p, int64_t n)
{
#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t a, b;
    if (page <= 0 || n <= 0)
        return;
    a = (uintptr_t)p & ~((uintptr_t)page - 1);
    b = ((uintptr_t)p + (uintptr_t)n + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    (void)madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)n;
#endif
}

/* a[0..n) == b[0..n), inline (ids are short: a libc call costs more than the compare) */
static inline int irs_same_bytes(const char *a, const char *b, int64_t n)
{
    while (n >= 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (x != y)
            return 0;
        a += 8;
        b += 8;
        n -= 8;
    }
    while (n > 0) {
        if (*a != *b)
            return 0;
        a++;
        b++;
        n--;
    }
    return 1;
}

/* Copy n bytes to dst; when 16 bytes from dst are writable (room >= 16) a
 * short id is copied in one 16-byte move (the bytes past n are scratch). */
static inline void irs_copy_short(char *dst, const char *src, int64_t n, int64_t room, int64_t avail)
{
    if (n <= 16 && room >= 16 && avail >= 16)
        memcpy(dst, src, 16);
    else
        memcpy(dst, src, (size_t)n);
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ || defined(_M_X64) || defined(_M_IX86) \
    || defined(_M_ARM64)
#define IRS_LITTLE_ENDIAN 1
#endif

/* irs_hash_bytes(p, n) (same value), the last partial word read in one 8-byte
 * load when avail >= 8 bytes from p may be read. */
static inline uint64_t irs_hash_bytes_padded(const char *p, int64_t n, int64_t avail)
{
#ifdef IRS_LITTLE_ENDIAN
    if (avail >= 8 && avail >= n) {
        uint64_t h = 0x9E3779B97F4A7C15ULL ^ (uint64_t)n;
        int64_t r;
        while (n >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
            h ^= h >> 31;
            p += 8;
            n -= 8;
            avail -= 8;
        }
        r = n;
        if (r > 0) {
            uint64_t w;
            if (avail >= 8) {
                memcpy(&w, p, 8);
                w &= ~(uint64_t)0 >> (64 - 8 * r);
            } else {
                int64_t i;
                w = 0;
                for (i = 0; i < r; i++)
                    w |= ((uint64_t)(unsigned char)p[i]) << (8 * i);
            }
            h = (h ^ w) * 0x94d049bb133111ebULL;
        }
        return irs_mix64(h);
    }
#endif
    (void)avail;
    return irs_hash_bytes(p, n);
}

#endif
