/* A function whose time is system calls: sys() makes 300,000 getppid()
 * calls, then user() spins. Prints the thread's CPU time in each, in ns,
 * as the program measured it (CLOCK_THREAD_CPUTIME_ID), to hold the
 * sampled functions' times against. Built with -finstrument-functions. */
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static __attribute__((no_instrument_function)) long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

__attribute__((noinline)) void sys(void)
{
	for (int i = 0; i < 300000; i++)
		sink += (unsigned long)syscall(SYS_getppid);
}

__attribute__((noinline)) void user(void)
{
	for (long i = 0; i < 50000000; i++)
		sink += (unsigned long)i;
}

int main(void)
{
	long long t0 = cpu_ns(), t1, t2;

	sys();
	t1 = cpu_ns();
	user();
	t2 = cpu_ns();
	printf("sys_ns %lld user_ns %lld\n", t1 - t0, t2 - t1);
	return 0;
}
