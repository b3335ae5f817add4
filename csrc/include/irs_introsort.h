/* The one comparison sort of the kernels: introsort (quicksort with a
 * median-of-three pivot, insertion sort below 25 items, heapsort past a depth
 * of 2 log2 n), O(n log n) worst case, in place, no allocation, no state,
 * callable without the GIL.
 *
 * IRS_DEFINE_INTROSORT(NAME, T, BEFORE, PARAMS, ARGS) defines, for items of
 * type T ordered by BEFORE(x, y) (nonzero when *x ranks strictly before *y;
 * it may use the names declared by PARAMS):
 *
 *   static void NAME(T *a, int64_t n PARAMS)            sort a[0..n)
 *   static void NAME##_insertion(T *a, int64_t n PARAMS) insertion sort
 *
 * PARAMS/ARGS carry extra context (", const char *buf, int mode" and
 * ", buf, mode"; IRS_NO_CONTEXT when there is none).  Each kernel keeps its
 * own key and order (irs_sort.h: run entries in trec order; batch_sort.h:
 * score then column; xml_sort.h: int64 ascending); all share this code. */
#ifndef IRS_INTROSORT_H
#define IRS_INTROSORT_H

#include <stdint.h>

#define IRS_NO_CONTEXT

#define IRS_DEFINE_INTROSORT(NAME, T, BEFORE, PARAMS, ARGS)                              \
static void NAME##_insertion(T *a, int64_t n PARAMS)                                   \
{                                                                                      \
    int64_t i, j;                                                                      \
    for (i = 1; i < n; i++) {                                                          \
        T x = a[i];                                                                    \
        j = i;                                                                         \
        while (j > 0 && BEFORE(&x, &a[j - 1])) {                                       \
            a[j] = a[j - 1];                                                           \
            j--;                                                                       \
        }                                                                              \
        a[j] = x;                                                                      \
    }                                                                                  \
}                                                                                      \
                                                                                       \
static void NAME##_sift(T *a, int64_t root, int64_t n PARAMS)                          \
{                                                                                      \
    for (;;) {                                                                         \
        int64_t child = 2 * root + 1;                                                  \
        T t;                                                                           \
        if (child >= n)                                                                \
            return;                                                                    \
        if (child + 1 < n && BEFORE(&a[child], &a[child + 1]))                         \
            child++;                                                                   \
        if (!BEFORE(&a[root], &a[child]))                                              \
            return;                                                                    \
        t = a[root];                                                                   \
        a[root] = a[child];                                                            \
        a[child] = t;                                                                  \
        root = child;                                                                  \
    }                                                                                  \
}                                                                                      \
                                                                                       \
static void NAME##_heapsort(T *a, int64_t n PARAMS)                                    \
{                                                                                      \
    int64_t i;                                                                         \
    T t;                                                                               \
    for (i = n / 2 - 1; i >= 0; i--)                                                   \
        NAME##_sift(a, i, n ARGS);                                                     \
    for (i = n - 1; i > 0; i--) {                                                      \
        t = a[0];                                                                      \
        a[0] = a[i];                                                                   \
        a[i] = t;                                                                      \
        NAME##_sift(a, 0, i ARGS);                                                     \
    }                                                                                  \
}                                                                                      \
                                                                                       \
static void NAME##_intro(T *a, int64_t n, int depth PARAMS)                            \
{                                                                                      \
    while (n > 24) {                                                                   \
        int64_t mid = n / 2, i, j;                                                     \
        T pivot, t;                                                                    \
        if (depth-- <= 0) {                                                            \
            NAME##_heapsort(a, n ARGS);                                                \
            return;                                                                    \
        }                                                                              \
        /* median of three into a[mid] */                                              \
        if (BEFORE(&a[mid], &a[0])) { t = a[mid]; a[mid] = a[0]; a[0] = t; }           \
        if (BEFORE(&a[n - 1], &a[mid])) {                                              \
            t = a[n - 1]; a[n - 1] = a[mid]; a[mid] = t;                               \
            if (BEFORE(&a[mid], &a[0])) { t = a[mid]; a[mid] = a[0]; a[0] = t; }       \
        }                                                                              \
        pivot = a[mid];                                                                \
        i = 0;                                                                         \
        j = n - 1;                                                                     \
        for (;;) {                                                                     \
            while (BEFORE(&a[i], &pivot)) i++;                                         \
            while (BEFORE(&pivot, &a[j])) j--;                                         \
            if (i >= j)                                                                \
                break;                                                                 \
            t = a[i]; a[i] = a[j]; a[j] = t;                                           \
            i++;                                                                       \
            j--;                                                                       \
        }                                                                              \
        /* [0, j] and [j+1, n): recurse on the smaller part */                         \
        if (j + 1 < n - (j + 1)) {                                                     \
            NAME##_intro(a, j + 1, depth ARGS);                                        \
            a += j + 1;                                                                \
            n -= j + 1;                                                                \
        } else {                                                                       \
            NAME##_intro(a + j + 1, n - (j + 1), depth ARGS);                          \
            n = j + 1;                                                                 \
        }                                                                              \
    }                                                                                  \
    NAME##_insertion(a, n ARGS);                                                       \
}                                                                                      \
                                                                                       \
static void NAME(T *a, int64_t n PARAMS)                                               \
{                                                                                      \
    int depth = 0;                                                                     \
    int64_t m = n;                                                                     \
    while (m > 1) {                                                                    \
        depth += 2;                                                                    \
        m >>= 1;                                                                       \
    }                                                                                  \
    NAME##_intro(a, n, depth ARGS);                                                    \
}

#endif
