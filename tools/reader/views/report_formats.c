/* Output for programs: CSV (a header row, plain numbers, an empty field for
 * an unavailable value), the aggregated JSON table (--format json-table:
 * numbers as numbers, null for unavailable)
 * and folded stacks ("frame;frame;region weight", outermost frame first)
 * as flamegraph.pl and speedscope read them. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "reader/cells/report_text.h"
#include "report_metrics.h"
#include "report_render.h"
#include "report_totals.h"

/* The finest breakdown asked for: CSV and folded are one flat table. */
static enum scope finest(const struct model *m)
{
	return m->o->threads ? SC_THREAD : m->o->by_process ? SC_PROCESS : SC_ALL;
}

/* A string built piece by piece, reused from line to line. */
struct sbuf {
	char *p;
	size_t n, cap;
};

static void sb_add(struct sbuf *b, const char *s, size_t len)
{
	b->p = grow(b->p, &b->cap, b->n + len + 1, 1);
	memcpy(b->p + b->n, s, len);
	b->n += len;
	b->p[b->n] = '\0';
}

/* For folded stacks, ';' separates frames and the last ' ' the weight:
 * names must not break either (a space inside a name is fine: the weight
 * is the last field). */
static void sb_name(struct sbuf *b, const char *s, bool folded)
{
	size_t start = b->n;

	sb_add(b, s, strlen(s));
	for (char *c = b->p + start; folded && *c; c++)
		if (*c == ';')
			*c = ':';
		else if (*c == '\n' || *c == '\r')
			*c = ' ';
}

/* A stack as one string, outermost frame first, as in folded stacks. */
static void sb_frames(struct sbuf *b, struct model *m, uint32_t stack, bool folded)
{
	for (size_t k = model_stack_depth(m, stack); k-- > 0;) {
		sb_name(b, model_frame(m, stack, k), folded);
		if (k)
			sb_add(b, ";", 1);
	}
}

/* ---- CSV ---------------------------------------------------------------- */

/* Some row of scope sc's tables (or of their stacks) was counted only
 * part of its time: CSV then has a coverage column. */
static bool any_multiplexed(const struct model *m, enum scope sc)
{
	for (size_t i = 0; i < m->ntables; i++) {
		const struct gtable *t = &m->tables[i];

		for (size_t j = 0; t->scope == sc && j < t->n; j++) {
			if (group_multiplexed(m, t->g[j]))
				return true;
			for (size_t k = 0; k < t->g[j]->nsub; k++)
				if (group_multiplexed(m, t->g[j]->sub[k]))
					return true;
		}
	}
	return false;
}

static void csv_head(FILE *out, const struct model *m, enum scope sc, bool cover)
{
	if (sc == SC_THREAD)
		fputs("file,pid,tid,thread,", out);
	else if (sc == SC_PROCESS)
		fputs("file,pid,executable,", out);
	fputs(m->show_source ? "region,source," : "region,", out);
	fputs(m->o->stacks ? "stack,calls,share" : "calls,share", out);
	for (int e = -1; e < (int)m->nev; e++) {
		static const char *const part[] = { "incl", "excl", "mean", "min", "max" };

		for (int k = 0; k < 5; k++) {
			char *name;

			if (asprintf(&name, "%s_%s%s", e < 0 ? "wall" : m->ev[e], part[k],
				     e < 0 ? "_ns" : "") < 0)
				oom();
			putc(',', out);
			csv_field(out, name);
			free(name);
		}
	}
	fputs(m->ipc_ins >= 0 ? ",ipc" : "", out);
	metrics_csv_header(out);
	fputs(cover ? ",coverage\n" : "\n", out);
}

static void csv_scope(FILE *out, const struct model *m, const struct gtable *t)
{
	if (t->scope == SC_THREAD) {
		const struct mthread *th = &m->threads[t->id];

		csv_field(out, m->files[th->file]->path);
		fprintf(out, ",%" PRIu64 ",%" PRIu64 ",", m->files[th->file]->pid, th->t->tid);
		csv_field(out, th->t->name);
		putc(',', out);
	} else if (t->scope == SC_PROCESS) {
		csv_field(out, m->files[t->id]->path);
		fprintf(out, ",%" PRIu64 ",", m->files[t->id]->pid);
		csv_field(out, m->files[t->id]->executable);
		putc(',', out);
	}
}

