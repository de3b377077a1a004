/* Stacks through code that mixes frames with and without frame records,
 * and through libc. Built at -O0, -O2 and -O3, with and without frame
 * pointers (tests/tests.mk: mixed-O2 and so on). At -O2 without frame
 * pointers a function with a VLA or alloca keeps its frame pointer and
 * the functions it calls do not: a frame-pointer walk from those skips
 * the VLA function's frame. Regions:
 *   vla      in a function called through a pointer from each level of a
 *            recursion through frames with a VLA
 *   alloca   the same through frames with alloca
 *   qsort    in a qsort comparator (libc's frames between)
 *   table    through a table of function pointers, no frame records
 *   main     in main (the stack ends in libc's start code)
 *   thread   in a thread's start routine (the stack ends in clone)
 *   handler  in a signal handler, on the thread's stack
 *   altstack in a signal handler on an alternate signal stack
 * Prints "mixed: done, libunwind loaded: yes|no" and exits 0. */
#include <alloca.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmcshim.h>

#define BARRIER() __asm__ __volatile__("" ::: "memory")	/* no tail calls */

typedef int (*leaf_fn)(int);
static volatile int sink;

__attribute__((noinline)) static int mark_vla(int x)
{
	PMCSHIM_BEGIN("vla");
	sink += x;
	PMCSHIM_END("vla");
	return x + 1;
}

__attribute__((noinline)) static int mark_alloca(int x)
{
	PMCSHIM_BEGIN("alloca");
	sink += x;
	PMCSHIM_END("alloca");
	return x + 2;
}

/* Recursion through frames that keep a frame pointer (the VLA); each level
 * calls f, a function that keeps none. */
__attribute__((noinline)) static int rec_vla(int n, leaf_fn f)
{
	volatile char buf[n + 16];
	int r;

	buf[0] = (char)n;
	r = n > 0 ? rec_vla(n - 1, f) : 0;
	r += f(buf[0]);
	BARRIER();
	return r;
}

__attribute__((noinline)) static int rec_alloca(int n, leaf_fn f)
{
	volatile char *buf = alloca((size_t)n + 16);
	int r;

	buf[0] = (char)n;
	r = n > 0 ? rec_alloca(n - 1, f) : 0;
	r += f(buf[0]);
	BARRIER();
	return r;
}

static int by_value(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	PMCSHIM_BEGIN("qsort");
	sink++;
	PMCSHIM_END("qsort");
	return (x > y) - (x < y);
}

__attribute__((noinline)) static void sort_some(void)
{
	int v[24];

	for (int i = 0; i < 24; i++)
		v[i] = (i * 7919) % 24;
	qsort(v, 24, sizeof(v[0]), by_value);
	BARRIER();
}

__attribute__((noinline)) static int mark_table(int x)
{
	PMCSHIM_BEGIN("table");
	sink += x;
	PMCSHIM_END("table");
	return x;
}

static leaf_fn table[2] = { mark_table, mark_vla };

__attribute__((noinline)) static int via_table(int i, int x)
{
	int r = table[i & 1](x) + 1;

	BARRIER();
	return r;
}

__attribute__((noinline)) static int via_table2(int i)
{
	int r = via_table(i, i * 3) * 2;

	BARRIER();
	return r;
}

static void *thread_main(void *arg)
{
	(void)arg;
	PMCSHIM_BEGIN("thread");
	sink++;
	PMCSHIM_END("thread");
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;
	PMCSHIM_BEGIN("handler");
	sink++;
	PMCSHIM_END("handler");
}

static void on_altstack(int sig)
{
	(void)sig;
	PMCSHIM_BEGIN("altstack");
	sink++;
	PMCSHIM_END("altstack");
}

static char altstack_mem[1 << 16] __attribute__((aligned(16)));

static void set_handler(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa = { .sa_handler = fn, .sa_flags = flags };

	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

__attribute__((noinline)) static void raise_both(void)
{
	stack_t ss = { .ss_sp = altstack_mem, .ss_size = sizeof(altstack_mem) };

	sigaltstack(&ss, NULL);
	set_handler(SIGUSR1, on_signal, 0);
	set_handler(SIGUSR2, on_altstack, SA_ONSTACK);
	raise(SIGUSR1);
	raise(SIGUSR2);
	BARRIER();
}

/* Whether libunwind is mapped in this process. */
static const char *libunwind_loaded(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int found = 0;

	while (f && fgets(line, sizeof(line), f))
		found |= strstr(line, "libunwind") != NULL;
	if (f)
		fclose(f);
	return found ? "yes" : "no";
}

int main(void)
{
	pthread_t t;

	for (int i = 0; i < 2; i++) {
		rec_vla(10, mark_vla);
		rec_alloca(10, mark_alloca);
	}
	sort_some();
	for (int i = 0; i < 6; i++)
		via_table2(i);
	raise_both();
	PMCSHIM_BEGIN("main");
	PMCSHIM_END("main");
	pthread_create(&t, NULL, thread_main, NULL);
	pthread_join(t, NULL);
	printf("mixed: done, libunwind loaded: %s\n", libunwind_loaded());
	return 0;
}
