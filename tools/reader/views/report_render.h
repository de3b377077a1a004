/* Output: aligned tables for people (report_table.c), CSV, JSON and folded
 * stacks for programs (report_formats.c), and the diff of two reports
 * (report_diff.c). Their numbers, tables and escaped strings come from
 * reader/cells/. */
#ifndef PMCSHIM_REPORT_RENDER_H
#define PMCSHIM_REPORT_RENDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "reader/data/report_model.h"
#include "reader/data/report_util.h"

/* ---- MPI ranks (report_ranks.c) ---- */

/* ", rank 3 of 4" for a file of an MPI rank, else "". b: 48 bytes. */
const char *rank_text(char *b, const struct report *r);
/* A rank that ended without MPI_Finalize, or called it twice: one line. */
void note_mpi(FILE *out, const struct report *r);
/* The ranks' section: one row per rank, then each region's spread across
 * the ranks (min, mean, max of the weight, the rank that took longest).
 * Shown when the files hold two ranks or more, or always with --ranks. */
void render_ranks(FILE *out, const struct model *m);

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
int run_watch(FILE *out, const char *path, const struct opts *o);

/* pmcshim-report diff: BEFORE and AFTER (files[i] is on side[i]: 0 before,
 * 1 after; a side is a report or a run directory's reports, named name[]),
 * regions merged over threads and processes. */
int run_diff(FILE *out, struct report **files, size_t n, const uint32_t *side,
	     const char *const name[2], const struct opts *o, char *why, size_t whylen);

#endif
