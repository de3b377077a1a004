/* The per-thread "inside the shim" flag. Every shim path that takes a
 * lock or changes per-thread state sets it; a marker that finds it set was
 * called from a signal handler (or the application's malloc) interrupting
 * the shim on the same thread, and is dropped and counted instead of
 * deadlocking on a lock its own thread holds. */
#ifndef PMCSHIM_GUARD_H
#define PMCSHIM_GUARD_H

#include "entry.h"

/* Busy: the guard is held, or a marker is inside its warm path (which
 * takes hot, not the guard: entry_enter in markers.c). */
static inline int guard_busy(void)
{
	return shim_tls.guard || (shim_tls.regions && !shim_tls.hot);
}

/* 1 when the caller may go on (and must call guard_leave), 0 when the
 * shim is already busy on this thread. */
static inline int guard_enter(void)
{
	if (guard_busy())
		return 0;
	shim_tls.guard = 1;
	shim_tls.hot = NULL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return 1;
}

/* Leaves the guard, or a marker's warm path. */
static inline void guard_leave(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	shim_tls.guard = 0;
	shim_tls.hot = shim_tls.regions;
}

#endif
