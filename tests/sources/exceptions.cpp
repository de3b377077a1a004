// Functions left by C++ exceptions, built with clang++
// -finstrument-functions, whose unwinding calls no exit hook: run() calls
// middle() 2,100 times, which calls thrower(), which throws; run() catches
// it. Then run() calls other() 3,100 times. Every function entered is
// counted once per call: middle=2100 thrower=2100 other=3100, other()
// directly under run().
#include <cstdio>

static volatile int sink;

__attribute__((noinline)) static void thrower(int i)
{
	sink += i;
	if (sink >= 0)
		throw i;
}

__attribute__((noinline)) static void middle(int i)
{
	thrower(i);
	sink -= i;
}

__attribute__((noinline)) static void other(int i)
{
	for (int k = 0; k < 100; k++)
		sink += i ^ k;
}

__attribute__((noinline)) static int run()
{
	int caught = 0;

	for (int i = 0; i < 2100; i++) {
		try {
			middle(i);
		} catch (int) {
			caught++;
		}
	}
	for (int i = 0; i < 3100; i++)
		other(i);
	return caught;
}

int main()
{
	int caught = run();

	std::printf("caught %d\n", caught);
	return caught == 2100 ? 0 : 1;
}
