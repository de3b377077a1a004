/* --format html: one page that needs nothing else. The reader embeds the
 * rows as JSON, and the page's own script and style (tools/reader/views/report_html.js
 * and .css, made into C strings at build time: report_html_assets.c)
 * build the tree per view and draw it.
 *
 * The data: { "title", "values": [{"name", "time"}] (wall, then each
 * event), "weight" (the default value), "ipc": [instructions, cycles]
 * value indexes or null, "regions": [names], "files": [{ "label",
 * "path", "state", "tree", "events": [{"name", "source", "reason"}],
 * "pid", "rank" (null: not MPI), "threads": [{ "label", "tid", "rows":
 * [parent row or -1, region, calls, then per value incl and excl, then
 * per value of "minmax" (value indexes) its min and max per call (null:
 * no value, or no call ended)], flat }] }],
 * "totals": the text table's totals section, "samples": the sampled
 * stacks (samples_data) or null }. */
#include "report_tree.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reader/cells/report_text.h"
#include "report_functions.h"
#include "report_render.h"
#include "reader/data/report_incl.h"
#include "reader/data/report_util.h"

extern const char report_html_js[], report_html_css[];

static void key(FILE *out, const char *sep, const char *k, const char *v)
{
	fprintf(out, "%s\"%s\": ", sep, k);
	json_string(out, v);
}

/* A value's incl and excl (null: no value). */
static void put_value(FILE *out, const struct rowval *rv)
{
	if (!rv->present)
		fputs(",null,null", out);
	else
		fprintf(out, ",%" PRIu64 ",%" PRIu64, rv->st.incl, rv->st.excl);
}

/* Its calls' min and max (null: no value, none ended, or none timed:
 * PMCSHIM_FUNCTIONS=sampled). */
static void put_minmax(FILE *out, const struct rowval *rv, bool minmax)
{
	if (!rv->present || !minmax || rv->sampled)
		fputs(",null,null", out);
	else
		fprintf(out, ",%" PRIu64 ",%" PRIu64, rv->st.min, rv->st.max);
}

/* The values whose min and max the page carries ("minmax"): the default
 * weight's, the one value its table shows them for until another weight
 * is picked (then n/a, said under the table). Every value's made the
 * 100,000-region page of tests/html half as big again (7.9 -> 11.9 MB)
 * and as much slower to open. */
static size_t minmax_values(const struct model *m, int *e)
{
	e[0] = m->weight;
	return 1;
}

/* --region and --source in the page, as in the other trees
 * (report_tree.c): a row is in when its path holds a region they keep,
 * an ancestor of one is its context (its inclusive value theirs, no
 * weight of its own), the rest is left out. */
enum { ROW_OUT, ROW_IN, ROW_CONTEXT };

struct kept {
	uint8_t *state;
	uint32_t *index;		/* [row]: its index among the rows written */
	uint64_t *ctx;			/* [row * nv + 1 + e]: a context row's incl */
};

static void keep_rows(const struct model *m, const struct mthread *mt, struct kept *k)
{
	const struct report *r = m->files[mt->file];
	size_t n = mt->t->nrows, nv = 1 + m->nev;
	uint32_t w = 0;

	k->state = xcalloc(n + 1, 1);
	k->index = xcalloc(n + 1, sizeof(*k->index));
	k->ctx = xcalloc(n * nv + 1, sizeof(*k->ctx));
	for (size_t j = 0; j < n; j++) {
		uint32_t p = r->tree ? mt->t->parent[j] : NO_PARENT;

		k->state[j] = m->selected[mthread_region(m, mt, rep_site(r, mt->t, j))] ||
			      (p != NO_PARENT && k->state[p] == ROW_IN) ? ROW_IN : ROW_OUT;
	}
	for (size_t j = n; j-- > 0;) {
		uint32_t p = r->tree ? mt->t->parent[j] : NO_PARENT;

		if (k->state[j] == ROW_OUT || p == NO_PARENT || k->state[p] == ROW_IN)
			continue;
		k->state[p] = ROW_CONTEXT;
		for (size_t v = 0; v < nv; v++) {
			struct rowval rv = model_row_value(m, mt, j, (int)v - 1, OUTER_NODE);
			uint64_t x = k->state[j] == ROW_IN ? rv.st.incl : k->ctx[j * nv + v];

			k->ctx[p * nv + v] = sat_add64(k->ctx[p * nv + v], x);
		}
	}
	for (size_t j = 0; j < n; j++)
		k->index[j] = k->state[j] == ROW_OUT ? UINT32_MAX : w++;
}

