/* A thread's region state: the frames of its open regions and the slots
 * of its region ids (room for them, grown in its arena), its warm ids
 * (regions_rewarm), the reads off the plain path, the ends off the warm
 * path (unbalanced markers, dropped begins, folded calls), and its setup,
 * end and fork. The markers themselves, the hot path that uses all this,
 * are in markers.c. */
#include <errno.h>
#include <string.h>

#include "regions_impl.h"

#include "counted.h"
#include "entry.h"
#include "guard.h"
#include "names.h"

void regions_release(struct region_state *rs)
{
	if (rs->counted)
		counted_release(rs->counted);
	rs->counted = NULL;
	sites_release(&rs->sites);
	arena_release(&rs->arena);
	rs->frames = rs->top = rs->frames_last = rs->warm_top = NULL;
	rs->slots = NULL;
	rs->errors = NULL;
	rs->frames_cap = rs->slots_cap = 0;
	memset(rs->names, 0, sizeof(rs->names));
	memset(rs->refused, 0, sizeof(rs->refused));	/* the copies were in the arena */
}

/* The values now, every way: serialized, with the times of multiplexed
 * groups (into t, only where the thread keeps coverage), or read(). New
 * snapshots may find the counters no longer wide (or wide again): the
 * warm path's compare follows. */
__attribute__((noinline)) void regions_read_values(struct region_state *rs,
						   struct counters *c, uint64_t *v,
						   struct frame_times *t)
{
	int wide = counters_wide(c);

	if (rs->serialize)
		arch_barrier();
	v[0] = arch_ticks();
	if (rs->coverage)
		counters_read_times(c, v + 1, t->enabled + 1, t->running + 1);
	else
		counters_read(c, v + 1);
	if (rs->serialize)
		arch_barrier();
	if (unlikely(counters_wide(c) != wide))
		regions_rewarm(rs);
}

void regions_serialize(struct region_state *rs, int on)
{
	rs->serialize = on;
	rs->careful = rs->serialize || rs->coverage;
	regions_rewarm(rs);
}

void regions_coverage(struct region_state *rs, int on)
{
	rs->coverage = on;
	rs->careful = rs->serialize || rs->coverage;
	regions_rewarm(rs);
}

/* Grow a zero-filled array to more than `need` items, at most limit
 * (doubling; the old copy stays in the arena until the thread ends). */
static int grow_zeroed(struct arena *a, void **array, uint32_t *cap, size_t item,
		       uint32_t need, uint32_t limit)
{
	uint32_t n = *cap ? *cap : 32;
	char *p;

	if (need >= limit)	/* ids come from the application: 2^31 must not loop */
		return -1;
	while (n <= need)
		n *= 2;
	if (n > limit)
		n = limit;
	if (!(p = arena_alloc(a, n * item)))
		return -1;
	if (*cap)
		memcpy(p, *array, *cap * item);
	*array = p;
	*cap = n;
	return 0;
}

/* New frames start zeroed: slots of events this thread lacks read as 0.
 * frames[0] is the thread's root: the parent of outermost regions, so
 * that closing one charges a parent without a test for one (what the
 * root gathers is never read). */
static inline uint32_t open_count(const struct region_state *rs)
{
	return rs->frames ? (uint32_t)(rs->top - rs->frames) : 0;
}

static int grow_frames(struct region_state *rs)
{
	uint32_t n = open_count(rs);

	if (grow_zeroed(&rs->arena, (void **)&rs->frames, &rs->frames_cap,
			sizeof(struct frame), n + 1, FRAMES_MAX + 1))
		return -1;
	rs->top = rs->frames + n;
	rs->frames_last = rs->frames + rs->frames_cap - 1;
	rs->warm_top = rs->depth ? rs->frames : rs->frames_last;
	return 0;
}

uint32_t regions_open_count(const struct region_state *rs)
{
	return open_count(rs);
}

/* The k-th open region, from the outermost (0). */
static inline struct frame *frame_at(struct region_state *rs, uint32_t k)
{
	return &rs->frames[k + 1];
}

/* The open frames' slots move with the array. */
static int grow_slots(struct region_state *rs, uint32_t id)
{
	if (grow_zeroed(&rs->arena, (void **)&rs->slots, &rs->slots_cap,
			sizeof(struct region_slot), id, UINT32_MAX / 2 / sizeof(struct region_slot)))
		return -1;
	for (struct frame *f = rs->frames; rs->frames && f <= rs->top; f++)
		f->slot = &rs->slots[f->region];
	return 0;
}

/* The values of the threads the installed entries serve (0: none),
 * and whether their counters are wide. */
static int entry_nv, entry_wide;

/* warm_ids anew (region_state): after growth, a begin dropped or its end
 * seen, a change of reads, new ids given out. */
