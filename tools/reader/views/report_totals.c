/* Totals per process and over the run, from the threads' own totals, and
 * their table: perf stat's block for the run (same units, thousands
 * separators, derived notes, "(xx.xx%)" where multiplexed), then one row
 * per process, the lightest folded into one row past PROCESS_ROWS. */
#include "report_totals.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reader/cells/report_cells.h"
#include "reader/cells/report_escape.h"
#include "reader/cells/report_text.h"
#include "report_commands.h"
#include "report_render.h"

/* Past this many processes the list shows the heaviest (by CPU time) and
 * one row for the rest; --by-process shows them all. */
#define PROCESS_ROWS 10

/* One event summed over threads. Each thread with the event open adds its
 * value (the scaled estimate where multiplexed, unless raw) and its
 * enabled and running times; have counts the threads with a value, lack
 * those without one (no totals yet, lost, never on a counter), absent
 * those where the event is not open at all (unavailable). */
struct tval {
	uint64_t value, enabled, running;
	uint32_t have, lack, absent;
	uint32_t not_counted;		/* of lack: open, never on a counter */
	uint32_t last;			/* of have: a killed process's last published counts */
	bool mux;			/* some value counted only part of its time */
};

/* A process, or the run (all processes). A process that exec'd has a
 * report per program it ran: nreports counts those, nproc and nthreads
 * the processes and threads (by pid and tid on each host) as perf stat
 * would. */
struct ptotal {
	size_t nreports, nproc, nthreads;
	uint64_t wall_ns;		/* the run: first start to last end */
	bool has_wall;
	uint64_t cpu_ns;		/* threads' CPU time (user + system) */
	uint32_t cpu_have, cpu_lack;
	/* CPU time the threads ran before the shim began with them (exec,
	 * loading), from their CPU clocks; added to time events' values and
	 * to cpu_ns, as perf stat counts from exec. before_have: threads that
	 * tell it. */
	uint64_t before_ns;
	uint32_t before_have;
	/* The same for page faults, from getrusage as each thread's counters
	 * opened; added to the page-faults totals. faults_have: threads that
	 * tell it. */
	uint64_t before_faults;
	uint32_t faults_have;
	/* In wall_ns: how long the processes ran before the shim began (its
	 * exec, the loader; rf_header.before_wall_ns) */
	uint64_t before_wall_ns;
	struct tval *ev;		/* [m->nev], the model's events */
	/* the run: event e counted by the launchers (rf_job) for the whole
	 * command, not summed over the threads; job_cpu: CPU and wall from
	 * the launchers' waits */
	bool *from_job, job_cpu;
};

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	uint64_t c;

	return __builtin_add_overflow(a, b, &c) ? UINT64_MAX : c;
}

/* Thread total t of report r into v. */
static void tval_add(struct tval *v, const struct report *r, const struct rep_total *t)
{
	if (!strcmp(t->status, "unavailable")) {
		v->absent++;
		return;
	}
	if (t->has_times) {
		v->enabled = sat_add(v->enabled, t->enabled);
		v->running = sat_add(v->running, t->running);
	}
	if (!t->has_value) {
		v->lack++;
		v->not_counted += !strcmp(t->status, "not counted");
		return;
	}
	v->mux |= t->has_scaled;
	v->last += !strcmp(t->status, "last update");
	v->value = sat_add(v->value, t->has_scaled && !r->raw ? t->scaled : t->value);
	v->have++;
}

static const struct rep_thread *main_thread(const struct report *r)
{
	for (size_t i = 0; i < r->nthreads; i++)
		if (r->threads[i].main)
			return &r->threads[i];
	return NULL;
}

/* The image before file f's (same process, exec'd into it), or NULL. */
static const struct report *image_before(const struct model *m, size_t f)
{
	const struct report *r = m->files[f], *prev = NULL;

	for (size_t g = 0; g < m->nfiles; g++) {
		const struct report *q = m->files[g];

		if (g != f && q->pid == r->pid && q->state == RF_EXECED &&
		    !strcmp(q->host, r->host) && q->start_ns <= r->start_ns &&
		    (!prev || q->start_ns > prev->start_ns))
			prev = q;
	}
	return prev;
}

/* What thread t ran before the shim began with it: CPU time and page
 * faults. A main thread's clock and fault count run on across exec: from
 * where the image before this one left them (its main thread's end). */
static void add_before(const struct model *m, size_t f, const struct rep_thread *t,
		       struct ptotal *p)
{
	const struct report *prev = t->main ? image_before(m, f) : NULL;
	const struct rep_thread *pt = prev ? main_thread(prev) : NULL;
	uint64_t from = pt && pt->has_begin && pt->has_cpu ? sat_add(pt->setup_cpu_ns, pt->cpu_ns) : 0;
	uint64_t ffrom = pt && pt->has_end_faults ? pt->end_faults : 0;

