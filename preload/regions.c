/* Region begin/end on the calling thread. The warm path takes no lock,
 * makes no syscall (when counters are user-readable) and allocates
 * nothing: a cached site, a frame in a preallocated array, a few adds. */
#include <errno.h>
#include <string.h>

#include "regions.h"

#include "guard.h"
#include "log.h"
#include "mapfile.h"
#include "names.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Sites are read by other processes (and the exit path) while their
 * thread runs, inside the site's sequence count: relaxed atomic stores
 * (plain moves on x86-64 and arm64) keep that free of data races. Loads
 * need none: the thread is its sites' only writer, and reads do not race
 * with reads (plain loads also keep offset addressing, which GCC's arm64
 * atomics give up: one instruction less per value). */
static inline void store(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static inline uint64_t load(const uint64_t *p)
{
	return *p;
}

static inline void add(uint64_t *p, uint64_t d)
{
	store(p, load(p) + d);
}

void regions_init(struct region_state *rs, int nvalues, int depth, uint32_t thread)
{
	memset(rs, 0, sizeof(*rs));
	rs->nv = nvalues;
	rs->depth = depth;
	rs->thread = thread;
}

void regions_release(struct region_state *rs)
{
	arena_release(&rs->arena);
	index_release(&rs->sites);
	rs->frames = NULL;
	rs->active = NULL;
	rs->errors = NULL;
	rs->frames_cap = rs->active_cap = rs->nframes = 0;
	memset(rs->cache, 0, sizeof(rs->cache));
	memset(rs->names, 0, sizeof(rs->names));	/* refused copies were in the arena */
}

/* The values now, every way: serialized, with the times of multiplexed
 * groups (into t, only where the thread keeps coverage), or read(). */
static __attribute__((noinline)) void read_values(const struct region_state *rs,
						  struct counters *c, uint64_t *v,
						  struct frame_times *t)
{
	if (rs->serialize)
		arch_barrier();
	v[0] = arch_ticks();
	if (rs->coverage)
		counters_read_times(c, v + 1, t->enabled + 1, t->running + 1);
	else
		counters_read(c, v + 1);
	if (rs->serialize)
		arch_barrier();
}

/* The values now, on the plain path: the tick counter and the user-space
 * reads. Returns 0 when read_values must run instead (decided at setup,
 * or the kernel moved a counter meanwhile). */
static inline __attribute__((always_inline)) int read_values_fast(const struct region_state *rs,
				   const struct counters *c, uint64_t *v)
{
	if (unlikely(rs->careful))
		return 0;
	v[0] = arch_ticks();
	return counters_read_fast(c, v + 1);
}

void regions_serialize(struct region_state *rs, int on)
{
	rs->serialize = on;
	rs->careful = rs->serialize || rs->coverage;
}

void regions_coverage(struct region_state *rs, int on)
{
	rs->coverage = on;
	rs->careful = rs->serialize || rs->coverage;
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

/* A cheap mix for the cache slot of a walked stack: every depth > 0
 * marker computes it, and index_hash (the index's, stronger) costs about
 * 20 instructions more per pair; a collision only costs an index probe. */
static inline uint32_t key_hash(const uintptr_t *key, size_t words)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < words; i++)
		h = (h ^ key[i]) * 0xff51afd7ed558ccdull;
	return (uint32_t)(h >> 32);
}

static struct rf_site *site_record(struct region_state *rs, uint32_t region,
				   uint32_t stack)
{
	struct rf_site *rec = mapfile_append(RF_SITE, rf_site_size((uint32_t)rs->nv));

	if (!rec)
		return NULL;
	rec->thread = rs->thread;
	rec->region = region;
	rec->stack = stack;
	rec->nvalues = (uint32_t)rs->nv;
	for (int i = 0; i < rs->nv; i++)
		rec->v[i].min = UINT64_MAX;
	mapfile_publish(rec);
	return rec;
}

