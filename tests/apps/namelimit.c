/* Run-time names past the names limit (the test sets PMCSHIM_MAX_NAMES=10):
 * n0 .. n24, each begun and ended once, then n0 again (a name it has) and
 * a fixed-name region (a new name: dropped too). Prints what it did and
 * exits 5, with or without the shim. */
#include <stdio.h>

#include <pmcshim.h>

#define NAMES 25

int main(void)
{
	char name[16];

	for (int i = 0; i < NAMES; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		pmcshim_begin_name(name);
		pmcshim_end_name(name);
	}
	pmcshim_begin_name("n0");
	pmcshim_end_name("n0");
	PMCSHIM_BEGIN("fixed");
	PMCSHIM_END("fixed");
	printf("namelimit: %d names\n", NAMES);
	return 5;
}
