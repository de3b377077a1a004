/* What the sources of regions (sources/: OpenMP, MPI, -finstrument-functions)
 * hand the process's lifecycle. The lifecycle knows no source by name: each
 * registers its hooks from a constructor of its own, and the lifecycle
 * calls them at the moments below. Dependencies run one way: a source may
 * use the lifecycle (shim.h, threads.h), never the reverse. */
#ifndef PMCSHIM_HOOKS_H
#define PMCSHIM_HOOKS_H

#include "settings/config.h"
#include "lifecycle/threads.h"

struct shim_hooks {
	/* Once, when the process starts recording (before its first region). */
	void (*setup)(const struct config *c);
	/* A thread ends, before its open regions are closed. */
	void (*thread_finish)(struct thread_state *t);
	/* The process stops recording (exit, _exit, exec). */
	void (*end)(void);
	/* After setup, before the first thread opens its counters: the
	 * events of c->events (bit i) that this source's regions must not
	 * read per call, counted per thread only (rf_event.per_thread). */
	uint32_t (*per_thread)(const struct config *c);
};

/* From a constructor. The shim may have been set up already (another
 * library's constructor marked first): setup is then called at once. */
void hooks_register(const struct shim_hooks *h);

/* The lifecycle's calls: each registered hook in turn. */
void hooks_setup(const struct config *c);
void hooks_thread_finish(struct thread_state *t);
void hooks_end(void);
/* The union of the sources' per_thread. */
uint32_t hooks_per_thread(const struct config *c);

#endif
