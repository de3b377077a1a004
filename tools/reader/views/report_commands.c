#include "report_commands.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "reader/cells/report_cells.h"
#include "reader/cells/report_escape.h"
#include "reader/cells/report_text.h"
#include "report_render.h"

/* ---- grouping ------------------------------------------------------------ */

static const struct model *sort_model;

static uint32_t part_of(const struct model *m, size_t f)
{
	return m->part ? m->part[f] : 0;
}

/* By part, executable, host, pid: a command's files together, a process's
 * reports (one per exec) next to each other. */
static int cmp_file(const void *a, const void *b)
{
	size_t f = *(const size_t *)a, g = *(const size_t *)b;
	const struct report *x = sort_model->files[f], *y = sort_model->files[g];
	uint32_t pf = part_of(sort_model, f), pg = part_of(sort_model, g);
	int c;

	if (pf != pg)
		return pf < pg ? -1 : 1;
	if ((c = strcmp(x->executable, y->executable)) || (c = strcmp(x->host, y->host)))
		return c;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return f < g ? -1 : f > g;
}

static void add_values(const struct model *m, struct total_values *to,
		       const struct total_values *v)
{
	to->nreports += v->nreports, to->nthreads += v->nthreads;
	to->has_cpu |= v->has_cpu;
	to->cpu_ns = sat_add64(to->cpu_ns, v->cpu_ns);
	for (size_t e = 0; e < m->nev; e++)
		if (v->have[e])
			to->have[e] = true, to->value[e] = sat_add64(to->value[e], v->value[e]);
}

static int cmp_command(const void *a, const void *b)
{
	const struct command *x = a, *y = b;

	if (x->part != y->part)
		return x->part < y->part ? -1 : 1;
	if (x->t.cpu_ns != y->t.cpu_ns)
		return x->t.cpu_ns > y->t.cpu_ns ? -1 : 1;
	return strcmp(x->shown, y->shown);
}

/* The base name, unless another executable has the same one. */
static void name_commands(struct command *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		c[i].shown = path_base(c[i].executable);
		for (size_t j = 0; j < n; j++)
			if (strcmp(c[i].executable, c[j].executable) &&
			    !strcmp(c[i].shown, path_base(c[j].executable)))
				c[i].shown = c[i].executable;
	}
}

struct command *commands_of(const struct model *m, size_t *n)
{
	size_t *order = xcalloc(m->nfiles + 1, sizeof(*order)), cap = 0;
	struct command *c = NULL, *cur = NULL;
	const struct report *prev = NULL;

	*n = 0;
	for (size_t f = 0; f < m->nfiles; f++)
		order[f] = f;
	sort_model = m;
	qsort(order, m->nfiles, sizeof(*order), cmp_file);
	for (size_t i = 0; i < m->nfiles; i++) {
		size_t f = order[i];
		const struct report *r = m->files[f];
		struct total_values v;

		if (!cur || cur->part != part_of(m, f) || strcmp(cur->executable, r->executable)) {
			c = grow(c, &cap, *n + 1, sizeof(*c));
			cur = &c[(*n)++];
			memset(cur, 0, sizeof(*cur));
			cur->executable = r->executable, cur->part = part_of(m, f);
			cur->t.value = xcalloc(m->nev + 1, sizeof(*cur->t.value));
			cur->t.have = xcalloc(m->nev + 1, sizeof(*cur->t.have));
			prev = NULL;
		}
		cur->t.nproc += !prev || prev->pid != r->pid || strcmp(prev->host, r->host);
		prev = r;
		totals_values(m, f, &v);
		add_values(m, &cur->t, &v);
		totals_values_free(&v);
	}
	free(order);
	name_commands(c, *n);
	if (*n > 1)
		qsort(c, *n, sizeof(*c), cmp_command);
	return c;
}

void commands_free(struct command *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		totals_values_free(&c[i].t);
	free(c);
}

void render_by_command(FILE *out, const struct model *m, const bool *shown)
{
	size_t n, ncol = 4;
	struct command *c = commands_of(m, &n);
	struct table t;
	char b[32];

	for (size_t e = 0; e < m->nev; e++)
		ncol += shown[e];
	fprintf(out, "\n## totals per command (executable), heaviest by CPU time first\n");
	tbl_init(&t, ncol);
	tbl_left(&t, 0);
	tbl_put(&t, "command"), tbl_put(&t, "processes"), tbl_put(&t, "threads");
	tbl_put(&t, "cpu");
	for (size_t e = 0; e < m->nev; e++)
		if (shown[e])
			tbl_put(&t, "%s", m->ev[e]);
	for (size_t i = 0; i < n; i++) {
		char *name = escape_name_cut(c[i].shown, NAME_COLUMN_MAX, CUT_MIDDLE);

		tbl_put(&t, "%s", name);
		free(name);
		tbl_put(&t, "%zu", c[i].t.nproc), tbl_put(&t, "%zu", c[i].t.nthreads);
		tbl_put(&t, "%s", c[i].t.has_cpu ? fmt_num(b, c[i].t.cpu_ns, H_TIME) : "n/a");
		for (size_t e = 0; e < m->nev; e++)
			if (shown[e])
				tbl_put(&t, "%s", c[i].t.have[e] ?
					fmt_num(b, c[i].t.value[e], how_of(m, (int)e)) : "n/a");
	}
	tbl_print(&t, out);
	fprintf(out, "processes: distinct pids (one that exec'd counts under each program it "
		"ran); each process's totals from its exec, by the shim in its threads\n");
	commands_free(c, n);
}

