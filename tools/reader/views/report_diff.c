/* pmcshim-report diff BEFORE AFTER: per region (all threads merged; a run
 * directory's processes merged too), the
 * change in calls, wall time and each event, absolute and as a ratio,
 * largest change of the weight first; regions found on one side only are
 * listed as such. The table compares inclusive totals; CSV and JSON carry
 * inclusive and exclusive. Runs of several processes are compared per
 * executable too (processes, CPU time, each event's totals): the table
 * shows them after the regions, JSON as "executables", --by-command alone
 * (and as CSV). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reader/cells/report_cells.h"
#include "reader/cells/report_escape.h"
#include "reader/cells/report_text.h"
#include "report_commands.h"
#include "report_render.h"

/* A region on both sides (or one: the other is NULL). */
struct drow {
	uint32_t region;
	const struct group *g[2];
	double key;
	bool na;
};

/* An executable on both sides (or one). */
struct erow {
	const struct command *c[2];
	double key;
	bool na;
};

struct diff {
	struct model *m;
	const struct opts *o;
	const char *side[2];		/* what BEFORE and AFTER name: a file or a run */
	size_t n;
	struct drow *rows;
	struct command *cmd;		/* both sides' (commands_of) */
	size_t ncmd, ne;
	struct erow *erows;
};

/* One value on both sides; ok[i] false where side i has none. */
struct pair {
	bool ok[2];
	uint64_t v[2];
};

static struct pair pair_of(const struct diff *d, const struct drow *r, int e, bool excl)
{
	struct pair p = { { false, false }, { 0, 0 } };

	for (int i = 0; i < 2; i++) {
		const struct sum *s = r->g[i] ? &r->g[i]->s[1 + e] : NULL;

		if (s && s->have)
			p.ok[i] = true, p.v[i] = excl ? s->excl : s->incl;
	}
	(void)d;
	return p;
}

static struct pair calls_of(const struct drow *r)
{
	struct pair p = { { r->g[0] != NULL, r->g[1] != NULL },
			  { r->g[0] ? r->g[0]->calls : 0, r->g[1] ? r->g[1]->calls : 0 } };

	return p;
}

/* |after - before|; a region on one side counts in full. */
static bool magnitude(const struct pair *p, double *v)
{
	if (p->ok[0] && p->ok[1])
		*v = p->v[1] > p->v[0] ? (double)(p->v[1] - p->v[0]) : (double)(p->v[0] - p->v[1]);
	else if (p->ok[0] || p->ok[1])
		*v = (double)(p->ok[0] ? p->v[0] : p->v[1]);
	else
		return false;
	return true;
}

static const char *status_of(const struct drow *r)
{
	return !r->g[0] ? "after only" : !r->g[1] ? "before only" : "both";
}

static const struct diff *sort_diff;

static int by_change(const void *pa, const void *pb)
{
	const struct drow *a = pa, *b = pb;

	if (sort_diff->o->sort != S_NAME) {
		if (a->na != b->na)
			return a->na ? 1 : -1;
		if (a->key != b->key)
			return a->key < b->key ? 1 : -1;
	}
	return strcmp(sort_diff->m->regions[a->region], sort_diff->m->regions[b->region]);
}

/* The rows, from the model's two per-process tables. */
static void collect(struct diff *d)
{
	struct model *m = d->m;
	struct drow *by_region = xcalloc(m->nregions, sizeof(*by_region));
	bool excl = d->o->sort == S_EXCL || d->o->sort == S_SHARE;

	for (size_t i = 0; i < m->ntables; i++) {
		const struct gtable *t = &m->tables[i];

		for (size_t j = 0; t->scope == SC_PROCESS && j < t->n; j++)
			by_region[t->g[j]->key.region].g[t->id] = t->g[j];
	}
	d->rows = xcalloc(m->nregions, sizeof(*d->rows));
	for (uint32_t r = 0; r < m->nregions; r++) {
		struct drow *row = &by_region[r];
		struct pair p;

		if (!row->g[0] && !row->g[1]) /* filtered out by --region */
			continue;
		row->region = r;
		p = d->o->sort == S_CALLS ? calls_of(row) :
			pair_of(d, row, d->o->sort == S_WALL ? -1 : m->weight, excl);
		row->na = !magnitude(&p, &row->key);
		d->rows[d->n++] = *row;
	}
	free(by_region);
	sort_diff = d;
	if (d->n > 1)
		qsort(d->rows, d->n, sizeof(*d->rows), by_change);
	if (d->o->top && d->n > d->o->top)
		d->n = d->o->top;
}