	if (t->has_begin) {
		p->before_ns = sat_add(p->before_ns,
				       t->begin_cpu_ns > from ? t->begin_cpu_ns - from : 0);
		p->before_have++;
	}
	if (t->has_faults) {
		p->before_faults = sat_add(p->before_faults,
					   t->begin_faults > ffrom ? t->begin_faults - ffrom : 0);
		p->faults_have++;
	}
}

/* How long file f's process ran before its shim began: since its start,
 * or since the image before it ended (an exec). */
static uint64_t wall_before(const struct model *m, size_t f)
{
	const struct report *r = m->files[f], *prev = image_before(m, f);
	uint64_t w = r->before_wall_ns;

	if (prev && prev->has_end && r->start_ns >= prev->end_ns && r->start_ns - prev->end_ns < w)
		w = r->start_ns - prev->end_ns;
	return w;
}

static void add_file(const struct model *m, size_t f, struct ptotal *p)
{
	const struct report *r = m->files[f];

	p->nreports++;
	p->nproc = 1;
	p->nthreads += r->nthreads;
	for (size_t i = 0; i < r->nthreads; i++) {
		const struct rep_thread *t = &r->threads[i];

		if (t->has_cpu)
			p->cpu_ns = sat_add(p->cpu_ns, t->cpu_ns), p->cpu_have++;
		else
			p->cpu_lack++;
		add_before(m, f, t, p);
		for (size_t e = 0; e < m->nev; e++) {
			int k = m->evmap[f * m->nev + e];

			if (k < 0)
				p->ev[e].absent++;
			else
				tval_add(&p->ev[e], r, &t->totals[k]);
		}
	}
}

/* File f's wall time, from its process's start (as its CPU time). */
static void file_wall(const struct model *m, size_t f, struct ptotal *p)
{
	const struct report *r = m->files[f];

	p->has_wall = r->has_wall;
	p->before_wall_ns = r->has_wall ? wall_before(m, f) : 0;
	p->wall_ns = r->has_wall ? sat_add(r->wall_ns, p->before_wall_ns) : 0;
}

/* The run's wall time: from the first process's start to the last one's
 * end (real time: processes of one run share the clock); one process: its
 * own, on the monotonic clock. */
static void run_wall(const struct model *m, struct ptotal *p)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	if (m->nfiles == 1) {
		file_wall(m, 0, p);
		return;
	}
	for (size_t f = 0; f < m->nfiles; f++) {
		const struct report *r = m->files[f];
		uint64_t w = wall_before(m, f), from = r->start_ns > w ? r->start_ns - w : 0;

		if (!r->has_end)
			return;
		p->before_wall_ns = sat_add(p->before_wall_ns, w);	/* (not shown: overlaps) */
		lo = from < lo ? from : lo;
		hi = r->end_ns > hi ? r->end_ns : hi;
	}
	p->has_wall = m->nfiles && hi >= lo;
	p->wall_ns = p->has_wall ? hi - lo : 0;
}

struct id {
	const char *host;
	uint64_t id;
};

static int cmp_id(const void *a, const void *b)
{
	const struct id *x = a, *y = b;
	int c = strcmp(x->host, y->host);

	return c ? c : x->id < y->id ? -1 : x->id > y->id;
}

static size_t distinct(struct id *ids, size_t n)
{
	size_t k = n > 0;

	qsort(ids, n, sizeof(*ids), cmp_id);
	for (size_t i = 1; i < n; i++)
		k += cmp_id(&ids[i - 1], &ids[i]) != 0;
	return k;
}

/* The run's processes and threads: an exec'd report and the one after it
 * are one process, their main threads one thread. */
static void count_distinct(const struct model *m, struct ptotal *p)
{
	struct id *ids = xcalloc(p->nthreads + m->nfiles + 1, sizeof(*ids));
	size_t n = 0;

	for (size_t f = 0; f < m->nfiles; f++)
		ids[n++] = (struct id){ m->files[f]->host, m->files[f]->pid };
	p->nproc = distinct(ids, n);
	n = 0;
	for (size_t f = 0; f < m->nfiles; f++)
		for (size_t i = 0; i < m->files[f]->nthreads; i++)
			ids[n++] = (struct id){ m->files[f]->host, m->files[f]->threads[i].tid };
	p->nthreads = distinct(ids, n);
	free(ids);
}

/* Event name in job j, counted; NULL when it is not. */
static const struct rf_job_event *job_event(const struct rf_job *j, const char *name)
{
	for (uint32_t k = 0; k < j->nevents; k++)
		if (!strcmp(j->ev[k].name, name))
			return j->ev[k].status == RF_JOB_COUNTED ? &j->ev[k] : NULL;
	return NULL;
}

