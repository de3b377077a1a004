/* Sites: the cache, the index, and the records in the report file. */
#include "sites.h"

#include <errno.h>
#include <string.h>

#include "report/mapfile.h"
#include "stacks/stacks.h"

void sites_init(struct sites *ss, struct arena *arena, int nvalues, int depth,
		uint32_t thread)
{
	memset(ss, 0, sizeof(*ss));
	ss->arena = arena;
	ss->nv = nvalues;
	ss->depth = depth;
	ss->thread = thread;
	ss->cache = ss->cache_first;
	ss->cache_mask = SITE_CACHE - 1;
}

void sites_release(struct sites *ss)
{
	index_release(&ss->index);
	memset(ss->cache_first, 0, sizeof(ss->cache_first));
	ss->cache = ss->cache_first;
	ss->cache_mask = SITE_CACHE - 1;
}

/* A larger cache, empty, once the thread has twice as many sites as
 * slots (the old one stays in the arena: a slot pointer taken before may
 * still be written). No memory: the old one serves. */
static void grow_cache(struct sites *ss)
{
	size_t n = ((size_t)ss->cache_mask + 1) * 8;
	struct site **c;

	if (n > SITE_CACHE_MAX || ss->index.count < 2 * ((size_t)ss->cache_mask + 1) ||
	    !(c = arena_alloc(ss->arena, n * sizeof(*c))))
		return;
	ss->cache = c;
	ss->cache_mask = (uint32_t)n - 1;
}

/* The cache slot of a walked stack's key, on a cheap mix of its words:
 * every walk computes it, and index_hash (the index's, stronger) costs
 * about 20 instructions more per pair; a collision only costs an index
 * probe. */
static inline struct site **key_slot(struct sites *ss, const uintptr_t *key, size_t words)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < words; i++)
		h = (h ^ key[i]) * 0xff51afd7ed558ccdull;
	return &ss->cache[(h >> 32) & ss->cache_mask];
}

/* A site's parent as the file holds it: its record's offset (the file
 * is below 4 GiB; a fork child's copy is mapped at the same address). */
static uint32_t parent_offset(const struct rf_site *parent)
{
	return parent ? (uint32_t)((const char *)parent - (const char *)mapfile_header()) : 0;
}

static struct rf_site *site_record(struct sites *ss, uint32_t region, uint32_t stack,
				   const struct rf_site *parent)
{
	struct rf_site *rec = mapfile_append(RF_SITE, rf_site_size((uint32_t)ss->nv));

	if (!rec)
		return NULL;
	rec->thread = ss->thread;
	rec->region = region;
	rec->stack = stack;
	rec->parent = parent_offset(parent);
	rec->nvalues = (uint32_t)ss->nv;
	for (int i = 0; i < ss->nv; i++)
		rec->v[i].min = UINT64_MAX;
	mapfile_publish(rec);
	return rec;
}

static struct site *site_new(struct sites *ss, const uintptr_t *key, size_t len, int method)
{
	uint32_t stack = stacks_intern(key + 2, (int)(len / sizeof(uintptr_t)) - 2, method);
	struct site *s;

	if (stack == UINT32_MAX || !(s = arena_alloc(ss->arena, sizeof(*s) + len)))
		return NULL;
	s->rec = site_record(ss, (uint32_t)key[0], stack, (const struct rf_site *)key[1]);
	if (!s->rec)
		return NULL;
	s->trail = NULL;
	s->trail_n = s->trail_cap = s->trail_words = 0;
	s->keylen = len;
	memcpy(s->key, key, len);
	return s;
}

static int same_key(const void *item, const void *key, size_t len)
{
	const struct site *s = item;

	return s->keylen == len && memcmp(s->key, key, len) == 0;
}

/* The site of a key through the index, made the first time. */
static struct site *site_indexed(struct sites *ss, const uintptr_t *key, size_t len,
				 int method)
{
	uint64_t hash = index_hash(key, len);
	struct site *s = index_find(&ss->index, hash, key, len, same_key);

	if (!s && index_reserve(&ss->index, ss->arena) == 0 && (s = site_new(ss, key, len, method))) {
		index_add(&ss->index, ss->arena, hash, s);	/* reserved: cannot fail */
		grow_cache(ss);
	}
	return s;
}

