/* Freeing large column buffers off the caller's thread.
 *
 * A Run of 10M lines owns about 300 MB of columns; free() hands such blocks back
 * to the system with munmap, which tears down every page of them: about 23 ms
 * for a 10M-line run, spent in whatever code drops the last reference (typically
 * at the end of `irscore.evaluate(read_qrels(...), read_run(...), ...)`).
 * irs_free_later passes blocks of IRS_REAPER_MIN bytes or more to one detached
 * thread that frees them, so the caller goes on at once; smaller blocks, a full
 * queue, a thread that cannot be started, or a platform without POSIX threads
 * free at once.  The thread holds no Python state and never takes the GIL.
 *
 * fork(): the lock is taken around fork; in the child the queue's blocks are
 * freed at once and the thread (which the child does not have) is started again
 * on demand.
 */
#ifndef IRS_REAPER_H
#define IRS_REAPER_H

#include <stdlib.h>

#define IRS_REAPER_MIN ((size_t)8 << 20)
#define IRS_REAPER_QUEUE 64

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>

static pthread_mutex_t irs_reaper_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t irs_reaper_cond = PTHREAD_COND_INITIALIZER;
static void *irs_reaper_queue[IRS_REAPER_QUEUE];
static int irs_reaper_n = 0;
static int irs_reaper_started = 0;

static void *irs_reaper_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&irs_reaper_lock);
    for (;;) {
        void *p;
        while (irs_reaper_n == 0)
            pthread_cond_wait(&irs_reaper_cond, &irs_reaper_lock);
        p = irs_reaper_queue[--irs_reaper_n];
        pthread_mutex_unlock(&irs_reaper_lock);
        free(p);
        pthread_mutex_lock(&irs_reaper_lock);
    }
    return NULL;
}

static void irs_free_later(void *p, size_t size)
{
    pthread_t th;
    pthread_attr_t attr;
    if (p == NULL)
        return;
    if (size < IRS_REAPER_MIN) {
        free(p);
        return;
    }
    pthread_mutex_lock(&irs_reaper_lock);
    if (!irs_reaper_started) {
        int ok = pthread_attr_init(&attr) == 0;
        if (ok) {
            ok = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0
                 && pthread_create(&th, &attr, irs_reaper_main, NULL) == 0;
            pthread_attr_destroy(&attr);
        }
        if (!ok) {
            pthread_mutex_unlock(&irs_reaper_lock);
            free(p);
            return;
        }
        irs_reaper_started = 1;
    }
    if (irs_reaper_n == IRS_REAPER_QUEUE) {
        pthread_mutex_unlock(&irs_reaper_lock);
        free(p);
        return;
    }
    irs_reaper_queue[irs_reaper_n++] = p;
    pthread_cond_signal(&irs_reaper_cond);
    pthread_mutex_unlock(&irs_reaper_lock);
}

static void irs_reaper_prefork(void) { pthread_mutex_lock(&irs_reaper_lock); }
static void irs_reaper_parent(void) { pthread_mutex_unlock(&irs_reaper_lock); }
static void irs_reaper_child(void)
{
    /* the child has the queue but not the thread */
    int i;
    for (i = 0; i < irs_reaper_n; i++)
        free(irs_reaper_queue[i]);
    irs_reaper_n = 0;
    irs_reaper_started = 0;
    pthread_mutex_unlock(&irs_reaper_lock);
}

/* 1 when no block waits to be freed (tests). */
static int irs_reaper_idle(void)
{
    int idle;
    pthread_mutex_lock(&irs_reaper_lock);
    idle = irs_reaper_n == 0;
    pthread_mutex_unlock(&irs_reaper_lock);
    return idle;
}

static int irs_reaper_init(void)
{
    return pthread_atfork(irs_reaper_prefork, irs_reaper_parent, irs_reaper_child);
}

#else

static void irs_free_later(void *p, size_t size) { (void)size; free(p); }
static int irs_reaper_idle(void) { return 1; }
static int irs_reaper_init(void) { return 0; }

#endif

#endif
