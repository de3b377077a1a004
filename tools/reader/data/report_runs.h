/* Run directories: wherever the reader takes a report file it takes a
 * directory of them too (the launcher's run directory), as its *.pmc files
 * in name order, and the launcher's .totals.PID (its count of the run). Each argument is one part: diff compares two parts (two
 * runs), --repeat one part per run. */
#ifndef PMCSHIM_REPORT_RUNS_H
#define PMCSHIM_REPORT_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct runs {
	size_t n;			/* report files */
	char **path;
	uint32_t *part;			/* [file]: the argument it came from */
	size_t nparts;			/* the arguments */
	bool any_dir;			/* some argument was a directory */
};

/* The files of args. 0, or -1 after one line on stderr naming the
 * argument (a directory with no report in it, one that cannot be read). */
int runs_expand(struct runs *r, char *const *args, size_t nargs);
void runs_free(struct runs *r);

/* The launchers' totals files (rf_job: DIR/.totals.PID) among r's files,
 * taken out of them into *jobs (*njobs of them, the caller frees *jobs);
 * 0, or -1 after one line naming a damaged one. */
struct rf_job;
int runs_take_jobs(struct runs *r, struct rf_job **jobs, size_t *njobs);

#endif
