#include "sigmask.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

typedef int mask_fn(int, const sigset_t *, sigset_t *);

static int live;			/* the shim's handler is in (atomic) */
static __thread int app_blocks;		/* this thread's view blocks SIGBUS */
static __thread int held;		/* a sent SIGBUS waits for it to unblock */
static __thread siginfo_t held_si;

/* The next definition of name, looked up once (dlsym is no call for a
 * signal handler: each is looked up before it could run in one). */
static mask_fn *next(mask_fn **slot, const char *name)
{
	mask_fn *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	if (!fn) {
		*(void **)&fn = dlsym(RTLD_NEXT, name);
		__atomic_store_n(slot, fn, __ATOMIC_RELEASE);
	}
	return fn;
}

static mask_fn *real_procmask(void)
{
	static mask_fn *fn;

	return next(&fn, "sigprocmask");
}

static mask_fn *real_threadmask(void)
{
	static mask_fn *fn;

	return next(&fn, "pthread_sigmask");
}

int sigmask_app_blocks(void)
{
	return app_blocks;
}

void sigmask_hold(const siginfo_t *si)
{
	if (!held)
		held_si = *si;
	held = 1;
}

/* Sent again to this thread, as it came (to itself, any si_code may be
 * queued): delivered when the call that unblocked it returns. */
static void release(void)
{
	int saved = errno;

	held = 0;
	syscall(SYS_rt_tgsigqueueinfo, getpid(), syscall(SYS_gettid), SIGBUS, &held_si);
	errno = saved;
}

void sigmask_set_app_blocks(int on)
{
	app_blocks = on;
	if (!on && held)
		release();
}

void sigmask_start(void)
{
	sigset_t bus, was;

	sigemptyset(&bus);
	sigaddset(&bus, SIGBUS);
	if (real_procmask() && real_procmask()(SIG_UNBLOCK, &bus, &was) == 0 &&
	    sigismember(&was, SIGBUS))
		app_blocks = 1;
	__atomic_store_n(&live, 1, __ATOMIC_RELEASE);
}

void sigmask_exec(int before)
{
	sigset_t bus;

	if (!app_blocks || !real_procmask())
		return;
	sigemptyset(&bus);
	sigaddset(&bus, SIGBUS);
	real_procmask()(before ? SIG_BLOCK : SIG_UNBLOCK, &bus, NULL);
}

/* real(how, set, old) with SIGBUS kept out of what is blocked, and the
 * view kept; returns what real returns (and its errno). */
static int filtered(mask_fn *real, int how, const sigset_t *set, sigset_t *old)
{
	sigset_t k;
	int was = app_blocks, rc, bus;

	if (!real)
		return errno = ENOSYS, -1;
	if (!__atomic_load_n(&live, __ATOMIC_ACQUIRE))
		return real(how, set, old);
	if (set) {
		k = *set;
		if (how != SIG_UNBLOCK)
			sigdelset(&k, SIGBUS);
	}
	rc = real(how, set ? &k : NULL, old);
	if (rc != 0)
		return rc;
	if (old && was)
		sigaddset(old, SIGBUS);
	if (set) {
		bus = sigismember(set, SIGBUS) == 1;
		if (how == SIG_SETMASK)
			sigmask_set_app_blocks(bus);
		else if (bus)
			sigmask_set_app_blocks(how == SIG_BLOCK);
	}
	return rc;
}

EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	return filtered(real_procmask(), how, set, old);
}

EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	mask_fn *real = real_threadmask();

	return real ? filtered(real, how, set, old) : ENOSYS;
}
