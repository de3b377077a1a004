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

/* The sampled stacks --region keeps, names interned, for the flame graphs
 * of the HTML page and speedscope: one per slot, outermost frame first. */
struct sstack {
	size_t file;			/* m->files index */
	const struct rf_samples *table;	/* its thread's table */
	uint32_t region;		/* index in sstacks.regions ("(no region)") */
	uint32_t nframes;
	uint32_t *frame;		/* [nframes]: indexes in sstacks.frames */
	uint64_t count;
};

struct sstacks {
	const char *event;		/* the first table's sampling event, or NULL */
	const char **frames, **regions;	/* function names; region names */
	size_t nframes, nregions, n;
	struct sstack *s;		/* [n], by file, then table, then slot */
	uint64_t total;			/* the samples of s */
};

struct sstacks *functions_stacks(const struct model *m);
/* The samples --region keeps (no names looked up). */
uint64_t functions_kept(const struct model *m);
void functions_stacks_free(struct sstacks *s);
/* The thread a table belongs to, or NULL. */
const struct rep_thread *functions_thread(const struct report *r, const struct rf_samples *s);

#endif
