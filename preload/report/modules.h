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
 * never reads the module list. Returns the newest load generation
 * (rf_module.gen) of the modules that hold pcs (0: none), which the
 * address records carry (rf_stack_gen, rf_origin_gen): after a dlclose
 * the module list is read again, and one loaded in the range of an
 * unloaded one gets a record of its own, of a later generation. */
uint32_t modules_note(const uintptr_t *pcs, int n);
/* Held across fork() (taken after the stacks lock, as stacks_intern does). */
void modules_lock(void);
void modules_unlock(void);

#endif