/* The launchers counted the whole command, from its exec to the end of
 * every process, however it ended: their values replace the threads' sum
 * for each event every launcher counted; their waits give CPU and wall. */
static void take_jobs(const struct model *m, struct ptotal *p)
{
	uint64_t lo = UINT64_MAX, hi = 0, cpu = 0;

	if (!m->njobs)
		return;
	for (size_t e = 0; e < m->nev; e++) {
		struct tval v = { 0 };

		for (size_t j = 0; j < m->njobs; j++) {
			const struct rf_job_event *x = job_event(&m->jobs[j], m->ev[e]);

			if (!x)
				break;
			v.value = sat_add(v.value, x->running < x->enabled && x->running && !m->o->raw ?
				  rep_scale(x->value, x->enabled, x->running) : x->value);
			v.enabled = sat_add(v.enabled, x->enabled);
			v.running = sat_add(v.running, x->running);
			v.mux |= x->running < x->enabled;
			v.have++;
		}
		if (v.have == m->njobs && v.running)
			p->ev[e] = v, p->from_job[e] = true;
	}
	for (size_t j = 0; j < m->njobs; j++) {
		const struct rf_job *x = &m->jobs[j];

		lo = x->start_real_ns < lo ? x->start_real_ns : lo;
		hi = x->end_real_ns > hi ? x->end_real_ns : hi;
		cpu = sat_add(cpu, x->cpu_ns);
	}
	p->job_cpu = true;
	p->cpu_ns = cpu, p->cpu_have = 1, p->cpu_lack = 0;
	p->has_wall = hi >= lo;
	p->wall_ns = m->njobs == 1 ? m->jobs[0].wall_ns : p->has_wall ? hi - lo : 0;
}

/* Process f's totals, or the run's (f = SIZE_MAX); ptotal_free frees them. */
static void ptotal_of(const struct model *m, size_t f, struct ptotal *out)
{
	memset(out, 0, sizeof(*out));
	out->ev = xcalloc(m->nev + 1, sizeof(*out->ev));
	out->from_job = xcalloc(m->nev + 1, sizeof(*out->from_job));
	if (f != SIZE_MAX) {
		add_file(m, f, out);
		file_wall(m, f, out);
	} else {
		for (size_t i = 0; i < m->nfiles; i++)
			add_file(m, i, out);
		run_wall(m, out);
		count_distinct(m, out);
	}
	/* perf stat counts from exec: so do the totals of time and faults */
	for (size_t e = 0; e < m->nev; e++) {
		if (event_is_time(m->ev[e]) && out->ev[e].have)
			out->ev[e].value = sat_add(out->ev[e].value, out->before_ns);
		if (event_is_faults(m->ev[e]) && out->ev[e].have)
			out->ev[e].value = sat_add(out->ev[e].value, out->before_faults);
	}
	if (out->cpu_have)
		out->cpu_ns = sat_add(out->cpu_ns, out->before_ns);
	if (f == SIZE_MAX)
		take_jobs(m, out);
}

static void ptotal_free(struct ptotal *p)
{
	free(p->ev);
	free(p->from_job);
	p->ev = NULL;
	p->from_job = NULL;
}

void totals_values(const struct model *m, size_t f, struct total_values *out)
{
	struct ptotal p;

	ptotal_of(m, f, &p);
	memset(out, 0, sizeof(*out));
	out->nproc = p.nproc, out->nreports = p.nreports, out->nthreads = p.nthreads;
	out->has_wall = p.has_wall, out->wall_ns = p.wall_ns;
	out->has_cpu = p.cpu_have > 0, out->cpu_ns = p.cpu_ns;
	out->value = xcalloc(m->nev + 1, sizeof(*out->value));
	out->have = xcalloc(m->nev + 1, sizeof(*out->have));
	for (size_t e = 0; e < m->nev; e++)
		out->value[e] = p.ev[e].value, out->have[e] = p.ev[e].have > 0;
	ptotal_free(&p);
}

void totals_values_free(struct total_values *v)
{
	free(v->value), free(v->have);
	v->value = NULL, v->have = NULL;
}

/* running / enabled summed (1: always counting); false without times. */
static bool tval_coverage(const struct tval *v, double *out)
{
	if (!v->enabled)
		return false;
	*out = v->running >= v->enabled ? 1 : (double)v->running / (double)v->enabled;
	return true;
}

/* Why there is no value: "not supported" (no thread could open it), "not
 * counted" (open, never on a counter), else "n/a" (no totals: a thread
 * still running or ended without a word). */
static const char *tval_missing(const struct tval *v)
{
	if (!v->have && !v->lack)
		return "not supported";
	return v->not_counted == v->lack ? "not counted" : "n/a";
}

