/* Getting a report file's bytes (report_read.c): a private copy that
 * nothing changes under the loader (report_load.c), however the file is
 * written or cut meanwhile. */
#ifndef PMCSHIM_REPORT_READ_H
#define PMCSHIM_REPORT_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "report_load.h"

/* Copy the file at path into r: r->file over r->snapshot, and r->live,
 * r->unsure, r->shrank (with the sizes) set. false with why filled (a
 * version-1 JSON file said so); r is the caller's to free either way. */
bool report_read_file(struct report *r, const char *path, char *why, size_t whylen);

#endif
