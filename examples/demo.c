/* A small multi-threaded program with nested and recursive regions.
 * It runs the same with or without LD_PRELOAD=libpmcshim.so. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <pmcshim.h>

#define THREADS 4

static double assemble(double *a, int n, int seed)
{
	double s = 0;

	PMCSHIM_BEGIN("assemble");
	for (int i = 0; i < n; i++) {
		a[i] = (double)((i * 7 + seed) % 101) / 13.0;
		s += a[i];
	}
	PMCSHIM_END("assemble");
	return s;
}

static double factor(const double *a, int n)
{
	double s = 0;

	PMCSHIM_BEGIN("factor");
	for (int k = 0; k < 40; k++)
		for (int i = 1; i < n; i++)
			s += a[i] * a[i - 1] / (1.0 + k);
	PMCSHIM_END("factor");
	return s;
}

static long fib(int n)
{
	long r;

	PMCSHIM_BEGIN("fib");
	r = n < 2 ? n : fib(n - 1) + fib(n - 2);
	PMCSHIM_END("fib");
	return r;
}

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	int n = 20000;
	double *a = malloc(sizeof(*a) * (size_t)n), sum = 0;
	char name[16];

	snprintf(name, sizeof(name), "worker-%d", id);
	pthread_setname_np(pthread_self(), name);
	for (int step = 0; step < 10; step++) {
		PMCSHIM_BEGIN("solve");
		sum += assemble(a, n, id + step);
		sum += factor(a, n);
		PMCSHIM_END("solve");
	}
	sum += (double)fib(16);
	free(a);
	return (void *)(long)(sum > 0);
}

int main(void)
{
	pthread_t t[THREADS];
	struct timespec io = { 0, 20 * 1000 * 1000 };
	int ok = 1;

	PMCSHIM_BEGIN("io");
	nanosleep(&io, NULL);
	PMCSHIM_END("io");
	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < THREADS; i++) {
		void *r;
		pthread_join(t[i], &r);
		ok &= r != NULL;
	}
	printf("demo: %d threads done%s\n", THREADS, pmcshim_active() ? " (under pmcshim)" : "");
	return ok ? 0 : 1;
}
