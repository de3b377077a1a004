/* The sampler's test program (tests/sample/run.sh). Every mode does its
 * work in busy loops of known cost; what the shim must leave as it is
 * (output, exit status, the program's own signals) is printed.
 *   ratio [region]   one() and three(): the same loop, 1:3 iterations (with
 *                    region: three() inside the marked region "solve")
 *   takesig          the program sets a handler for every real-time signal
 *                    while sampled, then raises the highest: its handler runs
 *   blocked          a thread that blocks every signal works, then ends
 *   prof             setitimer(ITIMER_PROF) with a SIGPROF handler
 *   forks            fork: the child works (child_work), then exec's this
 *                    program as "execd", which works and exits 7
 *   execfail         an exec that fails between one() and three()
 *   threads          one() and three() each on a thread of its own, at once
 *   hidden           asks every real-time signal's action (none may be the
 *                    shim's), then one(): sampling goes on
 *   inhandler        handler_work() inside a SIGUSR1 handler, raised 8 times
 *   forkloop         200 forks (the child _exits) while a thread runs one()
 *   execthreads      exec's this program as "execd" while a thread runs one()
 *   dlclose          800 dlopen/call/dlclose of libsampledlib.so while a
 *                    thread runs one()
 *   recurse          rec() calls itself 6 deep, then spins in the deepest
 *   jit              code copied into an mmap'd page (no unwind tables) that
 *                    sets the frame pointer to a bad address while it runs */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmcshim.h"

#define UNIT 50000000UL		/* iterations: about 50 ms here */

static __thread volatile unsigned long sink;	/* per thread: no race */

/* The loop every function runs (inlined in each: their own samples). */
#define SPIN(n) do { \
	unsigned long x_ = sink; \
	for (unsigned long i_ = 0; i_ < (n); i_++) { \
		x_ = x_ * 6364136223846793005UL + 1442695040888963407UL; \
		__asm__ volatile("" : "+r"(x_)); \
	} \
	sink = x_; \
} while (0)

__attribute__((noinline, noipa)) void one(unsigned long n) { SPIN(n); }
__attribute__((noinline, noipa)) void three(unsigned long n) { SPIN(3 * n); }
__attribute__((noinline, noipa)) void parent_work(unsigned long n) { SPIN(n); }
__attribute__((noinline, noipa)) void child_work(unsigned long n) { SPIN(n); }
__attribute__((noinline, noipa)) void execd_work(unsigned long n) { SPIN(n); }
__attribute__((noinline, noipa)) void blocked_work(unsigned long n) { SPIN(n); }
__attribute__((noinline, noipa)) void handler_work(unsigned long n) { SPIN(n); }

static int ratio(int region)
{
	for (int r = 0; r < 12; r++) {
		one(UNIT / 4);
		if (region)
			PMCSHIM_BEGIN("solve");
		three(UNIT / 4);
		if (region)
			PMCSHIM_END("solve");
	}
	puts("ratio done");
	return 0;
}

static volatile sig_atomic_t got;

static void on_rt(int sig)
{
	(void)sig;
	got++;
}

static int takesig(void)
{
	struct sigaction a, old;
	int shown = 0;

	one(UNIT);		/* sampled first */
	memset(&a, 0, sizeof(a));
	a.sa_handler = on_rt;
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++) {
		sigaction(s, &a, &old);
		/* what was there before: the default, never the shim's */
		shown += old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO);
	}
	if (shown)
		printf("%d signals had an action before\n", shown);
	three(UNIT / 2);	/* no sampling signal may reach on_rt now */
	raise(SIGRTMAX);
	printf("handled %d\n", (int)got);
	return got == 1 ? 0 : 1;
}

static void *blocker(void *arg)
{
	sigset_t all;

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	blocked_work(UNIT * 4);
	return NULL;
}

static int blocked(void)
{
	pthread_t t;

	pthread_create(&t, NULL, blocker, NULL);
	pthread_join(t, NULL);
	one(UNIT);
	puts("blocked done");
	return 0;
}

static volatile sig_atomic_t ticks;

static void on_prof(int sig)
{
	(void)sig;
	ticks++;
}

static int prof(void)
{
	struct itimerval it = { { 0, 5000 }, { 0, 5000 } };	/* every 5 ms of CPU */

	signal(SIGPROF, on_prof);
	setitimer(ITIMER_PROF, &it, NULL);
	three(UNIT * 2);
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_PROF, &it, NULL);
	printf("prof %s\n", ticks > 0 ? "ticked" : "never ticked");
	return ticks > 0 ? 0 : 1;
}

