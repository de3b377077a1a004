/* Region begin/end on the calling thread. The warm path takes no lock,
 * makes no syscall (when counters are user-readable) and allocates
 * nothing: a cached site, a frame in a preallocated array, a few adds. */
#include <string.h>

#include "regions.h"

#include "log.h"
#include "mapfile.h"
#include "names.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Sites are read by other processes (and the exit path) while their
 * thread runs, inside the site's sequence count: relaxed atomics (plain
 * moves on x86-64 and arm64) keep that free of data races. */
static inline void store(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static inline uint64_t load(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
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
}

/* Serialized reads, or the times of multiplexed groups too. */
static __attribute__((noinline)) void read_values_careful(const struct region_state *rs,
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

/* The values now (times too, where the thread keeps coverage); one
 * branch on the common path, decided at setup. */
static inline void read_values(const struct region_state *rs, struct counters *c,
			       uint64_t *v, struct frame_times *t)
{
	if (unlikely(rs->careful)) {
		read_values_careful(rs, c, v, t);
		return;
	}
	v[0] = arch_ticks();
	counters_read(c, v + 1);
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
	s->keylen = len;
	memcpy(s->key, key, len);
	return s;
}

static int same_key(const void *item, const void *key, size_t len)
{
	const struct site *s = item;

	return s->keylen == len && memcmp(s->key, key, len) == 0;
}

static struct site *site_slow(struct region_state *rs, const uintptr_t *key, size_t len)
{
	uint64_t hash = index_hash(key, len);
	struct site *s = index_find(&rs->sites, hash, key, len, same_key);

	if (s)
		return s;
	s = site_new(rs, key, len);
	if (!s || index_add(&rs->sites, &rs->arena, hash, s) != 0)
		return NULL;
	return s;
}

static inline struct site *site_lookup(struct region_state *rs,
				       const uintptr_t *key, size_t words)
{
	size_t len = words * sizeof(uintptr_t);
	struct site **slot = &rs->cache[key_hash(key, words) & (SITE_CACHE - 1)];
	struct site *s = *slot;

	if (likely(s && s->keylen == len)) {
		size_t i = 0;
		while (i < words && s->key[i] == key[i])
			i++;
		if (likely(i == words))
			return s;
	}
	s = site_slow(rs, key, len);
	if (s)
		*slot = s;
	return s;
}

/* Depth 0: the key is the region and the return address, known without
 * a walk; a direct-mapped slot on a cheap mix of the two. */
static inline struct site *site_at_call(struct region_state *rs, uint32_t id,
					uintptr_t caller)
{
	struct site **slot = &rs->cache[(caller ^ (caller >> 9) ^ id) & (SITE_CACHE - 1)];
	struct site *s = *slot;
	uintptr_t key[2] = { id, caller };

	if (likely(s && s->key[1] == caller && s->key[0] == id && s->keylen == sizeof(key)))
		return s;
	s = site_slow(rs, key, sizeof(key));
	if (s)
		*slot = s;
	return s;
}

/* Grow a zero-filled array to more than `need` items (doubling; the old
 * copy stays in the arena until the thread ends). */
static int grow_zeroed(struct arena *a, void **array, uint32_t *cap, size_t item,
		       uint32_t need, uint32_t limit)
{
	uint32_t n = *cap ? *cap : 32;
	char *p;

	while (n <= need)
		n *= 2;
	if (n > limit || !(p = arena_alloc(a, n * item)))
		return -1;
	if (*cap)
		memcpy(p, *array, *cap * item);
	*array = p;
	*cap = n;
	return 0;
}

/* New frames start zeroed: slots of events this thread lacks read as 0. */
static int grow_frames(struct region_state *rs)
{
	return grow_zeroed(&rs->arena, (void **)&rs->frames, &rs->frames_cap,
			   sizeof(struct frame), rs->nframes, FRAMES_MAX);
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

void regions_begin(struct region_state *rs, struct counters *c, uint32_t id,
		   uintptr_t caller)
{
	uintptr_t key[1 + STACKS_MAX_FRAMES];
	struct site *s;
	struct frame *f;
	int n;

	if (unlikely(rs->overflow || (rs->nframes == rs->frames_cap && grow_frames(rs))) ||
	    unlikely(id >= rs->active_cap && grow_active(rs, id))) {
		begin_dropped(rs, id);
		return;
	}
	if (rs->depth == 0) {
		s = site_at_call(rs, id, caller);
	} else {
		key[0] = id;
		key[1] = caller;
		n = stacks_capture(caller, rs->depth, key + 1);
		s = site_lookup(rs, key, (size_t)n + 1);
	}
	if (unlikely(!s)) {
		begin_dropped(rs, id);
		return;
	}
	f = &rs->frames[rs->nframes++];
	f->site = s;
	f->region = id;
	f->outer = rs->active[id]++ == 0;
	f->children = 0;
	memset(f->child, 0, sizeof(f->child));	/* fixed size: inline stores */
	read_values(rs, c, f->start, &f->times);
}

/* Pop the top frame, charging `now` to its site and to its parent. */
static void close_top(struct region_state *rs, const uint64_t *now,
		      const struct frame_times *times)
{
	struct frame *f = &rs->frames[--rs->nframes];
	struct frame *parent = rs->nframes ? f - 1 : NULL;
	struct rf_site *s = f->site->rec;

	rf_site_write_begin(s);
	add(&s->calls, 1);
	add(&s->child_calls, f->children);
	if (parent)
		parent->children++;
	for (int i = 0; i < rs->nv; i++) {
		struct rf_stat *v = &s->v[i];
		uint64_t d = now[i] - f->start[i];
		if (f->outer)
			add(&v->incl, d);
		add(&v->excl, d - f->child[i]);
		if (d < load(&v->min))
			store(&v->min, d);
		if (d > load(&v->max))
			store(&v->max, d);
		if (parent)
			parent->child[i] += d;
	}
	if (unlikely(rs->coverage))
		charge_times(rs, s, f, times);
	rf_site_write_end(s);
	rs->active[f->region]--;
}

/* Drop the top frame unmeasured. */
static void drop_top(struct region_state *rs)
{
	struct frame *f = &rs->frames[--rs->nframes];

	rs->active[f->region]--;
}

static void end_unbalanced(struct region_state *rs, uint32_t id, const uint64_t *now,
			   const struct frame_times *times)
{
	uint32_t k = rs->nframes;

	while (k > 0 && rs->frames[k - 1].region != id)
		k--;
	if (k == 0) {
		regions_record_error(rs, RF_ERR_END_UNOPENED, id, 0, 1);
		return;
	}
	regions_record_error(rs, RF_ERR_END_MISMATCH, id,
			     rs->frames[rs->nframes - 1].region, 1);
	while (rs->nframes > k)
		drop_top(rs);
	close_top(rs, now, times);
}

void regions_end(struct region_state *rs, struct counters *c, uint32_t id)
{
	uint64_t now[VALUES_MAX];	/* read_values fills the first nv */
	struct frame_times times;	/* and these with coverage */

	read_values(rs, c, now, &times);
	if (unlikely(rs->overflow)) {
		rs->overflow--;
		return;
	}
	if (likely(rs->nframes && rs->frames[rs->nframes - 1].region == id))
		close_top(rs, now, &times);
	else
		end_unbalanced(rs, id, now, &times);
}

uint32_t regions_name_id(struct region_state *rs, const char *name)
{
	uintptr_t p = (uintptr_t)name;
	struct name_slot *e = &rs->names[((p >> 3) ^ (p >> 11)) & (NAME_CACHE - 1)];

	if (name && likely(e->ptr == name) &&
	    strncmp(e->interned, name, NAMES_MAX_LEN) == 0)
		return e->id;
	e->id = names_intern(name, &e->interned);
	e->ptr = e->id ? name : NULL;
	return e->id;
}

void regions_finish(struct region_state *rs)
{
	while (rs->nframes > 0) {
		regions_record_error(rs, RF_ERR_OPEN_AT_EXIT,
				     rs->frames[rs->nframes - 1].region, 0, 1);
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
	for (uint32_t k = 0; k < rs->nframes; k++) {
		memset(rs->frames[k].start, 0, sizeof(rs->frames[k].start));
		memset(rs->frames[k].child, 0, sizeof(rs->frames[k].child));
		memset(&rs->frames[k].times, 0, sizeof(rs->frames[k].times));
		read_values(rs, c, rs->frames[k].start, &rs->frames[k].times);
	}
}