/* ---- per executable ------------------------------------------------------ */

/* A total of both sides' command: what = -2 processes, -1 CPU, else event. */
static struct pair exe_pair(const struct erow *r, int what)
{
	struct pair p = { { false, false }, { 0, 0 } };

	for (int i = 0; i < 2; i++) {
		const struct total_values *t = r->c[i] ? &r->c[i]->t : NULL;

		if (!t)
			continue;
		if (what == -2)
			p.ok[i] = true, p.v[i] = t->nproc;
		else if (what == -1)
			p.ok[i] = t->has_cpu, p.v[i] = t->cpu_ns;
		else
			p.ok[i] = t->have[what], p.v[i] = t->value[what];
	}
	return p;
}

static int by_exe_change(const void *pa, const void *pb)
{
	const struct erow *a = pa, *b = pb;
	const struct command *x = a->c[0] ? a->c[0] : a->c[1], *y = b->c[0] ? b->c[0] : b->c[1];

	if (sort_diff->o->sort != S_NAME) {
		if (a->na != b->na)
			return a->na ? 1 : -1;
		if (a->key != b->key)
			return a->key < b->key ? 1 : -1;
	}
	return strcmp(x->shown, y->shown);
}

/* The executables' rows: both sides' commands paired by path, the largest
 * change of CPU time first (--sort name: by name). */
static void collect_exes(struct diff *d)
{
	d->cmd = commands_of(d->m, &d->ncmd);
	d->erows = xcalloc(d->ncmd + 1, sizeof(*d->erows));
	for (size_t i = 0; i < d->ncmd; i++) {
		const struct command *c = &d->cmd[i];
		struct erow *r = NULL;

		for (size_t k = 0; k < d->ne && !r; k++)
			if (!strcmp((d->erows[k].c[0] ? d->erows[k].c[0] : d->erows[k].c[1])->executable,
				    c->executable))
				r = &d->erows[k];
		if (!r)
			r = &d->erows[d->ne++];
		r->c[c->part ? 1 : 0] = c;
	}
	for (size_t k = 0; k < d->ne; k++) {
		struct pair p = exe_pair(&d->erows[k], -1);

		d->erows[k].na = !magnitude(&p, &d->erows[k].key);
	}
	sort_diff = d;
	if (d->ne > 1)
		qsort(d->erows, d->ne, sizeof(*d->erows), by_exe_change);
}

/* ---- table -------------------------------------------------------------- */

static void put_side(struct table *t, const struct pair *p, int i, enum how how)
{
	char b[32];

	tbl_put(t, "%s", p->ok[i] ? fmt_num(b, p->v[i], how) : "n/a");
}

static void put_change(struct table *t, const struct pair *p, enum how how)
{
	char b[32];

	if (!p->ok[0] || !p->ok[1])
		tbl_put(t, "n/a");
	else if (p->v[1] == p->v[0])
		tbl_put(t, "0");
	else if (p->v[1] > p->v[0])
		tbl_put(t, "+%s", fmt_num(b, p->v[1] - p->v[0], how));
	else
		tbl_put(t, "-%s", fmt_num(b, p->v[0] - p->v[1], how));
}

static bool ratio(const struct pair *p, double *v)
{
	if (!p->ok[0] || !p->ok[1] || !p->v[0])
		return false;
	*v = (double)p->v[1] / (double)p->v[0];
	return true;
}

