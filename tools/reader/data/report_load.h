/* One pmcshim report file (docs/report-format.md, version 2; the layout is
 * preload/format/reportfile.h), checked and indexed into a compact in-memory form.
 *
 * Site values are not copied: a thread's rows are offsets of its rf_site
 * records in the file's mapping, so a million-row file costs 4 MB beyond
 * its own pages. A file whose process still runs is different: its sites
 * change under us, so the loader takes a private snapshot (each site read
 * with its sequence count) and the rows point into that. After loading,
 * every id a row holds names something that exists, so nothing downstream
 * checks again. */
#ifndef PMCSHIM_REPORT_LOAD_H
#define PMCSHIM_REPORT_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/reportfile.h"
#include "report_util.h"

#define NO_STACK UINT32_MAX

struct rep_stat {
	uint64_t incl, excl, min, max;
};

struct rep_total {
	uint64_t value, scaled, enabled, running;
	bool has_value, has_scaled, has_times;
	const char *status;	/* counted, multiplexed, not counted, unavailable, lost, none,
				 * last update (a killed process's last published counts) */
};

struct rep_thread {
	uint32_t index;			/* rf_thread.index: what sites refer to */
	uint64_t tid, wall_ns, cpu_ns;
	bool main, has_cpu, has_wall, has_totals;
	/* rf_thread.begin_cpu_ns and setup_cpu_ns (not in older files) */
	bool has_begin;
	uint64_t begin_cpu_ns, setup_cpu_ns;
	/* rf_thread.begin_faults and end_faults (not in older files);
	 * has_end_faults: the thread stored its own at its end */
	bool has_faults, has_end_faults;
	uint64_t begin_faults, end_faults;
	/* a running thread: the running counts it published last
	 * (rf_thread.live, by position among open events), at live_ticks,
	 * the shim's calibration not taken out; where its process ended
	 * without a word, its totals are these and say "last update" */
	bool has_live;
	uint64_t live[RF_EVENTS_MAX], live_ticks;
	const char *name, *state, *setup, *lost_reason;
	uint32_t nvalues;
	/* slot[e]: where event e is in this thread's site values; 0 when the
	 * event is not open in the thread (slot 0 is wall time). */
	uint8_t slot[RF_EVENTS_MAX];
	/* rf_thread.thread_mask: bit e, event e open in this thread and
	 * counted per thread only (its totals; no slot) */
	uint32_t thread_mask;
	struct rep_total *totals;	/* one per event */
	/* The markers' own cost (rf_thread.calib_*), by value slot; taken out
	 * of every value unless the report is shown raw. */
	bool has_calib;
	bool coverage;			/* multiplexed: sites keep enabled/running */
	uint64_t calib_in[RF_EVENTS_MAX + 1], calib_child[RF_EVENTS_MAX + 1];
	/* The function hooks' own (rf_thread.calib_fn_*), for the regions of
	 * -finstrument-functions; without it those take the markers'. */
	bool has_fn_calib;
	uint64_t calib_fn_in[RF_EVENTS_MAX + 1], calib_fn_child[RF_EVENTS_MAX + 1];
	size_t nrows;
	uint32_t *rows;			/* offsets of its rf_site records from report.base */
	/* With report.tree: parent[row], the row of the region open at its
	 * begin (an earlier row), or NO_PARENT for an outermost region. */
	uint32_t *parent;
};

#define NO_PARENT UINT32_MAX

struct rep_frame {
	uint64_t addr, offset;
	int32_t module;			/* index into modules, -1: none */
	const char *symbol;		/* always NULL: v2 stores addresses only */
};

struct rep_stack {
	size_t first, n;		/* frames[first..first+n), innermost first */
	uint32_t method;		/* enum rf_stack_method */
	bool present;			/* a done record had this id */
};

struct rep_module {
	uint32_t id;
	const char *path, *build_id;
	uint64_t base, lo, hi;
	uint32_t gen;			/* rf_module.gen: its load generation */
	uint32_t order;			/* its record's place among the file's modules */
};

