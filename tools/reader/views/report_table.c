/* Human output: aligned tables with readable numbers. Unavailable values
 * print as "n/a", never as 0; a sum that covers only some threads (the
 * event was unavailable to the others) is marked '+'; a value its event
 * counted only part of the time (multiplexed) is marked '*': the scaled
 * estimate, or with --raw the count as measured. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "reader/cells/report_cells.h"
#include "reader/cells/report_escape.h"
#include "reader/cells/report_labels.h"
#include "reader/cells/report_notes.h"
#include "report_metrics.h"
#include "report_render.h"
#include "report_totals.h"

/* --collapse-unavailable (the launcher's tables): an event that no row of
 * a table could count gets no columns, and one note under the table says
 * which, instead of two columns of n/a each (a machine without a PMU); the
 * same in the thread tables; files with the same events get one events
 * line. */
static bool collapse;

void render_table_collapse(bool on)
{
	collapse = on;
}

/* ---- cells -------------------------------------------------------------- */

struct marks {
	bool partial, mux;		/* mux: a thread total */
	bool est, never;		/* a region value counted part of the time, never */
};

/* In a region table also '+' for a partial sum; the marks are noted for
 * the table's legend. */
static void put_value(struct table *t, const struct sum *s, uint64_t v, enum how how,
		      struct marks *mk)
{
	char b[40];

	mk->never |= !s->have && s->never;
	mk->partial |= s->have && s->miss;
	mk->est |= s->have && s->mux;
	tbl_put(t, "%s%s", est_cell(b, s, v, how), s->have && s->miss ? "+" : "");
}

/* No call has ended yet (a live row): no min or max. */
static void put_minmax(struct table *t, const struct sum *s, uint64_t v, enum how how,
		       struct marks *mk)
{
	if (s->have && !s->have_mm)
		tbl_put(t, "n/a");
	else
		put_value(t, s, v, how, mk);
}

static void put_double(struct table *t, bool ok, const char *fmt, double v)
{
	if (ok)
		tbl_put(t, fmt, v);
	else
		tbl_put(t, "n/a");
}

/* A name from the report, escaped and (maxw > 0) shortened. */
static void put_name(struct table *t, const char *name, size_t maxw, const char *suffix)
{
	char *e = escape_name(name, maxw);

	tbl_put(t, "%s%s", e, suffix);
	free(e);
}

/* fprintf of one escaped name: fmt has one %s. */
static void print_name(FILE *out, const char *fmt, const char *name)
{
	char *e = escape_name(name, 0);

	fprintf(out, fmt, e);
	free(e);
}

/* ---- headers ------------------------------------------------------------ */

/* How the process stands, and what that means for the data. */
static const char *state_note(const struct report *r)
{
	if (r->state == RF_RUNNING && !r->unsure)
		return r->live ? " (live: a snapshot as of now)" : "; data up to its end";
	return "";
}

/* One line: each kind of drop the file counts, those it has. */
static void print_dropped(FILE *out, const struct report *r)
{
	static const char *const what[] = {
		[RF_DROP_FULL] = "for a full file",
		[RF_DROP_BUSY] = "markers in a signal handler",
		[RF_DROP_EARLY] = "markers before setup",
		[RF_DROP_NAMES] = "markers with a new name past the names limit (PMCSHIM_MAX_NAMES)",
		[RF_DROP_IDS] = "markers with an id that no region() call returned (refused)",
		[RF_DROP_FUNCTIONS] = "instrumented functions past the limit of 32768",
	};
	const char *sep = "#   not recorded: ";

	for (size_t k = 0; k < sizeof(what) / sizeof(what[0]); k++) {
		if (!r->dropped[k])
			continue;
		/* (sampled hooks: a call of a path with no room, each time) */
		fprintf(out, "%s%" PRIu64 " %s", sep, r->dropped[k],
			k == RF_DROP_FUNCTIONS && r->fn_sampled ?
			"instrumented functions past the limit of 32768, and calls of call "
			"paths past 32768 a thread" : what[k]);
		sep = ", ";
	}
	if (sep[0] == ',')
		fputc('\n', out);
}