static void put_ratio(struct table *t, const struct pair *p)
{
	double v;

	if (ratio(p, &v))
		tbl_put(t, "%.2fx", v);
	else
		tbl_put(t, "-");
}

/* Some value on either side was counted only part of its region's time. */
static bool diff_multiplexed(const struct diff *d)
{
	for (size_t i = 0; i < d->n; i++)
		for (int s = 0; s < 2; s++)
			if (d->rows[i].g[s] && group_multiplexed(d->m, d->rows[i].g[s]))
				return true;
	return false;
}

/* "# before: FILE: EXE (pid P, T threads)", or for a run of several
 * processes "# before: DIR: N processes (EXE, EXE...), T threads". */
static void side_line(FILE *out, const struct diff *d, uint32_t side)
{
	const struct model *m = d->m;
	const struct report *one = NULL;
	size_t procs = 0, threads = 0, named = 0;

	for (size_t f = 0; f < m->nfiles; f++)
		if (m->part[f] == side)
			one = m->files[f], procs++, threads += m->files[f]->nthreads;
	fprintf(out, "# %s: %s: ", side ? "after " : "before", d->side[side]);
	if (procs == 1) {
		fprintf(out, "%s (pid %" PRIu64 ", %zu thread%s)\n", one->executable, one->pid,
			threads, threads == 1 ? "" : "s");
		return;
	}
	fprintf(out, "%zu processes (", procs);
	for (size_t f = 0; f < m->nfiles && named < 4; f++) {
		bool seen = false;

		for (size_t g = 0; g < f && !seen; g++)
			seen = m->part[g] == side &&
			       !strcmp(m->files[g]->executable, m->files[f]->executable);
		if (m->part[f] == side && !seen)
			fprintf(out, "%s%s", named++ ? ", " : "", m->files[f]->executable);
	}
	fprintf(out, "%s), %zu threads\n", named == 4 ? "..." : "", threads);
}

static const char *exe_status(const struct erow *r)
{
	return !r->c[0] ? "after only" : !r->c[1] ? "before only" : "both";
}

static const char *exe_name(const struct erow *r)
{
	return (r->c[0] ? r->c[0] : r->c[1])->shown;
}

/* A side with more than one process: the runs are compared per
 * executable too. */
static bool exes_shown(const struct diff *d)
{
	size_t n[2] = { 0, 0 };

	for (size_t f = 0; f < d->m->nfiles; f++)
		n[d->m->part[f] ? 1 : 0]++;
	return d->o->by_command || n[0] > 1 || n[1] > 1;
}

static void exe_table(FILE *out, const struct diff *d)
{
	const struct model *m = d->m;
	struct table t;
	size_t c = 4;

	fprintf(out, "\n## per executable: each side's processes of it merged (their totals, "
		"from exec); sorted by the largest change of CPU time; ratio = after / before\n");
	tbl_init(&t, 4 + 4 * (1 + m->nev));
	tbl_left(&t, 0), tbl_left(&t, 1);
	tbl_span(&t, 2, 2, "processes");
	for (int e = -1; e < (int)m->nev; e++, c += 4)
		tbl_span(&t, c, 4, e < 0 ? "cpu" : m->ev[e]);
	tbl_put(&t, "command"), tbl_put(&t, "status"), tbl_put(&t, "before"), tbl_put(&t, "after");
	for (int e = -1; e < (int)m->nev; e++) {
		tbl_put(&t, "before"), tbl_put(&t, "after"), tbl_put(&t, "change");
		tbl_put(&t, "ratio");
	}
	for (size_t i = 0; i < d->ne; i++) {
		const struct erow *r = &d->erows[i];
		struct pair procs = exe_pair(r, -2);
		char *name = escape_name_cut(exe_name(r), NAME_COLUMN_MAX, CUT_MIDDLE);

		tbl_put(&t, "%s", name);
		free(name);
		tbl_put(&t, "%s", r->c[0] && r->c[1] ? "" : exe_status(r));
		for (int s = 0; s < 2; s++)
			if (procs.ok[s])
				tbl_put(&t, "%" PRIu64, procs.v[s]);
			else
				tbl_put(&t, "-");
		for (int e = -1; e < (int)m->nev; e++) {
			struct pair p = exe_pair(r, e);
			enum how how = e < 0 ? H_TIME : how_of(m, e);

			put_side(&t, &p, 0, how), put_side(&t, &p, 1, how);
			put_change(&t, &p, how);
			put_ratio(&t, &p);
		}
	}
	tbl_print(&t, out);
}

