/* The system view: a report of pmcshim --system (RF_SYSTEM), read
 * by report_sysdata.c: a table per CPU, the heaviest processes, and with --intervals a row per
 * interval; --format csv gives the same rows as scope,id,command,interval
 * and one column per event. Read while the launcher writes it, it shows
 * the intervals closed so far. */
#include "report_system.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reader/cells/report_text.h"
#include "reader/data/report_sysdata.h"

#define PROG "pmcshim-report"

static void header_line(FILE *out, const struct sys *s, const char *path)
{
	fprintf(out, "# %s: pmcshim --system on %s, %u interval%s of %u ms (%.2f s)%s%s\n", path,
		s->f.h->host, s->niv, s->niv == 1 ? "" : "s", s->run->interval_ms,
		(double)sysdata_run_ns(s) / 1e9, rf_state(s->f.h) == RF_RUNNING ? ", still running" : "",
		s->run->flags & RF_SYS_OWN_ONLY ? "; no per-CPU counters (not privileged): "
		"the user's own processes only" : "");
	fputs("#   events:", out);
	for (uint32_t i = 0; i < s->nev; i++)
		fprintf(out, " %s%s%s%s", s->ev[i]->name, s->ev[i]->reason[0] ? " (n/a: " : "",
			s->ev[i]->reason, s->ev[i]->reason[0] ? ")" : "");
	fputc('\n', out);
	if (s->f.h->flags & RF_FULL)
		fprintf(out, "#   the file reached its bound: %" PRIu64 " records dropped, nothing "
			"recorded after t=%.2f s (the last interval's end)\n",
			s->f.h->dropped[RF_DROP_FULL], (double)sysdata_run_ns(s) / 1e9);
	if (s->niv && s->iv[s->niv - 1]->unfollowed)
		fprintf(out, "#   %u processes could not be followed (descriptors or rights)\n",
			s->iv[s->niv - 1]->unfollowed);
}

static void event_heads(FILE *out, const struct sys *s)
{
	for (uint32_t i = 0; i < s->nev; i++)
		fprintf(out, " %16s", s->ev[i]->name);
	fputc('\n', out);
}

static void values(FILE *out, const struct sys *s, const uint64_t *v)
{
	for (uint32_t i = 0; i < s->nev; i++)
		if (s->ev[i]->reason[0])
			fprintf(out, " %16s", "n/a");
		else
			fprintf(out, " %16" PRIu64, v[i]);
	fputc('\n', out);
}

/* busy / the time: the CPU's utilisation (from /proc/stat: cpu-clock on
 * a CPU counts its idle time too), or a process's share of one CPU. */
static void busy_pct(FILE *out, uint64_t busy, uint64_t ns)
{
	if (ns)
		fprintf(out, " %6.1f%%", 100.0 * (double)busy / (double)ns);
	else
		fprintf(out, " %7s", "-");
}

static void cpu_table(FILE *out, const struct sys *s)
{
	if (!(s->run->flags & RF_SYS_CPU_WIDE))
		return;
	fputs("\n## per CPU (busy: utilisation, from /proc/stat)\n  cpu    busy", out);
	event_heads(out, s);
	for (uint32_t k = 0; k < s->nent; k++) {
		const struct sent *e = &s->ent[k];

		if (e->e->scope != RF_SCOPE_CPU)
			continue;
		fprintf(out, "%5" PRIu64 "%s", e->e->id, e->offline ? "*" : " ");
		busy_pct(out, e->busy, sysdata_run_ns(s));
		values(out, s, e->v);
	}
	sysdata_cpu_spans(out, s, "  * ");
}

static void when(FILE *out, const struct sys *s, uint64_t ns, int end)
{
	if (end && !ns)
		fprintf(out, " %8s", "-");
	else if (ns < s->run->start_ns)
		fprintf(out, " %8s", "before");
	else
		fprintf(out, " %8.2f", sysdata_secs(s, ns));
}

