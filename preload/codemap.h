/* Where the loaded modules' code is: a cached, sorted list of the
 * executable segments of every object dl_iterate_phdr reports, so that the
 * frame-pointer walker can tell a return address from garbage. */
#ifndef PMCSHIM_CODEMAP_H
#define PMCSHIM_CODEMAP_H

#include <stdint.h>

struct codemap_range {
	uintptr_t lo, hi;
	int tramp;	/* may hold the signal return trampoline */
};

/* Build the table now (at load time: the objects loaded then are the
 * ones whose signal trampoline codemap_is_sigreturn recognises). */
void codemap_init(void);

/* The segment of this thread's last hit: a stack's return addresses
 * mostly lie in one module, so most checks end here. */
extern __thread struct codemap_range codemap_last;

/* 1 when pc lies in an executable segment of a loaded module (and then
 * codemap_last holds it). A miss re-reads the module list once when
 * objects were loaded or unloaded since it was last read. */
int codemap_lookup(uintptr_t pc);

/* 1 when pc, in a segment with tramp set that ends at hi, is the signal
 * return trampoline: the frame above it is the kernel's signal frame,
 * which has no frame record. */
int codemap_is_sigreturn(uintptr_t pc, uintptr_t hi);

#endif
