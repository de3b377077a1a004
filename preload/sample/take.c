/* The sampler's signal handler: on the sampled thread, inside a signal
 * the kernel sent for the thread's own event. No lock, no allocation:
 * the stack from the unwind tables (tablewalk_interrupted, with the
 * module list frozen), stored in the thread's table by a hash of the
 * stack and its region, with a linear probe. The thread's handler is its
 * table's only writer (the signal is blocked while it runs). */
#include "sample_impl.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <ucontext.h>

#include "base/arch.h"
#include "counters/counters.h"
#include "regions/counted.h"
#include "regions/guard.h"
#include "regions/regions.h"
#include "stacks/codemap.h"
#include "stacks/tablewalk.h"

#define PROBES 16		/* slots tried before a new stack counts as dropped */

__thread struct sampler sample_tls = { .fd = -1, .reg = -1 };

static void drop(struct rf_samples *r, enum rf_sample_drop kind)
{
	__atomic_add_fetch(&r->dropped[kind], 1, __ATOMIC_RELAXED);
}

/* The region open innermost on this thread (0: none). Read only when the
 * shim is not busy on it: then its frames are as the markers left them. */
static uint32_t innermost(void)
{
	const struct region_state *rs = shim_tls.regions;

	return rs && rs->top > rs->frames ? rs->top->region : 0;
}

static uint64_t hash(const uintptr_t *pc, int n, uint32_t region)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325) ^ region;

	for (int i = 0; i < n; i++)
		h = (h ^ pc[i]) * UINT64_C(0x100000001b3);
	return h ^ (h >> 29);
}

static struct rf_sample_slot *slot_at(const struct sampler *s, uint64_t i)
{
	return (struct rf_sample_slot *)((char *)(s->rec + 1) + (i & s->mask) * s->rec->slot_size);
}

static int same(const struct rf_sample_slot *slot, const uintptr_t *pc, int n, uint32_t region)
{
	return slot->region == region && slot->nframes == n &&
	       memcmp(slot->pc, pc, (size_t)n * sizeof(pc[0])) == 0;
}

/* What the thread's counters counted since its last sample, into d
 * (s->nvalues of them); 0 when they cannot be read now (that interval
 * is then in no slot, and the next read starts afresh). The full
 * protocol on each page: the marker's snapshots are not ours to use. */
static int since_last(struct sampler *s, uint64_t *d)
{
	const struct counters *c = s->ctr;
	uint64_t now[RF_EVENTS_MAX];

	if (!c || c->broken)
		return 0;
	for (int k = 0; k < s->nvalues; k++) {
		const struct perf_event_mmap_page *page = c->page[c->open[k]];

		if (!page || !selfread(page, arch_read_pmc, &now[k])) {
			s->have_last = 0;
			return 0;
		}
	}
	for (int k = 0; k < s->nvalues; k++) {
		d[k] = s->have_last ? now[k] - s->last[k] : 0;
		s->last[k] = now[k];
	}
	s->have_last = 1;
	return 1;
}

static void add_values(const struct sampler *s, struct rf_sample_slot *slot, const uint64_t *d)
{
	uint64_t *v = slot->pc + s->rec->depth;

	for (int k = 0; k < s->nvalues; k++)
		__atomic_store_n(&v[k], __atomic_load_n(&v[k], __ATOMIC_RELAXED) + d[k],
				 __ATOMIC_RELAXED);
}

/* One more sample of stack pc[n] under region, with the counts d (NULL:
 * none read). */
static void store(const struct sampler *s, const uintptr_t *pc, int n, uint32_t region,
		  const uint64_t *d)
{
	uint64_t h = hash(pc, n, region);

	for (int i = 0; i < PROBES; i++) {
		struct rf_sample_slot *slot = slot_at(s, h + (uint64_t)i);
		uint64_t c = __atomic_load_n(&slot->count, __ATOMIC_RELAXED);

		if (c == 0) {
			slot->region = region;
			slot->nframes = (uint16_t)n;
			memcpy(slot->pc, pc, (size_t)n * sizeof(pc[0]));
			if (d)
				add_values(s, slot, d);
			__atomic_store_n(&slot->count, 1, __ATOMIC_RELEASE);
		} else if (same(slot, pc, n, region)) {
			if (d)
				add_values(s, slot, d);
			__atomic_store_n(&slot->count, c + 1, __ATOMIC_RELAXED);
		} else {
			continue;
		}
		__atomic_add_fetch(&s->rec->taken, 1, __ATOMIC_RELAXED);
		return;
	}
	drop(s->rec, RF_SAMPLE_FULL);
}

#if defined(__x86_64__)
#define UC_PC(uc) (uc)->uc_mcontext.gregs[REG_RIP]
#define UC_SP(uc) (uc)->uc_mcontext.gregs[REG_RSP]
#define UC_FP(uc) (uc)->uc_mcontext.gregs[REG_RBP]
#elif defined(__aarch64__)
#define UC_PC(uc) (uc)->uc_mcontext.pc
#define UC_SP(uc) (uc)->uc_mcontext.sp
#define UC_FP(uc) (uc)->uc_mcontext.regs[29]
#endif

static void take(struct sampler *s, const ucontext_t *uc)
{
#ifdef UC_PC
	uintptr_t pc[SAMPLE_DEPTH];
	uint64_t d[RF_EVENTS_MAX];
	int n, end, valued;

	/* a marker (or the shim's setup) interrupted: its state is mid-change
	 * (its counters too: what they counted goes to the next sample) */
	if (guard_busy()) {
		drop(s->rec, RF_SAMPLE_BUSY);
		return;
	}
	/* first: the handler's own work counts towards the next sample */
	valued = s->nvalues > 0 && since_last(s, d);
	if (s->nvalues > 0 && !valued)
		drop(s->rec, RF_SAMPLE_UNREAD);
	/* a counted function's time (PMCSHIM_FUNCTIONS=sampled); period:
	 * ns of task-clock there */
	counted_sample((uintptr_t)UC_PC(uc), s->rec->period);
	codemap_frozen = 1;
	n = tablewalk_interrupted((uintptr_t)UC_PC(uc), (uintptr_t)UC_SP(uc), (uintptr_t)UC_FP(uc),
				  SAMPLE_DEPTH - 1, pc, &end);
	codemap_frozen = 0;
	if (end != TABLEWALK_WHOLE)
		drop(s->rec, RF_SAMPLE_PARTIAL);
	store(s, pc, n, innermost(), valued ? d : NULL);
#else
	(void)uc;
	drop(s->rec, RF_SAMPLE_PARTIAL);
#endif
}

void sample_on_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	struct sampler *s = &sample_tls;

	if (si->si_code <= 0) {		/* sent by a process, not by an event */
		sample_pass_on(sig);
		errno = saved;
		return;
	}
	if (s->rec && s->fd >= 0 && si->si_fd == s->fd) {
		take(s, uc);
		/* PERF_EVENT_IOC_REFRESH: one overflow more, then off until the
		 * next handler; a thread that blocks the signal has one pending */
		if (s->armed && !__atomic_load_n(&sample_stopped, __ATOMIC_ACQUIRE)) {
			ioctl(s->fd, PERF_EVENT_IOC_REFRESH, 1);
			/* stopped meanwhile, after its disable: off again */
			if (__atomic_load_n(&sample_stopped, __ATOMIC_ACQUIRE))
				ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
		}
	}
	errno = saved;
}
