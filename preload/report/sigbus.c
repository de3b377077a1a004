#include "sigbus.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

typedef int sigaction_fn(int, const struct sigaction *, struct sigaction *);

static sigaction_fn *real_sigaction;
static int (*mend_fn)(void *addr);
/* What the application set, in two slots: a change fills the one not
 * current, then flips cur, so the handler never reads one half written. */
static struct sigaction app[2];
static int cur;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void (*watch_fn)(int sig);

static sigaction_fn *real(void)
{
	if (!real_sigaction)
		*(void **)&real_sigaction = dlsym(RTLD_NEXT, "sigaction");
	return real_sigaction;
}

static void on_sigbus(int sig, siginfo_t *si, void *uc);

/* The kernel's action: ours, with the application's mask, restart flag
 * and stack (its handler runs where it asked to: a small alternate stack
 * it did not ask for could overflow). */
static void ours(struct sigaction *k, const struct sigaction *a)
{
	memset(k, 0, sizeof(*k));
	k->sa_sigaction = on_sigbus;
	k->sa_mask = a->sa_mask;
	k->sa_flags = SA_SIGINFO | (a->sa_flags & (SA_RESTART | SA_ONSTACK));
}

/* Not ours: what the application's action would have done. */
static void chain(int sig, siginfo_t *si, void *uc)
{
	int n = __atomic_load_n(&cur, __ATOMIC_ACQUIRE);
	struct sigaction a = app[n];
	int fault = si->si_code > 0;	/* from the kernel, not kill() */

	if (a.sa_handler == SIG_IGN && !fault)
		return;
	if (a.sa_handler == SIG_DFL || a.sa_handler == SIG_IGN) {
		/* (a fault cannot be ignored: the kernel ends the process) */
		struct sigaction d = { .sa_handler = SIG_DFL };

		real_sigaction(SIGBUS, &d, NULL);
		if (!fault) /* sent: send it again, delivered when we return */
			syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGBUS);
		return;	/* a fault: the access runs again, and ends the process */
	}
	if (a.sa_flags & SA_RESETHAND) {
		app[n].sa_handler = SIG_DFL;
		app[n].sa_flags &= ~SA_SIGINFO;
	}
	if (a.sa_flags & SA_NODEFER) {
		sigset_t s;

		sigemptyset(&s);
		sigaddset(&s, SIGBUS);
		pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	}
	if (a.sa_flags & SA_SIGINFO)
		a.sa_sigaction(sig, si, uc);
	else
		a.sa_handler(sig);
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	int (*mend)(void *) = __atomic_load_n(&mend_fn, __ATOMIC_ACQUIRE);

	if (!(si->si_code > 0 && mend && mend(si->si_addr)))
		chain(sig, si, uc);
	errno = saved;
}

void sigbus_install(int (*mend)(void *addr))
{
	struct sigaction k, was;

	if (!real() || real_sigaction(SIGBUS, NULL, &was) != 0)
		return;
	app[0] = was;
	ours(&k, &was);
	if (real_sigaction(SIGBUS, &k, NULL) == 0)
		__atomic_store_n(&mend_fn, mend, __ATOMIC_RELEASE);
}

void sigbus_before_exec(void)
{
	struct sigaction a = app[__atomic_load_n(&cur, __ATOMIC_ACQUIRE)];

	if (mend_fn && a.sa_handler == SIG_IGN)
		real_sigaction(SIGBUS, &a, NULL);
}

void sigbus_after_exec_failed(void)
{
	struct sigaction k;

	if (!mend_fn)
		return;
	ours(&k, &app[__atomic_load_n(&cur, __ATOMIC_ACQUIRE)]);
	real_sigaction(SIGBUS, &k, NULL);
}

/* --- the application's calls ---------------------------------------------- */

/* The application's SIGBUS action: read and set in our slots, never
 * taking the kernel's from us. Signals are blocked meanwhile: a handler
 * may call sigaction() too (it is async-signal-safe). */
static int app_sigaction(const struct sigaction *act, struct sigaction *old)
{
	sigset_t all, was;
	int rc = 0, n;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &was);
	pthread_mutex_lock(&lock);
	n = cur;
	if (act) {
		struct sigaction k;

		app[!n] = *act;
		ours(&k, act);
		rc = real_sigaction(SIGBUS, &k, NULL);
	}
	if (rc == 0 && old)
		*old = app[n];
	if (rc == 0 && act)
		__atomic_store_n(&cur, !n, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&lock);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	return rc;
}

void sigbus_watch(void (*fn)(int sig))
{
	__atomic_store_n(&watch_fn, fn, __ATOMIC_RELEASE);
}

/* The application sets an action for sig: tell the watcher first. */
static void watch(int sig)
{
	void (*fn)(int) = __atomic_load_n(&watch_fn, __ATOMIC_ACQUIRE);

	if (fn)
		fn(sig);
}

EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (act)
		watch(sig);
	if (sig == SIGBUS && __atomic_load_n(&mend_fn, __ATOMIC_ACQUIRE))
		return app_sigaction(act, old);
	if (!real())
		return errno = ENOSYS, -1;
	return real_sigaction(sig, act, old);
}

/* signal() and its kin set SIGBUS through glibc's own sigaction, not
 * ours: with their semantics (glibc's), through app_sigaction. */
typedef sighandler_t signal_fn(int, sighandler_t);

/* next: the function's next definition, looked up once (a SysV handler
 * re-arms itself with signal(): dlsym is no call for a handler). */
static sighandler_t set_handler(signal_fn **next, const char *name, int sig, sighandler_t h,
				int flags)
{
	struct sigaction a, o;
	signal_fn *fn = __atomic_load_n(next, __ATOMIC_ACQUIRE);

	watch(sig);
	if (sig != SIGBUS || !__atomic_load_n(&mend_fn, __ATOMIC_ACQUIRE)) {
		if (!fn) {
			*(void **)&fn = dlsym(RTLD_NEXT, name);
			__atomic_store_n(next, fn, __ATOMIC_RELEASE);
		}
		return fn ? fn(sig, h) : (errno = ENOSYS, SIG_ERR);
	}
	memset(&a, 0, sizeof(a));
	a.sa_handler = h;
	sigemptyset(&a.sa_mask);
	if (!(flags & SA_NODEFER))
		sigaddset(&a.sa_mask, sig);
	a.sa_flags = flags;
	return app_sigaction(&a, &o) == 0 ? o.sa_handler : SIG_ERR;
}

EXPORT sighandler_t signal(int sig, sighandler_t h)
{
	static signal_fn *next;

	return set_handler(&next, "signal", sig, h, SA_RESTART);
}

EXPORT sighandler_t bsd_signal(int sig, sighandler_t h)
{
	static signal_fn *next;

	return set_handler(&next, "bsd_signal", sig, h, SA_RESTART);
}

EXPORT sighandler_t sysv_signal(int sig, sighandler_t h)
{
	static signal_fn *next;

	return set_handler(&next, "sysv_signal", sig, h, SA_RESETHAND | SA_NODEFER);
}