static void process_table(FILE *out, const struct sys *s, const struct sent **p, size_t n,
			  size_t top)
{
	fprintf(out, "\n## processes, heaviest first (%zu of %zu; start and end: s into the run)\n"
		"      pid command          start      end     cpu", top < n ? top : n, n);
	event_heads(out, s);
	for (size_t k = 0; k < n && k < top; k++) {
		fprintf(out, "%9" PRIu64 " %-15.15s", p[k]->e->id, p[k]->e->command);
		when(out, s, p[k]->e->start_ns, 0);
		when(out, s, p[k]->end_ns, 1);
		busy_pct(out, p[k]->busy, sysdata_run_ns(s));
		values(out, s, p[k]->v);
	}
}

/* Marks, by entity index, the first top processes of p (and every CPU). */
static char *shown_set(const struct sys *s, const struct sent **p, size_t n, size_t top)
{
	char *on = calloc(s->nent + 1, 1);

	if (!on)
		exit(2);
	for (uint32_t k = 0; k < s->nent; k++)
		on[k] = s->ent[k].e->scope == RF_SCOPE_CPU;
	for (size_t k = 0; k < n && k < top; k++)
		on[p[k]->e->index] = 1;
	return on;
}

/* The values records of interval i, CPUs and the shown processes. */
static void interval_rows(FILE *out, const struct sys *s, const struct sent **p, size_t n,
			  size_t top, int csv)
{
	char *on = shown_set(s, p, n, top);
	size_t at = 0;

	if (!csv) {
		fputs("\n## per interval (start: s into the run)\n    start scope      id", out);
		event_heads(out, s);
	}
	for (uint32_t i = 0; i < s->niv; i++) {
		for (; at < s->nval && s->val[at]->interval <= s->iv[i]->index; at++) {
			const struct rf_sys_values *v = s->val[at];
			const struct rf_sys_entity *e = s->ent[v->entity].e;

			if (v->interval != s->iv[i]->index || !on[e->index])
				continue;
			if (csv) {
				fprintf(out, "%s,%" PRIu64 ",", e->scope == RF_SCOPE_CPU ? "cpu" :
					"process", e->id);
				for (const char *c = e->command; *c; c++)	/* a name is plain */
					fputc(*c == ',' || *c == '"' || *c < ' ' ? '_' : *c, out);
				fprintf(out, ",%.3f", sysdata_secs(s, s->iv[i]->start_ns));
				for (uint32_t k = 0; k < s->nev; k++)
					fprintf(out, ",%" PRIu64, k < v->nvalues ? v->v[k] : 0);
				fputc('\n', out);
				continue;
			}
			fprintf(out, "%9.2f %-7s %7" PRIu64, sysdata_secs(s, s->iv[i]->start_ns),
				e->scope == RF_SCOPE_CPU ? "cpu" : "process", e->id);
			values(out, s, v->v);
		}
	}
	free(on);
}

static void csv_all(FILE *out, const struct sys *s)
{
	fputs("scope,id,command,interval", out);
	for (uint32_t i = 0; i < s->nev; i++)
		fprintf(out, ",%s", s->ev[i]->name);
	fputc('\n', out);
	for (uint32_t k = 0; k < s->nent; k++) {
		const struct sent *e = &s->ent[k];

		fprintf(out, "%s,%" PRIu64 ",", e->e->scope == RF_SCOPE_CPU ? "cpu" : "process",
			e->e->id);
		for (const char *c = e->e->command; *c; c++)
			fputc(*c == ',' || *c == '"' || *c < ' ' ? '_' : *c, out);
		fputs(",all", out);
		for (uint32_t i = 0; i < s->nev; i++)
			if (s->ev[i]->reason[0])
				fputc(',', out);
			else
				fprintf(out, ",%" PRIu64, e->v[i]);
		fputc('\n', out);
	}
}

/* ---- JSON ------------------------------------------------------------- */

