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
 *
 * Keys (bk_*): a candidate as one uint64, high 32 bits a descending code of its
 * score, low 32 bits its tie code (trec: 0x7FFFFFFF - t, input: t, where t is
 * its position among the row's valid candidates, which follows the column
 * order); ascending keys are the rank order, one integer comparison each.  A
 * float score's code is exact (equal codes: equal scores); a double score's is
 * its 32 high bits (coarse), so runs of equal codes are re-sorted exactly by
 * (score, tie) afterwards (bk_fix_runs, bk_topk_exact).
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
        int32_t mx = 0, run = 0;
        for (i = 0; i < nb; i++) {     /* the running sum in a register: no store-load chain */
            int32_t c = hist[i + 1];
            mx = c > mx ? c : mx;
            run += c;
            hist[i + 1] = run;
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


/* ------------------------------------------------------------------ keys */

#define BK_TIE_MAX 0x7FFFFFFFu

/* descending code of a float score (-0 reads as +0): a smaller code ranks first */
static inline uint32_t bk_code_f32(float f)
{
    uint32_t u, m;
    f += 0.0f;
    memcpy(&u, &f, 4);
    m = (uint32_t)((int32_t)u >> 31) | 0x80000000u;
    return ~(u ^ m);
}

/* the high 32 bits of the descending code of a double score (coarse) */
static inline uint32_t bk_code_f64(double d)
{
    uint64_t u, m;
    d += 0.0;
    memcpy(&u, &d, 8);
    m = (uint64_t)((int64_t)u >> 63) | 0x8000000000000000ull;
    return (uint32_t)((~(u ^ m)) >> 32);
}

static inline uint32_t bk_tie(int64_t t, int trec)
{
    return trec ? BK_TIE_MAX - (uint32_t)t : (uint32_t)t;
}

/* position t of a key's candidate */
static inline int64_t bk_t(uint64_t key, int trec)
{
    uint32_t tb = (uint32_t)key;
    return trec ? (int64_t)(BK_TIE_MAX - tb) : (int64_t)tb;
}

/* the exact rank order of two keys of one row; sv[t]: the candidates' scores */
static inline int bk_before(uint64_t a, uint64_t b, const double *sv, int trec)
{
    double sa, sb;
    if ((a >> 32) != (b >> 32))
        return a < b;
    sa = sv[bk_t(a, trec)];
    sb = sv[bk_t(b, trec)];
    return sa > sb || (sa == sb && (uint32_t)a < (uint32_t)b);
}

/* minimum and maximum of a[0..n), n >= 1 (four accumulators: no latency chain) */
static inline void bk_minmax(const double *a, int64_t n, double *lo, double *hi)
{
    int64_t i;
    double l0 = a[0], l1 = l0, l2 = l0, l3 = l0, h0 = l0, h1 = l0, h2 = l0, h3 = l0;
    for (i = 0; i + 4 <= n; i += 4) {
        double s0 = a[i], s1 = a[i + 1], s2 = a[i + 2], s3 = a[i + 3];
        l0 = s0 < l0 ? s0 : l0; h0 = s0 > h0 ? s0 : h0;
        l1 = s1 < l1 ? s1 : l1; h1 = s1 > h1 ? s1 : h1;
        l2 = s2 < l2 ? s2 : l2; h2 = s2 > h2 ? s2 : h2;
        l3 = s3 < l3 ? s3 : l3; h3 = s3 > h3 ? s3 : h3;
    }
    for (; i < n; i++) {
        double s0 = a[i];
        l0 = s0 < l0 ? s0 : l0; h0 = s0 > h0 ? s0 : h0;
    }
    l0 = l1 < l0 ? l1 : l0; l2 = l3 < l2 ? l3 : l2; *lo = l2 < l0 ? l2 : l0;
    h0 = h1 > h0 ? h1 : h0; h2 = h3 > h2 ? h3 : h2; *hi = h2 > h0 ? h2 : h0;
}

#define BK_LESS(x, y) (*(x) < *(y))
IRS_DEFINE_INTROSORT(bk_introsort, uint64_t, BK_LESS, IRS_NO_CONTEXT, IRS_NO_CONTEXT)

/* Insertion sort of nearly sorted keys that gives up after `budget` moves
 * (returns 0; a[0..n) is then still a permutation of its keys). */
static inline int bk_insertion_budget(uint64_t *a, int64_t n, int64_t budget)
{
    int64_t i, j;
    for (i = 1; i < n; i++) {
        uint64_t x = a[i];
        j = i;
        while (j > 0 && x < a[j - 1]) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
        budget -= i - j;
        if (budget < 0)
            return 0;
    }
    return 1;
}

/* Sort keys a[0..n) ascending; a[i] is the key of candidate i, whose score is
 * sv[i], lo and hi their minimum and maximum (any lo <= hi will do: they only
 * place the buckets).  A counting pass over 4n buckets linear in the score
 * (monotone in the score, so in the key order too: a coarse key only merges
 * neighbours), then one insertion pass, which has little left to do unless
 * the scores crowd a few buckets: past 8n moves, introsort.  (Fewer buckets
 * shorten the prefix sum but leave more insertion moves, whose branches
 * mispredict on data not seen before: n buckets measured ~25% slower on
 * 1,000 fresh rows of 100, though faster on 32 rows evaluated over and over,
 * whose branches the predictor learns.)  Returns a or tmp, whichever holds
 * the result.  tmp: n keys, bk: n int32, hist: 4n + 1 int32. */
static inline uint64_t *bk_sort(uint64_t *a, int64_t n, const double *sv, double lo, double hi, uint64_t *tmp,
                                int32_t *bk, int32_t *hist)
{
    int64_t i, nb = 4 * n;
    int32_t run = 0;
    double inv;
    if (n <= 32) {
        bk_introsort_insertion(a, n);
        return a;
    }
    inv = (double)nb / (hi - lo);
    if (!(hi > lo) || !isfinite(lo) || !isfinite(hi) || !isfinite(inv) || !(inv > 0.0)) {
        bk_introsort(a, n);
        return a;
    }
    memset(hist, 0, (size_t)(nb + 1) * sizeof(int32_t));
    for (i = 0; i < n; i++) {
        int64_t b = (int64_t)((hi - sv[i]) * inv);
        if (b >= nb) b = nb - 1;
        if (b < 0) b = 0;
        bk[i] = (int32_t)b;
        hist[b + 1]++;
    }
    for (i = 1; i + 4 <= nb + 1; i += 4) {   /* the running sum in a register: no store-load chain */
        int32_t c0 = hist[i], c1 = hist[i + 1], c2 = hist[i + 2], c3 = hist[i + 3];
        hist[i] = run += c0;
        hist[i + 1] = run += c1;
        hist[i + 2] = run += c2;
        hist[i + 3] = run += c3;
    }
    for (; i <= nb; i++)
        hist[i] = run += hist[i];
    for (i = 0; i < n; i++)         /* hist[b]: start of bucket b */
        tmp[hist[bk[i]]++] = a[i];
    if (!bk_insertion_budget(tmp, n, 8 * n))
        bk_introsort(tmp, n);
    return tmp;
}

/* The first min(k, n) keys of a[0..n) in ascending order, into out (k slots). */
static inline int64_t bk_topk(const uint64_t *a, int64_t n, int64_t k, uint64_t *out)
{
    int64_t i, j, m = 0;
    if (k <= 0)
        return 0;
    for (i = 0; i < n; i++) {
        uint64_t x = a[i];
        if (m == k) {
            if (x >= out[k - 1])
                continue;
            j = k - 1;
        } else {
            j = m;
            m++;
        }
        while (j > 0 && x < out[j - 1]) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = x;
    }
    return m;
}

/* Coarse keys sorted ascending: re-sort every run of equal codes whose scores
 * differ by (score descending, tie code ascending), exactly.  scr: n items. */
static inline void bk_fix_runs(uint64_t *a, int64_t n, const double *sv, int trec, bs_item *scr)
{
    int64_t i = 0, j, x;
    while (i < n) {
        uint64_t h = a[i] >> 32;
        int differ = 0;
        j = i + 1;
        while (j < n && (a[j] >> 32) == h)
            j++;
        if (j - i > 1) {
            double s0 = sv[bk_t(a[i], trec)];
            for (x = i + 1; x < j; x++)
                differ |= sv[bk_t(a[x], trec)] != s0;
        }
        if (differ) {
            for (x = i; x < j; x++) {
                scr[x - i].s = sv[bk_t(a[x], trec)];
                scr[x - i].t = 0;
                scr[x - i].tb = (int32_t)(uint32_t)a[x];
            }
            bs_cmp_sort(scr, j - i);
            for (x = i; x < j; x++)
                a[x] = (h << 32) | (uint32_t)scr[x - i].tb;
        }
        i = j;
    }
}

/* bk_topk for coarse keys, exact: the candidates sharing the code of the k-th
 * key may belong before it; when the (k+1)-th key has another code none is
 * left out, else they are gathered and sorted exactly.  out: k + 1 slots,
 * scr: n items. */
static inline int64_t bk_topk_exact(const uint64_t *a, int64_t n, int64_t k, uint64_t *out, const double *sv,
                                    int trec, bs_item *scr)
{
    int64_t m, c = 0, g = 0, i;
    uint64_t h;
    if (k <= 0)
        return 0;
    m = bk_topk(a, n, k + 1, out);
    if (m <= k) {                   /* every candidate is in */
        bk_fix_runs(out, m, sv, trec, scr);
        return m;
    }
    h = out[k - 1] >> 32;
    if ((out[k] >> 32) != h) {      /* nothing outside the top k shares its last code */
        bk_fix_runs(out, k, sv, trec, scr);
        return k;
    }
    while (c < k && (out[c] >> 32) < h)
        c++;
    for (i = 0; i < n; i++) {
        if ((a[i] >> 32) == h) {
            scr[g].s = sv[bk_t(a[i], trec)];
            scr[g].t = 0;
            scr[g].tb = (int32_t)(uint32_t)a[i];
            g++;
        }
    }
    bs_cmp_sort(scr, g);
    for (i = c; i < k; i++)
        out[i] = (h << 32) | (uint32_t)scr[i - c].tb;
    bk_fix_runs(out, c, sv, trec, scr);
    return k;
}

#endif
