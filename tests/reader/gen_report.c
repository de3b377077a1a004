/* Writes synthetic version-2 report files (preload/format/reportfile.h) for the
 * reader's tests, fuzz seeds and benchmark: the same bytes for the same
 * options, numbers simple enough to check by hand.
 *
 *   gen_report [OPTIONS] OUT           a new file
 *   gen_report --append FILE           what a running process adds next:
 *                                      the first site gets 10 more calls
 *                                      (4 of their children; in a thread
 *                                      with coverage, counted a quarter of
 *                                      their time), a new region "late"
 *                                      gets a site (5 calls, no wall time;
 *                                      in a tree, inside the first site),
 *                                      thread 0 publishes 1000 more of each
 *                                      event as its running counts
 *   gen_report --exit FILE             the process exits: end fields, then
 *                                      state RF_EXITED (release)
 *   gen_report --zero-build-ids FILE   every module's build-id becomes "00"
 *                                      (a binary rebuilt since the run)
 * Options (defaults in brackets):
 *   --rows N [15] --threads T [3] --events K [3: the last unavailable]
 *   --regions R [5] --stacks S [5] --depth D [2]: row j is in thread j % T;
 *     its region and stack follow from j / T (R + 1 and S coprime)
 *   --state running|exited|exec|_exit [exited]
 *   --pid PID        the process is PID, with its start time and this
 *                    boot's id: a reader sees the file live while PID runs
 *   --undone N       site N is left not done (a writer killed in it)
 *   --partial        site 0 is left mid-update (odd sequence count)
 *   --dropped        some drops counted in the header, and the file full
 *   --huge           counts and times near 2^64 (sums must saturate)
 *   --calibrated     threads carry the markers' own cost (2 per call, 1 per
 *                    child call, each event; 5 ns wall) and sites children;
 *                    row 1 has so many children that its excl goes below it
 *   --multiplexed    threads keep coverage: each event counted half of its
 *                    regions' time
 *   --region-coverage  threads keep coverage, per region (solve, io, setup,
 *                    parse, render) a percent of its time for instructions
 *                    and cycles: 100/100, 80/40, 50/50, 25/100, 0/0 (render
 *                    never counted); other events 100
 *   --odd-names      region names with a quote, a line break, a byte that
 *                    is not UTF-8, and UTF-8 (outputs must stay well formed)
 *   --samples        thread 0's sampled stacks (RF_SAMPLES): 300 in the
 *                    program under the first region, 100 in the library
 *                    outside every region, 3 dropped
 *   --sample-values  with --samples: each slot also holds what thread 0's
 *                    open events (instructions, cycles) counted at its
 *                    samples: 3e6 and 1.5e6 in the program, 4e5 and 8e5
 *                    in the library
 *   --first-name TEXT  the first region's name is TEXT (a name a
 *                    spreadsheet would take for a formula, ...)
 *   --tree F         the header has RF_TREE and sites name parents: in
 *                    each thread, its k-th site is a child of its
 *                    ((k - 1) / F)-th (a tree of fan-out F), the first
 *                    outermost
 *   --one-call-roots  with --tree: each thread's outermost site ran once,
 *                    its min and max its incl (a main around many calls)
 *   --event-names LIST  the events' names (comma separated, at most 8): as
 *                    many events, the last unavailable as always
 *   --rank R --size N  an MPI rank: R of N, initialized and finalized
 *   --before-wall MS the process ran MS ms before the shim began
 *   --no-boot-id     the header has no boot id (a reader cannot tell
 *                    whether a running process still runs)
 *   --truncate N     the file cut to N bytes
 *   --corrupt WHAT   bad-magic, version3, header-size, tail-unaligned,
 *                    state, size0, size-overflow, unknown-thread,
 *                    unknown-name, unknown-stack, nvalues, thread-mask,
 *                    name-unterminated, stack-frames, event-index,
 *                    parent-cycle (with --tree: the first site's parent
 *                    is its own child), parent-dangling (with --tree:
 *                    the last site's parent is an offset no site has),
 *                    tail-beyond (tail past the end: a file that never
 *                    grew, which a reader must accept), samples-slots
 *                    (with --samples: more slots than the record holds)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/arch.h"
#include "format/reportfile.h"

static const char *const region_names[] = { "solve", "io", "setup", "parse", "render" };
static const char *event_names[RF_EVENTS_MAX] = { "instructions", "cycles", "task-clock",
					   "branch-misses", "page-faults", "cache-misses",
					   "context-switches", "cpu-migrations" };

#define TPN 2.0				/* ticks per ns at the end */
#define BASE0 UINT64_C(0x555555554000)	/* the program */
#define BASE1 UINT64_C(0x7f0000000000)	/* a library, mapped later */

