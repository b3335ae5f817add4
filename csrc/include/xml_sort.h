/* In-place ascending sort of int64 keys for the XML kernels (irscore._xml).
 * Quicksort with median-of-three pivots, insertion sort for short ranges and a
 * heapsort fallback when recursion gets deep (introsort), so the worst case is
 * O(n log n).  No allocation, no global state, callable without the GIL. */
#ifndef IRSCORE_XML_SORT_H
#define IRSCORE_XML_SORT_H

#include <stdint.h>
#include <stddef.h>

static inline void xml_isort_i64(int64_t *a, ptrdiff_t n) {
    for (ptrdiff_t i = 1; i < n; i++) {
        int64_t v = a[i];
        ptrdiff_t j = i - 1;
        while (j >= 0 && a[j] > v) { a[j + 1] = a[j]; j--; }
        a[j + 1] = v;
    }
}

static inline void xml_sift_i64(int64_t *a, ptrdiff_t root, ptrdiff_t n) {
    int64_t v = a[root];
    for (;;) {
        ptrdiff_t child = 2 * root + 1;
        if (child >= n) break;
        if (child + 1 < n && a[child + 1] > a[child]) child++;
        if (a[child] <= v) break;
        a[root] = a[child];
        root = child;
    }
    a[root] = v;
}

static inline void xml_hsort_i64(int64_t *a, ptrdiff_t n) {
    for (ptrdiff_t i = n / 2 - 1; i >= 0; i--) xml_sift_i64(a, i, n);
    for (ptrdiff_t i = n - 1; i > 0; i--) {
        int64_t t = a[0]; a[0] = a[i]; a[i] = t;
        xml_sift_i64(a, 0, i);
    }
}

static void xml_introsort_i64(int64_t *a, ptrdiff_t n, int depth) {
    while (n > 24) {
        if (depth-- <= 0) { xml_hsort_i64(a, n); return; }
        ptrdiff_t mid = n / 2;
        int64_t x = a[0], y = a[mid], z = a[n - 1], p;
        if (x < y) { p = (y < z) ? y : ((x < z) ? z : x); }
        else       { p = (x < z) ? x : ((y < z) ? z : y); }
        ptrdiff_t i = 0, j = n - 1;
        for (;;) {
            while (a[i] < p) i++;
            while (a[j] > p) j--;
            if (i >= j) break;
            int64_t t = a[i]; a[i] = a[j]; a[j] = t;
            i++; j--;
        }
        /* [0, j] <= p <= [j+1, n) ; recurse on the smaller part */
        ptrdiff_t left = j + 1;
        if (left < n - left) {
            xml_introsort_i64(a, left, depth);
            a += left; n -= left;
        } else {
            xml_introsort_i64(a + left, n - left, depth);
            n = left;
        }
    }
    xml_isort_i64(a, n);
}

static inline void xml_sort_i64(int64_t *a, ptrdiff_t n) {
    int depth = 0;
    for (ptrdiff_t m = n; m > 1; m >>= 1) depth += 2;
    xml_introsort_i64(a, n, depth);
}

/* LSD radix sort of non-negative int64 keys, 11-bit digits, only as many
 * passes as the largest key needs; ``tmp`` has room for n keys.  Short
 * inputs go to the introsort. */
static inline void xml_radix_sort_i64(int64_t *a, int64_t *tmp, ptrdiff_t n) {
    if (n < 256) { xml_sort_i64(a, n); return; }
    int64_t mx = 0;
    for (ptrdiff_t i = 0; i < n; i++) if (a[i] > mx) mx = a[i];
    if (mx < 0) { xml_sort_i64(a, n); return; }
    ptrdiff_t cnt[2048];
    int64_t *src = a, *dst = tmp;
    for (int shift = 0; shift < 63 && (mx >> shift) > 0; shift += 11) {
        for (int k = 0; k < 2048; k++) cnt[k] = 0;
        for (ptrdiff_t i = 0; i < n; i++) cnt[(src[i] >> shift) & 2047]++;
        ptrdiff_t sum = 0;
        for (int k = 0; k < 2048; k++) { ptrdiff_t c = cnt[k]; cnt[k] = sum; sum += c; }
        for (ptrdiff_t i = 0; i < n; i++) dst[cnt[(src[i] >> shift) & 2047]++] = src[i];
        int64_t *t = src; src = dst; dst = t;
    }
    if (src != a) for (ptrdiff_t i = 0; i < n; i++) a[i] = src[i];
}

#endif
