/* Surviving a memory-mapped file that shrinks while it is read.
 *
 * Reading a page of a file mapping that lies past the file's end (another
 * process truncated the file) raises SIGBUS, which kills the process.
 * irs_bus_call(fn, arg, lo, hi) calls fn(arg) with a SIGBUS handler in place
 * that, for a fault of this thread at an address in [lo, hi) (the mapping),
 * jumps back out of fn (siglongjmp) and makes irs_bus_call return
 * IRS_BUS_FAULT; fn's result otherwise.  fn must be safe to abandon at any read
 * of the mapping: it holds no lock, and whatever it allocated is reachable from
 * arg (freed by its owner as after an error).  Only reads of the mapping by fn
 * itself (and the libc string functions it calls) may fault there.
 *
 * The handler is installed while at least one call is running (nest-counted,
 * any thread; each call's range and jump buffer are thread-local) and the one
 * there before is restored after the last.  A SIGBUS that is not ours (another
 * address, another thread, one sent by kill) goes to the previous handler; when
 * that is the default action, the default is restored and the fault happens
 * again, killing the process as it would have without us.  A child made by fork
 * during a call gets the previous handler back.  Without POSIX signals the call
 * is a plain call.
 */
#ifndef IRS_BUSGUARD_H
#define IRS_BUSGUARD_H

#define IRS_BUS_FAULT (-0x5B05)

typedef int (*irs_bus_fn)(void *arg);

#if (defined(__unix__) || defined(__APPLE__)) && (defined(__GNUC__) || defined(__clang__))
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

typedef struct {
    sigjmp_buf env;
    const char *lo, *hi;
} irs_bus_scope;

static __thread irs_bus_scope *volatile irs_bus_cur = NULL;
static struct sigaction irs_bus_prev;
static int irs_bus_depth = 0;
static int irs_bus_installed = 0;
static int irs_bus_atfork_done = 0;
static pthread_mutex_t irs_bus_lock = PTHREAD_MUTEX_INITIALIZER;

static void irs_bus_handler(int sig, siginfo_t *info, void *ctx)
{
    irs_bus_scope *s = irs_bus_cur;
    if (s != NULL && info != NULL && info->si_code > 0) {
        const char *a = (const char *)info->si_addr;
        if (a >= s->lo && a < s->hi) {
            irs_bus_cur = NULL;
            siglongjmp(s->env, 1);
        }
    }
    if (irs_bus_prev.sa_flags & SA_SIGINFO) {
        if (irs_bus_prev.sa_sigaction != NULL) {
            irs_bus_prev.sa_sigaction(sig, info, ctx);
            return;
        }
    } else if (irs_bus_prev.sa_handler != SIG_DFL && irs_bus_prev.sa_handler != SIG_IGN
               && irs_bus_prev.sa_handler != NULL) {
        irs_bus_prev.sa_handler(sig);
        return;
    }
    /* the default action: the fault (or the signal) again, without us */
    {
        struct sigaction dfl;
        int saved = errno;
        memset(&dfl, 0, sizeof(dfl));
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        sigaction(sig, &dfl, NULL);
        if (info == NULL || info->si_code <= 0)
            raise(sig);
        errno = saved;
    }
}

static void irs_bus_restore_locked(void)
{
    struct sigaction cur;
    if (irs_bus_installed && sigaction(SIGBUS, NULL, &cur) == 0
            && (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == irs_bus_handler)
        sigaction(SIGBUS, &irs_bus_prev, NULL);
    irs_bus_installed = 0;
}

static void irs_bus_prefork(void) { pthread_mutex_lock(&irs_bus_lock); }
static void irs_bus_parent(void) { pthread_mutex_unlock(&irs_bus_lock); }
static void irs_bus_child(void)
{
    irs_bus_restore_locked();
    irs_bus_depth = 0;
    pthread_mutex_init(&irs_bus_lock, NULL);
}

static void irs_bus_enter(void)
{
    pthread_mutex_lock(&irs_bus_lock);
    if (!irs_bus_atfork_done)
        irs_bus_atfork_done = pthread_atfork(irs_bus_prefork, irs_bus_parent, irs_bus_child) == 0;
    if (irs_bus_depth++ == 0) {
        struct sigaction prev, act;
        if (sigaction(SIGBUS, NULL, &prev) == 0
                && !((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction == irs_bus_handler)) {
            memset(&act, 0, sizeof(act));
            act.sa_sigaction = irs_bus_handler;
            act.sa_flags = SA_SIGINFO | SA_NODEFER | (prev.sa_flags & SA_ONSTACK);
            sigemptyset(&act.sa_mask);
            irs_bus_prev = prev;
            irs_bus_installed = sigaction(SIGBUS, &act, NULL) == 0;
        }
    }
    pthread_mutex_unlock(&irs_bus_lock);
}

static void irs_bus_leave(void)
{
    pthread_mutex_lock(&irs_bus_lock);
    if (irs_bus_depth > 0 && --irs_bus_depth == 0)
        irs_bus_restore_locked();
    pthread_mutex_unlock(&irs_bus_lock);
}

static int irs_bus_call(irs_bus_fn fn, void *arg, const char *lo, const char *hi)
{
    irs_bus_scope scope;
    irs_bus_scope *volatile outer = irs_bus_cur;
    volatile int rc = IRS_BUS_FAULT;
    irs_bus_enter();
    scope.lo = lo;
    scope.hi = hi;
    if (sigsetjmp(scope.env, 1) == 0) {
        irs_bus_cur = &scope;
        rc = fn(arg);
    }
    irs_bus_cur = outer;
    irs_bus_leave();
    return rc;
}

#else

static int irs_bus_call(irs_bus_fn fn, void *arg, const char *lo, const char *hi)
{
    (void)lo;
    (void)hi;
    return fn(arg);
}

#endif

#endif