static void json_secs(FILE *out, const char *key, const struct sys *s, uint64_t ns, int known)
{
	if (known && ns >= s->run->start_ns)
		fprintf(out, "\"%s\": %.6f", key, sysdata_secs(s, ns));
	else
		fprintf(out, "\"%s\": null", key);
}

static void json_u64(FILE *out, uint64_t v)
{
	if (v == UINT64_MAX)
		fputs("null", out);
	else
		fprintf(out, "%" PRIu64, v);
}

/* {"event": value, ...}: null for an event that could not count. */
static void json_values(FILE *out, const struct sys *s, const uint64_t *v, uint32_t nv)
{
	fputc('{', out);
	for (uint32_t i = 0; i < s->nev; i++) {
		fputs(i ? ", " : "", out);
		json_string(out, s->ev[i]->name);
		fputs(": ", out);
		json_u64(out, s->ev[i]->reason[0] || i >= nv ? UINT64_MAX : v[i]);
	}
	fputc('}', out);
}

/* The entity's intervals (closed ones): [{"interval", "busy_ns", "values"}]. */
static void json_intervals(FILE *out, const struct sys *s, const struct sent *e)
{
	const char *sep = "";

	fputs(", \"intervals\": [", out);
	for (size_t k = e->first; k != SIZE_MAX; k = s->next[k]) {
		const struct rf_sys_values *v = s->val[k];

		if (v->interval >= s->niv)
			break;	/* not closed yet */
		fprintf(out, "%s\n      {\"interval\": %" PRIu32 ", \"busy_ns\": ", sep, v->interval);
		json_u64(out, v->busy_ns);
		fputs(", \"values\": ", out);
		json_values(out, s, v->v, v->nvalues);
		fputc('}', out);
		sep = ",";
	}
	fputs("]}", out);
}

/* A CPU: its totals, where it was offline ([{"from_s", "to_s"}], to_s
 * null: to the end) and its intervals. */
static void json_cpu(FILE *out, const struct sys *s, const struct sent *e)
{
	int open = 0, spans = 0;

	fprintf(out, "\n    {\"cpu\": %" PRIu64 ", \"busy_ns\": %" PRIu64 ", \"offline\": [", e->e->id,
		e->busy);
	for (size_t k = 0; k < s->ncpuev; k++) {
		const struct rf_sys_end *x = s->cpuev[k];

		if (s->ent[x->entity].e != e->e)
			continue;
		if (x->kind == RF_END_OFFLINE && !open) {
			fputs(spans++ ? ", {" : "{", out);
			json_secs(out, "from_s", s, x->at_ns, 1);
			open = 1;
		} else if (x->kind == RF_END_ONLINE && open) {
			fputs(", ", out);
			json_secs(out, "to_s", s, x->at_ns, 1);
			fputc('}', out);
			open = 0;
		}
	}
	fputs(open ? ", \"to_s\": null}], \"values\": " : "], \"values\": ", out);
	json_values(out, s, e->v, s->nev);
	json_intervals(out, s, e);
}

static void json_process(FILE *out, const struct sys *s, const struct sent *e)
{
	fprintf(out, "\n    {\"pid\": %" PRIu64 ", \"command\": ", e->e->id);
	json_string(out, e->e->command);
	fputs(", ", out);
	json_secs(out, "start_s", s, e->e->start_ns, 1);
	fputs(", ", out);
	json_secs(out, "end_s", s, e->end_ns, e->end_ns != 0);
	fprintf(out, ", \"started_before\": %s, \"cpu_ns\": %" PRIu64 ", \"values\": ",
		e->e->start_ns < s->run->start_ns ? "true" : "false", e->busy);
	json_values(out, s, e->v, s->nev);
	json_intervals(out, s, e);
}

