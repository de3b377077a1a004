/* A tiny program for the reader's --stacks test: three functions whose
 * lines the test looks up by the markers in the comments (LINE-...), built
 * with -g -O0 so each call stays a call on its own line. */
#include <pmcshim.h>

__attribute__((noinline)) static long leaf(long n)
{
	long s = 0;

	PMCSHIM_BEGIN("leaf"); /* LINE-LEAF */
	for (long i = 0; i < n; i++)
		s += i;
	PMCSHIM_END("leaf");
	return s;
}

__attribute__((noinline)) static long middle(long n)
{
	return leaf(n) + 1; /* LINE-MIDDLE */
}

int main(void)
{
	return middle(1000) > 0 ? 0 : 1; /* LINE-MAIN */
}