void commands_csv(FILE *out, const struct model *m)
{
	size_t n;
	struct command *c = commands_of(m, &n);

	for (size_t i = 0; i < n; i++) {
		const struct total_values *t = &c[i].t;

		fputs("command,,", out);
		csv_field(out, c[i].executable);
		fprintf(out, ",,%zu,%zu,%zu,,", t->nproc, t->nreports, t->nthreads);
		if (t->has_cpu)
			fprintf(out, "%" PRIu64, t->cpu_ns);
		putc(',', out);
		for (size_t e = 0; e < m->nev; e++) {
			if (t->have[e])
				fprintf(out, ",%" PRIu64, t->value[e]);
			else
				putc(',', out);
			fprintf(out, ",,,%s", t->have[e] ? "counted" : "n/a");
		}
		putc('\n', out);
	}
	commands_free(c, n);
}

/* ---- command lines -------------------------------------------------------- */

/* How many shown rows run an executable (key: its path), or hold an
 * argument among the arguments of one (key: path, NUL, argument). */
struct word {
	const char *key;
	size_t len, count, last;	/* last: 1 + the file counted last */
	UT_hash_handle hh;
};

/* The count of executable exe (arg NULL) or of its argument arg; with
 * p, file f counted in it once (added where new). */
static size_t count_word(struct word **h, struct pool *p, const char *exe, const char *arg,
			 size_t f)
{
	size_t la = strlen(exe), len = la + (arg ? 1 + strlen(arg) : 0);
	char *key = xmalloc(len + 1);
	struct word *w;

	memcpy(key, exe, la);
	if (arg)
		key[la] = '\0', memcpy(key + la + 1, arg, len - la);
	HASH_FIND(hh, *h, key, len, w);
	if (!w && p) {
		w = pool_zalloc(p, sizeof(*w));
		w->key = pool_strndup(p, key, len), w->len = len;
		HASH_ADD_KEYPTR(hh, *h, w->key, w->len, w);
	}
	if (w && p && w->last != f + 1)
		w->count++, w->last = f + 1;
	free(key);
	return w ? w->count : 0;
}

/* r's line: its program's base name, then each argument, those that
 * every one of the same executable's n rows has as "…" when n > 1 (a run
 * of them one "…"). */
static char *line_of(const struct report *r, struct word **h, size_t n, bool elide)
{
	size_t len = strlen(r->executable) + 8, used;
	bool gap = false;
	char *s;

	for (size_t i = 0; i < r->argc; i++)
		len += strlen(r->argv[i]) + 5;
	s = xmalloc(len);
	strcpy(s, r->argc ? path_base(r->argv[0]) : r->executable);
	used = strlen(s);
	for (size_t i = 1; i < r->argc; i++) {
		bool common = elide && n > 1 && count_word(h, NULL, r->executable, r->argv[i], 0) == n;

		if (common && gap)
			continue;
		gap = common;
		used += (size_t)sprintf(s + used, " %s", common ? "…" : r->argv[i]);
	}
	return s;
}

char **command_cells(const struct model *m, const bool *row, size_t width)
{
	char **cells = xcalloc(m->nfiles + 1, sizeof(*cells));
	struct word *h = NULL, *w, *tmp;
	struct pool p = { 0 };

	for (size_t f = 0; f < m->nfiles; f++)
		for (size_t i = 0; row[f] && i <= m->files[f]->argc; i++)
			count_word(&h, &p, m->files[f]->executable, i ? m->files[f]->argv[i - 1] :
				   NULL, f);
	for (size_t f = 0; f < m->nfiles; f++) {
		const struct report *r = m->files[f];
		size_t n;
		char *s, *e;

		if (!row[f])
			continue;
		n = count_word(&h, NULL, r->executable, NULL, 0);
		s = line_of(r, &h, n, false);
		if (strlen(s) > width && n > 1)
			free(s), s = line_of(r, &h, n, true);
		e = escape_name_cut(s, width, CUT_MIDDLE);
		if (asprintf(&cells[f], "%s%s", e, r->argv_truncated ? " ..." : "") < 0)
			oom();
		free(e), free(s);
	}
	HASH_ITER(hh, h, w, tmp)
		HASH_DEL(h, w);
	pool_free(&p);
	return cells;
}

void command_cells_free(char **cells, size_t n)
{
	for (size_t i = 0; cells && i < n; i++)
		free(cells[i]);
	free(cells);
}
