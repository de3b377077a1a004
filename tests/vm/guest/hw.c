/* The hardware suite's workloads: exact instruction counts around known
 * loops. Runs in the arm64 QEMU guest (whose PMU counts user instructions
 * exactly under -icount) and natively on any machine with a PMU.
 *
 *   hw loop | nest | threads | self N | fork | cost | kids | pair | multiplex | signal
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sys/mman.h>

#include <pmcshim.h>


/* Every measured region runs REPS times and the checks take the cheapest
 * call: under QEMU an interrupt landing inside a region can add a few
 * hundred user-mode instructions to it (never remove any), so the
 * minimum is the undisturbed, exact count. */
#define REPS 5

/* Exactly 2n instructions more for n than for 0 (the loop's own setup
 * is the same for every n). */
static inline __attribute__((always_inline)) void loop(uint64_t n)
{
	/* n is computed before the caller's region opens */
#if defined(__aarch64__)
	__asm__ __volatile__("cbz %0, 2f\n1: subs %0, %0, #1\nb.ne 1b\n2:" : "+r"(n) :: "cc");
#elif defined(__x86_64__)
	__asm__ __volatile__("test %0, %0\njz 2f\n1: dec %0\njnz 1b\n2:" : "+r"(n) :: "cc");
#else
#error "no exact loop for this architecture"
#endif
}

/* A value the compiler must hold in a register, computed now: the
 * regions then contain the loop and nothing else. */
static inline uint64_t opaque(uint64_t v)
{
	__asm__ __volatile__("" : "+r"(v) :: "memory");
	return v;
}

/* One function per region name, identical but for the name: the two
 * regions then run exactly the same instructions apart from the loop's
 * iterations, so their counts differ by exactly 2n. */
#define LOOP_REGION(fn, name)                                                 \
	__attribute__((noinline)) static void fn(uint64_t n)                  \
	{                                                                     \
		PMCSHIM_BEGIN(name);                                          \
		loop(n);                                                      \
		PMCSHIM_END(name);                                            \
	}

LOOP_REGION(region_n0, "n0")
LOOP_REGION(region_n1m, "n1m")
LOOP_REGION(region_zero, "zero")
LOOP_REGION(region_work, "work")
LOOP_REGION(region_child, "child")

static void mode_loop(void)
{
	for (int rep = 0; rep < REPS; rep++) {
		region_n0(opaque(0));
		region_n1m(opaque(1000000));
	}
	for (int rep = 0; rep < REPS; rep++) {
		PMCSHIM_BEGIN("parent");
		loop(1000);
		PMCSHIM_BEGIN("inner");
		loop(5000);
		PMCSHIM_END("inner");
		loop(2000);
		PMCSHIM_END("parent");
	}
}

static void *thread_work(void *arg)
{
	long i = (long)arg;
	char name[16];

	snprintf(name, sizeof(name), "w%ld", i);
	pthread_setname_np(pthread_self(), name);
	for (int rep = 0; rep < REPS; rep++) {
		region_zero(opaque(0));
		region_work(opaque((uint64_t)(i + 1) * 250000));
	}
	return NULL;
}

static void mode_threads(void)
{
	pthread_t t[4];

	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, thread_work, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
}

