/* Region begin/end on the calling thread. The warm path takes no lock,
 * makes no syscall (when counters are user-readable) and allocates
 * nothing: a cached site, a frame in a preallocated array, a few adds. */
#include "regions.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "names.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Sites are read by the exit-time report while their thread may still
 * run, so their numbers are stored with relaxed atomics (plain moves on
 * x86-64 and arm64). */
static inline void store(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static inline void add(uint64_t *p, uint64_t d)
{
	store(p, regions_load(p) + d);
}

void regions_init(struct region_state *rs, int nvalues, int depth)
{
	memset(rs, 0, sizeof(*rs));
	pthread_mutex_init(&rs->lock, NULL);
	rs->nv = nvalues;
	rs->depth = depth;
}

static inline void read_values(struct counters *c, uint64_t *v)
{
	v[0] = arch_ticks();
	counters_read(c, v + 1);
}

static inline uint32_t key_hash(const uintptr_t *key, size_t words)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < words; i++)
		h = (h ^ key[i]) * 0xff51afd7ed558ccdull;
	return (uint32_t)(h >> 32);
}

static struct site *site_new(const uintptr_t *key, size_t len, int nv)
{
	struct site *s = calloc(1, sizeof(*s) + len);

	if (!s)
		return NULL;
	s->stack = stacks_intern(key + 1, (int)(len / sizeof(uintptr_t)) - 1);
	s->region = (uint32_t)key[0];
	s->keylen = len;
	memcpy(s->key, key, len);
	for (int i = 0; i < nv; i++)
		s->min[i] = UINT64_MAX;
	return s;
}

static struct site *site_slow(struct region_state *rs, const uintptr_t *key, size_t len)
{
	struct site *s;

	HASH_FIND(hh, rs->table, key, len, s);
	if (s)
		return s;
	s = site_new(key, len, rs->nv);
	if (!s)
		return NULL;
	pthread_mutex_lock(&rs->lock);
	HASH_ADD(hh, rs->table, key, len, s);
	s->next = rs->list;
	rs->list = s;
	pthread_mutex_unlock(&rs->lock);
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

/* Grow a zero-filled array to more than `need` items (doubling). */
static int grow_zeroed(void **array, uint32_t *cap, size_t item, uint32_t need,
		       uint32_t limit)
{
	uint32_t n = *cap ? *cap : 32;
	char *p;

	while (n <= need)
		n *= 2;
	if (n > limit)
		return -1;
	p = realloc(*array, n * item);
	if (!p)
		return -1;
	memset(p + *cap * item, 0, (n - *cap) * item);
	*array = p;
	*cap = n;
	return 0;
}

/* New frames start zeroed: slots of events this thread lacks read as 0. */
static int grow_frames(struct region_state *rs)
{
	return grow_zeroed((void **)&rs->frames, &rs->frames_cap, sizeof(struct frame),
			   rs->nframes, FRAMES_MAX);
}

static int grow_active(struct region_state *rs, uint32_t id)
{
	return grow_zeroed((void **)&rs->active, &rs->active_cap, sizeof(uint32_t),
			   id, UINT32_MAX / 2);
}

static void begin_dropped(struct region_state *rs, uint32_t id)
{
	rs->overflow++;
	regions_record_error(rs, ERR_TOO_DEEP, id, 0, 1);
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
	key[0] = id;
	key[1] = caller;
	n = rs->depth ? stacks_capture(caller, rs->depth, key + 1) : 1;
	s = site_lookup(rs, key, (size_t)n + 1);
	if (unlikely(!s)) {
		begin_dropped(rs, id);
		return;
	}
	f = &rs->frames[rs->nframes++];
	f->site = s;
	f->region = id;
	f->outer = rs->active[id]++ == 0;
	memset(f->child, 0, sizeof(f->child));	/* fixed size: inline stores */
	read_values(c, f->start);
}

/* Pop the top frame, charging `now` to its site and to its parent. */
static void close_top(struct region_state *rs, const uint64_t *now)
{
	struct frame *f = &rs->frames[--rs->nframes];
	struct frame *parent = rs->nframes ? f - 1 : NULL;
	struct site *s = f->site;

	add(&s->calls, 1);
	for (int i = 0; i < rs->nv; i++) {
		uint64_t d = now[i] - f->start[i];
		if (f->outer)
			add(&s->incl[i], d);
		add(&s->excl[i], d - f->child[i]);
		if (d < regions_load(&s->min[i]))
			store(&s->min[i], d);
		if (d > regions_load(&s->max[i]))
			store(&s->max[i], d);
		if (parent)
			parent->child[i] += d;
	}
	rs->active[f->region]--;
}

/* Drop the top frame unmeasured. */
static void drop_top(struct region_state *rs)
{
	struct frame *f = &rs->frames[--rs->nframes];

	rs->active[f->region]--;
}

static void end_unbalanced(struct region_state *rs, uint32_t id, const uint64_t *now)
{
	uint32_t k = rs->nframes;

	while (k > 0 && rs->frames[k - 1].region != id)
		k--;
	if (k == 0) {
		regions_record_error(rs, ERR_END_UNOPENED, id, 0, 1);
		return;
	}
	regions_record_error(rs, ERR_END_MISMATCH, id,
			     rs->frames[rs->nframes - 1].region, 1);
	while (rs->nframes > k)
		drop_top(rs);
	close_top(rs, now);
}

void regions_end(struct region_state *rs, struct counters *c, uint32_t id)
{
	uint64_t now[VALUES_MAX];	/* read_values fills the first nv */

	read_values(c, now);
	if (unlikely(rs->overflow)) {
		rs->overflow--;
		return;
	}
	if (likely(rs->nframes && rs->frames[rs->nframes - 1].region == id))
		close_top(rs, now);
	else
		end_unbalanced(rs, id, now);
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
		regions_record_error(rs, ERR_OPEN_AT_EXIT,
				     rs->frames[rs->nframes - 1].region, 0, 1);
		drop_top(rs);
	}
}

void regions_after_fork(struct region_state *rs, struct counters *c)
{
	pthread_mutex_init(&rs->lock, NULL);
	for (struct site *s = rs->list; s; s = s->next) {
		s->calls = 0;
		for (int i = 0; i < rs->nv; i++) {
			s->incl[i] = s->excl[i] = s->max[i] = 0;
			s->min[i] = UINT64_MAX;
		}
	}
	while (rs->errors) {
		struct region_error_rec *e = rs->errors;
		rs->errors = e->next;
		free(e);
	}
	for (uint32_t k = 0; k < rs->nframes; k++) {
		memset(rs->frames[k].start, 0, sizeof(rs->frames[k].start));
		memset(rs->frames[k].child, 0, sizeof(rs->frames[k].child));
		read_values(c, rs->frames[k].start);
	}
}
