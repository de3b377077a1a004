/* The functions section (report_functions.c): where sampled time went
 * (--sample), by the function each sample interrupted, over every thread
 * of every file, or inside the regions --region selects. */
#ifndef PMCSHIM_REPORT_FUNCTIONS_H
#define PMCSHIM_REPORT_FUNCTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "reader/data/report_model.h"

/* Some file holds sampled stacks. */
bool functions_present(const struct model *m);
/* The table: function, module, samples, share, estimated time. */
void render_functions(FILE *out, const struct model *m);
/* --format csv --functions: function,module,samples,share, then the
 * sampling event's estimate (ns for a clock). */
void render_functions_csv(FILE *out, const struct model *m);

/* --format folded-stacks --functions: each sampled stack, outermost
 * frame first, under its region ("[solve];main;three 2257"). */
void render_functions_folded(FILE *out, const struct model *m);

#endif
