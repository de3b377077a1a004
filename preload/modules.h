/* The loaded modules (executable and shared objects) with their load
 * address and build-id, so a reader can symbolize stacks offline. */
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

/* Returns the count (0 when out of memory); free(*out) afterwards. */
int modules_collect(struct module **out);
/* Index of the module holding addr, or -1. */
int modules_find(const struct module *m, int n, uintptr_t addr);

#endif