static void json_head(FILE *out, const struct sys *s, const char *path)
{
	fputs("{\n  \"format\": \"pmcshim-system\",\n  \"version\": 1,\n  \"file\": ", out);
	json_string(out, path);
	fputs(",\n  \"host\": ", out);
	json_string(out, s->f.h->host);
	fprintf(out, ",\n  \"state\": \"%s\", \"interval_ms\": %" PRIu32 ", \"run_s\": %.6f, "
		"\"cpu_wide\": %s, \"own_only\": %s,\n  \"full\": %s, \"dropped\": %" PRIu64 ",\n"
		"  \"events\": [", rf_state(s->f.h) == RF_RUNNING ? "running" : "exited",
		s->run->interval_ms, (double)sysdata_run_ns(s) / 1e9,
		s->run->flags & RF_SYS_CPU_WIDE ? "true" : "false",
		s->run->flags & RF_SYS_OWN_ONLY ? "true" : "false",
		s->f.h->flags & RF_FULL ? "true" : "false", s->f.h->dropped[RF_DROP_FULL]);
	for (uint32_t i = 0; i < s->nev; i++) {
		fputs(i ? ", {\"name\": " : "{\"name\": ", out);
		json_string(out, s->ev[i]->name);
		if (s->ev[i]->reason[0]) {
			fputs(", \"reason\": ", out);
			json_string(out, s->ev[i]->reason);
		}
		fputc('}', out);
	}
	fputs("],\n  \"intervals\": [", out);
	for (uint32_t i = 0; i < s->niv; i++)
		fprintf(out, "%s\n    {\"interval\": %" PRIu32 ", \"start_s\": %.6f, \"end_s\": %.6f, "
			"\"cpus_online\": %" PRIu32 ", \"followed\": %" PRIu32 ", \"unfollowed\": %"
			PRIu32 "}", i ? "," : "", s->iv[i]->index, sysdata_secs(s, s->iv[i]->start_ns),
			sysdata_secs(s, s->iv[i]->end_ns), s->iv[i]->cpus_online, s->iv[i]->followed,
			s->iv[i]->unfollowed);
	fputs("],\n", out);
}

/* One document, shaped as --format json of a region report is: "format"
 * and "version" first, then the run, its events, its intervals, the CPUs
 * and the processes (heaviest first), each with its totals and its values
 * per interval (docs/reading.md, "The system view"). */
void system_json(FILE *out, const struct sys *s, const char *path, const struct sent **p,
		 size_t n, size_t top)
{
	const char *sep = "";

	json_head(out, s, path);
	fputs("  \"cpus\": [", out);
	for (uint32_t k = 0; k < s->nent; k++)
		if (s->ent[k].e->scope == RF_SCOPE_CPU) {
			fputs(sep, out);
			json_cpu(out, s, &s->ent[k]);
			sep = ",";
		}
	fputs("],\n  \"processes\": [", out);
	for (size_t k = 0; k < n && k < top; k++) {
		fputs(k ? "," : "", out);
		json_process(out, s, p[k]);
	}
	fputs("]\n}\n", out);
}

/* ---- the views --------------------------------------------------------- */

static int check_event(const struct sys *s, const char *event)
{
	if (event && strcmp(event, "cpu") && sysdata_event(s, event) < 0) {
		fprintf(stderr, PROG ": --event '%s': not an event of this system report\n", event);
		return -1;
	}
	return 0;
}

int system_view(FILE *out, const char *path, const struct system_view_opts *o)
{
	struct sys s = { 0 };
	const struct sent **p = NULL;
	size_t n, top = o->top ? o->top : o->format == SYS_TABLE ? 20 :
			o->format == SYS_HTML ? 10 : SIZE_MAX;
	int rc = 2;

	if (sysdata_load(&s, path) != 0 || check_event(&s, o->event) != 0)
		goto out;
	n = sysdata_processes(&s, &p, o->event);
	if (o->format == SYS_CSV) {
		csv_all(out, &s);
		if (o->intervals)
			interval_rows(out, &s, p, n, top, 1);
	} else if (o->format == SYS_JSON) {
		system_json(out, &s, path, p, n, top);
	} else if (o->format == SYS_HTML) {
		system_html(out, &s, path, p, n, top);
	} else {
		header_line(out, &s, path);
		cpu_table(out, &s);
		process_table(out, &s, p, n, top);
		if (o->intervals)
			interval_rows(out, &s, p, n, top, 0);
	}
	rc = 0;
out:
	free(p);
	sysdata_free(&s);
	return rc;
}