static const char *state_word(const struct report *r)
{
	switch (r->state) {
	case RF_EXITED: return "exited";
	case RF_EXECED: return "exec'd";
	case RF_QUICK_EXIT: return "_exit";
	default: return r->live ? "running" : "ended without exit";
	}
}

const char *totals_states(const struct model *m, char *b, size_t len)
{
	static const uint32_t order[] = { RF_EXITED, RF_EXECED, RF_QUICK_EXIT, RF_RUNNING };
	size_t used = 0;

	b[0] = '\0';
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		/* running splits in two: still running, or ended without a word */
		for (int live = 0; live < 1 + (order[k] == RF_RUNNING); live++) {
			const char *word = NULL;
			size_t n = 0;

			for (size_t f = 0; f < m->nfiles; f++) {
				const struct report *r = m->files[f];

				if (r->state == order[k] && (order[k] != RF_RUNNING || r->live == live))
					n++, word = state_word(r);
			}
			if (n && used < len)
				used += (size_t)snprintf(b + used, len - used, "%s%zu %s",
							 used ? ", " : "", n, word);
		}
	}
	return b;
}

/* ---- the run's block, as perf stat prints it ------------------------------ */

/* v with thousands separators and, for a time in ns, as msec with two
 * decimals ("1,393.94"). b: at least 40 bytes. */
static const char *perf_num(char *b, uint64_t v, bool time)
{
	char d[32];

	fmt_num(d, time ? v / 1000000 : v, H_EXACT);
	if (time)
		snprintf(b, 40, "%s.%02" PRIu64, d, v / 10000 % 100);
	else
		snprintf(b, 40, "%s", d);
	return b;
}

static bool name_is(const char *name, const char *want)
{
	size_t n = strcspn(name, ":");

	return strlen(want) == n && !strncmp(name, want, n);
}

/* The model's event named want (modifiers aside) with a value, or -1. */
static int find_event(const struct model *m, const struct ptotal *p, const char *want)
{
	for (size_t e = 0; e < m->nev; e++)
		if (name_is(m->ev[e], want) && p->ev[e].have)
			return (int)e;
	return -1;
}

/* perf's rate: "293.414 /sec", "23.395 K/sec". */
static void rate_note(char *b, size_t len, double per_sec)
{
	static const char *const unit[] = { "", "K", "M", "G" };
	size_t u = 0;

	for (; u < 3 && per_sec >= 1000; u++)
		per_sec /= 1000;
	snprintf(b, len, "%8.3f %s/sec", per_sec, unit[u]);
}

/* The derived note of event e, as perf stat gives it; "" when none. */
static void derived_note(char *b, size_t len, const struct model *m, const struct ptotal *p,
			 size_t e)
{
	int tc = find_event(m, p, "task-clock"), cyc = find_event(m, p, "cycles");
	double v = (double)p->ev[e].value, secs;

	b[0] = '\0';
	if (cyc < 0)
		cyc = find_event(m, p, "cpu-cycles");
	if (tc < 0)
		tc = find_event(m, p, "cpu-clock");
	secs = tc >= 0 ? (double)p->ev[tc].value / 1e9 : (double)p->cpu_ns / 1e9;
	if (event_is_time(m->ev[e])) {
		if (p->has_wall && p->wall_ns)
			snprintf(b, len, "%8.3f CPUs utilized", v / (double)p->wall_ns);
	} else if (name_is(m->ev[e], "instructions") && cyc >= 0 && p->ev[cyc].value) {
		snprintf(b, len, "%8.2f insn per cycle", v / (double)p->ev[cyc].value);
	} else if ((int)e == cyc && secs > 0) {
		snprintf(b, len, "%8.3f GHz", v / secs / 1e9);
	} else if (secs > 0) {
		rate_note(b, len, v / secs);
	}
}

struct marks {
	bool partial, mux, missing, last;
};

static void event_line(FILE *out, const struct model *m, const struct ptotal *p, size_t e,
		       int namew, struct marks *mk)
{
	const struct tval *v = &p->ev[e];
	bool time = event_is_time(m->ev[e]), partial = v->have && (v->lack || v->absent);
	char num[48], note[64], cov[32] = "";
	double c;

	if (!v->have) {
		snprintf(num, sizeof(num), "<%s>", tval_missing(v));
		fprintf(out, "%18s      %s\n", num, m->ev[e]);
		mk->missing |= !strcmp(tval_missing(v), "n/a");
		return;
	}
	perf_num(num, v->value, time);
	if (partial)
		strcat(num, "+");
	if (v->last)
		strcat(num, "~");
	mk->last |= v->last != 0;
	derived_note(note, sizeof(note), m, p, e);
	if (v->mux && tval_coverage(v, &c) && c < 1)
		snprintf(cov, sizeof(cov), "  (%.2f%%)", 100 * c);
	mk->partial |= partial, mk->mux |= *cov != '\0';
	fprintf(out, "%18s %-4s %-*s%s%s%s\n", num, time ? "msec" : "", namew, m->ev[e],
		*note ? "  # " : "", note, cov);
}

