/* A program built with -finstrument-functions, no markers: fib(15) is
 * 1973 calls of fib, each of leaf() and twice() is called a known number
 * of times, and the output does not depend on the shim. */
#include <stdio.h>
#include <stdlib.h>

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

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 15;
	int r = fib(n);

	for (int i = 0; i < 100; i++)
		twice(i);
	printf("fib(%d) = %d, sink %d\n", n, r, sink);
	return r == 610 ? 0 : 3;
}
