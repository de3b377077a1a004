/* One perf_event group per thread, read from user space where the mmap
 * page allows it and with one read() of the whole group otherwise. */
#ifndef PMCSHIM_COUNTERS_H
#define PMCSHIM_COUNTERS_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arch.h"
#include "events.h"
#include "selfread.h"

enum event_source {
	SOURCE_UNAVAILABLE = 0,
	SOURCE_READ,		/* read() of the group: ~1.5 us a marker */
	SOURCE_USER,		/* rdpmc / mrs through the mmap page */
};

/* What the first thread (the constructor's) found, for the report and so
 * later threads skip events that can never open. */
struct event_status {
	enum event_source source;
	int err;		/* errno of a failed open */
	/* The kernel refused to count it in kernel mode (err, reason say
	 * why): it counts in user space only, in every thread. */
	int user_only;
	char reason[200];
};

/* Events share one group while the PMU can schedule them together; an
 * event the kernel refuses to add (more events than counters) starts a
 * new group, and the kernel then multiplexes the groups. */
struct counters {
	/* The marker's read: a snapshot of each of nfast pages (every open
	 * event, when all are user-readable, else none), by position among
	 * open events. First, so that a marker's loads of them stay in an
	 * ldp's reach of the struct. */
	struct selfread_snap fast[EVENTS_MAX];
	int n;				/* events configured */
	int nopen;			/* events open in this thread */
	int ngroups;
	int all_user;			/* every open event is user-readable */
	int broken;			/* a read failed; stop reading */
	int multiplexed;		/* more than one group: they take turns */
	int leader[EVENTS_MAX];		/* fd of each group's leader */
	int leader_event[EVENTS_MAX];	/* and its event index */
	int size[EVENTS_MAX];		/* events in each group */
	int fd[EVENTS_MAX];		/* -1 where unavailable */
	uint64_t id[EVENTS_MAX];	/* PERF_EVENT_IOC_ID of each open fd */
	struct perf_event_mmap_page *page[EVENTS_MAX];
	int group[EVENTS_MAX];		/* group of each event, -1 if closed */
	int slot[EVENTS_MAX];		/* position in its group's read */
	int open[EVENTS_MAX];		/* event index of the k-th open event */
	int value[EVENTS_MAX];		/* event i's position among open ones */
	/* nfast: the snapshots in fast; slow: the marker must take
	 * counters_read_slow. */
	int nfast, slow;
	int nvalues;			/* values a marker's read fills (nopen at open) */
	int wide;			/* every snapshot 64 bits wide, one group,
					 * one kind of CPU, and slow 0 (slow set
					 * clears it) */
	/* The last values a marker's read() found (by position among open
	 * events): what later reads give once the counters broke, so that a
	 * region open across the break ends with a difference of what was
	 * counted, never of a value and zero. */
	uint64_t held[EVENTS_MAX], held_enabled[EVENTS_MAX], held_running[EVENTS_MAX];
};

/* Open ev's events for the calling thread. status[i] is filled when
 * first is set and consulted otherwise. Never fails as a whole: an event
 * that cannot open is simply absent (fd -1). */
void counters_open(struct counters *c, const struct event_list *ev,
		   struct event_status *status, int first);
/* The same for the events whose bit is set in which (bit i: ev->ev[i]);
 * the others stay closed (fd -1), their status untouched. */
void counters_open_some(struct counters *c, const struct event_list *ev,
			struct event_status *status, int first, uint32_t which);
void counters_close(struct counters *c);
/* Whether the hardware PMU counts here (cycles or instructions open in
 * user space, as the defaults ask): 1, or 0 with why it does not. */
int counters_pmu_counts(char *why, size_t len);
/* Whether ev can be read from user space where the system allows it (a
 * hardware event on an architecture with a user read); else only
 * through read(): two system calls a marker pair. */
int counters_user_readable(const struct event_spec *ev);
/* Close every event and mark the counters broken; markers read nvalues
 * zeros from then on (a fork child that could not reopen what its sites
 * expect). Counters that break by themselves (a read failed, another file
 * took a descriptor) read their last values from then on. */
void counters_disable(struct counters *c, int nvalues);

/* Slow path of counters_read: one read() per group. */
void counters_read_group(struct counters *c, uint64_t *vals);