struct gen {
	unsigned rows, threads, events, regions, stacks, depth;
	const char *state;
	long pid;
	long before_wall_ms;		/* --before-wall */
	long undone;			/* site left not done, -1: none */
	unsigned id, first_region;
	int partial, dropped, huge, no_boot_id, odd_names, calibrated, multiplexed, region_cov;
	int one_call_roots;
	int samples;			/* --samples: thread 0's sampled stacks */
	int sample_values;		/* --sample-values: and their counts */
	long truncate;			/* -1: none */
	long rank, size;		/* an MPI rank (rank -1: not one) */
	unsigned tree;			/* fan-out of the sites' tree, 0: no tree */
	uint32_t *site_off;		/* with tree: each row's offset */
	const char *corrupt;
	const char *name0;		/* the first region's, NULL: as ever */
	const char *command;		/* --command "EXE ARG...": its words, NULL: app -n 3 */
	unsigned cpu_ms;		/* --cpu-ms: added to each thread's CPU time */
	unsigned char *buf;
	size_t len, cap;
	uint64_t start_mono;
	size_t first_site, first_thread, first_name, first_stack, first_event, first_error;
	size_t first_samples;
};

static void die(const char *msg, const char *arg)
{
	fprintf(stderr, "gen_report: %s%s\n", msg, arg);
	exit(2);
}

/* ---- the buffer ---------------------------------------------------------- */

/* Room for a record of size bytes (zeroed), its header filled and done. */
static void *add(struct gen *g, size_t size, uint16_t type)
{
	struct rf_record *r;

	size = rf_align(size);
	if (g->len + size > g->cap) {
		g->cap = (g->len + size) * 2;
		if (!(g->buf = realloc(g->buf, g->cap)))
			die("out of memory", "");
	}
	r = (void *)(g->buf + g->len);
	memset(r, 0, size);
	r->size = (uint32_t)size, r->type = type, r->done = 1;
	g->len += size;
	return r;
}

#define AT(g, off) ((void *)((g)->buf + (off)))

/* ---- the header ---------------------------------------------------------- */

static uint32_t state_of(const char *s)
{
	if (!strcmp(s, "running"))
		return RF_RUNNING;
	if (!strcmp(s, "exited"))
		return RF_EXITED;
	if (!strcmp(s, "exec"))
		return RF_EXECED;
	if (!strcmp(s, "_exit"))
		return RF_QUICK_EXIT;
	die("unknown --state ", s);
	return 0;
}