static int own_counter(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static uint64_t self_n;

/* The thread counts itself from its first line to its last. */
static void *self_thread(void *arg)
{
	int fd = own_counter();
	uint64_t v = 0;

	loop(self_n);
	if (read(fd, &v, sizeof(v)) != sizeof(v))
		v = 0;
	((uint64_t *)arg)[0] = v;
	((uint64_t *)arg)[1] = (uint64_t)syscall(SYS_gettid);
	return NULL;
}

/* REPS threads one after another, each printing its tid and own count:
 * an interrupt inside the shim's set-up or tear-down adds to the shim's
 * total only, so the checks take the thread with the least overhead. */
static void mode_self(uint64_t n)
{
	self_n = n;
	for (int rep = 0; rep < REPS; rep++) {
		pthread_t t;
		uint64_t thread_self[2] = { 0, 0 };

		pthread_create(&t, NULL, self_thread, thread_self);
		pthread_join(t, NULL);
		printf("self-thread %llu %llu\n", (unsigned long long)thread_self[1],
		       (unsigned long long)thread_self[0]);
	}
}

static void mode_fork(void)
{
	pid_t pid;

	PMCSHIM_BEGIN("parent");
	loop(4000000);
	PMCSHIM_END("parent");
	pid = fork();
	if (pid == 0) {
		for (int rep = 0; rep < REPS; rep++) {
			region_zero(opaque(0));
			region_child(opaque(100000));
		}
		exit(0);
	}
	waitpid(pid, NULL, 0);
}

/* The cost of one empty begin/end pair: region k1 holds one, k0 none;
 * the same function otherwise. Called NEST frames deep so that a stack
 * depth of 8 really unwinds 8 frames. */
__attribute__((noinline)) static void cost_k0(void)
{
	PMCSHIM_BEGIN("k0");
	__asm__ __volatile__("" ::: "memory");
	PMCSHIM_END("k0");
}

__attribute__((noinline)) static void cost_k1(void)
{
	PMCSHIM_BEGIN("k1");
	PMCSHIM_BEGIN("empty");
	PMCSHIM_END("empty");
	PMCSHIM_END("k1");
}

__attribute__((noinline)) static void nest(int depth)
{
	if (depth > 0) {
		nest(depth - 1);
	} else {
		cost_k0();
		cost_k1();
	}
	__asm__ __volatile__("" ::: "memory");
}

static void mode_cost(void)
{
	for (int rep = 0; rep < REPS; rep++)
		nest(10);	/* the first call warms sites and unwinder caches */
}

/* --- the cost of one pair, measured from outside the shim ---------------
 * A counter of our own (user instructions, read with read()) around R
 * calls, the cheapest of REPEATS, minus the same loop around an empty
 * call; and the same for a hand-written floor: two counters read through
 * their mmap pages (seqlock, index, offset, width) at begin and end, the
 * deltas added to a static slot. */
#define R 1000
#define REPEATS 7

static struct perf_event_mmap_page *floor_page[2];
static uint64_t floor_start[2], floor_slot[2];

/* The floor's own counter read, as the kernel's libperf does it: the
 * register is named at compile time, so a switch picks it. */
#define PMEV(n) case n: __asm__ __volatile__("mrs %0, pmevcntr" #n "_el0" : "=r"(v)); break
static uint64_t floor_pmc(uint32_t idx)
{
	uint64_t v = 0;

#if defined(__aarch64__)
	switch (idx) {
	PMEV(0); PMEV(1); PMEV(2); PMEV(3); PMEV(4); PMEV(5); PMEV(6); PMEV(7);
	PMEV(8); PMEV(9); PMEV(10); PMEV(11); PMEV(12); PMEV(13); PMEV(14); PMEV(15);
	PMEV(16); PMEV(17); PMEV(18); PMEV(19); PMEV(20); PMEV(21); PMEV(22); PMEV(23);
	PMEV(24); PMEV(25); PMEV(26); PMEV(27); PMEV(28); PMEV(29); PMEV(30);
	case 31:
		__asm__ __volatile__("mrs %0, pmccntr_el0" : "=r"(v));
		break;
	}
#else
	(void)idx;
#endif
	return v;
}
#undef PMEV

static uint64_t floor_read(volatile struct perf_event_mmap_page *pc)
{
	uint32_t seq, idx;
	uint64_t count;

	do {
		seq = pc->lock;
		__asm__ __volatile__("" ::: "memory");
		idx = pc->index;
		count = pc->offset;
		if (pc->cap_user_rdpmc && idx) {
			unsigned shift = 64u - pc->pmc_width;
			count += (uint64_t)((int64_t)(floor_pmc(idx - 1) << shift) >> shift);
		}
		__asm__ __volatile__("" ::: "memory");
	} while (pc->lock != seq);
	return count;
}

__attribute__((noinline)) static void empty_call(void)
{
	__asm__ __volatile__("" ::: "memory");
}

__attribute__((noinline)) static void pair_call(void)
{
	PMCSHIM_BEGIN("pair");
	PMCSHIM_END("pair");
}

__attribute__((noinline)) static void floor_call(void)
{
	floor_start[0] = floor_read(floor_page[0]);
	floor_start[1] = floor_read(floor_page[1]);
	__asm__ __volatile__("" ::: "memory");
	floor_slot[0] += floor_read(floor_page[0]) - floor_start[0];
	floor_slot[1] += floor_read(floor_page[1]) - floor_start[1];
}

static int open_event(uint64_t config, int group, uint64_t config1)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = config;
	a.config1 = config1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, 0);
}

static uint64_t read_fd(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		v = 0;
	return v;
}

/* Instructions of R calls of fn, the cheapest of REPEATS. */
static uint64_t cheapest(int fd, void (*fn)(void))
{
	uint64_t best = UINT64_MAX;

	for (int rep = 0; rep < REPEATS; rep++) {
		uint64_t a = read_fd(fd);
		for (int i = 0; i < R; i++)
			fn();
		uint64_t b = read_fd(fd);
		if (b - a < best)
			best = b - a;
	}
	return best;
}