struct rep_event {
	const char *name, *source, *reason;	/* reason may be NULL */
	const char *mode_note;		/* why user space only though the kernel was asked, or NULL */
	uint32_t type, exclude_kernel;	/* exclude_kernel: counted in user space only */
	bool per_thread;		/* counted per thread only: no region has a value */
	uint64_t config;
};

struct rep_error {
	const char *kind, *region, *open;	/* open may be NULL */
	uint64_t tid, count;
};

struct report {
	const char *path;		/* as given on the command line */
	const unsigned char *base;	/* the mapping, or the live snapshot */
	struct rf_file file;
	unsigned char *snapshot;	/* our copy of the file */
	size_t snapshot_mapped;		/* its length when mapped, 0: malloc'ed */
	uint32_t state;			/* enum rf_state, as loaded */
	bool live;			/* RF_RUNNING and the process still runs */
	bool unsure;			/* RF_RUNNING, and rf_liveness cannot tell */
	const char *state_text;		/* "running", "exited", "exec'd PATH", ... */
	uint64_t pid, ppid, start_ns, end_ns, wall_ns;
	bool has_ppid, has_end, has_wall, forked, full;
	/* rf_header.before_wall_ns: how long it ran before the shim began
	 * (0 when unknown, or a fork child); not in wall_ns */
	uint64_t before_wall_ns;
	/* A file shorter than its records say (its header's tail): cut short
	 * on disk, or shrinking while read (shrank: from size_was bytes to
	 * size_now). missing: bytes of records past what is there. */
	uint64_t missing, size_was, size_now;
	bool shrank;
	/* RF_CUT: cut short under the running program, and put back by the
	 * shim: cuts times, last to cut_size bytes; the counts in cut_lost
	 * bytes of records made before that are lost. */
	uint32_t cuts;
	uint64_t cut_size, cut_lost;
	bool serialized;		/* barriers around the reads (PMCSHIM_SERIALIZE) */
	bool tree;			/* sites name their parents (RF_TREE): rep_thread.parent */
	/* RF_FN_SAMPLED (PMCSHIM_FUNCTIONS=sampled): function regions count
	 * their calls, and their time is CPU ns from samples (rep_fn_sampled) */
	bool fn_sampled;
	size_t nbroken_parents;		/* sites whose parent is no earlier site of
					 * their thread: shown as outermost */
	bool raw;			/* values as measured: calibration not taken out */
	bool calibrated;		/* some thread has a calibration */
	size_t nbelow;			/* rows with a value below the markers' own cost */
	double ticks_per_ns;		/* 0: wall times unknown */
	double ns_per_tick;		/* its inverse, or 0 */
	const char *host, *executable, *exec_target, *shim_version, *clock_source;
	const char *barrier;		/* with serialized: "lfence", "isb" */
	const char *user_read;
	size_t argc;
	const char **argv;
	bool argv_truncated;
	uint32_t stack_depth;
	/* MPI: the rank and size in MPI_COMM_WORLD once MPI_Init returned
	 * (mpi false: not an MPI process, or a file from an older shim) */
	bool mpi, mpi_finalized, mpi_finalized_twice;
	uint32_t mpi_rank, mpi_size;
	const char *mpi_library;
	uint64_t dropped[RF_DROP_FUNCTIONS + 1];	/* enum rf_drop: full, busy, early, names, ids, functions */
	size_t npartial;		/* sites left mid-update */
	size_t nev;
	struct rep_event *ev;
	size_t nthreads;
	size_t thread_dups;		/* thread records written twice (a repaired cut): the later read */
	struct rep_thread *threads;	/* in rf_thread.index order */
	size_t nname_ids;
	const char **names;		/* [rf_name.id]: the text, NULL where none;
					 * an address region's, once named
					 * (report_name_regions), the symbol's;
					 * then "(unknown id N)" for each id past
					 * the file's that a row names (rep_region) */
	size_t nfile_ids;		/* of nname_ids, the file's own */
	uint32_t *unknown;		/* those ids past them, sorted */
	size_t nunknown;
	size_t nunnamed;		/* rows and errors naming an id no record names */
	const struct rf_origin **origins; /* [rf_name.id] of the file's: NULL for a
					   * marker's (rep_origin) */
	size_t nstacks, nframes;	/* stacks: [rf_stack.id] */
	struct rep_stack *stacks;
	const struct rf_stack **stackrec;	/* [rf_stack.id]: the record, or NULL */
	struct rep_frame *frames;	/* NULL until rep_frames */
	size_t nmodules;
	struct rep_module *modules;	/* sorted by lo */
	size_t nerrors;
	struct rep_error *errors;
	/* Sampled stacks (RF_SAMPLES: --sample), one table per thread, each
	 * checked whole (rf_samples_ok) */
	size_t nsamples, csamples;
	const struct rf_samples **samples;
	struct pool pool;
};

