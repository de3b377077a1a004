#include "index.h"

#include <string.h>

#define SLOTS_MIN 16

/* The last step of MurmurHash3: every input bit reaches every output bit. */
static inline uint64_t fmix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/* A word at a time: names are a few words, stacks and sites whole words. */
uint64_t index_hash(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	if (len) {
		w = 0;
		memcpy(&w, p, len);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
	}
	return fmix64(h);
}

void *index_find(const struct index *ix, uint64_t hash, const void *key, size_t len,
		 index_match match)
{
	if (!ix->slots)
		return NULL;
	for (size_t i = hash >> ix->shift;; i = (i + 1) & ix->mask) {
		const struct index_slot *s = &ix->slots[i];

		if (!s->item)
			return NULL;
		if (s->hash == hash && match(s->item, key, len))
			return s->item;
	}
}

static void put(struct index *ix, uint64_t hash, void *item)
{
	size_t i = hash >> ix->shift;

	while (ix->slots[i].item)
		i = (i + 1) & ix->mask;
	ix->slots[i].hash = hash;
	ix->slots[i].item = item;
}

/* Zeroed slots: from the arena while small, else pages of their own,
 * unmapped when the table grows. */
static struct index_slot *slots_new(struct arena *arena, size_t n)
{
	size_t bytes = n * sizeof(struct index_slot);

	return bytes < INDEX_MAPPED_MIN ? arena_alloc(arena, bytes) : arena_pages(bytes);
}

static void slots_free(struct index_slot *slots, size_t n)
{
	size_t bytes = n * sizeof(struct index_slot);

	if (slots && bytes >= INDEX_MAPPED_MIN)
		arena_pages_free(slots, bytes);
}

/* Twice the slots (half full at most: short runs to probe). */
static int grow(struct index *ix, struct arena *arena)
{
	struct index old = *ix;
	size_t n = old.slots ? (old.mask + 1) * 2 : SLOTS_MIN;

	ix->slots = slots_new(arena, n);
	if (!ix->slots) {
		*ix = old;
		return -1;
	}
	ix->mask = n - 1;
	ix->shift = (unsigned)__builtin_clzll(ix->mask);
	for (size_t i = 0; old.slots && i <= old.mask; i++)
		if (old.slots[i].item)
			put(ix, old.slots[i].hash, old.slots[i].item);
	slots_free(old.slots, old.mask + 1);
	return 0;
}

int index_reserve(struct index *ix, struct arena *arena)
{
	if (!ix->slots || (ix->count + 1) * 2 > ix->mask + 1)
		return grow(ix, arena);
	return 0;
}

int index_add(struct index *ix, struct arena *arena, uint64_t hash, void *item)
{
	if (index_reserve(ix, arena) != 0)
		return -1;
	put(ix, hash, item);
	ix->count++;
	return 0;
}

void index_release(struct index *ix)
{
	slots_free(ix->slots, ix->mask + 1);
	memset(ix, 0, sizeof(*ix));
}
