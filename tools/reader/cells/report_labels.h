/* Region names as table columns show them: escaped and shortened
 * (report_escape.h), and never two regions with the same text. */
#ifndef PMCSHIM_REPORT_LABELS_H
#define PMCSHIM_REPORT_LABELS_H

#include <stdint.h>

#include "reader/data/report_model.h"

/* Region `region`'s name in at most NAME_COLUMN_MAX columns; where two
 * regions' shortened names would read the same, theirs are cut to a wider
 * column, or not at all. Owned by the model. */
const char *region_label(const struct model *m, uint32_t region);

#endif