static int map_floor(void)
{
	/* config1 bit 1: user-space reads (arm64); bit 0: 64-bit counters */
	uint64_t c1 = getenv("FLOOR64") ? 0x3 : 0x2;
	int a = open_event(PERF_COUNT_HW_INSTRUCTIONS, -1, c1);
	int b = a >= 0 ? open_event(PERF_COUNT_HW_CPU_CYCLES, a, c1) : -1;

	if (b < 0)
		return -1;
	floor_page[0] = mmap(NULL, 4096, PROT_READ, MAP_SHARED, a, 0);
	floor_page[1] = mmap(NULL, 4096, PROT_READ, MAP_SHARED, b, 0);
	return floor_page[0] == MAP_FAILED || floor_page[1] == MAP_FAILED ? -1 : 0;
}

static void measure_pairs(void)
{
	int fd = open_event(PERF_COUNT_HW_INSTRUCTIONS, -1, 0);
	uint64_t empty, pair, flo = 0;

	if (fd < 0 || map_floor() != 0) {
		printf("pair-cost unmeasured (no counter)\n");
		return;
	}
	pair_call();	/* warm: the site, the stack, the unwinder */
	empty = cheapest(fd, empty_call);
	pair = cheapest(fd, pair_call);
	flo = cheapest(fd, floor_call);
	printf("pair-cost %.1f floor %.1f\n", (double)(pair - empty) / R, (double)(flo - empty) / R);
	printf("floor user-space reads: %s\n", floor_page[0]->cap_user_rdpmc ? "yes" : "no");
}

/* Called NEST frames deep, so that depth 8 really walks 8 frames. */
__attribute__((noinline)) static void nest_then(int depth, void (*fn)(void))
{
	if (depth > 0)
		nest_then(depth - 1, fn);
	else
		fn();
	__asm__ __volatile__("" ::: "memory");
}

/* A marker in a signal handler raised NEST frames deep: the walk goes
 * on past the vDSO's sigreturn trampoline through the signal frame. */
static void on_signal(int sig)
{
	(void)sig;
	PMCSHIM_BEGIN("handler");
	PMCSHIM_END("handler");
}

__attribute__((noinline)) static void raise_nested(int depth)
{
	if (depth > 0)
		raise_nested(depth - 1);
	else
		raise(SIGUSR1);
	__asm__ __volatile__("" ::: "memory");
}

static void mode_signal(void)
{
	signal(SIGUSR1, on_signal);
	raise_nested(10);
}

/* A parent around n empty children, one child call site: the parent's
 * own work is loop(1000) and, per child, the countdown (subs, b.ne, and
 * the moves and branch the compiler puts around them: 5 instructions with
 * Debian's gcc 12). Run under run-time names, each once, so that every
 * call is its own region and the checks can take the one no interrupt
 * touched. */
__attribute__((noinline)) static void kids(const char *name, uint64_t n)
{
	pmcshim_begin_name(name);
	loop(1000);
again:
	PMCSHIM_BEGIN("kid");
	PMCSHIM_END("kid");
#if defined(__aarch64__)
	__asm__ goto("subs %0, %0, #1\n\tb.ne %l[again]" : "+r"(n) :: "cc" : again);
#elif defined(__x86_64__)
	__asm__ goto("dec %0\n\tjnz %l[again]" : "+r"(n) :: "cc" : again);
#endif
	pmcshim_end_name(name);
}

static void mode_kids(void)
{
	char name[32];

	for (int rep = 0; rep < REPS; rep++) {
		for (uint64_t n = 1000; n <= 2000; n += 1000) {
			snprintf(name, sizeof(name), "kids%llu-%d", (unsigned long long)n, rep);
			kids(name, opaque(n));
		}
	}
}

static void mode_multiplex(void)
{
	PMCSHIM_BEGIN("long");
	loop(20000000);		/* 40 ms of guest time: several rotations */
	PMCSHIM_END("long");
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	if (strcmp(m, "loop") == 0)
		mode_loop();
	else if (strcmp(m, "threads") == 0)
		mode_threads();
	else if (strcmp(m, "self") == 0 && argc > 2)
		mode_self(strtoull(argv[2], NULL, 10));
	else if (strcmp(m, "fork") == 0)
		mode_fork();
	else if (strcmp(m, "cost") == 0)
		mode_cost();
	else if (strcmp(m, "kids") == 0)
		mode_kids();
	else if (strcmp(m, "pair") == 0)
		nest_then(10, measure_pairs);
	else if (strcmp(m, "multiplex") == 0)
		mode_multiplex();
	else if (strcmp(m, "signal") == 0)
		mode_signal();
	else {
		fprintf(stderr, "usage: hw loop|threads|self N|fork|cost|kids|pair|multiplex|signal\n");
		return 2;
	}
	return 0;
}
