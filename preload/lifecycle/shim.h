/* What the shim's other sources of regions (mpi.c, functions.c, openmp.c,
 * ompt.c) share with the markers' entry points in shim.c. */
#ifndef PMCSHIM_SHIM_H
#define PMCSHIM_SHIM_H

#include <stdint.h>

#include "format/reportfile.h"
#include "threads.h"

/* The id of a region name of that source (enum rf_from: mpi.c's
 * RF_FROM_MPI); 0 when the shim is not recording. */
uint32_t shim_name(const char *name, enum rf_from source);
/* The same, with *text the stored name (for a cache: shim_name_text's
 * texts live as long as the process). */
uint32_t shim_name_text(const char *name, enum rf_from source, const char **text);
/* caller: the return address into the application. */
void shim_begin_at(uint32_t id, uintptr_t caller);
void shim_end_at(uint32_t id);
/* Recording: a file exists and the process runs. (The markers' entries
 * do not read it: they are in the api table only while it is set.) */
extern int shim_active;

/* The calling thread's state off the warm path: sets the shim up (first
 * use before its constructor) or the thread (one not seen starting);
 * NULL when nothing is recorded. */
struct thread_state *shim_thread_cold(void);

/* The calling thread's state, or NULL when its regions are not recorded. */
static inline struct thread_state *shim_thread(void)
{
	struct thread_state *t = threads_tls;

	if (__builtin_expect(__atomic_load_n(&shim_active, __ATOMIC_RELAXED) && t != NULL, 1))
		return t;
	return shim_thread_cold();
}

#endif