static void region_table(FILE *out, const struct diff *d);

static void diff_table(FILE *out, const struct diff *d)
{
	const struct model *m = d->m;

	for (uint32_t i = 0; i < 2; i++)
		side_line(out, d, i);
	fprintf(out, "# inclusive totals, all threads merged; sorted by the largest change "
		"of %s%s; ratio = after / before\n\n",
		d->o->sort == S_CALLS ? "calls" : d->o->sort == S_WALL ? "wall" :
		model_weight_name(m), d->o->sort == S_EXCL || d->o->sort == S_SHARE ?
		" (exclusive)" : "");
	if (!d->n)
		fprintf(out, "(no regions%s)\n", d->o->has_re ? " match --region" : "");
	else
		region_table(out, d);
	if (exes_shown(d))
		exe_table(out, d);
}

static void region_table(FILE *out, const struct diff *d)
{
	const struct model *m = d->m;
	struct table t;
	size_t c = 4;

	tbl_init(&t, 4 + 4 * (1 + m->nev));
	tbl_left(&t, 0), tbl_left(&t, 1);
	tbl_span(&t, 2, 2, "calls");
	for (int e = -1; e < (int)m->nev; e++, c += 4)
		tbl_span(&t, c, 4, e < 0 ? "wall time" : m->ev[e]);
	tbl_put(&t, "region"), tbl_put(&t, "status"), tbl_put(&t, "before");
	tbl_put(&t, "after");
	for (int e = -1; e < (int)m->nev; e++) {
		tbl_put(&t, "before"), tbl_put(&t, "after"), tbl_put(&t, "change");
		tbl_put(&t, "ratio");
	}
	for (size_t i = 0; i < d->n; i++) {
		const struct drow *r = &d->rows[i];
		struct pair calls = calls_of(r);
		char b[32];

		tbl_put(&t, "%s", m->regions[r->region]);
		tbl_put(&t, "%s", r->g[0] && r->g[1] ? "" : status_of(r));
		for (int s = 0; s < 2; s++)
			tbl_put(&t, "%s", calls.ok[s] ? fmt_num(b, calls.v[s], H_EXACT) : "-");
		for (int e = -1; e < (int)m->nev; e++) {
			struct pair p = pair_of(d, r, e, false);

			put_side(&t, &p, 0, how_of(m, e)), put_side(&t, &p, 1, how_of(m, e));
			put_change(&t, &p, how_of(m, e));
			put_ratio(&t, &p);
		}
	}
	tbl_print(&t, out);
	if (diff_multiplexed(d))
		fprintf(out, "multiplexed: some values were counted only part of their region's "
			"time; %s\n", d->o->raw ? "compared as measured (--raw), short of the whole" :
			"compared are their estimates, value x enabled / running; --raw compares "
			"measured values");
}

/* ---- CSV and JSON ------------------------------------------------------- */

static void csv_pair(FILE *out, const struct pair *p)
{
	double v;

	for (int i = 0; i < 2; i++) {
		putc(',', out);
		if (p->ok[i])
			fprintf(out, "%" PRIu64, p->v[i]);
	}
	putc(',', out);
	if (p->ok[0] && p->ok[1])
		fprintf(out, "%s%" PRIu64, p->v[1] < p->v[0] ? "-" : "",
			p->v[1] < p->v[0] ? p->v[0] - p->v[1] : p->v[1] - p->v[0]);
	putc(',', out);
	if (ratio(p, &v))
		fprintf(out, "%.6f", v);
}

