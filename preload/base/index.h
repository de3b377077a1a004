/* A hash index from keys to items the caller owns (names, stacks, sites):
 * open addressing with linear probing, each slot the item's full hash and
 * its pointer. A lookup compares hashes in one contiguous run of slots
 * and touches an item only when its hash matches, where a chained table
 * touched every item on the chain (a cache miss each). No malloc (markers
 * may run in a signal handler): a small table comes from the caller's
 * arena, where a thread that marks a few regions already has its pages; a
 * table of INDEX_MAPPED_MIN bytes or more is mapped on its own, so that
 * when it grows the old one is unmapped rather than left in the arena.
 * Not locked: the caller serializes. */
#ifndef PMCSHIM_INDEX_H
#define PMCSHIM_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"

#define INDEX_MAPPED_MIN 4096

struct index_slot {
	uint64_t hash;
	void *item;		/* NULL: empty */
};

/* An item's first slot is its hash's top bits: doubling the table keeps
 * the items' order, so re-adding them goes through both tables in turn
 * (the low bits would scatter each item at random, a cache miss apiece). */
struct index {
	struct index_slot *slots;
	size_t mask;		/* slots - 1, a power of two minus one */
	unsigned shift;		/* 64 - log2(slots): hash >> shift is the first slot */
	size_t count;		/* items held */
};

/* Does item have this key? Called only for an item whose hash matches. */
typedef int (*index_match)(const void *item, const void *key, size_t len);

/* The hash of a key; computed once per look-up and kept in the slot, so a
 * growing table never hashes a key again. */
uint64_t index_hash(const void *key, size_t len);

/* The item with this key, or NULL. */
void *index_find(const struct index *ix, uint64_t hash, const void *key, size_t len,
		 index_match match);

/* Add an item known not to be there (small tables from arena). Returns 0,
 * or -1 when there is no memory for a larger table (the index is then as
 * it was). */
int index_add(struct index *ix, struct arena *arena, uint64_t hash, void *item);

/* Room for one more item now (0, or -1 without memory), so that the
 * index_add after it cannot fail: callers that make a record in the
 * report file for the item reserve first, or a failed add would leave a
 * record the next look-up does not find, and it would be made again. */
int index_reserve(struct index *ix, struct arena *arena);

/* Unmap a mapped table (a small one goes with its arena); the index is
 * then empty. */
void index_release(struct index *ix);

#endif
