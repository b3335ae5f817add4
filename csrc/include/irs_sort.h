/* Sorting a query's run entries into trec_eval order: score descending, then
 * document id descending (strcmp order on the bytes).  Introsort (quicksort with
 * median-of-three, insertion sort for short ranges, heapsort past a depth
 * limit): O(n log n) worst case, no recursion on the larger side. */
#ifndef IRS_SORT_H
#define IRS_SORT_H

#include <stdint.h>
#include "irs_common.h"

typedef struct {
    double score;
    int64_t start;     /* offset of the doc id in the byte buffer */
    uint64_t hash;     /* hash of the doc id */
    int32_t len;       /* length of the doc id */
    int32_t pos;       /* position in the input (tie-break for 'input' order) */
} irs_entry;

/* < 0 if a ranks before b.  mode 0: trec (score desc, docid desc);
 * mode 1: score desc, then input position (stable); mode 2: doc id desc, then
 * input position (qrels: repeated doc ids adjacent, in file order). */
static inline int irs_entry_cmp(const irs_entry *a, const irs_entry *b, const char *buf, int mode)
{
    if (mode == 2) {
        int c = irs_bytes_cmp(buf + a->start, a->len, buf + b->start, b->len);
        if (c)
            return -c;
        return (a->pos > b->pos) - (a->pos < b->pos);
    }
    if (a->score > b->score) return -1;
    if (a->score < b->score) return 1;
    if (mode == 0)
        return -irs_bytes_cmp(buf + a->start, a->len, buf + b->start, b->len);
    return (a->pos > b->pos) - (a->pos < b->pos);
}

static inline void irs_entry_swap(irs_entry *a, irs_entry *b)
{
    irs_entry t = *a;
    *a = *b;
    *b = t;
}

static void irs_insertion_sort(irs_entry *a, int64_t n, const char *buf, int mode)
{
    int64_t i, j;
    for (i = 1; i < n; i++) {
        irs_entry x = a[i];
        j = i;
        while (j > 0 && irs_entry_cmp(&x, &a[j - 1], buf, mode) < 0) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

static void irs_sift_down(irs_entry *a, int64_t root, int64_t n, const char *buf, int mode)
{
    for (;;) {
        int64_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && irs_entry_cmp(&a[child], &a[child + 1], buf, mode) < 0)
            child++;
        if (irs_entry_cmp(&a[root], &a[child], buf, mode) >= 0)
            return;
        irs_entry_swap(&a[root], &a[child]);
        root = child;
    }
}

static void irs_heap_sort(irs_entry *a, int64_t n, const char *buf, int mode)
{
    int64_t i;
    for (i = n / 2 - 1; i >= 0; i--)
        irs_sift_down(a, i, n, buf, mode);
    for (i = n - 1; i > 0; i--) {
        irs_entry_swap(&a[0], &a[i]);
        irs_sift_down(a, 0, i, buf, mode);
    }
}

static void irs_introsort(irs_entry *a, int64_t n, const char *buf, int mode, int depth)
{
    while (n > 24) {
        int64_t mid = n / 2, i, j;
        irs_entry pivot;
        if (depth-- <= 0) {
            irs_heap_sort(a, n, buf, mode);
            return;
        }
        /* median of three into a[mid] */
        if (irs_entry_cmp(&a[mid], &a[0], buf, mode) < 0) irs_entry_swap(&a[mid], &a[0]);
        if (irs_entry_cmp(&a[n - 1], &a[mid], buf, mode) < 0) {
            irs_entry_swap(&a[n - 1], &a[mid]);
            if (irs_entry_cmp(&a[mid], &a[0], buf, mode) < 0) irs_entry_swap(&a[mid], &a[0]);
        }
        pivot = a[mid];
        i = 0;
        j = n - 1;
        for (;;) {
            while (irs_entry_cmp(&a[i], &pivot, buf, mode) < 0) i++;
            while (irs_entry_cmp(&pivot, &a[j], buf, mode) < 0) j--;
            if (i >= j)
                break;
            irs_entry_swap(&a[i], &a[j]);
            i++;
            j--;
        }
        /* [0, j] and [j+1, n) ; recurse on the smaller part */
        if (j + 1 < n - (j + 1)) {
            irs_introsort(a, j + 1, buf, mode, depth);
            a += j + 1;
            n -= j + 1;
        } else {
            irs_introsort(a + j + 1, n - (j + 1), buf, mode, depth);
            n = j + 1;
        }
    }
    irs_insertion_sort(a, n, buf, mode);
}

/* Sort a[0..n) in trec order (mode 0) or stable score order (mode 1).
 * Already-sorted input (the usual case for run files written in rank order)
 * costs one linear check. */
static int irs_depth(int64_t n)
{
    int depth = 0;
    while (n > 1) {
        depth += 2;
        n >>= 1;
    }
    return depth;
}

static void irs_sort_entries(irs_entry *a, int64_t n, const char *buf, int mode)
{
    int64_t i, s, e;
    for (i = 1; i < n; i++)
        if (irs_entry_cmp(&a[i - 1], &a[i], buf, mode) > 0)
            break;
    if (i >= n)
        return;
    /* Scores already non-increasing: only the tie groups need ordering. */
    for (i = (mode == 2 ? n : 1); i < n; i++)
        if (a[i - 1].score < a[i].score)
            break;
    if (i >= n && mode != 2) {
        s = 0;
        while (s < n) {
            e = s + 1;
            while (e < n && a[e].score == a[s].score)
                e++;
            if (e - s > 1)
                irs_introsort(a + s, e - s, buf, mode, irs_depth(e - s));
            s = e;
        }
        return;
    }
    irs_introsort(a, n, buf, mode, irs_depth(n));
}

#endif