static int forks(const char *self)
{
	int st;
	pid_t pid;

	parent_work(UNIT * 2);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		child_work(UNIT * 4);
		execl(self, self, "execd", (char *)NULL);
		_exit(127);
	}
	parent_work(UNIT * 2);
	waitpid(pid, &st, 0);
	printf("child %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}

static int execfail(void)
{
	one(UNIT);
	execl("/nonexistent/sampled", "sampled", (char *)NULL);
	three(UNIT);
	puts("exec failed");
	return 0;
}

static void *run_one(void *arg)
{
	(void)arg;
	for (int r = 0; r < 12; r++)
		one(UNIT / 4);
	return NULL;
}

static void *run_three(void *arg)
{
	(void)arg;
	for (int r = 0; r < 12; r++)
		three(UNIT / 4);
	return NULL;
}

static int threads(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, run_one, NULL);
	pthread_create(&b, NULL, run_three, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	puts("threads done");
	return 0;
}

/* Every real-time signal reads as the default: the shim's handler is
 * hidden. */
static int hidden(void)
{
	int shown = 0;

	for (int s = SIGRTMIN; s <= SIGRTMAX; s++) {
		struct sigaction a;

		sigaction(s, NULL, &a);
		if (a.sa_handler != SIG_DFL || (a.sa_flags & SA_SIGINFO) || a.sa_flags)
			printf("signal %d shows an action\n", s), shown++;
	}
	one(UNIT);
	puts(shown ? "hidden: no" : "hidden");
	return 0;
}

__attribute__((noinline, noipa)) void rec(int depth, unsigned long n)
{
	if (depth > 0)
		rec(depth - 1, n);
	else
		SPIN(n);
	sink++;		/* (no tail call: every frame stays on the stack) */
}

static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	(void)sig;
	handler_work(UNIT / 2);
	handled++;
}

static int inhandler(void)
{
	signal(SIGUSR1, on_usr1);
	for (int i = 0; i < 8; i++)
		raise(SIGUSR1);
	printf("handled %d\n", (int)handled);
	return 0;
}

/* A thread running one() until told to stop: samples in it while the
 * main thread forks, execs or unloads. */
static volatile int spinning = 1;

static void *spinner(void *arg)
{
	(void)arg;
	while (__atomic_load_n(&spinning, __ATOMIC_RELAXED))
		one(UNIT / 50);
	return NULL;
}

static pthread_t spin_start(void)
{
	pthread_t t;

	pthread_create(&t, NULL, spinner, NULL);
	return t;
}

static void spin_stop(pthread_t t)
{
	__atomic_store_n(&spinning, 0, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
}

static int forkloop(void)
{
	pthread_t t = spin_start();
	int ok = 0;

	for (int i = 0; i < 200; i++) {
		pid_t pid = fork();
		int st;

		if (pid == 0)
			_exit(3);
		three(UNIT / 100);
		ok += pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		      WEXITSTATUS(st) == 3;
	}
	spin_stop(t);
	printf("forked %d\n", ok);
	return 0;
}

static int execthreads(const char *self)
{
	spin_start();
	three(UNIT / 2);
	fflush(stdout);
	execl(self, self, "execd", (char *)NULL);
	return 127;
}

static int unloads(const char *self)
{
	char path[4096];
	const char *slash = strrchr(self, '/');
	pthread_t t = spin_start();
	int ok = 0;

	snprintf(path, sizeof(path), "%.*slibsampledlib.so", slash ? (int)(slash - self + 1) : 0,
		 self);
	for (int i = 0; i < 800; i++) {
		void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		void (*work)(unsigned long);

		if (!h)
			break;
		*(void **)&work = dlsym(h, "lib_work");
		if (work)
			work(UNIT / 400), ok++;
		dlclose(h);
	}
	spin_stop(t);
	printf("unloaded %d\n", ok);
	return 0;
}

/* x86-64: push rbp; mov rbp, 0x1000 (unmapped); mov rcx, N; 1: dec rcx;
 * jnz 1b; pop rbp; ret. No unwind tables cover it, and its frame
 * pointer leads nowhere. */
static int jit(void)
{
#if defined(__x86_64__)
	static const unsigned char code[] = {
		0x55, 0x48, 0xbd, 0x00, 0x10, 0, 0, 0, 0, 0, 0,
		0x48, 0xb9, 0x00, 0xe1, 0xf5, 0x05, 0, 0, 0, 0,	/* 100,000,000 */
		0x48, 0xff, 0xc9, 0x75, 0xfb, 0x5d, 0xc3 };
	void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void (*fn)(void);

	if (page == MAP_FAILED)
		return 1;
	memcpy(page, code, sizeof(code));
	if (mprotect(page, 4096, PROT_READ | PROT_EXEC) != 0)
		return 1;
	*(void **)&fn = page;
	for (int i = 0; i < 4; i++)
		fn();
	munmap(page, 4096);
	puts("jit ran");
#else
	puts("jit ran");	/* (the bytes are x86-64's) */
#endif
	one(UNIT);
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "ratio";

	if (!strcmp(m, "ratio"))
		return ratio(argc > 2);
	if (!strcmp(m, "takesig"))
		return takesig();
	if (!strcmp(m, "blocked"))
		return blocked();
	if (!strcmp(m, "prof"))
		return prof();
	if (!strcmp(m, "forks"))
		return forks(argv[0]);
	if (!strcmp(m, "execfail"))
		return execfail();
	if (!strcmp(m, "threads"))
		return threads();
	if (!strcmp(m, "hidden"))
		return hidden();
	if (!strcmp(m, "inhandler"))
		return inhandler();
	if (!strcmp(m, "forkloop"))
		return forkloop();
	if (!strcmp(m, "execthreads"))
		return execthreads(argv[0]);
	if (!strcmp(m, "dlclose"))
		return unloads(argv[0]);
	if (!strcmp(m, "recurse")) {
		rec(5, UNIT * 2);
		return 0;
	}
	if (!strcmp(m, "jit"))
		return jit();
	if (!strcmp(m, "execd")) {
		execd_work(UNIT * 4);
		return 7;
	}
	fprintf(stderr, "sampled: unknown mode %s\n", m);
	return 2;
}
