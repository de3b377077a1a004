/* Where the shim itself lies: the range its own PT_LOAD segments are
 * mapped at, found once. Stack walks skip the shim's frames by it, and
 * the sampled function hooks leave a sample taken in the shim's code to
 * the hooks. */
#ifndef PMCSHIM_SELF_H
#define PMCSHIM_SELF_H

#include <stdint.h>

/* [*lo, *hi), found the first time (dl_iterate_phdr takes the loader's
 * lock: not from a signal handler). */
void self_range(uintptr_t *lo, uintptr_t *hi);
/* Whether pc lies in the shim, by the range once found (false before):
 * for a signal handler. */
int self_holds(uintptr_t pc);

#endif
