#include "sigbus.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/cold.h"
#include "sigmask.h"

#define EXPORT __attribute__((visibility("default")))

typedef int sigaction_fn(int, const struct sigaction *, struct sigaction *);

static sigaction_fn *real_sigaction;
static const struct sigbus_mender *mender;
/* The signals whose handlers the application asked to run with SIGBUS
 * blocked (bit n: signal n): the kernel's action leaves it out (see
 * sigmask.h), sigaction() reports it back. */
static uint64_t masks_bus;
/* What the application set, in two slots: a change fills the one not
 * current, then flips cur, so the handler never reads one half written. */
static struct sigaction app[2];
static int cur;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void (*watch_fn)(int sig);
static int hidden_sig;			/* sigbus_watch's signal, 0: none */
static void (*hidden)(int, siginfo_t *, void *);

static sigaction_fn *real(void)
{
	if (!real_sigaction)
		*(void **)&real_sigaction = dlsym(RTLD_NEXT, "sigaction");
	return real_sigaction;
}

static void on_sigbus(int sig, siginfo_t *si, void *uc);

/* The kernel has our action. */
static const struct sigbus_mender *installed(void)
{
	return __atomic_load_n(&mender, __ATOMIC_ACQUIRE);
}

/* The kernel's action: ours, with the application's mask, restart flag
 * and stack (its handler runs where it asked to: a small alternate stack
 * it did not ask for could overflow). SIGBUS itself is never blocked while
 * it runs (SA_NODEFER, and out of the mask): a cut while the shim mends
 * the last one faults again in the handler, and blocked, that fault would
 * end the process. The application's handler still runs with it blocked
 * in its view (chain). */
static void ours(struct sigaction *k, const struct sigaction *a)
{
	memset(k, 0, sizeof(*k));
	k->sa_sigaction = on_sigbus;
	k->sa_mask = a->sa_mask;
	sigdelset(&k->sa_mask, SIGBUS);
	k->sa_flags = SA_SIGINFO | SA_NODEFER | (a->sa_flags & (SA_RESTART | SA_ONSTACK));
}

