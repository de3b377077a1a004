/* What the other sources of regions (functions.c, openmp.c, ompt.c) share
 * with the markers' entry points in shim.c. */
#ifndef PMCSHIM_SHIM_H
#define PMCSHIM_SHIM_H

#include "threads.h"

/* Recording: a file exists and the process runs. */
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