static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f || !fgets(buf, (int)len, f))
		die("cannot read ", path);
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* Field 22 of /proc/PID/stat, after the parenthesised command name. */
static uint64_t proc_start(long pid)
{
	char path[64], buf[1024], *p;
	int field = 2;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	read_line(path, buf, sizeof(buf));
	if (!(p = strrchr(buf, ')')))
		die("odd ", path);
	while (*p && field < 22)
		if (*p++ == ' ')
			field++;
	return strtoull(p, NULL, 10);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A live file: this boot, the real pid, and clocks a reader can continue. */
static void header_live(struct gen *g, struct rf_header *h)
{
	h->pid = (uint64_t)g->pid, h->ppid = (uint64_t)getpid();
	h->proc_start = proc_start(g->pid);
	read_line("/proc/sys/kernel/random/boot_id", h->boot_id, sizeof(h->boot_id));
	h->start_mono_ns = mono_ns(), h->start_ticks = arch_ticks();
}

static void header_end(struct rf_header *h)
{
	h->end_real_ns = h->start_real_ns + 2500000000u;
	h->end_mono_ns = h->start_mono_ns + 2500000000u;
	h->end_ticks = h->start_ticks + (uint64_t)(2500000000u * TPN);
	h->ticks_per_ns = TPN;
}

/* --command: the executable (its first word) and argv (every word). */
static void command_words(struct rf_header *h, const char *words)
{
	size_t n = strlen(words);

	if (n >= sizeof(h->argv))
		die("--command: too long: ", words);
	memset(h->argv, 0, sizeof(h->argv));
	memcpy(h->argv, words, n);
	h->argc = 1;
	for (size_t i = 0; i < n; i++)
		if (h->argv[i] == ' ')
			h->argv[i] = '\0', h->argc++;
	memset(h->executable, 0, sizeof(h->executable));
	if (strlen(h->argv) >= sizeof(h->executable))
		die("--command: the executable's name is too long: ", h->argv);
	memcpy(h->executable, h->argv, strlen(h->argv));
}

static void header(struct gen *g)
{
	struct rf_header *h = add(g, RF_HEADER_SIZE, 0);
	static const char argv[] = "app\0-n\0003";

	memset(h, 0, RF_HEADER_SIZE);
	memcpy(h->magic, RF_MAGIC, 8);
	h->version = RF_VERSION, h->header_size = RF_HEADER_SIZE;
	h->state = state_of(g->state), h->flags = RF_SERIALIZED | (g->tree ? RF_TREE : 0);
	strcpy(h->barrier, "lfence");
	h->pid = 4242 + 1000 * g->id, h->ppid = 4200, h->proc_start = 777;
	strcpy(h->boot_id, "00000000-0000-0000-0000-000000000000");
	h->start_real_ns = UINT64_C(1764700000000000000);
	h->start_mono_ns = 1000000000, h->start_ticks = 5000;
	if (g->pid > 0)
		header_live(g, h);
	g->start_mono = h->start_mono_ns;
	h->before_wall_ns = (uint64_t)g->before_wall_ms * 1000000u;
	if (g->no_boot_id)
		memset(h->boot_id, 0, sizeof(h->boot_id));
	if (h->state != RF_RUNNING)
		header_end(h);
	h->stack_depth = g->depth, h->nevents = g->events;
	if (g->dropped)
		h->flags |= RF_FULL, h->dropped[RF_DROP_FULL] = 3, h->dropped[RF_DROP_BUSY] = 1,
		h->dropped[RF_DROP_EARLY] = 2, h->dropped[RF_DROP_NAMES] = 4,
		h->dropped[RF_DROP_IDS] = 6;
	strcpy(h->clock_source, ARCH_TICKS_NAME), strcpy(h->user_read, "rdpmc");
	strcpy(h->shim_version, "0.9-test"), strcpy(h->host, "testhost");
	strcpy(h->executable, "app");
	if (h->state == RF_EXECED)
		strcpy(h->exec_target, "/usr/bin/next");
	h->argc = 3;
	memcpy(h->argv, argv, sizeof(argv));
	if (g->command)
		command_words(h, g->command);
	if (g->rank >= 0) {
		h->mpi_state = RF_MPI_INITIALIZED | RF_MPI_FINALIZED;
		h->mpi_rank = (uint32_t)g->rank, h->mpi_size = (uint32_t)g->size;
		strcpy(h->mpi_library, "Test MPI");
	}
}

/* ---- small records ------------------------------------------------------- */

static void events(struct gen *g)
{
	g->first_event = g->len;
	for (unsigned e = 0; e < g->events; e++) {
		/* the size a shim before mode_note wrote: the reader takes both */
		struct rf_event *r = add(g, RF_EVENT_SIZE_V0, RF_EVENT);
		bool last = e + 1 == g->events;

		r->index = e, r->type = e < 2 ? 0 : 1, r->config = e, r->exclude_kernel = 1;
		r->source = last ? RF_SOURCE_UNAVAILABLE : e % 2 ? RF_SOURCE_READ : RF_SOURCE_USER;
		strcpy(r->name, event_names[e]);
		if (last)
			strcpy(r->reason, "ENOENT: no such event on this CPU");
	}
}

static void module(struct gen *g, uint32_t id, uint64_t base, const char *path)
{
	struct rf_module *m = add(g, offsetof(struct rf_module, path) + strlen(path) + 1,
				  RF_MODULE);

	m->id = id, m->base = base, m->lo = base, m->hi = base + 0x100000;
	snprintf(m->build_id, sizeof(m->build_id), "%08x%032x", 0xb1d0u + id, id);
	strcpy(m->path, path);
}

static void name(struct gen *g, uint32_t id, const char *text)
{
	struct rf_name *n = add(g, offsetof(struct rf_name, text) + strlen(text) + 1, RF_NAME);

	n->id = id, n->len = (uint32_t)strlen(text);
	strcpy(n->text, text);
}

static void names(struct gen *g)
{
	g->first_name = g->len;
	for (unsigned i = 0; i < g->regions; i++) {
		char b[32];

		static const char *const odd[] = { "so\"l\nve", "r\xe9sum\xc3\xa9 \xff", "a;b c",
						   "\xe2\x82\xac", "t\tab" };

		snprintf(b, sizeof(b), "region_%03u", i + g->first_region);
		if (i == 0 && g->name0)
			name(g, i + 1, g->name0);
		else
			name(g, i + 1, g->odd_names && i < 5 ? odd[i] :
			     g->regions + g->first_region <= 5 ? region_names[i + g->first_region] : b);
	}
}

/* Frames: the call site and those above it, in the library then the
 * program; stack 0's outermost frame is in no module (JIT code). */
static void stacks(struct gen *g)
{
	g->first_stack = g->len;
	for (unsigned s = 0; s < g->stacks; s++) {
		unsigned n = 1 + g->depth;
		struct rf_stack *r = add(g, sizeof(*r) + n * 8, RF_STACK);

		r->id = s, r->nframes = (uint16_t)n, r->method = (uint16_t)(s % 3);
		for (unsigned k = 0; k < n; k++)
			r->pc[k] = (k + 1 < n ? BASE1 : BASE0) + 0x1000 + s * 0x40 + k * 0x10;
		if (s == 0 && n > 1)
			r->pc[n - 1] = UINT64_C(0x10000);
	}
}

/* The last thread of three or more could not open event 0; the last event
 * is open in none. */
static uint32_t open_mask(const struct gen *g, unsigned t)
{
	uint32_t all = g->events ? ((1u << (g->events - 1)) - 1) : 0;

	return g->threads >= 3 && t == g->threads - 1 ? all & ~1u : all;
}

static void thread_totals(const struct gen *g, struct rf_thread *r, unsigned t)
{
	uint32_t kind = t % 4;

	r->state = kind == 1 ? RF_T_SNAPSHOT : RF_T_EXITED;
	r->total_status = kind == 3 ? RF_TOTAL_LOST : RF_TOTAL_OK;
	r->end_mono_ns = r->start_mono_ns + 2000000000u - t * 100000000u;
	r->cpu_ns = kind == 2 ? UINT64_MAX : 1500000000u - t * 1000000u + g->cpu_ms * UINT64_C(1000000);
	for (unsigned e = 0; e < g->events; e++) {
		r->totals[e] = (e + 2) * 1000000u * (t + 1);
		r->enabled[e] = 1500000000u;
		r->running[e] = kind == 1 ? 750000000u : kind == 2 && e == 1 ? 0 : 1500000000u;
	}
	for (unsigned e = 0; g->huge && e < g->events; e++)
		r->totals[e] = UINT64_MAX, r->enabled[e] = UINT64_MAX, r->running[e] = 1;
	if (g->huge)
		r->cpu_ns = UINT64_MAX - 1, r->end_mono_ns = UINT64_MAX;
	if (kind == 3)
		strcpy(r->lost_reason, "EBADF: the program closed the counter");
}

static void calibration(struct rf_thread *r)
{
	r->calib_calls = 64;
	r->calib_in[0] = (uint64_t)(5 * TPN);
	r->calib_child[0] = (uint64_t)(3 * TPN);
	for (uint32_t i = 1; i < r->nvalues; i++)
		r->calib_in[i] = 2, r->calib_child[i] = 1;
}

static void threads(struct gen *g, uint32_t state)
{
	g->first_thread = g->len;
	for (unsigned t = 0; t < g->threads; t++) {
		struct rf_thread *r = add(g, sizeof(*r), RF_THREAD);

		r->index = t, r->tid = 4242 + 1000 * g->id + t, r->is_main = t == 0, r->lazy = t == 2;
		r->open_mask = open_mask(g, t);
		r->nvalues = 1 + (uint32_t)__builtin_popcount(r->open_mask);
		r->start_mono_ns = g->start_mono + t * 1000u;
		/* the main thread ran 2 ms before the shim began (exec, loading) */
		r->begin_cpu_ns = t ? 1000u * t : 2000000;
		r->setup_cpu_ns = r->begin_cpu_ns + 300000;
		snprintf(r->name, sizeof(r->name), t ? "worker-%u" : "app", t & 0xffffu);
		r->state = RF_T_RUNNING, r->total_status = RF_TOTAL_NONE;
		if (state != RF_RUNNING || t == 1) /* in a running process, thread 1 ended */
			thread_totals(g, r, t);
		if (g->calibrated)
			calibration(r);
		r->coverage = (uint32_t)(g->multiplexed || g->region_cov);
	}
}

/* ---- sites --------------------------------------------------------------- */

static void site_values(struct rf_site *s, uint32_t mask, unsigned j, unsigned id)
{
	uint64_t k = (j + 1) * (id + 1), slot = 1;

	s->calls = (10 + j) * (id + 1);
	s->v[0] = (struct rf_stat){ (uint64_t)(1000 * k * TPN), (uint64_t)(750 * k * TPN),
				    (uint64_t)(10 * k * TPN), (uint64_t)(200 * k * TPN), 0, 0 };
	for (unsigned e = 0; e < RF_EVENTS_MAX; e++)
		if (mask >> e & 1)
			s->v[slot++] = (struct rf_stat){ (e + 2) * 100 * k, (e + 2) * 75 * k,
							 (e + 2) * k, (e + 2) * 20 * k, 0, 0 };
}

/* --region-coverage: enabled 1 ms per call, and running the percent of it
 * the site's region and event get. */
static void region_coverage(struct rf_site *s, uint32_t mask)
{
	static const unsigned pct[5][2] = { { 100, 100 }, { 80, 40 }, { 50, 50 }, { 25, 100 },
					    { 0, 0 } };
	const unsigned *p = pct[(s->region - 1) % 5];
	uint32_t slot = 1;

	for (unsigned e = 0; e < RF_EVENTS_MAX; e++) {
		if (!(mask >> e & 1))
			continue;
		s->v[slot].enabled = 1000000 * s->calls;
		s->v[slot++].running = 10000 * s->calls * (e < 2 ? p[e] : 100);
	}
}

static void huge_values(struct rf_site *s)
{
	s->calls = UINT64_MAX - 1;
	for (uint32_t i = 0; i < s->nvalues; i++)
		s->v[i] = (struct rf_stat){ UINT64_MAX - 1, UINT64_MAX / 2 + 1, 1, UINT64_MAX - 1,
					    0, 0 };
}

/* --tree: each site's incl is its excl and its children's incl, so that
 * shares add up (children come after their parents: a reverse sweep). */
static void tree_incl(struct gen *g)
{
	for (unsigned j = 0; j < g->rows; j++) {
		struct rf_site *s = AT(g, g->site_off[j]);

		for (uint32_t i = 0; i < s->nvalues; i++)
			s->v[i].incl = s->v[i].excl;
	}
	for (unsigned j = g->rows; j-- > 0;) {
		struct rf_site *s = AT(g, g->site_off[j]), *p;

		if (!s->parent)
			continue;
		p = AT(g, s->parent);
		for (uint32_t i = 0; i < s->nvalues; i++)
			p->v[i].incl += s->v[i].incl;
	}
}

/* --one-call-roots: one call measured as a whole, as the shim records a
 * single call (its children's markers inside its incl, min and max). */
static void one_call_roots(struct gen *g)
{
	for (unsigned j = 0; j < g->rows; j++) {
		struct rf_site *s = AT(g, g->site_off[j]);

		if (s->parent)
			continue;
		s->calls = 1;
		for (uint32_t i = 0; i < s->nvalues; i++)
			s->v[i].min = s->v[i].max = s->v[i].incl;
	}
}

static void sites(struct gen *g)
{
	g->first_site = g->len;
	if (g->tree && !(g->site_off = calloc(g->rows, sizeof(*g->site_off))))
		die("out of memory", "");
	for (unsigned j = 0; j < g->rows; j++) {
		unsigned t = j % g->threads, rest = j / g->threads;
		uint32_t mask = open_mask(g, t), n = 1 + (uint32_t)__builtin_popcount(mask);
		struct rf_site *s = add(g, rf_site_size(n), RF_SITE);

		if (g->tree) {
			g->site_off[j] = (uint32_t)((unsigned char *)s - g->buf);
			if (rest)
				s->parent = g->site_off[(rest - 1) / g->tree * g->threads + t];
		}
		s->thread = t, s->nvalues = n;
		s->region = 1 + rest % g->regions;
		s->stack = (rest % g->regions + rest / g->regions * (g->regions + 1)) % g->stacks;
		site_values(s, mask, j, g->id);
		if (g->calibrated)
			s->child_calls = j == 1 ? 1000000 : s->calls / 2;
		for (uint32_t i = 1; g->multiplexed && i < n; i++)
			s->v[i].enabled = 1000000 * s->calls, s->v[i].running = 500000 * s->calls;
		if (g->region_cov)
			region_coverage(s, mask);
		if (g->huge)
			huge_values(s);
		if ((long)j == g->undone)
			s->r.done = 0;
		if (j == 0 && g->partial)
			s->seq = 7;
		else
			s->seq = 2 * (j + 1);
	}
	if (g->tree)
		tree_incl(g);
	if (g->tree && g->one_call_roots)
		one_call_roots(g);
}

static void errors(struct gen *g)
{
	static const struct { uint32_t thread, kind, region, open, count; } e[] = {
		{ 0, RF_ERR_END_MISMATCH, 2, 3, 2 }, { 1, RF_ERR_END_UNOPENED, 1, 0, 1 },
		{ 0, RF_ERR_OPEN_AT_EXIT, 4, 0, 1 }, { 1, RF_ERR_REENTRANT, 0, 0, 5 } };

	for (size_t i = 0; i < sizeof(e) / sizeof(e[0]); i++) {
		struct rf_error *r;

		if (e[i].thread >= g->threads || e[i].region > g->regions || e[i].open > g->regions)
			continue;
		if (!g->first_error)
			g->first_error = g->len;
		r = add(g, sizeof(*r), RF_ERROR);
		r->thread = e[i].thread, r->kind = e[i].kind, r->region = e[i].region;
		r->open = e[i].open, r->count = e[i].count;
	}
}

/* ---- damage --------------------------------------------------------------- */

static void corrupt(struct gen *g, const char *what)
{
	struct rf_header *h = AT(g, 0);
	struct rf_site *s = AT(g, g->first_site);
	struct rf_record *first = AT(g, RF_HEADER_SIZE);

	if (!strcmp(what, "bad-magic")) h->magic[0] = 'X';
	else if (!strcmp(what, "version3")) h->version = 3;
	else if (!strcmp(what, "header-size")) h->header_size = 512;
	else if (!strcmp(what, "tail-unaligned")) h->tail -= 4;
	else if (!strcmp(what, "tail-beyond")) h->tail += 4096;
	else if (!strcmp(what, "state")) h->state = 9;
	else if (!strcmp(what, "size0")) first->size = 0;
	else if (!strcmp(what, "size-overflow")) first->size = 0xfffffff8u;
	else if (!strcmp(what, "unknown-thread")) s->thread = 99;
	else if (!strcmp(what, "unknown-name")) {
		s->region = 999;	/* and an error's open region, when there is one */
		if (g->first_error)
			((struct rf_error *)AT(g, g->first_error))->open = 1000;
	}
	else if (!strcmp(what, "unknown-stack")) s->stack = 999;
	else if (!strcmp(what, "nvalues")) s->nvalues--;
	else if (!strcmp(what, "thread-mask")) ((struct rf_thread *)AT(g, g->first_thread))->nvalues = 7;
	else if (!strcmp(what, "name-unterminated")) ((struct rf_name *)AT(g, g->first_name))->len = 200;
	else if (!strcmp(what, "stack-frames")) ((struct rf_stack *)AT(g, g->first_stack))->nframes = 999;
	else if (!strcmp(what, "parent-cycle") && g->tree && g->rows > g->threads)
		s->parent = g->site_off[g->threads];
	else if (!strcmp(what, "parent-dangling") && g->tree && g->rows > g->threads)
		((struct rf_site *)AT(g, g->site_off[g->rows - 1]))->parent = RF_HEADER_SIZE;
	else if (!strcmp(what, "event-index")) ((struct rf_event *)AT(g, g->first_event))->index = 6;
	else if (!strcmp(what, "samples-slots") && g->samples)
		((struct rf_samples *)AT(g, g->first_samples))->nslots = 5;
	else die("unknown --corrupt ", what);
}

/* --samples: thread 0's table (sampling, RF_SAMPLES), 4 slots of 4 frames
 * at task-clock every 1 ms: 300 samples in the program at +0x1234 under
 * region 1, 100 in the library at +0x40 outside every region, one slot
 * free; 2 samples dropped with the table full, 1 inside a marker. */
static void samples(struct gen *g)
{
	uint32_t nv = g->sample_values ? 2 : 0;
	uint32_t slot_size = (uint32_t)sizeof(struct rf_sample_slot) + 4 * 8 + nv * 8;
	struct rf_samples *s;
	struct rf_sample_slot *slot;

	g->first_samples = g->len;
	s = add(g, sizeof(*s) + 4 * slot_size, RF_SAMPLES);
	s->thread = 0, s->nslots = 4, s->depth = 4, s->slot_size = slot_size;
	s->event_type = 1, s->event_config = 1, s->period = 1000000, s->taken = 400;
	s->dropped[RF_SAMPLE_FULL] = 2, s->dropped[RF_SAMPLE_BUSY] = 1;
	strcpy(s->event_name, "task-clock");
	slot = (void *)((char *)(s + 1));
	slot->count = 300, slot->region = 1, slot->nframes = 2;
	slot->pc[0] = BASE0 + 0x1234, slot->pc[1] = BASE0 + 0x2000;
	if (nv)
		slot->pc[4] = 3000000, slot->pc[5] = 1500000;
	slot = (void *)((char *)(s + 1) + 2 * slot_size);
	slot->count = 100, slot->region = 0, slot->nframes = 1;
	slot->pc[0] = BASE1 + 0x40;
	if (nv)
		slot->pc[4] = 400000, slot->pc[5] = 800000;
}

static void write_out(const struct gen *g, const char *path)
{
	size_t len = g->truncate >= 0 && (size_t)g->truncate < g->len ? (size_t)g->truncate : g->len;
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(g->buf, 1, len, f) != len || fclose(f) != 0)
		die("cannot write ", path);
}