/* Totals for the report, indexed by event (not compact), with
 * enabled/running time per event. Returns 0, or -1 (values untouched)
 * when nothing could be read. */
int counters_read_totals(struct counters *c, uint64_t *vals,
			 uint64_t *enabled, uint64_t *running);

/* Multiplexed groups: the values with each one's enabled and running
 * time (ns), by position among open events; one read() per group. */
void counters_read_times(struct counters *c, uint64_t *vals, uint64_t *enabled,
			 uint64_t *running);

/* Slow path of counters_read: new snapshots, else read(). */
void counters_read_slow(struct counters *c, uint64_t *vals);

/* Why a marker cannot take counters_read_fast (bits of slow). */
#define COUNTERS_SLOW_READ 1		/* some open event needs read(), or closed */
#define COUNTERS_SLOW_SNAP 2		/* a page refused a snapshot: retake it */

/* Read the open events into vals[0 .. nopen-1], in event order (the
 * hot path keeps no slots for events that did not open), from user
 * space through the snapshots: per event, a counter read and a look at
 * its page's lock. Returns 0 when that is not possible now: the caller
 * reads again with counters_read_slow. n: c->nfast, which is the number
 * of open events whenever slow is 0; a caller that has a copy of its warm
 * path for a common number passes it as a constant (the loop unrolled).
 * The first page's lock is looked at before any read, too: the kernel
 * rewrites every page of the thread's events when it schedules them out
 * or in, and after a move to another CPU a snapshot's index may name a
 * counter that CPU lacks (hybrid x86, big.LITTLE), where rdpmc or mrs
 * faults. A counter moved while the thread ran stays on this CPU: the
 * look after the read is enough for it.
 * counters_read_snaps is the same for a copy of the caller's for wide
 * counters or not (wide: 1 only where counters_wide says so, and is
 * known to have said so since the last snapshots). Wide counters are
 * wide (counters_wide): no sign extension, and one look at the group
 * leader's lock, after the reads, stands for every page's, since the
 * kernel rewrites every page of a group when it moves the group, and a
 * 64-bit counter never overflows (which rewrites its own page alone).
 * No look before: counters are wide only where every CPU has the same
 * counters, so a stale index still names a counter that exists, and the
 * look after finds it stale. */
static inline __attribute__((always_inline)) int counters_read_snaps(const struct counters *c,
								      uint64_t *vals, int n,
								      int wide)
{
	const struct selfread_snap *s = c->fast;
	uint32_t moved = 0;

	if (!wide && __builtin_expect(c->slow != 0 || (n > 0 && selfread_snap_moved(&s[0])), 0))
		return 0;
	selfread_barrier();
#pragma GCC unroll 9	/* whole where n is a constant: the asm looks large to GCC */
	for (int k = 0; k < n && k < EVENTS_MAX; k++) {
		if (wide) {
			vals[k] = selfread_snap_count_wide(&s[k], arch_read_pmc_slot_plus);
			continue;
		}
		vals[k] = selfread_snap_count(&s[k], arch_read_pmc_slot);
		selfread_barrier();
		moved |= selfread_snap_moved(&s[k]);
	}
	if (wide && n > 0) {
		selfread_barrier();
		moved = selfread_snap_moved(&s[0]);
	}
	return moved == 0;
}

static inline __attribute__((always_inline)) int counters_read_fast_n(const struct counters *c,
								       uint64_t *vals, int n)
{
	return counters_read_snaps(c, vals, n, 0);
}

static inline __attribute__((always_inline)) int counters_read_fast(const struct counters *c,
								     uint64_t *vals)
{
	return counters_read_fast_n(c, vals, c->nfast);
}

/* The same, falling back to new snapshots and read(). */
static inline void counters_read(struct counters *c, uint64_t *vals)
{
	if (__builtin_expect(!counters_read_fast(c, vals), 0))
		counters_read_slow(c, vals);
}

/* 64-bit user-readable counters in one group (counters_read_snaps). */
static inline int counters_wide(const struct counters *c)
{
	return c->wide;
}

/* Why reading failed, once it has (broken, or counters_read_totals -1). */
const char *counters_lost_reason(const struct counters *c);
/* How to turn on user-space reads where the system has them off, or NULL. */
const char *counters_user_read_hint(void);

#endif
