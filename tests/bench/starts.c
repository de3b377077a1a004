/* What the shim adds to starting things, against the same thing without
 * it in the same run (interleaved rounds, the best of each): a process
 * that does nothing (/bin/true), and a thread that starts, marks once 12
 * frames deep (so a stack of depth 8 is walked) and ends. CPU time (user
 * + system, from wait4) and wall time per process; per thread, a process
 * starting THREADS threads one after another less one starting none,
 * divided by THREADS.
 *
 *   build/bench-starts build/libpmcshim.so     (PMCSHIM_OUTPUT: a scratch directory)
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

int main(int argc, char **argv)
{
	char threads[16];
	char *t_argv[] = { argv[0], "--threads", threads, NULL };
	char *true_argv[] = { "/bin/true", NULL };
	/* [shim?][what]: what 0 /bin/true, 1 no threads, 2 THREADS threads */
	double cpu[2][3], wall[2][3], c, w;

	if (argc == 3 && strcmp(argv[1], "--threads") == 0)
		return child(atoi(argv[2]));
	if (argc != 2) {
		fprintf(stderr, "usage: %s SHIM.so\n", argv[0]);
		return 2;
	}
	for (int s = 0; s < 2; s++)
		for (int k = 0; k < 3; k++)
			cpu[s][k] = wall[s][k] = -1;
	for (int r = 0; r < ROUNDS; r++) {
		for (int s = 0; s < 2; s++) {
			const char *shim = s ? argv[1] : NULL;

			for (int k = 0; k < 3; k++) {
				snprintf(threads, sizeof(threads), "%d", k == 2 ? THREADS : 0);
				if (run(k ? t_argv : true_argv, shim, &c, &w) != 0) {
					fprintf(stderr, "bench-starts: a run failed\n");
					return 1;
				}
				keep_min(&cpu[s][k], c);
				keep_min(&wall[s][k], w);
			}
		}
	}
	printf("%-40s %10s %10s %10s\n", "", "without", "with", "added");
	printf("%-40s %10.0f %10.0f %+10.0f\n", "/bin/true, CPU us", cpu[0][0], cpu[1][0],
	       cpu[1][0] - cpu[0][0]);
	printf("%-40s %10.0f %10.0f %+10.0f\n", "/bin/true, wall us", wall[0][0], wall[1][0],
	       wall[1][0] - wall[0][0]);
	for (int s = 0; s < 2; s++)
		c = (cpu[s][2] - cpu[s][1]) / THREADS, cpu[s][0] = c;
	printf("%-40s %10.1f %10.1f %+10.1f\n", "thread start+mark+end, CPU us", cpu[0][0],
	       cpu[1][0], cpu[1][0] - cpu[0][0]);
	printf("(%d rounds, the best of each; threads: %d in a process less none, per thread)\n",
	       ROUNDS, THREADS);
	return 0;
}
