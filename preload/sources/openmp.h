/* OpenMP regions, with no source change: GCC's libgomp through its
 * interposed entry points (openmp.c), LLVM's libomp through OMPT
 * (ompt.c). */
#ifndef PMCSHIM_OPENMP_H
#define PMCSHIM_OPENMP_H

#include <stdint.h>

#include "format/reportfile.h"
#include "lifecycle/threads.h"

/* Process end: one line when libomp is loaded but did not start the
 * shim's OMPT tool (OMP_TOOL=disabled, or a runtime without OMPT), one
 * when parallel regions were nested too deep to be recorded. */
void ompt_check_started(void);

/* A thread ends: its OMPT implicit tasks still open end now, innermost
 * first (libomp reports a worker's implicit barrier and task ends only
 * when it is woken for the next parallel region: a worker's last one
 * never). */
void ompt_thread_finish(struct thread_state *t);

/* --- shared by openmp.c and ompt.c ----------------------------------- */

int openmp_enabled(void);
/* The calling thread's state when OpenMP regions are recorded, else NULL. */
struct thread_state *openmp_thread(void);

/* The call site a region is keyed by: `given` (where the program called
 * the runtime) at depth 0; at depth > 0 the caller of the function that
 * expands this, from which the stack walk goes on upwards (a walk must
 * find the shim's frames returning to its call site). */
#define OPENMP_SITE(t, given) \
	((t) && (t)->rs.depth ? (uintptr_t)__builtin_return_address(0) : (uintptr_t)(given))

static inline void openmp_begin(struct thread_state *t, uint32_t id, uintptr_t site)
{
	if (t && id)
		regions_begin(&t->rs, &t->ctr, id, site);
}

static inline void openmp_end(struct thread_state *t, uint32_t id)
{
	if (t && id)
		regions_end(&t->rs, &t->ctr, id);
}

/* A region keyed by an address (the names lock: once per parallel region
 * or lock and thread); 0 when the shim is busy on this thread. */
uint32_t openmp_addr_id(const char *prefix, const void *addr, enum rf_addr_kind kind);
/* The region of a fixed name, interned the first time into *slot (0: the
 * shim is busy on this thread). */
uint32_t openmp_fixed_id(uint32_t *slot, const char *name);
/* "omp-TEAM.NUM": TEAM is the number, in the enclosing team, of the thread
 * that started this one's team (0 at the outermost level), NUM its number
 * in its team. The main thread keeps its own name. */
void openmp_name_thread(struct thread_state *t);

/* A critical section's regions: the wait to enter it and its body, keyed
 * by its lock (libgomp, RF_ADDR_ENTRY) or by where it is entered (OMPT,
 * RF_ADDR_CALL); ids cached per thread. */
struct openmp_critical {
	const void *key;
	enum rf_addr_kind kind;
	uint32_t wait, body;
};
const struct openmp_critical *openmp_critical_ids(const void *key, enum rf_addr_kind kind);

#endif
