/* What the regions code's two halves share (private: included by
 * regions.c and markers.c alone). markers.c is the markers' hot path,
 * specialised per number of values; regions.c the thread's region state
 * around it (room for frames and slots, the warm ids, the reads off the
 * plain path, the ends off the warm path, a thread's setup and end).
 * The inline helpers here are inlined where they are used, as they were
 * in one file: closing a frame is on the end's warm path (markers.c) and
 * off it (regions.c). */
#ifndef PMCSHIM_REGIONS_IMPL_H
#define PMCSHIM_REGIONS_IMPL_H

#include <stddef.h>

#include "regions.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Sites are read by other processes (and the exit path) while their
 * thread runs, inside the site's sequence count: each value must be
 * stored whole, in one move. Relaxed atomic stores say so in C11 (and
 * keep the sanitizer's builds free of data races); elsewhere a volatile
 * store does the same (the kernel's WRITE_ONCE: an aligned 64-bit move on
 * x86-64 and arm64) and keeps offset addressing, which GCC's arm64
 * atomics give up (a move more per store). Loads need neither: the
 * thread is its sites' only writer, and reads do not race with reads. */
static inline void store(uint64_t *p, uint64_t v)
{
#if defined(__SANITIZE_THREAD__)
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
#else
	*(volatile uint64_t *)p = v;
#endif
}

static inline uint64_t load(const uint64_t *p)
{
	return *p;
}

/* p[0] and p[1] in one load where the machine has one (arm64's ldp,
 * which GCC forms only from loads it scheduled side by side). charge_top
 * reads a site's min and max so: they must stay side by side. */
_Static_assert(offsetof(struct rf_stat, max) == offsetof(struct rf_stat, min) + sizeof(uint64_t),
	       "rf_stat: max right after min (load_pair)");
static inline void load_pair(const uint64_t *p, uint64_t *a, uint64_t *b)
{
#if defined(__aarch64__) && !defined(__clang__)	/* Ump: GCC's ldp operand */
	__asm__("ldp %0, %1, %2" : "=r"(*a), "=r"(*b) : "Ump"(*(const struct { uint64_t w[2]; } *)p));
#else
	*a = load(p);
	*b = load(p + 1);
#endif
}

static inline void add(uint64_t *p, uint64_t d)
{
	store(p, load(p) + d);
}

/* Coverage: the time each event's group was enabled and counting.
 * Static, not inline, as in one file: off the warm path, GCC keeps it out
 * of line. markers.c never calls it (its closes pass no times): unused. */
static __attribute__((unused)) void charge_times(const struct region_state *rs, struct rf_site *s,
			 const struct frame *f, const struct frame_times *now)
{
	for (int i = 1; i < rs->nv; i++) {
		add(&s->v[i].enabled, now->enabled[i] - f->times.enabled[i]);
		add(&s->v[i].running, now->running[i] - f->times.running[i]);
	}
}

/* Pop the top frame, charging `now` to its site and to its parent (nv:
 * rs->nv; whole: 0 for an inner activation of a recursive region, which
 * adds nothing to the inclusive value, else all ones). */
static inline __attribute__((always_inline)) void charge_top(struct region_state *rs,
							     const uint64_t *now,
							     const struct frame_times *times,
							     int nv, uint64_t whole)
{
	struct frame *f = rs->top--;
	struct frame *parent = f - 1;	/* the root, for an outermost region */
	struct rf_site *s = f->site;
	uint32_t seq = rf_site_write_begin(s);

	add(&s->calls, 1);
	add(&s->child_calls, f->children);
	parent->children++;
#pragma GCC unroll 9	/* whole, where nv is a constant (MARKERS_FOR) */
	for (int i = 0; i < nv && i < VALUES_MAX; i++) {
		struct rf_stat *v = &s->v[i];
		uint64_t d = now[i] - f->start[i];
		uint64_t lo, hi;
		load_pair(&v->min, &lo, &hi);
		add(&v->incl, d & whole);
		add(&v->excl, d - f->child[i]);
		if (d < lo)
			store(&v->min, d);
		if (d > hi)
			store(&v->max, d);
		parent->child[i] += d;
	}
	if (times)
		charge_times(rs, s, f, times);
	rf_site_write_end(s, seq);
}

/* Pop the top frame, charging it (nv: rs->nv). The activation that
 * leaves its region open nowhere else is the outermost. (A mask, not a
 * branch to a copy for inner ones: a call would put now in memory.) */
static inline __attribute__((always_inline)) void close_top(struct region_state *rs,
							    const uint64_t *now,
							    const struct frame_times *times,
							    int nv)
{
	uint32_t open = --rs->top->slot->open;

	charge_top(rs, now, times, nv, open == 0 ? UINT64_MAX : 0);
}

/* Whether a region end at wall tick `tick` publishes the running counts
 * (due: rs->publish_due; regions_publish). One compare: no test of the
 * depth, no call on the way past. */
static inline int publish_is_due(uint64_t tick, uint64_t due)
{
	return unlikely(tick >= due);
}

/* A begin dropped: too deep, or no memory (its end is dropped too). */
static inline void begin_dropped(struct region_state *rs, uint32_t id)
{
	rs->overflow++;
	rs->warm_ids = 0;
	regions_record_error(rs, RF_ERR_TOO_DEEP, id, 0, 1);
}

/* The markers' copies for one number of values (markers.c): the
 * exported functions' and the api table's entries. */
typedef void begin_fn(struct region_state *rs, struct counters *c, uint32_t id,
		      uintptr_t caller);
typedef void end_fn(struct region_state *rs, struct counters *c, uint32_t id);
typedef void begin_name_fn(struct region_state *rs, struct counters *c, const char *name,
			   uintptr_t caller);
typedef void end_name_fn(struct region_state *rs, struct counters *c, const char *name);
typedef void begin_function_fn(struct region_state *rs, struct counters *c,
			       const struct fn_place *p);

struct markers {
	begin_fn *begin;
	end_fn *end;
	begin_name_fn *begin_name;
	end_name_fn *end_name;
	begin_fn *begin_in;		/* inside the guard, which they leave */
	end_fn *end_in;
	begin_function_fn *begin_function;	/* regions_begin_function */
	/* the entries for threads with these values, narrow and wide counters */
	const struct regions_entry *entry, *entry_wide;
};

/* regions.c, for the markers. */
/* The values now, every way (not the plain read): into v, and the
 * multiplexed groups' times into t where the thread keeps coverage. */
void regions_read_values(struct region_state *rs, struct counters *c, uint64_t *v,
			 struct frame_times *t);
/* warm_ids anew. */
void regions_rewarm(struct region_state *rs);
/* Room for one more frame and for region id's activation count; 0 when
 * there is none (the begin was dropped). */
int regions_make_room(struct region_state *rs, uint32_t id);
/* An end off the warm path, inside the guard (fold: regions_end_fold). */
void regions_end_measured(struct region_state *rs, struct counters *c, uint32_t id,
			  uint64_t fold);

/* Pop the top frame without charging its site: its cost stays in its
 * parent's exclusive value, and what closed inside it counts as closed
 * inside the parent (PMCSHIM_FUNCTIONS' min=). */
static inline void fold_top(struct region_state *rs)
{
	struct frame *f = rs->top--;
	struct frame *parent = f - 1;

	parent->children += f->children;
	for (int i = 0; i < rs->nv && i < VALUES_MAX; i++)
		parent->child[i] += f->child[i];
	f->slot->open--;
}

/* markers.c, for regions_init: the copy of the markers for nv values
 * (1 to VALUES_MAX; any other, the copy for 1). */
const struct markers *regions_markers(int nv);

#endif