/* Some thread of r has a region row: a marker ran in it. */
static bool file_has_rows(const struct report *r)
{
	for (size_t i = 0; i < r->nthreads; i++)
		if (r->threads[i].nrows)
			return true;
	return false;
}

static void print_file_notes(FILE *out, const struct report *r)
{
	/* calibration is about regions: nothing to say without them */
	if (file_has_rows(r) && note_calibration(out, r))
		note_below(out, r->nbelow);
	note_fn_sampled(out, r);
	if (r->ticks_per_ns <= 0)
		fprintf(out, "#   wall time n/a: the tick rate is unknown (the process did not end "
			"normally, and this is not the boot it ran on)\n");
	if (r->npartial)
		fprintf(out, "#   %zu row%s caught mid-update (%s inside a marker): shown with the "
			"values it had\n", r->npartial, r->npartial == 1 ? "" : "s",
			r->live ? "its thread stayed" : "the process died");
	if (r->full)
		fprintf(out, "#   the file reached its size limit: later records were dropped\n");
	if (r->nunnamed)
		fprintf(out, "#   %zu row%s or error%s with a region id that no name record has "
			"(a damaged file, or one from a shim that let any id through): shown as "
			"(unknown id N)\n", r->nunnamed, r->nunnamed == 1 ? "" : "s",
			r->nunnamed == 1 ? "" : "s");
	print_dropped(out, r);
	note_short(out, r);
	note_resync(out, r);
}