static void generate(struct gen *g, const char *out)
{
	uint32_t state = state_of(g->state);

	if (g->threads < 1 || g->regions < 1 || g->stacks < 1 || g->events > RF_EVENTS_MAX ||
	    g->depth + 1 > RF_FRAMES_MAX)
		die("out of range: threads, regions, stacks >= 1; events <= 8; depth <= 64", "");
	if (g->rows > (unsigned long long)g->threads * g->regions * g->stacks)
		die("more rows than (thread, region, stack) combinations", "");
	for (unsigned a = g->regions + 1, b = g->stacks; b;) { /* gcd: rows stay distinct */
		unsigned t = a % b;
		a = b, b = t;
		if (!b && a != 1)
			die("--regions + 1 and --stacks must be coprime", "");
	}
	header(g);
	events(g);
	module(g, 0, BASE0, "/nonexistent/app");
	threads(g, state);
	names(g);
	stacks(g);
	sites(g);
	errors(g);
	if (g->samples)
		samples(g);
	module(g, 1, BASE1, "/nonexistent/libwork.so"); /* dlopen()ed after the first sites */
	((struct rf_header *)AT(g, 0))->tail = g->len;
	if (g->corrupt)
		corrupt(g, g->corrupt);
	write_out(g, out);
}

/* ---- --append: a running process goes on ---------------------------------- */

