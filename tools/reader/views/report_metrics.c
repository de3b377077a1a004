/* Derived metrics in the reader's tables. A metric's value in a row comes
 * from its events' sums in that row: only when every one of them has a
 * value in the same rows (as IPC always did), else n/a. Marked '*' when
 * one of them was multiplexed, '+' when they cover only some threads. */
#include "report_metrics.h"

#include <stdlib.h>
#include <string.h>

#include "common/metrics_def.h"
#include "reader/cells/report_cells.h"
#include "reader/cells/report_text.h"

#define MAX_METRICS 32

static struct mdefs defs;
static const struct metric *chosen[MAX_METRICS], *hidden[MAX_METRICS];
static size_t nchosen, nhidden;

static int load(const char *file)
{
	char why[512];

	if (mdefs_load(&defs, file, why, sizeof(why)) == 0)
		return 0;
	fprintf(stderr, PROG ": %s\n", why);
	return 2;
}

int metrics_choose(const char *list, const char *file)
{
	char why[512];
	int n;

	if (load(file))
		return 2;
	if ((n = mdefs_select(&defs, list, chosen, MAX_METRICS, why, sizeof(why))) < 0) {
		fprintf(stderr, PROG ": -M: %s\n", why);
		return 2;
	}
	nchosen = (size_t)n;
	return 0;
}

int metrics_list(FILE *out, const char *file)
{
	if (load(file))
		return 2;
	for (size_t i = 0; i < defs.nfiles; i++)
		fprintf(out, "# %s\n", defs.files[i]);
	for (size_t i = 0; i < defs.n; i++) {
		const struct metric *m = &defs.m[i];

		fprintf(out, "%-24s %s%s%s%s\n", m->name, m->desc, *m->unit ? " [" : "", m->unit,
			*m->unit ? "]" : "");
		fprintf(out, "%-24s   events:", "");
		for (size_t e = 0; e < m->nev; e++)
			fprintf(out, "%s %s", e ? "," : "", m->ev[e]);
		fputc('\n', out);
	}
	for (size_t i = 0; i < defs.ngroup; i++) {
		fprintf(out, "group %-18s", defs.g[i].name);
		for (size_t k = 0; k < defs.g[i].n; k++)
			fprintf(out, "%s %s", k ? "," : "", defs.g[i].metric[k]);
		fprintf(out, "%s%s\n", *defs.g[i].desc ? ": " : "", defs.g[i].desc);
	}
	return 0;
}

size_t metrics_count(void)
{
	return nchosen;
}

bool metrics_replace_ipc(void)
{
	for (size_t i = 0; i < nchosen; i++)
		if (!strcmp(chosen[i]->name, "IPC"))
			return true;
	return false;
}

/* "IPC", "branch-miss-rate %" */
static void heading(struct table *t, const struct metric *mt, const char *suffix)
{
	tbl_put(t, "%s%s%s%s", mt->name, *mt->unit ? " " : "", mt->unit, suffix);
}

void metrics_headings(struct table *t, size_t col)
{
	char b[256];

	for (size_t i = 0; i < nchosen; i++, col += 2) {
		snprintf(b, sizeof(b), "%s%s%s", chosen[i]->name, *chosen[i]->unit ? " " : "",
			 chosen[i]->unit);
		tbl_span(t, col, 2, b);
		tbl_put(t, "incl"), tbl_put(t, "excl");
	}
}

/* ---- a region row ---------------------------------------------------------- */

struct gval {
	const struct model *m;
	const struct group *g;
	bool excl;
};

static int model_event(const struct model *m, const char *name)
{
	for (size_t e = 0; e < m->nev; e++)
		if (!strcmp(m->ev[e], name))
			return (int)e;
	return -1;
}

static bool group_value(void *arg, const char *ev, double *v)
{
	const struct gval *gv = arg;
	int e = model_event(gv->m, ev);
	const struct sum *s;

	if (e < 0 || !(s = &gv->g->s[1 + e])->have)
		return false;
	*v = (double)(gv->excl ? s->excl : s->incl);
	return true;
}

