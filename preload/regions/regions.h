/* Per-thread region bookkeeping: the stack of open regions, each closed
 * one charged to its site (sites.h), an RF_SITE record in the report file
 * that the thread updates in place. Only the owning thread touches this
 * state; readers see the file. */
#ifndef PMCSHIM_REGIONS_H
#define PMCSHIM_REGIONS_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "counters/counters.h"
#include "format/reportfile.h"
#include "sites.h"

#define VALUES_MAX (1 + EVENTS_MAX)	/* [0] wall ticks, [1 + k] k-th open event */
#define NAME_CACHE 64			/* power of two */
/* Regions open at once per thread (the frames array grows to it as it
 * is used); begins past it are counted (RF_ERR_TOO_DEEP) and dropped, and
 * so are their ends, matched by depth (region_state.overflow). */
#define FRAMES_MAX 16384
/* How far a resynchronisation looks down the open frames: for the region
 * an unmatched end ends, and past frames without a key (markers) for a
 * function's frame (regions_abandoned). */
#define RESYNC_SEARCH 4096
#define RESYNC_LOOK 16

/* Enabled and running ns per value, for multiplexed events. */
struct frame_times {
	uint64_t enabled[VALUES_MAX], running[VALUES_MAX];
};

/* A function's frame's key (regions_keyed): the canonical frame address
 * of the machine frame it runs in (0: unknown), that frame's return
 * address, the return address of its enter hook, and the function. The
 * key is its frame's when region is the frame's region (the markers
 * leave keys as they were). */
struct fn_key {
	uintptr_t cfa, site, ra;
	uint32_t region;
	uintptr_t fn;			/* the function's address */
};

struct frame {
	struct rf_site *site;		/* the accumulator, in the report file */
	struct region_slot *slot;	/* &slots[region] (moved when they grow) */
	uint32_t region;
	uint64_t start[VALUES_MAX];
	/* Zeroed at begin together (in pairs of words): */
	uint64_t children;		/* pairs closed directly inside */
	uint64_t child[VALUES_MAX];	/* inclusive cost of closed children */
	struct frame_times times;	/* at begin, with coverage only */
	/* Last, past what the markers use: a function's key is where its
	 * frame is, with no index to compute from the frame's address. */
	struct fn_key key;
};

/* An error kind met at one region: its RF_ERROR record counts them. */
struct region_error {
	struct region_error *next;
	struct rf_error *rec;
};

struct name_slot {
	const char *ptr;		/* the caller's pointer */
	const char *interned;		/* its text: stored, or in refused[] */
	unsigned long constant_at;	/* codemap_constant's stamp when ptr's
					 * text was found in a read-only segment */
	uint32_t id;			/* 0: refused for the names limit */
	int varies;			/* ptr's text was found writable */
};

/* Per region id: at depth 0 the site of its last warm begin
 * (sites_cached), and its open activations (a recursive region's
 * inclusive value counts the outermost call only: the one that closes
 * the last). */
struct region_slot {
	struct site_memo last;
	uint32_t open;
};

struct markers;

struct region_state {
	/* Ids 1 .. warm_ids take the entries' warm path (regions_entry):
	 * given out, with room for their activation count, while no begin is
	 * being dropped, the reads are the plain ones and the thread has the
	 * number of values the entries were installed for; 0 otherwise. One
	 * compare stands for those five checks. */
	uint32_t warm_ids;
	uint32_t thread;		/* rf_thread.index */
	int nv;				/* values per site: 1 + open events */
	struct counters *counters;	/* the thread's */
	/* The wall tick from which a region end publishes the running
	 * counts (regions_publish; 0 at first: the first end does). Beside
	 * counters, which a warm end loads too: one load for both. */
	uint64_t publish_due;
	const struct markers *markers;	/* the markers' copy for nv */
	struct arena arena;		/* sites, frames, index: freed at thread end */
	int serialize;			/* barriers around the reads */
	int coverage;			/* events multiplexed: keep enabled/running */
	int careful;			/* serialize || coverage: not the plain read */
	int depth;			/* frames above the call site */
	struct frame *frames;		/* [0] the root, then the open regions */
	struct frame *top;		/* the innermost open (the root: none), kept as
					 * a pointer: no multiply at each marker */
	/* The warm begin's room: frames_last at depth 0; frames when stacks
	 * are walked (top is never below: begin_slow does the walk). Beside
	 * top, which the warm begin loads too: one load for both. */
	struct frame *warm_top;
	struct frame *frames_last;	/* frames[frames_cap - 1]: room while top is below */
	uint32_t frames_cap;
	uint32_t overflow;		/* open begins that were dropped (too deep,
					 * no memory): their ends are dropped too */
	uint64_t reentrant;		/* markers dropped while busy (atomic) */
	struct region_slot *slots;	/* by region id */
	uint32_t slots_cap;
	struct sites sites;		/* the thread's accumulators */
	struct counted *counted;	/* sampled function hooks' (counted.h) */
	struct region_error *errors;
	struct name_slot names[NAME_CACHE];	/* 32 bytes each: an index is a shift */
	char *refused[NAME_CACHE];	/* per name slot: NAMES_MAX_LEN + 1 bytes, once needed */
	/* In a fork child: the frames [0, inherited) were open in the parent
	 * and restarted at the fork, the last at wall ticks forked_at (a
	 * frame the child opened since started later). */
	uint32_t inherited;
	uint64_t forked_at;
	/* Where the running counts go (rf_thread.live: regions_publish),
	 * and the values a warm end hands to it out of line. */
	struct rf_thread *publish_to;
	uint64_t live_now[VALUES_MAX];
};

