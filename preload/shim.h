/* The markers as the shim's own sources of regions use them (mpi.c): the
 * region's name registered like a marker's, begin and end charged to the
 * application's call site. */
#ifndef PMCSHIM_SHIM_H
#define PMCSHIM_SHIM_H

#include <stdint.h>

/* The id of a region name; 0 when the shim is not recording. */
uint32_t shim_name(const char *name);
/* caller: the return address into the application. */
void shim_begin_at(uint32_t id, uintptr_t caller);
void shim_end_at(uint32_t id);

#endif
