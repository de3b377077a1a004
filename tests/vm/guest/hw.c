/* The hardware suite's workloads: exact instruction counts around known
 * loops. Runs in the arm64 QEMU guest (whose PMU counts user instructions
 * exactly under -icount) and natively on any machine with a PMU.
 *
 *   hw loop | nest | threads | self N | fork | cost | kids | pair | multiplex | signal
 *      | floors | names
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

#include "../../../preload/base/arch.h"


/* Every measured region runs REPS times and the checks take the cheapest
 * call: under QEMU an interrupt landing inside a region can add a few
 * hundred user-mode instructions to it (never remove any), so the
 * minimum is the undisturbed, exact count. Nine calls: with five, a
 * run where every call of a 2 ms region met an interrupt was seen. */
#define REPS 9

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
 * call. The hand-written floors it is set against run in a process of
 * their own (mode floors, below): their counters and the shim's would not
 * fit on the PMU together. */
#define R 1000
#define REPEATS 7

__attribute__((noinline)) static void empty_call(void)
{
	__asm__ __volatile__("" ::: "memory");
}

__attribute__((noinline)) static void pair_call(void)
{
	PMCSHIM_BEGIN("pair");
	PMCSHIM_END("pair");
}

static int open_raw(uint32_t type, uint64_t config, int group, uint64_t config1)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.config1 = config1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, 0);
}

static int open_event(uint64_t config, int group, uint64_t config1)
{
	return open_raw(PERF_TYPE_HARDWARE, config, group, config1);
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

/* Instructions of one call of fn beyond an empty call's. */
static double per_call_cost(int fd, void (*fn)(void))
{
	uint64_t empty = cheapest(fd, empty_call);

	return ((double)cheapest(fd, fn) - (double)empty) / R;
}

static void measure_pairs(void)
{
	int fd = open_event(PERF_COUNT_HW_INSTRUCTIONS, -1, 0);

	if (fd < 0) {
		printf("pair-cost unmeasured (no counter)\n");
		return;
	}
	pair_call();	/* warm: the site, the stack, the unwinder */
	printf("pair-cost %.1f\n", per_call_cost(fd, pair_call));
	close(fd);
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

/* --- the hand-written floors a marker pair is set against ---------------
 * The tightest begin/end pair one can write by hand over n counters of a
 * group, each read through its mmap page: the read inlined, the counter
 * register picked by a computed branch (preload/base/arch.h's table), the
 * user-space read checked once when mapping (cap_user_rdpmc, index) and
 * never per read; each page's seqlock read before and after. Begin keeps
 * the n values, end adds the n deltas to static slots. Run without the
 * shim (its counters and these would not fit on the PMU together), and
 * only where user-space reads are on (an mrs would trap otherwise). */
#define FLOOR_MAX 6

static volatile struct perf_event_mmap_page *floor_page[FLOOR_MAX];
static uint64_t floor_start[FLOOR_MAX], floor_slot[FLOOR_MAX];

/* The counter's value: offset plus the register, sign-extended from its
 * width (wide: 64-bit counters, config1 bit 0, whose width was checked
 * when mapping, so nothing to extend). */
static inline __attribute__((always_inline)) uint64_t
floor_read(volatile struct perf_event_mmap_page *pc, int wide)
{
	uint32_t seq;
	uint64_t count, raw;

	do {
		seq = pc->lock;
		__asm__ __volatile__("" ::: "memory");
		count = pc->offset;
		raw = arch_read_pmc(pc->index - 1);
		if (!wide) {
			unsigned shift = 64u - pc->pmc_width;
			raw = (uint64_t)((int64_t)(raw << shift) >> shift);
		}
		count += raw;
		__asm__ __volatile__("" ::: "memory");
	} while (pc->lock != seq);
	return count;
}

static inline __attribute__((always_inline)) void floor_pair(int n, int wide)
{
#pragma GCC unroll 8
	for (int i = 0; i < n; i++)
		floor_start[i] = floor_read(floor_page[i], wide);
	__asm__ __volatile__("" ::: "memory");
#pragma GCC unroll 8
	for (int i = 0; i < n; i++)
		floor_slot[i] += floor_read(floor_page[i], wide) - floor_start[i];
}

#define FLOOR_CALL(n, wide)                                                   \
	__attribute__((noinline)) static void floor_call_##n##_##wide(void)   \
	{                                                                     \
		floor_pair(n, wide);                                          \
	}
FLOOR_CALL(1, 0)
FLOOR_CALL(2, 0)
FLOOR_CALL(3, 0)
FLOOR_CALL(6, 0)
FLOOR_CALL(2, 1)

/* The floor's counters, in PMCSHIM_EVENTS order: instructions, cycles,
 * then Armv8 common events by raw code (INST_RETIRED, CPU_CYCLES,
 * INST_SPEC, L1D_CACHE) for a third counter and more. */
static const struct {
	uint32_t type;
	uint64_t config;
} floor_events[FLOOR_MAX] = {
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ PERF_TYPE_RAW, 0x08 }, { PERF_TYPE_RAW, 0x11 },
	{ PERF_TYPE_RAW, 0x1b }, { PERF_TYPE_RAW, 0x04 },
};

/* Opens and maps a group of n counters (config1 bit 1: user-space reads
 * on arm64; bit 0: 64-bit counters): fds into fd[]. 0 when every page
 * offers the user-space read (and, wide, a 64-bit one), else -1 with why. */
static int floor_open(int n, int wide, int *fd, const char **why)
{
	uint64_t c1 = wide ? 0x3 : 0x2;

	for (int i = 0; i < n; i++)
		fd[i] = -1;
	for (int i = 0; i < n; i++) {
		fd[i] = open_raw(floor_events[i].type, floor_events[i].config, i ? fd[0] : -1, c1);
		*why = "an event did not open";
		if (fd[i] < 0)
			return -1;
		floor_page[i] = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd[i], 0);
		*why = "no mmap page";
		if (floor_page[i] == MAP_FAILED) {
			floor_page[i] = NULL;
			return -1;
		}
		*why = "no user-space read";
		if (!floor_page[i]->cap_user_rdpmc || !floor_page[i]->index)
			return -1;
		*why = "the kernel gives no 64-bit counter to user space";
		if (wide && floor_page[i]->pmc_width != 64)
			return -1;
	}
	return 0;
}

