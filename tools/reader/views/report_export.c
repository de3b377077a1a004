/* --format json: everything a report file holds, as one JSON document per
 * file, shaped like the version-1 report (docs/report-format.md) so that
 * tools written for it keep working: the same keys, plus what version 2
 * adds (process state, drops, stack methods, partial rows). Wall times are
 * converted from ticks to ns; a value that is not known is null. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reader/cells/report_text.h"
#include "report_render.h"
#include "report_totals.h"
#include "reader/data/symbolize.h"

/* The export's version: 3 put every file in "files" (2: an object for one
 * file, an array for several). */
#define EXPORT_VERSION 3

/* A string literal out: its length known, not counted (a million rows
 * write tens of millions of them). */
#define PUT_LIT(out, lit) fwrite("" lit, 1, sizeof(lit) - 1, out)

/* A number without printf: an export writes millions of them. */
static void put_u64(FILE *out, uint64_t v)
{
	char b[24], *p = b + sizeof(b);

	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10));
	fwrite(p, 1, (size_t)(b + sizeof(b) - p), out);
}

static void u64_or_null(FILE *out, bool ok, uint64_t v)
{
	if (ok)
		put_u64(out, v);
	else
		fputs("null", out);
}

static void key_str(FILE *out, const char *sep, const char *key, const char *v)
{
	fprintf(out, "%s\"%s\": ", sep, key);
	json_string(out, v);
}

static const char *state_word(const struct report *r)
{
	return r->state == RF_RUNNING ? (r->live ? "running" : "ended without exit") :
	       r->state == RF_EXITED ? "exited" : r->state == RF_EXECED ? "exec" : "_exit";
}

/* "mpi": the rank and size, only in a process that called MPI_Init. */
static void export_mpi(FILE *out, const struct report *r)
{
	if (!r->mpi)
		return;
	fprintf(out, ",\n    \"mpi\": {\"rank\": %" PRIu32 ", \"size\": %" PRIu32, r->mpi_rank, r->mpi_size);
	key_str(out, ", ", "library", r->mpi_library);
	fprintf(out, ", \"finalized\": %s, \"finalized_twice\": %s}",
		r->mpi_finalized ? "true" : "false", r->mpi_finalized_twice ? "true" : "false");
}

static void export_process(FILE *out, const struct report *r)
{
	fprintf(out, "  \"process\": {\n    \"pid\": %" PRIu64 ", \"ppid\": %" PRIu64, r->pid,
		r->ppid);
	key_str(out, ", ", "host", r->host);
	key_str(out, ", ", "executable", r->executable);
	fputs(",\n    \"argv\": [", out);
	for (size_t i = 0; i < r->argc; i++) {
		fputs(i ? ", " : "", out);
		json_string(out, r->argv[i]);
	}
	fprintf(out, "], \"argv_truncated\": %s,\n    \"forked\": %s, \"start_ns\": %" PRIu64
		", \"end_ns\": ", r->argv_truncated ? "true" : "false", r->forked ? "true" : "false",
		r->start_ns);
	u64_or_null(out, r->has_end, r->end_ns);
	fputs(", \"wall_ns\": ", out);
	u64_or_null(out, r->has_wall, r->wall_ns);
	key_str(out, ",\n    ", "state", state_word(r));
	fprintf(out, ", \"live\": %s", r->live ? "true" : "false");
	if (r->state == RF_EXECED)
		key_str(out, ", ", "exec_target", r->exec_target);
	key_str(out, ", ", "shim_version", r->shim_version);
	fprintf(out, ", \"serialized\": %s", r->serialized ? "true" : "false");
	if (r->serialized)
		key_str(out, ", ", "barrier", r->barrier);
	export_mpi(out, r);
	fputs("\n  },\n", out);
}

static void export_head(FILE *out, const struct report *r)
{
	fputs("{\n", out);
	fprintf(out, "  \"calibrated\": %s,\n", r->calibrated && !r->raw ? "true" : "false");
	key_str(out, "  ", "file", r->path);
	fputs(",\n", out);
	export_process(out, r);
	fputs("  \"clock\": {", out);
	key_str(out, "", "source", r->clock_source);
	fputs(", \"ticks_per_us\": ", out);
	if (r->ticks_per_ns > 0)
		fprintf(out, "%.6g", r->ticks_per_ns * 1000);
	else
		fputs("null", out);
	fprintf(out, "},\n  \"stack_depth\": %" PRIu32 ",\n  \"dropped\": {\"full\": %" PRIu64
		", \"busy\": %" PRIu64 ", \"early\": %" PRIu64 ", \"names\": %" PRIu64
		", \"ids\": %" PRIu64 ", \"functions\": %" PRIu64 "},\n",
		r->stack_depth, r->dropped[RF_DROP_FULL], r->dropped[RF_DROP_BUSY],
		r->dropped[RF_DROP_EARLY], r->dropped[RF_DROP_NAMES], r->dropped[RF_DROP_IDS],
		r->dropped[RF_DROP_FUNCTIONS]);
	/* (only when it happened) */
	if (r->missing || r->shrank)
		fprintf(out, "  \"cut_short\": {\"missing_bytes\": %" PRIu64
			", \"shrank_while_read\": %s},\n", r->missing, r->shrank ? "true" : "false");
	if (r->cuts)
		fprintf(out, "  \"cut_while_running\": {\"times\": %" PRIu32 ", \"to_bytes\": %" PRIu64
			", \"lost_bytes\": %" PRIu64 "},\n", r->cuts, r->cut_size, r->cut_lost);
}

