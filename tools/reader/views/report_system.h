/* The system views (report_system.c): reports of pmcshim --system. */
#ifndef PMCSHIM_REPORT_SYSTEM_H
#define PMCSHIM_REPORT_SYSTEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "reader/data/report_sysdata.h"

enum system_format { SYS_TABLE, SYS_CSV, SYS_JSON, SYS_HTML };

struct system_view_opts {
	enum system_format format;
	bool intervals;			/* --intervals: a row per interval */
	size_t top;			/* --top: processes shown, 0: 20 (csv, json: all) */
	const char *event;		/* --event: the processes' order, NULL: CPU time */
	double watch;			/* --watch: seconds between reads */
};

/* The view on out; 0, or 2 after one line on stderr. */
int system_view(FILE *out, const char *path, const struct system_view_opts *o);
/* --watch: each interval as it closes, until the run ends. */
int system_watch(FILE *out, const char *path, const struct system_view_opts *o);
/* diff BEFORE AFTER: per CPU and per command, each event's values and
 * their ratio (table, csv or json). */
int system_diff(FILE *out, const char *before, const char *after,
		const struct system_view_opts *o);
/* --format json of s: one document, path its "file"; the first top
 * processes of p (n, heaviest first). */
void system_json(FILE *out, const struct sys *s, const char *path, const struct sent **p,
		 size_t n, size_t top);
/* --format html (report_html_system.c): each CPU's and each top
 * process's values over time. */
void system_html(FILE *out, const struct sys *s, const char *path, const struct sent **p,
		 size_t n, size_t top);

#endif
