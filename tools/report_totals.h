/* Totals: what every thread counted from its setup to its end (rf_thread
 * totals and CPU time), summed per process and over the whole run, the
 * way perf stat counts a command. They need no markers: a program without
 * any still gets them. */
#ifndef PMCSHIM_REPORT_TOTALS_H
#define PMCSHIM_REPORT_TOTALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report_model.h"

/* One event summed over threads. Each thread with the event open adds its
 * value (the scaled estimate where multiplexed, unless raw) and its
 * enabled and running times; have counts the threads with a value, lack
 * those without one (no totals yet, lost, never on a counter), absent
 * those where the event is not open at all (unavailable). */
struct tval {
	uint64_t value, enabled, running;
	uint32_t have, lack, absent;
	uint32_t not_counted;		/* of lack: open, never on a counter */
	bool mux;			/* some value counted only part of its time */
};

/* A process, or the run (all processes). A process that exec'd has a
 * report per program it ran: nreports counts those, nproc and nthreads
 * the processes and threads (by pid and tid on each host) as perf stat
 * would. */
struct ptotal {
	size_t nreports, nproc, nthreads;
	uint64_t wall_ns;		/* the run: first start to last end */
	bool has_wall;
	uint64_t cpu_ns;		/* threads' CPU time (user + system) */
	uint32_t cpu_have, cpu_lack;
	/* CPU time the threads ran before the shim began with them (exec,
	 * loading), from their CPU clocks; added to time events' values and
	 * to cpu_ns, as perf stat counts from exec. before_have: threads that
	 * tell it. */
	uint64_t before_ns;
	uint32_t before_have;
	struct tval *ev;		/* [m->nev], the model's events */
};

/* Event e of the model in process f, or over the run (f = SIZE_MAX).
 * Free with ptotal_free. */
void ptotal_of(const struct model *m, size_t f, struct ptotal *out);
void ptotal_free(struct ptotal *p);

/* A tval's value as perf stat counts it: false when no thread had one. */
bool tval_value(const struct tval *v, uint64_t *out);
/* running / enabled summed (1: always counting); false without times. */
bool tval_coverage(const struct tval *v, double *out);
/* Why there is no value: "not supported" (no thread could open it), "not
 * counted" (open, never on a counter), else "n/a" (no totals: a thread
 * still running or ended without a word). */
const char *tval_missing(const struct tval *v);

/* How the processes ended: "24 exited, 1 exec'd" (b: at least 160). */
const char *totals_states(const struct model *m, char *b, size_t len);

/* The totals of process f (SIZE_MAX: the run) as one JSON object. */
void totals_json(FILE *out, const struct model *m, size_t f);

#endif