static void run_heading(FILE *out, const struct model *m, const struct ptotal *p)
{
	char b[200];

	if (m->nfiles == 1) {
		const struct report *r = m->files[0];

		fprintf(out, "\n## totals: ");
		char *e = escape_name(r->executable, NAME_COLUMN_MAX);
		fprintf(out, "%s (pid %" PRIu64 ", %s), %zu thread%s\n", e, r->pid, state_word(r),
			p->nthreads, p->nthreads == 1 ? "" : "s");
		free(e);
		return;
	}
	fprintf(out, "\n## totals: %zu process%s (", p->nproc, p->nproc == 1 ? "" : "es");
	if (p->nreports != p->nproc)
		fprintf(out, "%zu reports: ", p->nreports);
	fprintf(out, "%s), %zu thread%s\n", totals_states(m, b, sizeof(b)), p->nthreads,
		p->nthreads == 1 ? "" : "s");
}

static bool any_killed(const struct model *m)
{
	for (size_t f = 0; f < m->nfiles; f++)
		if (m->files[f]->state == RF_RUNNING && !m->files[f]->live)
			return true;
	return false;
}

/* The names of the events counted by the launchers (job), or else by the
 * shim from exec (from_exec: time and page faults, what ran before the
 * shim added) or from each thread's setup: "a, b". */
static void names_from(char *b, size_t len, const struct model *m, const struct ptotal *p,
		       bool job, bool from_exec)
{
	size_t used = 0;

	b[0] = '\0';
	for (size_t e = 0; e < m->nev && used < len; e++) {
		bool ex = event_is_time(m->ev[e]) || event_is_faults(m->ev[e]);

		if (p->from_job[e] == job && p->ev[e].have && (job || ex == from_exec))
			used += (size_t)snprintf(b + used, len - used, "%s%s", used ? ", " : "",
						 m->ev[e]);
	}
}

/* A page-faults total summed over the threads (not the launchers'). */
static bool shim_faults(const struct model *m, const struct ptotal *p)
{
	for (size_t e = 0; e < m->nev; e++)
		if (event_is_faults(m->ev[e]) && p->ev[e].have && !p->from_job[e])
			return true;
	return false;
}

/* Where each total comes from, and from when (perf stat counts from the
 * exec). */
static void source_notes(FILE *out, const struct model *m, const struct ptotal *p)
{
	char names[400];

	names_from(names, sizeof(names), m, p, true, true);
	if (*names)
		fprintf(out, "from exec, by the launcher: %s (its counters on the whole command, "
			"inherited by every thread and process, read when it ended, however it "
			"ended)\n", names);
	if (p->job_cpu)
		fprintf(out, "from exec, by the launcher: CPU and wall (its wait for the command)\n");
	names_from(names, sizeof(names), m, p, false, true);
	if (*names || !p->job_cpu) {
		fprintf(out, "from exec, by the shim: %s%s%seach thread's count from its setup, "
			"plus what ran before (exec, loading):", names, *names ? ", " : "",
			p->job_cpu ? "" : "CPU and wall: ");
		if (p->before_have)
			fprintf(out, " CPU time %.2f msec (the threads' CPU clocks)",
				(double)p->before_ns / 1e6);
		if (p->faults_have && shim_faults(m, p))
			fprintf(out, "%s page faults %" PRIu64 " (getrusage)",
				p->before_have ? "," : "", p->before_faults);
		if (!p->job_cpu && p->before_wall_ns && m->nfiles == 1)
			fprintf(out, ", wall %.2f msec (the process's start)",
				(double)p->before_wall_ns / 1e6);
		else if (!p->job_cpu && p->before_wall_ns)
			fprintf(out, ", wall from the first process's start");
		fputc('\n', out);
	}
	names_from(names, sizeof(names), m, p, false, false);
	if (*names)
		fprintf(out, "from each thread's setup, by the shim: %s (what ran before the shim "
			"is not in them)\n", names);
}

/* task-clock stops when a thread is switched out and starts again once
 * it is back in; the CPU clock also counts the kernel's work between (a
 * few us a switch on a VM). A program that yields thousands of times (an
 * MPI rank's progress loop) shows CPU above task-clock by that much. */