static void csv_values(FILE *out, const struct model *m, const struct gtable *t,
		       const struct group *g, bool cover)
{
	double v;

	fprintf(out, ",%" PRIu64 ",", g->calls);
	if (group_share(m, t, g, &v))
		fprintf(out, "%.6f", v);
	for (int e = -1; e < (int)m->nev; e++) {
		const struct sum *s = &g->s[1 + e];

		if (!s->have) {
			fputs(",,,,,", out);
			continue;
		}
		fprintf(out, ",%" PRIu64 ",%" PRIu64 ",", s->incl, s->excl);
		if (sum_mean(s, &v))
			fprintf(out, "%.10g", v);
		if (s->have_mm) /* else no call has ended yet (a live row) */
			fprintf(out, ",%" PRIu64 ",%" PRIu64, sum_min(s), sum_max(s));
		else
			fputs(",,", out);
	}
	if (m->ipc_ins >= 0) {
		putc(',', out);
		if (group_ipc(m, g, &v))
			fprintf(out, "%.4f", v);
	}
	metrics_csv_values(out, m, g);
	if (cover) {
		putc(',', out);
		if (group_coverage(m, g, &v))
			fprintf(out, "%.4f", v);
	}
	putc('\n', out);
}

/* The stack column: one field, quoted as needed. */
static void csv_stack(FILE *out, struct model *m, uint32_t stack, struct sbuf *b)
{
	b->n = 0;
	sb_add(b, "", 0);
	sb_frames(b, m, stack, false);
	csv_field(out, b->p);
}

void render_csv(FILE *out, struct model *m)
{
	enum scope sc = finest(m);
	struct sbuf b = { 0 };
	bool cover = any_multiplexed(m, sc);

	csv_head(out, m, sc, cover);
	for (size_t i = 0; i < m->ntables; i++) {
		const struct gtable *t = &m->tables[i];

		for (size_t j = 0; t->scope == sc && j < t->n; j++) {
			const struct group *g = t->g[j];

			for (size_t k = 0; k < (m->o->stacks ? g->nsub : 1); k++) {
				const struct group *row = m->o->stacks ? g->sub[k] : g;

				csv_scope(out, m, t);
				csv_field(out, m->regions[g->key.region]);
				if (m->show_source)
					fprintf(out, ",%s", rf_from_name(m->source[g->key.region]));
				if (m->o->stacks) {
					putc(',', out);
					csv_stack(out, m, row->key.stack, &b);
				}
				csv_values(out, m, t, row, cover);
			}
		}
	}
	free(b.p);
}

/* ---- JSON --------------------------------------------------------------- */

static void json_u64_or_null(FILE *out, bool ok, uint64_t v)
{
	if (ok)
		fprintf(out, "%" PRIu64, v);
	else
		fputs("null", out);
}

static void json_double_or_null(FILE *out, bool ok, const char *fmt, double v)
{
	if (ok)
		fprintf(out, fmt, v);
	else
		fputs("null", out);
}

static void json_stat(FILE *out, const struct sum *s)
{
	double mean;
	bool ok;

	if (!s->have) {
		fputs("null", out);
		return;
	}
	fprintf(out, "{\"incl\": %" PRIu64 ", \"excl\": %" PRIu64 ", \"mean\": ", s->incl,
		s->excl);
	ok = sum_mean(s, &mean); /* before mean is read: arguments are unordered */
	json_double_or_null(out, ok, "%.10g", mean);
	fputs(", \"min\": ", out);
	json_u64_or_null(out, s->have_mm, sum_min(s));
	fputs(", \"max\": ", out);
	json_u64_or_null(out, s->have_mm, sum_max(s));
	fprintf(out, "%s%s}", s->miss ? ", \"partial\": true" : "",
		s->mux ? ", \"multiplexed\": true" : "");
}

