/* hammer FILE: 8 threads run a fixed number of marker pairs while a
 * reader thread maps FILE (this process's own report, named by the test
 * through PMCSHIM_OUTPUT) again and again and checks every site it sees:
 * calls and sums never decrease, min <= max, no min of 2^64-1 once a call
 * is counted, excl <= incl. After the join, the totals must be exact.
 * Prints "hammer: ok" or the first violation. Built with the report
 * file's reading code (preload/format/reportfile.c). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <pmcshim.h>

#include "../../preload/format/reportfile.h"

#define THREADS 8
#define PAIRS 200000
#define SLOTS 4096

static const char *path;
static int workers_done;
static uint64_t last_calls[SLOTS], last_incl[SLOTS];
static char problem[256];

static void *work(void *arg)
{
	(void)arg;
	for (int i = 0; i < PAIRS; i++) {
		PMCSHIM_BEGIN("outer");
		PMCSHIM_BEGIN("inner");
		PMCSHIM_END("inner");
		PMCSHIM_END("outer");
	}
	return NULL;
}

static int check_site(const struct rf_site *s, uint64_t *total)
{
	struct rf_stat v[RF_EVENTS_MAX + 1];
	uint64_t calls;
	unsigned slot = (s->thread * 7 + s->region * 131 + s->stack) % SLOTS;

	if (!rf_site_read(s, &calls, v, RF_EVENTS_MAX + 1))
		return snprintf(problem, sizeof(problem), "site never settled"), -1;
	if (calls < last_calls[slot] || v[0].incl < last_incl[slot])
		return snprintf(problem, sizeof(problem), "calls or incl went down"), -1;
	for (uint32_t i = 0; calls && i < s->nvalues; i++)
		if (v[i].min == UINT64_MAX || v[i].min > v[i].max || v[i].excl > v[i].incl)
			return snprintf(problem, sizeof(problem),
					"torn values: calls %llu min %llu max %llu",
					(unsigned long long)calls,
					(unsigned long long)v[i].min,
					(unsigned long long)v[i].max), -1;
	last_calls[slot] = calls;
	last_incl[slot] = v[0].incl;
	*total += calls;
	return 0;
}

/* One pass over the file; the total of calls, or -1. */
static long long pass(void)
{
	struct rf_file f;
	char why[128];
	uint64_t off = 0, total = 0;
	const struct rf_record *r;
	int bad;

	if (rf_open(path, &f, why, sizeof(why)) != 0)
		return snprintf(problem, sizeof(problem), "open: %s", why), -1;
	while ((r = rf_next(&f, &off, &bad)))
		if (r->type == RF_SITE && check_site((const void *)r, &total) != 0)
			break;
	rf_close(&f);
	if (bad)
		snprintf(problem, sizeof(problem), "malformed record");
	return problem[0] ? -1 : (long long)total;
}

static void *reader(void *arg)
{
	long long *passes = arg;

	while (!__atomic_load_n(&workers_done, __ATOMIC_ACQUIRE) && pass() >= 0)
		++*passes;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t w[THREADS], r;
	long long passes = 0, total;

	if (argc != 2 || !pmcshim_active())
		return fprintf(stderr, "usage: hammer FILE (under the shim)\n"), 2;
	path = argv[1];
	work(NULL);	/* the file has sites before the reader starts */
	pthread_create(&r, NULL, reader, &passes);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&w[i], NULL, work, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(w[i], NULL);
	__atomic_store_n(&workers_done, 1, __ATOMIC_RELEASE);
	pthread_join(r, NULL);
	total = problem[0] ? -1 : pass();
	if (total != 2LL * PAIRS * (THREADS + 1)) {
		printf("hammer: %s (total %lld, want %lld)\n", problem[0] ? problem : "wrong total",
		       total, 2LL * PAIRS * (THREADS + 1));
		return 1;
	}
	printf("hammer: ok, %lld passes\n", passes);
	return 0;
}
