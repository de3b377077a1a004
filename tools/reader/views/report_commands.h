/* Processes by command (report_commands.c): the files grouped by the
 * executable they ran (--by-command, and diff's rows per executable), and
 * a process's command line as a row shows it, enough of it to tell rows
 * that run the same executable apart. */
#ifndef PMCSHIM_REPORT_COMMANDS_H
#define PMCSHIM_REPORT_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "reader/data/report_model.h"
#include "report_totals.h"

/* The files of one part (a diff's side; 0 without parts) that ran one
 * executable: t sums their totals (nproc: distinct processes; wall not
 * kept: they ran at various times). */
struct command {
	const char *executable;		/* as recorded */
	const char *shown;		/* its base name, or the path where two share it */
	uint32_t part;
	struct total_values t;
};

/* The model's commands, by part, then heaviest by CPU time first (then by
 * name); *n of them. commands_free frees them. */
struct command *commands_of(const struct model *m, size_t *n);
void commands_free(struct command *c, size_t n);

/* --by-command: a row per executable (processes, threads, CPU, each event
 * with shown[e]), heaviest by CPU time first. */
void render_by_command(FILE *out, const struct model *m, const bool *shown);

/* --by-command --totals --format csv: a row per executable (scope
 * "command"), in the columns of the totals' CSV (no pid, state, wall,
 * enabled and running times: they belong to processes). */
void commands_csv(FILE *out, const struct model *m);

/* The command lines of the files with row[f], as their rows show them, at
 * most width characters each: the program's base name and its arguments;
 * a line too long where other rows run the same executable leaves out
 * ("…") the arguments all of those share, so what tells them apart shows.
 * [m->nfiles], NULL where !row[f]; command_cells_free frees them. */
char **command_cells(const struct model *m, const bool *row, size_t width);
void command_cells_free(char **cells, size_t n);

#endif
