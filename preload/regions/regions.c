/* Region begin/end on the calling thread. The warm path takes no lock,
 * makes no syscall (when counters are user-readable) and allocates
 * nothing: a cached site, a frame in a preallocated array, a few adds. */
#include <errno.h>
#include <string.h>

#include "regions.h"

#include "stacks/codemap.h"
#include "entry.h"
#include "guard.h"
#include "base/log.h"
#include "report/mapfile.h"
#include "names.h"

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

static inline void add(uint64_t *p, uint64_t d)
{
	store(p, load(p) + d);
}

void regions_release(struct region_state *rs)
{
	sites_release(&rs->sites);
	arena_release(&rs->arena);
	rs->frames = rs->top = rs->frames_last = rs->warm_top = NULL;
	rs->slots = NULL;
	rs->errors = NULL;
	rs->frames_cap = rs->slots_cap = 0;
	memset(rs->names, 0, sizeof(rs->names));
	memset(rs->refused, 0, sizeof(rs->refused));	/* the copies were in the arena */
}

static void rewarm(struct region_state *rs);

/* The values now, every way: serialized, with the times of multiplexed
 * groups (into t, only where the thread keeps coverage), or read(). New
 * snapshots may find the counters no longer wide (or wide again): the
 * warm path's compare follows. */
static __attribute__((noinline)) void read_values(struct region_state *rs,
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
		rewarm(rs);
}

/* The values now, on the plain path: the tick counter and the user-space
 * reads (nv: rs->nv, or the same as a constant). Returns 0 when
 * read_values must run instead (decided at setup, or the kernel moved a
 * counter meanwhile). */
static inline __attribute__((always_inline)) int read_values_fast(const struct region_state *rs,
								  const struct counters *c,
								  uint64_t *v, int nv)
{
	if (unlikely(rs->careful))
		return 0;
	v[0] = arch_ticks();
	return counters_read_fast_n(c, v + 1, nv - 1);
}

/* The same for a warm id (rs->warm_ids: not careful; wide: the counters
 * are, as the entries were installed for). */
static inline __attribute__((always_inline)) int read_values_warm(const struct counters *c,
								  uint64_t *v, int nv, int wide)
{
	v[0] = arch_ticks();
	return counters_read_snaps(c, v + 1, nv - 1, wide);
}

void regions_serialize(struct region_state *rs, int on)
{
	rs->serialize = on;
	rs->careful = rs->serialize || rs->coverage;
	rewarm(rs);
}

void regions_coverage(struct region_state *rs, int on)
{
	rs->coverage = on;
	rs->careful = rs->serialize || rs->coverage;
	rewarm(rs);
}

