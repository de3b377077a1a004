/* Notes under a file's heading, the same in every view that has one: the
 * table, --watch. */
#ifndef PMCSHIM_REPORT_NOTES_H
#define PMCSHIM_REPORT_NOTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "reader/data/report_load.h"

/* What calibration takes out of every value (the first calibrated
 * thread's figures: every thread runs the same marker code), or that the
 * values are raw; true when values are calibrated. */
bool note_calibration(FILE *out, const struct report *r);
/* Where function regions were counted, not timed (PMCSHIM_FUNCTIONS=
 * sampled): what their time is. */
void note_fn_sampled(FILE *out, const struct report *r);
/* That n rows were below the markers' own cost, shown as 0 (nothing when
 * n is 0). */
void note_below(FILE *out, size_t n);
/* That the file is shorter than its records (cut short on disk, or
 * shrinking while read), or was cut under the running program. */
void note_short(FILE *out, const struct report *r);

/* How many calls were closed by resynchronisation (their end not seen:
 * a longjmp, an exception, an outer region's end), in how many regions;
 * nothing when none was. */
void note_resync(FILE *out, const struct report *r);
/* The calls closed by resynchronisation in r, and in how many regions. */
uint64_t resync_calls(const struct report *r, size_t *regions);

#endif