struct live {
	struct rf_file f;
	unsigned char *map;
	size_t size;
	int fd;
	uint32_t max_name;
	const struct rf_thread *t0;
	struct rf_site *first;
};

static void live_scan(struct live *L)
{
	uint64_t off = 0;
	const struct rf_record *r;
	int bad;
	char why[200];

	if (rf_open_mem(L->map, L->size, &L->f, why, sizeof(why)) != 0)
		die("not a report file: ", why);
	while ((r = rf_next(&L->f, &off, &bad))) {
		if (r->type == RF_NAME && ((const struct rf_name *)(const void *)r)->id > L->max_name)
			L->max_name = ((const struct rf_name *)(const void *)r)->id;
		if (r->type == RF_THREAD && !((const struct rf_thread *)(const void *)r)->index)
			L->t0 = (const void *)r;
		if (r->type == RF_SITE && !L->first)
			L->first = (void *)(uintptr_t)r;
	}
	if (!L->t0 || !L->first)
		die("no thread 0 or no site to go on from", "");
}

/* The writer's side of the protocol: body, done, then tail. */
static void *live_add(struct live *L, uint64_t *tail, size_t size, uint16_t type)
{
	struct rf_record *r = (void *)(L->map + *tail);

	memset(r, 0, size);
	r->size = (uint32_t)size, r->type = type;
	*tail += size;
	return r;
}