/* Coverage: the time each event's group was enabled and counting. */
static void charge_times(const struct region_state *rs, struct rf_site *s,
			 const struct frame *f, const struct frame_times *now)
{
	for (int i = 1; i < rs->nv; i++) {
		add(&s->v[i].enabled, now->enabled[i] - f->times.enabled[i]);
		add(&s->v[i].running, now->running[i] - f->times.running[i]);
	}
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
static void rewarm(struct region_state *rs)
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

static void begin_dropped(struct region_state *rs, uint32_t id)
{
	rs->overflow++;
	rs->warm_ids = 0;
	regions_record_error(rs, RF_ERR_TOO_DEEP, id, 0, 1);
}

/* No room for one more frame or for region id's activation count yet
 * (or begins are being dropped): make_room must run first. */
static inline int short_of_room(const struct region_state *rs, uint32_t id)
{
	return rs->overflow || !rs->frames || rs->top >= rs->frames_last || id >= rs->slots_cap;
}

/* Room for one more frame and for region id's activation count; 0 when
 * there is none (the begin is dropped). */
static __attribute__((noinline)) int make_room(struct region_state *rs, uint32_t id)
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

/* The site of the innermost open region (NULL: none), the parent of a
 * begin. */
static inline const struct rf_site *open_site(const struct region_state *rs)
{
	return rs->top->site;
}

/* A new frame for region id at site (nv: rs->nv; only the child slots in
 * use are zeroed: close_top reads no others). */
static inline __attribute__((always_inline)) struct frame *push(struct region_state *rs,
								 struct rf_site *site,
								 uint32_t id, int nv)
{
	struct frame *f = ++rs->top;

	f->site = site;
	f->slot = &rs->slots[id];
	f->region = id;
	f->slot->open++;
	f->children = 0;
#pragma GCC unroll 9
	for (int i = 0; i < nv && i < VALUES_MAX; i++)
		f->child[i] = 0;
	return f;
}

/* begin_slow (through its copies begin_slow_1 .. _9), begin_read_slow
 * and end_slow run inside the guard and leave it: the warm paths end in
 * a tail call to them, and so need no stack frame. What in them can make a system call keeps the
 * application's errno: growth (make_room), a site off the warm path
 * (sites_find: a new one, a walk), errors (errors.c), read()
 * (counters.c). */

/* A begin off the warm path: growth, a site not in its cache slot, a
 * stack to walk, or a read other than the plain one (nv: rs->nv; the
 * body of begin_slow_1 .. _9, see MARKERS_FOR: at depth > 0
 * this is the warm path). */
static inline __attribute__((always_inline)) void begin_slow(struct region_state *rs,
							     struct counters *c, uint32_t id,
							     uintptr_t caller, int nv)
{
	struct rf_site *s;
	struct frame *f;

	if (short_of_room(rs, id) && !make_room(rs, id))
		goto out;
	if (id - 1u >= rs->warm_ids && !rs->careful)	/* careful: never warm */
		rewarm(rs);
	/* the walk starts here: the frames below are the shim's own */
	if (rs->depth || !(s = sites_cached(&rs->sites, &rs->slots[id].last, id, caller,
					      open_site(rs))))
		s = sites_lookup(&rs->sites, id, caller, open_site(rs),
				 (uintptr_t)__builtin_frame_address(0));
	if (!s) {
		begin_dropped(rs, id);
		goto out;
	}
	f = push(rs, s, id, nv);
	if (!read_values_fast(rs, c, f->start, nv))
		read_values(rs, c, f->start, &f->times);
out:
	guard_leave();
}

/* The warm begin, when the user-space read could not be used. */
static __attribute__((noinline)) void begin_read_slow(struct region_state *rs,
						      struct counters *c, struct frame *f)
{
	read_values(rs, c, f->start, &f->times);
	guard_leave();
}

/* A signal handler (or malloc) interrupted the shim on this thread. */
static __attribute__((noinline)) void drop_busy(struct region_state *rs)
{
	__atomic_add_fetch(&rs->reentrant, 1, __ATOMIC_RELAXED);
	mapfile_drop(RF_DROP_BUSY);
}

typedef void begin_fn(struct region_state *rs, struct counters *c, uint32_t id,
		      uintptr_t caller);
/* begin_slow's copies: the id and caller first, where the entries
 * receive and hold them, so that their tail calls move no register. */
typedef void begin_slow_fn(uint32_t id, uintptr_t caller, struct region_state *rs,
			   struct counters *c);

/* The end of a warm path: entered, one that entry_enter let in (the
 * thread's own rs, which it gives back), else one inside the guard. */
static inline __attribute__((always_inline)) void warm_leave(struct region_state *rs, int entered)
{
	if (entered) {
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		shim_tls.hot = rs;
	} else {
		guard_leave();
	}
}

/* The begin of a warm id (rs->warm_ids), inside the guard or entered
 * (warm_leave), which it leaves (nv: rs->nv; slow: the copy of
 * begin_slow for nv). */
static inline __attribute__((always_inline)) void begin_warm(struct region_state *rs,
							     struct counters *c, uint32_t id,
							     uintptr_t caller, int nv, int wide,
							     begin_slow_fn *slow, int entered)
{
	struct frame *f;

	if (unlikely(rs->top >= rs->warm_top ||
		     !sites_memo_holds(&rs->slots[id].last, caller, open_site(rs)))) {
		slow(id, caller, rs, c);
		return;
	}
	f = push(rs, rs->slots[id].last.rec, id, nv);
	if (unlikely(!read_values_warm(c, f->start, nv, wide))) {
		begin_read_slow(rs, c, f);
		return;
	}
	warm_leave(rs, entered);
}

/* The begin of any id, inside the guard, which it leaves. */
static inline __attribute__((always_inline)) void begin_guarded(struct region_state *rs,
								struct counters *c, uint32_t id,
								uintptr_t caller, int nv,
								begin_slow_fn *slow)
{
	if (unlikely(id - 1u >= rs->warm_ids))
		slow(id, caller, rs, c);
	else
		begin_warm(rs, c, id, caller, nv, 0, slow, 0);
}

/* A name the names limit refused stays refused: the slot keeps a copy
 * of its text, so that its later markers are dropped (and counted)
 * without taking the names lock. Returns the pointer to cache, or NULL. */
static const char *remember_refused(struct region_state *rs, struct name_slot *e,
				    const char *name)
{
	char **copy = &rs->refused[e - rs->names];
	size_t len;

	if (!name || !names_limit_reached() ||
	    (!*copy && !(*copy = arena_alloc(&rs->arena, NAMES_MAX_LEN + 1))))
		return NULL;
	len = strnlen(name, NAMES_MAX_LEN);
	memcpy(*copy, name, len);
	(*copy)[len] = '\0';
	e->interned = *copy;
	return name;
}

/* A name not in its cache slot: look it up (a lock) and cache it. */
static uint32_t name_lookup(struct region_state *rs, struct name_slot *e, const char *name)
{
	int saved = errno;

	if (e->ptr != name) {	/* what was learnt of the address: kept */
		e->constant_at = 0;
		e->varies = 0;
	}
	e->id = names_intern(name, &e->interned);
	e->ptr = e->id ? name : remember_refused(rs, e, name);
	errno = saved;
	return e->id;
}

/* A name found in its slot by its text, used again: whether its text can
 * change (the first time, or the first since an object was unloaded).
 * Once per address: a buffer keeps its slot's answer when it takes new
 * text (name_lookup), else a program that makes every name anew in one
 * buffer would pay for the check (a lock, a read of the module list) at
 * each. */
static void learn_constant(struct name_slot *e, const char *name)
{
	int saved = errno;

	e->constant_at = codemap_constant((uintptr_t)name, strnlen(name, NAMES_MAX_LEN));
	e->varies = !e->constant_at;
	errno = saved;
}

static inline struct name_slot *name_slot_of(struct region_state *rs, const char *name)
{
	uintptr_t p = (uintptr_t)name;

	return &rs->names[((p >> 3) ^ (p >> 11)) & (NAME_CACHE - 1)];
}

/* Whether text equals the interned copy (to NAMES_MAX_LEN bytes, as
 * names are cut). A loop of bytes, not strncmp: run-time names are
 * short, and a call would make the name markers' path a function with a
 * frame and saved registers, which costs more than the loop. */
static inline int same_text(const char *interned, const char *text)
{
	size_t i = 0;
	char c;

	while ((c = interned[i]) == text[i]) {
		if (c == '\0')
			return 1;
		i++;
	}
	return c == '\0' && i == NAMES_MAX_LEN;	/* a longer text was cut to the copy */
}

/* The id of a name, through a per-thread cache keyed by the pointer and
 * checked against the text (the caller may reuse a buffer); 0 when the
 * marker is dropped. */
static __attribute__((noinline)) uint32_t name_id(struct region_state *rs, const char *name)
{
	struct name_slot *e = name_slot_of(rs, name);

	if (unlikely(!name || e->ptr != name || !same_text(e->interned, name)))
		return name_lookup(rs, e, name);
	if (!e->varies && e->constant_at != codemap_stamp())
		learn_constant(e, name);
	if (!e->id)
		names_drop_refused();
	return e->id;
}

/* name_id's common case, with no call (the name markers' warm path):
 * the slot holds name's pointer and an id, and the text is known not to
 * have changed (a string literal, say, with no object unloaded since:
 * no compare) or is compared. 0 otherwise: name_id decides. */
static inline __attribute__((always_inline)) uint32_t name_id_warm(struct region_state *rs,
								    const char *name)
{
	const struct name_slot *e = name_slot_of(rs, name);
	unsigned long stamp;

	if (unlikely(e->ptr != name))
		return 0;
	stamp = codemap_stamp();
	if (likely(e->constant_at == stamp) ||
	    (name && e->varies && same_text(e->interned, name)))
		return e->id;
	return 0;
}

/* A marker's guard: 0 when the shim is already busy on this thread (the
 * marker is then dropped and counted). */
static inline __attribute__((always_inline)) int marker_guard(struct region_state *rs)
{
	if (likely(guard_enter()))
		return 1;
	drop_busy(rs);
	return 0;
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
		add(&v->incl, d & whole);
		add(&v->excl, d - f->child[i]);
		if (d < load(&v->min))
			store(&v->min, d);
		if (d > load(&v->max))
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

/* Drop the top frame unmeasured. */
static void drop_top(struct region_state *rs)
{
	struct frame *f = rs->top--;

	f->slot->open--;
}

static __attribute__((noinline)) void end_unbalanced(struct region_state *rs, uint32_t id,
						     const uint64_t *now,
						     const struct frame_times *times)
{
	uint32_t k = open_count(rs);

	while (k > 0 && frame_at(rs, k - 1)->region != id)
		k--;
	if (k == 0) {
		regions_record_error(rs, RF_ERR_END_UNOPENED, id, 0, 1);
		return;
	}
	regions_record_error(rs, RF_ERR_END_MISMATCH, id,
			     rs->top->region, 1);
	while (open_count(rs) > k)
		drop_top(rs);
	close_top(rs, now, times, rs->nv);
}

/* Pop the top frame without charging its site: its cost stays in its
 * parent's exclusive value, and what closed inside it counts as closed
 * inside the parent. */
static void fold_top(struct region_state *rs)
{
	struct frame *f = rs->top--;
	struct frame *parent = f - 1;

	parent->children += f->children;
	for (int i = 0; i < rs->nv; i++)
		parent->child[i] += f->child[i];
	f->slot->open--;
}

/* An end off the warm path: a read other than the plain one, a begin
 * that was dropped, or unbalanced markers (inside the guard); a call
 * shorter than fold wall ticks is folded into its parent. */
static void end_measured(struct region_state *rs, struct counters *c, uint32_t id,
			 uint64_t fold)
{
	uint64_t now[VALUES_MAX];	/* read_values fills the first nv */
	struct frame_times times;	/* and these with coverage */
	struct frame_times *t = rs->coverage ? &times : NULL;

	read_values(rs, c, now, &times);
	if (rs->overflow) {
		if (--rs->overflow == 0)
			rewarm(rs);
		return;
	}
	if (open_count(rs) && rs->top->region == id && now[0] - rs->top->start[0] < fold)
		fold_top(rs);
	else if (open_count(rs) && rs->top->region == id)
		close_top(rs, now, t, rs->nv);
	else
		end_unbalanced(rs, id, now, t);
}

static __attribute__((noinline)) void end_slow(uint32_t id, struct region_state *rs,
					       struct counters *c)
{
	end_measured(rs, c, id, 0);
	guard_leave();
}

/* The end of a warm id (rs->warm_ids: no begin dropped, the plain
 * reads), inside the guard, which it leaves (nv: rs->nv). With no region
 * open, frames[0], the root, holds region 0, which no id is. */
static inline __attribute__((always_inline)) void end_warm(struct region_state *rs,
							   struct counters *c, uint32_t id,
							   int nv, int wide, int entered)
{
	uint64_t now[VALUES_MAX];

	if (unlikely(!read_values_warm(c, now, nv, wide) ||
		     rs->top->region != id)) {
		end_slow(id, rs, c);
		return;
	}
	close_top(rs, now, NULL, nv);
	warm_leave(rs, entered);
}

/* The end of any id, inside the guard, which it leaves. */
static inline __attribute__((always_inline)) void end_guarded(struct region_state *rs,
							      struct counters *c, uint32_t id,
							      int nv)
{
	if (unlikely(id - 1u >= rs->warm_ids))
		end_slow(id, rs, c);
	else
		end_warm(rs, c, id, nv, 0, 0);
}

/* The markers: the guard, then the begin or the end inside it. */
static inline __attribute__((always_inline)) void begin_marker(struct region_state *rs,
							       struct counters *c, uint32_t id,
							       uintptr_t caller, int nv,
							       begin_slow_fn *slow)
{
	if (marker_guard(rs))
		begin_guarded(rs, c, id, caller, nv, slow);
}

static inline __attribute__((always_inline)) void end_marker(struct region_state *rs,
							     struct counters *c, uint32_t id,
							     int nv)
{
	if (marker_guard(rs))
		end_guarded(rs, c, id, nv);
}

/* The markers of a thread with 1 to 9 values (wall time and up to 8
 * events, as the default instructions and cycles): a copy each, for
 * exactly that many values, so that the loops unroll (by pragma: the
 * counter read's asm looks large to GCC) and the values stay in
 * registers, and the guard's address is found once per marker. The name
 * markers' warm path (the name in its slot) makes no call: no stack
 * frame. */
typedef void end_fn(struct region_state *rs, struct counters *c, uint32_t id);
typedef void begin_name_fn(struct region_state *rs, struct counters *c, const char *name,
			   uintptr_t caller);
typedef void end_name_fn(struct region_state *rs, struct counters *c, const char *name);

struct markers {
	begin_fn *begin;
	end_fn *end;
	begin_name_fn *begin_name;
	end_name_fn *end_name;
	begin_fn *begin_in;		/* inside the guard, which they leave */
	end_fn *end_in;
	/* the entries for threads with these values, narrow and wide counters */
	const struct regions_entry *entry, *entry_wide;
};

/* The name markers off their warm path (inside the guard): the names
 * lock, maybe, then the copy for the thread's values. */
static __attribute__((noinline)) void begin_name_lookup(struct region_state *rs,
							const char *name, uintptr_t caller)
{
	uint32_t id = name_id(rs, name);

	if (id)
		rs->markers->begin_in(rs, rs->counters, id, caller);
	else
		guard_leave();
}

static __attribute__((noinline)) void end_name_lookup(struct region_state *rs,
						      const char *name)
{
	uint32_t id = name_id(rs, name);

	if (id)
		rs->markers->end_in(rs, rs->counters, id);
	else
		guard_leave();
}

/* The name markers once the thread is taken (entered: by entry_enter,
 * else the guard), which they leave (nv: rs->nv; slow: the copy of
 * begin_slow for nv). */
static inline __attribute__((always_inline)) void begin_name_taken(struct region_state *rs,
								   const char *name,
								   uintptr_t caller, int nv,
								   int wide, begin_slow_fn *slow,
								   int entered)
{
	uint32_t id = name_id_warm(rs, name);

	if (likely(id - 1u < rs->warm_ids))
		begin_warm(rs, rs->counters, id, caller, nv, wide, slow, entered);
	else if (id)	/* begins being dropped, other reads */
		rs->markers->begin_in(rs, rs->counters, id, caller);
	else
		begin_name_lookup(rs, name, caller);
}

static inline __attribute__((always_inline)) void end_name_taken(struct region_state *rs,
								 const char *name, int nv,
								 int wide, int entered)
{
	uint32_t id = name_id_warm(rs, name);

	if (likely(id - 1u < rs->warm_ids))
		end_warm(rs, rs->counters, id, nv, wide, entered);
	else if (id)
		rs->markers->end_in(rs, rs->counters, id);
	else
		end_name_lookup(rs, name);
}

/* The calling thread's region state when a marker may take the warm
 * path: the thread set up, the shim not busy on it (the entries are
 * called only while the process records: shim.c). The thread is then
 * busy till guard_leave. NULL otherwise (nothing taken). */
static inline __attribute__((always_inline)) struct region_state *entry_enter(void)
{
	struct shim_tls *tls = &shim_tls;
	struct region_state *rs = tls->hot;

	if (unlikely(!rs))
		return NULL;
	tls->hot = NULL;	/* busy (guard_busy), till guard_leave */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return rs;
}

/* The entries off their warm path (rs: what entry_enter gave). Apart,
 * so that the warm path computes nothing for them. */
static __attribute__((noinline)) void entry_begin_off(uint32_t id, uintptr_t caller,
						      struct region_state *rs)
{
	if (rs && names_issued_id(id)) {	/* begins being dropped, other reads */
		rs->markers->begin_in(rs, rs->counters, id, caller);
		return;
	}
	if (rs)		/* an id to check (under the names lock), the setup */
		guard_leave();
	entry_cold.begin(id, caller);
}

static __attribute__((noinline)) void entry_end_off(uint32_t id, struct region_state *rs)
{
	if (rs && names_issued_id(id)) {
		rs->markers->end_in(rs, rs->counters, id);
		return;
	}
	if (rs)
		guard_leave();
	entry_cold.end(id);
}

static inline __attribute__((always_inline)) void entry_begin(uint32_t id, uintptr_t caller,
							      int nv, int wide, begin_slow_fn *slow)
{
	struct region_state *rs = entry_enter();

	if (likely(rs && id - 1u < rs->warm_ids))
		begin_warm(rs, rs->counters, id, caller, nv, wide, slow, 1);
	else
		entry_begin_off(id, caller, rs);
}

static inline __attribute__((always_inline)) void entry_end(uint32_t id, int nv, int wide)
{
	struct region_state *rs = entry_enter();

	if (likely(rs && id - 1u < rs->warm_ids))
		end_warm(rs, rs->counters, id, nv, wide, 1);
	else
		entry_end_off(id, rs);
}

static inline __attribute__((always_inline)) void entry_begin_name(const char *name,
								   uintptr_t caller, int nv,
								   int wide, begin_slow_fn *slow)
{
	struct region_state *rs = entry_enter();

	if (rs)
		begin_name_taken(rs, name, caller, nv, wide, slow, 1);
	else
		entry_cold.begin_name(name, caller);
}

static inline __attribute__((always_inline)) void entry_end_name(const char *name, int nv,
								 int wide)
{
	struct region_state *rs = entry_enter();

	if (rs)
		end_name_taken(rs, name, nv, wide, 1);
	else
		entry_cold.end_name(name);
}

/* The entries for nv values (wide: for wide counters), which take
 * begin_slow_<nv> for the rest of the warm path at depth > 0. */
#define ENTRIES_FOR(suffix, nv, wide)                                          \
	static void entry_begin_##suffix(unsigned id)                          \
	{                                                                      \
		entry_begin(id, arch_return_address(), nv, wide, begin_slow_##nv); \
	}                                                                      \
	static void entry_end_##suffix(unsigned id)                            \
	{                                                                      \
		entry_end(id, nv, wide);                                       \
	}                                                                      \
	static void entry_begin_name_##suffix(const char *name)                \
	{                                                                      \
		entry_begin_name(name, arch_return_address(), nv, wide,        \
				 begin_slow_##nv);                             \
	}                                                                      \
	static void entry_end_name_##suffix(const char *name)                  \
	{                                                                      \
		entry_end_name(name, nv, wide);                                \
	}                                                                      \
	static const struct regions_entry entries_##suffix = {                \
		entry_begin_##suffix, entry_end_##suffix,                      \
		entry_begin_name_##suffix, entry_end_name_##suffix             \
	};

/* Wide counters are arm64's (its 64-bit user counters): elsewhere the
 * narrow entries serve them (their reads are right for any width). */
#if ARCH_WIDE_COUNTERS
#define WIDE_ENTRIES_FOR(suffix, nv) ENTRIES_FOR(suffix##_wide, nv, 1)
#define WIDE_ENTRIES(suffix) &entries_##suffix##_wide
#else
#define WIDE_ENTRIES_FOR(suffix, nv)
#define WIDE_ENTRIES(suffix) &entries_##suffix
#endif

#define MARKERS_FOR(suffix, nv)                                                \
	static __attribute__((noinline)) void begin_slow_##suffix(uint32_t id,     \
								  uintptr_t caller, \
								  struct region_state *rs, \
								  struct counters *c) \
	{                                                                      \
		begin_slow(rs, c, id, caller, nv);                             \
	}                                                                      \
	static __attribute__((noinline)) void begin_##suffix(struct region_state *rs, \
							     struct counters *c,   \
							     uint32_t id,          \
							     uintptr_t caller)     \
	{                                                                      \
		begin_marker(rs, c, id, caller, nv, begin_slow_##suffix);      \
	}                                                                      \
	static __attribute__((noinline)) void end_##suffix(struct region_state *rs, \
							   struct counters *c,     \
							   uint32_t id)            \
	{                                                                      \
		end_marker(rs, c, id, nv);                                     \
	}                                                                      \
	static __attribute__((noinline)) void begin_in_##suffix(struct region_state *rs, \
								struct counters *c, \
								uint32_t id,       \
								uintptr_t caller)  \
	{                                                                      \
		begin_guarded(rs, c, id, caller, nv, begin_slow_##suffix);     \
	}                                                                      \
	static __attribute__((noinline)) void end_in_##suffix(struct region_state *rs, \
							      struct counters *c,  \
							      uint32_t id)         \
	{                                                                      \
		end_guarded(rs, c, id, nv);                                    \
	}                                                                      \
	static __attribute__((noinline)) void begin_name_##suffix(struct region_state *rs, \
								  struct counters *c, \
								  const char *name, \
								  uintptr_t caller) \
	{                                                                      \
		(void)c;	/* rs->counters */                             \
		if (marker_guard(rs))                                          \
			begin_name_taken(rs, name, caller, nv, 0,              \
					 begin_slow_##suffix, 0);              \
	}                                                                      \
	static __attribute__((noinline)) void end_name_##suffix(struct region_state *rs, \
								struct counters *c, \
								const char *name)  \
	{                                                                      \
		(void)c;	/* rs->counters */                             \
		if (marker_guard(rs))                                          \
			end_name_taken(rs, name, nv, 0, 0);                    \
	}                                                                      \
	ENTRIES_FOR(suffix, nv, 0)                                             \
	WIDE_ENTRIES_FOR(suffix, nv)                                           \
	static const struct markers markers_##suffix = {                      \
		begin_##suffix, end_##suffix, begin_name_##suffix, end_name_##suffix, \
		begin_in_##suffix, end_in_##suffix,                            \
		&entries_##suffix, WIDE_ENTRIES(suffix)                        \
	};
