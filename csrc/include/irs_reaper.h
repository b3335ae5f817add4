/* Freeing large column buffers off the caller's thread, and keeping them a
 * few seconds for the next read.
 *
 * A Run of 10M lines owns about 300 MB of columns.  free() hands such blocks back
 * to the system with munmap, which tears down every page of them (about 23 ms,
 * spent in whatever code drops the last reference, typically at the end of
 * `irscore.evaluate(read_qrels(...), read_run(...), ...)`), and the next read
 * faults fresh pages in again: about 2 us a page on the machines measured, 70 ms
 * of a 10M-line read on two cores.
 *
 * irs_free_later passes blocks of IRS_REAPER_MIN bytes or more to one detached
 * thread.  The thread keeps them, up to IRS_CACHE_MAX bytes in all, for
 * IRS_CACHE_SECONDS (jemalloc's default decay time for dirty pages), and frees
 * them then; irs_malloc_cached hands a kept block of a fitting size (at least
 * the size asked, at most 1/8 more) to the next reader, its pages already
 * resident.  Smaller blocks, a thread that cannot be started, or a platform
 * without POSIX threads free at once (and allocate with malloc).  The thread
 * holds no Python state and never takes the GIL.
 *
 * fork(): the lock is taken around fork; in the child the kept blocks are
 * freed at once, the lock and the condition variable are made anew, and the
 * thread (which the child does not have) is started again on demand.
 */
#ifndef IRS_REAPER_H
#define IRS_REAPER_H

#include <stdlib.h>

#define IRS_REAPER_MIN ((size_t)8 << 20)
#define IRS_REAPER_QUEUE 64
#define IRS_CACHE_SECONDS 10.0
#define IRS_CACHE_MAX_BYTES ((size_t)2 << 30)

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    void *p;
    size_t size;
    double expires;
} irs_kept_block;

static pthread_mutex_t irs_reaper_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t irs_reaper_cond = PTHREAD_COND_INITIALIZER;
static irs_kept_block irs_kept[IRS_REAPER_QUEUE];
static int irs_nkept = 0;
static size_t irs_kept_bytes = 0;
static size_t irs_cache_max = 0;
static double irs_cache_seconds = IRS_CACHE_SECONDS;
static int irs_reaper_started = 0;

static double irs_reaper_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Remove kept block i (lock held); returns its pointer. */
static void *irs_kept_take(int i)
{
    void *p = irs_kept[i].p;
    irs_kept_bytes -= irs_kept[i].size;
    irs_kept[i] = irs_kept[--irs_nkept];
    return p;
}

static void *irs_reaper_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&irs_reaper_lock);
    for (;;) {
        void *drop[IRS_REAPER_QUEUE];
        int nd = 0, i, old;
        double now = irs_reaper_now(), next;
        for (i = 0; i < irs_nkept;) {
            if (irs_kept[i].expires <= now)
                drop[nd++] = irs_kept_take(i);
            else
                i++;
        }
        while (irs_kept_bytes > irs_cache_max && irs_nkept > 0) {
            old = 0;
            for (i = 1; i < irs_nkept; i++)
                if (irs_kept[i].expires < irs_kept[old].expires)
                    old = i;
            drop[nd++] = irs_kept_take(old);
        }
        if (nd > 0) {
            pthread_mutex_unlock(&irs_reaper_lock);
            for (i = 0; i < nd; i++)
                free(drop[i]);
            pthread_mutex_lock(&irs_reaper_lock);
            continue;
        }
        if (irs_nkept == 0) {
            pthread_cond_wait(&irs_reaper_cond, &irs_reaper_lock);
        } else {
            struct timespec ts;
            next = irs_kept[0].expires;
            for (i = 1; i < irs_nkept; i++)
                if (irs_kept[i].expires < next)
                    next = irs_kept[i].expires;
            ts.tv_sec = (time_t)next;
            ts.tv_nsec = (long)((next - (double)ts.tv_sec) * 1e9);
            if (ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000L)
                ts.tv_nsec = 0;
            pthread_cond_timedwait(&irs_reaper_cond, &irs_reaper_lock, &ts);
        }
    }
    return NULL;
}

