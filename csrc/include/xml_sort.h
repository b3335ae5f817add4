/* In-place ascending sort of int64 keys for the XML kernels (irscore._xml):
 * the shared introsort of irs_introsort.h, and an LSD radix sort for long
 * inputs of non-negative keys. */
#ifndef IRSCORE_XML_SORT_H
#define IRSCORE_XML_SORT_H

#include <stdint.h>
#include <stddef.h>
#include "irs_introsort.h"

#define XML_BEFORE(x, y) (*(x) < *(y))
IRS_DEFINE_INTROSORT(xml_introsort_i64, int64_t, XML_BEFORE, IRS_NO_CONTEXT, IRS_NO_CONTEXT)

static inline void xml_sort_i64(int64_t *a, ptrdiff_t n) {
    xml_introsort_i64(a, (int64_t) n);
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
