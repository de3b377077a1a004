/* Stack frames as text, for --stacks and folded output: symbolized with
 * elfutils through symbolize.h when the module can be read, else the
 * report's own dladdr name, else module+offset. Cached per frame, so a
 * frame shared by many stacks is looked up once. */
#ifndef PMCSHIM_REPORT_SYMBOLS_H
#define PMCSHIM_REPORT_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report_load.h"

struct symbols;

/* use_debuginfo false: never open a module (the report's names only). */
struct symbols *symbols_new(bool use_debuginfo);
void symbols_free(struct symbols *s);

/* gmod: the frame's module, merged across reports (path and build-id),
 * -1 when no module held the address. */
const char *symbols_frame(struct symbols *s, int64_t gmod, const char *path,
			  const char *build_id, const struct rep_frame *f);

/* Why frames of a module are less than function (file:line): one call per
 * module that had a note, in the order they came up. */
void symbols_notes(struct symbols *s, void (*fn)(void *arg, const char *path,
						 const char *note), void *arg);

/* Regions keyed by an address (rf_origin.addr: a function's) named from
 * the symbols of the module that holds it: r->names[id] becomes the
 * name's prefix and the symbol ("solve._omp_fn.0"); left as recorded
 * ("0x55d0c0a01234") when no symbol says. */
/* How many of a stack's first frames (innermost first, as text) are the
 * marker header's own functions (include/pmcshim.h: pmcshim_begin_name,
 * pmcshim::scope, inlined or not): where a stack begins, not what the user
 * wrote, whose first frame is the line that wrote the marker. Never all. */
size_t symbols_header_frames(const char *const *frames, size_t n);

struct symbolizer;
void symbols_name_regions(struct symbolizer *sz, struct report *r);

#endif