/* The numbers of a region or a stack: the same keys in both. */
static void json_values(FILE *out, const struct model *m, const struct gtable *t,
			const struct group *g)
{
	double v;
	bool ok;

	fprintf(out, "\"calls\": %" PRIu64 ", \"share\": ", g->calls);
	ok = group_share(m, t, g, &v);
	json_double_or_null(out, ok, "%.6f", v);
	fputs(", \"wall_ns\": ", out);
	json_stat(out, &g->s[0]);
	fputs(", \"events\": {", out);
	for (size_t e = 0; e < m->nev; e++) {
		fputs(e ? ", " : "", out);
		json_string(out, m->ev[e]);
		fputs(": ", out);
		json_stat(out, &g->s[1 + e]);
	}
	fputs("}, \"ipc\": ", out);
	ok = group_ipc(m, g, &v);
	json_double_or_null(out, ok, "%.4f", v);
	metrics_json(out, m, g);
	if (group_multiplexed(m, g) && group_coverage(m, g, &v))
		fprintf(out, ", \"coverage\": %.4f", v);
}

/* The regions of a table as a JSON array; ind: the indentation of the line
 * that opens it. */
static void json_regions(FILE *out, struct model *m, const struct gtable *t,
			 const char *ind)
{
	fputs("[", out);
	for (size_t i = 0; i < t->n; i++) {
		const struct group *g = t->g[i];

		fprintf(out, "%s\n%s  {\"region\": ", i ? "," : "", ind);
		json_string(out, m->regions[g->key.region]);
		if (m->show_source)
			fprintf(out, ", \"source\": \"%s\"", rf_from_name(m->source[g->key.region]));
		fputs(", ", out);
		json_values(out, m, t, g);
		if (m->o->stacks) {
			fputs(", \"stacks\": [", out);
			for (size_t k = 0; k < g->nsub; k++) {
				uint32_t st = g->sub[k]->key.stack;

				fprintf(out, "%s\n%s    {\"frames\": [", k ? "," : "", ind);
				/* innermost first, as in the report */
				for (size_t f = 0; f < model_stack_depth(m, st); f++) {
					fputs(f ? ", " : "", out);
					json_string(out, model_frame(m, st, f));
				}
				fputs("], ", out);
				json_values(out, m, t, g->sub[k]);
				fputs("}", out);
			}
			if (g->nsub)
				fprintf(out, "\n%s  ", ind);
			fputs("]", out);
		}
		fputs("}", out);
	}
	if (t->n)
		fprintf(out, "\n%s", ind);
	fputs("]", out);
}

static void json_file(FILE *out, const struct model *m, size_t f)
{
	const struct report *r = m->files[f];

	fputs("    {\"path\": ", out);
	json_string(out, r->path);
	fprintf(out, ", \"pid\": %" PRIu64 ", \"host\": ", r->pid);
	json_string(out, r->host);
	fputs(", \"executable\": ", out);
	json_string(out, r->executable);
	fputs(", \"state\": ", out);
	json_string(out, r->state_text);
	fprintf(out, ", \"live\": %s, \"forked\": %s, \"wall_ns\": ", r->live ? "true" : "false",
		r->forked ? "true" : "false");
	json_u64_or_null(out, r->has_wall, r->wall_ns);
	fprintf(out, ", \"threads\": %zu,\n     \"events\": [", r->nthreads);
	for (size_t e = 0; e < r->nev; e++) {
		fputs(e ? ", " : "", out);
		fputs("{\"name\": ", out);
		json_string(out, r->ev[e].name);
		fputs(", \"source\": ", out);
		json_string(out, r->ev[e].source);
		fprintf(out, ", \"mode\": \"%s\"", r->ev[e].exclude_kernel ? "user" : "user+kernel");
		if (r->ev[e].reason) {
			fputs(", \"reason\": ", out);
			json_string(out, r->ev[e].reason);
		}
		if (r->ev[e].mode_note) {
			fputs(", \"mode_note\": ", out);
			json_string(out, r->ev[e].mode_note);
		}
		if (r->ev[e].per_thread)	/* its totals, no region value */
			fputs(", \"per_thread\": true", out);
		fputs("}", out);
	}
	fputs("],\n     \"totals\": ", out);
	totals_json(out, m, f);
	fputs(",\n     \"errors\": [", out);
	for (size_t i = 0; i < r->nerrors; i++) {
		const struct rep_error *e = &r->errors[i];

		fputs(i ? ", {\"kind\": " : "{\"kind\": ", out);
		json_string(out, e->kind);
		fprintf(out, ", \"tid\": %" PRIu64 ", \"region\": ", e->tid);
		json_string(out, e->region);
		if (e->open) {
			fputs(", \"open\": ", out);
			json_string(out, e->open);
		}
		fprintf(out, ", \"count\": %" PRIu64 "}", e->count);
	}
	fputs("]}", out);
}

