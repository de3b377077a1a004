/* Functions whose real costs are known, for the function hooks'
 * calibration: work1, work2 and work3 spin a dependent chain of 1, 2 and
 * 3 units, and each calls an empty function (nothing) CHILDREN times, so
 * that what the hooks cost around a call, taken out or not, shows in the
 * callers' exclusive times: once per round of drive, which calls the
 * three from DEPTH frames down (a stack to walk). Built with
 * -finstrument-functions. Prints the process's CPU time (getrusage), in
 * ns, to hold the profile's sum against.
 * Usage: costs [rounds] */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#define UNIT 128			/* multiply-adds: ~0.15 us */
#define CHILDREN 3
#define DEPTH 12

static unsigned long chain = 1;

static inline __attribute__((always_inline, no_instrument_function)) void spin(unsigned n)
{
	unsigned long x = chain;

	for (unsigned i = 0; i < n; i++) {
		x = x * 6364136223846793005ul + 1442695040888963407ul;
		__asm__ __volatile__("" : "+r"(x));
	}
	chain = x;
	/* done before what follows begins: the chain's latency is the work's
	 * cost, and the hooks after it do not run in its shadow */
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("lfence" ::: "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("isb" ::: "memory");
#endif
}

__attribute__((noinline)) void nothing(void)
{
	__asm__ __volatile__("" ::: "memory");
}

static inline __attribute__((always_inline, no_instrument_function)) void children(void)
{
	for (int i = 0; i < CHILDREN; i++)
		nothing();
}

__attribute__((noinline)) void work1(void) { spin(1 * UNIT); children(); }
__attribute__((noinline)) void work2(void) { spin(2 * UNIT); children(); }
__attribute__((noinline)) void work3(void) { spin(3 * UNIT); children(); }

__attribute__((noinline)) void drive(long rounds)
{
	for (long r = 0; r < rounds; r++) {
		work1();
		work2();
		work3();
	}
}

__attribute__((noinline)) void down(int depth, long rounds)
{
	if (depth > 0)
		down(depth - 1, rounds);
	else
		drive(rounds);
	__asm__ __volatile__("" ::: "memory");	/* not a tail call */
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 300000;
	struct rusage ru;

	down(DEPTH, rounds);
	getrusage(RUSAGE_SELF, &ru);
	printf("cpu_ns %lld chain %lu\n",
	       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL, chain & 1);
	return 0;
}