/* ---- --watch ----------------------------------------------------------- */

static uint64_t weight(const struct sys *s, int ev, const struct rf_sys_values *v)
{
	if (ev >= 0)
		return (uint32_t)ev < v->nvalues && !s->ev[ev]->reason[0] ? v->v[ev] : 0;
	return v->busy_ns == UINT64_MAX ? 0 : v->busy_ns;
}

static int ev_order;		/* the event ordering --watch's processes, -1: CPU time */
static const struct sys *ev_sys;
static int heavier_values(const void *a, const void *b)
{
	const struct rf_sys_values *x = *(const struct rf_sys_values *const *)a;
	const struct rf_sys_values *y = *(const struct rf_sys_values *const *)b;
	uint64_t wx = weight(ev_sys, ev_order, x), wy = weight(ev_sys, ev_order, y);

	return wx < wy ? 1 : wx > wy ? -1 : x->entity < y->entity ? -1 : 1;
}

static void watch_row(FILE *out, const struct sys *s, const struct rf_sys_interval *iv,
		      const struct rf_sys_values *v)
{
	const struct rf_sys_entity *e = s->ent[v->entity].e;

	fprintf(out, "%10.2f %-7s %7" PRIu64 " %-15.15s", sysdata_secs(s, iv->end_ns),
		e->scope == RF_SCOPE_CPU ? "cpu" : "process", e->id, e->command);
	if (v->busy_ns == UINT64_MAX)
		fprintf(out, " %7s", "-");
	else
		busy_pct(out, v->busy_ns, iv->end_ns - iv->start_ns);
	values(out, s, v->v);
}

/* Interval i's values (from *at on, in the file's order): each CPU, then
 * its heaviest top processes. */
static void watch_interval(FILE *out, const struct sys *s, uint32_t i, size_t *at, size_t top,
			   const struct rf_sys_values **proc)
{
	const struct rf_sys_interval *iv = s->iv[i];
	size_t np = 0;

	for (; *at < s->nval && s->val[*at]->interval <= iv->index; ++*at) {
		const struct rf_sys_values *v = s->val[*at];

		if (v->interval != iv->index)
			continue;
		if (s->ent[v->entity].e->scope == RF_SCOPE_CPU)
			watch_row(out, s, iv, v);
		else
			proc[np++] = v;
	}
	ev_sys = s;
	qsort(proc, np, sizeof(*proc), heavier_values);
	for (size_t k = 0; k < np && k < top; k++)
		watch_row(out, s, iv, proc[k]);
	for (size_t k = 0; k < s->ncpuev; k++)
		if (s->cpuev[k]->at_ns == iv->end_ns)
			fprintf(out, "# %.2f: CPU %" PRIu64 " %s\n", sysdata_secs(s, iv->end_ns),
				s->ent[s->cpuev[k]->entity].e->id,
				s->cpuev[k]->kind == RF_END_OFFLINE ? "went offline" : "came back online");
}

static void pause_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* One read of the file: the intervals closed since *done printed. 1 while
 * the launcher runs, 0 once over, -1 when the file cannot be read. */
