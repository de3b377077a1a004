/* pmcshim-report --repeat: N runs of one program (each a report file, or
 * a directory holding one run's files, merged), regions matched by name.
 * Per region and in total: the mean over the runs, the runs' standard
 * deviation as a share of it ("+-1.23%", perf stat -r's form), min and
 * max; calls, wall time and each event's inclusive value. Then the same
 * of each run's totals (the whole command's, as the totals table counts
 * them: the launcher's .totals.PID where the run has one), which a
 * program without markers has too. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/metrics_def.h"
#include "reader/cells/report_cells.h"
#include "reader/cells/report_escape.h"
#include "report_metrics.h"
#include "report_render.h"
#include "report_repeat.h"
#include "report_totals.h"
#include "reader/data/report_runs.h"

#define MAXCOL (2 + 2 * RF_EVENTS_MAX + 8) /* calls, wall, events of every run, metrics */

struct rrow {
	const char *name;
	double *v;			/* [col * nruns + run], NAN: not in that run */
	UT_hash_handle hh;
};

struct repeat {
	size_t nruns, ncol;
	const char *col[MAXCOL];	/* "calls", "wall", event names */
	enum how how[MAXCOL];
	const struct metric *metric[MAXCOL];	/* a metric's column: its value */
	struct rrow *rows, **order, total;
	size_t n, cap;
	struct pool pool;
	/* each run's totals: a column each (processes, wall, CPU, events),
	 * their one row run_total */
	struct repeat *totals;
	struct rrow run_total;
};

static int column(struct repeat *rp, const char *name, enum how how)
{
	for (size_t c = 0; c < rp->ncol; c++)
		if (!strcmp(rp->col[c], name))
			return (int)c;
	if (rp->ncol == MAXCOL)
		return -1;
	rp->col[rp->ncol] = pool_strdup(&rp->pool, name);
	rp->how[rp->ncol] = how;
	return (int)rp->ncol++;
}

static double *new_values(size_t nruns)
{
	double *v = xmalloc(MAXCOL * nruns * sizeof(*v));

	for (size_t i = 0; i < MAXCOL * nruns; i++)
		v[i] = NAN;
	return v;
}

static struct rrow *row(struct repeat *rp, const char *name)
{
	struct rrow *r;

	HASH_FIND_STR(rp->rows, name, r);
	if (r)
		return r;
	r = xcalloc(1, sizeof(*r));
	r->name = pool_strdup(&rp->pool, name);
	r->v = new_values(rp->nruns);
	HASH_ADD_KEYPTR(hh, rp->rows, r->name, strlen(r->name), r);
	rp->order = grow(rp->order, &rp->cap, rp->n + 1, sizeof(*rp->order));
	rp->order[rp->n++] = r;
	return r;
}

static void put(struct repeat *rp, struct rrow *r, int col, size_t run, double v)
{
	double *p;

	if (col < 0)
		return;
	p = &r->v[(size_t)col * rp->nruns + run];
	*p = isnan(*p) ? v : *p + v;
}

/* One run's model: its regions' values, and the totals (every region's
 * excl, the way the tables' shares add up). */
static void take_run(struct repeat *rp, const struct model *m, size_t run)
{
	const struct gtable *t = &m->tables[0];

	for (size_t i = 0; i < t->n; i++) {
		const struct group *g = t->g[i];
		struct rrow *r = row(rp, m->regions[g->key.region]);

		put(rp, r, 0, run, (double)g->calls);
		put(rp, &rp->total, 0, run, (double)g->calls);
		for (int e = -1; e < (int)m->nev; e++) {
			const struct sum *s = &g->s[1 + e];
			int c = e < 0 ? 1 : column(rp, m->ev[e], how_of(m, e));

			if (!s->have)
				continue;
			put(rp, r, c, run, (double)s->incl);
			put(rp, &rp->total, c, run, (double)s->excl);
		}
		for (size_t k = 0; metrics_chosen(k); k++) {
			int c = column(rp, metrics_chosen(k)->name, H_PLAIN);
			double v;

			if (c >= 0 && metrics_group_incl(m, g, k, &v))
				rp->metric[c] = metrics_chosen(k), put(rp, r, c, run, v);
		}
	}
}

/* The total's metrics: from the total's event values of each run. */
struct tot {
	struct repeat *rp;
	size_t run;
};

static bool total_value(void *arg, const char *ev, double *v)
{
	struct tot *t = arg;

	for (size_t c = 2; c < t->rp->ncol; c++)
		if (!t->rp->metric[c] && !strcmp(t->rp->col[c], ev)) {
			*v = t->rp->total.v[c * t->rp->nruns + t->run];
			return !isnan(*v);
		}
	return false;
}

static void total_metrics(struct repeat *rp)
{
	for (size_t c = 0; c < rp->ncol; c++)
		for (size_t run = 0; rp->metric[c] && run < rp->nruns; run++) {
			struct tot t = { rp, run };
			double v;

			if (metric_eval(rp->metric[c], total_value, &t, &v))
				rp->total.v[c * rp->nruns + run] = v;
		}
}