/* Start the thread (lock held); 0 when it cannot be. */
static int irs_reaper_start(void)
{
    pthread_t th;
    pthread_attr_t attr;
    int ok;
    if (irs_reaper_started)
        return 1;
    if (irs_cache_max == 0) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        size_t quarter = pages > 0 && page > 0 ? (size_t)pages / 4 * (size_t)page : IRS_CACHE_MAX_BYTES;
        irs_cache_max = quarter < IRS_CACHE_MAX_BYTES ? quarter : IRS_CACHE_MAX_BYTES;
    }
    ok = pthread_attr_init(&attr) == 0;
    if (ok) {
        ok = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0
             && pthread_create(&th, &attr, irs_reaper_main, NULL) == 0;
        pthread_attr_destroy(&attr);
    }
    irs_reaper_started = ok;
    return ok;
}

static void irs_free_later(void *p, size_t size)
{
    if (p == NULL)
        return;
    if (size < IRS_REAPER_MIN) {
        free(p);
        return;
    }
    pthread_mutex_lock(&irs_reaper_lock);
    if (!irs_reaper_start() || irs_nkept == IRS_REAPER_QUEUE) {
        pthread_mutex_unlock(&irs_reaper_lock);
        free(p);
        return;
    }
    irs_kept[irs_nkept].p = p;
    irs_kept[irs_nkept].size = size;
    irs_kept[irs_nkept].expires = irs_reaper_now() + irs_cache_seconds;
    irs_nkept++;
    irs_kept_bytes += size;
    pthread_cond_signal(&irs_reaper_cond);
    pthread_mutex_unlock(&irs_reaper_lock);
}

/* A block of at least size bytes: a kept one of size .. size + size/8 bytes
 * (the smallest), else malloc's. */
static void *irs_malloc_cached(size_t size)
{
    int i, best = -1;
    void *p = NULL;
    if (size >= IRS_REAPER_MIN) {
        pthread_mutex_lock(&irs_reaper_lock);
        for (i = 0; i < irs_nkept; i++)
            if (irs_kept[i].size >= size && irs_kept[i].size - size <= size / 8
                    && (best < 0 || irs_kept[i].size < irs_kept[best].size))
                best = i;
        if (best >= 0)
            p = irs_kept_take(best);
        pthread_mutex_unlock(&irs_reaper_lock);
    }
    return p != NULL ? p : malloc(size);
}

/* How long a block is kept (tests); the kept ones keep their time. */
static void irs_reaper_set_seconds(double seconds)
{
    pthread_mutex_lock(&irs_reaper_lock);
    irs_cache_seconds = seconds;
    pthread_mutex_unlock(&irs_reaper_lock);
}

/* Bytes kept (tests). */
static size_t irs_reaper_kept(void)
{
    size_t n;
    pthread_mutex_lock(&irs_reaper_lock);
    n = irs_kept_bytes;
    pthread_mutex_unlock(&irs_reaper_lock);
    return n;
}

/* Free every kept block now, in the caller's thread (tests; memory-tight callers). */
static void irs_reaper_release(void)
{
    void *drop[IRS_REAPER_QUEUE];
    int i, nd = 0;
    pthread_mutex_lock(&irs_reaper_lock);
    while (irs_nkept > 0)
        drop[nd++] = irs_kept_take(irs_nkept - 1);
    pthread_mutex_unlock(&irs_reaper_lock);
    for (i = 0; i < nd; i++)
        free(drop[i]);
}

static void irs_reaper_prefork(void) { pthread_mutex_lock(&irs_reaper_lock); }
static void irs_reaper_parent(void) { pthread_mutex_unlock(&irs_reaper_lock); }
static void irs_reaper_child(void)
{
    /* the child has the kept blocks but not the thread; the condition variable
     * still counts the parent's waiting thread (a signal would wait for it for
     * ever): both are made anew */
    while (irs_nkept > 0)
        free(irs_kept_take(irs_nkept - 1));
    irs_reaper_started = 0;
    pthread_cond_init(&irs_reaper_cond, NULL);
    pthread_mutex_init(&irs_reaper_lock, NULL);
}

static int irs_reaper_init(void)
{
    return pthread_atfork(irs_reaper_prefork, irs_reaper_parent, irs_reaper_child);
}

#else

static void irs_free_later(void *p, size_t size) { (void)size; free(p); }
static void *irs_malloc_cached(size_t size) { return malloc(size); }
static size_t irs_reaper_kept(void) { return 0; }
static void irs_reaper_set_seconds(double seconds) { (void)seconds; }
static void irs_reaper_release(void) {}
static int irs_reaper_init(void) { return 0; }

#endif

#endif