static int watch_once(FILE *out, const char *path, const struct system_view_opts *o,
		      uint32_t *done)
{
	struct sys s = { 0 };
	const struct rf_sys_values **proc;
	size_t at = 0, top = o->top ? o->top : 5;
	int running;

	if (sysdata_load(&s, path) != 0 || check_event(&s, o->event) != 0) {
		sysdata_free(&s);
		return -1;
	}
	if (!*done) {
		fprintf(out, "# %s: pmcshim --system on %s, every %" PRIu32 " ms: each interval's "
			"CPUs and its %zu heaviest processes (busy: of the interval)\n#     time "
			"scope        id command            busy", path, s.f.h->host,
			s.run->interval_ms, top);
		event_heads(out, &s);
	}
	ev_order = o->event && strcmp(o->event, "cpu") ? sysdata_event(&s, o->event) : -1;
	if (!(proc = calloc(s.nval + 1, sizeof(*proc))))
		exit(2);
	for (uint32_t i = 0; i < s.niv; i++)
		if (i < *done)	/* printed: its values skipped */
			for (; at < s.nval && s.val[at]->interval <= s.iv[i]->index; at++)
				;
		else
			watch_interval(out, &s, i, &at, top, proc);
	*done = s.niv;
	free(proc);
	running = rf_state(s.f.h) == RF_RUNNING && rf_liveness(s.f.h) != RF_GONE;
	if (!running)
		fprintf(out, "# %s: the run %s after %u intervals\n", path, rf_state(s.f.h) ==
			RF_RUNNING ? "ended without its end (the launcher was killed)" : "ended",
			s.niv);
	fflush(out);
	sysdata_free(&s);
	return running;
}

int system_watch(FILE *out, const char *path, const struct system_view_opts *o)
{
	uint32_t done = 0;
	int rc;

	while ((rc = watch_once(out, path, o, &done)) > 0)
		pause_s(o->watch);
	return rc < 0 ? 2 : 0;
}

/* ---- diff ------------------------------------------------------------- */

/* A row of the comparison: a CPU, or a command (its processes summed). */
struct drow {
	int cpu;			/* a CPU row, else a command's */
	uint64_t id;
	const char *command;
	int in[2];
	uint64_t busy[2];
	uint64_t v[2][RF_EVENTS_MAX];
};

struct dside {
	struct sys s;
	int ev[2 * RF_EVENTS_MAX];	/* [event of the union]: this side's index, -1 */
};

static struct drow *row_for(struct drow **rows, size_t *n, int cpu, uint64_t id,
			    const char *command)
{
	for (size_t k = 0; k < *n; k++)
		if ((*rows)[k].cpu == cpu && (cpu ? (*rows)[k].id == id :
					      !strcmp((*rows)[k].command, command)))
			return &(*rows)[k];
	if (!(*n & (*n + 1)) || !*n) {
		struct drow *r = realloc(*rows, (2 * *n + 2) * sizeof(**rows));

		if (!r)
			exit(2);
		*rows = r;
	}
	memset(&(*rows)[*n], 0, sizeof(**rows));
	(*rows)[*n].cpu = cpu, (*rows)[*n].id = id, (*rows)[*n].command = command;
	return &(*rows)[(*n)++];
}

static int by_command(const void *a, const void *b)
{
	const struct sent *x = *(const struct sent *const *)a, *y = *(const struct sent *const *)b;

	return strcmp(x->e->command, y->e->command);
}

/* Side i's CPUs and commands into rows (its processes sorted by command:
 * one look-up per command, not per process). */
static void add_side(struct drow **rows, size_t *n, struct dside *d, int i, uint32_t nev)
{
	const struct sys *s = &d->s;
	const struct sent **p = calloc(s->nent + 1, sizeof(*p));
	size_t np = 0;
	struct drow *r = NULL;

	if (!p)
		exit(2);
	for (uint32_t k = 0; k < s->nent; k++)
		if (s->ent[k].e->scope == RF_SCOPE_CPU) {
			r = row_for(rows, n, 1, s->ent[k].e->id, "");
			r->in[i] = 1, r->busy[i] = s->ent[k].busy;
			for (uint32_t e = 0; e < nev; e++)
				r->v[i][e] = d->ev[e] >= 0 ? s->ent[k].v[d->ev[e]] : 0;
		} else {
			p[np++] = &s->ent[k];
		}
	qsort(p, np, sizeof(*p), by_command);
	for (size_t k = 0; k < np; k++) {
		if (!k || strcmp(p[k]->e->command, p[k - 1]->e->command))
			r = row_for(rows, n, 0, 0, p[k]->e->command);
		r->in[i] = 1;
		r->busy[i] += p[k]->busy;
		for (uint32_t e = 0; e < nev; e++)
			r->v[i][e] += d->ev[e] >= 0 ? p[k]->v[d->ev[e]] : 0;
	}
	free(p);
}

