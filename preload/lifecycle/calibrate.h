/* The markers' own cost, measured once at setup through the public
 * macros, so that the reader can take it out of every region. */
#ifndef PMCSHIM_CALIBRATE_H
#define PMCSHIM_CALIBRATE_H

#include <stdint.h>

#include "format/reportfile.h"

struct calibration {
	uint64_t calls;				/* 0: not measured */
	uint64_t in[RF_EVENTS_MAX + 1];		/* an empty region's own value */
	uint64_t child[RF_EVENTS_MAX + 1];	/* a child pair's extra in its parent's excl */
};

/* Run the calibration regions on the calling thread (set up, markers
 * active), read their sites back and hide them. Returns 0 when measured. */
int calibrate_run(uint32_t thread, struct calibration *out);

#endif
