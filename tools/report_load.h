/* One pmcshim report (docs/report-format.md, version 1), parsed and
 * validated into a compact in-memory form: after loading, every field the
 * reader uses exists with its type, so nothing downstream checks again. */
#ifndef PMCSHIM_REPORT_LOAD_H
#define PMCSHIM_REPORT_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report_util.h"

#define REPORT_VERSION 1
#define NO_STACK UINT32_MAX

struct rep_stat {
	uint64_t incl, excl, min, max;
};

/* One region row: a region at one call-site stack, in one thread. */
struct rep_row {
	uint32_t region;	/* index into the thread's names */
	uint32_t stack;		/* index into the report's stacks */
	uint64_t calls;
};

struct rep_total {
	uint64_t value, scaled;
	bool has_value, has_scaled;
	const char *status;
};

struct rep_thread {
	uint64_t tid, wall_ns, cpu_ns;
	bool main, has_cpu;
	const char *name, *state, *setup;
	struct rep_total *totals;	/* one per event */
	size_t nrows;
	struct rep_row *rows;
	/* stats[row * (1 + nev)]: wall time, then each event; present[row *
	 * nev + e] is 0 where event e was null (unavailable) in that row. */
	struct rep_stat *stats;
	unsigned char *present;
	size_t nnames;
	const char **names;		/* distinct region names of this thread */
	struct pool pool;
};

struct rep_frame {
	uint64_t addr, offset;
	int32_t module;			/* index into modules, -1: none */
	const char *symbol;		/* dladdr name, or NULL */
};

struct rep_stack {
	size_t first, n;		/* frames[first..first+n), innermost first */
};

struct rep_module {
	const char *path, *build_id;
	uint64_t base;
};

struct rep_event {
	const char *name, *source, *reason;	/* reason may be NULL */
};

struct rep_error {
	const char *kind, *region, *open;	/* open may be NULL */
	uint64_t tid, count;
};

struct report {
	const char *path;		/* as given on the command line */
	uint64_t pid, ppid, wall_ns;
	bool has_ppid, forked;
	const char *host, *executable;	/* host may be NULL */
	size_t nev;
	struct rep_event *ev;
	size_t nthreads;
	struct rep_thread *threads;
	size_t nstacks, nframes;
	struct rep_stack *stacks;
	struct rep_frame *frames;
	size_t nmodules;
	struct rep_module *modules;
	size_t nerrors;
	struct rep_error *errors;
	struct pool pool;
};

/* Loads a report; NULL with the reason in why (one line, without the file
 * name) when the file cannot be read or is not a valid version-1 report. */
struct report *report_load_file(const char *path, char *why, size_t whylen);

/* The same from memory. workers: threads to parse with (0: as many as
 * there are CPUs, for big inputs; -1: one, and jansson parses the whole
 * document at once instead of piece by piece: the fuzz target checks that
 * both ways agree). */
struct report *report_load_buf(const char *buf, size_t len, const char *name, int workers,
			       char *why, size_t whylen);

void report_free(struct report *r);

static inline const struct rep_stat *rep_stats(const struct report *r,
					       const struct rep_thread *t, size_t row)
{
	return &t->stats[row * (1 + r->nev)];
}

#endif
