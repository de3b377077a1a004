/* Cost of distinct run-time names: N begin_name/end_name pairs, each with
 * a name the process has not seen before, for N = 125k, 250k, 500k and 1M.
 * Each N runs in a fresh process (the shim's tables start empty), first
 * without the shim (the baseline: the loop that makes the names) and then
 * under it; the median of a few rounds, the machine being shared. When the
 * shim's cost grows linearly, ns per name stays flat down the column.
 *
 *   build/bench-names build/libpmcshim.so [rounds]
 *
 * The children inherit the environment (PMCSHIM_OUTPUT, PMCSHIM_QUIET,
 * PMCSHIM_STACK_DEPTH, PMCSHIM_MAX_NAMES ...); only LD_PRELOAD is set or
 * removed here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmcshim.h>

#define ROUNDS_MAX 15

static const long sizes[] = { 125000, 250000, 500000, 1000000 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The child: n pairs, each name new (made in a buffer, as a program that
 * computes names does); prints the loop's ns. */
static int child(long n)
{
	char name[32];
	double start = now_ns();

	for (long i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "name-%ld", i);
		pmcshim_begin_name(name);
		pmcshim_end_name(name);
	}
	printf("%.0f\n", now_ns() - start);
	return 0;
}

struct run {
	double loop_ns;		/* the child's loop */
	double process_ns;	/* start to exit, the shim's setup and end included */
};

/* One child for n names, under the shim or not. */
static int run_child(const char *self, const char *shim, long n, struct run *r)
{
	char cmd[4096];
	double start = now_ns();
	FILE *p;
	int ok;

	if (shim)
		setenv("LD_PRELOAD", shim, 1);
	else
		unsetenv("LD_PRELOAD");
	snprintf(cmd, sizeof(cmd), "exec '%s' --child %ld", self, n);
	p = popen(cmd, "r");
	unsetenv("LD_PRELOAD");
	if (!p)
		return -1;
	ok = fscanf(p, "%lf", &r->loop_ns) == 1;
	ok = pclose(p) == 0 && ok;
	r->process_ns = now_ns() - start;
	return ok ? 0 : -1;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return v[n / 2];
}

int main(int argc, char **argv)
{
	char self[4096];
	const char *shim;
	int rounds;

	if (argc == 3 && strcmp(argv[1], "--child") == 0)
		return child(atol(argv[2]));
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s SHIM.so [rounds]\n", argv[0]);
		return 2;
	}
	shim = argv[1];
	rounds = argc > 2 ? atoi(argv[2]) : 3;
	if (rounds < 1 || rounds > ROUNDS_MAX)
		rounds = 3;
	if (!realpath("/proc/self/exe", self))
		return 1;
	printf("%9s %12s %12s %8s %10s %10s\n", "names", "base ns/name", "shim ns/name",
	       "x base", "shim loop", "shim run");
	for (size_t k = 0; k < NSIZES; k++) {
		double base[ROUNDS_MAX], loop[ROUNDS_MAX], whole[ROUNDS_MAX];

		for (int r = 0; r < rounds; r++) {
			struct run b, s;

			if (run_child(self, NULL, sizes[k], &b) != 0 ||
			    run_child(self, shim, sizes[k], &s) != 0) {
				fprintf(stderr, "bench-names: a child for %ld names failed\n",
					sizes[k]);
				return 1;
			}
			base[r] = b.loop_ns;
			loop[r] = s.loop_ns;
			whole[r] = s.process_ns;
		}
		double b = median(base, rounds), l = median(loop, rounds), w = median(whole, rounds);
		printf("%9ld %12.1f %12.1f %8.1f %9.3fs %9.3fs\n", sizes[k], b / sizes[k],
		       l / sizes[k], l / b, l / 1e9, w / 1e9);
	}
	printf("median of %d rounds; each size a fresh process; 'shim run': the whole "
	       "process under the shim (setup, loop, end)\n", rounds);
	return 0;
}