static int diff_weight_ev;
static int heavier_row(const void *a, const void *b)
{
	const struct drow *x = a, *y = b;
	uint64_t wx, wy;

	if (x->cpu != y->cpu)
		return x->cpu ? -1 : 1;
	if (x->cpu)
		return x->id < y->id ? -1 : 1;
	wx = diff_weight_ev >= 0 ? x->v[0][diff_weight_ev] + x->v[1][diff_weight_ev] :
	     x->busy[0] + x->busy[1];
	wy = diff_weight_ev >= 0 ? y->v[0][diff_weight_ev] + y->v[1][diff_weight_ev] :
	     y->busy[0] + y->busy[1];
	return wx < wy ? 1 : wx > wy ? -1 : strcmp(x->command, y->command);
}

/* One value pair: ok[i] says side i has it. */
static void diff_cell(FILE *out, enum system_format f, const struct drow *r, const char *event,
		      const int *ok, const uint64_t *v, int *first)
{
	double ratio = ok[0] && ok[1] && v[0] ? (double)v[1] / (double)v[0] : -1;
	char id[32];

	snprintf(id, sizeof(id), "%" PRIu64, r->id);
	if (f == SYS_JSON) {
		fprintf(out, "%s\n    {\"scope\": \"%s\", \"id\": ", *first ? "" : ",",
			r->cpu ? "cpu" : "command");
		json_string(out, r->cpu ? id : r->command);
		fputs(", \"event\": ", out);
		json_string(out, event);
		for (int i = 0; i < 2; i++) {
			fputs(i ? ", \"after\": " : ", \"before\": ", out);
			json_u64(out, ok[i] ? v[i] : UINT64_MAX);
		}
		if (ratio >= 0)
			fprintf(out, ", \"ratio\": %.6g}", ratio);
		else
			fputs(", \"ratio\": null}", out);
	} else if (f == SYS_CSV) {
		fprintf(out, "%s,", r->cpu ? "cpu" : "command");
		if (r->cpu)
			fputs(id, out);
		else
			csv_field(out, r->command);
		fprintf(out, ",%s", event);
		for (int i = 0; i < 2; i++)
			ok[i] ? fprintf(out, ",%" PRIu64, v[i]) : fputs(",", out);
		ratio >= 0 ? fprintf(out, ",%.4f\n", ratio) : fputs(",\n", out);
	} else {
		fprintf(out, "%-15.15s %-16.16s", r->cpu ? id : r->command, event);
		for (int i = 0; i < 2; i++)
			ok[i] ? fprintf(out, " %16" PRIu64, v[i]) : fprintf(out, " %16s", "-");
		ratio >= 0 ? fprintf(out, " %8.2fx\n", ratio) : fprintf(out, " %9s\n", "-");
	}
	*first = 0;
}

static void diff_row(FILE *out, enum system_format f, const struct drow *r, struct dside *d,
		     const char **names, uint32_t nev, int *first)
{
	int ok[2] = { r->in[0], r->in[1] };

	diff_cell(out, f, r, r->cpu ? "busy-ns" : "cpu-ns", ok, r->busy, first);
	for (uint32_t e = 0; e < nev; e++) {
		uint64_t v[2] = { r->v[0][e], r->v[1][e] };
		int have[2];

		for (int i = 0; i < 2; i++)
			have[i] = ok[i] && d[i].ev[e] >= 0 && !d[i].s.ev[d[i].ev[e]]->reason[0];
		diff_cell(out, f, r, names[e], have, v, first);
	}
}

