/* What the shim adds to starting things, against the same thing without
 * it in the same run: a process that does nothing (/bin/true), CPU and
 * wall time per process (from wait4), TRUE_ROUNDS rounds interleaved
 * with the bare program, the best round and percentiles of each; and a
 * thread that starts, marks once 12 frames deep (so a stack of depth 8 is
 * walked) and ends: a process starting THREADS threads one after another
 * less one starting none, divided by THREADS, the best of ROUNDS.
 * A second shim (the one before a change, say) runs in the same rounds,
 * in a column of its own.
 *
 *   build/bench-starts build/libpmcshim.so [OTHER.so]  (PMCSHIM_OUTPUT: a scratch directory)
 *   build/bench-starts --threads N             (the child: N threads, then exit)
 */
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmcshim.h>

#define THREADS 200
#define ROUNDS 7
#define TRUE_ROUNDS 300
#define SHIMS 3		/* none, the shim, another */
#define NEST 12

extern char **environ;

__attribute__((noinline)) static void nest(int depth)
{
	if (depth > 0) {
		nest(depth - 1);
	} else {
		PMCSHIM_BEGIN("start");
		PMCSHIM_END("start");
	}
	__asm__ __volatile__("" ::: "memory");	/* not a tail call */
}

static void *worker(void *arg)
{
	(void)arg;
	nest(NEST);
	return NULL;
}

static int child(int n)
{
	for (int i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, worker, NULL) != 0)
			return 1;
		pthread_join(t, NULL);
	}
	return 0;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* The environment, with LD_PRELOAD=shim or without any LD_PRELOAD. */
static char **env_with(const char *shim)
{
	static char *env[512];
	static char preload[4096];
	int n = 0;

	for (char **e = environ; *e && n < 510; e++)
		if (strncmp(*e, "LD_PRELOAD=", 11) != 0)
			env[n++] = *e;
	if (shim) {
		snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", shim);
		env[n++] = preload;
	}
	env[n] = NULL;
	return env;
}

/* Run argv once: its CPU and wall time in us. */
static int run(char *const argv[], const char *shim, double *cpu, double *wall)
{
	struct rusage ru;
	double t0 = now_us();
	int status;
	pid_t pid;

	if (posix_spawn(&pid, argv[0], NULL, NULL, argv, env_with(shim)) != 0 ||
	    wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	*wall = now_us() - t0;
	*cpu = ru.ru_utime.tv_sec * 1e6 + ru.ru_utime.tv_usec + ru.ru_stime.tv_sec * 1e6 +
	       ru.ru_stime.tv_usec;
	return 0;
}

static void keep_min(double *best, double v)
{
	if (*best < 0 || v < *best)
		*best = v;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The p-th percentile of v[0..n) (sorted in place). */
static double percentile(double *v, int n, int p)
{
	qsort(v, (size_t)n, sizeof(*v), by_value);
	return v[(n - 1) * p / 100];
}

/* /bin/true without a shim and with each, interleaved: CPU and wall
 * time of every round. */
static double true_us[2][SHIMS][TRUE_ROUNDS];

static int run_true(char *const shims[], int nshims)
{
	char *argv[] = { "/bin/true", NULL };

	for (int r = 0; r < TRUE_ROUNDS; r++)
		for (int s = 0; s < nshims; s++)
			if (run(argv, shims[s], &true_us[0][s][r], &true_us[1][s][r]) != 0)
				return -1;
	return 0;
}

static void print_true(char *const shims[], int nshims)
{
	static const int pct[] = { 0, 10, 25, 50 };
	static const char *what[] = { "CPU", "wall" };

	for (int s = 2; s < nshims; s++)
		printf("(other: %s)\n", shims[s]);
	printf("%-32s %9s %9s %9s%s\n", "", "without", "with", "added",
	       nshims > 2 ? "     other     added" : "");
	for (int m = 0; m < 2; m++) {
		for (unsigned k = 0; k < sizeof(pct) / sizeof(pct[0]); k++) {
			char label[64];
			double v[SHIMS];

			for (int s = 0; s < nshims; s++)
				v[s] = percentile(true_us[m][s], TRUE_ROUNDS, pct[k]);
			snprintf(label, sizeof(label), "/bin/true, %s us, %s", what[m],
				 k ? (pct[k] == 50 ? "median" : pct[k] == 10 ? "10th pct" : "25th pct")
				   : "best");
			printf("%-32s %9.0f %9.0f %+9.0f", label, v[0], v[1], v[1] - v[0]);
			if (nshims > 2)
				printf(" %9.0f %+9.0f", v[2], v[2] - v[0]);
			printf("\n");
		}
	}
}

int main(int argc, char **argv)
{
	char threads[16];
	char *t_argv[] = { argv[0], "--threads", threads, NULL };
	char *shims[SHIMS] = { NULL, argv[1], argc > 2 ? argv[2] : NULL };
	int nshims = argc > 2 ? 3 : 2;
	/* [shim][what]: what 0 no threads, 1 THREADS threads */
	double cpu[SHIMS][2], c, w;

	if (argc == 3 && strcmp(argv[1], "--threads") == 0)
		return child(atoi(argv[2]));
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: %s SHIM.so [OTHER.so]\n", argv[0]);
		return 2;
	}
	for (int s = 0; s < nshims; s++)
		cpu[s][0] = cpu[s][1] = -1;
	if (run_true(shims, nshims) != 0) {
		fprintf(stderr, "bench-starts: a run failed\n");
		return 1;
	}
	for (int r = 0; r < ROUNDS; r++) {
		for (int s = 0; s < nshims; s++) {
			for (int k = 0; k < 2; k++) {
				snprintf(threads, sizeof(threads), "%d", k ? THREADS : 0);
				if (run(t_argv, shims[s], &c, &w) != 0) {
					fprintf(stderr, "bench-starts: a run failed\n");
					return 1;
				}
				keep_min(&cpu[s][k], c);
			}
		}
	}
	print_true(shims, nshims);
	for (int s = 0; s < nshims; s++)
		cpu[s][0] = (cpu[s][1] - cpu[s][0]) / THREADS;
	printf("%-32s %9.1f %9.1f %+9.1f", "thread start+mark+end, CPU us", cpu[0][0], cpu[1][0],
	       cpu[1][0] - cpu[0][0]);
	if (nshims > 2)
		printf(" %9.1f %+9.1f", cpu[2][0], cpu[2][0] - cpu[0][0]);
	printf("\n(/bin/true: %d rounds, interleaved; threads: the best of %d rounds, %d threads "
	       "in a process less none, per thread)\n", TRUE_ROUNDS, ROUNDS, THREADS);
	return 0;
}
