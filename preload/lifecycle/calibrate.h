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

/* A source's own pairs, run through its own path (its regions made
 * beforehand, under the ids given): empty() one empty region, parent()
 * one region around one empty child. */
struct calibration_pairs {
	void (*empty)(void);
	void (*parent)(void);
	uint32_t empty_id, parent_id, child_id;
	int mean;	/* the cheapest mean of batches, not the cheapest call */
};

/* Run a source's pairs on the calling thread (set up, regions active),
 * outside the guard; read their sites back and hide them. Returns 0 when
 * measured. */
int calibrate_pairs(uint32_t thread, const struct calibration_pairs *pairs,
		    struct calibration *out);

/* Hide every site of region id in thread from readers (a source's own
 * regions, run again from other call sites). */
void calibrate_hide(uint32_t thread, uint32_t id);

/* Run the calibration regions on the calling thread (set up, markers
 * active), read their sites back and hide them. Returns 0 when measured. */
int calibrate_run(uint32_t thread, struct calibration *out);

#endif
