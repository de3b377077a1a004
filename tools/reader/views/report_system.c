/* The system view: a report of pmcshim --system (RF_SYSTEM), read
 * by report_sysdata.c: a table per CPU, the heaviest processes, and with --intervals a row per
 * interval; --format csv gives the same rows as scope,id,command,interval
 * and one column per event. Read while the launcher writes it, it shows
 * the intervals closed so far. */
#include "report_system.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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

static int shown(const struct sent *const *p, size_t n, size_t top, uint32_t entity)
{
	for (size_t k = 0; k < n && k < top; k++)
		if (p[k]->e->index == entity)
			return 1;
	return 0;
}

/* The values records of interval i, CPUs and the shown processes. */
static void interval_rows(FILE *out, const struct sys *s, const struct sent **p, size_t n,
			  size_t top, int csv)
{
	size_t at = 0;

	if (!csv) {
		fputs("\n## per interval (start: s into the run)\n    start scope      id", out);
		event_heads(out, s);
	}
	for (uint32_t i = 0; i < s->niv; i++) {
		for (; at < s->nval && s->val[at]->interval <= s->iv[i]->index; at++) {
			const struct rf_sys_values *v = s->val[at];
			const struct rf_sys_entity *e = s->ent[v->entity].e;

			if (v->interval != s->iv[i]->index ||
			    (e->scope == RF_SCOPE_PROCESS && !shown(p, n, top, e->index)))
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

int system_view(FILE *out, const char *path, const struct system_view_opts *o)
{
	struct sys s = { 0 };
	const struct sent **p = NULL;
	size_t n, top = o->top ? o->top : (o->csv ? SIZE_MAX : 20);
	int rc = 2;

	if (sysdata_load(&s, path) != 0)
		goto out;
	if (o->event && strcmp(o->event, "cpu") && sysdata_event(&s, o->event) < 0) {
		fprintf(stderr, PROG ": --event '%s': not an event of this system report\n", o->event);
		goto out;
	}
	n = sysdata_processes(&s, &p, o->event);
	if (o->csv) {
		csv_all(out, &s);
		if (o->intervals)
			interval_rows(out, &s, p, n, top, 1);
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
