/* Scratch memory that outlives a kernel call: a small per-module cache of large
 * blocks (static inline, one cache per compiled module that includes it).
 *
 * Why: a kernel that needs tens of megabytes of scratch per call (R&S on one
 * topic of 10^5-10^6 occurrences) used to get it from malloc and give it back
 * with free.  glibc serves such blocks from fresh mappings, or returns the top
 * of its heap to the system once enough of it is free, so every call faulted
 * its scratch in again page by page: at 800,000 occurrences a third of the
 * call's time, and a cost that appeared only above glibc's thresholds, which
 * made the doubling ratios of the R&S benchmark jump at 400,000 occurrences.
 * Blocks of IRS_SCRATCH_MIN bytes or more freed here are kept (at most
 * IRS_SCRATCH_SLOTS blocks, IRS_SCRATCH_KEEP bytes in all) and handed to the
 * next request they fit; smaller ones go straight back to malloc.  The
 * limits are the smallest of those tried (slots/MiB: 16/256, 32/512, 64/256,
 * 16/1024, 48/384, 64/512) with which repeated R&S calls on one topic of
 * 800,000 occurrences with 10% repeated documents fault no scratch in.
 *
 * irs_scratch_malloc / _calloc / _free are drop-in replacements of malloc /
 * calloc / free for memory obtained from them only (each block carries a
 * 16-byte header with its capacity; realloc is not offered).  Thread-safe (a
 * spin lock around the slot table, held for a scan of the slots).  Without the
 * GCC/Clang atomic builtins, or under AddressSanitizer, nothing is cached.
 * Contents of a reused block are undefined, as malloc's; irs_scratch_calloc
 * zeroes.  irs_scratch_release() frees every cached block.
 */
#ifndef IRS_SCRATCH_H
#define IRS_SCRATCH_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define IRS_SCRATCH_SLOTS 48
#define IRS_SCRATCH_MIN ((size_t)1 << 18)            /* 256 KiB */
#define IRS_SCRATCH_KEEP ((size_t)384 << 20)         /* kept at most */
#define IRS_SCRATCH_HDR 16

/* test hooks (irs_scratch_configure): the smallest block cached, and whether a
 * reused block is filled with 0xA5 bytes first, so that code reading scratch it
 * never wrote gives other numbers than with fresh memory */
static size_t irs_scratch_min = IRS_SCRATCH_MIN;
static int irs_scratch_poison = 0;