/* The site of a key: the one in slot, else the index's (then kept in
 * slot); a new one's stack was found by method. */
static struct site *site_through(struct sites *ss, struct site **slot, const uintptr_t *key,
				 size_t len, int method)
{
	struct site *s = *slot;

	if (s && same_key(s, key, len))
		return s;
	s = site_indexed(ss, key, len, method);
	if (s)
		*slot = s;
	return s;
}

/* Keep the records a walk read, for sites_lookup's next look. */
static void keep_trail(struct sites *ss, struct site *s, const struct fpwalk_trail *t)
{
	size_t bytes = (size_t)t->n * sizeof(t->rec[0]);

	if (t->n > s->trail_cap) {
		struct fpwalk_record *rec = arena_alloc(ss->arena, bytes);

		s->trail_n = 0;
		if (!rec)
			return;
		s->trail = rec;
		s->trail_cap = t->n;
	}
	memcpy(s->trail, t->rec, bytes);
	s->trail_n = t->n;
	s->trail_words = t->words;
	s->trail_start = t->start;
}

/* Depth > 0: walk the stack, then its site (out of line: the key and
 * the trail make a large stack frame, which sites_find at depth 0 and a
 * marker in a signal handler had better not carry). */
static __attribute__((noinline)) struct site *site_of_stack(struct sites *ss, uint32_t id,
							     uintptr_t caller,
							     const struct rf_site *parent,
							     uintptr_t start)
{
	uintptr_t key[2 + STACKS_MAX_FRAMES];
	struct fpwalk_trail trail;
	struct site *s;
	size_t words;
	int saved = errno;

	key[0] = id;
	key[1] = (uintptr_t)parent;
	words = 2 + (size_t)stacks_capture(start, caller, ss->depth, key + 2, &trail);
	s = site_through(ss, key_slot(ss, key, words), key, words * sizeof(key[0]),
			 stacks_last_method());
	if (s && trail.n) {
		keep_trail(ss, s, &trail);
		*sites_slot(ss, id, caller, parent) = s;
	}
	errno = saved;
	return s;
}

/* Depth 0: the key is the region, the parent and the return address. */
static struct site *site_at_call(struct sites *ss, uint32_t id, uintptr_t caller,
				 const struct rf_site *parent)
{
	uintptr_t key[3] = { id, (uintptr_t)parent, caller };
	int saved = errno;
	struct site *s = site_through(ss, sites_slot(ss, id, caller, parent), key, sizeof(key),
				      RF_STACK_CALLER);

	errno = saved;
	return s;
}

/* What can make a system call keeps errno (site_of_stack, site_at_call):
 * growth of the arena or the index, a new stack (stacks.c), the walk's
 * first look at its thread, libunwind. */
struct rf_site *sites_find(struct sites *ss, uint32_t id, uintptr_t caller,
			   const struct rf_site *parent, uintptr_t start)
{
	struct site *s = ss->depth ? site_of_stack(ss, id, caller, parent, start)
				   : site_at_call(ss, id, caller, parent);

	return s ? s->rec : NULL;
}

struct rf_site *sites_find_call(struct sites *ss, uint32_t id, uintptr_t caller,
				const struct rf_site *parent)
{
	struct site *s = site_at_call(ss, id, caller, parent);

	return s ? s->rec : NULL;
}

struct rf_site *sites_at(const struct sites *ss, uint32_t id, uintptr_t caller,
			 const struct rf_site *parent)
{
	uintptr_t key[3] = { id, (uintptr_t)parent, caller };
	const struct site *s = index_find(&ss->index, index_hash(key, sizeof(key)), key,
					  sizeof(key), same_key);

	return s ? s->rec : NULL;
}

size_t sites_count(const struct sites *ss)
{
	return ss->index.count;
}

void sites_sum_region(const struct sites *ss, uint32_t id, uint64_t *calls, uint64_t *incl,
		      int n)
{
	for (size_t i = 0; ss->index.slots && i <= ss->index.mask; i++) {
		const struct site *s = ss->index.slots[i].item;

		if (!s || s->key[0] != id)
			continue;
		*calls += s->rec->calls;
		for (int k = 0; k < n && k < ss->nv; k++)
			incl[k] += s->rec->v[k].incl;
	}
}