static void cpu_gap_note(FILE *out, const struct model *m, const struct ptotal *p)
{
	int tc = find_event(m, p, "task-clock"), cs = find_event(m, p, "context-switches");
	uint64_t t, c = p->cpu_ns;

	if (tc < 0 || !p->cpu_have || p->cpu_lack || (t = p->ev[tc].value) >= c ||
	    (c - t) * 100 < c)	/* within 1% */
		return;
	fprintf(out, "CPU is %.2f msec above task-clock: the CPU clock also counts the kernel "
		"switching the threads out and in, task-clock not", (double)(c - t) / 1e6);
	if (cs < 0)
		cs = find_event(m, p, "cs");
	if (cs >= 0 && p->ev[cs].value)
		fprintf(out, " (%.1f us for each of the %" PRIu64 " context switches)",
			(double)(c - t) / 1e3 / (double)p->ev[cs].value, p->ev[cs].value);
	fputc('\n', out);
}

static void run_block(FILE *out, const struct model *m, const struct ptotal *p)
{
	struct marks mk = { 0 };
	int namew = 0;

	run_heading(out, m, p);
	for (size_t e = 0; e < m->nev; e++)
		if ((int)strlen(m->ev[e]) > namew)
			namew = (int)strlen(m->ev[e]);
	for (size_t e = 0; e < m->nev; e++)
		event_line(out, m, p, e, namew, &mk);
	fputc('\n', out);
	if (p->has_wall)
		fprintf(out, "%18.9f seconds wall%s\n", (double)p->wall_ns / 1e9,
			m->nfiles > 1 ? " (first start to last end)" : "");
	if (p->cpu_have)
		fprintf(out, "%18.9f seconds CPU (%s user + system time%s)\n",
			(double)p->cpu_ns / 1e9, p->job_cpu ? "the command's" : "the threads'",
			p->cpu_lack ? "; some threads unknown" : "");
	if (p->cpu_have && p->has_wall && p->wall_ns)
		fprintf(out, "%18s      # %8.3f CPUs utilized\n", "",
			(double)p->cpu_ns / (double)p->wall_ns);
	cpu_gap_note(out, m, p);
	source_notes(out, m, p);
	if (mk.last)
		fprintf(out, "~ killed: some threads' totals are as of the last count they "
			"published (at the end of an outermost region), not of their end\n");
	if (mk.missing && any_killed(m))
		fprintf(out, "<n/a>: a process ended without a word (killed), before its "
			"threads stored their totals; under " "pmcshim" ", the launcher counts the "
			"whole command, however it ends\n");
	if (mk.mux)
		fprintf(out, "(xx.xx%%): multiplexed, counted that share of the time; the value "
			"is scaled to the whole%s\n", m->o->raw ? " (--raw: as measured)" : "");
	if (mk.partial)
		fprintf(out, "+ partial: some threads have no total for this event (still "
			"running, or it could not open there); the sum covers the others\n");
}

/* ---- the processes -------------------------------------------------------- */

static void put_tval(struct table *t, const struct tval *v, enum how how, bool *mux)
{
	char b[40];

	if (!v->have) {
		tbl_put(t, "%s", strcmp(tval_missing(v), "not counted") ? "n/a" : "n/a*");
		return;
	}
	*mux |= v->mux;
	tbl_put(t, "%s%s", fmt_num(b, v->value, how), v->mux ? "*" : "");
}

static void process_cells(struct table *t, const struct model *m, const struct ptotal *p,
			  const bool *shown, bool *mux)
{
	char b[32];

	tbl_put(t, "%zu", p->nthreads);
	/* the folded row's processes ran at various times: no one wall */
	tbl_put(t, "%s", p->has_wall ? fmt_num(b, p->wall_ns, H_TIME) : p->nreports > 1 ? "" : "n/a");
	tbl_put(t, "%s%s", p->cpu_have ? fmt_num(b, p->cpu_ns, H_TIME) : "n/a",
		p->cpu_have && p->cpu_lack ? "+" : "");
	for (size_t e = 0; e < m->nev; e++)
		if (shown[e])
			put_tval(t, &p->ev[e], how_of(m, (int)e), mux);
}

/* Which files get a row: all up to the limit, else the heaviest by CPU
 * time (in the files' order). */
static void pick_rows(const struct model *m, const struct ptotal *pt, bool *row)
{
	size_t limit = m->o->by_process ? SIZE_MAX : PROCESS_ROWS;

	for (size_t f = 0; f < m->nfiles; f++) {
		size_t heavier = 0;

		for (size_t g = 0; g < m->nfiles && heavier < limit; g++)
			heavier += pt[g].cpu_ns > pt[f].cpu_ns ||
				   (pt[g].cpu_ns == pt[f].cpu_ns && g < f);
		row[f] = heavier < limit;
	}
}

static const struct model *sort_model;
static const struct ptotal *sort_cpu;	/* NULL: by start */

