/* The ranks of an MPI job (files whose header has a rank): one row per
 * rank, with the weight inside MPI calls and outside them, the rank with
 * the most outside marked (the one the others wait for); then per region
 * its spread across the ranks, min, mean and max, with the rank of the
 * max, heaviest max first. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reader/cells/report_cells.h"
#include "reader/cells/report_escape.h"
#include "reader/cells/report_labels.h"
#include "reader/data/report_incl.h"
#include "report_render.h"

const char *rank_text(char *b, const struct report *r)
{
	if (!r->mpi)
		return "";
	snprintf(b, 48, ", rank %" PRIu32 " of %" PRIu32, r->mpi_rank, r->mpi_size);
	return b;
}

void note_mpi(FILE *out, const struct report *r)
{
	if (!r->mpi)
		return;
	if (r->mpi_finalized_twice)
		fprintf(out, "#   MPI: rank %" PRIu32 " called MPI_Finalize twice\n", r->mpi_rank);
	else if (!r->mpi_finalized && r->state != RF_RUNNING)
		fprintf(out, "#   MPI: rank %" PRIu32 " ended without calling MPI_Finalize\n",
			r->mpi_rank);
}

/* A region from the MPI wrappers. */
static bool is_mpi(const char *name)
{
	return strncmp(name, "MPI_", 4) == 0;
}

struct cell {
	uint64_t incl, calls;
	bool have;
};

struct ranks {
	size_t n;
	size_t *file;			/* [n]: the files that are ranks */
	struct cell *c;			/* [region * n + rank] */
	uint64_t *inside;		/* [n]: weight in MPI regions */
};

/* Row j of thread t, in rank column k. */
static void add_row(const struct model *m, struct ranks *rk, const struct mthread *t, size_t j,
		    size_t k)
{
	const struct rf_site *s = rep_site(m->files[t->file], t->t, j);
	uint32_t g = mthread_region(m, t, s);
	/* the region's inclusive value by the views' one rule (report_incl.h):
	 * derived from the tree, a recursive re-entry counted once */
	struct rowval v = model_row_value(m, t, j, m->weight, OUTER_REGION);
	struct cell *c = &rk->c[g * rk->n + k];

	c->calls += s->calls;
	if (!v.present)
		return;
	c->incl += v.st.incl, c->have = true;
	if (is_mpi(m->regions[g]))
		rk->inside[k] += v.st.excl;
}

/* Every row of the ranks' files, in one pass over the threads. */
static void add_rows(const struct model *m, struct ranks *rk)
{
	size_t *col = xmalloc((m->nfiles ? m->nfiles : 1) * sizeof(*col));

	for (size_t f = 0; f < m->nfiles; f++)
		col[f] = SIZE_MAX;
	for (size_t k = 0; k < rk->n; k++)
		col[rk->file[k]] = k;
	for (size_t i = 0; i < m->nthreads; i++) {
		const struct mthread *t = &m->threads[i];

		for (size_t j = 0; col[t->file] != SIZE_MAX && j < t->t->nrows; j++)
			add_row(m, rk, t, j, col[t->file]);
	}
	free(col);
}

/* The weight over the whole process: its threads' totals of the weight's
 * event, or its wall time; false when not known. */
static bool process_total(const struct model *m, size_t f, uint64_t *v)
{
	const struct report *r = m->files[f];
	int e = m->weight < 0 ? -1 : m->evmap[f * m->nev + (size_t)m->weight];
	bool any = false;

	*v = 0;
	if (m->weight < 0) {
		*v = r->wall_ns;
		return r->has_wall;
	}
	for (size_t i = 0; e >= 0 && i < r->nthreads; i++) {
		const struct rep_total *x = &r->threads[i].totals[e];

		if (x->has_scaled || x->has_value)
			*v += x->has_scaled ? x->scaled : x->value, any = true;
	}
	return any;
}

static void print_rank_rows(FILE *out, const struct model *m, const struct ranks *rk)
{
	const char *wn = model_weight_name(m);
	enum how wh = how_of(m, m->weight);
	uint64_t most = 0, total;
	size_t slow = SIZE_MAX;
	struct table t;
	char b[32];

	for (size_t k = 0; k < rk->n; k++)
		if (process_total(m, rk->file[k], &total) && rep_minus(total, rk->inside[k]) >= most)
			most = rep_minus(total, rk->inside[k]), slow = k;
	fprintf(out, "\n## ranks (%s: the process's total, in MPI calls, outside them)\n", wn);
	tbl_init(&t, 8);
	tbl_left(&t, 2), tbl_left(&t, 7);
	tbl_put(&t, "rank"), tbl_put(&t, "pid"), tbl_put(&t, "host"), tbl_put(&t, "total");
	tbl_put(&t, "in MPI"), tbl_put(&t, "outside"), tbl_put(&t, "MPI share"), tbl_put(&t, "%s", "");
	for (size_t k = 0; k < rk->n; k++) {
		const struct report *r = m->files[rk->file[k]];
		bool known = process_total(m, rk->file[k], &total);

		tbl_put(&t, "%" PRIu32, r->mpi_rank), tbl_put(&t, "%" PRIu64, r->pid);
		tbl_put(&t, "%s", *r->host ? r->host : "-");
		tbl_put(&t, "%s", known ? fmt_num(b, total, wh) : "n/a");
		tbl_put(&t, "%s", fmt_num(b, rk->inside[k], wh));
		tbl_put(&t, "%s", known ? fmt_num(b, rep_minus(total, rk->inside[k]), wh) : "n/a");
		if (known && total)
			tbl_put(&t, "%.1f%%", 100.0 * (double)rk->inside[k] / (double)total);
		else
			tbl_put(&t, "n/a");
		tbl_put(&t, "%s", k == slow && rk->n > 1 ? "<- slowest (most outside MPI)" : "");
	}
	tbl_print(&t, out);
}