static void json_thread(FILE *out, struct model *m, const struct gtable *t)
{
	const struct mthread *th = &m->threads[t->id];
	const struct report *r = m->files[th->file];

	fputs("    {\"file\": ", out);
	json_string(out, r->path);
	fprintf(out, ", \"pid\": %" PRIu64 ", \"tid\": %" PRIu64 ", \"name\": ", r->pid,
		th->t->tid);
	json_string(out, th->t->name);
	fprintf(out, ", \"main\": %s, \"state\": ", th->t->main ? "true" : "false");
	json_string(out, th->t->state);
	fputs(", \"setup\": ", out);
	json_string(out, th->t->setup);
	fputs(", \"wall_ns\": ", out);
	json_u64_or_null(out, th->t->has_wall, th->t->wall_ns);
	fputs(", \"cpu_ns\": ", out);
	json_u64_or_null(out, th->t->has_cpu, th->t->cpu_ns);
	fputs(",\n     \"totals\": {", out);
	for (size_t e = 0; e < r->nev; e++) {
		const struct rep_total *tot = &th->t->totals[e];

		fputs(e ? ", " : "", out);
		json_string(out, r->ev[e].name);
		fputs(": {\"value\": ", out);
		json_u64_or_null(out, tot->has_value, tot->value);
		if (tot->has_scaled)
			fprintf(out, ", \"scaled\": %" PRIu64, tot->scaled);
		fputs(", \"status\": ", out);
		json_string(out, tot->status);
		fputs("}", out);
	}
	fputs("},\n     \"regions\": ", out);
	json_regions(out, m, t, "    ");
	fputs("}", out);
}

static void json_process(FILE *out, struct model *m, const struct gtable *t)
{
	const struct report *r = m->files[t->id];

	fputs("    {\"file\": ", out);
	json_string(out, r->path);
	fprintf(out, ", \"pid\": %" PRIu64 ", \"regions\": ", r->pid);
	json_regions(out, m, t, "    ");
	fputs("}", out);
}

static const char *const sort_names[] = { "incl", "excl", "mean", "min", "max", "calls",
					  "share", "ipc", "wall", "name", "coverage", "source" };

void render_json_table(FILE *out, struct model *m)
{
	fputs("{\n  \"files\": [\n", out);
	for (size_t f = 0; f < m->nfiles; f++) {
		json_file(out, m, f);
		fputs(f + 1 < m->nfiles ? ",\n" : "\n", out);
	}
	fputs("  ],\n  \"events\": [", out);
	for (size_t e = 0; e < m->nev; e++) {
		fputs(e ? ", " : "", out);
		json_string(out, m->ev[e]);
	}
	fputs("],\n  \"totals\": ", out);
	totals_json(out, m, SIZE_MAX);
	fputs(",\n  \"weight\": ", out);
	json_string(out, model_weight_name(m));
	fprintf(out, ",\n  \"sort\": \"%s\",\n  \"regions\": ", sort_names[m->o->sort]);
	json_regions(out, m, &m->tables[0], "  ");
	for (int sc = SC_PROCESS; sc <= SC_THREAD; sc++) {
		bool first = true;

		if (!(sc == SC_PROCESS ? m->o->by_process : m->o->threads))
			continue;
		fprintf(out, ",\n  \"%s\": [\n", sc == SC_PROCESS ? "processes" : "threads");
		for (size_t i = 0; i < m->ntables; i++) {
			if (m->tables[i].scope != (enum scope)sc)
				continue;
			fputs(first ? "" : ",\n", out);
			first = false;
			if (sc == SC_PROCESS)
				json_process(out, m, &m->tables[i]);
			else
				json_thread(out, m, &m->tables[i]);
		}
		fputs("\n  ]", out);
	}
	fputs("\n}\n", out);
}

/* ---- folded stacks ------------------------------------------------------ */

struct line {
	char *text;
	uint64_t weight;
	UT_hash_handle hh;
};

