/* Settings read once from the environment. */
#ifndef PMCSHIM_CONFIG_H
#define PMCSHIM_CONFIG_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "counters/events.h"
#include "format/reportfile.h"

/* The default events: these where the hardware PMU counts them, else the
 * software events perf stat counts without one (config_default_events). */
#define CONFIG_DEFAULT_EVENTS "instructions,cycles"
#define CONFIG_SOFTWARE_EVENTS "task-clock,context-switches,page-faults"
#define CONFIG_DEFAULT_OUTPUT "pmcshim-%e-%p.pmc"
/* The default for a rank of an MPI job (the rank known from the
 * launcher's environment at start): the ranks' files sort by rank. */
#define CONFIG_DEFAULT_OUTPUT_RANK "pmcshim-%e-r%r-%p.pmc"
#define CONFIG_DEFAULT_DEPTH 8
#define CONFIG_MAX_DEPTH 64
/* PMCSHIM_FUNCTIONS=sampled's rate when PMCSHIM_SAMPLE is not set: a
 * 1 ms period of CPU time (gprof's is 10 ms). A sample costs a signal
 * and a system call: at perf record's 4000 a second, Lua 5.4 under the
 * counted hooks ran 0.45-0.55 s, at 1000 0.36-0.39 s, gprof 0.31-0.41 s */
#define CONFIG_FUNCTIONS_SAMPLE 1000
#define CONFIG_MAX_SAMPLE 100000	/* PMCSHIM_SAMPLE: the kernel's floor is a 10 us period */
/* Distinct region names per process: a program that makes names without
 * end (a loop counter in a name) stops costing memory and file there. */
#define CONFIG_DEFAULT_MAX_NAMES (1u << 20)
#define CONFIG_MAX_MAX_NAMES (1u << 28)

/* How a stack was captured (stacks.h: stacks_last_method), and what
 * PMCSHIM_STACK_METHOD asks for: auto (the default: on x86-64 and arm64
 * the unwind tables, libunwind for a walk where they cannot prove a
 * frame; elsewhere frame pointers when the chain gives every frame asked
 * for, else libunwind), tables (the unwind tables only: a frame they
 * cannot prove ends the stack; x86-64 and arm64), fp (frame pointers
 * only: a broken chain gives a short stack, at least the call site),
 * unwind (libunwind only). */
enum {
	STACKS_NONE = RF_STACK_CALLER,	/* the call site alone (depth 0, no capture) */
	STACKS_FP = RF_STACK_FP,	/* frame-pointer walk */
	STACKS_UNWIND = RF_STACK_UNWIND,	/* libunwind's unw_backtrace */
	STACKS_TABLES = RF_STACK_TABLES,	/* the unwind-table walk */
	STACKS_AUTO = -1		/* a setting only, never a result */
};

/* PMCSHIM_SAMPLE=EVENT@PERIOD: a sample every PERIOD counts of EVENT
 * (any name PMCSHIM_EVENTS takes; ns for a clock). */
#define CONFIG_MIN_SAMPLE_PERIOD 1000	/* fewer: the program would run its handler */
#define CONFIG_MAX_SAMPLE_PERIOD (UINT64_C(1) << 48)
struct sample_by {
	int set;			/* 0: the default event at sample per second */
	struct event_spec event;
	uint64_t period;
};

/* Every PMCSHIM_* variable the shim reads is a row of the table in
 * config.c (its name, how it is checked, its default, its field here). */
struct config {
	struct event_list events;	/* PMCSHIM_EVENTS */
	/* PMCSHIM_EVENTS unset (or bad): the events were chosen for this
	 * machine (config_default_events), and events_why says why when they
	 * are the software ones ("" when the PMU's). */
	int events_default;
	char events_why[200];
	/* Bit i: event i is counted per thread only, never per region (its
	 * thread's totals; sites keep no value of it): a default event read
	 * only through read(), which would put two system calls in every
	 * marker pair (config_per_thread); the function hooks add theirs. */
	uint32_t per_thread;
	int stack_depth;	/* PMCSHIM_STACK_DEPTH: frames above the call site */
	int stack_method;	/* PMCSHIM_STACK_METHOD: STACKS_AUTO, _FP or _UNWIND */
	int max_names;		/* PMCSHIM_MAX_NAMES: distinct region names */
	int quiet;		/* PMCSHIM_QUIET */
	int serialize;		/* PMCSHIM_SERIALIZE: barriers around counter reads */
	int mpi;		/* PMCSHIM_MPI: MPI calls become regions (mpi.c) */
	char rank[16];		/* the MPI job rank from the launcher's environment,
				 * zero-padded to the job size's digits; "" when none */
	char output[PATH_MAX];	/* PMCSHIM_OUTPUT: pattern, %p %h %e %r not yet expanded */
	int openmp;		/* PMCSHIM_OPENMP: OpenMP regions (default 1) */
	const char *functions;	/* PMCSHIM_FUNCTIONS, checked by functions.c; NULL: all */
	int sample;		/* PMCSHIM_SAMPLE: nonzero: sampling (preload/sample/);
				 * the samples a second of each thread's CPU time,
				 * or 1 when sample_by names an event */
	struct sample_by sample_by;	/* PMCSHIM_SAMPLE=EVENT@PERIOD */
	int functions_sampled;	/* PMCSHIM_FUNCTIONS has `sampled`: function hooks
				 * count calls, task-clock samples give their time
				 * (sampling on, at CONFIG_FUNCTIONS_SAMPLE without
				 * PMCSHIM_SAMPLE) */
	/* Other tools' annotations taken as regions (default 1): */
	int likwid;		/* PMCSHIM_LIKWID: LIKWID's marker API (likwid.c) */
	int papi;		/* PMCSHIM_PAPI: PAPI's high-level API (papihl.c) */
	int nvtx;		/* PMCSHIM_NVTX: NVTX ranges (nvtx.c) */
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

/* Expand %p (pid), %h (host), %e (executable name), %r (rank: the MPI
 * job rank, "" outside a job), %% in pattern. Returns 0, or -1 when the
 * result does not fit. */
int config_expand_output(const char *pattern, int pid, const char *host,
			 const char *exe, const char *rank, char *out, size_t outlen);
/* The rank and size of an MPI job's process as its launcher tells it
 * before MPI_Init: Open MPI, PMIx, MPICH's Hydra (PMI), Slurm's srun.
 * 0, or -1 outside a job; *size -1 when not told. */
int config_mpi_rank(long *rank, long *size);
/* PMCSHIM_SAMPLE's value (and the launcher's --sample=): "HZ" (0..
 * CONFIG_MAX_SAMPLE samples a second; *hz set, by->set 0) or
 * "EVENT@PERIOD" (*hz 1, by filled). 0, or -1 with what is wanted in
 * err. */
int config_parse_sample(const char *v, int *hz, struct sample_by *by, char *err, size_t len);
/* The default events for this machine: CONFIG_DEFAULT_EVENTS where the
 * hardware PMU counts, else CONFIG_SOFTWARE_EVENTS with why (a line's
 * worth: why not the PMU's) in why; why is "" for the PMU's. */
const char *config_default_events(char *why, size_t len);
/* The events of list that count only through read() (no user-space read:
 * software events): bit i for list->ev[i]. */
uint32_t config_read_only(const struct event_list *list);
/* The default output pattern: with the rank in it in an MPI job. */
const char *config_default_output(const struct config *c);

#endif
