/* The per-process JSON report (docs/report-format.md), written at exit. */
#ifndef PMCSHIM_REPORT_H
#define PMCSHIM_REPORT_H

#include <stdio.h>

#include "config.h"
#include "counters.h"

#define REPORT_FORMAT "pmcshim-report"
#define REPORT_VERSION 1

struct report_info {
	const struct config *cfg;
	const struct event_status *status;	/* one per configured event */
	int forked;
	int argc;
	char **argv;
	const char *exe_name;
};

/* Write the report to cfg->output (expanded); if that fails, to
 * $TMPDIR (or /tmp), saying so on stderr. Returns 0 if written. */
int report_write(const struct report_info *ri);

/* Write the whole report to f (for tests and report_write). */
void report_emit(FILE *f, const struct report_info *ri);

#endif
