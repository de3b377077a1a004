/* The user-space counter read, on a synthetic perf mmap page. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../preload/counters/counters.h"
#include "../preload/counters/selfread.h"
#include "harness.h"

static struct perf_event_mmap_page page;
static volatile uint64_t hw[8];		/* the "hardware" counters */
static int pmc_calls;

static uint64_t fake_pmc(uint32_t idx)
{
	pmc_calls++;
	return hw[idx & 7];
}

static void setup(uint32_t index, int64_t offset, uint16_t width, uint64_t raw)
{
	memset(&page, 0, sizeof(page));
	page.cap_user_rdpmc = 1;
	page.index = index;
	page.offset = offset;
	page.pmc_width = width;
	hw[index ? index - 1 : 0] = raw;
}

static void test_offset_plus_counter(void)
{
	uint64_t v = 0;

	setup(3, 1000, 48, 234);
	CHECK(selfread(&page, fake_pmc, &v) == 1, "read refused");
	CHECK(v == 1234, "v=%llu", (unsigned long long)v);
}

static void test_index_zero_means_fallback(void)
{
	uint64_t v = 77;

	setup(0, 5000, 48, 1);
	pmc_calls = 0;
	CHECK(selfread(&page, fake_pmc, &v) == 0, "index 0 must refuse");
	CHECK(v == 77, "value touched on refusal");
	CHECK(pmc_calls == 0, "rdpmc issued for index 0");
}

static void test_cap_off_means_fallback(void)
{
	uint64_t v = 0;

	setup(2, 10, 48, 5);
	page.cap_user_rdpmc = 0;
	CHECK(selfread(&page, fake_pmc, &v) == 0, "cap_user_rdpmc=0 must refuse");
}

/* The hardware register is pmc_width bits; values at or above half its
 * range are negative deltas from offset. */
static void test_sign_extension_at_width(void)
{
	uint64_t v = 0;

	setup(1, 1000, 48, (1ull << 48) - 5);	/* -5 in 48 bits */
	CHECK(selfread(&page, fake_pmc, &v) && v == 995, "v=%llu", (unsigned long long)v);
	setup(1, 1000, 40, (1ull << 40) - 1);	/* -1 in 40 bits */
	CHECK(selfread(&page, fake_pmc, &v) && v == 999, "v=%llu", (unsigned long long)v);
}

/* Bits above pmc_width are not part of the count. */
static void test_bits_above_width_ignored(void)
{
	uint64_t v = 0;

	setup(1, 100, 48, 0xabcd000000000007ull);
	CHECK(selfread(&page, fake_pmc, &v) && v == 107, "v=%llu", (unsigned long long)v);
}

/* A counter that wraps at pmc_width between two reads still gives the
 * right difference, because the kernel's offset compensates. */
static void test_wrap_between_reads(void)
{
	uint64_t a = 0, b = 0;

	setup(1, 1000000, 32, 0x7ffffff0);	/* just below the sign bit */
	CHECK(selfread(&page, fake_pmc, &a), "read a");
	/* 0x20 events later the 32-bit register shows 0x80000010, which
	 * sign-extends negative; the kernel moved offset by 2^32 when it
	 * observed the crossing (as perf does on overflow). */
	page.offset += 1ull << 32;
	hw[0] = 0x80000010;
	CHECK(selfread(&page, fake_pmc, &b), "read b");
	CHECK(b - a == 0x20, "delta=%llu", (unsigned long long)(b - a));
}

static void test_width_64(void)
{
	int64_t x = selfread_sign_extend(0xffffffffffffffffull, 64);

	CHECK(x == -1, "64-bit width must pass the value through");
	CHECK(selfread_sign_extend(0x8000, 16) == -32768, "16-bit sign bit");
	CHECK(selfread_sign_extend(0x7fff, 16) == 32767, "16-bit positive");
}

/* A writer updates offset and the register together under the seqlock,
 * keeping offset + counter == 1000 * generation. A reader must never see a
 * half-updated page. */