static void folded_prefix(struct sbuf *b, const struct model *m, const struct gtable *t)
{
	const struct report *r;
	char num[48];

	if (t->scope == SC_ALL)
		return;
	r = m->files[t->scope == SC_PROCESS ? t->id : m->threads[t->id].file];
	if (t->scope == SC_PROCESS || m->nfiles > 1 || m->o->by_process) {
		sb_name(b, r->executable, true);
		sb_add(b, num, (size_t)snprintf(num, sizeof(num), " [pid %" PRIu64 "];", r->pid));
	}
	if (t->scope == SC_THREAD) {
		sb_name(b, m->threads[t->id].t->name, true);
		sb_add(b, num, (size_t)snprintf(num, sizeof(num), " [tid %" PRIu64 "];",
						m->threads[t->id].t->tid));
	}
}

/* Identical lines (two stacks that symbolize alike) are summed: some
 * readers would draw them twice. */
struct lines {
	struct line *hash, **order;
	size_t n, cap;
};

static void add_line(struct lines *L, const struct sbuf *b, uint64_t w)
{
	struct line *l;

	HASH_FIND(hh, L->hash, b->p, b->n, l);
	if (l) {
		l->weight = l->weight + w < l->weight ? UINT64_MAX : l->weight + w;
		return;
	}
	l = xcalloc(1, sizeof(*l));
	l->text = memcpy(xmalloc(b->n + 1), b->p, b->n + 1), l->weight = w;
	HASH_ADD_KEYPTR(hh, L->hash, l->text, b->n, l);
	L->order = grow(L->order, &L->cap, L->n + 1, sizeof(*L->order));
	L->order[L->n++] = l;
}

/* Frame text that begins with a function a stack starts from: a
 * program's or a thread's entry. */
static bool root_frame(const char *f)
{
	static const char *const root[] = { "main", "_start", "__libc_start_main",
					    "__libc_start_call_main", "start_thread", "clone",
					    "__clone", "clone3", "__clone3", "thread_start" };
	size_t n = strcspn(f, " +(");

	for (size_t i = 0; i < sizeof(root) / sizeof(root[0]); i++)
		if (strlen(root[i]) == n && !strncmp(f, root[i], n))
			return true;
	return false;
}

/* A stack cut at the recorded depth: the walk took all it was let take
 * (the call site and stack_depth callers; the file does not say whether
 * it had reached the stack's end), and its outermost frame is no entry
 * of a program or thread. Drawn from its root, it would be a false root:
 * it is drawn under a [truncated] frame. */
static bool stack_cut(struct model *m, uint32_t stack)
{
	const struct gstack *g = &m->stacks[stack];
	const struct report *r = m->files[g->file];
	size_t n = model_stack_depth(m, stack);

	return r->stack_depth && r->stacks[g->local].n >= (size_t)r->stack_depth + 1 && n &&
	       !root_frame(model_frame(m, stack, n - 1));
}

static void folded_table(struct model *m, const struct gtable *t, struct lines *L,
			 struct sbuf *b)
{
	for (size_t j = 0; j < t->n; j++) {
		for (size_t k = 0; k < t->g[j]->nsub; k++) {
			const struct group *s = t->g[j]->sub[k];
			const struct sum *w = model_weight(m, s);

			if (!w->have || !w->excl) /* unavailable, or nothing to draw */
				continue;
			b->n = 0;
			sb_add(b, "", 0);
			folded_prefix(b, m, t);
			if (stack_cut(m, s->key.stack))
				sb_add(b, "[truncated];", 12);
			sb_frames(b, m, s->key.stack, true);
			if (model_stack_depth(m, s->key.stack))
				sb_add(b, ";", 1);
			sb_name(b, m->regions[s->key.region], true);
			add_line(L, b, w->excl);
		}
	}
}

void render_folded(FILE *out, struct model *m)
{
	enum scope sc = finest(m);
	struct lines L = { 0 };
	struct sbuf b = { 0 };

	for (size_t i = 0; i < m->ntables; i++)
		if (m->tables[i].scope == sc)
			folded_table(m, &m->tables[i], &L, &b);
	for (size_t i = 0; i < L.n; i++) {
		fprintf(out, "%s %" PRIu64 "\n", L.order[i]->text, L.order[i]->weight);
		HASH_DEL(L.hash, L.order[i]);
		free(L.order[i]->text);
		free(L.order[i]);
	}
	free(L.order);
	free(b.p);
}
