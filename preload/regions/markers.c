/* The markers: region begin/end on the calling thread, the hot path. The
 * warm path takes no lock, makes no syscall (when counters are
 * user-readable) and allocates nothing: a cached site, a frame in a
 * preallocated array, a few adds. What is off it (room, warm ids, reads
 * other than the plain one, unbalanced ends, a thread's setup and end) is
 * regions.c's; what both use is in regions_impl.h.
 *
 * How the hot path is specialised. Each marker is written once, as
 * always_inline functions (begin_warm, end_warm, begin_name_taken,
 * entry_begin, ...) that take their shape as parameters, and is stamped
 * out by two macros with those parameters as compile-time constants, so
 * that GCC folds them away and no copy tests them at run time:
 *   nv       the thread's number of values, 1 .. VALUES_MAX (9: wall time
 *            and up to 8 events; rs->nv of the threads that run the
 *            copy). Constant so that the loops over the values (push,
 *            charge_top, the counter reads; `#pragma GCC unroll 9`, as the
 *            read's asm looks large to GCC) unroll fully and the values
 *            stay in registers; each copy also finds the guard's
 *            address once, and the name markers' warm path (the name in
 *            its slot) makes no call: no stack frame.
 *   wide     the counters are 64 bits wide (counters_wide: arm64's
 *            user counters, ARCH_WIDE_COUNTERS): no sign extension, one
 *            look at a page's lock (counters_read_snaps). 1 only in the
 *            _wide entries; 0 elsewhere, whose reads are right for any
 *            width.
 *   slow     begin_slow_<nv>, the begin off the warm path for the same
 *            nv: a constant, so the warm path ends in a direct tail call
 *            (its arguments ordered as the entries hold them: no move).
 *   entered  1 in the entries, which took the thread by entry_enter and
 *            give it back by storing shim_tls.hot (warm_leave); 0 in the
 *            copies that took the guard (marker_guard) and guard_leave.
 * The copies, per nv (MARKERS_FOR(nv, nv), nv = 1 .. 9, all static):
 *   begin_slow_<nv>    the begin off the warm path (noinline; at depth
 *                      > 0, where every begin walks its stack, this is
 *                      the begin's warm path);
 *   begin_<nv>, end_<nv>, begin_name_<nv>, end_name_<nv>: the markers
 *                      that take the guard (regions_begin etc.: the
 *                      exported functions and the sources);
 *   begin_in_<nv>, end_in_<nv>: the same inside the guard, for the
 *                      paths that already hold it (the name lookups, the
 *                      entries off their warm path);
 *   entry_begin_<nv>, entry_end_<nv>, entry_begin_name_<nv>,
 *   entry_end_name_<nv> (ENTRIES_FOR): whole entry points for the api
 *                      table, which find the thread themselves (one call
 *                      from the application, one thread-local look-up),
 *                      and where ARCH_WIDE_COUNTERS, _<nv>_wide copies of
 *                      them with wide = 1.
 * They are gathered per nv in a struct markers (markers_<nv>).
 * regions_init gives each thread its nv's copy (rs->markers, through
 * regions_markers); regions_entry picks the entries to install for the
 * main thread's nv and width and remembers both, and a thread whose nv
 * or width differs gets no warm ids (regions_rewarm): its entries go off
 * their warm path to its own copy (rs->markers->begin_in). Everything
 * else a marker must check at run time (begins being dropped, careful
 * reads, room, ids given out) is folded into one compare with
 * rs->warm_ids, and the stack depth into rs->warm_top.
 *
 * Publishing the running counts. So that a process killed outright keeps
 * its totals, a region end at any depth whose wall tick has reached
 * rs->publish_due stores the values it read into the thread's record
 * (rf_thread.live, under its sequence count) and sets the next due tick a
 * millisecond on (regions_publish; arch_ticks_ms: exact on arm64, at most
 * 1.05 ms of an x86-64 TSC). On the warm end that is one compare, with
 * publish_due loaded beside counters by the same instruction, and, when
 * due, a tail call to end_publish: no call, no stack frame and nothing
 * stored on the way past (a call there cost the arm64 guest's pair 13
 * instructions, 2.10x the floor). What a SIGKILL can lose: what the
 * thread counted after its last region end, and at most one millisecond
 * before it (the ends within a millisecond of a publish do not publish);
 * a thread that ends no region publishes nothing. The regions themselves
 * lose nothing (each end charges its site in the file). The publish's own
 * work, about 60 instructions at most once a millisecond, falls in the
 * regions still open around that end: 0.01% of a region at 1 instruction
 * a nanosecond, not taken out by the calibration. */
#include <errno.h>
#include <string.h>

#include "regions_impl.h"

#include "stacks/codemap.h"
#include "entry.h"
#include "guard.h"
#include "report/mapfile.h"
#include "names.h"

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

