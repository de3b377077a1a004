/* PMCSHIM_SCOPE in C, left by every path: the end of the block, an early
 * return, goto out of the block, break and continue. Each region is
 * followed by a top-level one ("after-*"): a scope left open would leave
 * it nested, and its thread with an open region at exit.
 *   scopes          every case
 *   scopes leak     also a region left open on purpose (the test's check
 *                   must see it) */
#include <stdio.h>
#include <string.h>

#include <pmcshim.h>

static int early(int n)
{
	PMCSHIM_SCOPE("early");
	if (n > 0)
		return n;	/* the region ends here... */
	PMCSHIM_BEGIN("early-inner");
	PMCSHIM_END("early-inner");
	return 0;		/* ...or here */
}

static void by_goto(void)
{
	for (int i = 0; i < 3; i++) {
		PMCSHIM_SCOPE("goto");
		PMCSHIM_SCOPE("goto-second");	/* two in one block */
		if (i == 1)
			goto out;
	}
out:
	PMCSHIM_BEGIN("after-goto");
	PMCSHIM_END("after-goto");
}

static void by_break_continue(void)
{
	for (int i = 0; i < 5; i++) {
		PMCSHIM_SCOPE("loop");
		if (i == 1)
			continue;
		if (i == 3)
			break;
	}
}

int main(int argc, char **argv)
{
	int sum = early(0) + early(1) + early(2);

	PMCSHIM_BEGIN("after-early");
	PMCSHIM_END("after-early");
	by_goto();
	by_break_continue();
	if (argc > 1 && strcmp(argv[1], "leak") == 0)
		PMCSHIM_BEGIN("leaked");
	printf("scopes: %d\n", sum);
	return 0;
}
