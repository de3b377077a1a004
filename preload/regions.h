/* Per-thread region bookkeeping: the stack of open regions, and one
 * accumulator ("site") per (region, call-site stack). Only the owning
 * thread writes; the exit-time report reads sites under `lock` and their
 * numbers with relaxed atomics, so a thread still running is safe. */
#ifndef PMCSHIM_REGIONS_H
#define PMCSHIM_REGIONS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <uthash.h>

#include "counters.h"
#include "stacks.h"

#define VALUES_MAX (1 + EVENTS_MAX)	/* [0] wall ticks, [1 + k] k-th open event */
#define SITE_CACHE 256			/* power of two */
#define NAME_CACHE 64			/* power of two */
#define FRAMES_MAX 4096

struct site {
	UT_hash_handle hh;
	struct site *next;		/* every site of the thread */
	uint32_t region;
	uint32_t stack;
	uint64_t calls;
	uint64_t incl[VALUES_MAX];
	uint64_t excl[VALUES_MAX];
	uint64_t min[VALUES_MAX];
	uint64_t max[VALUES_MAX];
	size_t keylen;
	uintptr_t key[];		/* region id, then the call-site pcs */
};

struct frame {
	struct site *site;
	uint32_t region;
	uint32_t outer;			/* outermost open activation of region */
	uint64_t start[VALUES_MAX];
	uint64_t child[VALUES_MAX];	/* inclusive cost of closed children */
};

enum region_error {
	ERR_END_MISMATCH,
	ERR_END_UNOPENED,
	ERR_OPEN_AT_EXIT,
	ERR_REENTRANT,
	ERR_TOO_DEEP,
	ERR_KINDS
};

struct region_error_rec {
	struct region_error_rec *next;
	enum region_error kind;
	uint32_t region;
	uint32_t open;			/* innermost open region, for mismatches */
	uint64_t count;
};

struct name_slot {
	const char *ptr;		/* the caller's pointer */
	const char *interned;
	uint32_t id;
};

struct region_state {
	pthread_mutex_t lock;		/* table, list, errors vs. the report */
	int nv;				/* values per site: 1 + open events */
	int depth;			/* frames above the call site */
	struct frame *frames;
	uint32_t nframes, frames_cap;
	uint32_t overflow;		/* begins dropped for depth */
	uint32_t *active;		/* open activations per region id */
	uint32_t active_cap;
	struct site *cache[SITE_CACHE];
	struct site *table;
	struct site *list;
	struct region_error_rec *errors;
	struct name_slot names[NAME_CACHE];
};

/* nvalues: 1 (wall time) + the events open in this thread. */
void regions_init(struct region_state *rs, int nvalues, int depth);
void regions_begin(struct region_state *rs, struct counters *c, uint32_t id,
		   uintptr_t caller);
void regions_end(struct region_state *rs, struct counters *c, uint32_t id);
/* The id of a name, through a per-thread cache keyed by the pointer. */
uint32_t regions_name_id(struct region_state *rs, const char *name);

/* Thread end: regions still open become errors. */
void regions_finish(struct region_state *rs);
/* Fork child: zero the accumulators, re-base open regions on the child's
 * fresh counters. */
void regions_after_fork(struct region_state *rs, struct counters *c);
/* Add count errors of a kind (region: the one ended or left open; open:
 * the innermost open region for a mismatch, else 0). Takes rs->lock, so
 * never from a signal handler. */
void regions_record_error(struct region_state *rs, enum region_error kind,
			  uint32_t region, uint32_t open, uint64_t count);
const char *regions_error_name(enum region_error kind);

static inline uint64_t regions_load(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

#endif
