/* OpenMP regions nested in each other, without markers: an outer parallel
 * region of 2 threads, run ROUNDS times, whose body calls inner(), which
 * has its own parallel region (serialized: nested parallelism is off, so
 * each thread runs it as a team of one), a dynamic worksharing loop,
 * sections and a single, each ended by its barrier. No reductions: the
 * runtimes would add regions of their own. With "deep": a parallel region
 * nested in itself DEEP times, each a team of one. Built with gcc -fopenmp
 * (libgomp) and clang -fopenmp (libomp); its output does not depend on
 * the shim. */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#define ROUNDS 10
#define CELLS 1000
#define DEEP 20

static volatile double sink;
static long cells[CELLS], sections, singles;

static void work(int n)
{
	double x = 0;

	for (int i = 0; i < n; i++)
		x += i * 0.5;
	sink = x;
}

/* (noinline: the inner region stays in a function of its own, as in a
 * library call that starts a parallel region) */
__attribute__((noinline)) static void inner(void)
{
#pragma omp parallel num_threads(1)
	work(200000);
#pragma omp for schedule(dynamic, 100)
	for (int i = 0; i < CELLS; i++)
		cells[i] += i;
#pragma omp sections
	{
#pragma omp section
		sections++;
#pragma omp section
		sections++;
	}
#pragma omp single
	singles++;
}

/* Levels from `level` to DEEP, each a parallel region started in the one
 * above it. */
static int deep(int level)
{
	int levels = 0;

#pragma omp parallel num_threads(1)
	levels = level < DEEP ? deep(level + 1) : 0;
	return levels + 1;
}

int main(int argc, char **argv)
{
	long sum = 0;

	if (argc > 1 && !strcmp(argv[1], "deep")) {
		printf("levels %d\n", deep(1));
		return 0;
	}

	for (int r = 0; r < ROUNDS; r++) {
#pragma omp parallel num_threads(2)
		inner();
	}
	for (int i = 0; i < CELLS; i++)
		sum += cells[i];
	printf("nested %ld sections %ld singles %ld\n", sum, sections, singles);
	return sum == ROUNDS * (long)CELLS * (CELLS - 1) / 2 ? 0 : 3;
}
