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
 *   threads          one() and three() each on a thread of its own, at once */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmcshim.h"

#define UNIT 50000000UL		/* iterations: about 50 ms here */

static volatile unsigned long sink;

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
	struct sigaction a;

	one(UNIT);		/* sampled first */
	memset(&a, 0, sizeof(a));
	a.sa_handler = on_rt;
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		sigaction(s, &a, NULL);
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
	if (!strcmp(m, "execd")) {
		execd_work(UNIT * 4);
		return 7;
	}
	fprintf(stderr, "sampled: unknown mode %s\n", m);
	return 2;
}