static void diff_csv(FILE *out, const struct diff *d)
{
	const struct model *m = d->m;

	fputs("region,status,calls_before,calls_after,calls_change,calls_ratio", out);
	for (int e = -1; e < (int)m->nev; e++) {
		for (int x = 0; x < 2; x++) {
			static const char *const part[] = { "before", "after", "change", "ratio" };

			for (int k = 0; k < 4; k++) {
				char *name;

				if (asprintf(&name, "%s_%s%s_%s", e < 0 ? "wall" : m->ev[e],
					     x ? "excl" : "incl", e < 0 ? "_ns" : "", part[k]) < 0)
					oom();
				putc(',', out);
				csv_field(out, name);
				free(name);
			}
		}
	}
	putc('\n', out);
	for (size_t i = 0; i < d->n; i++) {
		const struct drow *r = &d->rows[i];
		struct pair calls = calls_of(r);

		csv_field(out, m->regions[r->region]);
		fprintf(out, ",%s", status_of(r));
		csv_pair(out, &calls);
		for (int e = -1; e < (int)m->nev; e++) {
			for (int x = 0; x < 2; x++) {
				struct pair p = pair_of(d, r, e, x);

				csv_pair(out, &p);
			}
		}
		putc('\n', out);
	}
}

/* --by-command --format csv: a row per executable. */
static void exe_csv(FILE *out, const struct diff *d)
{
	static const char *const part[] = { "before", "after", "change", "ratio" };
	const struct model *m = d->m;

	fputs("executable,status", out);
	for (int e = -2; e < (int)m->nev; e++)
		for (int k = 0; k < 4; k++) {
			fputc(',', out);
			if (e >= 0) {
				char *name;

				if (asprintf(&name, "%s_%s", m->ev[e], part[k]) < 0)
					oom();
				csv_field(out, name);
				free(name);
			} else {
				fprintf(out, "%s_%s", e == -2 ? "processes" : "cpu_ns", part[k]);
			}
		}
	putc('\n', out);
	for (size_t i = 0; i < d->ne; i++) {
		const struct erow *r = &d->erows[i];

		csv_field(out, (r->c[0] ? r->c[0] : r->c[1])->executable);
		fprintf(out, ",%s", exe_status(r));
		for (int e = -2; e < (int)m->nev; e++) {
			struct pair p = exe_pair(r, e);

			csv_pair(out, &p);
		}
		putc('\n', out);
	}
}

static void json_side(FILE *out, const struct pair *p, int i)
{
	if (p->ok[i])
		fprintf(out, "%" PRIu64, p->v[i]);
	else
		fputs("null", out);
}

static void json_pair(FILE *out, const struct pair *p)
{
	double v;

	fputs("{\"before\": ", out);
	json_side(out, p, 0);
	fputs(", \"after\": ", out);
	json_side(out, p, 1);
	fputs(", \"change\": ", out);
	if (p->ok[0] && p->ok[1])
		fprintf(out, "%s%" PRIu64, p->v[1] < p->v[0] ? "-" : "",
			p->v[1] < p->v[0] ? p->v[0] - p->v[1] : p->v[1] - p->v[0]);
	else
		fputs("null", out);
	fputs(", \"ratio\": ", out);
	if (ratio(p, &v))
		fprintf(out, "%.6f}", v);
	else
		fputs("null}", out);
}

static void json_stat_pair(FILE *out, const struct diff *d, const struct drow *r, int e)
{
	struct pair incl = pair_of(d, r, e, false), excl = pair_of(d, r, e, true);

	fputs("{\"incl\": ", out);
	json_pair(out, &incl);
	fputs(", \"excl\": ", out);
	json_pair(out, &excl);
	fputs("}", out);
}