static struct site *site_new(struct region_state *rs, const uintptr_t *key, size_t len)
{
	int method = rs->depth ? stacks_last_method() : RF_STACK_CALLER;
	uint32_t stack = stacks_intern(key + 1, (int)(len / sizeof(uintptr_t)) - 1, method);
	struct site *s;

	if (stack == UINT32_MAX || !(s = arena_alloc(&rs->arena, sizeof(*s) + len)))
		return NULL;
	s->rec = site_record(rs, (uint32_t)key[0], stack);
	if (!s->rec)
		return NULL;
	s->trail = NULL;
	s->trail_n = s->trail_cap = 0;
	s->keylen = len;
	memcpy(s->key, key, len);
	return s;
}

static int same_key(const void *item, const void *key, size_t len)
{
	const struct site *s = item;

	return s->keylen == len && memcmp(s->key, key, len) == 0;
}

static __attribute__((noinline)) struct site *site_slow(struct region_state *rs,
							 const uintptr_t *key, size_t len)
{
	uint64_t hash = index_hash(key, len);
	struct site *s = index_find(&rs->sites, hash, key, len, same_key);
	int saved = errno;

	if (s)
		return s;
	if (index_reserve(&rs->sites, &rs->arena) == 0 && (s = site_new(rs, key, len)))
		index_add(&rs->sites, &rs->arena, hash, s);	/* reserved: cannot fail */
	errno = saved;
	return s;
}

static inline struct site *site_lookup(struct region_state *rs,
				       const uintptr_t *key, size_t words)
{
	size_t len = words * sizeof(uintptr_t);
	struct site **slot = &rs->cache[key_hash(key, words) & (SITE_CACHE - 1)];
	struct site *s = *slot;

	if (likely(s && s->keylen == len && memcmp(s->key, key, len) == 0))
		return s;
	s = site_slow(rs, key, len);
	if (s)
		*slot = s;
	return s;
}

/* The slot of a call: its region and return address, known without a
 * walk; a direct-mapped slot on a cheap mix of the two. At depth 0 they
 * are the whole key; at depth > 0 the slot holds the call's last site
 * (site_walked), and shares the array with site_lookup's slots. */
static inline struct site **call_slot(struct region_state *rs, uint32_t id,
				      uintptr_t caller)
{
	return &rs->cache[(caller ^ (caller >> 9) ^ id) & (SITE_CACHE - 1)];
}

/* NULL when the slot holds another call's site (see site_at_call).
 * Every key is at least these two words long. */
static inline struct site *site_cached(struct region_state *rs, uint32_t id,
				       uintptr_t caller)
{
	struct site *s = *call_slot(rs, id, caller);

	if (likely(s && s->key[1] == caller && s->key[0] == id))
		return s;
	return NULL;
}

static struct site *site_at_call(struct region_state *rs, uint32_t id, uintptr_t caller)
{
	uintptr_t key[2] = { id, caller };
	struct site *s = site_cached(rs, id, caller);

