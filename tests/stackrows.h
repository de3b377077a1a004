/* A report's call-site stacks as rows of text, to compare the stacks of
 * two runs (two stack methods) row for row: tests/test_stack_methods.c on
 * the host, tests/vm/check.c on the arm64 guest's reports. */
#ifndef PMCSHIM_TEST_STACKROWS_H
#define PMCSHIM_TEST_STACKROWS_H

#include <jansson.h>

#define ROWS_MAX 256
#define ROW_LEN 1024

/* One report's rows as sorted strings "region calls module+offset ...":
 * equal lists mean the same stacks, row for row. */
struct rows {
	int n;
	int other_method;	/* rows whose stack's method is not the one asked */
	int through_shim;	/* rows with a frame in the shim (its thread start
				 * routine where not a tail call: under ASan) */
	char s[ROWS_MAX][ROW_LEN];
};

/* Rows of region (NULL: all) in every thread of rep, a report of a run
 * with PMCSHIM_STACK_METHOD=method; how many have a stack another method
 * gave than method's. */
void rows_collect(json_t *rep, const char *region, const char *method, struct rows *out);

/* The first row that differs, or NULL when the lists are equal. */
const char *rows_differ(const struct rows *a, const struct rows *b);

/* Each frame without its offset (its module kept; module's frames named
 * as as), the list sorted again: the stacks' shape, to compare two builds
 * of one program whose code differs (with and without pac-ret). */
void rows_shape(struct rows *r, const char *module, const char *as);

/* The frames of a row. */
int row_frames(const char *row);

#endif
