/* Functions inlined into each other, built with -O3
 * -finstrument-functions: their hooks run in their callers' machine frames
 * (the same stack pointer, the callers' return address), which are not
 * abandoned for it; rec() is inlined into itself, its hooks at the same
 * stack pointer as its own frame's. Exact calls: big=1000 outer=2000
 * mid=3000 tiny=8000 rec=465, mid and tiny under outer and big, rec 12
 * deep, and no call closed by resync. */
#include <stdio.h>

static volatile int sink;

static inline void tiny(int i)
{
	sink += i;
}

static inline void mid(int i)
{
	tiny(i);
	sink ^= i;
	tiny(i + 1);
}

__attribute__((noinline)) void outer(int i)
{
	mid(i);
	tiny(i);
}

__attribute__((noinline)) void big(int i)
{
	char b[512];

	for (int k = 0; k < 512; k++)
		b[k] = (char)(i + k);
	outer(b[i & 511]);
	mid(i);
}

static int rec(int n)
{
	return n < 2 ? n : rec(n - 1) + rec(n - 2);
}

int main(int argc, char **argv)
{
	(void)argv;
	sink += rec(11 + argc);	/* 12: 465 calls */
	for (int i = 0; i < 1000; i++) {
		big(i);
		outer(i);
	}
	printf("%d\n", sink);
	return 0;
}