/* Not ours: what the application's action would have done. */
static void chain(int sig, siginfo_t *si, void *uc)
{
	int n = __atomic_load_n(&cur, __ATOMIC_ACQUIRE);
	struct sigaction a = app[n];
	int fault = si->si_code > 0;	/* from the kernel, not kill() */
	int view = sigmask_app_blocks();

	if (a.sa_handler == SIG_IGN && !fault)
		return;
	/* (a fault it blocks: the kernel ends the process, as without us) */
	if (a.sa_handler == SIG_DFL || a.sa_handler == SIG_IGN || (fault && view)) {
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
	/* blocked while it runs, in its view (a sent one is held meanwhile;
	 * a longjmp out of it leaves it blocked there, as the kernel would) */
	sigmask_set_app_blocks(view || !(a.sa_flags & SA_NODEFER) ||
			       sigismember(&a.sa_mask, SIGBUS) == 1);
	if (a.sa_flags & SA_SIGINFO)
		a.sa_sigaction(sig, si, uc);
	else
		a.sa_handler(sig);
	sigmask_set_app_blocks(view);
}

/* --- our own faults -------------------------------------------------------- */

/* Mending is serialised by a spin lock (a handler cannot wait otherwise)
 * and runs on a stack of the shim's own, never on the one the fault came
 * on: that may be the application's small alternate stack (SA_ONSTACK). */
static int mending;			/* the lock: its holder uses the stack */
static unsigned mends;			/* mends done: a waiting fault may be mended */
static __thread int mending_here;	/* this thread holds it: a fault now is a cut
					 * in the repair (signal-safe: initial-exec) */
#define OWN_STACK (64 * 1024)
#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1U << 31)	/* (linux/signal.h; not in glibc's) */
#endif
COLD unsigned char sigbus_stack[OWN_STACK] __attribute__((aligned(64)));

struct job {
	const struct sigbus_mender *m;
	void *addr;
	int ok;
};

/* fn(arg) on the stack whose top is top (16-byte aligned); back on ours. */
__attribute__((visibility("hidden"))) void sigbus_on_stack(void *top, void (*fn)(void *),
							    void *arg);
#if defined(__x86_64__)
__asm__(".pushsection .text\n.globl sigbus_on_stack\n.hidden sigbus_on_stack\n"
	".type sigbus_on_stack, @function\n"
	"sigbus_on_stack:\n.cfi_startproc\n"
#ifdef __CET__
	"endbr64\n"
#endif
	"pushq %rbp\n.cfi_def_cfa_offset 16\n.cfi_offset %rbp, -16\n"
	"movq %rsp, %rbp\n.cfi_def_cfa_register %rbp\n"
	"movq %rdi, %rsp\nmovq %rdx, %rdi\ncallq *%rsi\n"
	"movq %rbp, %rsp\npopq %rbp\n.cfi_def_cfa %rsp, 8\nret\n"
	".cfi_endproc\n.size sigbus_on_stack, .-sigbus_on_stack\n.popsection\n");
#define HAVE_ON_STACK 1
#elif defined(__aarch64__)
__asm__(".pushsection .text\n.globl sigbus_on_stack\n.hidden sigbus_on_stack\n"
	".type sigbus_on_stack, %function\n"
	"sigbus_on_stack:\n.cfi_startproc\n"
	"hint #34\n"	/* bti c */
	"stp x29, x30, [sp, #-16]!\n.cfi_def_cfa_offset 16\n"
	".cfi_offset 29, -16\n.cfi_offset 30, -8\n"
	"mov x29, sp\n.cfi_def_cfa_register 29\n"
	"mov sp, x0\nmov x0, x2\nblr x1\n"
	"mov sp, x29\n.cfi_def_cfa sp, 16\n"
	"ldp x29, x30, [sp], #16\n.cfi_def_cfa_offset 0\n"
	".cfi_restore 29\n.cfi_restore 30\nret\n"
	".cfi_endproc\n.size sigbus_on_stack, .-sigbus_on_stack\n.popsection\n");
#define HAVE_ON_STACK 1
#endif

/* On the shim's stack. The thread's alternate stack is off meanwhile: a
 * fault in the repair (SA_ONSTACK) would otherwise start a frame at its
 * top, over the one this handler came in on. SIGBUS is unblocked by the
 * syscall itself: a wrapper between the kernel and us (TSan's handler
 * runs ours with every signal blocked) may have blocked it, and a fault
 * in the repair would then end the process. The handler's return puts
 * the mask back. */
static void run_mend(void *arg)
{
	struct job *j = arg;
	stack_t alt, off = { .ss_flags = SS_DISABLE };
	uint64_t bus = UINT64_C(1) << (SIGBUS - 1);	/* the kernel's sigset */
	int had = sigaltstack(NULL, &alt) == 0 && !(alt.ss_flags & SS_DISABLE) &&
		  sigaltstack(&off, NULL) == 0;

	syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &bus, NULL, sizeof(bus));

	j->ok = j->m->mend(j->addr);
	if (had) {
		alt.ss_flags &= (int)SS_AUTODISARM;
		sigaltstack(&alt, NULL);
	}
}

/* A fault in the shim's range: 1 when mended (the access runs again). A
 * small frame: it may be on a small alternate stack. */
