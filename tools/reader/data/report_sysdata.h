/* A report of pmcshim --system (RF_SYSTEM), read straight from its
 * records (docs/report-format.md, "System reports"): what the system
 * views (tools/reader/views/report_system.c, report_html_system.c) show. */
#ifndef PMCSHIM_REPORT_SYSDATA_H
#define PMCSHIM_REPORT_SYSDATA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format/reportfile.h"

struct sent {
	const struct rf_sys_entity *e;
	uint64_t v[RF_EVENTS_MAX];	/* totals over the run */
	uint64_t busy;			/* ns of busy or CPU time */
	uint64_t end_ns;		/* a process's end, 0: still running */
	int offline;			/* a CPU: went offline during the run */
	size_t first, last;		/* its values records (sys.val), SIZE_MAX: none */
};

struct sys {
	struct rf_file f;
	const struct rf_sys_run *run;
	const struct rf_event *ev[RF_EVENTS_MAX];
	uint32_t nev;
	struct sent *ent;
	uint32_t nent;
	const struct rf_sys_interval **iv;
	uint32_t niv;
	const struct rf_sys_values **val;	/* in the file's order (by interval) */
	size_t *next;			/* [k]: the entity's values after val[k], SIZE_MAX: none */
	size_t nval;
	const struct rf_sys_end **cpuev;	/* CPUs going offline and coming back */
	size_t ncpuev;
};

/* Whether path is a system report (RF_SYSTEM); 0 when not, or unreadable. */
int system_is_report(const char *path);
/* path's records into s (zeroed); 0, or -1 after one line on stderr. */
int sysdata_load(struct sys *s, const char *path);
void sysdata_free(struct sys *s);
/* ns (boottime) as seconds into the run. */
double sysdata_secs(const struct sys *s, uint64_t ns);
/* The run's length: the last closed interval's end. */
uint64_t sysdata_run_ns(const struct sys *s);
/* Event name's index, -1 when not one. */
int sysdata_event(const struct sys *s, const char *name);
/* The processes, heaviest first (by event's total, else CPU time), in
 * *out (freed by the caller); returns how many. */
size_t sysdata_processes(const struct sys *s, const struct sent ***out, const char *event);
/* Where CPUs went offline and came back, one line each on out, each line
 * begun with lead: "CPU 1 offline from t=0.52 s to t=1.03 s". */
void sysdata_cpu_spans(FILE *out, const struct sys *s, const char *lead);

#endif