static void thread_rows(FILE *out, const struct model *m, size_t i)
{
	const struct mthread *mt = &m->threads[i];
	const struct report *r = m->files[mt->file];
	char label[128];
	const char *sep = "";
	struct kept k;
	int mm[1];
	size_t nmm = minmax_values(m, mm);

	snprintf(label, sizeof(label), "%s [tid %" PRIu64 "]", mt->t->name, mt->t->tid);
	key(out, "{", "label", label);
	fprintf(out, ", \"tid\": %" PRIu64 ", \"rows\": [", mt->t->tid);
	keep_rows(m, mt, &k);
	for (size_t j = 0; j < mt->t->nrows; j++) {
		const struct rf_site *s = rep_site(r, mt->t, j);

		if (k.state[j] == ROW_OUT)
			continue;
		if (r->tree && mt->t->parent[j] != NO_PARENT)
			fprintf(out, "%s%" PRIu32, sep, k.index[mt->t->parent[j]]);
		else
			fprintf(out, "%s-1", sep);
		sep = ",\n";
		fprintf(out, ",%" PRIu32 ",%" PRIu64, mthread_region(m, mt, s), s->calls);
		for (int e = -1; e < (int)m->nev; e++) {
			struct rowval rv = model_row_value(m, mt, j, e, OUTER_NODE);

			if (k.state[j] == ROW_CONTEXT)
				rv.st.incl = k.ctx[j * (1 + m->nev) + (size_t)(1 + e)], rv.st.excl = 0;
			put_value(out, &rv);
		}
		for (size_t i = 0; i < nmm; i++) {
			struct rowval rv = model_row_value(m, mt, j, mm[i], OUTER_NODE);

			put_minmax(out, &rv, k.state[j] == ROW_IN && s->calls);
		}
	}
	free(k.state), free(k.index), free(k.ctx);
	fputs("]}", out);
}

static void file_data(FILE *out, const struct model *m, size_t fi)
{
	const struct report *r = m->files[fi];
	char label[400], rank[48];
	bool first = true;

	snprintf(label, sizeof(label), "%s [pid %" PRIu64 "]%s", r->executable, r->pid,
		 rank_text(rank, r));
	key(out, "{", "label", label);
	key(out, ", ", "path", r->path);
	key(out, ", ", "state", r->state_text);
	fprintf(out, ", \"pid\": %" PRIu64 ", \"rank\": ", r->pid);
	if (r->mpi)
		fprintf(out, "%" PRIu32, r->mpi_rank);
	else
		fputs("null", out);
	fprintf(out, ", \"tree\": %s, \"events\": [", r->tree ? "true" : "false");
	for (size_t e = 0; e < r->nev; e++) {
		key(out, e ? ", {" : "{", "name", r->ev[e].name);
		key(out, ", ", "source", r->ev[e].source);
		if (r->ev[e].reason)
			key(out, ", ", "reason", r->ev[e].reason);
		putc('}', out);
	}
	fputs("],\n\"threads\": [", out);
	for (size_t i = 0; i < m->nthreads; i++) {
		if (m->threads[i].file != fi)
			continue;
		fputs(first ? "" : ",\n", out);
		first = false;
		thread_rows(out, m, i);
	}
	fputs("]}", out);
}

/* The regions some row is of: a name no region was measured under (the
 * shim's own calibration regions) is not in the page. */
static bool *used_regions(const struct model *m)
{
	bool *used = xcalloc(m->nregions + 1, sizeof(*used));

	for (size_t i = 0; i < m->nthreads; i++)
		for (size_t j = 0; j < m->threads[i].t->nrows; j++)
			used[mthread_region(m, &m->threads[i],
					    rep_site(m->files[m->threads[i].file], m->threads[i].t,
						     j))] = true;
	return used;
}

/* The totals section as the text table prints it (report_totals.c), one
 * JSON string. */
static void totals_text(FILE *out, const struct model *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	if (!mem)
		oom();
	render_totals(mem, m, false);
	if (fclose(mem))
		oom();
	json_string(out, buf);
	free(buf);
}

static void json_names(FILE *out, const char *const *names, size_t n)
{
	putc('[', out);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", " : "", out);
		json_string(out, names[i]);
	}
	putc(']', out);
}

/* Sampled stacks (--sample; --region keeps those taken inside the regions
 * it selects): null, or { "event", "frames": [names], "regions": [names],
 * "stacks": [file, tid, region, count, frames outermost first...] }. */
static void samples_data(FILE *out, const struct model *m)
{
	struct sstacks *ss = functions_stacks(m);

	if (!ss->n) {
		fputs("null", out);
		functions_stacks_free(ss);
		return;
	}
	key(out, "{", "event", ss->event ? ss->event : "");
	fputs(", \"frames\": ", out);
	json_names(out, ss->frames, ss->nframes);
	fputs(",\n\"regions\": ", out);
	json_names(out, ss->regions, ss->nregions);
	fputs(",\n\"stacks\": [", out);
	for (size_t i = 0; i < ss->n; i++) {
		const struct sstack *st = &ss->s[i];
		const struct rep_thread *t = functions_thread(m->files[st->file], st->table);

		fprintf(out, "%s[%zu,%" PRIu64 ",%" PRIu32 ",%" PRIu64, i ? ",\n" : "", st->file,
			t ? t->tid : 0, st->region, st->count);
		for (uint32_t k = 0; k < st->nframes; k++)
			fprintf(out, ",%" PRIu32, st->frame[k]);
		putc(']', out);
	}
	fputs("]}", out);
	functions_stacks_free(ss);
}

