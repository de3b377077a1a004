/* Native event names (the CPU's own PMU tables: INST_RETIRED,
 * MEM_LOAD_RETIRED.L3_MISS, ...) through libpfm4, loaded with
 * dlopen(RTLD_LOCAL) only when a name is not one of perf's: the shim has
 * no link dependency on it, and without it generic names keep working. */
#ifndef PMCSHIM_PFM_H
#define PMCSHIM_PFM_H

#include <stddef.h>
#include <stdint.h>

struct native_attr {
	uint32_t type;
	uint64_t config, config1, config2;
};

/* Encode name (no pmcshim modifier) for perf_event_open. 0, or -1 with
 * the reason in err (libpfm4 missing, CPU not recognised, not found). */
int native_encode(const char *name, struct native_attr *out, char *err, size_t errlen);

/* Call fn (if not NULL) with every native event name of the CPU's PMUs.
 * Returns the number of names, or -1 with why in err (as for
 * native_encode). pmus gets the recognised PMUs, "name (description)",
 * comma separated. */
int native_each(void (*fn)(void *arg, const char *name), void *arg,
		char *pmus, size_t pmuslen, char *err, size_t errlen);

#endif
