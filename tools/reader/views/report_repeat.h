/* pmcshim-report --repeat (report_repeat.c). */
#ifndef PMCSHIM_REPORT_REPEAT_H
#define PMCSHIM_REPORT_REPEAT_H

#include <stdio.h>

#include "reader/data/report_model.h"

/* paths: one run each (a report file, or a directory of one run's
 * files); per region and in total the mean, standard deviation, min and
 * max over the runs. 0, or 2 after one line on stderr. */
int run_repeat(FILE *out, char **paths, size_t n, const struct opts *o);

#endif
