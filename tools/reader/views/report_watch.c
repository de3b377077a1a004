/* pmcshim-report --watch: a running process's file, read again every
 * interval, printed as per-interval changes like `perf stat -I`: a line per
 * region that changed, with its new calls and the growth of each value's
 * inclusive total, then the process's totals: each event's count in the
 * interval and its running total, until the process is no longer running.
 * Times are the process's own clock: seconds since its exec (its header's
 * start and how long it ran before the shim began), as the totals count.
 *
 * The values are the table's, of what the interval added: each site's
 * change since the previous read is taken as a site of its own (calls,
 * child calls, and each value's incl, excl, enabled and running added) and
 * read with the table's rule (site_value, rep_shown). So the markers' own
 * cost comes out per call and per child call of the interval, never below
 * zero (rep_below_calibration counts the changes that would be), and a
 * value counted only part of the interval is scaled by the interval's own
 * enabled / running, not the whole run's, and marked '*'. --raw: as
 * measured. Inclusive values are derived from the tree by the views' one
 * rule (report_incl.h) applied to the interval's exclusive changes: a
 * region still open grows by what its children added, a recursive
 * re-entry is counted once.
 *
 * Each read is a fresh load (rf_open maps the file at its current size, a
 * live file is snapshotted), so a file that grew is seen whole; the
 * previous read is kept, to find each site's previous values (a record
 * stays at its offset: the file only grows). Changes are taken in raw
 * units and converted only when read: the reader's tick rate estimate of
 * a live file moves a little from read to read, and must not look like
 * work. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reader/cells/report_cells.h"
#include "reader/cells/report_notes.h"
#include "report_render.h"
#include "reader/data/report_incl.h"
#include "reader/data/report_symbols.h"
#include "reader/data/symbolize.h"

/* One interval: per region name id that changed, its calls and each
 * value's sum as the tables make them ([0] wall time, [1 + e] event e). */
struct interval {
	size_t nids, nval;
	uint32_t *line;			/* [id]: its index in calls, UINT32_MAX: none */
	size_t n, ccap, scap;
	uint64_t *calls;		/* [line] */
	struct sum *sums;		/* [line * nval + k] */
	size_t nbelow;			/* changes below the markers' own cost */
	struct rf_site *d;		/* one site's change */
};

static void interval_init(struct interval *iv, const struct report *r)
{
	memset(iv, 0, sizeof(*iv));
	iv->nids = r->nname_ids, iv->nval = 1 + r->nev;
	iv->line = xmalloc(iv->nids * sizeof(*iv->line));
	memset(iv->line, 0xff, iv->nids * sizeof(*iv->line));
	iv->d = xmalloc(rf_site_size(1 + RF_EVENTS_MAX));
}

static void interval_free(struct interval *iv)
{
	free(iv->line), free(iv->calls), free(iv->sums), free(iv->d);
	memset(iv, 0, sizeof(*iv));
}

/* Sums never wrap: a saturated total is wrong, a wrapped one is absurd. */
static void sat_add(uint64_t *a, uint64_t b)
{
	if (__builtin_add_overflow(*a, b, a))
		*a = UINT64_MAX;
}

/* Region id's line, started (zeroed) on its first change. */
static size_t line_of(struct interval *iv, uint32_t id)
{
	size_t k = iv->n;

	if (iv->line[id] != UINT32_MAX)
		return iv->line[id];
	iv->calls = grow(iv->calls, &iv->ccap, k + 1, sizeof(*iv->calls));
	iv->sums = grow(iv->sums, &iv->scap, (k + 1) * iv->nval, sizeof(*iv->sums));
	iv->calls[k] = 0;
	memset(&iv->sums[k * iv->nval], 0, iv->nval * sizeof(*iv->sums));
	iv->line[id] = (uint32_t)k;
	return iv->n++;
}

/* What site s added since `was` (its record in the previous read; NULL:
 * new since), as a site of its own in d. A site's sums only grow: a
 * difference is never below zero. min and max have no value over an
 * interval: 0. False when neither its calls nor an inclusive total
 * changed. */