/* "executables": each side's processes merged per executable. */
static void json_exes(FILE *out, const struct diff *d)
{
	const struct model *m = d->m;

	fputs(",\n  \"executables\": [", out);
	for (size_t i = 0; i < d->ne; i++) {
		const struct erow *r = &d->erows[i];
		struct pair p = exe_pair(r, -2);

		fputs(i ? ",\n    {\"executable\": " : "\n    {\"executable\": ", out);
		json_string(out, (r->c[0] ? r->c[0] : r->c[1])->executable);
		fprintf(out, ", \"status\": \"%s\", \"processes\": ", exe_status(r));
		json_pair(out, &p);
		fputs(",\n     \"cpu_ns\": ", out);
		p = exe_pair(r, -1);
		json_pair(out, &p);
		fputs(",\n     \"events\": {", out);
		for (size_t e = 0; e < m->nev; e++) {
			p = exe_pair(r, (int)e);
			fputs(e ? ",\n       " : "\n       ", out);
			json_string(out, m->ev[e]);
			fputs(": ", out);
			json_pair(out, &p);
		}
		fputs("}}", out);
	}
	fputs(d->ne ? "\n  ]" : "]", out);
}

static void diff_json(FILE *out, const struct diff *d)
{
	const struct model *m = d->m;

	fputs("{\n  \"before\": ", out);
	json_string(out, d->side[0]);
	fputs(",\n  \"after\": ", out);
	json_string(out, d->side[1]);
	fputs(",\n  \"weight\": ", out);
	json_string(out, model_weight_name(m));
	fputs(",\n  \"regions\": [", out);
	for (size_t i = 0; i < d->n; i++) {
		const struct drow *r = &d->rows[i];
		struct pair calls = calls_of(r);

		fputs(i ? ",\n    {\"region\": " : "\n    {\"region\": ", out);
		json_string(out, m->regions[r->region]);
		fprintf(out, ", \"status\": \"%s\", \"calls\": ", status_of(r));
		json_pair(out, &calls);
		fputs(",\n     \"wall_ns\": ", out);
		json_stat_pair(out, d, r, -1);
		fputs(",\n     \"events\": {", out);
		for (size_t e = 0; e < m->nev; e++) {
			fputs(e ? ",\n       " : "\n       ", out);
			json_string(out, m->ev[e]);
			fputs(": ", out);
			json_stat_pair(out, d, r, (int)e);
		}
		fputs("}}", out);
	}
	fputs(d->n ? "\n  ]" : "]", out);
	json_exes(out, d);
	fputs("\n}\n", out);
}

int run_diff(FILE *out, struct report **files, size_t n, const uint32_t *side,
	     const char *const name[2], const struct opts *o, char *why, size_t whylen)
{
	struct opts mo = *o;
	struct diff d = { .o = o, .side = { name[0], name[1] } };

	if (o->format == F_FOLDED || o->format == F_FOLDED_STACKS) {
		snprintf(why, whylen, "diff: --format folded is not available (flamegraph's "
			 "difffolded.pl compares two folded outputs)");
		return 2;
	}
	if (o->format == F_SPEEDSCOPE || o->format == F_HTML || o->tree) {
		snprintf(why, whylen, "diff: --tree and --format speedscope or html are not "
			 "available (they show one run)");
		return 2;
	}
	/* Each side is one "process" of the model: the same events, regions
	 * and weight on both sides, regions merged over threads. */
	mo.by_process = true, mo.threads = false, mo.stacks = false, mo.top = 0;
	if (!(d.m = model_new(files, n, &mo, why, whylen)))
		return 2;
	model_set_parts(d.m, side, 2);
	model_tables(d.m);
	collect(&d);
	collect_exes(&d);
	if (o->format == F_CSV && o->by_command)
		exe_csv(out, &d);
	else if (o->format == F_CSV)
		diff_csv(out, &d);
	else if (o->format == F_JSON || o->format == F_JSON_TABLE)
		diff_json(out, &d);
	else
		diff_table(out, &d);
	free(d.rows), free(d.erows);
	commands_free(d.cmd, d.ncmd);
	model_free(d.m);
	return 0;
}