/* Its events were counted in the same rows: their sums compare. */
static bool same_rows(const struct model *m, const struct group *g, const struct metric *mt,
		      bool *est, bool *partial)
{
	const struct sum *first = NULL;

	*est = *partial = false;
	for (size_t i = 0; i < mt->nev; i++) {
		int e = model_event(m, mt->ev[i]);
		const struct sum *s = e < 0 ? NULL : &g->s[1 + e];

		if (!s || !s->have || (first && (s->have != first->have || s->miss != first->miss)))
			return false;
		first = first ? first : s;
		*est |= s->mux > 0;
		*partial |= s->miss > 0;
	}
	return true;
}

static void put_metric(struct table *t, bool ok, double v, bool est, bool partial)
{
	if (ok)
		tbl_put(t, "%.*f%s%s", v != 0 && v < 10 && v > -10 ? 2 : 1, v, est ? "*" : "",
			partial ? "+" : "");
	else
		tbl_put(t, "n/a");
}

/* Metric i of group g: incl and excl, each with whether it has a value. */
struct mval {
	double incl, excl;
	bool ok_incl, ok_excl, est, partial;
};

static struct mval metric_of(const struct model *m, const struct group *g, size_t i)
{
	struct gval gv = { m, g, false };
	struct mval v = { 0 };
	bool ok = same_rows(m, g, chosen[i], &v.est, &v.partial);

	v.ok_incl = ok && metric_eval(chosen[i], group_value, &gv, &v.incl);
	gv.excl = true;
	v.ok_excl = ok && metric_eval(chosen[i], group_value, &gv, &v.excl);
	return v;
}

const struct metric *metrics_chosen(size_t i)
{
	return i < nchosen ? chosen[i] : NULL;
}

bool metrics_group_incl(const struct model *m, const struct group *g, size_t i, double *v)
{
	struct mval mv = metric_of(m, g, i);

	*v = mv.incl;
	return mv.ok_incl;
}

void metrics_cells(struct table *t, const struct model *m, const struct group *g, bool *est,
		   bool *partial)
{
	for (size_t i = 0; i < nchosen; i++) {
		struct mval v = metric_of(m, g, i);

		put_metric(t, v.ok_incl, v.incl, v.est, v.partial);
		put_metric(t, v.ok_excl, v.excl, v.est, v.partial);
		*est |= (v.ok_incl || v.ok_excl) && v.est;
		*partial |= (v.ok_incl || v.ok_excl) && v.partial;
	}
}

void metrics_csv_header(FILE *out)
{
	for (size_t i = 0; i < nchosen; i++) {
		fprintf(out, ",");
		csv_field(out, chosen[i]->name);
		fprintf(out, "_incl,");
		csv_field(out, chosen[i]->name);
		fprintf(out, "_excl");
	}
}

void metrics_csv_values(FILE *out, const struct model *m, const struct group *g)
{
	for (size_t i = 0; i < nchosen; i++) {
		struct mval v = metric_of(m, g, i);

		putc(',', out);
		if (v.ok_incl)
			fprintf(out, "%.10g", v.incl);
		putc(',', out);
		if (v.ok_excl)
			fprintf(out, "%.10g", v.excl);
	}
}

/* JSON has no NaN: a metric without a value is null. */
static void json_num(FILE *out, bool ok, double v)
{
	if (ok)
		fprintf(out, "%.10g", v);
	else
		fputs("null", out);
}

void metrics_json(FILE *out, const struct model *m, const struct group *g)
{
	if (!nchosen)
		return;
	fputs(", \"metrics\": {", out);
	for (size_t i = 0; i < nchosen; i++) {
		struct mval v = metric_of(m, g, i);

		fputs(i ? ", " : "", out);
		json_string(out, chosen[i]->name);
		fputs(": {\"incl\": ", out);
		json_num(out, v.ok_incl, v.incl);
		fputs(", \"excl\": ", out);
		json_num(out, v.ok_excl, v.excl);
		fprintf(out, ", \"estimated\": %s}", v.est ? "true" : "false");
	}
	fputc('}', out);
}

/* ---- a thread's totals ------------------------------------------------------- */

struct tval {
	const struct report *r;
	const struct rep_thread *th;
	bool mux;
};

