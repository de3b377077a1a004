/* A program with a known region tree, for the reader's tree tests (and
 * the HTML page's): factor under solve (3 calls) and under io (1 call),
 * rec nested in itself three deep, all inside main. */
#include <pmcshim.h>

static volatile long sink;

static void work(int n)
{
	for (long i = 0; i < n * 20000L; i++)
		sink += i;
}

static void factor(void)
{
	PMCSHIM_BEGIN("factor");
	work(2);
	PMCSHIM_END("factor");
}

static void rec(int depth)
{
	PMCSHIM_BEGIN("rec");
	work(1);
	if (depth)
		rec(depth - 1);
	PMCSHIM_END("rec");
}

int main(void)
{
	PMCSHIM_BEGIN("main");
	PMCSHIM_BEGIN("solve");
	for (int i = 0; i < 3; i++)
		factor();
	PMCSHIM_END("solve");
	PMCSHIM_BEGIN("io");
	factor();
	PMCSHIM_END("io");
	rec(2);
	PMCSHIM_END("main");
	return 0;
}
