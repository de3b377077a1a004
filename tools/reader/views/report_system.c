/* The system view: a report of pmcshim --system (RF_SYSTEM), read
 * straight from its records (docs/report-format.md, "System reports"):
 * a table per CPU, the heaviest processes, and with --intervals a row per
 * interval; --format csv gives the same rows as scope,id,command,interval
 * and one column per event. Read while the launcher writes it, it shows
 * the intervals closed so far. */
#include "report_system.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/reportfile.h"

#define PROG "pmcshim-report"

struct sent {
	const struct rf_sys_entity *e;
	uint64_t v[RF_EVENTS_MAX];	/* totals over the run */
	uint64_t busy;			/* ns of busy or CPU time */
	uint64_t end_ns;		/* a process's end, 0: still running */
	int offline;			/* a CPU: offline at the end */
};

struct sys {
	struct rf_file f;
	const struct rf_sys_run *run;
	const struct rf_event *ev[RF_EVENTS_MAX];
	uint32_t nev;
	struct sent *ent;
	uint32_t nent;
	const struct rf_sys_interval **iv;
	uint32_t niv;
	const struct rf_sys_values **val;	/* for --intervals */
	size_t nval;
};

static void *grow(void *p, size_t n, size_t size)
{
	/* powers of two: one realloc at each doubling */
	if (n & (n - 1))
		return p;
	p = realloc(p, (n ? 2 * n : 1) * size);
	if (!p) {
		fputs(PROG ": out of memory\n", stderr);
		exit(2);
	}
	return p;
}

static int take_entity(struct sys *s, const struct rf_sys_entity *e)
{
	if (e->index != s->nent)
		return -1;	/* entities come in order */
	s->ent = grow(s->ent, s->nent, sizeof(*s->ent));
	memset(&s->ent[s->nent], 0, sizeof(s->ent[0]));
	s->ent[s->nent++].e = e;
	return 0;
}

static int take_values(struct sys *s, const struct rf_sys_values *v)
{
	struct sent *e;

	if (v->entity >= s->nent || v->nvalues > RF_EVENTS_MAX ||
	    v->r.size < sizeof(*v) + v->nvalues * sizeof(v->v[0]))
		return -1;
	e = &s->ent[v->entity];
	for (uint32_t i = 0; i < v->nvalues && i < s->nev; i++)
		e->v[i] += v->v[i];
	if (v->busy_ns != UINT64_MAX)
		e->busy += v->busy_ns;
	s->val = grow(s->val, s->nval, sizeof(*s->val));
	s->val[s->nval++] = v;
	return 0;
}

static int take_end(struct sys *s, const struct rf_sys_end *x)
{
	if (x->entity >= s->nent)
		return -1;
	if (x->kind == RF_END_EXITED)
		s->ent[x->entity].end_ns = x->at_ns;
	else
		s->ent[x->entity].offline = x->kind == RF_END_OFFLINE;
	return 0;
}

static int take(struct sys *s, const struct rf_record *r)
{
	switch (r->type) {
	case RF_EVENT: {
		const struct rf_event *e = (const void *)r;

		if (e->index < RF_EVENTS_MAX && e->index == s->nev)
			s->ev[s->nev++] = e;
		return 0;
	}
	case RF_SYS_RUN: s->run = (const void *)r; return 0;
	case RF_SYS_ENTITY: return take_entity(s, (const void *)r);
	case RF_SYS_VALUES: return take_values(s, (const void *)r);
	case RF_SYS_END: return take_end(s, (const void *)r);
	case RF_SYS_INTERVAL:
		s->iv = grow(s->iv, s->niv, sizeof(*s->iv));
		s->iv[s->niv++] = (const void *)r;
		return 0;
	default: return 0;
	}
}

/* The header's magic and flags, read() from the file's start: the
 * loader's own reads (pread, the mapping) come after, as without this
 * look. */
int system_is_report(const char *path)
{
	struct rf_header h;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), yes;
	struct stat st;

	if (fd < 0)
		return 0;
	yes = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	      read(fd, &h, sizeof(h)) == (ssize_t)sizeof(h) &&
	      !memcmp(h.magic, RF_MAGIC, sizeof(h.magic)) && (h.flags & RF_SYSTEM);
	close(fd);
	return yes;
}

