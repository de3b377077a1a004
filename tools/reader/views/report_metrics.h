/* pmcshim-report -M: derived metrics (metrics/ARCH.def, tools/common/metrics_def.c)
 * as columns of the region and thread tables. */
#ifndef PMCSHIM_REPORT_METRICS_H
#define PMCSHIM_REPORT_METRICS_H

#include <stdbool.h>
#include <stdio.h>

#include "reader/data/report_model.h"
#include "reader/cells/report_cells.h"

/* -M LIST with --metrics-file FILE (or NULL): loads the definitions and
 * picks the metrics; 0, or 2 after one line on stderr. */
int metrics_choose(const char *list, const char *file);
/* --list-metrics: every definition, its formula and what it reads. 0 or 2. */
int metrics_list(FILE *out, const char *file);
/* How many metrics were chosen (each has an incl and an excl column in
 * region tables, a total column in thread tables). */
size_t metrics_count(void);
/* A chosen metric named IPC takes the place of the IPC column. */
bool metrics_replace_ipc(void);

struct metric;
/* The i-th chosen metric (NULL past the last), and its inclusive value in
 * group g (false: n/a). */
const struct metric *metrics_chosen(size_t i);
bool metrics_group_incl(const struct model *m, const struct group *g, size_t i, double *v);

/* Region tables: the headings from column col, then a row's cells; *est
 * and *partial are set when a cell carries '*' or '+'. */
void metrics_headings(struct table *t, size_t col);
void metrics_cells(struct table *t, const struct model *m, const struct group *g, bool *est,
		   bool *partial);
/* Thread tables: the headings, then a thread's totals. */
void metrics_thread_headings(struct table *t);
void metrics_thread_cells(struct table *t, const struct report *r, const struct rep_thread *th,
			  bool *mux);
/* --collapse-unavailable: the metrics no file can give get no columns
 * (metrics_notes says why). */
void metrics_collapse(const struct model *m);
/* The processes table (--by-process): a file's thread totals added (the
 * headings: metrics_thread_headings). */
void metrics_process_cells(struct table *t, const struct report *r, bool *mux);
/* CSV: the header's columns (NAME_incl, NAME_excl), a row's values. */
void metrics_csv_header(FILE *out);
void metrics_csv_values(FILE *out, const struct model *m, const struct group *g);
/* json-table: a row's "metrics" member (nothing without -M). */
void metrics_json(FILE *out, const struct model *m, const struct group *g);
/* Once after the tables: each chosen metric the reports cannot give, and
 * why. */
void metrics_notes(FILE *out, const struct model *m);

#endif
