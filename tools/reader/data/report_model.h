/* Aggregation over loaded reports: events matched by name across files,
 * region rows summed per region (and per call-site stack) over all threads,
 * per process or per thread; the weight, region filter, sort and top N the
 * user chose; the derived columns (mean, share, IPC). */
#ifndef PMCSHIM_REPORT_MODEL_H
#define PMCSHIM_REPORT_MODEL_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <uthash.h>

#include "report_load.h"

enum sort_field { S_INCL, S_EXCL, S_MEAN, S_MIN, S_MAX, S_CALLS, S_SHARE, S_IPC, S_WALL,
		  S_NAME, S_COVERAGE, S_SOURCE };
enum out_format { F_TABLE, F_CSV, F_JSON, F_FOLDED, F_JSON_TABLE, F_FOLDED_STACKS,
		  F_SPEEDSCOPE, F_HTML };

/* What the user asked for on the command line. */
struct opts {
	bool threads, by_process, stacks, symbolize;
	bool totals;			/* --totals: the totals alone */
	bool ranks;			/* --ranks: the MPI ranks' section, even for one rank */
	bool raw;			/* --raw: values as measured (not calibrated, not scaled) */
	enum sort_field sort;
	bool sort_given;		/* else regions by incl, stacks by excl */
	size_t top;			/* 0: all */
	bool has_re;
	regex_t re;			/* --region */
	unsigned sources;		/* --source: bit per enum rf_from, 0: all */
	const char *event;		/* --event, NULL: the default weight */
	bool has_min_coverage;
	double min_coverage;		/* --min-coverage, as a fraction */
	enum out_format format;
	double watch;			/* --watch interval in seconds, 0: no */
	bool tree;			/* --tree: the region tree (report_tree.h) */
	double min_share;		/* --min-share, as a fraction */
	bool functions;			/* --functions: the sampled functions alone */
	bool by_command;		/* --by-command: totals per executable */
	bool children;			/* --children: the functions' inclusive shares */
};

/* A sum over region rows: have/miss count the rows with a value and with
 * null, so an unavailable event is never summed as 0. Rows of multiplexed
 * threads add the time their event was enabled and counting; mux counts
 * the rows counted only part of it (their values are estimates, or with
 * --raw as measured), never those not counted at all (no value, so also
 * in miss; with --raw, in mux as measured). */
struct sum {
	uint64_t incl, excl, min, max;
	uint64_t calls;			/* of the rows with a value: mean = incl / calls */
	uint32_t have, miss;
	uint32_t have_mm;		/* rows with calls: min and max are theirs */
	uint64_t enabled, running;	/* ns */
	uint32_t mux, never;
};

/* One value of a row, as the tables show it (rep_shown), and how much of
 * its calls' time it was counted. */
struct rowval {
	struct rep_stat st;		/* all zero when not present */
	bool present;
	enum rep_cover cover;
	uint64_t enabled, running;	/* 0 where the thread keeps no times */
	/* as measured (rep_measured): what calibration took out of excl, and
	 * the calls' min and max with nothing taken out (model_row_value
	 * corrects them where the incl is made from the tree) */
	uint64_t taken, mmin, mmax;
	bool sampled;			/* CPU time from samples: no min or max
					 * (rep_fn_sampled) */
};

/* Value e of site s of thread t (-1: wall time, else the file's event e):
 * the one way every table (and --watch, on a site's change over an
 * interval) reads a row. */
struct rowval site_value(const struct report *r, const struct rep_thread *t,
			 const struct rf_site *s, int e);
struct model;
struct mthread;
/* The same for row j of model thread t and model event e (-1: wall), its
 * incl as the site holds it. */
struct rowval model_row_own(const struct model *m, const struct mthread *t, size_t j, int e);
/* The same with the inclusive value the views show (report_incl.h): the
 * row's derived incl where it passes the test outer (OUTER_*), else 0. */
struct rowval model_row_value(const struct model *m, const struct mthread *t, size_t j,
			      int e, unsigned outer);
/* Adds a row's value to a sum (calls: the row's, for the mean). */
void sum_add(struct sum *s, const struct rowval *rv, uint64_t calls);

enum scope { SC_ALL, SC_PROCESS, SC_THREAD };

/* One line of output: a region, or one call-site stack of it, in a scope. */
struct group {
	struct {
		uint32_t region, scope, stack; /* scope: file or thread index; NO_STACK */
	} key;
	uint64_t calls;
	struct sum *s;			/* [0] wall time, [1 + e] event e */
	double sort_key, tie_excl, tie_incl; /* tie_*: the weight's, for ties */
	bool sort_na;			/* no value to sort by: goes last */
	/* s holds only the weight's sum: a row --top cut (the tables hold
	 * none such) */
	bool light;
	size_t nsub, subcap;
	struct group **sub;		/* with --stacks: its stacks, sorted */
	struct group *next_all;		/* the model's list of every group */
};

/* The regions of one scope: everything, one process, or one thread. */
struct gtable {
	enum scope scope;
	uint32_t id;			/* file (SC_PROCESS) or thread (SC_THREAD) */
	size_t n;
	struct group **g;		/* sorted, filtered, cut to --top */
	size_t nlow;			/* regions --min-coverage left out */
};