static bool site_change(struct rf_site *d, const struct rf_site *s, const struct rf_site *was)
{
	static const struct rf_stat none;
	bool changed;

	memcpy(d, s, sizeof(*d));
	d->calls = rep_minus(s->calls, was ? was->calls : 0);
	d->child_calls = rep_minus(s->child_calls, was ? was->child_calls : 0);
	changed = d->calls != 0;
	for (uint32_t i = 0; i < s->nvalues; i++) {
		const struct rf_stat *a = &s->v[i], *b = was ? &was->v[i] : &none;

		d->v[i] = (struct rf_stat){ rep_minus(a->incl, b->incl), rep_minus(a->excl, b->excl),
					    0, 0, rep_minus(a->enabled, b->enabled),
					    rep_minus(a->running, b->running) };
		changed |= d->v[i].incl != 0;
	}
	return changed;
}

/* d, a change of a site of thread t, into its region's line; incl: its
 * values' derived inclusive change ([v], 0: wall, 1 + e: event e), NULL:
 * the site's own (a file without a tree). */
static void add_change(struct interval *iv, const struct report *r, const struct rep_thread *t,
		       const struct rf_site *d, const uint64_t *incl)
{
	size_t k = line_of(iv, rep_region(r, d->region));

	sat_add(&iv->calls[k], d->calls);
	for (int e = -1; e < (int)r->nev; e++) {
		struct rowval rv = site_value(r, t, d, e);

		if (incl && rv.present)
			rv.st.incl = incl[1 + e];
		sum_add(&iv->sums[k * iv->nval + (size_t)(1 + e)], &rv, d->calls);
	}
	iv->nbelow += !r->raw && rep_below_calibration(r, t, d);
}

/* A thread's rows and their records in the previous read, for the rule's
 * sweep (incl_own_fn): row j's change, made once per row. */
struct rows_was {
	const struct report *r;
	const struct rep_thread *t;
	const struct rf_site **was;
	struct rf_site *d;
	size_t made;			/* the row d holds, SIZE_MAX: none */
};

static const struct rf_site *change_of(struct rows_was *a, size_t j, bool *changed)
{
	bool c = site_change(a->d, rep_site(a->r, a->t, j), a->was[j]);

	if (changed)
		*changed = c;
	a->made = j;
	return a->d;
}

static bool interval_own(void *arg, size_t j, size_t v, uint64_t *excl, uint64_t *incl,
			 uint64_t *taken)
{
	struct rows_was *a = arg;
	struct rowval rv;

	if (a->made != j)
		change_of(a, j, NULL);
	rv = site_value(a->r, a->t, a->d, (int)v - 1);
	*excl = rv.st.excl, *incl = rv.st.incl, *taken = rv.taken;
	return rv.present;
}

/* The thread's changes with inclusive values by the one rule: what each
 * row's subtree added to its exclusive values, for a row with no row of
 * its region open above it. A row is a change when its calls grew or its
 * derived inclusive did (a region still open, whose children ended). */
static void add_tree_changes(struct interval *iv, struct rows_was *a)
{
	size_t nv = iv->nval;
	uint64_t *sub = incl_sweep(a->t, nv, interval_own, a, NULL), *incl = xcalloc(nv, sizeof(*incl));
	uint8_t *outer = incl_outer(a->r, a->t);

	for (size_t j = 0; j < a->t->nrows; j++) {
		bool changed;
		const struct rf_site *d = change_of(a, j, &changed);

		for (size_t v = 0; v < nv; v++) {
			incl[v] = outer[j] & OUTER_REGION ? sub[j * nv + v] : 0;
			changed |= incl[v] != 0;
		}
		if (changed)
			add_change(iv, a->r, a->t, d, incl);
	}
	free(sub), free(incl), free(outer);
}

/* The previous read's record of site s: the same offset (bt's row b) and
 * the same site; NULL when it is new. */