/* The run's totals, one column each. */
static void take_totals(struct repeat *tp, const struct model *m, size_t run)
{
	struct total_values v;

	totals_values(m, SIZE_MAX, &v);
	put(tp, &tp->run_total, column(tp, "processes", H_EXACT), run, (double)v.nproc);
	if (v.has_wall)
		put(tp, &tp->run_total, column(tp, "wall", H_TIME), run, (double)v.wall_ns);
	if (v.has_cpu)
		put(tp, &tp->run_total, column(tp, "CPU", H_TIME), run, (double)v.cpu_ns);
	for (size_t e = 0; e < m->nev; e++) {
		int c = column(tp, m->ev[e], how_of(m, (int)e));

		if (v.have[e])
			put(tp, &tp->run_total, c, run, (double)v.value[e]);
	}
	totals_values_free(&v);
}

/* ---- the runs' files ---------------------------------------------------- */

/* path's reports: itself, or a run directory's (and its launcher's
 * totals: *jobs, the caller frees them). NULL after one line. */
static struct report **load_run(struct repeat *rp, const char *path, bool raw, size_t *n,
				struct rf_job **jobs, size_t *njobs)
{
	char *arg = (char *)path, why[600];
	struct runs in;
	struct report **r;

	if (runs_expand(&in, &arg, 1))
		return NULL;
	if (runs_take_jobs(&in, jobs, njobs) != 0) {
		runs_free(&in);
		return NULL;
	}
	if (!in.n) {
		fprintf(stderr, PROG ": --repeat: %s: no report, only a launcher's totals\n", path);
		runs_free(&in);
		return NULL;
	}
	r = xcalloc(in.n, sizeof(*r));
	for (size_t i = 0; i < in.n; i++) {
		if (!(r[i] = report_load_file(in.path[i], why, sizeof(why)))) {
			fprintf(stderr, PROG ": %s: %s\n", in.path[i], why);
			while (i-- > 0)
				report_free(r[i]);
			free(r), r = NULL;
			break;
		}
		r[i]->raw = raw, r[i]->path = pool_strdup(&rp->pool, in.path[i]);
	}
	*n = in.n;
	runs_free(&in);
	return r;
}

static int add_run(struct repeat *rp, const char *path, size_t run, const struct opts *o)
{
	struct opts one = *o;
	size_t n, njobs = 0;
	struct rf_job *jobs = NULL;
	struct report **files = load_run(rp, path, o->raw, &n, &jobs, &njobs);
	struct model *m;
	char why[512];

	if (!files) {
		free(jobs);
		return 2;
	}
	one.threads = one.by_process = one.stacks = false;
	if (!(m = model_new(files, n, &one, why, sizeof(why))))
		fprintf(stderr, PROG ": %s: %s\n", path, why);
	else {
		m->jobs = jobs, m->njobs = njobs;
		model_tables(m);
		take_run(rp, m, run);
		take_totals(rp->totals, m, run);
		model_free(m);
	}
	free(jobs);
	for (size_t i = 0; i < n; i++)
		report_free(files[i]);
	free(files);
	return m ? 0 : 2;
}

/* ---- output ----------------------------------------------------------------- */

struct stats {
	size_t n;
	double mean, sd, min, max;
};

static struct stats stats_of(const double *v, size_t nruns)
{
	struct stats s = { .min = INFINITY, .max = -INFINITY };
	double sq = 0;

	for (size_t i = 0; i < nruns; i++)
		if (!isnan(v[i])) {
			s.n++, s.mean += v[i];
			s.min = v[i] < s.min ? v[i] : s.min, s.max = v[i] > s.max ? v[i] : s.max;
		}
	if (!s.n)
		return s;
	s.mean /= (double)s.n;
	for (size_t i = 0; i < nruns; i++)
		if (!isnan(v[i]))
			sq += (v[i] - s.mean) * (v[i] - s.mean);
	s.sd = s.n > 1 ? sqrt(sq / (double)(s.n - 1)) : 0;
	return s;
}

static void put_num(struct table *t, double v, enum how how)
{
	char b[40];

	if (how == H_PLAIN) {	/* a metric */
		tbl_put(t, "%.*f", v != 0 && v < 10 && v > -10 ? 3 : 1, v);
		return;
	}
	tbl_put(t, "%s", fmt_num(b, v < 0 ? 0 : v > 1.8e19 ? UINT64_MAX : (uint64_t)(v + 0.5),
				 how));
}

static void stat_cells(struct table *t, const struct repeat *rp, const struct rrow *r,
		       size_t c)
{
	struct stats s = stats_of(&r->v[c * rp->nruns], rp->nruns);

	if (!s.n) {
		tbl_put(t, "n/a"), tbl_put(t, "n/a"), tbl_put(t, "n/a"), tbl_put(t, "n/a");
		return;
	}
	put_num(t, s.mean, rp->how[c]);
	if (s.mean != 0)
		tbl_put(t, "+-%.2f%%", 100 * s.sd / fabs(s.mean));
	else
		tbl_put(t, "+-%s", s.sd > 0 ? "inf" : "0.00%");
	put_num(t, s.min, rp->how[c]), put_num(t, s.max, rp->how[c]);
}

