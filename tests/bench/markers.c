/* Cost of a marker pair, against a floor measured in the same run: a
 * plain rdtsc begin/end pair (two out-of-line calls, each reading the
 * TSC, the end one accumulating the difference) -- what any wall-clock
 * region timer must at least do. Markers are called from 12 frames deep,
 * so a stack depth of 8 really unwinds 8 frames.
 *
 *   LD_PRELOAD=build/libpmcshim.so PMCSHIM_STACK_DEPTH=8 build/bench-markers
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <pmcshim.h>

#define PAIRS 200000
#define ROUNDS 9
#define NEST 12

static uint64_t t0, acc;

static inline uint64_t rdtsc(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__)
	uint64_t v;
	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#endif
}

__attribute__((noinline)) void floor_begin(void)
{
	t0 = rdtsc();
}

__attribute__((noinline)) void floor_end(void)
{
	acc += rdtsc() - t0;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

typedef void (*loop_fn)(void);

__attribute__((noinline)) void loop_floor(void)
{
	for (int i = 0; i < PAIRS; i++) {
		floor_begin();
		floor_end();
	}
}

__attribute__((noinline)) void loop_macro(void)
{
	for (int i = 0; i < PAIRS; i++) {
		PMCSHIM_BEGIN("bench");
		PMCSHIM_END("bench");
	}
}

__attribute__((noinline)) void loop_string(void)
{
	for (int i = 0; i < PAIRS; i++) {
		pmcshim_begin_name("bench-string");
		pmcshim_end_name("bench-string");
	}
}

/* Run fn NEST frames below here, so unwinding has frames to walk. */
__attribute__((noinline)) void nest(int depth, loop_fn fn)
{
	if (depth > 0)
		nest(depth - 1, fn);
	else
		fn();
	__asm__ __volatile__("" ::: "memory");	/* not a tail call */
}

static double ns_per_pair(loop_fn fn)
{
	double start = now_ns();

	nest(NEST, fn);
	return (now_ns() - start) / PAIRS;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(void)
{
	double fl[ROUNDS], mac[ROUNDS], str[ROUNDS];
	const char *depth = getenv("PMCSHIM_STACK_DEPTH");
	const char *method = getenv("PMCSHIM_STACK_METHOD");

	nest(NEST, loop_macro);		/* warm: sites, caches, unwinder */
	nest(NEST, loop_string);
	/* interleaved rounds, medians: the machine is shared */
	for (int r = 0; r < ROUNDS; r++) {
		fl[r] = ns_per_pair(loop_floor);
		mac[r] = ns_per_pair(loop_macro);
		str[r] = ns_per_pair(loop_string);
	}
	qsort(fl, ROUNDS, sizeof(double), cmp);
	qsort(mac, ROUNDS, sizeof(double), cmp);
	qsort(str, ROUNDS, sizeof(double), cmp);
	double f = fl[ROUNDS / 2], m = mac[ROUNDS / 2], s = str[ROUNDS / 2];
	printf("%-28s %8s %8s\n", pmcshim_active() ? "under pmcshim" : "without the shim",
	       "ns/pair", "x floor");
	printf("%-28s %8.1f %8.2f\n", "floor: rdtsc begin/end", f, 1.0);
	printf("%-28s %8.1f %8.2f\n", "PMCSHIM_BEGIN/END", m, m / f);
	printf("%-28s %8.1f %8.2f\n", "pmcshim_begin_name/end_name", s, s / f);
	if (pmcshim_active())
		printf("stack depth %s, method %s, %d pairs x %d rounds, median\n",
		       depth ? depth : "8 (default)", method ? method : "auto", PAIRS, ROUNDS);
	return acc == 0;	/* keep the floor's work observable */
}