void regions_rewarm(struct region_state *rs)
{
	uint32_t n = names_issued_count();

	if (rs->overflow || rs->careful || !rs->frames ||
	    rs->nv != __atomic_load_n(&entry_nv, __ATOMIC_RELAXED) ||
	    counters_wide(rs->counters) != __atomic_load_n(&entry_wide, __ATOMIC_RELAXED))
		n = 0;
	else if (n >= rs->slots_cap)	/* room for ids below slots_cap */
		n = rs->slots_cap ? rs->slots_cap - 1 : 0;
	rs->warm_ids = n;
}

/* Room for one more frame and for region id's activation count; 0 when
 * there is none (the begin is dropped). */
__attribute__((noinline)) int regions_make_room(struct region_state *rs, uint32_t id)
{
	int saved = errno, ok = 1;

	if (rs->overflow || ((!rs->frames || rs->top >= rs->frames_last) && grow_frames(rs)) ||
	    (id >= rs->slots_cap && grow_slots(rs, id))) {
		begin_dropped(rs, id);
		ok = 0;
	}
	errno = saved;
	return ok;
}

/* Drop the top frame unmeasured. */
static void drop_top(struct region_state *rs)
{
	struct frame *f = rs->top--;

	f->slot->open--;
}

/* Close the top frame, whose end was not seen: measured up to now, and
 * counted (open: the region whose end closed it, 0 for a function's
 * hook that found it abandoned). */
static void close_unseen(struct region_state *rs, const uint64_t *now,
			 const struct frame_times *times, uint32_t open)
{
	uint32_t region = rs->top->region;

	close_top(rs, now, times, rs->nv);
	regions_record_error(rs, RF_ERR_RESYNC, region, open, 1);
}

/* An end that is not of the innermost region: the region it ends is
 * looked for down the open frames (RESYNC_SEARCH of them); found, the
 * frames above it are closed (their ends were missed: a longjmp, an
 * exception), then it. Not found: an end of nothing open, ignored. */
static __attribute__((noinline)) void end_unbalanced(struct region_state *rs, uint32_t id,
						     const uint64_t *now,
						     const struct frame_times *times)
{
	uint32_t n = open_count(rs), k = n;

	while (k > 0 && n - k < RESYNC_SEARCH && frame_at(rs, k - 1)->region != id)
		k--;
	if (k == 0 || frame_at(rs, k - 1)->region != id) {
		regions_record_error(rs, RF_ERR_END_UNOPENED, id, 0, 1);
		return;
	}
	regions_record_error(rs, RF_ERR_END_MISMATCH, id,
			     rs->top->region, 1);
	while (open_count(rs) > k)
		close_unseen(rs, now, times, id);
	close_top(rs, now, times, rs->nv);
}

void regions_resync(struct region_state *rs, struct counters *c, uintptr_t lo,
		    const struct fn_place *p)
{
	int saved = errno, n = 0;
	uint64_t now[VALUES_MAX];
	struct frame_times times;
	struct frame *f, *dead = NULL;

	if (!guard_enter())	/* a handler interrupted the shim: later hooks will do */
		return;
	for (f = rs->top; f && f > rs->frames && n < RESYNC_LOOK; f--, n++) {
		const struct fn_key *k = regions_key(f);

		if (k && (k->cfa < lo || !regions_left(k, p)))
			break;
		if (k) {
			dead = f;
			n = 0;
		}
	}
	if (dead) {
		regions_read_values(rs, c, now, &times);
		if (rs->overflow) {	/* begins dropped past the cap: inside them */
			rs->overflow = 0;
			regions_rewarm(rs);
		}
		while (rs->top >= dead)
			close_unseen(rs, now, rs->coverage ? &times : NULL, 0);
	}
	guard_leave();
	errno = saved;
}

/* An end off the warm path: a read other than the plain one, a begin
 * that was dropped, or unbalanced markers (inside the guard); a call
 * shorter than fold wall ticks is folded into its parent. */
void regions_end_measured(struct region_state *rs, struct counters *c, uint32_t id,
			 uint64_t fold)
{
	uint64_t now[VALUES_MAX];	/* regions_read_values fills the first nv */
	struct frame_times times;	/* and these with coverage */
	struct frame_times *t = rs->coverage ? &times : NULL;

	regions_read_values(rs, c, now, &times);
	if (rs->overflow) {
		if (--rs->overflow == 0)
			regions_rewarm(rs);
		return;
	}
	/* (the root holds region 0, which no id is: no count of the frames,
	 * a division by their size) */
	if (rs->frames && rs->top->region == id && now[0] - rs->top->start[0] < fold)
		fold_top(rs);
	else if (rs->frames && rs->top->region == id)
		close_top(rs, now, t, rs->nv);
	else
		end_unbalanced(rs, id, now, t);
	if (publish_is_due(now[0], rs->publish_due))
		regions_publish(rs, now);
}

