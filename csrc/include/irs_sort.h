/* Sorting a query's run entries into trec_eval order: score descending, then
 * document id descending (strcmp order on the bytes); the sort is the shared
 * introsort of irs_introsort.h. */
#ifndef IRS_SORT_H
#define IRS_SORT_H

#include <stdint.h>
#include "irs_common.h"
#include "irs_introsort.h"

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

#define IRS_ENTRY_BEFORE(x, y) (irs_entry_cmp((x), (y), buf, mode) < 0)
#define IRS_ENTRY_PARAMS , const char *buf, int mode
#define IRS_ENTRY_ARGS , buf, mode
IRS_DEFINE_INTROSORT(irs_introsort, irs_entry, IRS_ENTRY_BEFORE, IRS_ENTRY_PARAMS, IRS_ENTRY_ARGS)

/* Sort a[0..n) in trec order (mode 0) or stable score order (mode 1).
 * Already-sorted input (the usual case for run files written in rank order)
 * costs one linear check. */
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
                irs_introsort(a + s, e - s, buf, mode);
            s = e;
        }
        return;
    }
    irs_introsort(a, n, buf, mode);
}

/* Qrels order (mode 2: doc id descending, ties in input order) by a key of the
 * id's first eight bytes, big-endian and zero-padded: keys that differ order
 * the ids as irs_bytes_cmp does (a proper prefix first), so the bytes are only
 * read for ids that share their first eight. */
typedef struct {
    uint64_t key;
    int64_t start;
    int32_t len;
    int32_t pos;
} irs_idkey;

static inline uint64_t irs_id_prefix(const char *p, int64_t n)
{
    uint64_t x = 0;
    int64_t i, m = n < 8 ? n : 8;
    for (i = 0; i < m; i++)
        x |= (uint64_t)(unsigned char)p[i] << (56 - 8 * i);
    return x;
}

static inline int irs_idkey_before(const irs_idkey *a, const irs_idkey *b, const char *buf)
{
    if (a->key != b->key)
        return a->key > b->key;
    if (a->len > 8 || b->len > 8) {
        int c = irs_bytes_cmp(buf + a->start, a->len, buf + b->start, b->len);
        if (c)
            return c > 0;
    } else if (a->len != b->len) {
        return a->len > b->len;     /* equal but for trailing zero bytes */
    }
    return a->pos < b->pos;
}

#define IRS_IDKEY_BEFORE(x, y) irs_idkey_before((x), (y), buf)
#define IRS_IDKEY_PARAMS , const char *buf
#define IRS_IDKEY_ARGS , buf
IRS_DEFINE_INTROSORT(irs_idkey_sort, irs_idkey, IRS_IDKEY_BEFORE, IRS_IDKEY_PARAMS, IRS_IDKEY_ARGS)

#endif
