/* Output: aligned tables for people (report_table.c), CSV, JSON and folded
 * stacks for programs (report_formats.c), and the diff of two reports
 * (report_diff.c). */
#ifndef PMCSHIM_REPORT_RENDER_H
#define PMCSHIM_REPORT_RENDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "reader/data/report_model.h"
#include "reader/data/report_util.h"

/* ---- numbers for people ---- */

enum how { H_COUNT, H_TIME, H_EXACT, H_PLAIN };

/* Three significant digits and a unit ("12.3 ms", "1.23 G", "456 k"),
 * H_EXACT with thousands separators ("12,772"), or H_PLAIN the digits
 * alone ("12772"). b: at least 32 bytes. */
char *fmt_num(char *b, uint64_t v, enum how how);
/* How event e (of the model; -1: wall time) is shown. */
enum how how_of(const struct model *m, int e);
/* v of sum s, marked '*' when estimated (or with --raw, measured only part
 * of the time); "n/a" without a value ("n/a*": never counted). b: at
 * least 40 bytes. */
const char *est_cell(char *b, const struct sum *s, uint64_t v, enum how how);

/* ---- notes under a file's heading ---- */

/* What calibration takes out of every value (the first calibrated
 * thread's figures: every thread runs the same marker code), or that the
 * values are raw; true when values are calibrated. */
bool note_calibration(FILE *out, const struct report *r);
/* That n rows were below the markers' own cost, shown as 0 (nothing when
 * n is 0). */
void note_below(FILE *out, size_t n);
/* That the file is shorter than its records (cut short on disk, or
 * shrinking while read), or was cut under the running program. */
void note_short(FILE *out, const struct report *r);

/* ---- MPI ranks (report_ranks.c) ---- */

/* ", rank 3 of 4" for a file of an MPI rank, else "". b: 48 bytes. */
const char *rank_text(char *b, const struct report *r);
/* A rank that ended without MPI_Finalize, or called it twice: one line. */
void note_mpi(FILE *out, const struct report *r);
/* The ranks' section: one row per rank, then each region's spread across
 * the ranks (min, mean, max of the weight, the rank that took longest).
 * Shown when the files hold two ranks or more, or always with --ranks. */
void render_ranks(FILE *out, const struct model *m);

/* ---- aligned tables ---- */

struct table {
	size_t ncol, n, cap;
	char **cell;			/* row-major */
	unsigned char *left;		/* per column: text, left-aligned */
	size_t nspan, spancap;
	struct span {
		size_t col, ncol;
		char *text;
	} *span;			/* a heading over several columns */
};

void tbl_init(struct table *t, size_t ncol);
void tbl_left(struct table *t, size_t col);
void tbl_span(struct table *t, size_t col, size_t ncol, const char *text);
void PRINTF(2, 3) tbl_put(struct table *t, const char *fmt, ...);
/* Prints with column widths from the data, then frees the cells. */
void tbl_print(struct table *t, FILE *out);

/* ---- machine formats ---- */

/* s as a JSON string, quoted and escaped. */
void json_string(FILE *out, const char *s);
/* s as a CSV field: quoted when it holds a comma, quote or line break. */
void csv_field(FILE *out, const char *s);

/* ---- the outputs ---- */

void render_table(FILE *out, struct model *m);
/* The totals (report_totals.c): the run's, perf stat's way, then one row
 * per process; hide_unavailable: no columns for events no thread could
 * count. */
void render_totals(FILE *out, const struct model *m, bool hide_unavailable);
/* --totals --format csv: a row for the run, then one per process. */
void render_totals_csv(FILE *out, const struct model *m);
/* --collapse-unavailable: events without a value in any row of a table get
 * no columns there, one note instead. */
void render_table_collapse(bool on);
void render_csv(FILE *out, struct model *m);
void render_json_table(FILE *out, struct model *m);
/* --format json: each file in full, as a document shaped like version 1
 * (docs/report-format.md); several files: an array of them. */
void render_export(FILE *out, struct model *m);
void render_folded(FILE *out, struct model *m);

/* pmcshim-report --watch: per-interval changes of a running process's
 * file until it ends, as the tables show values (raw: as measured); 0, or
 * 2 when the file cannot be read. */
int run_watch(FILE *out, const char *path, double interval, bool raw);

/* pmcshim-report diff: BEFORE and AFTER, regions merged over threads. */
int run_diff(FILE *out, struct report *before, struct report *after, const struct opts *o,
	     char *why, size_t whylen);

#endif
