/* pmcshim-report --watch: a running process's file, read again every
 * interval, printed as per-interval changes like `perf stat -I`: a line per
 * region that changed, with its new calls and the growth of each value's
 * inclusive total, until the process is no longer running.
 *
 * Each read is a fresh load (rf_open maps the file at its current size, a
 * live file is snapshotted), so a file that grew is seen whole. Sums are
 * kept in raw units per region name id (ids never change in a file) and
 * converted only when printed: the reader's tick rate estimate of a live
 * file moves a little from read to read, and must not look like work. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report_render.h"

/* Per region name id: calls and the inclusive total of each value (0:
 * wall ticks, 1 + e: event e); have[1 + e]: some row had event e. */
struct wsums {
	size_t nids, nval;
	uint64_t *calls, *incl;
	unsigned char *have;
};

static void sums_free(struct wsums *w)
{
	free(w->calls), free(w->incl), free(w->have);
	memset(w, 0, sizeof(*w));
}

/* Sums never wrap: a saturated total is wrong, a wrapped one is absurd. */
static void sat_add(uint64_t *a, uint64_t b)
{
	if (__builtin_add_overflow(*a, b, a))
		*a = UINT64_MAX;
}

static void add_site(struct wsums *w, const struct rep_thread *t, const struct rf_site *s)
{
	size_t base = s->region * w->nval;

	sat_add(&w->calls[s->region], s->calls);
	sat_add(&w->incl[base], s->v[0].incl), w->have[base] = 1;
	for (size_t e = 0; e + 1 < w->nval; e++) {
		if (!t->slot[e])
			continue;
		sat_add(&w->incl[base + 1 + e], s->v[t->slot[e]].incl);
		w->have[base + 1 + e] = 1;
	}
}

static void sums_of(const struct report *r, struct wsums *w)
{
	w->nids = r->nname_ids, w->nval = 1 + r->nev;
	w->calls = xcalloc(w->nids, sizeof(*w->calls));
	w->incl = xcalloc(w->nids * w->nval, sizeof(*w->incl));
	w->have = xcalloc(w->nids * w->nval, 1);
	for (size_t i = 0; i < r->nthreads; i++)
		for (size_t j = 0; j < r->threads[i].nrows; j++)
			add_site(w, &r->threads[i], rep_site(r, &r->threads[i], j));
}

/* Value k of region id in w, 0 when w did not have the region yet. */
static uint64_t incl_at(const struct wsums *w, size_t id, size_t k)
{
	return id < w->nids ? w->incl[id * w->nval + k] : 0;
}

static uint64_t calls_at(const struct wsums *w, size_t id)
{
	return id < w->nids ? w->calls[id] : 0;
}

static bool changed(const struct wsums *now, const struct wsums *before, size_t id)
{
	if (calls_at(now, id) != calls_at(before, id))
		return true;
	for (size_t k = 0; k < now->nval; k++)
		if (incl_at(now, id, k) != incl_at(before, id, k))
			return true;
	return false;
}

/* ---- printing ---------------------------------------------------------------- */

enum { WCOL = 14 };

static void print_head(FILE *out, const struct report *r, size_t namew)
{
	fprintf(out, "# watching %s: %s (pid %" PRIu64 "), %s\n", r->path, r->executable, r->pid,
		r->state_text);
	fprintf(out, "# per interval: calls and inclusive totals added to each region that "
		"changed\n");
	fprintf(out, "#%10s  %-*s  %*s  %*s", "time", (int)namew, "region", WCOL, "calls", WCOL,
		"wall_ns");
	for (size_t e = 0; e < r->nev; e++)
		fprintf(out, "  %*s", WCOL, r->ev[e].name);
	fputs("\n", out);
}

static void print_delta(FILE *out, uint64_t now, uint64_t before)
{
	char b[32];

	if (now >= before)
		snprintf(b, sizeof(b), "+%" PRIu64, now - before);
	else
		snprintf(b, sizeof(b), "-%" PRIu64, before - now);
	fprintf(out, "  %*s", WCOL, b);
}

static void print_line(FILE *out, const struct report *r, const struct wsums *now,
		       const struct wsums *before, size_t id, double t, size_t namew)
{
	fprintf(out, " %10.3f  %-*s", t, (int)namew, r->names[id]);
	print_delta(out, calls_at(now, id), calls_at(before, id));
	if (r->ticks_per_ns > 0 && incl_at(now, id, 0) >= incl_at(before, id, 0))
		print_delta(out, rep_ns(r, incl_at(now, id, 0) - incl_at(before, id, 0)), 0);
	else
		fprintf(out, "  %*s", WCOL, "n/a");
	for (size_t k = 1; k < now->nval; k++) {
		if (now->have[id * now->nval + k])
			print_delta(out, incl_at(now, id, k), incl_at(before, id, k));
		else
			fprintf(out, "  %*s", WCOL, "n/a");
	}
	fputs("\n", out);
}

static void print_block(FILE *out, const struct report *r, const struct wsums *now,
			const struct wsums *before, double t, size_t namew)
{
	for (size_t id = 0; id < now->nids; id++)
		if (r->names[id] && changed(now, before, id))
			print_line(out, r, now, before, id, t, namew);
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

/* The file again. One that fails to load while its process writes it is
 * tried again a few times: a reader should never meet a reference to a
 * record not yet done, but a watch should not end on the first surprise. */
static struct report *reload(const char *path, double interval, char *why, size_t whylen)
{
	struct report *r = NULL;

	for (int tries = 0; !r && tries < 3; tries++) {
		if (tries)
			pause_for(interval);
		r = report_load_file(path, why, whylen);
	}
	return r;
}

int run_watch(FILE *out, const char *path, double interval)
{
	char why[600];
	struct report *r = report_load_file(path, why, sizeof(why));
	struct wsums before = { 0 }, now = { 0 };
	double start = mono_s();
	size_t namew;

	if (!r) {
		fprintf(stderr, PROG ": %s: %s\n", path, why);
		return 2;
	}
	namew = name_width(r);
	print_head(out, r, namew);
	fflush(out);
	sums_of(r, &before);
	while (r->live) {
		pause_for(interval);
		report_free(r);
		if (!(r = reload(path, interval, why, sizeof(why)))) {
			fprintf(stderr, PROG ": %s: %s\n", path, why);
			sums_free(&before);
			return 2;
		}
		sums_of(r, &now);
		print_block(out, r, &now, &before, mono_s() - start, namew);
		sums_free(&before);
		before = now;
	}
	fprintf(out, "# %s: %s (pid %" PRIu64 "), %s\n", r->path, r->executable, r->pid,
		r->state_text);
	sums_free(&before);
	report_free(r);
	return 0;
}