static void publish(void *rec)
{
	__atomic_store_n(&((struct rf_record *)rec)->done, 1, __ATOMIC_RELEASE);
}

static void live_grow(struct live *L, size_t need)
{
	munmap(L->map, L->size);
	L->size = (need + 4095) & ~(size_t)4095;
	if (ftruncate(L->fd, (off_t)L->size) != 0)
		die("cannot grow the file: ", strerror(errno));
	L->map = mmap(NULL, L->size, PROT_READ | PROT_WRITE, MAP_SHARED, L->fd, 0);
	if (L->map == MAP_FAILED)
		die("cannot map: ", strerror(errno));
}

/* Thread 0 (running) publishes its running counts, as the shim does at
 * the end of an outermost region: 1000 more of each open event. */
static void publish_live(const struct rf_thread *t0)
{
	struct rf_thread *t = (void *)(uintptr_t)t0;
	uint32_t seq = t->live_seq;

	__atomic_store_n(&t->live_seq, seq + 1, __ATOMIC_RELEASE);
	for (uint32_t k = 0; k + 1 < t->nvalues; k++)
		t->live[k] += 1000;
	__atomic_store_n(&t->live_seq, seq + 2, __ATOMIC_RELEASE);
}

static void append(const char *path)
{
	struct live L = { .fd = open(path, O_RDWR) };
	struct stat st;
	struct rf_header *h;
	struct rf_name *n;
	struct rf_site *s;
	uint64_t tail;
	uint32_t seq;

	if (L.fd < 0 || fstat(L.fd, &st) != 0)
		die("cannot open ", path);
	L.size = (size_t)st.st_size;
	L.map = mmap(NULL, L.size, PROT_READ | PROT_WRITE, MAP_SHARED, L.fd, 0);
	if (L.map == MAP_FAILED)
		die("cannot map ", path);
	h = (void *)L.map;
	tail = h->tail;
	live_grow(&L, tail + 4096);
	h = (void *)L.map;
	live_scan(&L);
	/* the first site: ten more calls with 4 children, 2000 ticks, 1000 of
	 * every event; a thread with coverage: 1 ms enabled a call, 250 us of
	 * it running (so far its sites ran more: the interval has its own) */
	seq = rf_site_write_begin(L.first);
	L.first->calls += 10, L.first->child_calls += 4;
	L.first->v[0].incl += 2000, L.first->v[0].excl += 2000;
	for (uint32_t i = 1; i < L.first->nvalues; i++) {
		L.first->v[i].incl += 1000, L.first->v[i].excl += 1000;
		if (L.t0->coverage)
			L.first->v[i].enabled += 10000000, L.first->v[i].running += 2500000;
	}
	rf_site_write_end(L.first, seq);
	n = live_add(&L, &tail, rf_align(offsetof(struct rf_name, text) + 5), RF_NAME);
	n->id = L.max_name + 1, n->len = 4;
	memcpy(n->text, "late", 5);
	publish(n);
	s = live_add(&L, &tail, rf_site_size(L.t0->nvalues), RF_SITE);
	s->thread = 0, s->region = n->id, s->stack = 0, s->nvalues = L.t0->nvalues;
	/* in a tree, late ran inside the first site (which had not ended) */
	if (h->flags & RF_TREE)
		s->parent = (uint32_t)((unsigned char *)L.first - L.map);
	s->calls = 5;
	for (uint32_t i = 1; i < s->nvalues; i++)
		s->v[i] = (struct rf_stat){ 500, 500, 100, 100, 0, 0 };
	publish(s);
	__atomic_store_n(&h->tail, tail, __ATOMIC_RELEASE);
	publish_live(L.t0);
	munmap(L.map, L.size);
	close(L.fd);
}