static bool same_text(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* The events of a and b are the same names, sources, modes and reasons. */
static bool same_events(const struct report *a, const struct report *b)
{
	if (a->nev != b->nev)
		return false;
	for (size_t i = 0; i < a->nev; i++)
		if (strcmp(a->ev[i].name, b->ev[i].name) || strcmp(a->ev[i].source, b->ev[i].source) ||
		    !same_text(a->ev[i].reason, b->ev[i].reason) ||
		    a->ev[i].exclude_kernel != b->ev[i].exclude_kernel ||
		    !same_text(a->ev[i].mode_note, b->ev[i].mode_note))
			return false;
	return true;
}

static void print_events(FILE *out, const struct report *r, const char *label);

/* Under --collapse-unavailable, files that all have the same events get
 * one events line (a run of 35 processes: not 35 copies of one reason). */
static bool events_once(const struct model *m)
{
	for (size_t f = 1; collapse && f < m->nfiles; f++)
		if (!same_events(m->files[0], m->files[f]))
			return false;
	return collapse && m->nfiles > 1;
}

static void print_file(FILE *out, const struct report *r, bool with_events)
{
	char b[32], rk[48];

	fprintf(out, "# %s: %s (pid %" PRIu64 "%s%s%s%s, %zu thread%s, wall %s), %s%s\n", r->path,
		r->executable, r->pid, rank_text(rk, r), *r->host ? ", host " : "", r->host,
		r->forked ? ", forked" : "", r->nthreads, r->nthreads == 1 ? "" : "s",
		r->has_wall ? fmt_num(b, r->wall_ns, H_TIME) : "n/a", r->state_text, state_note(r));
	if (with_events)
		print_events(out, r, "#   events:");
	print_file_notes(out, r);
	note_mpi(out, r);
}

/* A file's notes beyond calibration: what went short in it. */
static bool unusual(const struct report *r)
{
	bool dropped = false;
	size_t regions;

	for (size_t k = 0; k < sizeof(r->dropped) / sizeof(r->dropped[0]); k++)
		dropped |= r->dropped[k] != 0;
	return r->ticks_per_ns <= 0 || r->npartial || r->full || dropped ||
	       resync_calls(r, &regions);
}

/* The launcher's run of many processes (--collapse-unavailable, files
 * sharing their events): one line for the files (the totals list each
 * process), a heading only for a file with something to say, one line on
 * calibration. */
static void print_files_folded(FILE *out, const struct model *m)
{
	const char *dir = m->files[0]->path, *slash = strrchr(dir, '/');
	bool calib = false;
	size_t below = 0;
	char b[200];

	fprintf(out, "# %zu reports in %.*s: %s\n", m->nfiles,
		slash ? (int)(slash - dir) : 1, slash ? dir : ".", totals_states(m, b, sizeof(b)));
	for (size_t f = 0; f < m->nfiles; f++) {
		const struct report *r = m->files[f];

		calib |= r->calibrated && !r->raw && file_has_rows(r);
		below += r->calibrated && !r->raw ? r->nbelow : 0;
		if (unusual(r))
			print_file(out, r, false);
	}
	if (calib) {
		fprintf(out, "#   calibrated: the markers' own cost taken out (pmcshim-report "
			"FILE shows each file's figures); --raw shows measured values\n");
		note_below(out, below);
	}
}

static void print_events(FILE *out, const struct report *r, const char *label)
{
	fputs(label, out);
	for (size_t i = 0; i < r->nev; i++) {
		const struct rep_event *e = &r->ev[i];

		if (!strcmp(e->source, "unavailable"))
			fprintf(out, "%s %s [unavailable%s%s]", i ? "," : "", e->name,
				e->reason ? ": " : "", e->reason ? e->reason : "");
		else
			fprintf(out, "%s %s [%s, %s%s%s%s]", i ? "," : "", e->name, e->source,
				e->exclude_kernel ? "user" : "user+kernel",
				e->mode_note ? ": kernel refused: " : "",
				e->mode_note ? e->mode_note : "",
				e->per_thread ? ", per thread" : "");
	}
	fprintf(out, "%s%s%s%s\n", r->nev ? "" : " none",
		r->serialized ? "; reads serialized (" : "", r->serialized ? r->barrier : "",
		r->serialized ? ")" : "");
}

static void print_legend(FILE *out, const struct model *m)
{
	static const char *const field[] = { "incl", "excl", "mean", "min", "max", "", "excl",
					     "", "", "", "", "" };
	static const char *const other[] = { "", "", "", "", "", "calls", "", "IPC",
					     "wall incl", "name", "coverage, lowest first",
					     "source, then incl" };
	const char *w = model_weight_name(m);
	enum sort_field s = m->o->sort;

	fprintf(out, "# weight: %s%s; share = region's excl / all regions' excl in the process%s; "
		"sorted by %s%s%s\n", w, m->o->event ? "" : " (default)", m->nfiles > 1 ? "es" : "",
		*field[s] ? w : other[s], *field[s] ? " " : "", field[s]);
}

/* Files whose functions were counted (CPU time from samples) merged with
 * files whose functions were timed (wall time): said, as their rows add
 * the two. */
static void note_mixed_functions(FILE *out, const struct model *m)
{
	size_t sampled = 0;

	for (size_t i = 0; i < m->nfiles; i++)
		sampled += m->files[i]->fn_sampled;
	if (sampled && sampled < m->nfiles)
		fprintf(out, "# functions: counted in %zu of these %zu files (CPU time from samples, "
			"PMCSHIM_FUNCTIONS=sampled), timed in the others (wall time): a function's "
			"row adds the two\n", sampled, m->nfiles);
}

static void print_title(FILE *out, const struct model *m, const struct gtable *t)
{
	if (t->scope == SC_ALL) {
		fprintf(out, "\n## regions, all threads%s merged\n",
			m->nfiles > 1 ? " of all processes" : "");
		note_mixed_functions(out, m);
	} else if (t->scope == SC_PROCESS)
		fprintf(out, "\n## regions of process %" PRIu64 " (%s)\n", m->files[t->id]->pid,
			m->files[t->id]->path);
	else {
		fprintf(out, "\n## regions of thread %" PRIu64 " ", m->threads[t->id].t->tid);
		print_name(out, "%s", m->threads[t->id].t->name);
		fprintf(out, " (pid %" PRIu64 ")\n", m->files[m->threads[t->id].file]->pid);
	}
}

/* ---- region tables ------------------------------------------------------ */

/* cols: which events of the model get columns in table gt; cover: a
 * coverage column (some value was counted only part of the time). */
struct cols {
	bool *shown;			/* [nev] */
	size_t nshown, nhidden;
	size_t nper_thread;		/* hidden: counted per thread only */
	bool ipc, cover;
};

static void choose_cols(struct cols *c, const struct model *m, const struct gtable *gt)
{
	c->shown = xcalloc(m->nev + 1, sizeof(*c->shown));
	c->nshown = c->nhidden = c->nper_thread = 0;
	for (size_t e = 0; e < m->nev; e++) {
		if (model_per_thread(m, e)) {	/* no row has one: said in a note */
			c->nper_thread++;
			continue;
		}
		c->shown[e] = !collapse;
		for (size_t i = 0; i < gt->n && !c->shown[e]; i++)
			c->shown[e] = gt->g[i]->s[1 + e].have || gt->g[i]->s[1 + e].never;
		c->shown[e] ? c->nshown++ : c->nhidden++;
	}
	c->ipc = m->ipc_ins >= 0 && c->shown[m->ipc_ins] && c->shown[m->ipc_cyc] &&
		 !metrics_replace_ipc();
	c->cover = false;
	for (size_t i = 0; i < gt->n && !c->cover; i++)
		c->cover = group_multiplexed(m, gt->g[i]);
}

/* The events counted per thread only: their totals are in the totals and
 * thread tables, none in a region's row. */
static void note_per_thread(FILE *out, const struct model *m, const struct cols *c)
{
	const char *sep = "";

	if (!c->nper_thread)
		return;
	fputs("counted per thread, not per region: ", out);
	for (size_t e = 0; e < m->nev; e++)
		if (model_per_thread(m, e))
			fprintf(out, "%s%s", sep, m->ev[e]), sep = ", ";
	fprintf(out, " (read() only, so no system call at the markers; %s in the totals, "
		"--threads per thread; -e NAME counts one per region, at two system calls a "
		"marker pair)\n", c->nper_thread > 1 ? "theirs are" : "its is");
}

static void note_hidden(FILE *out, const struct model *m, const struct cols *c)
{
	const char *sep = "";

	note_per_thread(out, m, c);
	if (!c->nhidden)
		return;
	fputs("not counted here, so left out: ", out);
	for (size_t e = 0; e < m->nev; e++)
		if (!c->shown[e] && !model_per_thread(m, e))
			fprintf(out, "%s%s", sep, m->ev[e]), sep = ", ";
	fputs(" (no row has a value: see each file's events line for why)\n", out);
}

static void region_headings(struct table *t, const struct model *m, const struct cols *cols)
{
	size_t c = 3 + m->show_source;
	char b[256];

	tbl_left(t, 0);
	tbl_put(t, "region");
	if (m->show_source)
		tbl_left(t, 1), tbl_put(t, "source");
	tbl_put(t, "share"), tbl_put(t, "calls");
	if (cols->cover)
		tbl_put(t, "coverage"), c++;
	for (int e = -1; e < (int)m->nev; e++) {
		if (e >= 0 && !cols->shown[e])
			continue;
		tbl_span(t, c, 2, e < 0 ? "wall time" : m->ev[e]);
		tbl_put(t, "incl"), tbl_put(t, "excl");
		c += 2;
	}
	snprintf(b, sizeof(b), "%s per call", model_weight_name(m));
	tbl_span(t, c, 3, b);
	tbl_put(t, "mean"), tbl_put(t, "min"), tbl_put(t, "max");
	if (cols->ipc)
		tbl_put(t, "IPC");
	metrics_headings(t, c + 3 + cols->ipc);
}

/* A group's coverage as text, rounded down: an estimate never reads
 * 100%. b: at least 32 bytes. */
static const char *coverage_text(char *b, const struct model *m, const struct group *g)
{
	double c;

	if (!group_coverage(m, g, &c))
		return "n/a";
	if (c >= 1)
		return "100%";
	snprintf(b, 32, "%.1f%%", (double)(unsigned)(c * 1000) / 10);
	return b;
}

static void put_coverage(struct table *t, const struct model *m, const struct group *g)
{
	char b[32];

	tbl_put(t, "%s", coverage_text(b, m, g));
}

static void region_row(struct table *t, const struct model *m, const struct gtable *gt,
		       const struct group *g, struct marks *mk, const struct cols *cols)
{
	const struct sum *w = model_weight(m, g);
	enum how wh = how_of(m, m->weight);
	double v = 0;
	bool ok;
	char b[32];

	tbl_put(t, "%s", region_label(m, g->key.region));
	if (m->show_source)
		tbl_put(t, "%s", rf_from_name(m->source[g->key.region]));
	ok = group_share(m, gt, g, &v); /* before v is read: arguments are unordered */
	put_double(t, ok, "%.1f%%", 100 * v);
	tbl_put(t, "%s", fmt_num(b, g->calls, H_EXACT));
	if (cols->cover)
		put_coverage(t, m, g);
	for (int e = -1; e < (int)m->nev; e++) {
		if (e >= 0 && !cols->shown[e])
			continue;
		put_value(t, &g->s[1 + e], g->s[1 + e].incl, how_of(m, e), mk);
		put_value(t, &g->s[1 + e], g->s[1 + e].excl, how_of(m, e), mk);
	}
	ok = sum_mean(w, &v) && v < 18e18; /* a mean shows like any other value */
	if (ok || !w->have)
		put_value(t, w, ok ? (uint64_t)(v + 0.5) : 0, wh, mk);
	else
		tbl_put(t, "n/a");
	put_minmax(t, w, sum_min(w), wh, mk);
	put_minmax(t, w, sum_max(w), wh, mk);
	if (cols->ipc) {
		ok = group_ipc(m, g, &v);
		put_double(t, ok, "%.2f", v);
	}
	metrics_cells(t, m, g, &mk->est, &mk->partial);
}

/* Some file of the model takes the markers' own cost out. */
static bool calibrated(const struct model *m)
{
	for (size_t f = 0; f < m->nfiles; f++)
		if (m->files[f]->calibrated && !m->files[f]->raw)
			return true;
	return false;
}

/* What '*' and "n/a*" mean in a region table. */
static void note_multiplexed(FILE *out, const struct model *m, const struct marks *mk)
{
	if (mk->est && m->o->raw)
		fprintf(out, "* multiplexed: counted only part of the region's time (coverage: "
			"running / enabled of the row's least-counted event); shown as measured "
			"(--raw), short of the whole; without --raw, the scaled estimate\n");
	else if (mk->est)
		fprintf(out, "* estimated: counted only part of the region's time (multiplexed; "
			"coverage: running / enabled of the row's least-counted event); shown is "
			"value x enabled / running%s; --raw shows measured values\n",
			calibrated(m) ? ", then calibrated" : "");
	if (mk->never)
		fprintf(out, "n/a*: never on a counter during the region's calls (coverage 0%%): "
			"nothing to scale%s\n", mk->est ? "" : "; --raw shows what was measured");
}

/* How many regions --min-coverage left out. */
static void note_low(FILE *out, const struct model *m, const struct gtable *gt)
{
	if (gt->nlow)
		fprintf(out, "%zu region%s below %g%% coverage hidden (--min-coverage)\n", gt->nlow,
			gt->nlow == 1 ? "" : "s", 100 * m->o->min_coverage);
}

static void print_stacks(FILE *out, struct model *m, const struct gtable *gt)
{
	const char *wn = model_weight_name(m);
	enum how wh = how_of(m, m->weight);
	char b1[32], b2[40], b3[40], b4[32], b5[32];

	if (m->o->sort_given)
		fprintf(out, "\n### call-site stacks, in --sort order (frames innermost first)\n");
	else
		fprintf(out, "\n### call-site stacks, heaviest first by %s excl (frames innermost "
			"first)\n", wn);
	for (size_t i = 0; i < gt->n; i++) {
		const struct group *g = gt->g[i];

		print_name(out, "%s", m->regions[g->key.region]);
		fprintf(out, " (%zu stack%s)\n", g->nsub, g->nsub == 1 ? "" : "s");
		for (size_t k = 0; k < g->nsub; k++) {
			const struct group *s = g->sub[k];
			const struct sum *w = model_weight(m, s);
			double share;

			fprintf(out, "  #%zu  calls %s  %s incl %s  excl %s  share %s%s%s\n", k + 1,
				fmt_num(b1, s->calls, H_EXACT), wn,
				est_cell(b2, w, w->incl, wh), est_cell(b3, w, w->excl, wh),
				group_share(m, gt, s, &share) ?
				(snprintf(b4, sizeof(b4), "%.1f%%", 100 * share), b4) : "n/a",
				group_multiplexed(m, s) ? "  coverage " : "",
				group_multiplexed(m, s) ? coverage_text(b5, m, s) : "");
			for (size_t f = 0; f < model_stack_depth(m, s->key.stack); f++)
				print_name(out, "      %s\n", model_frame(m, s->key.stack, f));
		}
	}
}

/* Some thread of some file has a region row: a marker ran. */
static bool any_rows(const struct model *m)
{
	for (size_t i = 0; i < m->nthreads; i++)
		if (m->threads[i].t->nrows)
			return true;
	return false;
}

static void print_regions(FILE *out, struct model *m, const struct gtable *gt)
{
	struct table t;
	struct marks mk = { 0 };
	struct cols cols;

	print_title(out, m, gt);
	if (!gt->n && !any_rows(m)) {
		fputs(gt->scope == SC_ALL ? "(no regions: no marker ran; the totals above are "
		      "the whole run)\n" : "(no regions: no marker ran)\n", out);
		return;
	}
	if (!gt->n) {
		fprintf(out, "(no regions%s%s)\n", m->o->has_re ? " match --region" : "",
			gt->nlow ? (m->o->has_re ? " and --min-coverage" : " at --min-coverage") :
			"");
		note_low(out, m, gt);
		return;
	}
	choose_cols(&cols, m, gt);
	tbl_init(&t, 3 + m->show_source + cols.cover + 2 * (1 + cols.nshown) + 3 + cols.ipc +
		 2 * metrics_count());
	region_headings(&t, m, &cols);
	for (size_t i = 0; i < gt->n; i++)
		region_row(&t, m, gt, gt->g[i], &mk, &cols);
	tbl_print(&t, out);
	note_hidden(out, m, &cols);
	free(cols.shown);
	note_multiplexed(out, m, &mk);
	if (mk.partial)
		fprintf(out, "+ partial: some threads could not count this event; "
			"the sum covers only those that did\n");
	note_low(out, m, gt);
	if (m->o->stacks)
		print_stacks(out, m, gt);
}

/* ---- threads and processes ---------------------------------------------- */

/* A multiplexed total shows its scaled estimate, or with --raw its value
 * as measured: marked either way. */
static void put_total(struct table *t, const struct report *r, const struct rep_total *tot,
		      enum how how, struct marks *mk)
{
	bool mux = !strcmp(tot->status, "multiplexed") && tot->has_scaled;
	char b[32];

	if (!tot->has_value) { /* "unavailable", "not counted" */
		tbl_put(t, "%s", strcmp(tot->status, "unavailable") ? tot->status : "n/a");
		return;
	}
	mk->mux |= mux;
	tbl_put(t, "%s%s", fmt_num(b, mux && !r->raw ? tot->scaled : tot->value, how),
		mux ? "*" : "");
}

/* Under --collapse-unavailable: event e of r has no total in any thread. */
static bool no_totals(const struct report *r, size_t e)
{
	for (size_t i = 0; collapse && i < r->nthreads; i++)
		if (r->threads[i].totals[e].has_value)
			return false;
	return collapse;
}

/* What a thread's state says of its totals, once a state shown (a word
 * like "snapshot" means nothing to a reader without it). */
static void print_state_notes(FILE *out, const struct report *r)
{
	static const struct { const char *state, *note; } says[] = {
		{ "snapshot", "snapshot: the thread was still running when the process ended; "
			      "its totals are as of that moment, taken by the thread that ended "
			      "the process" },
		{ "running", "running: the thread had not ended when this file was read; its "
			     "totals are as of its last update (a live process, or one killed "
			     "before it could store them)" },
	};

	for (size_t k = 0; k < sizeof(says) / sizeof(says[0]); k++)
		for (size_t i = 0; i < r->nthreads; i++)
			if (!strcmp(r->threads[i].state, says[k].state)) {
				fprintf(out, "* %s\n", says[k].note);
				break;
			}
}

static void print_threads(FILE *out, const struct model *m, size_t f)
{
	const struct report *r = m->files[f];
	struct table t;
	struct marks mk = { 0 };
	char b[32];
	size_t shown = 0;

	fprintf(out, "\n## threads of %s (pid %" PRIu64 ")\n", r->executable, r->pid);
	for (size_t e = 0; e < r->nev; e++)
		shown += !no_totals(r, e);
	tbl_init(&t, 7 + shown + metrics_count());
	for (size_t c = 1; c < 4; c++)
		tbl_left(&t, c);
	tbl_put(&t, "tid"), tbl_put(&t, "name"), tbl_put(&t, "state"), tbl_put(&t, "setup");
	tbl_put(&t, "wall"), tbl_put(&t, "cpu"), tbl_put(&t, "rows");
	for (size_t e = 0; e < r->nev; e++)
		if (!no_totals(r, e))
			tbl_put(&t, "%s", r->ev[e].name);
	metrics_thread_headings(&t);
	for (size_t i = 0; i < r->nthreads; i++) {
		const struct rep_thread *th = &r->threads[i];

		tbl_put(&t, "%" PRIu64, th->tid);
		put_name(&t, th->name, NAME_COLUMN_MAX, th->main ? " (main)" : "");
		tbl_put(&t, "%s", th->state), tbl_put(&t, "%s", th->setup);
		tbl_put(&t, "%s", th->has_wall ? fmt_num(b, th->wall_ns, H_TIME) : "n/a");
		tbl_put(&t, "%s", th->has_cpu ? fmt_num(b, th->cpu_ns, H_TIME) : "n/a");
		tbl_put(&t, "%s", fmt_num(b, th->nrows, H_EXACT));
		for (size_t e = 0; e < r->nev; e++)
			if (!no_totals(r, e))
				put_total(&t, r, &th->totals[e], event_is_time(r->ev[e].name) ?
					  H_TIME : H_COUNT, &mk);
		metrics_thread_cells(&t, r, th, &mk.mux);
	}
	tbl_print(&t, out);
	print_state_notes(out, r);
	if (mk.mux && r->raw)
		fprintf(out, "* multiplexed: the counter ran only part of the time; shown as "
			"measured (--raw), short of the whole; without --raw, the scaled "
			"estimate\n");
	else if (mk.mux)
		fprintf(out, "* multiplexed: the counter ran only part of the time; shown is "
			"the scaled estimate, value x enabled / running\n");
}

static void print_processes(FILE *out, const struct model *m)
{
	const char *wn = model_weight_name(m);
	enum how wh = how_of(m, m->weight);
	struct table t;
	char b[32];
	bool mux = false;

	fprintf(out, "\n## processes\n");
	tbl_init(&t, 8 + metrics_count());
	tbl_left(&t, 0), tbl_left(&t, 2), tbl_left(&t, 3);
	tbl_put(&t, "file"), tbl_put(&t, "pid"), tbl_put(&t, "host"), tbl_put(&t, "executable");
	tbl_put(&t, "threads"), tbl_put(&t, "wall"), tbl_put(&t, "%s excl", wn);
	tbl_put(&t, "share");
	metrics_thread_headings(&t);
	for (size_t f = 0; f < m->nfiles; f++) {
		const struct report *r = m->files[f];
		const struct sum *s = &m->file_total[f];

		tbl_put(&t, "%s", r->path), tbl_put(&t, "%" PRIu64, r->pid);
		tbl_put(&t, "%s", *r->host ? r->host : "-"), tbl_put(&t, "%s", r->executable);
		tbl_put(&t, "%zu", r->nthreads);
		tbl_put(&t, "%s", r->has_wall ? fmt_num(b, r->wall_ns, H_TIME) : "n/a");
		tbl_put(&t, "%s", s->have ? fmt_num(b, s->excl, wh) : "n/a");
		if (s->have && m->all_total.excl)
			tbl_put(&t, "%.1f%%", 100.0 * (double)s->excl / (double)m->all_total.excl);
		else
			tbl_put(&t, "n/a");
		metrics_process_cells(&t, r, &mux);
	}
	tbl_print(&t, out);
	if (mux)
		fprintf(out, "* multiplexed: a metric from its threads' scaled estimates\n");
}

static void print_errors(FILE *out, const struct report *r)
{
	char b[32];

	if (!r->nerrors)
		return;
	fprintf(out, "\n## marker errors in %s\n", r->path);
	for (size_t i = 0; i < r->nerrors; i++) {
		const struct rep_error *e = &r->errors[i];

		fprintf(out, "  %s  tid %" PRIu64 "  region ", e->kind, e->tid);
		print_name(out, "%s", *e->region ? e->region : "-");
		if (e->open)
			print_name(out, "  open %s", e->open);
		fprintf(out, "  count %s\n", fmt_num(b, e->count, H_EXACT));
	}
}

static void print_note(void *arg, const char *path, const char *note)
{
	fprintf(arg, "  %s: %s\n", path, note);
}

static bool has_notes;

static void count_note(void *arg, const char *path, const char *note)
{
	(void)arg, (void)path, (void)note;
	has_notes = true;
}

void render_table(FILE *out, struct model *m)
{
	bool once = events_once(m);

	if (once)
		print_files_folded(out, m);
	else
		for (size_t f = 0; f < m->nfiles; f++)
			print_file(out, m->files[f], true);
	if (once)
		print_events(out, m->files[0], "# events of every file:");
	if (any_rows(m))	/* the legend is the regions' */
		print_legend(out, m);
	render_totals(out, m, collapse);
	for (size_t f = 0; m->o->threads && f < m->nfiles; f++)
		print_threads(out, m, f);
	if (m->o->totals)
		return;
	for (size_t i = 0; i < m->ntables; i++) {
		const struct gtable *t = &m->tables[i];

		if (t->scope == SC_PROCESS && t->id == 0)
			print_processes(out, m);
		print_regions(out, m, t);
	}
	for (size_t f = 0; f < m->nfiles; f++)
		print_errors(out, m->files[f]);
	has_notes = false;
	model_symbol_notes(m, count_note, NULL);
	if (has_notes) {
		fprintf(out, "\nnotes on symbols (frames fell back to function+offset or "
			"module+offset):\n");
		model_symbol_notes(m, print_note, out);
	}
}
