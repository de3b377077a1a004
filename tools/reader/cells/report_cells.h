/* Cells of the tables and exports: numbers for people, aligned tables,
 * a value's cell with its marks. Below the views (views/), above the
 * model (data/). */
#ifndef PMCSHIM_REPORT_CELLS_H
#define PMCSHIM_REPORT_CELLS_H

#include <stddef.h>
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

#endif
