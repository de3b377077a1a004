/* A private, consistent copy of a report file whose process still runs:
 * the shim updates sites, error counts and thread totals in place while we
 * read, so each is copied with its publication protocol (reportfile.h). */
#ifndef PMCSHIM_REPORT_SNAPSHOT_H
#define PMCSHIM_REPORT_SNAPSHOT_H

#include <stddef.h>

#include "format/reportfile.h"

/* The bytes [0, f->tail) as of now: records not done become one filler
 * record (unknown type, not done) so a walk skips them; a site caught
 * mid-update keeps an odd seq (rf_site_read gave up on it). Malloc'ed;
 * *len is its size. */
unsigned char *report_snapshot(const struct rf_file *f, size_t *len);

#endif