static const struct rf_site *previous(const struct report *br, const struct rep_thread *bt,
				      size_t b, uint32_t off, const struct rf_site *s)
{
	const struct rf_site *p;

	if (!bt || b >= bt->nrows || bt->rows[b] != off)
		return NULL;
	p = rep_site(br, bt, b);
	return p->region == s->region && p->stack == s->stack && p->nvalues == s->nvalues ?
	       p : NULL;
}

/* Thread t's changes, against the same thread in the previous read (bt;
 * NULL: new since). Both list their rows in file order (the loader's
 * walk), so one pass pairs them. */
static void add_thread(struct interval *iv, const struct report *r, const struct rep_thread *t,
		       const struct report *br, const struct rep_thread *bt)
{
	struct rows_was a = { r, t, xcalloc(t->nrows + 1, sizeof(*a.was)), iv->d, SIZE_MAX };
	size_t b = 0;

	for (size_t j = 0; j < t->nrows; j++) {
		while (bt && b < bt->nrows && bt->rows[b] < t->rows[j])
			b++;
		a.was[j] = previous(br, bt, b, t->rows[j], rep_site(r, t, j));
	}
	if (r->tree && t->parent)
		add_tree_changes(iv, &a);
	else
		for (size_t j = 0; j < t->nrows; j++) {
			bool changed;
			const struct rf_site *d = change_of(&a, j, &changed);

			if (changed)
				add_change(iv, r, t, d, NULL);
		}
	free(a.was);
}

/* Every change from `before` to r; threads are in index order in both. */
static void add_changes(struct interval *iv, const struct report *r, const struct report *before)
{
	size_t b = 0;

	for (size_t i = 0; i < r->nthreads; i++) {
		const struct rep_thread *t = &r->threads[i];

		while (b < before->nthreads && before->threads[b].index < t->index)
			b++;
		add_thread(iv, r, t, before, b < before->nthreads &&
			   before->threads[b].index == t->index ? &before->threads[b] : NULL);
	}
}

/* ---- the process's totals ----------------------------------------------- */

/* One event's total over the process's threads: an ended thread's final
 * total (the scaled estimate where multiplexed, unless --raw), a running
 * one's last published count. */
struct wtotal {
	uint64_t v;
	bool have, est;
};

static void totals_of(const struct report *r, struct wtotal *w)
{
	for (size_t e = 0; e < r->nev; e++) {
		w[e] = (struct wtotal){ 0 };
		for (size_t i = 0; i < r->nthreads; i++) {
			const struct rep_thread *t = &r->threads[i];
			const struct rep_total *x = &t->totals[e];
			bool scaled = x->has_scaled && !r->raw;

			if (x->has_value)
				sat_add(&w[e].v, scaled ? x->scaled : x->value), w[e].have = true,
				w[e].est |= x->has_scaled;
			else if (!t->has_totals && t->has_live && t->slot[e])
				sat_add(&w[e].v, t->live[t->slot[e] - 1]), w[e].have = true;
		}
	}
}

/* ---- printing ---------------------------------------------------------------- */

enum { WCOL = 15 };

/* How value k of a line is shown (0: wall, 1 + e: event e): times with
 * their unit, counts exactly with thousands separators, as perf stat. */
static enum how how_of_value(const struct report *r, size_t k)
{
	return !k || event_is_time(r->ev[k - 1].name) ? H_TIME : H_EXACT;
}

static void print_head(FILE *out, const struct report *r, size_t namew)
{
	fprintf(out, "# watching %s: %s (pid %" PRIu64 "), %s\n", r->path, r->executable, r->pid,
		r->state_text);
	note_calibration(out, r);
	note_fn_sampled(out, r);
	fprintf(out, "# per interval, at the process's own time (seconds since its exec): the "
		"calls and inclusive values added to each region that changed, then [total]: "
		"each event's count in the interval and its running total\n");
	fprintf(out, "#%10s  %-*s  %*s  %*s", "time", (int)namew, "region", WCOL, "calls", WCOL,
		"wall");
	for (size_t e = 0; e < r->nev; e++)
		fprintf(out, "  %*s", WCOL, r->ev[e].name);
	fputs("\n", out);
}