static void floor_close(int n, int *fd)
{
	for (int i = 0; i < n; i++) {
		if (floor_page[i])
			munmap((void *)floor_page[i], 4096);
		floor_page[i] = NULL;
		if (fd[i] >= 0)
			close(fd[i]);
	}
}

/* "floor N [64-bit] COST" per group size, or "floor N ... unmeasured (why)". */
static void mode_floors(void)
{
	static const struct {
		int n, wide;
		void (*fn)(void);
	} rows[] = {
		{ 1, 0, floor_call_1_0 }, { 2, 0, floor_call_2_0 }, { 3, 0, floor_call_3_0 },
		{ 6, 0, floor_call_6_0 }, { 2, 1, floor_call_2_1 },
	};
	int own = open_event(PERF_COUNT_HW_INSTRUCTIONS, -1, 0);

	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		int fd[FLOOR_MAX];
		const char *why = "no counter of its own";
		const char *label = rows[r].wide ? " 64-bit" : "";

		if (own >= 0 && floor_open(rows[r].n, rows[r].wide, fd, &why) == 0)
			printf("floor %d%s %.1f\n", rows[r].n, label, per_call_cost(own, rows[r].fn));
		else
			printf("floor %d%s unmeasured (%s)\n", rows[r].n, label, why);
		floor_close(rows[r].n, fd);
	}
}

/* --- a run-time name: text in a writable buffer against a literal ------
 * The same text every call, computed once (the shim cannot take the
 * buffer's address for the name, as it may for a literal). */
static char name_buf[16];

__attribute__((noinline)) static void name_literal_call(void)
{
	pmcshim_begin_name("lit");
	pmcshim_end_name("lit");
}

__attribute__((noinline)) static void name_buffer_call(void)
{
	pmcshim_begin_name(name_buf);
	pmcshim_end_name(name_buf);
}

/* "names literal L buffer B", instructions per pair. */
static void mode_names(void)
{
	int fd = open_event(PERF_COUNT_HW_INSTRUCTIONS, -1, 0);

	snprintf(name_buf, sizeof(name_buf), "r%d", 42);
	if (fd < 0) {
		printf("names unmeasured (no counter)\n");
		return;
	}
	name_literal_call();	/* warm both names */
	name_buffer_call();
	printf("names literal %.1f", per_call_cost(fd, name_literal_call));
	printf(" buffer %.1f\n", per_call_cost(fd, name_buffer_call));
	close(fd);
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
	else if (strcmp(m, "floors") == 0)
		mode_floors();
	else if (strcmp(m, "names") == 0)
		mode_names();
	else {
		fprintf(stderr, "usage: hw loop|threads|self N|fork|cost|kids|pair|multiplex|signal|floors|names\n");
		return 2;
	}
	return 0;
}