/* By CPU time, heaviest first (sort_cpu), or by start; then file order. */
static int cmp_row(const void *a, const void *b)
{
	size_t f = *(const size_t *)a, g = *(const size_t *)b;
	const struct report *x = sort_model->files[f], *y = sort_model->files[g];

	if (sort_cpu && sort_cpu[f].cpu_ns != sort_cpu[g].cpu_ns)
		return sort_cpu[f].cpu_ns > sort_cpu[g].cpu_ns ? -1 : 1;
	if (!sort_cpu && x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return f < g ? -1 : 1;
}

/* The files in the order their rows go: as their processes started, or
 * heaviest first (by_cpu: CPU time, as pick_rows chooses them). */
static size_t *row_order(const struct model *m, const struct ptotal *pt, bool by_cpu)
{
	size_t *order = xcalloc(m->nfiles, sizeof(*order));

	for (size_t f = 0; f < m->nfiles; f++)
		order[f] = f;
	sort_model = m, sort_cpu = by_cpu ? pt : NULL;
	qsort(order, m->nfiles, sizeof(*order), cmp_row);
	return order;
}

/* Some command line left out its shared arguments (command_cells). */
static bool any_elided(char *const *cmd, size_t n)
{
	for (size_t f = 0; f < n; f++)
		if (cmd[f] && strstr(cmd[f], " …"))
			return true;
	return false;
}

static void process_table(FILE *out, const struct model *m, const struct ptotal *pt,
			  const bool *shown)
{
	bool *row = xcalloc(m->nfiles, sizeof(*row)), mux = false;
	struct ptotal rest = { .ev = xcalloc(m->nev + 1, sizeof(*rest.ev)) };
	size_t nshown = 0, nrows = 0, *order;
	struct table t;
	char **cmd;

	pick_rows(m, pt, row);
	for (size_t f = 0; f < m->nfiles; f++)
		nrows += row[f];
	order = row_order(m, pt, nrows < m->nfiles);
	cmd = command_cells(m, row, 48);
	for (size_t e = 0; e < m->nev; e++)
		nshown += shown[e];
	tbl_init(&t, 6 + nshown);
	tbl_left(&t, 1), tbl_left(&t, 2);
	tbl_put(&t, "pid"), tbl_put(&t, "command"), tbl_put(&t, "state");
	tbl_put(&t, "threads"), tbl_put(&t, "wall"), tbl_put(&t, "cpu");
	for (size_t e = 0; e < m->nev; e++)
		if (shown[e])
			tbl_put(&t, "%s", m->ev[e]);
	for (size_t i = 0; i < m->nfiles; i++) {
		size_t f = order[i];
		const struct report *r = m->files[f];

		if (!row[f]) {
			add_file(m, f, &rest);
			continue;
		}
		tbl_put(&t, "%" PRIu64, r->pid);
		tbl_put(&t, "%s", cmd[f]);
		tbl_put(&t, "%s", state_word(r));
		process_cells(&t, m, &pt[f], shown, &mux);
	}
	if (rest.nreports) {
		tbl_put(&t, "%s", "");
		tbl_put(&t, "(%zu more)", rest.nreports);
		tbl_put(&t, "%s", "");
		process_cells(&t, m, &rest, shown, &mux);
	}
	if (rest.nreports)
		fprintf(out, "\n## totals per process, the %zu heaviest by CPU time, heaviest first "
			"(--by-process: all; --by-command: per executable)", nrows);
	else
		fprintf(out, "\n## totals per process, in the order they started");
	fprintf(out, "; each by the shim in its threads, from its exec\n");
	tbl_print(&t, out);
	if (any_elided(cmd, m->nfiles))
		fprintf(out, "command: … stands for arguments that every process of the same "
			"executable shown has\n");
	if (mux)
		fprintf(out, "* multiplexed: counted part of the time; shown is the scaled "
			"estimate%s\n", m->o->raw ? " (--raw: as measured)" : "");
	ptotal_free(&rest);
	command_cells_free(cmd, m->nfiles);
	free(row), free(order);
}

void render_totals(FILE *out, const struct model *m, bool hide_unavailable)
{
	struct ptotal run, *pt;
	bool *shown = xcalloc(m->nev + 1, sizeof(*shown));

	ptotal_of(m, SIZE_MAX, &run);
	run_block(out, m, &run);
	if (m->nfiles > 1) {
		pt = xcalloc(m->nfiles, sizeof(*pt));
		for (size_t f = 0; f < m->nfiles; f++)
			ptotal_of(m, f, &pt[f]);
		for (size_t e = 0; e < m->nev; e++)
			shown[e] = !hide_unavailable || run.ev[e].have || run.ev[e].lack;
		if (m->o->by_command)
			render_by_command(out, m, shown);
		else
			process_table(out, m, pt, shown);
		for (size_t f = 0; f < m->nfiles; f++)
			ptotal_free(&pt[f]);
		free(pt);
	}
	ptotal_free(&run);
	free(shown);
}

/* ---- machine formats ------------------------------------------------------ */

static const char *tval_status(const struct tval *v)
{
	if (!v->have)
		return tval_missing(v);
	if (v->lack || v->absent)
		return "partial";
	if (v->last)
		return "last update";
	return v->mux ? "multiplexed" : "counted";
}

static void json_u64(FILE *out, bool ok, uint64_t v)
{
	if (ok)
		fprintf(out, "%" PRIu64, v);
	else
		fputs("null", out);
}

/* How many files ended in each state, as an object. */
static void json_states(FILE *out, const struct model *m)
{
	char b[200], *save = NULL;

	fputs(", \"states\": {", out);
	totals_states(m, b, sizeof(b));
	for (char *t = strtok_r(b, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *word = strchr(t + (*t == ' '), ' ');

		if (!word)
			continue;
		*word++ = '\0';
		fputs(t == b ? "" : ", ", out);
		json_string(out, word);
		fprintf(out, ": %s", t + (*t == ' '));
	}
	fputs("}", out);
}

void totals_json(FILE *out, const struct model *m, size_t f)
{
	struct ptotal p;

	ptotal_of(m, f, &p);
	fprintf(out, "{\"processes\": %zu, \"reports\": %zu", p.nproc, p.nreports);
	if (f == SIZE_MAX)
		json_states(out, m);
	fprintf(out, ", \"threads\": %zu, \"wall_ns\": ", p.nthreads);
	json_u64(out, p.has_wall, p.wall_ns);
	fputs(", \"cpu_ns\": ", out);
	json_u64(out, p.cpu_have > 0, p.cpu_ns);
	fputs(", \"before_setup_ns\": ", out);
	json_u64(out, p.before_have > 0, p.before_ns);
	fputs(", \"events\": {", out);
	for (size_t e = 0; e < m->nev; e++) {
		const struct tval *v = &p.ev[e];

		fputs(e ? ", " : "", out);
		json_string(out, m->ev[e]);
		fputs(": {\"value\": ", out);
		json_u64(out, v->have > 0, v->value);
		fprintf(out, ", \"enabled_ns\": %" PRIu64 ", \"running_ns\": %" PRIu64
			", \"threads_counted\": %" PRIu32 ", \"status\": \"%s\"}", v->enabled,
			v->running, v->have, tval_status(v));
	}
	fputs("}}", out);
	ptotal_free(&p);
}

static void csv_u64(FILE *out, bool ok, uint64_t v)
{
	if (ok)
		fprintf(out, ",%" PRIu64, v);
	else
		fputs(",", out);
}

static void csv_row(FILE *out, const struct model *m, const char *scope, const struct report *r,
		    const struct ptotal *p)
{
	fprintf(out, "%s,", scope);
	if (r) {
		fprintf(out, "%" PRIu64 ",", r->pid);
		csv_field(out, r->executable);
		putc(',', out);
		csv_field(out, state_word(r));
	} else {
		fputs(",,", out);	/* no pid, executable, state */
	}
	fprintf(out, ",%zu,%zu,%zu", p->nproc, p->nreports, p->nthreads);
	csv_u64(out, p->has_wall, p->wall_ns);
	csv_u64(out, p->cpu_have > 0, p->cpu_ns);
	csv_u64(out, p->before_have > 0, p->before_ns);
	for (size_t e = 0; e < m->nev; e++) {
		csv_u64(out, p->ev[e].have > 0, p->ev[e].value);
		fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%s", p->ev[e].enabled, p->ev[e].running,
			tval_status(&p->ev[e]));
	}
	putc('\n', out);
}

void render_totals_csv(FILE *out, const struct model *m)
{
	struct ptotal p;

	fputs("scope,pid,executable,state,processes,reports,threads,wall_ns,cpu_ns,before_setup_ns",
	      out);
	for (size_t e = 0; e < m->nev; e++) {
		const char *n = m->ev[e];

		fprintf(out, ",%s,%s_enabled_ns,%s_running_ns,%s_status", n, n, n, n);
	}
	putc('\n', out);
	ptotal_of(m, SIZE_MAX, &p);
	csv_row(out, m, "run", NULL, &p);
	ptotal_free(&p);
	if (m->o->by_command) {
		commands_csv(out, m);
		return;
	}
	for (size_t f = 0; f < m->nfiles; f++) {
		ptotal_of(m, f, &p);
		csv_row(out, m, "process", m->files[f], &p);
		ptotal_free(&p);
	}
}