static bool thread_value(void *arg, const char *ev, double *v)
{
	struct tval *tv = arg;

	for (size_t e = 0; e < tv->r->nev; e++) {
		const struct rep_total *tot = &tv->th->totals[e];
		bool mux = !strcmp(tot->status, "multiplexed") && tot->has_scaled;

		if (strcmp(tv->r->ev[e].name, ev))
			continue;
		if (!tot->has_value)
			return false;
		tv->mux |= mux;
		*v = (double)(mux && !tv->r->raw ? tot->scaled : tot->value);
		return true;
	}
	return false;
}

/* A process's total: its threads' totals added, over the threads where
 * every event of the metric has one. */
struct pval {
	const struct report *r;
	const struct metric *mt;
	bool mux;
};

static bool process_value(void *arg, const char *ev, double *v)
{
	struct pval *pv = arg;
	bool any = false;

	*v = 0;
	for (size_t k = 0; k < pv->r->nthreads; k++) {
		struct tval tv = { pv->r, &pv->r->threads[k], false };
		double x;
		bool all = true;

		for (size_t e = 0; e < pv->mt->nev && all; e++)
			all = thread_value(&tv, pv->mt->ev[e], &x);
		if (!all || !thread_value(&tv, ev, &x))
			continue;
		*v += x, any = true;
		pv->mux |= tv.mux;
	}
	return any;
}

void metrics_process_cells(struct table *t, const struct report *r, bool *mux)
{
	for (size_t i = 0; i < nchosen; i++) {
		struct pval pv = { r, chosen[i], false };
		double v;
		bool ok = metric_eval(chosen[i], process_value, &pv, &v);

		put_metric(t, ok, v, pv.mux, false);
		*mux |= ok && pv.mux;
	}
}

void metrics_thread_headings(struct table *t)
{
	for (size_t i = 0; i < nchosen; i++)
		heading(t, chosen[i], "");
}

void metrics_thread_cells(struct table *t, const struct report *r, const struct rep_thread *th,
			  bool *mux)
{
	for (size_t i = 0; i < nchosen; i++) {
		struct tval tv = { r, th, false };
		double v;
		bool ok = metric_eval(chosen[i], thread_value, &tv, &v);

		put_metric(t, ok, v, tv.mux, false);
		*mux |= ok && tv.mux;
	}
}

/* ---- why not --------------------------------------------------------------------- */

/* Why event ev gives no value in any file: absent, or unavailable (the
 * first file's reason). NULL when some file counted it. */
static const char *why_none(const struct model *m, const char *ev, char *b, size_t len)
{
	const char *reason = NULL;

	for (size_t f = 0; f < m->nfiles; f++)
		for (size_t e = 0; e < m->files[f]->nev; e++) {
			const struct rep_event *re = &m->files[f]->ev[e];

			if (strcmp(re->name, ev))
				continue;
			if (strcmp(re->source, "unavailable"))
				return NULL;
			reason = reason ? reason : re->reason ? re->reason : "unavailable";
		}
	if (reason)
		snprintf(b, len, "%s could not count (%s)", ev, reason);
	else
		snprintf(b, len, "%s was not counted (not among the report's events: pmcshim -M "
			 "adds a metric's events)", ev);
	return b;
}

static const char *metric_why(const struct model *m, const struct metric *mt, char *b,
			      size_t len)
{
	const char *why = NULL;

	for (size_t e = 0; e < mt->nev && !why; e++)
		why = why_none(m, mt->ev[e], b, len);
	return why;
}

void metrics_collapse(const struct model *m)
{
	char b[512];
	size_t n = 0;

	for (size_t i = 0; i < nchosen; i++)
		if (metric_why(m, chosen[i], b, sizeof(b)))
			hidden[nhidden++] = chosen[i];
		else
			chosen[n++] = chosen[i];
	nchosen = n;
}

static void notes_of(FILE *out, const struct model *m, const struct metric *const *list,
		     size_t n, bool *first)
{
	char b[512];
	const char *why;

	for (size_t i = 0; i < n; i++) {
		if (!(why = metric_why(m, list[i], b, sizeof(b))))
			continue;
		if (*first)
			fputc('\n', out), *first = false;
		fprintf(out, "metric %s: n/a: %s\n", list[i]->name, why);
	}
}

void metrics_notes(FILE *out, const struct model *m)
{
	bool first = true;

	notes_of(out, m, chosen, nchosen, &first);
	notes_of(out, m, hidden, nhidden, &first);
}