void regions_init(struct region_state *rs, struct counters *c, int nvalues, int depth,
		  uint32_t thread)
{
	memset(rs, 0, sizeof(*rs));
	rs->counters = c;
	rs->nv = nvalues;
	rs->depth = depth;
	rs->thread = thread;
	rs->markers = regions_markers(nvalues);
	sites_init(&rs->sites, &rs->arena, nvalues, depth, thread);
}

void regions_attach(struct region_state *rs)
{
	shim_tls.regions = rs;
	shim_tls.counted = rs ? rs->counted : NULL;
	if (!shim_tls.guard)	/* else guard_leave sets it */
		shim_tls.hot = rs;
}

void regions_publish_into(struct region_state *rs, struct rf_thread *rec)
{
	rs->publish_to = rec;
	rs->publish_due = 0;	/* the next end publishes (a fork child's first) */
}

__attribute__((noinline)) void regions_publish(struct region_state *rs, const uint64_t *now)
{
	struct rf_thread *r = rs->publish_to;
	uint32_t seq;

	rs->publish_due = now[0] + arch_ticks_ms();
	if (!r)
		return;
	seq = r->live_seq + 1;
	__atomic_store_n(&r->live_seq, seq, __ATOMIC_RELAXED);
	rf_fence(__ATOMIC_RELEASE);
	for (int i = 1; i < rs->nv && i <= RF_EVENTS_MAX; i++)
		store(&r->live[i - 1], now[i]);
	store(&r->live_ticks, now[0]);
	__atomic_store_n(&r->live_seq, seq + 1, __ATOMIC_RELEASE);
}

const struct regions_entry *regions_entry(const struct region_state *rs)
{
	int wide = counters_wide(rs->counters);

	__atomic_store_n(&entry_nv, rs->nv, __ATOMIC_RELAXED);
	__atomic_store_n(&entry_wide, wide, __ATOMIC_RELAXED);
	return wide ? rs->markers->entry_wide : rs->markers->entry;
}

/* The top frame is one a fork child's parent opened (not one the child
 * opened since at the same depth): the child did not leave it open. */
static int inherited_top(const struct region_state *rs)
{
	return open_count(rs) <= rs->inherited && rs->top->start[0] <= rs->forked_at;
}

void regions_finish(struct region_state *rs, struct counters *c)
{
	uint64_t dropped = __atomic_exchange_n(&rs->reentrant, 0, __ATOMIC_RELAXED);
	uint64_t now[VALUES_MAX];
	struct frame_times times;

	if (dropped)
		regions_record_error(rs, RF_ERR_REENTRANT, 0, 0, dropped);
	if (rs->counted)
		counted_publish(rs->counted);
	regions_read_values(rs, c, now, &times);
	while (open_count(rs) > 0) {
		uint32_t id = rs->top->region;

		/* a function the program left by exit(), or a region the
		 * parent of this fork child opened: it ends there */
		if (names_source(id) == RF_FROM_FUNCTIONS || inherited_top(rs)) {
			close_top(rs, now, rs->coverage ? &times : NULL, rs->nv);
			continue;
		}
		regions_record_error(rs, RF_ERR_OPEN_AT_EXIT, id, 0, 1);
		drop_top(rs);
	}
}

static void zero_site(struct rf_site *s)
{
	s->calls = 0;
	s->child_calls = 0;
	for (uint32_t i = 0; i < s->nvalues; i++)
		s->v[i] = (struct rf_stat){ 0, 0, UINT64_MAX, 0, 0, 0 };
}

void regions_reset_record(struct rf_record *r, uint32_t thread)
{
	if (r->type == RF_SITE && ((struct rf_site *)r)->thread == thread)
		zero_site((struct rf_site *)r);
	else if (r->type == RF_ERROR && ((struct rf_error *)r)->thread == thread)
		((struct rf_error *)r)->count = 0;
}

void regions_after_fork(struct region_state *rs, struct counters *c)
{
	__atomic_store_n(&rs->reentrant, 0, __ATOMIC_RELAXED);
	for (uint32_t k = 0; k < open_count(rs); k++) {
		struct frame *f = frame_at(rs, k);
		memset(f->start, 0, sizeof(f->start));
		memset(f->child, 0, sizeof(f->child));
		memset(&f->times, 0, sizeof(f->times));
		regions_read_values(rs, c, f->start, &f->times);
		rs->forked_at = f->start[0];
	}
	rs->inherited = open_count(rs);
	if (rs->counted)	/* its sites were zeroed */
		counted_after_fork(rs->counted);
	regions_rewarm(rs);	/* the child's counters: maybe fewer, read() or narrow */
}
