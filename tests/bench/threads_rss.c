/* Memory per marking thread: N threads each mark a region (12 frames
 * deep, so depth 8 has 8 frames to capture) and then stay alive; with all
 * of them alive, the process's resident size less its size before they
 * started, per thread. Run it without the shim and under it at several
 * stack depths and methods: the differences are the shim's per thread.
 *
 *   LD_PRELOAD=build/libpmcshim.so PMCSHIM_STACK_DEPTH=8 build/bench-threads-rss 1000
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmcshim.h>

#define NEST 12

static pthread_barrier_t marked, release;

static long rss_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

__attribute__((noinline)) static void nest(int depth)
{
	if (depth > 0) {
		nest(depth - 1);
	} else {
		PMCSHIM_BEGIN("work");
		PMCSHIM_END("work");
	}
	__asm__ __volatile__("" ::: "memory");	/* not a tail call */
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++)
		nest(NEST);
	pthread_barrier_wait(&marked);
	pthread_barrier_wait(&release);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	long before, live;
	int started = 0;

	if (!t || n < 1)
		return 2;
	nest(NEST);	/* the main thread's first marker: shared set-up done */
	pthread_barrier_init(&marked, NULL, (unsigned)n + 1);
	pthread_barrier_init(&release, NULL, (unsigned)n + 1);
	before = rss_kb();
	for (int i = 0; i < n; i++)
		started += pthread_create(&t[i], NULL, worker, NULL) == 0;
	if (started != n) {
		fprintf(stderr, "bench-threads-rss: %d of %d threads started\n", started, n);
		return 1;
	}
	pthread_barrier_wait(&marked);
	live = rss_kb();
	pthread_barrier_wait(&release);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("%d threads: RSS %ld kB before, %ld kB with all live: %.1f kB per thread\n", n,
	       before, live, (double)(live - before) / n);
	free(t);
	return 0;
}
