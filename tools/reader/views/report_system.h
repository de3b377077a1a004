/* The system view (report_system.c): reports of pmcshim --system. */
#ifndef PMCSHIM_REPORT_SYSTEM_H
#define PMCSHIM_REPORT_SYSTEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "reader/data/report_sysdata.h"

struct system_view_opts {
	bool csv;			/* --format csv */
	bool intervals;			/* --intervals: a row per interval */
	size_t top;			/* --top: processes shown, 0: 20 (csv: all) */
	const char *event;		/* --event: the processes' order, NULL: CPU time */
};

/* The view on out; 0, or 2 after one line on stderr. */
int system_view(FILE *out, const char *path, const struct system_view_opts *o);

#endif
