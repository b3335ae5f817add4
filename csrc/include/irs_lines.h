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
#include "irs_tokenize.h"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

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

#endif