struct mthread {
	size_t file;
	const struct rep_thread *t;
	uint32_t *regmap;		/* its file's name ids -> model regions (namemap[file]) */
	/* where its file holds a tree (report_incl.h): per row, each value's
	 * derived inclusive ([row * (1 + nev) + 1 + e]) and its OUTER_* bits */
	uint64_t *incl;
	uint8_t *outer;
	/* per row and value as incl: the markers' cost calibration took out
	 * of its subtree's excl values, all its calls' and their children's */
	uint64_t *taken;
};

struct gmodule {
	const char *path, *build_id;
};

struct gstack {
	size_t file;			/* where its frames are */
	uint32_t local;			/* its index in that report's stacks */
	/* its frames as text, innermost first, once asked for (NULL before):
	 * where functions were inlined at a call, one frame each */
	size_t nframes;
	const char **frames;
};

struct symbols;

struct model {
	const struct opts *o;
	/* The launchers' totals files given among the reports (rf_job): the
	 * whole command counted from exec, whatever ended it. */
	size_t njobs;
	const struct rf_job *jobs;
	size_t nfiles;
	struct report **files;
	size_t nev;
	const char **ev;		/* event names, union over files, first seen first */
	int *evmap;			/* [file * nev + e]: the file's index, or -1 */
	size_t nthreads;
	struct mthread *threads;
	size_t nregions;
	const char **regions;
	/* [region]: its name as a table column shows it, made on first use
	 * by cells/report_labels.c (NULL until then; [nregions] its mark
	 * that the labels that may clash are made); freed here */
	char **labels;
	uint32_t **namemap;		/* [file][name id] -> region */
	uint8_t *source;		/* [region]: enum rf_from (the first file's) */
	bool show_source;		/* some region shown is not a marker's */
	bool *selected;			/* region matches --region and --source */
	int weight;			/* event chosen as weight, -1: wall time */
	int ipc_ins, ipc_cyc;		/* instructions and cycles events, or -1 */
	struct sum *file_total;		/* [file]: weight excl over all its rows */
	/* files grouped into parts (the runs of a diff): per-process tables
	 * are per part when part is set (model_set_parts) */
	const uint32_t *part;		/* [file] */
	size_t nparts;
	struct sum *part_total;		/* [part] */
	struct sum all_total;
	/* call-site stacks, merged across files by module and offset */
	size_t nmodules, nstacks;
	struct gmodule *modules;
	struct gstack *stacks;
	uint32_t **modmap, **stackmap;	/* [file][local] -> global */
	struct symbols *sym;
	/* tables, built by model_tables */
	size_t ntables;
	struct gtable *tables;
	struct group *groups;		/* all groups, for freeing */
	struct pool gpool;		/* where they and their sums are */
};

/* The model region of a site of thread mt (an id its file does not name
 * included: rep_region). */
static inline uint32_t mthread_region(const struct model *m, const struct mthread *mt,
				      const struct rf_site *s)
{
	return mt->regmap[rep_region(m->files[mt->file], s->region)];
}

/* Builds the model over files (which it does not own). NULL with why when
 * --event names no event of the files. */
struct model *model_new(struct report **files, size_t n, const struct opts *o, char *why,
			size_t whylen);
void model_free(struct model *m);

/* Aggregates into m->tables: SC_ALL first, then each process (with
 * --by-process), then each thread (with --threads). */
void model_tables(struct model *m);

/* The weight's name ("wall" or an event) and its sum in a group. */
const char *model_weight_name(const struct model *m);
/* Whether event e is counted per thread only (rf_event.per_thread) in
 * every file that has it: no region has a value of it, by design. */
bool model_per_thread(const struct model *m, size_t e);
const struct sum *model_weight(const struct model *m, const struct group *g);
/* Total weight of the group's process (all processes for SC_ALL). */
const struct sum *model_total(const struct model *m, const struct gtable *t);

/* Groups the files into nparts parts (part[file] < nparts; kept, not
 * copied): model_tables then makes the per-process tables one per part,
 * a table's id being the part. Before model_tables. */
void model_set_parts(struct model *m, const uint32_t *part, size_t nparts);

/* Derived values; false when not computable (n/a). */
bool sum_mean(const struct sum *s, double *v);
/* A sum's per-call min and max as every view shows them: never above
 * and below its mean (docs/reading.md, "min, max"). */
uint64_t sum_min(const struct sum *s);
uint64_t sum_max(const struct sum *s);
bool group_share(const struct model *m, const struct gtable *t, const struct group *g,
		 double *v);
bool group_ipc(const struct model *m, const struct group *g, double *v);
/* The fraction of its rows' time an event was counted (1 where it was not
 * multiplexed); false when the sum has no value and no time. */
bool sum_coverage(const struct sum *s, double *v);
/* A group's coverage: its least-counted event's; false when no event has
 * one. */
bool group_coverage(const struct model *m, const struct group *g, double *v);
/* Some value of the group was counted only part of its time, or never. */
bool group_multiplexed(const struct model *m, const struct group *g);

/* The frames of a stack, innermost first, as text ("function (file:line)",
 * or the report's symbol, or module+offset); a function inlined at a call
 * is a frame of its own, at its line, its caller at the call's line. */
size_t model_stack_depth(struct model *m, uint32_t stack);
const char *model_frame(struct model *m, uint32_t stack, size_t k);
/* Notes on symbols that fell short (one line per module). */
void model_symbol_notes(struct model *m, void (*fn)(void *arg, const char *path,
						     const char *note), void *arg);

/* Software clock events count nanoseconds: shown as times. */
bool event_is_time(const char *name);
/* page-faults counted in kernel mode too, as getrusage counts them. */
bool event_is_faults(const char *name);

#endif