/* A sum's change as the tables mark it: "+12,772", "+1.23 ms*"
 * (estimated), "n/a", "n/a*" (never counted in the interval). */
static void print_value(FILE *out, const struct sum *s, enum how how)
{
	char b[40], c[48];

	snprintf(c, sizeof(c), "%s%s", s->have ? "+" : "", est_cell(b, s, s->incl, how));
	fprintf(out, "  %*s", WCOL, c);
}

/* Region id's line; true when a value of it is marked ('*', "n/a*"). */
static bool print_line(FILE *out, const struct report *r, const struct interval *iv,
		       size_t id, double t, size_t namew)
{
	const struct sum *s = &iv->sums[iv->line[id] * iv->nval];
	bool marked = false;
	char b[32], c[40];

	snprintf(c, sizeof(c), "+%s", fmt_num(b, iv->calls[iv->line[id]], H_EXACT));
	fprintf(out, " %10.3f  %-*s  %*s", t, (int)namew, r->names[id], WCOL, c);
	for (size_t k = 0; k < iv->nval; k++) {
		print_value(out, &s[k], how_of_value(r, k));
		marked |= s[k].have ? s[k].mux > 0 : s[k].never > 0;
	}
	fputs("\n", out);
	return marked;
}

/* The totals' lines: per event, the interval's count and the running
 * total ("n/a": no thread has told it yet); true when one is marked. */
static bool print_totals(FILE *out, const struct report *r, const struct wtotal *now,
			 const struct wtotal *was, double t, size_t namew)
{
	bool marked = false;

	for (size_t e = 0; e < r->nev; e++) {
		enum how how = how_of_value(r, 1 + e);
		const char *mark = now[e].est ? "*" : "";
		char b[32], d[48], c[48];

		if (!now[e].have) {
			snprintf(d, sizeof(d), "n/a"), snprintf(c, sizeof(c), "n/a");
		} else {
			snprintf(d, sizeof(d), "+%s%s",
				 fmt_num(b, rep_minus(now[e].v, was[e].have ? was[e].v : 0), how), mark);
			snprintf(c, sizeof(c), "%s%s", fmt_num(b, now[e].v, how), mark);
		}
		fprintf(out, " %10.3f  %-*s  %-*s  %*s  %*s\n", t, (int)namew, "[total]", WCOL,
			r->ev[e].name, WCOL, d, WCOL, c);
		marked |= now[e].est;
	}
	return marked;
}

/* What '*' means, once: the first time a value is marked. */
static void print_legend(FILE *out, const struct report *r)
{
	if (r->raw)
		fprintf(out, "# * multiplexed: counted only part of the interval; shown as measured "
			"(--raw), short of the whole; without --raw, the scaled estimate\n");
	else
		fprintf(out, "# * estimated: counted only part of the interval (multiplexed); shown "
			"is the interval's value x enabled / running, then calibrated; n/a*: never "
			"counted in it; --raw shows measured values\n");
}

/* --region: the regions whose lines are printed (NULL: all). */
static const regex_t *only;

/* The interval's lines, in region id order, the totals' and its notes;
 * *legend: the legend was printed. */
static void print_block(FILE *out, const struct report *r, const struct interval *iv,
			const struct wtotal *now, const struct wtotal *was, double t,
			size_t namew, bool *legend)
{
	bool marked = false;

	for (size_t id = 0; id < iv->nids; id++)
		if (r->names[id] && iv->line[id] != UINT32_MAX &&
		    (!only || !regexec(only, r->names[id], 0, NULL, 0)))
			marked |= print_line(out, r, iv, id, t, namew);
	marked |= print_totals(out, r, now, was, t, namew);
	note_below(out, iv->nbelow);
	if (marked && !*legend)
		print_legend(out, r), *legend = true;
	fflush(out);
}

