/* Function hooks that read no clock (PMCSHIM_FUNCTIONS=sampled): once
 * every function has been met (the shim's setup and each function's first
 * call may read the time), the program raises SIGUSR1, calls its
 * functions N times (3 N calls), and raises SIGUSR1 again: tickstep.c,
 * which traces it, single-steps what runs between the two and counts the
 * tick reads (rdtsc, rdtscp) and the instructions. Without "traced" no
 * signal is raised. Built with -finstrument-functions.
 * Usage: notick N [traced] */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) unsigned long leaf(unsigned long x)
{
	__asm__ __volatile__("" : "+r"(x));
	return x * 6364136223846793005ul + 1;
}

__attribute__((noinline)) unsigned long mid(unsigned long x)
{
	return leaf(x) ^ leaf(x + 1);
}

__attribute__((noinline)) unsigned long loop(long n, unsigned long x)
{
	for (long i = 0; i < n; i++)
		x = mid(x);
	return x;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	int traced = argc > 2 && !strcmp(argv[2], "traced");
	unsigned long x = loop(1000, 1);	/* every function met, twice */

	if (traced)
		raise(SIGUSR1);
	x = loop(n, x);
	if (traced)
		raise(SIGUSR1);
	printf("done %lu\n", x & 1);
	return 0;
}