static void data(FILE *out, const struct model *m)
{
	char title[400];
	bool *used;
	int mm[1];
	size_t nmm;

	snprintf(title, sizeof(title), "pmcshim: %s%s", m->nfiles == 1 ? m->files[0]->path :
		 "", m->nfiles == 1 ? "" : "several processes");
	key(out, "{", "title", title);
	fputs(", \"values\": [{\"name\": \"wall\", \"time\": true}", out);
	for (size_t e = 0; e < m->nev; e++) {
		key(out, ", {", "name", m->ev[e]);
		fprintf(out, ", \"time\": %s}", event_is_time(m->ev[e]) ? "true" : "false");
	}
	fprintf(out, "], \"weight\": %d, \"minmax\": [", m->weight + 1);
	nmm = minmax_values(m, mm);
	for (size_t i = 0; i < nmm; i++)
		fprintf(out, "%s%d", i ? ", " : "", mm[i] + 1);
	fputs("], \"ipc\": ", out);
	if (m->ipc_ins >= 0)
		fprintf(out, "[%d, %d]", m->ipc_ins + 1, m->ipc_cyc + 1);
	else
		fputs("null", out);
	fputs(",\n\"regions\": [", out);
	used = used_regions(m);
	for (size_t i = 0; i < m->nregions; i++) {
		fputs(i ? ", " : "", out);
		json_string(out, used[i] ? m->regions[i] : "");
	}
	free(used);
	fputs("],\n\"files\": [", out);
	for (size_t i = 0; i < m->nfiles; i++) {
		fputs(i ? ",\n" : "", out);
		file_data(out, m, i);
	}
	fputs("],\n\"totals\": ", out);
	totals_text(out, m);
	fputs(",\n\"samples\": ", out);
	samples_data(out, m);
	fputs("}", out);
}

/* JSON inside a script element: '<' only ever appears in its strings, where
 * \u003c means the same and cannot close the element. */
static void put_script_safe(FILE *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == '<')
			fputs("\\u003c", out);
		else
			putc(s[i], out);
}

void render_html(FILE *out, struct model *m)
{
	char *buf = NULL, title[400];
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	if (!mem)
		oom();
	data(mem, m);
	if (fclose(mem))
		oom();
	snprintf(title, sizeof(title), "%s", m->nfiles == 1 ? m->files[0]->executable : "pmcshim");
	for (char *c = title; *c; c++)
		if (*c == '<' || *c == '>' || *c == '&')
			*c = '_';
	fprintf(out, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
		"<title>pmcshim: %s</title>\n<style>\n%s</style></head>\n<body>\n"
		"<h1 id=\"title\"></h1>\n<div id=\"files\" class=\"files\"></div>\n"
		"<div id=\"errors\" class=\"files\"></div>\n"
		"<h2>Totals</h2>\n<pre id=\"totals\"></pre>\n"
		"<h2>Region tree</h2>\n<div class=\"controls\">"
		"<label>view <select id=\"view\"></select></label>"
		"<label>weight <select id=\"weight\"></select></label>"
		"<label>colour <select id=\"color\"><option value=\"region\">region</option>"
		"<option value=\"ipc\">IPC</option></select></label>"
		"<button id=\"reset\">whole tree</button> <span id=\"count\" class=\"note\"></span>"
		"</div>\n<div id=\"flame\" class=\"flame\"></div>\n"
		"<h2>Regions</h2>\n<div id=\"table-note\" class=\"note\"></div><div id=\"table\"></div>\n"
		"<h2>Across ranks and processes</h2>\n<div id=\"spread-note\" class=\"note\"></div>"
		"<div id=\"spread\"></div>\n"
		"<h2>Sampled stacks</h2>\n<div id=\"sampled\" class=\"controls\">"
		"<label>region <select id=\"sregion\"></select></label>"
		"<button id=\"sreset\">all frames</button> <span id=\"scount\" class=\"note\"></span>"
		"<div id=\"sflame\" class=\"flame\"></div></div>\n"
		"<script id=\"pmcshim-data\" type=\"application/json\">", title, report_html_css);
	put_script_safe(out, buf, len);
	fprintf(out, "</script>\n<script>\n%s</script>\n</body></html>\n", report_html_js);
	free(buf);
}