MARKERS_FOR(1, 1)
MARKERS_FOR(2, 2)
MARKERS_FOR(3, 3)
MARKERS_FOR(4, 4)
MARKERS_FOR(5, 5)
MARKERS_FOR(6, 6)
MARKERS_FOR(7, 7)
MARKERS_FOR(8, 8)
MARKERS_FOR(9, 9)

static const struct markers *markers_for(int nv)
{
	static const struct markers *const copies[] = {
		NULL, &markers_1, &markers_2, &markers_3, &markers_4, &markers_5,
		&markers_6, &markers_7, &markers_8, &markers_9
	};

	_Static_assert(VALUES_MAX == 9, "a copy of the markers for each number of values");
	return copies[nv >= 1 && nv <= VALUES_MAX ? nv : 1];
}

void regions_init(struct region_state *rs, struct counters *c, int nvalues, int depth,
		  uint32_t thread)
{
	memset(rs, 0, sizeof(*rs));
	rs->counters = c;
	rs->nv = nvalues;
	rs->depth = depth;
	rs->thread = thread;
	rs->markers = markers_for(nvalues);
	sites_init(&rs->sites, &rs->arena, nvalues, depth, thread);
}

void regions_attach(struct region_state *rs)
{
	shim_tls.regions = rs;
	if (!shim_tls.guard)	/* else guard_leave sets it */
		shim_tls.hot = rs;
}

