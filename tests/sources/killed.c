/* Calls counted by PMCSHIM_FUNCTIONS=sampled survive SIGKILL: work() is
 * called 100,000 times, then the program spins 300 ms of CPU in code that
 * is not instrumented (the sampler's ticks go on: the calls so far are
 * published into the report file every few samples), then kills itself.
 * Built with -finstrument-functions.
 * Usage: killed */
#include <signal.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void work(unsigned i)
{
	sink += i;
}

static __attribute__((no_instrument_function)) double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	double t0;

	for (unsigned i = 0; i < 100000; i++)
		work(i);
	t0 = cpu_s();
	while (cpu_s() - t0 < 0.3)
		for (int k = 0; k < 10000; k++)
			sink += k;
	raise(SIGKILL);
	return 0;
}
