/* Cost of a function call under -finstrument-functions against a call of
 * a function holding a PMCSHIM_BEGIN/END pair, at the same depth (12
 * frames below main), measured in the same run: interleaved rounds, the
 * best of each (short rounds, many: the best is the one least disturbed
 * on a shared machine). Built with -finstrument-functions; every function
 * but `instrumented` is excluded from it.
 *
 *   LD_PRELOAD=build/libpmcshim.so PMCSHIM_STACK_DEPTH=8 build/bench-functions
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <pmcshim.h>

#define CALLS 20000
#define ROUNDS 31
#define NEST 12
#define NI __attribute__((noinline, no_instrument_function))

static volatile int sink;

/* the one instrumented function */
__attribute__((noinline)) void instrumented(void)
{
	sink++;
}

NI void marked(void)
{
	PMCSHIM_BEGIN("bench-marked");
	sink++;
	PMCSHIM_END("bench-marked");
}

NI void plain(void)
{
	sink++;
}

typedef void (*loop_fn)(void);

NI void loop_instrumented(void)
{
	for (int i = 0; i < CALLS; i++)
		instrumented();
}

NI void loop_marked(void)
{
	for (int i = 0; i < CALLS; i++)
		marked();
}

NI void loop_plain(void)
{
	for (int i = 0; i < CALLS; i++)
		plain();
}

NI void nest(int depth, loop_fn fn)
{
	if (depth > 0)
		nest(depth - 1, fn);
	else
		fn();
	__asm__ __volatile__("" ::: "memory");	/* not a tail call */
}

NI static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

NI static double ns_per_call(loop_fn fn)
{
	double start = now_ns();

	nest(NEST, fn);
	return (now_ns() - start) / CALLS;
}

NI static double best(const double *v)
{
	double b = v[0];

	for (int i = 1; i < ROUNDS; i++)
		b = v[i] < b ? v[i] : b;
	return b;
}

NI int main(void)
{
	double ins[ROUNDS], mar[ROUNDS], pla[ROUNDS];
	const char *depth = getenv("PMCSHIM_STACK_DEPTH");
	const char *filter = getenv("PMCSHIM_FUNCTIONS");

	nest(NEST, loop_instrumented);	/* warm: the function met, sites, caches */
	nest(NEST, loop_marked);
	for (int r = 0; r < ROUNDS; r++) {
		pla[r] = ns_per_call(loop_plain);
		ins[r] = ns_per_call(loop_instrumented);
		mar[r] = ns_per_call(loop_marked);
	}
	double p = best(pla), i = best(ins), m = best(mar);
	printf("%-40s %8s %8s\n", pmcshim_active() ? "under pmcshim" : "without the shim",
	       "ns/call", "x marked");
	printf("%-40s %8.1f %8.2f\n", "plain call (no region)", p, p / m);
	printf("%-40s %8.1f %8.2f\n", "call of a PMCSHIM_BEGIN/END function", m, 1.0);
	printf("%-40s %8.1f %8.2f\n", filter ? "-finstrument-functions, filtered out" :
	       "-finstrument-functions call", i, i / m);
	if (pmcshim_active())
		printf("stack depth %s, %d calls x %d rounds, best round\n",
		       depth ? depth : "8 (default)", CALLS, ROUNDS);
	return 0;
}
