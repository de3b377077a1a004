/* The frame-pointer walk and its trail, on frame records built by hand
 * in this thread's stack (fpwalk_same must say "the same walk" exactly
 * when a walk from its start would read the same words). */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>

#include "../preload/stacks/fpwalk.h"
#include "harness.h"

#define CALLER ((uintptr_t)&main + 4)	/* in this program's code */
#define CODE ((uintptr_t)&main + 8)

int main(void);

/* Records at word offsets of a 16-byte aligned buffer on the stack. */
static void set_record(uintptr_t *buf, int at, uintptr_t fp, uintptr_t ra)
{
	buf[at] = fp;
	buf[at + 1] = ra;
}

static int walk(uintptr_t start, uintptr_t *pcs, struct fpwalk_trail *t)
{
	return fpwalk_capture(start, CALLER, 8, pcs, 0, 0, t);
}

/* A shim record at [0] returning to CALLER, then two frames of the
 * application; the chain ends in a null frame pointer. */
static void test_trail_replays_the_walk(void)
{
	uintptr_t buf[64] __attribute__((aligned(16)));
	uintptr_t pcs[16];
	struct fpwalk_trail t;
	int n;

	set_record(buf, 0, (uintptr_t)&buf[8], CALLER);
	set_record(buf, 8, (uintptr_t)&buf[16], CODE);
	set_record(buf, 16, 0, CODE);
	n = walk((uintptr_t)buf, pcs, &t);
	CHECK(n == 3 && pcs[0] == CALLER && pcs[1] == CODE && pcs[2] == CODE, "walk: %d", n);
	CHECK(t.n == 3, "records read: %d", t.n);
	CHECK(fpwalk_same((uintptr_t)buf, t.start, t.rec, t.n), "the same records: the same walk");
	buf[17] = CODE + 4;
	CHECK(!fpwalk_same((uintptr_t)buf, t.start, t.rec, t.n), "a return address changed");
	buf[17] = CODE;
	buf[8] = (uintptr_t)&buf[18];
	CHECK(!fpwalk_same((uintptr_t)buf, t.start, t.rec, t.n), "a frame pointer changed");
	buf[8] = (uintptr_t)&buf[16];
	/* the same words from another start: lower is the same walk; above
	 * the next frame the walk would stop */
	memcpy(&buf[4], &buf[0], 2 * sizeof(buf[0]));
	CHECK(fpwalk_same((uintptr_t)&buf[4], t.start, t.rec, t.n), "a lower start, same words");
	memcpy(&buf[24], &buf[0], 2 * sizeof(buf[0]));
	CHECK(!fpwalk_same((uintptr_t)&buf[24], t.start, t.rec, t.n), "a start above the next frame");
}

/* A walk that stops at its first step (the next frame below the start)
 * reads one record; from a lower start the same words would go on, so a
 * one-record trail is reused only from its own start. */
static void test_one_record_trail_reused_in_place(void)
{
	uintptr_t buf[64] __attribute__((aligned(16)));
	uintptr_t pcs[16];
	struct fpwalk_trail t, below;

	set_record(buf, 8, (uintptr_t)&buf[4], CALLER);	/* next frame below */
	set_record(buf, 4, (uintptr_t)&buf[16], CODE);
	set_record(buf, 16, 0, CODE);
	CHECK(walk((uintptr_t)&buf[8], pcs, &t) == 1 && t.n == 1, "stops at once: %d", t.n);
	memcpy(&buf[0], &buf[8], 2 * sizeof(buf[0]));
	CHECK(walk((uintptr_t)&buf[0], pcs, &below) == 3, "from below it goes on");
	CHECK(!fpwalk_same((uintptr_t)&buf[0], t.start, t.rec, t.n), "a one-record trail reused");
	CHECK(fpwalk_same((uintptr_t)&buf[8], t.start, t.rec, t.n), "a one-record trail not reused from its own start");
	buf[9] = CODE;
	CHECK(!fpwalk_same((uintptr_t)&buf[8], t.start, t.rec, t.n), "its own start, a word changed");
}

/* Not this thread's stack (a sigaltstack, a coroutine): no walk, no reuse. */
static void test_start_off_the_stack(void)
{
	static uintptr_t other[8] __attribute__((aligned(16)));
	uintptr_t buf[64] __attribute__((aligned(16)));
	uintptr_t pcs[16];
	struct fpwalk_trail t, off;

	set_record(buf, 0, (uintptr_t)&buf[8], CALLER);
	set_record(buf, 8, 0, CODE);
	CHECK(walk((uintptr_t)buf, pcs, &t) == 2 && t.n == 2, "walk: %d records", t.n);
	memcpy(other, buf, 2 * sizeof(buf[0]));
	CHECK(walk((uintptr_t)other, pcs, &off) == 0, "a walk off the stack");
	CHECK(!fpwalk_same((uintptr_t)other, t.start, t.rec, t.n), "reused off the stack");
}

/* The main thread's bounds, read from /proc/self/maps without stdio,
 * are glibc's pthread_getattr_np's; also with a stack limit that cuts
 * them short, and with none. */
extern void *__libc_stack_end __attribute__((weak));

static void test_main_stack_is_glibcs(void)
{
	struct rlimit saved, rl;

	/* (without it the walk asks glibc, and the test would prove nothing) */
	CHECK(&__libc_stack_end && __libc_stack_end, "__libc_stack_end resolved");
	CHECK(getrlimit(RLIMIT_STACK, &saved) == 0, "getrlimit");
	for (int k = 0; k < 3; k++) {
		rlim_t want[] = { saved.rlim_cur, 4 << 20, RLIM_INFINITY };
		uintptr_t lo, hi;
		pthread_attr_t a;
		void *addr;
		size_t size;

		rl = (struct rlimit){ want[k], saved.rlim_max };
		if (want[k] > saved.rlim_max || setrlimit(RLIMIT_STACK, &rl) != 0)
			continue;
		fpwalk_thread_init();
		fpwalk_stack(&lo, &hi);
		CHECK(pthread_getattr_np(pthread_self(), &a) == 0 &&
		      pthread_attr_getstack(&a, &addr, &size) == 0, "glibc's");
		pthread_attr_destroy(&a);
		CHECK(lo == (uintptr_t)addr && hi == (uintptr_t)addr + size,
		      "limit %d: [%#lx, %#lx), glibc [%p, %#lx)", k, (unsigned long)lo,
		      (unsigned long)hi, addr, (unsigned long)((uintptr_t)addr + size));
	}
	setrlimit(RLIMIT_STACK, &saved);
	fpwalk_thread_init();
}

int main(void)
{
	fpwalk_init();
	RUN(test_main_stack_is_glibcs);
	RUN(test_trail_replays_the_walk);
	RUN(test_one_record_trail_reused_in_place);
	RUN(test_start_off_the_stack);
	return t_done("fpwalk");
}