const struct regions_entry *regions_entry(const struct region_state *rs)
{
	int wide = counters_wide(rs->counters);

	__atomic_store_n(&entry_nv, rs->nv, __ATOMIC_RELAXED);
	__atomic_store_n(&entry_wide, wide, __ATOMIC_RELAXED);
	return wide ? rs->markers->entry_wide : rs->markers->entry;
}

void regions_begin(struct region_state *rs, struct counters *c, uint32_t id,
		   uintptr_t caller)
{
	rs->markers->begin(rs, c, id, caller);
}

void regions_end(struct region_state *rs, struct counters *c, uint32_t id)
{
	rs->markers->end(rs, c, id);
}

void regions_end_fold(struct region_state *rs, struct counters *c, uint32_t id,
		      uint64_t fold)
{
	if (!marker_guard(rs))
		return;
	end_measured(rs, c, id, fold);
	guard_leave();
}

void regions_begin_name(struct region_state *rs, struct counters *c, const char *name,
			uintptr_t caller)
{
	rs->markers->begin_name(rs, c, name, caller);
}

void regions_end_name(struct region_state *rs, struct counters *c, const char *name)
{
	rs->markers->end_name(rs, c, name);
}

void regions_finish(struct region_state *rs, struct counters *c)
{
	uint64_t dropped = __atomic_exchange_n(&rs->reentrant, 0, __ATOMIC_RELAXED);
	uint64_t now[VALUES_MAX];
	struct frame_times times;

	if (dropped)
		regions_record_error(rs, RF_ERR_REENTRANT, 0, 0, dropped);
	read_values(rs, c, now, &times);
	while (open_count(rs) > 0) {
		uint32_t id = rs->top->region;

		/* a function the program left by exit(): it ends there */
		if (names_source(id) == RF_FROM_FUNCTIONS) {
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
		read_values(rs, c, f->start, &f->times);
	}
	rewarm(rs);	/* the child's counters: maybe fewer, read() or narrow */
}
