/* Honouring Ctrl-C (SIGINT) in long native loops that run without the GIL.
 *
 * Python handles a signal only between bytecodes of the main thread: a nogil
 * loop that runs for seconds delays KeyboardInterrupt until it returns.  Any
 * native loop that can run for more than about 100 ms uses this helper:
 *
 *     cdef extern from "irs_interrupt.h" nogil:
 *         unsigned long irs_intr_begin()
 *         void irs_intr_end()
 *         int irs_intr_pending(unsigned long since)
 *     cdef extern from "irs_interrupt.h":
 *         int irs_intr_raise() except -1          # with the GIL
 *
 *     since = irs_intr_begin()                    # before the nogil call
 *     try:
 *         with nogil:
 *             rc = loop(..., since)               # polls irs_intr_pending(since)
 *     finally:                                    #   every ~1 ms of work and
 *         irs_intr_end()                          #   returns early when it is 1
 *     if rc == INTERRUPTED:
 *         irs_intr_raise()                        # KeyboardInterrupt (or what
 *                                                 #   the Python handler raises)
 *
 * irs_intr_begin installs a tiny C handler for SIGINT (sigaction; nest-counted,
 * so any number of threads may be inside at once) that increments a counter and
 * then calls the handler that was there before (Python's, which trips its own
 * flag and wakes the main thread: the Python-level handler still runs).  It
 * returns the counter's value; irs_intr_pending(since) is one volatile load
 * (cheap enough for every row of a loop) and is 1 once a SIGINT arrived after
 * that begin.  irs_intr_end restores the previous handler when the last scope
 * ends (unless someone replaced ours meanwhile).  irs_intr_raise, called with
 * the GIL after the loop returned early, runs the pending Python handlers
 * (PyErr_CheckSignals) and, when none raised (another thread than the main one,
 * or a handler that returns), raises KeyboardInterrupt: the native call was
 * abandoned, so it must not look like it returned a result.
 *
 * Nothing is installed when SIGINT is ignored or has its default action (the
 * default kills the process anyway): irs_intr_pending then stays 0.  A child
 * made by fork while a scope is open gets the previous handler back.  Without
 * POSIX signals (Windows) every function is a no-op and irs_intr_pending is 0.
 *
 * Each extension module that includes this header has its own counter and
 * nesting count; scopes of two modules nest correctly (the inner one chains to
 * the outer one's handler).
 */
#ifndef IRS_INTERRUPT_H
#define IRS_INTERRUPT_H

#if defined(__unix__) || defined(__APPLE__)
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

static volatile sig_atomic_t irs_intr_count = 0;
static struct sigaction irs_intr_prev;
static int irs_intr_depth = 0;
static int irs_intr_installed = 0;
static int irs_intr_atfork_done = 0;
static pthread_mutex_t irs_intr_lock = PTHREAD_MUTEX_INITIALIZER;

static void irs_intr_handler(int sig, siginfo_t *info, void *ctx)
{
    int saved = errno;
    irs_intr_count = irs_intr_count + 1;
    if (irs_intr_prev.sa_flags & SA_SIGINFO) {
        if (irs_intr_prev.sa_sigaction != NULL)
            irs_intr_prev.sa_sigaction(sig, info, ctx);
    } else if (irs_intr_prev.sa_handler != SIG_DFL && irs_intr_prev.sa_handler != SIG_IGN
               && irs_intr_prev.sa_handler != NULL) {
        irs_intr_prev.sa_handler(sig);
    }
    errno = saved;
}

static void irs_intr_restore_locked(void)
{
    struct sigaction cur;
    if (irs_intr_installed && sigaction(SIGINT, NULL, &cur) == 0
            && (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == irs_intr_handler)
        sigaction(SIGINT, &irs_intr_prev, NULL);
    irs_intr_installed = 0;
}

static void irs_intr_prefork(void) { pthread_mutex_lock(&irs_intr_lock); }
static void irs_intr_parent(void) { pthread_mutex_unlock(&irs_intr_lock); }
static void irs_intr_child(void)
{
    /* the threads inside a scope are not in the child */
    irs_intr_restore_locked();
    irs_intr_depth = 0;
    pthread_mutex_init(&irs_intr_lock, NULL);
}

/* Open a scope (any thread, with or without the GIL); returns the value to pass
 * to irs_intr_pending. */
static unsigned long irs_intr_begin(void)
{
    unsigned long since;
    pthread_mutex_lock(&irs_intr_lock);
    if (!irs_intr_atfork_done)
        irs_intr_atfork_done = pthread_atfork(irs_intr_prefork, irs_intr_parent, irs_intr_child) == 0;
    since = (unsigned long)irs_intr_count;
    if (irs_intr_depth++ == 0) {
        struct sigaction prev, act;
        if (sigaction(SIGINT, NULL, &prev) == 0
                && !((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction == irs_intr_handler)
                && ((prev.sa_flags & SA_SIGINFO)
                    || (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN))) {
            memset(&act, 0, sizeof(act));
            act.sa_sigaction = irs_intr_handler;
            act.sa_flags = SA_SIGINFO | (prev.sa_flags & (SA_ONSTACK | SA_RESTART));
            sigemptyset(&act.sa_mask);
            irs_intr_prev = prev;
            irs_intr_installed = sigaction(SIGINT, &act, NULL) == 0;
        }
    }
    pthread_mutex_unlock(&irs_intr_lock);
    return since;
}

/* Close a scope opened by irs_intr_begin. */
static void irs_intr_end(void)
{
    pthread_mutex_lock(&irs_intr_lock);
    if (irs_intr_depth > 0 && --irs_intr_depth == 0)
        irs_intr_restore_locked();
    pthread_mutex_unlock(&irs_intr_lock);
}

/* 1 when a SIGINT arrived since the scope's begin returned `since`. */
static inline int irs_intr_pending(unsigned long since)
{
    return (unsigned long)irs_intr_count != since;
}

#else

static unsigned long irs_intr_begin(void) { return 0; }
static void irs_intr_end(void) {}
static inline int irs_intr_pending(unsigned long since) { (void)since; return 0; }

#endif

#ifdef Py_PYTHON_H
/* With the GIL, after a loop returned early because irs_intr_pending was 1:
 * sets the Python exception (what the Python SIGINT handler raises, else
 * KeyboardInterrupt) and returns -1. */
static int irs_intr_raise(void)
{
    if (PyErr_CheckSignals() != 0)
        return -1;
    if (!PyErr_Occurred())
        PyErr_SetNone(PyExc_KeyboardInterrupt);
    return -1;
}
#endif

#endif