/* The events of either side, in the first's order then the second's. */
static uint32_t event_union(struct dside *d, const char **names)
{
	uint32_t n = 0;

	for (int i = 0; i < 2; i++)
		for (uint32_t k = 0; k < d[i].s.nev; k++) {
			uint32_t e = 0;

			while (e < n && strcmp(names[e], d[i].s.ev[k]->name))
				e++;
			if (e == n) {
				names[n] = d[i].s.ev[k]->name;
				d[0].ev[n] = d[1].ev[n] = -1;
				n++;
			}
			d[i].ev[e] = (int)k;
		}
	return n;
}

static void diff_out(FILE *out, const struct system_view_opts *o, struct dside *d,
		     const char *const *path, struct drow *rows, size_t n, const char **names,
		     uint32_t nev)
{
	size_t top = o->top ? o->top : o->format == SYS_TABLE ? 20 : SIZE_MAX, shown = 0;
	int first = 1;

	if (o->format == SYS_JSON) {
		fputs("{\n  \"format\": \"pmcshim-system-diff\",\n  \"version\": 1,\n  \"before\": ", out);
		json_string(out, path[0]);
		fputs(",\n  \"after\": ", out);
		json_string(out, path[1]);
		fputs(",\n  \"rows\": [", out);
	} else if (o->format == SYS_CSV) {
		fputs("scope,id,event,before,after,ratio\n", out);
	} else {
		for (int i = 0; i < 2; i++)
			fprintf(out, "# %s %s: %u intervals of %u ms (%.2f s) on %s\n", i ? "after: " :
				"before:", path[i], d[i].s.niv, d[i].s.run->interval_ms,
				(double)sysdata_run_ns(&d[i].s) / 1e9, d[i].s.f.h->host);
	}
	for (size_t k = 0; k < n; k++) {
		if (!rows[k].cpu && shown++ >= top)
			break;
		if (o->format == SYS_TABLE && (k == 0 || rows[k].cpu != rows[k - 1].cpu))
			fprintf(out, "\n## per %s: each event before and after, and after / before\n"
				"%-15s %-16s %16s %16s %9s\n", rows[k].cpu ? "CPU" : "command (its "
				"processes together, heaviest first)", rows[k].cpu ? "cpu" : "command",
				"event", "before", "after", "ratio");
		diff_row(out, o->format, &rows[k], d, names, nev, &first);
	}
	if (o->format == SYS_JSON)
		fputs("]\n}\n", out);
}

int system_diff(FILE *out, const char *before, const char *after,
		const struct system_view_opts *o)
{
	static struct dside d[2];
	const char *path[2] = { before, after }, *names[2 * RF_EVENTS_MAX];
	struct drow *rows = NULL;
	size_t n = 0;
	uint32_t nev;
	int rc = 2;

	memset(d, 0, sizeof(d));
	for (int i = 0; i < 2; i++)
		if (sysdata_load(&d[i].s, path[i]) != 0)
			goto out;
	nev = event_union(d, names);
	diff_weight_ev = -1;
	for (uint32_t e = 0; o->event && strcmp(o->event, "cpu") && e < nev; e++)
		if (!strcmp(names[e], o->event))
			diff_weight_ev = (int)e;
	if (o->event && strcmp(o->event, "cpu") && diff_weight_ev < 0) {
		fprintf(stderr, PROG ": --event '%s': not an event of these system reports\n",
			o->event);
		goto out;
	}
	for (int i = 0; i < 2; i++)
		add_side(&rows, &n, &d[i], i, nev);
	qsort(rows, n, sizeof(*rows), heavier_row);
	diff_out(out, o, d, path, rows, n, names, nev);
	rc = 0;
out:
	free(rows);
	for (int i = 0; i < 2; i++)
		sysdata_free(&d[i].s);
	return rc;
}