/* nvalues: 1 (wall time) + the events open in this thread, as c has
 * them (the markers read nvalues - 1 counters whenever c allows the plain
 * read); thread: its rf_thread.index. */
void regions_init(struct region_state *rs, struct counters *c, int nvalues, int depth,
		  uint32_t thread);
/* The calling thread's region state, for the entries (NULL: none). */
void regions_attach(struct region_state *rs);
/* The thread's record, where its region ends publish its running counts
 * (rf_thread.live), so that they outlive a kill; the next end publishes. */
void regions_publish_into(struct region_state *rs, struct rf_thread *rec);
/* Publish now (the values a marker read: wall ticks, then the open
 * events) and set the next publish_due, a millisecond on (arch_ticks_ms).
 * Off the warm path: a region end, at any depth, calls it once its wall
 * tick reaches publish_due (publish_is_due; markers.c says what a kill
 * can lose). */
void regions_publish(struct region_state *rs, const uint64_t *now);

/* Markers that are whole entry points: called by the application through
 * the api table, they find the thread (regions_attach) and take the
 * guard themselves, with one call and one thread-local look-up; what is
 * off their warm path goes to entry_cold (entry.h). For threads with
 * rs's number of values (others take entry_cold). */
struct regions_entry {
	void (*begin)(unsigned id);
	void (*end)(unsigned id);
	void (*begin_name)(const char *name);
	void (*end_name)(const char *name);
};
const struct regions_entry *regions_entry(const struct region_state *rs);
/* PMCSHIM_SERIALIZE: a barrier before and after each marker's reads. */
void regions_serialize(struct region_state *rs, int on);
/* Multiplexed events: keep, per value, the time its counter was enabled
 * and running during the calls (one read() per group per marker). */
void regions_coverage(struct region_state *rs, int on);
/* The markers. They take the thread's guard (guard.h) themselves: one
 * that finds it held (a signal handler interrupted the shim on this
 * thread) is dropped and counted. */
void regions_begin(struct region_state *rs, struct counters *c, uint32_t id,
		   uintptr_t caller);
void regions_end(struct region_state *rs, struct counters *c, uint32_t id);
/* An end that folds a call shorter than `fold` wall ticks into its
 * parent (not counted: its cost stays in the parent's exclusive value);
 * off the warm path (PMCSHIM_FUNCTIONS' min=). */
void regions_end_fold(struct region_state *rs, struct counters *c, uint32_t id,
		      uint64_t fold);
/* The same for a name given at run time (its id found through a
 * per-thread cache, then names.c). */
void regions_begin_name(struct region_state *rs, struct counters *c, const char *name,
			uintptr_t caller);
void regions_end_name(struct region_state *rs, struct counters *c, const char *name);

/* Functions' frames and resynchronisation. A function region (the
 * compiler's hooks) gets a key: the canonical frame address (CFA: the
 * caller's stack pointer at the call) of the machine frame it runs in, its
 * own or, inlined, its caller's, and that frame's return address (the
 * hooks' call site: inlined, the caller's). The stack grows down, so an
 * open frame keyed below the frame a function now begins in was abandoned:
 * left by longjmp, or unwound by an exception without its exit hook. So
 * was one keyed at it, unless it runs in the same machine frame (the same
 * return address: an inlined function's caller, or inlined beside it) and
 * is not the same function begun again from the same place (the same
 * return address of the enter hook: else, inlined into itself). */