/* What the shim does at exit: the end sample before the state. */
static void finish(const char *path)
{
	int fd = open(path, O_RDWR);
	struct rf_header *h;

	if (fd < 0)
		die("cannot open ", path);
	h = mmap(NULL, RF_HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		die("cannot map ", path);
	h->end_real_ns = h->start_real_ns + 1000000000u;
	h->end_mono_ns = mono_ns(), h->end_ticks = arch_ticks();
	h->ticks_per_ns = TPN;
	__atomic_store_n(&h->state, RF_EXITED, __ATOMIC_RELEASE);
	munmap(h, RF_HEADER_SIZE);
	close(fd);
}

static void zero_build_ids(const char *path)
{
	int fd = open(path, O_RDWR);
	struct stat st;
	unsigned char *map;
	struct rf_file f;
	const struct rf_record *r;
	uint64_t off = 0;
	int bad;
	char why[200];

	if (fd < 0 || fstat(fd, &st) != 0)
		die("cannot open ", path);
	map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED || rf_open_mem(map, (size_t)st.st_size, &f, why, sizeof(why)))
		die("not a report file: ", path);
	while ((r = rf_next(&f, &off, &bad)))
		if (r->type == RF_MODULE)
			strcpy(((struct rf_module *)(uintptr_t)r)->build_id, "00");
	munmap(map, (size_t)st.st_size);
	close(fd);
}