/* ---- the loop -------------------------------------------------------------- */

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void pause_for(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) != 0)
		;
}

static size_t name_width(const struct report *r)
{
	size_t w = 6;

	for (size_t id = 0; id < r->nname_ids; id++)
		if (r->names[id] && strlen(r->names[id]) > w)
			w = strlen(r->names[id]);
	return w > 40 ? 40 : w;
}

/* Names regions keyed by an address, for the watch's lifetime (each
 * module read once). */
static struct symbolizer *sz;

/* The file, its values shown raw or not. */
static struct report *load(const char *path, bool raw, char *why, size_t whylen)
{
	struct report *r = report_load_file(path, why, whylen);

	if (r)
		r->raw = raw;
	if (r && sz)
		symbols_name_regions(sz, r);
	return r;
}

/* The file again. One that fails to load while its process writes it is
 * tried again a few times: a reader should never meet a reference to a
 * record not yet done, but a watch should not end on the first surprise. */
static struct report *reload(const char *path, bool raw, double interval, char *why,
			     size_t whylen)
{
	struct report *r = NULL;

	for (int tries = 0; !r && tries < 3; tries++) {
		if (tries)
			pause_for(interval);
		r = load(path, raw, why, whylen);
	}
	return r;
}

/* The process's own clock as of read r: seconds since its exec. A read
 * without a wall time (a process gone without a word) goes on from the
 * last that had one on the watcher's clock; with none ever, the watcher's
 * own (since it began). */
static double process_time(const struct report *r, double since)
{
	static double offset;
	static bool known;
	double t;

	if (!r->has_wall)
		return known ? mono_s() + offset : mono_s() - since;
	t = (double)r->wall_ns / 1e9 + (double)r->before_wall_ns / 1e9;
	offset = t - mono_s(), known = true;
	return t;
}

/* What `before` to r added, printed at the process's time. */
static void print_interval(FILE *out, const struct report *r, const struct report *before,
			   double since, size_t namew, bool *legend)
{
	struct wtotal *now = xcalloc(r->nev + 1, sizeof(*now));
	struct wtotal *was = xcalloc(before->nev + 1, sizeof(*was));
	struct interval iv;

	interval_init(&iv, r);
	add_changes(&iv, r, before);
	totals_of(r, now), totals_of(before, was);
	print_block(out, r, &iv, now, r->nev == before->nev ? was : now, process_time(r, since),
		    namew, legend);
	interval_free(&iv);
	free(now), free(was);
}

static int watch(FILE *out, const char *path, double interval, bool raw)
{
	char why[600];
	struct report *before = load(path, raw, why, sizeof(why)), *r;
	double start = mono_s();
	bool legend = false;
	size_t namew;

	if (!before) {
		fprintf(stderr, PROG ": %s: %s\n", path, why);
		return 2;
	}
	namew = name_width(before);
	print_head(out, before, namew);
	fflush(out);
	while (before->live) {
		pause_for(interval);
		if (!(r = reload(path, raw, interval, why, sizeof(why)))) {
			fprintf(stderr, PROG ": %s: %s\n", path, why);
			report_free(before);
			return 2;
		}
		print_interval(out, r, before, start, namew, &legend);
		/* (said when it happens, not at every interval after) */
		if (r->shrank || r->missing != before->missing || r->cuts != before->cuts)
			note_short(out, r);
		report_free(before);
		before = r;
	}
	fprintf(out, "# %s: %s (pid %" PRIu64 "), %s\n", before->path, before->executable,
		before->pid, before->state_text);
	report_free(before);
	return 0;
}

int run_watch(FILE *out, const char *path, const struct opts *o)
{
	int rc;

	only = o->has_re ? &o->re : NULL;
	sz = symbolizer_new();
	rc = watch(out, path, o->watch, o->raw);
	symbolizer_free(sz);
	sz = NULL;
	return rc;
}
