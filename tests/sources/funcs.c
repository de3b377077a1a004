/* A program built with -finstrument-functions, no markers: fib(15) is
 * 1973 calls of fib, each of leaf() and twice() is called a known number
 * of times, and the output does not depend on the shim. With "slow",
 * also 3 calls of slow(), 60 ms each (PMCSHIM_FUNCTIONS=min=50ms keeps
 * them and main, and folds the others, each far shorter). With "threads",
 * 4 threads also run fib(12) (465 calls each) at once: functions met
 * first by several threads together. With "exit", it ends by exit() from
 * a function called by main. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile int sink;

__attribute__((noinline)) static int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) static void leaf(int i)
{
	sink += i;
}

__attribute__((noinline)) static void twice(int i)
{
	leaf(i);
	leaf(i + 1);
}

__attribute__((noinline)) static void slow(void)
{
	struct timespec ts = { 0, 60000000 };

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* Ends the program from inside two functions (main and this one). */
__attribute__((noinline)) static void leave(int n, int r)
{
	printf("fib(%d) = %d, sink %d\n", n, r, sink);
	exit(r == 610 ? 0 : 3);
}

static void *worker(void *arg)
{
	*(int *)arg = fib(12);
	return NULL;
}

static int threads(void)
{
	pthread_t t[4];
	int r[4], ok = 1;

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, &r[i]);
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		ok &= r[i] == 144;
	}
	return ok;
}

int main(int argc, char **argv)
{
	int n = 15;
	int r = fib(n);

	if (argc > 1 && !strcmp(argv[1], "threads") && !threads())
		return 4;
	for (int i = 0; i < 100; i++)
		twice(i);
	for (int i = 0; argc > 1 && !strcmp(argv[1], "slow") && i < 3; i++)
		slow();
	if (argc > 1 && !strcmp(argv[1], "exit"))
		leave(n, r);
	printf("fib(%d) = %d, sink %d\n", n, r, sink);
	return r == 610 ? 0 : 3;
}