/* --event-names: the names replace the defaults, in order. */
static unsigned event_list(const char *list)
{
	char *copy = strdup(list), *save = NULL;
	unsigned n = 0;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (n == RF_EVENTS_MAX || strlen(t) >= sizeof(((struct rf_event *)0)->name))
			die("--event-names: at most 8 names, each short: ", list);
		event_names[n++] = t;	/* copy kept to the end */
	}
	return n;
}

/* ---- options ---------------------------------------------------------------- */

static unsigned long num(const char *opt, const char *v)
{
	char *end;
	unsigned long n = strtoul(v ? v : "", &end, 10);

	if (!v || !*v || *end)
		die("expected a number after ", opt);
	return n;
}

int main(int argc, char **argv)
{
	struct gen g = { .rows = 40, .threads = 4, .events = 3, .regions = 5, .stacks = 5,
			 .depth = 2, .state = "exited", .undone = -1, .truncate = -1, .rank = -1 };
	const char *out = NULL;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = argv[i + 1];

		if (!strcmp(a, "--append")) { append(v ? v : ""); return 0; }
		if (!strcmp(a, "--exit")) { finish(v ? v : ""); return 0; }
		if (!strcmp(a, "--zero-build-ids")) { zero_build_ids(v ? v : ""); return 0; }
		else if (!strcmp(a, "--event-names") && v) g.events = event_list(v), i++;
		else if (!strcmp(a, "--rows")) g.rows = (unsigned)num(a, v), i++;
		else if (!strcmp(a, "--threads")) g.threads = (unsigned)num(a, v), i++;
		else if (!strcmp(a, "--events")) g.events = (unsigned)num(a, v), i++;
		else if (!strcmp(a, "--regions")) g.regions = (unsigned)num(a, v), i++;
		else if (!strcmp(a, "--stacks")) g.stacks = (unsigned)num(a, v), i++;
		else if (!strcmp(a, "--id")) g.id = (unsigned)num(a, v), i++;
		else if (!strcmp(a, "--first-region")) g.first_region = (unsigned)num(a, v), i++;
		else if (!strcmp(a, "--depth")) g.depth = (unsigned)num(a, v), i++;
		else if (!strcmp(a, "--pid")) g.pid = (long)num(a, v), g.state = "running", i++;
		else if (!strcmp(a, "--before-wall")) g.before_wall_ms = (long)num(a, v), i++;
		else if (!strcmp(a, "--rank")) g.rank = (long)num(a, v), i++;
		else if (!strcmp(a, "--tree")) g.tree = (unsigned)num(a, v), i++;
		else if (!strcmp(a, "--size")) g.size = (long)num(a, v), i++;
		else if (!strcmp(a, "--undone")) g.undone = (long)num(a, v), i++;
		else if (!strcmp(a, "--truncate")) g.truncate = (long)num(a, v), i++;
		else if (!strcmp(a, "--state") && v) g.state = v, i++;
		else if (!strcmp(a, "--corrupt") && v) g.corrupt = v, i++;
		else if (!strcmp(a, "--first-name") && v) g.name0 = v, i++;
		else if (!strcmp(a, "--command") && v) g.command = v, i++;
		else if (!strcmp(a, "--cpu-ms")) g.cpu_ms = (unsigned)num(a, v), i++;
		else if (!strcmp(a, "--partial")) g.partial = 1;
		else if (!strcmp(a, "--dropped")) g.dropped = 1;
		else if (!strcmp(a, "--huge")) g.huge = 1;
		else if (!strcmp(a, "--calibrated")) g.calibrated = 1;
		else if (!strcmp(a, "--one-call-roots")) g.one_call_roots = 1;
		else if (!strcmp(a, "--multiplexed")) g.multiplexed = 1;
		else if (!strcmp(a, "--region-coverage")) g.region_cov = 1;
		else if (!strcmp(a, "--no-boot-id")) g.no_boot_id = 1;
		else if (!strcmp(a, "--odd-names")) g.odd_names = 1;
		else if (!strcmp(a, "--samples")) g.samples = 1;
		else if (!strcmp(a, "--sample-values")) g.sample_values = 1;
		else if (a[0] == '-') die("unknown option ", a);
		else out = a;
	}
	if (!out)
		die("usage: gen_report [OPTIONS] OUT | gen_report --append FILE", "");
	generate(&g, out);
	free(g.buf);
	return 0;
}