static int own_fault(const struct sigbus_mender *m, void *addr)
{
	struct job j = { m, addr, 1 };
	unsigned seen;

	if (mending_here) /* cut again while this thread mends: on our stack already */
		return m->again(addr);
	seen = __atomic_load_n(&mends, __ATOMIC_ACQUIRE);
	while (__atomic_exchange_n(&mending, 1, __ATOMIC_ACQUIRE))
		;
	/* another thread mended it while we waited: try again first */
	if (__atomic_load_n(&mends, __ATOMIC_ACQUIRE) == seen) {
		mending_here = 1;
#ifdef HAVE_ON_STACK
		sigbus_on_stack(sigbus_stack + OWN_STACK, run_mend, &j);
#else
		run_mend(&j);
#endif
		mending_here = 0;
		__atomic_add_fetch(&mends, 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&mending, 0, __ATOMIC_RELEASE);
	/* one sent while it mended, its view open: delivered now */
	sigmask_set_app_blocks(sigmask_app_blocks());
	return j.ok;
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	const struct sigbus_mender *m = __atomic_load_n(&mender, __ATOMIC_ACQUIRE);

	if (si->si_code > 0 && m && m->ours(si->si_addr)) {
		if (!own_fault(m, si->si_addr))
			chain(sig, si, uc);
	} else if (si->si_code <= 0 && (sigmask_app_blocks() || mending_here)) {
		sigmask_hold(si);	/* sent while blocked, in its view */
	} else {
		chain(sig, si, uc);
	}
	errno = saved;
}

void sigbus_install(const struct sigbus_mender *m)
{
	struct sigaction k, was;

	if (!real() || real_sigaction(SIGBUS, NULL, &was) != 0)
		return;
	app[0] = was;
	ours(&k, &was);
	if (real_sigaction(SIGBUS, &k, NULL) == 0) {
		__atomic_store_n(&mender, m, __ATOMIC_RELEASE);
		sigmask_start();
	}
}

void sigbus_before_exec(void)
{
	struct sigaction a = app[__atomic_load_n(&cur, __ATOMIC_ACQUIRE)];

	if (installed() && a.sa_handler == SIG_IGN)
		real_sigaction(SIGBUS, &a, NULL);
	if (installed())
		sigmask_exec(1);
}

void sigbus_after_exec_failed(void)
{
	struct sigaction k;

	if (!installed())
		return;
	sigmask_exec(0);
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
	sigdelset(&all, SIGBUS);
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

void sigbus_watch(int sig, void (*handler)(int, siginfo_t *, void *), void (*fn)(int sig))
{
	hidden = handler;
	__atomic_store_n(&hidden_sig, sig, __ATOMIC_RELEASE);
	__atomic_store_n(&watch_fn, fn, __ATOMIC_RELEASE);
}

/* The kernel's action for sig is the shim's hidden handler: what the
 * application sees of it, before it changes, is the default. */
static int shim_holds(int sig)
{
	struct sigaction k;

	return sig == __atomic_load_n(&hidden_sig, __ATOMIC_ACQUIRE) && sig != 0 && real() &&
	       real_sigaction(sig, NULL, &k) == 0 && (k.sa_flags & SA_SIGINFO) &&
	       k.sa_sigaction == hidden;
}

static void as_default(struct sigaction *a)
{
	memset(a, 0, sizeof(*a));
	a->sa_handler = SIG_DFL;
	sigemptyset(&a->sa_mask);
}

/* The application sets an action for sig: tell the watcher first. */
static void watch(int sig)
{
	void (*fn)(int) = __atomic_load_n(&watch_fn, __ATOMIC_ACQUIRE);

	if (fn)
		fn(sig);
}

/* Another signal's action: its handler's mask without SIGBUS, for the
 * kernel (see ours()); the application is told what it set. */
static int other_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	uint64_t bit = UINT64_C(1) << (sig & 63);
	struct sigaction k;
	int had = (__atomic_load_n(&masks_bus, __ATOMIC_ACQUIRE) & bit) != 0, rc;

	if (act) {
		k = *act;
		sigdelset(&k.sa_mask, SIGBUS);
	}
	rc = real_sigaction(sig, act ? &k : NULL, old);
	if (rc != 0 || sig <= 0 || sig > 64)
		return rc;
	if (old && had)
		sigaddset(&old->sa_mask, SIGBUS);
	if (act && sigismember(&act->sa_mask, SIGBUS) == 1)
		__atomic_or_fetch(&masks_bus, bit, __ATOMIC_RELEASE);
	else if (act)
		__atomic_and_fetch(&masks_bus, ~bit, __ATOMIC_RELEASE);
	return rc;
}

static int any_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (act)
		watch(sig);
	if (!real())
		return errno = ENOSYS, -1;
	if (!installed())
		return real_sigaction(sig, act, old);
	if (sig == SIGBUS)
		return app_sigaction(act, old);
	return other_sigaction(sig, act, old);
}

EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	int hide = old && shim_holds(sig), rc;

	rc = any_sigaction(sig, act, old);
	if (rc == 0 && hide)
		as_default(old);
	return rc;
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

	if (sig != SIGBUS || !installed()) {
		int hide = shim_holds(sig);
		sighandler_t was;

		watch(sig);
		if (!fn) {
			*(void **)&fn = dlsym(RTLD_NEXT, name);
			__atomic_store_n(next, fn, __ATOMIC_RELEASE);
		}
		was = fn ? fn(sig, h) : (errno = ENOSYS, SIG_ERR);
		return hide && was != SIG_ERR ? SIG_DFL : was;
	}
	watch(sig);
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