static volatile int stop;

static void *writer(void *arg)
{
	volatile struct perf_event_mmap_page *p = &page;
	uint64_t gen = 0;

	(void)arg;
	while (!stop) {
		gen++;
		p->lock++;		/* odd: update in progress */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		p->offset = gen * 1000 - 7 * gen;
		hw[0] = 7 * gen;
		p->index = 1;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		p->lock++;
	}
	return NULL;
}

/* A count the writer never published, or one going backwards, is torn. */
static void check_count(uint64_t v, uint64_t *last, uint64_t *torn)
{
	if (v % 1000 != 0 || v < *last)
		(*torn)++;
	*last = v;
}

/* Counts served from a consistent page; also checks them. */
static uint64_t read_many(long n, uint64_t *torn)
{
	uint64_t last = 0, v, ok = 0;

	for (long i = 0; i < n; i++) {
		if (!selfread(&page, fake_pmc, &v))
			continue;
		check_count(v, &last, torn);
		ok++;
	}
	return ok;
}

/* A snapshot whose page moved is not read through: after a move to
 * another CPU its index may name a counter that CPU lacks, and rdpmc or
 * mrs of it faults (as either does here for any index, user reads being
 * off: the child would die of it). */
static void test_moved_page_not_read(void)
{
	struct counters c;
	uint64_t v[EVENTS_MAX];
	int status = 0;
	pid_t pid;

	memset(&c, 0, sizeof(c));
	setup(3, 0, 48, 0);
	CHECK(selfread_snap_take(&c.fast[0], &page), "snapshot refused");
	c.nfast = 1;
	page.lock += 2;				/* the kernel moved the event */
	pid = fork();
	if (pid == 0)
		_exit(counters_read_fast(&c, v) == 0 ? 0 : 1);
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "a moved page was read through (status %#x)", status);
}

/* The same concurrent writer, read through snapshots as the markers do:
 * a count is used only when the page did not move under it. */
static uint64_t read_many_snap(long n, uint64_t *torn)
{
	struct selfread_snap snap;
	uint64_t last = 0, v, ok = 0;
	int have = 0;

	for (long i = 0; i < n; i++) {
		if (!have && !(have = selfread_snap_take(&snap, &page)))
			continue;
		v = selfread_snap_count(&snap, fake_pmc);
		selfread_barrier();
		if (selfread_snap_moved(&snap)) {
			have = 0;
			continue;
		}
		check_count(v, &last, torn);
		ok++;
	}
	return ok;
}

static void test_concurrent_writer(void)
{
	pthread_t w;
	uint64_t torn = 0, ok;

	setup(1, 0, 48, 0);
	stop = 0;
	pthread_create(&w, NULL, writer, NULL);
	/* reads overlap writes however the threads are scheduled: reading
	 * starts once the writer runs and goes on until it wrote 1000 times */
	while (__atomic_load_n(&page.lock, __ATOMIC_RELAXED) < 2)
		sched_yield();
	ok = read_many(1000000, &torn) + read_many_snap(1000000, &torn);
	while (__atomic_load_n(&page.lock, __ATOMIC_RELAXED) < 2000)
		ok += read_many(1000, &torn) + read_many_snap(1000, &torn);
	stop = 1;
	pthread_join(w, NULL);
	CHECK(torn == 0, "%llu torn reads of %llu", (unsigned long long)torn,
	      (unsigned long long)ok);
	CHECK(ok > 0, "no read succeeded");
	CHECK(page.lock % 2 == 0 && page.lock > 100, "writer barely ran (lock=%u)", page.lock);
}

/* counters_read: when a page refuses the user read (index 0, as for any
 * event not on a hardware counter right now), the whole group is read
 * with read() instead. Uses real software events, which open anywhere. */
