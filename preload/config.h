/* Settings read once from the environment. */
#ifndef PMCSHIM_CONFIG_H
#define PMCSHIM_CONFIG_H

#include <limits.h>
#include <stddef.h>

#include "events.h"

#define CONFIG_DEFAULT_EVENTS "instructions,cycles"
#define CONFIG_DEFAULT_OUTPUT "pmcshim-%e-%p.pmc"
/* The default for a rank of an MPI job (the rank known from the
 * launcher's environment at start): the ranks' files sort by rank. */
#define CONFIG_DEFAULT_OUTPUT_RANK "pmcshim-%e-r%r-%p.pmc"
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
	int mpi;		/* PMCSHIM_MPI: MPI calls become regions (mpi.c) */
	char rank[16];		/* the MPI job rank from the launcher's environment,
				 * zero-padded to the job size's digits; "" when none */
	char output[PATH_MAX];	/* pattern, %p %h %e not yet expanded */
};

/* Fill c from PMCSHIM_* variables; bad values get one message each and
 * the default. */
void config_load(struct config *c);

/* Expand %p (pid), %h (host), %e (executable name), %r (rank: the MPI
 * job rank, "" outside a job), %% in pattern. Returns 0, or -1 when the
 * result does not fit. */
int config_expand_output(const char *pattern, int pid, const char *host,
			 const char *exe, const char *rank, char *out, size_t outlen);
/* The rank and size of an MPI job's process as its launcher tells it
 * before MPI_Init: Open MPI, PMIx, MPICH's Hydra (PMI), Slurm's srun.
 * 0, or -1 outside a job; *size -1 when not told. */
int config_mpi_rank(long *rank, long *size);
/* The default output pattern: with the rank in it in an MPI job. */
const char *config_default_output(const struct config *c);

#endif