struct spread {
	uint32_t region;
	size_t nhave, maxk;
	uint64_t min, max, cmin, cmax;
	double mean;
};

static int by_max(const void *pa, const void *pb)
{
	const struct spread *a = pa, *b = pb;

	return a->max != b->max ? (a->max < b->max ? 1 : -1) : (a->region > b->region) -
							       (a->region < b->region);
}

/* Region g across the ranks (a rank without it counts 0). */
static struct spread spread_of(const struct ranks *rk, uint32_t g)
{
	struct spread s = { .region = g, .min = UINT64_MAX, .cmin = UINT64_MAX };
	double sum = 0;

	for (size_t k = 0; k < rk->n; k++) {
		const struct cell *c = &rk->c[g * rk->n + k];

		s.nhave += c->have;
		if (c->incl > s.max || k == 0)
			s.max = c->incl, s.maxk = k;
		s.min = c->incl < s.min ? c->incl : s.min;
		s.cmin = c->calls < s.cmin ? c->calls : s.cmin;
		s.cmax = c->calls > s.cmax ? c->calls : s.cmax;
		sum += (double)c->incl;
	}
	s.mean = sum / (double)rk->n;
	return s;
}

static void print_spread(FILE *out, const struct model *m, const struct ranks *rk)
{
	struct spread *sp = xcalloc(m->nregions ? m->nregions : 1, sizeof(*sp));
	enum how wh = how_of(m, m->weight);
	size_t n = 0;
	struct table t;
	char b[32];

	for (uint32_t g = 0; g < m->nregions; g++) {
		struct spread s;

		if (!m->selected[g])
			continue;
		s = spread_of(rk, g);
		if (s.nhave)
			sp[n++] = s;
	}
	qsort(sp, n, sizeof(*sp), by_max);
	if (m->o->top && n > m->o->top)
		n = m->o->top;
	fprintf(out, "\n## spread across %zu ranks (%s incl per rank; max/mean 1.00: balanced)\n",
		rk->n, model_weight_name(m));
	tbl_init(&t, 9);
	tbl_left(&t, 0);
	tbl_put(&t, "region"), tbl_put(&t, "ranks"), tbl_put(&t, "calls min");
	tbl_put(&t, "calls max"), tbl_put(&t, "min"), tbl_put(&t, "mean"), tbl_put(&t, "max");
	tbl_put(&t, "max rank"), tbl_put(&t, "max/mean");
	for (size_t i = 0; i < n; i++) {
		const struct spread *s = &sp[i];

		tbl_put(&t, "%s", region_label(m, s->region));
		tbl_put(&t, "%zu", s->nhave), tbl_put(&t, "%" PRIu64, s->cmin);
		tbl_put(&t, "%" PRIu64, s->cmax), tbl_put(&t, "%s", fmt_num(b, s->min, wh));
		tbl_put(&t, "%s", fmt_num(b, (uint64_t)(s->mean + 0.5), wh));
		tbl_put(&t, "%s", fmt_num(b, s->max, wh));
		tbl_put(&t, "%" PRIu32, m->files[rk->file[s->maxk]]->mpi_rank);
		if (s->mean > 0)
			tbl_put(&t, "%.2f", (double)s->max / s->mean);
		else
			tbl_put(&t, "n/a");
	}
	tbl_print(&t, out);
	free(sp);
}

static int by_rank(const void *pa, const void *pb, void *arg)
{
	const struct model *m = arg;
	const struct report *a = m->files[*(const size_t *)pa], *b = m->files[*(const size_t *)pb];

	return a->mpi_rank != b->mpi_rank ? (a->mpi_rank > b->mpi_rank) - (a->mpi_rank < b->mpi_rank)
					  : (a->pid > b->pid) - (a->pid < b->pid);
}

void render_ranks(FILE *out, const struct model *m)
{
	struct ranks rk = { 0 };

	rk.file = xcalloc(m->nfiles ? m->nfiles : 1, sizeof(*rk.file));
	for (size_t f = 0; f < m->nfiles; f++)
		if (m->files[f]->mpi)
			rk.file[rk.n++] = f;
	if (rk.n < 2 && !m->o->ranks) {
		free(rk.file);
		return;
	}
	if (!rk.n) {
		fprintf(out, "\n## ranks: none (no file is of a process that called MPI_Init)\n");
		free(rk.file);
		return;
	}
	qsort_r(rk.file, rk.n, sizeof(*rk.file), by_rank, (void *)m);
	rk.c = xcalloc(rk.n * (m->nregions ? m->nregions : 1), sizeof(*rk.c));
	rk.inside = xcalloc(rk.n, sizeof(*rk.inside));
	add_rows(m, &rk);
	print_rank_rows(out, m, &rk);
	print_spread(out, m, &rk);
	free(rk.c), free(rk.inside), free(rk.file);
}