static void export_events(FILE *out, const struct report *r)
{
	fputs("  \"events\": [", out);
	for (size_t i = 0; i < r->nev; i++) {
		const struct rep_event *e = &r->ev[i];

		key_str(out, i ? ",\n    {" : "\n    {", "name", e->name);
		fprintf(out, ", \"type\": %" PRIu32 ", \"config\": \"0x%" PRIx64 "\", "
			"\"exclude_kernel\": %s", e->type, e->config, e->exclude_kernel ? "true" :
			"false");
		key_str(out, ", ", "source", e->source);
		if (e->reason)
			key_str(out, ", ", "reason", e->reason);
		if (e->mode_note)
			key_str(out, ", ", "mode_note", e->mode_note);
		if (e->per_thread)	/* its totals, no site value */
			fputs(", \"per_thread\": true", out);
		fputs("}", out);
	}
	fputs(r->nev ? "\n  ],\n" : "],\n", out);
}

static void export_total(FILE *out, const struct rep_total *t)
{
	fputs("{\"value\": ", out);
	u64_or_null(out, t->has_value, t->value);
	if (t->has_times)
		fprintf(out, ", \"enabled_ns\": %" PRIu64 ", \"running_ns\": %" PRIu64, t->enabled,
			t->running);
	if (t->has_scaled)
		fprintf(out, ", \"scaled\": %" PRIu64, t->scaled);
	key_str(out, ", ", "status", t->status);
	fputs("}", out);
}

/* Coverage of value `slot` of a site in a multiplexed thread: the time it
 * was enabled and counting during the calls, and the estimate of its incl
 * (rep_estimated: the tables' rule). Never counted: no estimate. */
static void export_coverage(FILE *out, const struct report *r, const struct rep_thread *t,
			    const struct rf_site *s, uint32_t slot)
{
	const struct rf_stat *v = &s->v[slot];

	PUT_LIT(out, ", \"enabled_ns\": ");
	put_u64(out, v->enabled);
	PUT_LIT(out, ", \"running_ns\": ");
	put_u64(out, v->running);
	if (v->running && v->enabled) {
		fprintf(out, ", \"coverage\": %.4f, \"scaled_incl\": ",
			(double)v->running / (double)v->enabled);
		put_u64(out, rep_estimated(r, t, s, slot).incl);
	}
}

/* Value e of a row (-1: wall time): min and max only once a call has
 * ended; in a multiplexed thread, how much of the calls the event was
 * counted. */
static void export_value(FILE *out, const struct report *r, const struct rep_thread *t,
			 const struct rf_site *s, int e)
{
	struct rep_stat st;

	if (!rep_value(r, t, s, e, &st)) {
		PUT_LIT(out, "null");
		return;
	}
	PUT_LIT(out, "{\"incl\": ");
	put_u64(out, st.incl);
	PUT_LIT(out, ", \"excl\": ");
	put_u64(out, st.excl);
	/* (none where no call ended, or none was timed: sampled functions) */
	PUT_LIT(out, ", \"min\": ");
	u64_or_null(out, s->calls > 0 && !rep_fn_sampled(r, s), st.min);
	PUT_LIT(out, ", \"max\": ");
	u64_or_null(out, s->calls > 0 && !rep_fn_sampled(r, s), st.max);
	if (e >= 0 && t->coverage)
		export_coverage(out, r, t, s, t->slot[e]);
	PUT_LIT(out, "}");
}

/* A region not from the markers: its source, and the address it is keyed
 * by. */
static void export_origin(FILE *out, const struct report *r, uint32_t id)
{
	const struct rf_origin *o = rep_origin(r, id);

	if (!o)
		return;
	fprintf(out, ", \"source\": \"%s\"", rf_from_name(o->source));
	if (o->addr)
		fprintf(out, ", \"address\": \"0x%" PRIx64 "\"", o->addr);
}

