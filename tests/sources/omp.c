/* OpenMP without markers: one parallel region run ROUNDS times (its
 * threads' work unequal, so its implicit barrier waits), an explicit
 * barrier and a critical section inside it, a named critical section and
 * a combined parallel loop. Built with gcc -fopenmp (libgomp) and clang
 * -fopenmp (libomp); its output does not depend on the shim. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 100

static volatile double sink;

static void work(int n)
{
	double x = 0;

	for (int i = 0; i < n; i++)
		x += i * 0.5;
	sink = x;
}

static long solve(void)
{
	long total = 0, named = 0;

	for (int r = 0; r < ROUNDS; r++) {
#pragma omp parallel
		{
			int me = omp_get_thread_num();

			work(2000 * (me + 1));
#pragma omp barrier
#pragma omp critical
			total += me;
#pragma omp critical(tally)
			named++;
		}
	}
	return total + named;
}

static long loop(void)
{
	long sum = 0;

#pragma omp parallel for schedule(dynamic, 16) reduction(+ : sum)
	for (int i = 0; i < 10000; i++)
		sum += i;
	return sum;
}

int main(void)
{
	long s = solve(), l = loop();
	int n = omp_get_max_threads();

	printf("threads %d solve %ld loop %ld\n", n, s, l);
	return s == ROUNDS * (long)(n * (n - 1) / 2 + n) && l == 49995000 ? 0 : 3;
}
