/* Threads ending every way: return, pthread_exit, cancellation, and one
 * still running markers when main returns. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include <pmcshim.h>

static void named(const char *name)
{
	pthread_setname_np(pthread_self(), name);
	PMCSHIM_BEGIN("thread-work");
	PMCSHIM_END("thread-work");
}

static void *by_return(void *arg)
{
	named("by-return");
	return arg;
}

static void *by_exit(void *arg)
{
	named("by-exit");
	pthread_exit(arg);
}

/* Cancelled at pthread_testcancel alone: the sleep is not a cancellation
 * point here. Under TSan a cancel that lands inside usleep, which TSan
 * intercepts, leaves its interceptor unfinished, and TSan then misses
 * the thread's locks: the shim's end-of-thread path read as data races
 * (arena.c's spare list, the thread registry) in 1 run in 4. */
static void *by_cancel(void *arg)
{
	int old;

	named("by-cancel");
	for (;;) {
		PMCSHIM_BEGIN("cancelled");
		pthread_testcancel();
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
		usleep(1000);
		pthread_setcancelstate(old, NULL);
		PMCSHIM_END("cancelled");
	}
	return arg;
}

static int started;

static void *still_running(void *arg)
{
	named("runner");
	for (;;) {
		PMCSHIM_BEGIN("busy");
		__atomic_store_n(&started, 1, __ATOMIC_RELAXED);
		PMCSHIM_END("busy");
	}
	return arg;
}

int main(void)
{
	pthread_t a, b, c, d;

	pthread_create(&a, NULL, by_return, NULL);
	pthread_create(&b, NULL, by_exit, NULL);
	pthread_create(&c, NULL, by_cancel, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	usleep(5000);
	pthread_cancel(c);
	pthread_join(c, NULL);
	pthread_create(&d, NULL, still_running, NULL);
	while (!__atomic_load_n(&started, __ATOMIC_RELAXED))
		usleep(100);
	printf("exits: done\n");
	return 0;
}