static void export_row(FILE *out, const struct report *r, const struct rep_thread *t,
		       size_t j)
{
	const struct rf_site *s = rep_site(r, t, j);

	key_str(out, "        {", "region", r->names[rep_region(r, s->region)]);
	export_origin(out, r, s->region);
	PUT_LIT(out, ", \"stack\": ");
	put_u64(out, s->stack);
	PUT_LIT(out, ", \"calls\": ");
	put_u64(out, s->calls);
	PUT_LIT(out, ", \"child_calls\": ");
	put_u64(out, s->child_calls);
	if (r->tree && t->parent[j] == NO_PARENT)
		PUT_LIT(out, ", \"parent\": null");
	else if (r->tree)
		fprintf(out, ", \"parent\": %" PRIu32, t->parent[j]);
	PUT_LIT(out, ",\n         \"wall_ns\": ");
	export_value(out, r, t, s, -1);
	PUT_LIT(out, ", \"events\": [");
	for (size_t e = 0; e < r->nev; e++) {
		fputs(e ? ", " : "", out);
		export_value(out, r, t, s, (int)e);
	}
	fprintf(out, "]%s}", rep_site_partial(s) ? ", \"partial\": true" : "");
}

/* One path's own cost (in, child: per value slot) as a JSON object:
 * what each call and each child call had taken out (wall time in ns, each
 * event with its unit). */
static void export_costs(FILE *out, const struct report *r, const struct rep_thread *t,
			 const uint64_t *in, const uint64_t *child)
{
	fputs("{\"wall_ns\": {\"per_call\": ", out);
	put_u64(out, rep_ns(r, in[0]));
	fputs(", \"per_child\": ", out);
	put_u64(out, rep_ns(r, child[0]));
	fputs("}, \"events\": [", out);
	for (size_t e = 0; e < r->nev; e++) {
		fputs(e ? ", " : "", out);
		if (!t->slot[e]) {
			fputs("null", out);
			continue;
		}
		fputs("{\"per_call\": ", out);
		put_u64(out, in[t->slot[e]]);
		fputs(", \"per_child\": ", out);
		put_u64(out, child[t->slot[e]]);
		/* (a time event counts ns; any other, its own events) */
		fputs(event_is_time(r->ev[e].name) ? ", \"unit\": \"ns\"}" : ", \"unit\": \"count\"}",
		      out);
	}
	fputs("]}", out);
}

/* The markers' own cost the values were calibrated with, and the
 * function hooks' (functions_calibration) where measured. */
static void export_calibration(FILE *out, const struct report *r, const struct rep_thread *t)
{
	if (t->has_calib) {
		fputs(",\n      \"calibration\": ", out);
		export_costs(out, r, t, t->calib_in, t->calib_child);
	}
	if (t->has_fn_calib) {
		fputs(",\n      \"functions_calibration\": ", out);
		export_costs(out, r, t, t->calib_fn_in, t->calib_fn_child);
	}
}

static void export_thread(FILE *out, const struct report *r, const struct rep_thread *t)
{
	fprintf(out, "    {\n      \"tid\": %" PRIu64, t->tid);
	key_str(out, ", ", "name", t->name);
	fprintf(out, ", \"main\": %s", t->main ? "true" : "false");
	key_str(out, ", ", "state", t->state);
	key_str(out, ", ", "setup", t->setup);
	fputs(",\n      \"wall_ns\": ", out);
	u64_or_null(out, t->has_wall, t->wall_ns);
	fputs(", \"cpu_ns\": ", out);
	u64_or_null(out, t->has_cpu, t->cpu_ns);
	if (*t->lost_reason)
		key_str(out, ", ", "lost_reason", t->lost_reason);
	fprintf(out, ", \"coverage\": %s", t->coverage ? "true" : "false");
	export_calibration(out, r, t);
	fputs(",\n      \"totals\": [", out);
	for (size_t e = 0; e < r->nev; e++) {
		fputs(e ? ", " : "", out);
		export_total(out, &t->totals[e]);
	}
	fputs("],\n      \"regions\": [", out);
	for (size_t j = 0; j < t->nrows; j++) {
		fputs(j ? ",\n" : "\n", out);
		export_row(out, r, t, j);
	}
	fputs(t->nrows ? "\n      ]\n    }" : "]\n    }", out);
}

static void export_frame(FILE *out, const struct report *r, const struct rep_frame *f,
			 struct symbolizer *sz)
{
	const struct rep_module *m = f->module < 0 ? NULL : &r->modules[f->module];
	char sym[SYM_NAME_MAX];