struct fn_place {
	uintptr_t cfa;		/* 0: unknown (no unwind table) */
	uintptr_t site;
	uintptr_t ra;		/* the enter hook's return address */
	uint32_t id;
	uintptr_t fn;		/* the function's address */
};

/* Where the innermost open frame is, in bytes from the root: a mark
 * that stays right when the frames move (they grow), with no division. */
static inline size_t regions_top_mark(const struct region_state *rs)
{
	return rs->frames ? (size_t)((const char *)rs->top - (const char *)rs->frames) : 0;
}

/* Give the frame of function p->id, just begun (the innermost open frame
 * was at `before`, regions_top_mark), its key. */
static inline void regions_keyed(struct region_state *rs, size_t before,
				 const struct fn_place *p)
{
	struct frame *f = rs->top;

	if (regions_top_mark(rs) == before + sizeof(*f) && f->region == p->id)	/* kept */
		f->key = (struct fn_key){ p->cfa, p->site, p->ra, p->id, p->fn };
}

/* The region of the innermost open frame when it is function fn's (its
 * key says so: the exit hook's common case, with no look-up of fn); 0
 * otherwise. */
static inline uint32_t regions_top_function(const struct region_state *rs, uintptr_t fn)
{
	const struct frame *f = rs->top;

	return f && f != rs->frames && f->key.fn == fn && f->key.region == f->region ? f->region
										      : 0;
}

/* The key of open frame f, NULL where it has none (a marker's). */
static inline const struct fn_key *regions_key(const struct frame *f)
{
	return f->key.region == f->region && f->key.cfa ? &f->key : NULL;
}

/* Whether a frame keyed k was abandoned when function p begins. */
static inline int regions_left(const struct fn_key *k, const struct fn_place *p)
{
	return k->cfa < p->cfa ||
	       (k->cfa == p->cfa && (k->site != p->site ||
				     (k->region == p->id && k->ra == p->ra)));
}

/* Whether the innermost open frame with a key (looking past up to
 * RESYNC_LOOK without one) was abandoned when function p begins. */
static inline int regions_abandoned(const struct region_state *rs, const struct fn_place *p)
{
	const struct frame *f = rs->top;

	for (int n = 0; f && f > rs->frames && n < RESYNC_LOOK; f--, n++) {
		const struct fn_key *k = regions_key(f);

		if (k)
			return regions_left(k, p);
	}
	return 0;
}

/* A function's begin, keyed by its call site alone (no stack walk)
 * whatever the thread's depth (the function tree is the stack), its frame
 * given p's key. */
void regions_begin_function(struct region_state *rs, struct counters *c,
			    const struct fn_place *p);

/* Close the frames abandoned when function p begins, keyed at lo or
 * above (the thread's stack: one keyed on another, a signal stack or a
 * coroutine's, ends the search), their values ending now, and every frame
 * opened inside them; each counted per region as RF_ERR_RESYNC. Takes the
 * guard (busy: nothing done). */
void regions_resync(struct region_state *rs, struct counters *c, uintptr_t lo,
		    const struct fn_place *p);

/* How many regions the thread has open. */
uint32_t regions_open_count(const struct region_state *rs);

/* Thread end: regions still open become errors (functions still open,
 * left by exit() or the thread's end, end now: c reads the values), and
 * so do the markers dropped while the shim was busy. */
void regions_finish(struct region_state *rs, struct counters *c);
/* Free the thread's index memory (its sites stay in the file). */
void regions_release(struct region_state *rs);
/* Fork child: the file is a copy now; re-base open regions on the child's
 * fresh counters. (Sums were reset in the file: regions_reset_record.) */
void regions_after_fork(struct region_state *rs, struct counters *c);
/* Fork child, per record of the copied file: zero this thread's sums and
 * error counts. */
void regions_reset_record(struct rf_record *r, uint32_t thread);
/* Add count errors of a kind (region: the one ended or left open; open:
 * the innermost open region for a mismatch, else 0). */
void regions_record_error(struct region_state *rs, enum rf_error_kind kind,
			  uint32_t region, uint32_t open, uint64_t count);

#endif
