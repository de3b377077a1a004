/* What a marker's entry point looks at before anything else: the
 * calling thread's own words. Kept apart from shim.c, which sets the
 * entries up, so that the regions code (whose entries read them) links
 * without shim.c, as its unit tests do. */
#ifndef PMCSHIM_ENTRY_H
#define PMCSHIM_ENTRY_H

#include <stdint.h>

struct region_state;
struct counted;

/* The shim's words of the calling thread, in one block: a marker finds
 * them all with one thread-local look-up. */
struct shim_tls {
	/* regions while a marker may take the warm path: the thread set up
	 * and the shim not busy on it (NULL while the guard is held or a
	 * marker runs: one load and one test stand for both). */
	struct region_state *hot;
	long guard;			/* guard.h */
	struct region_state *regions;	/* the thread's, once set up */
	/* Its function hooks' stack with PMCSHIM_FUNCTIONS=sampled (counted.h),
	 * from the first call on; NULL otherwise. */
	struct counted *counted;
};
extern __thread struct shim_tls shim_tls __attribute__((visibility("hidden")));

/* Where an entry sends a marker off its warm path: shim.c's markers that
 * set the shim or the thread up and check the id. */
struct entry_cold {
	void (*begin)(uint32_t id, uintptr_t caller);
	void (*end)(uint32_t id);
	void (*begin_name)(const char *name, uintptr_t caller);
	void (*end_name)(const char *name);
};
extern struct entry_cold entry_cold __attribute__((visibility("hidden")));

#endif