	fprintf(out, "{\"addr\": \"0x%" PRIx64 "\", \"module\": %" PRId64, f->addr,
		m ? (int64_t)m->id : -1);
	if (m)
		fprintf(out, ", \"offset\": \"0x%" PRIx64 "\"", f->offset);
	if (m && sz && symbolize_function(sz, m->path, m->build_id, f->offset, sym, sizeof(sym)))
		key_str(out, ", ", "symbol", sym);
	fputs("}", out);
}

static void export_stacks(FILE *out, const struct report *r, struct symbolizer *sz)
{
	bool first = true;

	fputs("  \"stacks\": [", out);
	for (size_t i = 0; i < r->nstacks; i++) {
		const struct rep_stack *s = &r->stacks[i];

		if (!s->present)
			continue;
		fprintf(out, "%s    {\"id\": %zu", first ? "\n" : ",\n", i);
		key_str(out, ", ", "method", rf_stack_method_name(s->method));
		fputs(", \"frames\": [", out);
		for (size_t k = 0; k < s->n; k++) {
			fputs(k ? ",\n      " : "\n      ", out);
			export_frame(out, r, &rep_frames(r)[s->first + k], sz);
		}
		fputs(s->n ? "\n    ]}" : "]}", out);
		first = false;
	}
	fputs(first ? "],\n" : "\n  ],\n", out);
}

/* In id order, as frames name them (the loader keeps them by address):
 * modules[k] is then module k for a reader that indexes the array. */
static void export_modules(FILE *out, const struct report *r)
{
	const struct rep_module **by_id = xcalloc(r->nmodules + 1, sizeof(*by_id));
	size_t n = 0;

	for (size_t i = 0; i < r->nmodules; i++)
		by_id[n++] = &r->modules[i];
	for (size_t i = 1; i < n; i++)	/* insertion sort: a few dozen modules */
		for (size_t k = i; k > 0 && by_id[k - 1]->id > by_id[k]->id; k--) {
			const struct rep_module *t = by_id[k];
			by_id[k] = by_id[k - 1], by_id[k - 1] = t;
		}
	fputs("  \"modules\": [", out);
	for (size_t i = 0; i < n; i++) {
		const struct rep_module *m = by_id[i];

		fprintf(out, "%s    {\"id\": %" PRIu32, i ? ",\n" : "\n", m->id);
		key_str(out, ", ", "path", m->path);
		key_str(out, ", ", "build_id", m->build_id);
		fprintf(out, ", \"base\": \"0x%" PRIx64 "\"}", m->base);
	}
	fputs(r->nmodules ? "\n  ],\n" : "],\n", out);
	free(by_id);
}

static void export_errors(FILE *out, const struct report *r)
{
	fputs("  \"errors\": [", out);
	for (size_t i = 0; i < r->nerrors; i++) {
		const struct rep_error *e = &r->errors[i];

		key_str(out, i ? ",\n    {" : "\n    {", "kind", e->kind);
		fprintf(out, ", \"tid\": %" PRIu64, e->tid);
		key_str(out, ", ", "region", e->region);
		if (e->open)
			key_str(out, ", ", "open", e->open);
		fprintf(out, ", \"count\": %" PRIu64 "}", e->count);
	}
	fputs(r->nerrors ? "\n  ]\n" : "]\n", out);
}

static void export_file(FILE *out, const struct model *m, size_t f, struct symbolizer *sz)
{
	const struct report *r = m->files[f];

	export_head(out, r);
	export_events(out, r);
	fputs("  \"threads\": [", out);
	for (size_t i = 0; i < r->nthreads; i++) {
		fputs(i ? ",\n" : "\n", out);
		export_thread(out, r, &r->threads[i]);
	}
	fputs(r->nthreads ? "\n  ],\n" : "],\n", out);
	fputs("  \"totals\": ", out);
	totals_json(out, m, f);
	fputs(",\n", out);
	export_stacks(out, r, sz);
	export_modules(out, r);
	export_errors(out, r);
	fputs("}", out);
}

/* One shape whatever the number of files: the document names its format
 * and version once, and "files" holds each file's export in the order
 * given (one file: files[0]), as json-table's "files" does. */
void render_export(FILE *out, struct model *m)
{
	struct symbolizer *sz = m->o->symbolize ? symbolizer_new() : NULL;

	fprintf(out, "{\"format\": \"pmcshim-report\", \"version\": %d, \"files\": [\n",
		EXPORT_VERSION);
	for (size_t f = 0; f < m->nfiles; f++) {
		export_file(out, m, f, sz);
		fputs(f + 1 < m->nfiles ? ",\n" : "\n", out);
	}
	fputs("]}\n", out);
	if (sz)
		symbolizer_free(sz);
}
