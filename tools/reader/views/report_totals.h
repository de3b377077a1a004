/* Totals: what every thread counted (rf_thread totals and CPU time, the
 * time before the shim set up added), summed per process and over the
 * whole run, the way perf stat counts a command. They need no markers: a
 * program without any still gets them. The table is render_totals
 * (report_render.h). */
#ifndef PMCSHIM_REPORT_TOTALS_H
#define PMCSHIM_REPORT_TOTALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "reader/data/report_model.h"

/* How the processes ended: "24 exited, 1 exec'd" (b: at least 160). */
const char *totals_states(const struct model *m, char *b, size_t len);

/* The totals of process f (SIZE_MAX: the run) as one JSON object. */
void totals_json(FILE *out, const struct model *m, size_t f);

/* A total as plain numbers, for the views that compare or repeat them
 * (diff, --repeat, --by-command): processes, reports and threads, wall
 * and CPU time, each of the model's events (have[e]: it has a value). */
struct total_values {
	size_t nproc, nreports, nthreads;
	bool has_wall, has_cpu;
	uint64_t wall_ns, cpu_ns;
	uint64_t *value;		/* [m->nev] */
	bool *have;			/* [m->nev] */
};

/* The totals of file f, or of the run (f = SIZE_MAX: the launchers'
 * counts where the model has them, m->jobs), as the table shows them;
 * totals_values_free frees their arrays. */
void totals_values(const struct model *m, size_t f, struct total_values *out);
void totals_values_free(struct total_values *v);

#endif
