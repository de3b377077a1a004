/* A plugin built twice from this one source, -finstrument-functions:
 * P=alpha gives alpha_work and alpha_leaf, P=beta beta_work and
 * beta_leaf. The code is the same, so the two have the same layout and
 * the loader maps the second where the first was (tests/sources/reload.c
 * checks that it did). leaf holds a marker, whose call-site stack runs
 * through the plugin's functions. */
#include <pmcshim.h>

#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define FN(name) CAT(P, name)

int FN(leaf)(int x);
int FN(work)(int n);

__attribute__((noinline)) int FN(leaf)(int x)
{
	PMCSHIM_BEGIN("step");
	x = x * 3 + 1;
	__asm__ volatile("" : "+r"(x));	/* not folded into work */
	PMCSHIM_END("step");
	return x;
}

int FN(work)(int n)
{
	int sum = 0;

	for (int i = 0; i < n; i++)
		sum += FN(leaf)(i);
	return sum;
}
