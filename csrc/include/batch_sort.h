/* Sorting helpers of the batch kernels (irscore._batch): static inline, no state.
 *
 * An item is one candidate of one query: its score, its position among the
 * query's valid candidates (t) and a tie key (tb).  The rank order is score
 * descending, then tb ascending (tb = -column for trec ties, +column for input
 * order), which is a strict total order because tb is unique within a query.
 *
 * - bs_sort:  full sort; a bucket pass over [min, max] of the scores (O(n)
 *             expected), exact insertion sort inside buckets, introsort for
 *             crowded buckets and for rows whose score range is not finite.
 * - bs_topk:  the first k items in rank order (k small): one pass keeping a
 *             sorted buffer.
 * - bs_sort_desc_doubles: plain descending sort of doubles (ideal gains).
 */
#ifndef IRS_BATCH_SORT_H
#define IRS_BATCH_SORT_H

#include <stdint.h>
#include <string.h>
#include <math.h>
#include "irs_introsort.h"

typedef struct {
    double s;
    int32_t t;
    int32_t tb;
} bs_item;

/* a ranks before b */
static inline int bs_before(const bs_item *a, const bs_item *b)
{
    return a->s > b->s || (a->s == b->s && a->tb < b->tb);
}

#define BS_BEFORE(x, y) bs_before((x), (y))
IRS_DEFINE_INTROSORT(bs_introsort, bs_item, BS_BEFORE, IRS_NO_CONTEXT, IRS_NO_CONTEXT)

static inline void bs_insertion(bs_item *a, int64_t n)
{
    bs_introsort_insertion(a, n);
}

static inline void bs_cmp_sort(bs_item *a, int64_t n)
{
    bs_introsort(a, n);
}

/* Sort a[0..n) into rank order given the minimum lo and maximum hi of the
 * scores; returns a or tmp, whichever holds the result.
 * tmp: n items, bk: n int32, hist: 2n + 1 int32. */
static inline bs_item *bs_sort_range(bs_item *a, int64_t n, double lo, double hi, bs_item *tmp,
                                     int32_t *bk, int32_t *hist)
{
    int64_t i, nb = 2 * n;
    double inv;
    if (n <= 32) {
        bs_insertion(a, n);
        return a;
    }
    if (!(hi > lo)) {           /* all tied: tb order */
        bs_cmp_sort(a, n);
        return a;
    }
    inv = (double)nb / (hi - lo);
    if (!isfinite(lo) || !isfinite(hi) || !isfinite(inv) || !(inv > 0.0)) {
        bs_cmp_sort(a, n);
        return a;
    }
    memset(hist, 0, (size_t)(nb + 1) * sizeof(int32_t));
    for (i = 0; i < n; i++) {
        /* monotone: a higher score never lands in a later bucket */
        int64_t b = (int64_t)((hi - a[i].s) * inv);
        if (b >= nb) b = nb - 1;
        if (b < 0) b = 0;
        bk[i] = (int32_t)b;
        hist[b + 1]++;
    }
    {
        int32_t mx = 0;
        for (i = 0; i < nb; i++) {
            if (hist[i + 1] > mx) mx = hist[i + 1];
            hist[i + 1] += hist[i];
        }
        /* hist[b] = start of bucket b */
        for (i = 0; i < n; i++)
            tmp[hist[bk[i]]++] = a[i];
        if (mx <= 16) {
            /* items are out of place only within their bucket: one insertion
               pass costs O(n * max bucket) at worst */
            bs_insertion(tmp, n);
        } else {
            /* hist[b] = end of bucket b */
            int64_t start = 0, b;
            for (b = 0; b < nb; b++) {
                int64_t end = hist[b];
                int64_t m = end - start;
                if (m > 1) {
                    if (m <= 32)
                        bs_insertion(tmp + start, m);
                    else
                        bs_cmp_sort(tmp + start, m);
                }
                start = end;
            }
        }
    }
    return tmp;
}

/* bs_sort_range after a min/max pass (four accumulators: no latency chain). */
static inline bs_item *bs_sort(bs_item *a, int64_t n, bs_item *tmp, int32_t *bk, int32_t *hist)
{
    int64_t i;
    double lo, hi;
    if (n <= 32) {
        bs_insertion(a, n);
        return a;
    }
    {
        double l0 = a[0].s, l1 = l0, l2 = l0, l3 = l0, h0 = l0, h1 = l0, h2 = l0, h3 = l0;
        for (i = 0; i + 4 <= n; i += 4) {
            double s0 = a[i].s, s1 = a[i + 1].s, s2 = a[i + 2].s, s3 = a[i + 3].s;
            l0 = s0 < l0 ? s0 : l0; h0 = s0 > h0 ? s0 : h0;
            l1 = s1 < l1 ? s1 : l1; h1 = s1 > h1 ? s1 : h1;
            l2 = s2 < l2 ? s2 : l2; h2 = s2 > h2 ? s2 : h2;
            l3 = s3 < l3 ? s3 : l3; h3 = s3 > h3 ? s3 : h3;
        }
        for (; i < n; i++) {
            double s0 = a[i].s;
            l0 = s0 < l0 ? s0 : l0; h0 = s0 > h0 ? s0 : h0;
        }
        l0 = l1 < l0 ? l1 : l0; l2 = l3 < l2 ? l3 : l2; lo = l2 < l0 ? l2 : l0;
        h0 = h1 > h0 ? h1 : h0; h2 = h3 > h2 ? h3 : h2; hi = h2 > h0 ? h2 : h0;
    }
    return bs_sort_range(a, n, lo, hi, tmp, bk, hist);
}

/* The first min(k, n) items of a[0..n) in rank order, written to out (k slots). */
static inline int64_t bs_topk(const bs_item *a, int64_t n, int64_t k, bs_item *out)
{
    int64_t i, j, m = 0;
    if (k <= 0)
        return 0;
    for (i = 0; i < n; i++) {
        const bs_item *x = &a[i];
        if (m == k) {
            if (!bs_before(x, &out[k - 1]))
                continue;
            j = k - 1;
        } else {
            j = m;
            m++;
        }
        while (j > 0 && bs_before(x, &out[j - 1])) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = *x;
    }
    return m;
}

#endif
