/* The loaded modules (executable and shared objects) with their load
 * address and build-id, recorded in the report file so a reader can
 * symbolize stacks offline. */
#ifndef PMCSHIM_MODULES_H
#define PMCSHIM_MODULES_H

#include <limits.h>
#include <stdint.h>

struct module {
	char path[PATH_MAX];
	char build_id[2 * 64 + 1];	/* hex, empty when the module has none */
	uintptr_t base;			/* load bias (dlpi_addr) */
	uintptr_t lo, hi;		/* mapped range of its PT_LOAD segments */
};

/* Record the modules of pcs not yet in the file (a new stack met them:
 * recorded now, they still symbolize after a dlclose). The first call
 * records every module then loaded: a process that records no address
 * never reads the module list. */
void modules_note(const uintptr_t *pcs, int n);
/* Held across fork() (taken after the stacks lock, as stacks_intern does). */
void modules_lock(void);
void modules_unlock(void);

#endif
