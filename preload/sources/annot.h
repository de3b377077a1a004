/* Regions that other tools' annotations name (LIKWID's marker API, PAPI's
 * high-level API, NVTX): begun and ended by a name given at each call,
 * recorded like a marker's under the tool's source. */
#ifndef PMCSHIM_ANNOT_H
#define PMCSHIM_ANNOT_H

#include <stdint.h>

#include "format/reportfile.h"

/* The id of name from source (0: not recorded: the shim is not, or the
 * names limit was reached). A per-thread cache of the last names, keyed
 * by their text, spares the shared table's lock at each call. */
uint32_t annot_id(const char *name, enum rf_from source);

/* Begin and end by name; 0, or -1 when not recorded. errno is kept. */
int annot_begin(const char *name, enum rf_from source, uintptr_t caller);
int annot_end(const char *name, enum rf_from source);

/* The calling thread's sums for region name of source (count 0 when
 * none): calls, inclusive wall seconds and up to *nev event counts
 * (*nev becomes the number filled). */
void annot_sums(const char *name, enum rf_from source, uint64_t *calls, double *seconds,
		double *ev, int *nev);

#endif