	if (!s && (s = site_slow(rs, key, sizeof(key))))
		*call_slot(rs, id, caller) = s;
	return s;
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
static int grow_frames(struct region_state *rs)
{
	return grow_zeroed(&rs->arena, (void **)&rs->frames, &rs->frames_cap,
			   sizeof(struct frame), rs->nframes + 1, FRAMES_MAX + 1);
}

/* The k-th open region, from the outermost (0). */
static inline struct frame *frame_at(struct region_state *rs, uint32_t k)
{
	return &rs->frames[k + 1];
}

static int grow_active(struct region_state *rs, uint32_t id)
{
	return grow_zeroed(&rs->arena, (void **)&rs->active, &rs->active_cap,
			   sizeof(uint32_t), id, UINT32_MAX / 2);
}

static void begin_dropped(struct region_state *rs, uint32_t id)
{
	rs->overflow++;
	regions_record_error(rs, RF_ERR_TOO_DEEP, id, 0, 1);
}

/* Keep the records a walk read, for site_walked's next look. */
static void keep_trail(struct region_state *rs, struct site *s, const struct fpwalk_trail *t)
{
	size_t bytes = (size_t)t->n * sizeof(t->rec[0]);
	int saved = errno;	/* a new arena chunk makes system calls */

	if (t->n > s->trail_cap) {
		struct fpwalk_record *rec = arena_alloc(&rs->arena, bytes);

		s->trail_n = 0;
		if (!rec)
			goto out;
		s->trail = rec;
		s->trail_cap = t->n;
	}
	memcpy(s->trail, t->rec, bytes);
	s->trail_n = t->n;
out:
	errno = saved;
}

/* Depth > 0: the site of the walked stack (out of line: the key array
 * would make every marker set up a large stack frame). */
static __attribute__((noinline)) struct site *site_of_stack(struct region_state *rs,
							     uint32_t id, uintptr_t caller,
							     uintptr_t start)
{
	uintptr_t key[1 + STACKS_MAX_FRAMES];
	struct fpwalk_trail trail;
	struct site *s;
	int n;

	key[0] = id;
	n = stacks_capture(start, caller, rs->depth, key + 1, &trail);
	s = site_lookup(rs, key, (size_t)n + 1);
	if (s && trail.n) {
		keep_trail(rs, s, &trail);
		*call_slot(rs, id, caller) = s;
	}
	return s;
}

/* Depth > 0: the site this call reached last, when the frame records
 * from start still hold what the walk to it read (so a walk would find
 * the same stack); else a walk. A loop's markers see the same stack
 * every time: a compare per word instead of the walk's checks, the key's
 * hash and its compare. */
static inline struct site *site_walked(struct region_state *rs, uint32_t id,
				       uintptr_t caller, uintptr_t start)
{
	struct site *s = site_cached(rs, id, caller);

	if (s && fpwalk_same(start, s->trail, s->trail_n))
		return s;
	return site_of_stack(rs, id, caller, start);
}

/* No room for one more frame or for region id's activation count yet
 * (or begins are being dropped): make_room must run first. */
static inline int short_of_room(const struct region_state *rs, uint32_t id)
{
	return rs->overflow || rs->nframes + 1 >= rs->frames_cap || id >= rs->active_cap;
}

/* Room for one more frame and for region id's activation count; 0 when
 * there is none (the begin is dropped). */
static __attribute__((noinline)) int make_room(struct region_state *rs, uint32_t id)
{
	int saved = errno, ok = 1;

	if (rs->overflow || (rs->nframes + 1 >= rs->frames_cap && grow_frames(rs)) ||
	    (id >= rs->active_cap && grow_active(rs, id))) {
		begin_dropped(rs, id);
		ok = 0;
	}
	errno = saved;
	return ok;
}

static inline struct frame *push(struct region_state *rs, struct site *s, uint32_t id)
{
	struct frame *f = &rs->frames[++rs->nframes];

	f->site = s->rec;
	f->region = id;
	f->outer = rs->active[id]++ == 0;
	f->children = 0;
	memset(f->child, 0, sizeof(f->child));	/* fixed size: inline stores */
	return f;
}

/* begin_slow, begin_read_slow and end_slow run inside the guard and
 * leave it: the warm paths end in a tail call to them, and so need no
 * stack frame. What in them can make a system call keeps the
 * application's errno: growth (make_room), a new site (site_slow), the
 * stack walk's first look at its thread and libunwind (stacks.c),
 * errors (errors.c), read() (counters.c). */

/* A begin off the warm path: growth, a site not in its cache slot, a
 * stack to walk, or a read other than the plain one. */
static __attribute__((noinline)) void begin_slow(struct region_state *rs, struct counters *c,
						 uint32_t id, uintptr_t caller)
{
	struct site *s;
	struct frame *f;

	if (short_of_room(rs, id) && !make_room(rs, id))
		goto out;
	/* the walk starts here: the frames below are the shim's own */
	s = rs->depth ? site_walked(rs, id, caller, (uintptr_t)__builtin_frame_address(0))
		      : site_at_call(rs, id, caller);
	if (!s) {
		begin_dropped(rs, id);
		goto out;
	}
	f = push(rs, s, id);
	if (!read_values_fast(rs, c, f->start))
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

/* The begin, inside the guard, which it leaves. */
static inline __attribute__((always_inline)) void begin_guarded(struct region_state *rs,
								struct counters *c, uint32_t id,
								uintptr_t caller)
{
	struct site *s;
	struct frame *f;

	if (unlikely(rs->depth || short_of_room(rs, id) || !(s = site_cached(rs, id, caller)))) {
		begin_slow(rs, c, id, caller);
		return;
	}
	f = push(rs, s, id);
	if (unlikely(!read_values_fast(rs, c, f->start))) {
		begin_read_slow(rs, c, f);
		return;
	}
	guard_leave();
}

void regions_begin(struct region_state *rs, struct counters *c, uint32_t id,
		   uintptr_t caller)
{
	if (unlikely(!guard_enter())) {
		drop_busy(rs);
		return;
	}
	begin_guarded(rs, c, id, caller);
}

/* A name the names limit refused stays refused: the slot keeps a copy
 * of its text, so that its later markers are dropped (and counted)
 * without taking the names lock. Returns the pointer to cache, or NULL. */
static const char *remember_refused(struct region_state *rs, struct name_slot *e,
				    const char *name)
{
	size_t len;

	if (!name || !names_limit_reached() ||
	    (!e->refused && !(e->refused = arena_alloc(&rs->arena, NAMES_MAX_LEN + 1))))
		return NULL;
	len = strnlen(name, NAMES_MAX_LEN);
	memcpy(e->refused, name, len);
	e->refused[len] = '\0';
	e->interned = e->refused;
	return name;
}

/* A name not in its cache slot: look it up (a lock) and cache it. */
static __attribute__((noinline)) uint32_t name_lookup(struct region_state *rs,
						      struct name_slot *e, const char *name)
{
	int saved = errno;

	e->id = names_intern(name, &e->interned);
	e->ptr = e->id ? name : remember_refused(rs, e, name);
	errno = saved;
	return e->id;
}

/* The id of a name, through a per-thread cache keyed by the pointer (and
 * checked against the text: the caller may reuse a buffer). */
static inline uint32_t name_id(struct region_state *rs, const char *name)
{
	uintptr_t p = (uintptr_t)name;
	struct name_slot *e = &rs->names[((p >> 3) ^ (p >> 11)) & (NAME_CACHE - 1)];

	if (name && likely(e->ptr == name) &&
	    strncmp(e->interned, name, NAMES_MAX_LEN) == 0) {
		if (unlikely(!e->id))
			names_drop_refused();
		return e->id;
	}
	return name_lookup(rs, e, name);
}

/* The guard, then the name's id: 0 (and the guard left) when the marker
 * is dropped. */
static inline uint32_t enter_name(struct region_state *rs, const char *name)
{
	uint32_t id;

	if (unlikely(!guard_enter())) {
		drop_busy(rs);
		return 0;
	}
	id = name_id(rs, name);
	if (unlikely(!id))
		guard_leave();
	return id;
}

void regions_begin_name(struct region_state *rs, struct counters *c, const char *name,
			uintptr_t caller)
{
	uint32_t id = enter_name(rs, name);

	if (id)
		begin_guarded(rs, c, id, caller);
}

/* Pop the top frame, charging `now` to its site and to its parent. */
static inline __attribute__((always_inline)) void close_top(struct region_state *rs,
							    const uint64_t *now,
							    const struct frame_times *times)
{
	struct frame *f = &rs->frames[rs->nframes--];
	struct frame *parent = f - 1;	/* the root, for an outermost region */
	struct rf_site *s = f->site;
	int nv = rs->nv;
	uint64_t whole = f->outer ? UINT64_MAX : 0;	/* recursion adds nothing to incl */
	uint32_t seq = rf_site_write_begin(s);

	add(&s->calls, 1);
	add(&s->child_calls, f->children);
	parent->children++;
	for (int i = 0; i < nv; i++) {
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
	rs->active[f->region]--;
}

/* Drop the top frame unmeasured. */
static void drop_top(struct region_state *rs)
{
	struct frame *f = &rs->frames[rs->nframes--];

	rs->active[f->region]--;
}

static __attribute__((noinline)) void end_unbalanced(struct region_state *rs, uint32_t id,
						     const uint64_t *now,
						     const struct frame_times *times)
{
	uint32_t k = rs->nframes;

	while (k > 0 && frame_at(rs, k - 1)->region != id)
		k--;
	if (k == 0) {
		regions_record_error(rs, RF_ERR_END_UNOPENED, id, 0, 1);
		return;
	}
	regions_record_error(rs, RF_ERR_END_MISMATCH, id,
			     frame_at(rs, rs->nframes - 1)->region, 1);
	while (rs->nframes > k)
		drop_top(rs);
	close_top(rs, now, times);
}

/* An end off the warm path: a read other than the plain one, a begin
 * that was dropped, or unbalanced markers (inside the guard). */
static void end_measured(struct region_state *rs, struct counters *c, uint32_t id)
{
	uint64_t now[VALUES_MAX];	/* read_values fills the first nv */
	struct frame_times times;	/* and these with coverage */
	struct frame_times *t = rs->coverage ? &times : NULL;

	read_values(rs, c, now, &times);
	if (rs->overflow) {
		rs->overflow--;
		return;
	}
	if (rs->nframes && rs->frames[rs->nframes].region == id)
		close_top(rs, now, t);
	else
		end_unbalanced(rs, id, now, t);
}

static __attribute__((noinline)) void end_slow(struct region_state *rs, struct counters *c,
					       uint32_t id)
{
	end_measured(rs, c, id);
	guard_leave();
}

/* The end, inside the guard, which it leaves. */
static inline __attribute__((always_inline)) void end_guarded(struct region_state *rs,
							      struct counters *c, uint32_t id)
{
	uint64_t now[VALUES_MAX];

	if (unlikely(!read_values_fast(rs, c, now) || rs->overflow || !rs->nframes ||
		     rs->frames[rs->nframes].region != id)) {
		end_slow(rs, c, id);
		return;
	}
	close_top(rs, now, NULL);
	guard_leave();
}

void regions_end(struct region_state *rs, struct counters *c, uint32_t id)
{
	if (unlikely(!guard_enter())) {
		drop_busy(rs);
		return;
	}
	end_guarded(rs, c, id);
}

void regions_end_name(struct region_state *rs, struct counters *c, const char *name)
{
	uint32_t id = enter_name(rs, name);

	if (id)
		end_guarded(rs, c, id);
}

void regions_finish(struct region_state *rs)
{
	uint64_t dropped = __atomic_exchange_n(&rs->reentrant, 0, __ATOMIC_RELAXED);

	if (dropped)
		regions_record_error(rs, RF_ERR_REENTRANT, 0, 0, dropped);
	while (rs->nframes > 0) {
		regions_record_error(rs, RF_ERR_OPEN_AT_EXIT,
				     frame_at(rs, rs->nframes - 1)->region, 0, 1);
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
	for (uint32_t k = 0; k < rs->nframes; k++) {
		struct frame *f = frame_at(rs, k);
		memset(f->start, 0, sizeof(f->start));
		memset(f->child, 0, sizeof(f->child));
		memset(&f->times, 0, sizeof(f->times));
		read_values(rs, c, f->start, &f->times);
	}
}
