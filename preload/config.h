/* Settings read once from the environment. */
#ifndef PMCSHIM_CONFIG_H
#define PMCSHIM_CONFIG_H

#include <limits.h>
#include <stddef.h>

#include "events.h"

#define CONFIG_DEFAULT_EVENTS "instructions,cycles"
#define CONFIG_DEFAULT_OUTPUT "pmcshim-%e-%p.pmc"
#define CONFIG_DEFAULT_DEPTH 8
#define CONFIG_MAX_DEPTH 64
/* Distinct region names per process: a program that makes names without
 * end (a loop counter in a name) stops costing memory and file there. */
#define CONFIG_DEFAULT_MAX_NAMES (1u << 20)
#define CONFIG_MAX_MAX_NAMES (1u << 28)

struct config {
	struct event_list events;
	int stack_depth;	/* frames above the call site */
	unsigned max_names;	/* PMCSHIM_MAX_NAMES: distinct region names */
	int quiet;
	int serialize;		/* PMCSHIM_SERIALIZE: barriers around counter reads */
	char output[PATH_MAX];	/* pattern, %p %h %e not yet expanded */
	int openmp;		/* PMCSHIM_OPENMP: OpenMP regions (default 1) */
	const char *functions;	/* PMCSHIM_FUNCTIONS, checked by functions.c; NULL: all */
};

/* Fill c from PMCSHIM_* variables; bad values get one message each and
 * the default. */
void config_load(struct config *c);

/* Expand %p (pid), %h (host), %e (executable name), %% in pattern.
 * Returns 0, or -1 when the result does not fit. */
int config_expand_output(const char *pattern, int pid, const char *host,
			 const char *exe, char *out, size_t outlen);

#endif