/* No room for one more frame or for region id's activation count yet
 * (or begins are being dropped): make_room must run first. */
static inline int short_of_room(const struct region_state *rs, uint32_t id)
{
	return rs->overflow || !rs->frames || rs->top >= rs->frames_last || id >= rs->slots_cap;
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
 * application's errno: growth (regions_make_room), a site off the warm path
 * (sites_find: a new one, a walk), errors (errors.c), read()
 * (counters.c). */

/* A begin off the warm path: growth, a site not in its cache slot, a
 * stack to walk, or a read other than the plain one (nv: rs->nv; the
 * body of begin_slow_1 .. _9, see MARKERS_FOR: at depth > 0
 * this is the warm path; flat: a region keyed by its call site alone at
 * any depth, begin_call_slow_1 .. _9). */
static inline __attribute__((always_inline)) void begin_slow(struct region_state *rs,
							     struct counters *c, uint32_t id,
							     uintptr_t caller, int nv, int flat)
{
	struct rf_site *s;
	struct frame *f;

	if (short_of_room(rs, id) && !regions_make_room(rs, id))
		goto out;
	if (id - 1u >= rs->warm_ids && !rs->careful)	/* careful: never warm */
		regions_rewarm(rs);
	/* the walk starts here: the frames below are the shim's own */
	if ((rs->depth && !flat) ||
	    !(s = sites_cached(&rs->sites, &rs->slots[id].last, id, caller, open_site(rs))))
		s = flat ? sites_find_call(&rs->sites, id, caller, open_site(rs))
			 : sites_lookup(&rs->sites, id, caller, open_site(rs),
					(uintptr_t)__builtin_frame_address(0));
	if (!s) {
		begin_dropped(rs, id);
		goto out;
	}
	f = push(rs, s, id, nv);
	if (!read_values_fast(rs, c, f->start, nv))
		regions_read_values(rs, c, f->start, &f->times);
out:
	guard_leave();
}

/* The warm begin, when the user-space read could not be used. */
static __attribute__((noinline)) void begin_read_slow(struct region_state *rs,
						      struct counters *c, struct frame *f)
{
	regions_read_values(rs, c, f->start, &f->times);
	guard_leave();
}

/* A signal handler (or malloc) interrupted the shim on this thread. */
static __attribute__((noinline)) void drop_busy(struct region_state *rs)
{
	__atomic_add_fetch(&rs->reentrant, 1, __ATOMIC_RELAXED);
	mapfile_drop(RF_DROP_BUSY);
}

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
 * begin_slow for nv; flat: keyed by the call site at any depth, so warm
 * up to the last frame). */
