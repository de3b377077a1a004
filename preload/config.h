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

/* Every PMCSHIM_* variable the shim reads is a row of the table in
 * config.c (its name, how it is checked, its default, its field here). */
struct config {
	struct event_list events;	/* PMCSHIM_EVENTS */
	int stack_depth;	/* PMCSHIM_STACK_DEPTH: frames above the call site */
	int stack_method;	/* PMCSHIM_STACK_METHOD: STACKS_AUTO, _FP or _UNWIND */
	int max_names;		/* PMCSHIM_MAX_NAMES: distinct region names */
	int quiet;		/* PMCSHIM_QUIET */
	int serialize;		/* PMCSHIM_SERIALIZE: barriers around counter reads */
	char output[PATH_MAX];	/* PMCSHIM_OUTPUT: pattern, %p %h %e not yet expanded */
};

/* Fill c from PMCSHIM_* variables; a bad value gets one line naming the
 * variable and what is used instead (the default). */
void config_load(struct config *c);

/* For the launcher, once for the whole run: check the variables its
 * processes will read, all but those named in skip (NULL-terminated: the
 * ones it sets itself), each bad one said in one line and removed from
 * the environment, so each process takes the default without saying so
 * again. Returns the number of bad ones. */
int config_check_env(const char *const *skip);

/* Expand %p (pid), %h (host), %e (executable name), %% in pattern.
 * Returns 0, or -1 when the result does not fit. */
int config_expand_output(const char *pattern, int pid, const char *host,
			 const char *exe, char *out, size_t outlen);

#endif