static void test_counter_read_falls_back(void)
{
	struct event_list ev;
	struct event_status st[EVENTS_MAX];
	struct counters c;
	char err[200];
	uint64_t v[EVENTS_MAX] = { 0 }, w[EVENTS_MAX] = { 0 };

	memset(st, 0, sizeof(st));
	CHECK(events_parse_list("task-clock,page-faults", &ev, err, sizeof(err)) == 0, "%s", err);
	counters_open(&c, &ev, st, 1);
	if (c.nopen != 2)
		SKIP("software events do not open here: %s", st[0].reason);
	CHECK(st[0].source == SOURCE_READ, "task-clock must be a read() event");
	setup(0, 123, 48, 0);			/* refuses: index 0 */
	c.page[0] = c.page[1] = &page;
	c.nfast = 2;
	c.slow = COUNTERS_SLOW_SNAP;		/* as counters_open leaves it then */
	c.all_user = 1;
	counters_read(&c, v);
	for (volatile int i = 0; i < 3000000; i++)
		;
	counters_read(&c, w);
	CHECK(w[0] > v[0] && v[0] > 0, "task-clock %llu -> %llu", (unsigned long long)v[0],
	      (unsigned long long)w[0]);
	CHECK(!c.broken, "group read failed");
	CHECK(c.slow & COUNTERS_SLOW_SNAP, "the refused snapshot is retried at the next read");
	c.page[0] = c.page[1] = NULL;
	counters_close(&c);
	CHECK(c.nopen == 0 && c.fd[0] == -1, "closed");
}

/* The marker's read through a snapshot agrees with the full protocol
 * while the page is unchanged, and says "take a new one" once the kernel
 * changed it. */
static void test_snapshot(void)
{
	struct selfread_snap snap;
	uint64_t full = 0;

	setup(3, -5, 48, (1ull << 48) - 2);	/* raw -2 at 48 bits, offset -5 */
	CHECK(selfread(&page, fake_pmc, &full), "full protocol reads");
	CHECK(full == (uint64_t)-7, "value -7 as unsigned: %llu", (unsigned long long)full);
	CHECK(selfread_snap_take(&snap, &page) == 1, "snapshot refused");
	CHECK(selfread_snap_count(&snap, fake_pmc) == full && !selfread_snap_moved(&snap),
	      "snapshot count %llu vs full %llu",
	      (unsigned long long)selfread_snap_count(&snap, fake_pmc), (unsigned long long)full);
	hw[2] += 10;				/* the counter counts on */
	CHECK(selfread_snap_count(&snap, fake_pmc) == full + 10 && !selfread_snap_moved(&snap),
	      "counting on: %llu", (unsigned long long)selfread_snap_count(&snap, fake_pmc));
	page.lock += 2;				/* the kernel moved the event */
	CHECK(selfread_snap_moved(&snap), "a changed page must be noticed");
	CHECK(selfread_snap_take(&snap, &page) == 1 && !selfread_snap_moved(&snap),
	      "a new snapshot is current");
	page.index = 0;
	CHECK(selfread_snap_take(&snap, &page) == 0, "index 0: no snapshot");
	setup(3, 0, 48, 0);
	page.cap_user_rdpmc = 0;
	CHECK(selfread_snap_take(&snap, &page) == 0, "user reads off: no snapshot");
	setup(1, 0, 64, ~0ull);			/* 64-bit counter: no sign extension */
	CHECK(selfread_snap_take(&snap, &page) == 1 && snap.shift == 0 &&
	      selfread_snap_count(&snap, fake_pmc) == ~0ull, "64-bit width");
}

int main(void)
{
	RUN(test_offset_plus_counter);
	RUN(test_snapshot);
	RUN(test_moved_page_not_read);
	RUN(test_index_zero_means_fallback);
	RUN(test_cap_off_means_fallback);
	RUN(test_sign_extension_at_width);
	RUN(test_bits_above_width_ignored);
	RUN(test_wrap_between_reads);
	RUN(test_width_64);
	RUN(test_concurrent_writer);
	RUN(test_counter_read_falls_back);
	return t_done("selfread");
}