/* Loads a report file; NULL with the reason in why (one line, without the
 * file name) when it cannot be read or is not a valid version-2 file. */
struct report *report_load_file(const char *path, char *why, size_t whylen);

/* The same over memory the caller keeps until report_free (the fuzzer). */
struct report *report_load_mem(const void *buf, size_t len, const char *name, char *why,
			       size_t whylen);

void report_free(struct report *r);

/* Where in names[] a row's region id is: the id itself, or the
 * "(unknown id N)" entry the loader made for an id the file does not
 * name (a corrupt file, or one from a shim that let any id through). */
static inline uint32_t rep_region(const struct report *r, uint32_t id)
{
	size_t lo = 0, hi = r->nunknown;

	if (id < r->nfile_ids)
		return id;
	while (lo < hi) {	/* it is there: the loader put it there */
		size_t mid = (lo + hi) / 2;
		if (r->unknown[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (uint32_t)(r->nfile_ids + lo);
}

/* The origin record of region `id`: NULL for a marker's, and for an id
 * the file does not name. */
static inline const struct rf_origin *rep_origin(const struct report *r, uint32_t id)
{
	return id < r->nfile_ids ? r->origins[id] : NULL;
}

/* Where region `id` comes from (enum rf_from). */
static inline uint32_t rep_source(const struct report *r, uint32_t id)
{
	const struct rf_origin *o = rep_origin(r, id);

	return o ? o->source : RF_FROM_MARKERS;
}

/* The module whose mapped range held pc at load generation gen (an
 * address record's: rf_stack_gen, rf_origin_gen), as an index into
 * modules, or -1: of the modules whose range holds it, the newest whose
 * generation is not past gen (a module unloaded and another loaded in
 * its range: two records, the later of a later generation). */
int32_t rep_module_of(const struct report *r, uint64_t pc, uint32_t gen);

/* Every stack's frames (stacks[id].first indexes them), built on first use. */
const struct rep_frame *rep_frames(const struct report *r);

static inline const struct rf_site *rep_site(const struct report *r,
					     const struct rep_thread *t, size_t row)
{
	return (const struct rf_site *)(const void *)(r->base + t->rows[row]);
}

/* A site left odd by its writer: the process died inside a marker. */
static inline bool rep_site_partial(const struct rf_site *s)
{
	return s->seq & 1;
}

static inline uint64_t rep_ns(const struct report *r, uint64_t ticks)
{
	double ns = (double)ticks * r->ns_per_tick;

	/* UINT64_MAX stays: the min of a site without calls; past 2^64 (or
	 * not a number) saturates rather than converting out of range */
	return ticks == UINT64_MAX || !(ns < 18446744073709549568.0) ? UINT64_MAX : (uint64_t)ns;
}

static inline uint64_t rep_minus(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static inline uint64_t rep_times(uint64_t n, uint64_t each)
{
	uint64_t p;

	return __builtin_mul_overflow(n, each, &p) ? UINT64_MAX : p;
}

/* v * enabled / running, saturating: a multiplexed count scaled to the
 * whole time (running > 0). */
static inline uint64_t rep_scale(uint64_t v, uint64_t enabled, uint64_t running)
{
	uint64_t p;
	unsigned __int128 x;

	if (!__builtin_mul_overflow(v, enabled, &p)) /* the usual case: no 128-bit division */
		return p / running;
	x = (unsigned __int128)v * enabled / running;
	return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

/* How much of its calls' time value `slot` of a site was counted: the
 * whole time (also: the thread keeps no times, or no time passed), part
 * of it, or never (its group was not on a counter during the calls). */
enum rep_cover { REP_FULL, REP_PART, REP_NEVER };

static inline enum rep_cover rep_cover(const struct rep_thread *t, const struct rf_site *s,
				       uint32_t slot)
{
	const struct rf_stat *v = &s->v[slot];

	if (!t->coverage || !v->enabled || v->running >= v->enabled)
		return REP_FULL;
	return v->running ? REP_PART : REP_NEVER;
}

/* Value `slot` of a site scaled to the whole time when it was counted
 * only part of it (REP_PART): incl, excl, min and max each times
 * enabled / running; else as it is. */
static inline struct rf_stat rep_scaled(const struct rep_thread *t, const struct rf_site *s,
					uint32_t slot)
{
	struct rf_stat v = s->v[slot];

	if (rep_cover(t, s, slot) != REP_PART)
		return v;
	v.incl = rep_scale(v.incl, v.enabled, v.running);
	v.excl = rep_scale(v.excl, v.enabled, v.running);
	if (v.min != UINT64_MAX) /* no call yet stays so */
		v.min = rep_scale(v.min, v.enabled, v.running);
	v.max = rep_scale(v.max, v.enabled, v.running);
	return v;
}

/* The cost of value `slot` that a site's path adds per call (*in) and per
 * child call to its parent's excl (*child): its source's own calibration
 * (the function hooks' for functions' regions), else the markers'. False
 * when the thread has none. A region's children are taken to come
 * through its own path (a function's children are functions). */
/* A site whose time is CPU ns estimated from samples, not wall ticks
 * measured: a function region's in a file of PMCSHIM_FUNCTIONS=sampled.
 * Its calls are exact; it has no min, max or event value, and no hook's
 * cost to take out (samples in the hooks were left out). */
static inline bool rep_fn_sampled(const struct report *r, const struct rf_site *s)
{
	return r->fn_sampled && rep_source(r, s->region) == RF_FROM_FUNCTIONS;
}

static inline bool rep_calib_of(const struct report *r, const struct rep_thread *t,
				const struct rf_site *s, uint32_t slot, uint64_t *in,
				uint64_t *child)
{
	if (rep_fn_sampled(r, s))
		return false;
	if (t->has_fn_calib && rep_source(r, s->region) == RF_FROM_FUNCTIONS) {
		*in = t->calib_fn_in[slot], *child = t->calib_fn_child[slot];
		return true;
	}
	*in = t->calib_in[slot], *child = t->calib_child[slot];
	return t->has_calib;
}

/* v, value `slot` of a site, with its path's own cost taken out: per
 * call from incl, min and max; per call and per child call from excl.
 * Never below zero (the loader counts the rows that would be: nbelow). */
static inline struct rf_stat rep_calibrate(const struct report *r, const struct rep_thread *t,
					   const struct rf_site *s, uint32_t slot, struct rf_stat v)
{
	uint64_t in, own, child;

	if (r->raw || !s->calls || !rep_calib_of(r, t, s, slot, &in, &child))
		return v;
	own = rep_times(s->calls, in);
	v.incl = rep_minus(v.incl, own);
	v.excl = rep_minus(rep_minus(v.excl, own), rep_times(s->child_calls, child));
	v.min = rep_minus(v.min, in);
	v.max = rep_minus(v.max, in);
	return v;
}

static inline struct rf_stat rep_calibrated(const struct report *r, const struct rep_thread *t,
					     const struct rf_site *s, uint32_t slot)
{
	return rep_calibrate(r, t, s, slot, s->v[slot]);
}

/* The estimate of value `slot` of a site: the one rule for a value its
 * event counted only part of the time (the tables, the export's
 * scaled_incl, the rows below calibration). Scaled first, then
 * calibrated: the measured value is the counted part of everything in the
 * calls, the markers' own cost included, and scaling estimates all of it,
 * from which the cost (measured in full at setup) comes out once;
 * calibrating first would scale the cost taken out too, taking out
 * enabled / running times the markers' cost. */
static inline struct rf_stat rep_estimated(const struct report *r, const struct rep_thread *t,
					   const struct rf_site *s, uint32_t slot)
{
	return rep_calibrate(r, t, s, slot, rep_scaled(t, s, slot));
}

/* A row some value of which is below the markers' own cost: a region
 * shorter than the marker's noise, shown as zero. Judged on the values
 * the tables calibrate (a multiplexed one scaled first: rep_estimated); a
 * value never counted is not shown, so not judged. The loader counts a
 * file's rows (nbelow); --watch an interval's changes. */
bool rep_below_calibration(const struct report *r, const struct rep_thread *t,
			   const struct rf_site *s);

static inline struct rep_stat rep_stat_of(const struct rf_stat *v)
{
	return (struct rep_stat){ v->incl, v->excl, v->min, v->max };
}

/* Event e's value in a site as measured (e < 0: wall time, converted to
 * ns); false when the thread had no such value. Inline: it runs for every
 * value of every row. */
static inline bool rep_value(const struct report *r, const struct rep_thread *t,
			     const struct rf_site *s, int e, struct rep_stat *out)
{
	struct rf_stat v;

	if (rep_fn_sampled(r, s)) {	/* ns already, and wall time alone */
		if (e >= 0)
			return false;
		*out = (struct rep_stat){ s->v[0].incl, s->v[0].excl, UINT64_MAX, 0 };
		return true;
	}
	if (e >= 0) {
		if (!t->slot[e])
			return false;
		v = rep_calibrated(r, t, s, t->slot[e]);
		*out = rep_stat_of(&v);
		return true;
	}
	if (r->ns_per_tick <= 0)
		return false;
	v = rep_calibrated(r, t, s, 0);
	*out = (struct rep_stat){ rep_ns(r, v.incl), rep_ns(r, v.excl), rep_ns(r, v.min),
				  rep_ns(r, v.max) };
	return true;
}

/* Event e's value in a site as measured, the markers' own cost left in,
 * but for a value counted only part of the time scaled as rep_shown
 * scales it (cover: rep_shown's); wall time in ns. What calibration took
 * out of a shown value is this one less the shown one (rowval.taken). */
static inline struct rep_stat rep_measured(const struct report *r, const struct rep_thread *t,
					   const struct rf_site *s, int e, enum rep_cover cover)
{
	uint32_t slot = e < 0 ? 0 : t->slot[e];
	struct rf_stat v = cover == REP_PART && !r->raw ? rep_scaled(t, s, slot) : s->v[slot];

	if (e >= 0 || rep_fn_sampled(r, s))
		return rep_stat_of(&v);
	return (struct rep_stat){ rep_ns(r, v.incl), rep_ns(r, v.excl), rep_ns(r, v.min),
				  rep_ns(r, v.max) };
}

/* Event e's value in a site as the tables show it: rep_value, but for a
 * value counted only part of the time the estimate (unless the report is
 * shown raw); *cover says which. False also for a value never counted
 * (REP_NEVER, not raw): there is nothing to scale. */
static inline bool rep_shown(const struct report *r, const struct rep_thread *t,
			     const struct rf_site *s, int e, struct rep_stat *out,
			     enum rep_cover *cover)
{
	struct rf_stat v;

	*cover = e >= 0 && t->slot[e] && !rep_fn_sampled(r, s) ? rep_cover(t, s, t->slot[e])
								: REP_FULL;
	if (*cover == REP_FULL || r->raw)
		return rep_value(r, t, s, e, out);
	if (*cover == REP_NEVER)
		return false;
	v = rep_estimated(r, t, s, t->slot[e]);
	*out = rep_stat_of(&v);
	return true;
}

#endif
