/* A thread's accumulators: one RF_SITE record in the report file per
 * (region, parent site, call-site stack), which the thread updates in
 * place: the same region under two parents is two sites, so the sites
 * form the exact tree of the thread's regions. Markers find a site
 * through a direct-mapped cache (a slot per call: its region, return
 * address and parent) and, past it, an index of every site of the
 * thread. Only the owning thread touches this state. */
#ifndef PMCSHIM_SITES_H
#define PMCSHIM_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "stacks/fpwalk.h"
#include "base/index.h"
#include "format/reportfile.h"
#include "stacks/tablewalk.h"

/* The cache's slots (powers of two): SITE_CACHE at first, grown 8 times
 * over once the thread has twice as many sites as slots, up to
 * SITE_CACHE_MAX. A thread with few sites (markers) keeps 2 kB; one with
 * thousands (a program built with -finstrument-functions) gets 16 kB at
 * 512 sites, 128 kB at 4096. Lua (6,600 sites) missed the first cache at
 * 11% of its begins, 2-3% with 2048 slots, 0.5% with 16384: the misses
 * fall on some functions' callers more than others', so the fewer the
 * better the profile. */
#define SITE_CACHE 256
#define SITE_CACHE_MAX 16384

struct site {
	struct rf_site *rec;		/* in the report file */
	struct fpwalk_record *trail;	/* depth > 0: the frame records the last
					 * walk to this site read (fpwalk.h) */
	uintptr_t trail_start;		/* where that walk started */
	int trail_n, trail_cap;		/* records in trail, room for */
	int trail_words;		/* trail holds a table walk's words */
	size_t keylen;
	uintptr_t key[];		/* region id, parent site, then the call-site pcs */
};

struct sites {
	struct arena *arena;		/* the thread's (sites live until it ends) */
	uint32_t thread;		/* rf_thread.index */
	int nv;				/* values per site */
	int depth;			/* frames above the call site */
	struct site **cache;		/* cache_first, then one grown */
	uint32_t cache_mask;		/* its slots - 1 */
	struct site *cache_first[SITE_CACHE];
	struct index index;		/* every site of the thread */
};

/* nvalues: values per site; depth: frames kept above the call site. */
void sites_init(struct sites *ss, struct arena *arena, int nvalues, int depth,
		uint32_t thread);
/* Forget every site (their records stay in the file): the thread's arena
 * is about to be released (call this first). */
void sites_release(struct sites *ss);

/* The slot of a call: a cheap mix of its region, return address and
 * parent site (the region open at its begin). At depth 0 they are the
 * whole key; at depth > 0 the slot holds the call's last site, and
 * shares the array with the slots of walked stacks. */
static inline struct site **sites_slot(struct sites *ss, uint32_t id, uintptr_t caller,
				       const struct rf_site *parent)
{
	uintptr_t x = caller ^ (uintptr_t)parent;	/* parents differ in bits 3 and up */

	return &ss->cache[(x ^ (x >> 9) ^ id) & ss->cache_mask];
}

/* s is a site of region id called from caller inside parent (every key
 * is at least these three words). */
static inline int sites_of_call(const struct site *s, uint32_t id, uintptr_t caller,
				const struct rf_site *parent)
{
	return s && s->key[2] == caller && s->key[0] == id &&
	       s->key[1] == (uintptr_t)parent;
}

/* What a region's last warm begin found: its site, and the call it
 * was the site of (kept by the caller, one per region). Zeroed: none
 * (no call has return address 0); rec is never NULL otherwise. */
struct site_memo {
	uintptr_t caller;
	const struct rf_site *parent;
	struct rf_site *rec;
};

/* The warm path, depth 0: whether *last is the site of the call (while
 * a region is begun from one place under one parent: two compares, no
 * hash); its site is then last->rec. */
static inline int sites_memo_holds(const struct site_memo *last, uintptr_t caller,
				   const struct rf_site *parent)
{
	return last->caller == caller && last->parent == parent;
}

/* The same, then the call's slot (remembered in *last when it holds
 * the site); NULL when neither holds it. */
static inline struct rf_site *sites_cached(struct sites *ss, struct site_memo *last, uint32_t id,
					   uintptr_t caller, const struct rf_site *parent)
{
	struct site *s;

	if (sites_memo_holds(last, caller, parent))
		return last->rec;
	s = *sites_slot(ss, id, caller, parent);
	if (!sites_of_call(s, id, caller, parent) || !s->rec)
		return NULL;
	*last = (struct site_memo){ caller, parent, s->rec };
	return s->rec;
}

/* Off the warm path (sites_lookup): the site of region id called from
 * caller inside parent (NULL: outermost), with the stack above it at
 * depth > 0 (walked from start, a frame record of the marker's own below
 * caller's); made the first time. NULL when it cannot be recorded. Keeps
 * the application's errno. */
struct rf_site *sites_find(struct sites *ss, uint32_t id, uintptr_t caller,
			   const struct rf_site *parent, uintptr_t start);

/* The site of a call alone (the key of depth 0), whatever the thread's
 * depth: for regions whose tree is their stack (functions). */
struct rf_site *sites_find_call(struct sites *ss, uint32_t id, uintptr_t caller,
				const struct rf_site *parent);

/* The same, but at depth > 0 first the call's last site, when the frame
 * records from start still hold what the walk to it read (so a walk
 * would find the same stack). A loop's markers see the same stack every
 * time: a compare per word instead of the walk's checks, the key's hash
 * and its compare. Inline: this is the warm path at depth > 0. */
static inline struct rf_site *sites_lookup(struct sites *ss, uint32_t id, uintptr_t caller,
					   const struct rf_site *parent, uintptr_t start)
{
	struct site *s = *sites_slot(ss, id, caller, parent);

	if (ss->depth && sites_of_call(s, id, caller, parent) &&
	    (s->trail_words ? tablewalk_same(start, s->trail_start, s->trail, s->trail_n)
			    : fpwalk_same(start, s->trail_start, s->trail, s->trail_n)))
		return s->rec;
	return sites_find(ss, id, caller, parent, start);
}

/* For the unit tests: the site of a region at a call site inside parent
 * (depth 0), if the thread has one; and how many sites it has. */
struct rf_site *sites_at(const struct sites *ss, uint32_t id, uintptr_t caller,
			 const struct rf_site *parent);
size_t sites_count(const struct sites *ss);
/* Adds the sums of region id's sites (every parent and stack): calls,
 * and the first n values' inclusive sums into incl[]. */
void sites_sum_region(const struct sites *ss, uint32_t id, uint64_t *calls, uint64_t *incl,
		      int n);

#endif
