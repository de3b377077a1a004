/* The read() system calls this process makes around 2,000 region pairs:
 * marker pairs (built plain), or calls of an instrumented function (built
 * with -finstrument-functions and -DFUNCTIONS). The count comes from the
 * kernel's own (/proc/self/io, syscr: read system calls of every thread),
 * read before and after; the reads of that file itself are 2 or 3. Prints
 * "reads N" and the region's pair count. */
#include <stdio.h>
#include <stdlib.h>

#include "pmcshim.h"

#define PAIRS 2000

#define PLAIN __attribute__((no_instrument_function, noinline))

static volatile unsigned sink;

PLAIN static long syscr(void)
{
	char line[128];
	long n = -1;
	FILE *f = fopen("/proc/self/io", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "syscr: %ld", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

__attribute__((noinline)) static void work(unsigned i)
{
	for (unsigned k = 0; k < 200; k++)
		sink += i * k;
}

PLAIN int main(void)
{
	long before, after;

	work(0);	/* the shim's first-call work (calibration) before the count */
	PMCSHIM_BEGIN("warm");
	PMCSHIM_END("warm");
	before = syscr();
	for (unsigned i = 0; i < PAIRS; i++) {
#ifdef FUNCTIONS
		work(i);
#else
		PMCSHIM_BEGIN("pair");
		work(i);
		PMCSHIM_END("pair");
#endif
	}
	after = syscr();
	if (before < 0 || after < 0) {
		puts("no /proc/self/io");
		return 2;
	}
	printf("reads %ld pairs %d\n", after - before, PAIRS);
	return 0;
}