static int load(struct sys *s, const char *path)
{
	const struct rf_record *r;
	uint64_t off = 0;
	char why[256];
	int bad = 0;

	if (rf_open(path, &s->f, why, sizeof(why)) != 0) {
		fprintf(stderr, PROG ": %s: %s\n", path, why);
		return -1;
	}
	while ((r = rf_next(&s->f, &off, &bad)))
		if (take(s, r) != 0) {
			bad = 1;
			break;
		}
	if (bad || !s->run) {
		fprintf(stderr, PROG ": %s: %s\n", path, bad ? "a malformed system record" :
			"a system report without its run record");
		return -1;
	}
	return 0;
}

static double secs(const struct sys *s, uint64_t ns)
{
	return ((double)ns - (double)s->run->start_ns) / 1e9;
}

/* The run's length: the last closed interval's end. */
static uint64_t run_ns(const struct sys *s)
{
	return s->niv ? s->iv[s->niv - 1]->end_ns - s->run->start_ns : 0;
}

static int event_index(const struct sys *s, const char *name)
{
	for (uint32_t i = 0; name && i < s->nev; i++)
		if (!strcmp(s->ev[i]->name, name))
			return (int)i;
	return -1;
}

/* The processes' order: --event's total, else their CPU time. */
static int by_weight;
static int heavier(const void *a, const void *b)
{
	const struct sent *x = *(const struct sent *const *)a, *y = *(const struct sent *const *)b;
	uint64_t wx = by_weight >= 0 ? x->v[by_weight] : x->busy;
	uint64_t wy = by_weight >= 0 ? y->v[by_weight] : y->busy;

	return wx < wy ? 1 : wx > wy ? -1 : x->e->index < y->e->index ? -1 : 1;
}

static void header_line(FILE *out, const struct sys *s, const char *path)
{
	fprintf(out, "# %s: pmcshim --system on %s, %u interval%s of %u ms (%.2f s)%s%s\n", path,
		s->f.h->host, s->niv, s->niv == 1 ? "" : "s", s->run->interval_ms,
		(double)run_ns(s) / 1e9, rf_state(s->f.h) == RF_RUNNING ? ", still running" : "",
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
		busy_pct(out, e->busy, run_ns(s));
		values(out, s, e->v);
	}
}

static void when(FILE *out, const struct sys *s, uint64_t ns, int end)
{
	if (end && !ns)
		fprintf(out, " %8s", "-");
	else if (ns < s->run->start_ns)
		fprintf(out, " %8s", "before");
	else
		fprintf(out, " %8.2f", secs(s, ns));
}

static size_t sorted_processes(const struct sys *s, const struct sent ***out, const char *event)
{
	const struct sent **p = calloc(s->nent + 1, sizeof(*p));
	size_t n = 0;

	if (!p)
		exit(2);
	for (uint32_t k = 0; k < s->nent; k++)
		if (s->ent[k].e->scope == RF_SCOPE_PROCESS)
			p[n++] = &s->ent[k];
	by_weight = event_index(s, event);
	qsort(p, n, sizeof(*p), heavier);
	*out = p;
	return n;
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
		busy_pct(out, p[k]->busy, run_ns(s));
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
				fprintf(out, ",%.3f", secs(s, s->iv[i]->start_ns));
				for (uint32_t k = 0; k < s->nev; k++)
					fprintf(out, ",%" PRIu64, k < v->nvalues ? v->v[k] : 0);
				fputc('\n', out);
				continue;
			}
			fprintf(out, "%9.2f %-7s %7" PRIu64, secs(s, s->iv[i]->start_ns),
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

	if (load(&s, path) != 0)
		goto out;
	if (o->event && strcmp(o->event, "cpu") && event_index(&s, o->event) < 0) {
		fprintf(stderr, PROG ": --event '%s': not an event of this system report\n", o->event);
		goto out;
	}
	n = sorted_processes(&s, &p, o->event);
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
	free(s.ent);
	free(s.iv);
	free(s.val);
	if (s.f.base)
		rf_close(&s.f);
	return rc;
}