/* The columns in print order: calls, wall, the events, then the metrics. */
static size_t print_order(const struct repeat *rp, size_t *order)
{
	size_t n = 0;

	for (int metrics = 0; metrics < 2; metrics++)
		for (size_t c = 0; c < rp->ncol; c++)
			if (!rp->metric[c] == !metrics)
				order[n++] = c;
	return n;
}

static void print_row(struct table *t, const struct repeat *rp, const struct rrow *r)
{
	size_t order[MAXCOL], n = print_order(rp, order);
	struct stats calls = stats_of(r->v, rp->nruns);
	char *e = escape_name(r->name, NAME_COLUMN_MAX);

	tbl_put(t, "%s", e);
	free(e);
	tbl_put(t, "%zu/%zu", calls.n, rp->nruns);
	for (size_t i = 0; i < n; i++)
		stat_cells(t, rp, r, order[i]);
}

static void print_repeat(FILE *out, struct repeat *rp, char **paths)
{
	struct table t;
	size_t partial = 0, order[MAXCOL], n = print_order(rp, order);

	fprintf(out, "# %zu runs:", rp->nruns);
	for (size_t i = 0; i < rp->nruns; i++)
		fprintf(out, " %s", paths[i]);
	fputc('\n', out);
	if (!rp->n) {
		fprintf(out, "# no region in any run (no markers, nor another source of regions): "
			"the totals below are the whole command's\n");
		return;
	}
	fprintf(out, "# per region, over the runs: mean, +- the runs' standard deviation "
		"as a share of the mean, min, max; events and metrics inclusive\n");
	tbl_init(&t, 2 + 4 * rp->ncol);
	tbl_left(&t, 0);
	tbl_put(&t, "region"), tbl_put(&t, "runs");
	for (size_t i = 0; i < n; i++) {
		size_t c = order[i];

		tbl_span(&t, 2 + 4 * i, 4, c == 1 ? "wall time" : rp->col[c]);
		tbl_put(&t, "mean"), tbl_put(&t, "+-"), tbl_put(&t, "min"), tbl_put(&t, "max");
	}
	for (size_t i = 0; i < rp->n; i++) {
		print_row(&t, rp, rp->order[i]);
		partial += stats_of(rp->order[i]->v, rp->nruns).n < rp->nruns;
	}
	print_row(&t, rp, &rp->total);
	tbl_print(&t, out);
	fprintf(out, "(total): every region's exclusive values added, per run\n");
	if (partial)
		fprintf(out, "%zu region%s not in every run: %s over the runs %s in\n", partial,
			partial == 1 ? "" : "s", partial == 1 ? "its figures are" : "their figures are",
			partial == 1 ? "it is" : "they are");
}

/* The runs' totals: a row per total (processes, wall, CPU, each event). */
static void print_totals(FILE *out, const struct repeat *tp)
{
	struct table t;

	fprintf(out, "\n## totals over the %zu runs (each run's whole command, as perf stat -r "
		"counts it): mean, +- the runs' standard deviation as a share of the mean, min, "
		"max\n", tp->nruns);
	tbl_init(&t, 6);
	tbl_left(&t, 0);
	tbl_put(&t, "total"), tbl_put(&t, "runs"), tbl_put(&t, "mean"), tbl_put(&t, "+-");
	tbl_put(&t, "min"), tbl_put(&t, "max");
	for (size_t c = 0; c < tp->ncol; c++) {
		struct stats s = stats_of(&tp->run_total.v[c * tp->nruns], tp->nruns);

		tbl_put(&t, "%s", tp->col[c]);
		tbl_put(&t, "%zu/%zu", s.n, tp->nruns);
		stat_cells(&t, tp, &tp->run_total, c);
	}
	tbl_print(&t, out);
	fprintf(out, "wall: the command's, from its start to its last process's end; CPU: "
		"user + system time of its processes; n/a: not counted in any run\n");
}

int run_repeat(FILE *out, char **paths, size_t n, const struct opts *o)
{
	struct repeat rp = { .nruns = n }, tp = { .nruns = n };
	int rc = 0;

	rp.total.name = "(total)";
	rp.total.v = new_values(n);
	rp.totals = &tp;
	tp.run_total.v = new_values(n);
	column(&rp, "calls", H_EXACT), column(&rp, "wall", H_TIME);
	for (size_t i = 0; i < n && !rc; i++)
		rc = add_run(&rp, paths[i], i, o);
	if (!rc) {
		total_metrics(&rp), print_repeat(out, &rp, paths);
		print_totals(out, &tp);
	}
	for (size_t i = 0; i < rp.n; i++) {
		HASH_DEL(rp.rows, rp.order[i]);
		free(rp.order[i]->v), free(rp.order[i]);
	}
	free(rp.order), free(rp.total.v), free(tp.run_total.v);
	pool_free(&rp.pool), pool_free(&tp.pool);
	return rc;
}