/* Under AddressSanitizer (the fuzz builds) nothing is cached, so that every
 * block is a malloc of its own size and an overflow still hits a redzone. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define IRS_SCRATCH_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define IRS_SCRATCH_ASAN 1
#endif

#if (defined(__GNUC__) || defined(__clang__)) && !defined(IRS_SCRATCH_ASAN)
#define IRS_SCRATCH_CACHE 1
static char *irs_scratch_slot[IRS_SCRATCH_SLOTS];
static size_t irs_scratch_kept;
static int irs_scratch_lock;

static inline void irs_scratch_acquire(void)
{
    while (__atomic_exchange_n(&irs_scratch_lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&irs_scratch_lock, __ATOMIC_RELAXED))
            ;
}

static inline void irs_scratch_unlock(void)
{
    __atomic_store_n(&irs_scratch_lock, 0, __ATOMIC_RELEASE);
}
#else
#define IRS_SCRATCH_CACHE 0
#endif

static inline size_t irs_scratch_cap(const char *b)
{
    size_t c;
    memcpy(&c, b, sizeof(size_t));
    return c;
}

static inline void *irs_scratch_malloc(size_t n)
{
    char *b = NULL;
    size_t need;
    if (n > SIZE_MAX - IRS_SCRATCH_HDR)
        return NULL;
    need = n + IRS_SCRATCH_HDR;
#if IRS_SCRATCH_CACHE
    if (n >= irs_scratch_min) {
        int i, best = -1;
        size_t bc = 0;
        irs_scratch_acquire();
        for (i = 0; i < IRS_SCRATCH_SLOTS; i++) {
            char *s = irs_scratch_slot[i];
            if (s != NULL) {
                size_t c = irs_scratch_cap(s);
                if (c >= need && (best < 0 || c < bc)) {
                    best = i;
                    bc = c;
                }
            }
        }
        if (best >= 0) {
            b = irs_scratch_slot[best];
            irs_scratch_slot[best] = NULL;
            irs_scratch_kept -= bc;
        }
        irs_scratch_unlock();
        if (b != NULL && irs_scratch_poison)
            memset(b + IRS_SCRATCH_HDR, 0xA5, bc - IRS_SCRATCH_HDR);
    }
#endif
    if (b == NULL) {
        b = (char *)malloc(need);
        if (b == NULL)
            return NULL;
        memcpy(b, &need, sizeof(size_t));
    }
    return b + IRS_SCRATCH_HDR;
}

static inline void *irs_scratch_calloc(size_t n, size_t size)
{
    void *p;
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    p = irs_scratch_malloc(n * size);
    if (p != NULL)
        memset(p, 0, n * size);
    return p;
}

static inline void irs_scratch_free(void *p)
{
    char *b, *drop;
    if (p == NULL)
        return;
    b = (char *)p - IRS_SCRATCH_HDR;
    drop = b;
#if IRS_SCRATCH_CACHE
    {
        size_t c = irs_scratch_cap(b);
        if (c >= irs_scratch_min + IRS_SCRATCH_HDR && c <= IRS_SCRATCH_KEEP) {
            int i, free_slot = -1, small = -1;
            size_t sc = 0;
            irs_scratch_acquire();
            for (i = 0; i < IRS_SCRATCH_SLOTS; i++) {
                char *s = irs_scratch_slot[i];
                if (s == NULL) {
                    if (free_slot < 0)
                        free_slot = i;
                } else if (small < 0 || irs_scratch_cap(s) < sc) {
                    small = i;
                    sc = irs_scratch_cap(s);
                }
            }
            /* evict the smallest kept blocks while the new one would not fit */
            if (free_slot < 0 && small >= 0 && sc < c) {
                drop = irs_scratch_slot[small];
                irs_scratch_slot[small] = NULL;
                irs_scratch_kept -= sc;
                free_slot = small;
            } else {
                drop = NULL;
            }
            if (free_slot >= 0 && irs_scratch_kept + c <= IRS_SCRATCH_KEEP) {
                irs_scratch_slot[free_slot] = b;
                irs_scratch_kept += c;
                b = NULL;
            }
            irs_scratch_unlock();
            free(drop);
            drop = b;      /* NULL when kept */
        }
    }
#endif
    free(drop);
}

/* Free every cached block (the memory a later call would have reused). */
static inline void irs_scratch_release(void)
{
#if IRS_SCRATCH_CACHE
    int i;
    char *s[IRS_SCRATCH_SLOTS];
    irs_scratch_acquire();
    for (i = 0; i < IRS_SCRATCH_SLOTS; i++) {
        s[i] = irs_scratch_slot[i];
        irs_scratch_slot[i] = NULL;
    }
    irs_scratch_kept = 0;
    irs_scratch_unlock();
    for (i = 0; i < IRS_SCRATCH_SLOTS; i++)
        free(s[i]);
#endif
}

/* fork() while another thread holds the lock would leave the child with a lock
 * that nobody releases (its next large allocation would spin for ever): the
 * lock is taken around fork (the table is then consistent in the child) and
 * released on both sides.  irs_scratch_init registers this once per module. */
#if IRS_SCRATCH_CACHE && (defined(__unix__) || defined(__APPLE__))
#include <pthread.h>
#define IRS_SCRATCH_ATFORK 1
static void irs_scratch_prefork(void) { irs_scratch_acquire(); }
static void irs_scratch_postfork(void) { irs_scratch_unlock(); }
#endif

static inline int irs_scratch_init(void)
{
#ifdef IRS_SCRATCH_ATFORK
    return pthread_atfork(irs_scratch_prefork, irs_scratch_postfork, irs_scratch_postfork);
#else
    return 0;
#endif
}

/* Test hooks: cache blocks of min_bytes or more (IRS_SCRATCH_MIN by default),
 * poison reused blocks; frees what is cached first. */
static inline void irs_scratch_configure(size_t min_bytes, int poison)
{
    irs_scratch_release();
    irs_scratch_min = min_bytes;
    irs_scratch_poison = poison;
}

#endif