static inline __attribute__((always_inline)) void begin_warm(struct region_state *rs,
							     struct counters *c, uint32_t id,
							     uintptr_t caller, int nv, int wide,
							     begin_slow_fn *slow, int entered,
							     int flat)
{
	struct frame *f;

	if (unlikely(rs->top >= (flat ? rs->frames_last : rs->warm_top) ||
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
								begin_slow_fn *slow, int flat)
{
	if (unlikely(id - 1u >= rs->warm_ids))
		slow(id, caller, rs, c);
	else
		begin_warm(rs, c, id, caller, nv, 0, slow, 0, flat);
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

/* A function's begin (the compiler's enter hook, functions.c): keyed by
 * its call site alone at any depth (the function tree is the stack), and
 * its frame given p's key. Its own warm path, as a program built with
 * -finstrument-functions runs it at every call: a site looked up in the
 * region's memo, then in the thread's cache of sites (sites_cached), so
 * that a function called from many places costs about the same as one
 * called from one; the rest (room, warm ids, a new site) is
 * begin_call_slow's, whose frame is keyed after. Takes the guard and
 * leaves it (nv: rs->nv; slow: begin_call_slow for nv). */
static inline __attribute__((always_inline)) void begin_function(struct region_state *rs,
								 struct counters *c,
								 const struct fn_place *p,
								 int nv, begin_slow_fn *slow)
{
	uint32_t id = p->id;
	struct rf_site *s;
	struct frame *f;

	if (!marker_guard(rs))
		return;
	if (unlikely(id - 1u >= rs->warm_ids || rs->top >= rs->frames_last ||
		     !(s = sites_cached(&rs->sites, &rs->slots[id].last, id, p->site,
					open_site(rs))))) {
		size_t before = regions_top_mark(rs);

		slow(id, p->site, rs, c);
		regions_keyed(rs, before, p);
		return;
	}
	f = push(rs, s, id, nv);
	f->key = (struct fn_key){ p->cfa, p->site, p->ra, id, p->fn };
	if (unlikely(!read_values_warm(c, f->start, nv, 0))) {
		begin_read_slow(rs, c, f);
		return;
	}
	guard_leave();
}

static __attribute__((noinline)) void end_slow(uint32_t id, struct region_state *rs,
					       struct counters *c)
{
	regions_end_measured(rs, c, id, 0);
	guard_leave();
}

/* A warm end whose publish is due: the values it read are in
 * rs->live_now. Reached by a tail call, so that the warm end makes no
 * call and keeps no stack frame; still inside the guard (or entered),
 * which it leaves: a marker in a signal handler cannot publish over it. */
static __attribute__((noinline)) void end_publish(struct region_state *rs, int entered)
{
	regions_publish(rs, rs->live_now);
	warm_leave(rs, entered);
}

/* The end of a warm id (rs->warm_ids: no begin dropped, the plain
 * reads), inside the guard, which it leaves (nv: rs->nv). With no region
 * open, frames[0], the root, holds region 0, which no id is. publish_due
 * is loaded before the reads, beside counters (one load for both). */
static inline __attribute__((always_inline)) void end_warm(struct region_state *rs,
							   struct counters *c, uint32_t id,
							   int nv, int wide, int entered)
{
	uint64_t now[VALUES_MAX];
	uint64_t due = rs->publish_due;

	if (unlikely(!read_values_warm(c, now, nv, wide) ||
		     rs->top->region != id)) {
		end_slow(id, rs, c);
		return;
	}
	close_top(rs, now, NULL, nv);
	if (publish_is_due(now[0], due)) {
#pragma GCC unroll 9
		for (int i = 0; i < nv && i < VALUES_MAX; i++)
			rs->live_now[i] = now[i];
		end_publish(rs, entered);
		return;
	}
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
							       begin_slow_fn *slow, int flat)
{
	if (marker_guard(rs))
		begin_guarded(rs, c, id, caller, nv, slow, flat);
}

static inline __attribute__((always_inline)) void end_marker(struct region_state *rs,
							     struct counters *c, uint32_t id,
							     int nv)
{
	if (marker_guard(rs))
		end_guarded(rs, c, id, nv);
}

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
		begin_warm(rs, rs->counters, id, caller, nv, wide, slow, entered, 0);
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
		begin_warm(rs, rs->counters, id, caller, nv, wide, slow, 1, 0);
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
		begin_slow(rs, c, id, caller, nv, 0);                          \
	}                                                                      \
	static __attribute__((noinline)) void begin_call_slow_##suffix(uint32_t id, \
								       uintptr_t caller, \
								       struct region_state *rs, \
								       struct counters *c) \
	{                                                                      \
		begin_slow(rs, c, id, caller, nv, 1);                          \
	}                                                                      \
	static __attribute__((noinline)) void begin_function_##suffix(struct region_state *rs, \
								      struct counters *c, \
								      const struct fn_place *p) \
	{                                                                      \
		begin_function(rs, c, p, nv, begin_call_slow_##suffix);        \
	}                                                                      \
	static __attribute__((noinline)) void begin_##suffix(struct region_state *rs, \
							     struct counters *c,   \
							     uint32_t id,          \
							     uintptr_t caller)     \
	{                                                                      \
		begin_marker(rs, c, id, caller, nv, begin_slow_##suffix, 0);      \
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
		begin_guarded(rs, c, id, caller, nv, begin_slow_##suffix, 0);     \
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
		begin_in_##suffix, end_in_##suffix, begin_function_##suffix,   \
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

const struct markers *regions_markers(int nv)
{
	static const struct markers *const copies[] = {
		NULL, &markers_1, &markers_2, &markers_3, &markers_4, &markers_5,
		&markers_6, &markers_7, &markers_8, &markers_9
	};

	_Static_assert(VALUES_MAX == 9, "a copy of the markers for each number of values");
	return copies[nv >= 1 && nv <= VALUES_MAX ? nv : 1];
}

void regions_begin(struct region_state *rs, struct counters *c, uint32_t id,
		   uintptr_t caller)
{
	rs->markers->begin(rs, c, id, caller);
}

void regions_begin_function(struct region_state *rs, struct counters *c,
			    const struct fn_place *p)
{
	rs->markers->begin_function(rs, c, p);
}

void regions_end(struct region_state *rs, struct counters *c, uint32_t id)
{
	rs->markers->end(rs, c, id);
}

void regions_end_fold(struct region_state *rs, struct counters *c, uint32_t id,
		      uint64_t fold)
{
	const struct frame *f;

	if (!marker_guard(rs))
		return;
	f = rs->top;
	/* a short call folds on the tick read alone, no other value read
	 * (under min= most calls are short); the root holds region 0, which
	 * no id is */
	if (likely(!rs->overflow && rs->frames && f->region == id &&
		   arch_ticks() - f->start[0] < fold))
		fold_top(rs);
	else
		regions_end_measured(rs, c, id, fold);
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
