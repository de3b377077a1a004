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

#endif
