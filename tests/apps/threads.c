/* 8 threads with nested and recursive regions; the main thread sleeps
 * 50 ms in a region and spins 30 ms of CPU in another. Call counts are
 * fixed so the test can check them exactly. THREADS_ONE_BY_ONE: each
 * thread starts after the last one ended (the shim reuses its memory). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <pmcshim.h>

#define THREADS 8
#define ROUNDS 10
#define INNER 3
#define REC_DEPTH 5

static __thread volatile double sink;	/* per thread: no race in the app itself */

__attribute__((noinline)) void leaf_fn(void)
{
	PMCSHIM_BEGIN("inner");
	for (int i = 0; i < 2000; i++)
		sink += i * 0.5;
	PMCSHIM_END("inner");
}

__attribute__((noinline)) void rec_fn(int depth)
{
	PMCSHIM_BEGIN("rec");
	if (depth > 1)
		rec_fn(depth - 1);
	for (int i = 0; i < 500; i++)
		sink += i;
	PMCSHIM_END("rec");
}

__attribute__((noinline)) void work_fn(void)
{
	PMCSHIM_BEGIN("work");
	for (int k = 0; k < INNER; k++)
		leaf_fn();
	PMCSHIM_END("work");
}

static void *worker(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "t%ld", (long)arg);
	pthread_setname_np(pthread_self(), name);
	for (int r = 0; r < ROUNDS; r++)
		work_fn();
	rec_fn(REC_DEPTH);
	return NULL;
}

static double now(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(void)
{
	pthread_t t[THREADS];
	struct timespec nap = { 0, 50 * 1000 * 1000 };

	/* the test bounds the region by this span, not by a guess at the
	 * machine's load */
	double t0 = now(CLOCK_MONOTONIC);
	PMCSHIM_BEGIN("sleep50");
	nanosleep(&nap, NULL);
	PMCSHIM_END("sleep50");
	if (getenv("THREADS_SPAN"))
		fprintf(stderr, "sleep50 span %lld ns\n", (long long)((now(CLOCK_MONOTONIC) - t0) * 1e9));

	double start = now(CLOCK_THREAD_CPUTIME_ID);
	PMCSHIM_BEGIN("spin30");
	while (now(CLOCK_THREAD_CPUTIME_ID) - start < 0.030)
		sink += 1;
	PMCSHIM_END("spin30");

	int one_by_one = getenv("THREADS_ONE_BY_ONE") != NULL;

	for (long i = 0; i < THREADS; i++) {
		pthread_create(&t[i], NULL, worker, (void *)i);
		if (one_by_one)
			pthread_join(t[i], NULL);
	}
	for (int i = 0; i < THREADS && !one_by_one; i++)
		pthread_join(t[i], NULL);
	printf("threads: done\n");
	return 0;
}
