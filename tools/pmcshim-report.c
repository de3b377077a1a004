/*
 * pmcshim-report: a first, minimal reader for pmcshim JSON reports
 * (docs/report-format.md).  Prints one header line per file, a region table
 * merged over all threads and files, a thread table and the marker errors.
 * Stacks and modules are not read yet.
 *
 * Each report is checked in full against a schema before anything is
 * printed: a bad file gives exactly one line on stderr and exit status 2,
 * and the printing code can then use values without checking types again.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#define PROG "pmcshim-report"
#define PRINTF(f, a) __attribute__((format(printf, f, a)))

static _Noreturn void oom(void)
{
	fputs(PROG ": out of memory\n", stderr);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	if (!(p = realloc(p, n ? n : 1)))
		oom();
	return p;
}

static void *xcalloc(size_t n, size_t size)
{
	return memset(xrealloc(NULL, n * size), 0, n * size);
}

/* Only used on validated reports, where the field exists with its type. */
static uint64_t u64(const json_t *obj, const char *key)
{
	return (uint64_t)json_integer_value(json_object_get(obj, key));
}

static const char *str(const json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

/* ---- validation --------------------------------------------------------- */

/* Why the report being loaded was rejected: printed after its file name. */
static char why[512];

static bool PRINTF(1, 2) fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return false;
}

enum kind { K_OBJ, K_ARR, K_STR, K_U64 };
enum { OPT = 1, NUL = 2, PER_EVENT = 4 }; /* may be absent, may be null, one per event */

/* The schema of the fields this reader uses; other fields are ignored. */
struct field {
	const char *key; /* NULL ends a list of fields */
	enum kind kind;
	unsigned flags;
	const struct field *sub; /* K_OBJ: its fields; K_ARR: its element */
};

#define END { 0 }
static const struct field stat_f[] = {
	{ "incl", K_U64, 0, NULL }, { "excl", K_U64, 0, NULL }, END };
static const struct field region_f[] = {
	{ "region", K_STR, 0, NULL }, { "calls", K_U64, 0, NULL },
	{ "wall_ns", K_OBJ, 0, stat_f },
	{ "events", K_ARR, PER_EVENT, &(const struct field){ NULL, K_OBJ, NUL, stat_f } }, END };
static const struct field total_f[] = {
	{ "value", K_U64, NUL, NULL }, { "status", K_STR, 0, NULL },
	{ "scaled", K_U64, OPT, NULL }, END };
static const struct field thread_f[] = {
	{ "tid", K_U64, 0, NULL }, { "name", K_STR, 0, NULL }, { "state", K_STR, 0, NULL },
	{ "setup", K_STR, 0, NULL }, { "wall_ns", K_U64, 0, NULL }, { "cpu_ns", K_U64, NUL, NULL },
	{ "totals", K_ARR, PER_EVENT, &(const struct field){ NULL, K_OBJ, 0, total_f } },
	{ "regions", K_ARR, 0, &(const struct field){ NULL, K_OBJ, 0, region_f } }, END };
static const struct field event_f[] = {
	{ "name", K_STR, 0, NULL }, { "source", K_STR, 0, NULL },
	{ "reason", K_STR, OPT, NULL }, END };
static const struct field error_f[] = {
	{ "kind", K_STR, 0, NULL }, { "tid", K_U64, 0, NULL }, { "region", K_STR, 0, NULL },
	{ "open", K_STR, OPT, NULL }, { "count", K_U64, 0, NULL }, END };
static const struct field process_f[] = {
	{ "pid", K_U64, 0, NULL }, { "executable", K_STR, 0, NULL },
	{ "wall_ns", K_U64, 0, NULL }, END };
/* "events" first: the per-event arrays are checked against its length. */
static const struct field report_f[] = {
	{ "events", K_ARR, 0, &(const struct field){ NULL, K_OBJ, 0, event_f } },
	{ "process", K_OBJ, 0, process_f },
	{ "threads", K_ARR, 0, &(const struct field){ NULL, K_OBJ, 0, thread_f } },
	{ "errors", K_ARR, 0, &(const struct field){ NULL, K_OBJ, 0, error_f } }, END };

static bool check_value(const json_t *v, const char *where, const struct field *f, size_t nev);

static bool check_fields(const json_t *v, const char *where, const struct field *f, size_t nev)
{
	char at[256];

	for (; f->key; f++) {
		const json_t *x = json_object_get(v, f->key);

		snprintf(at, sizeof(at), "%.200s%s%s", where, *where ? "." : "", f->key);
		if (!x && !(f->flags & OPT))
			return fail("%s: missing", at);
		if (x && !check_value(x, at, f, nev))
			return false;
	}
	return true;
}

/* where names the value for the message, e.g. "threads[2].regions[7].calls". */
static bool check_value(const json_t *v, const char *where, const struct field *f, size_t nev)
{
	static const char *const want[] = {
		"an object", "an array", "a string", "a non-negative integer" };
	/* jansson integers are signed; the format's numbers never are. */
	bool ok = f->kind == K_OBJ ? json_is_object(v) : f->kind == K_ARR ? json_is_array(v) :
		  f->kind == K_STR ? json_is_string(v) :
		  json_is_integer(v) && json_integer_value(v) >= 0;
	char at[256];
	json_t *x;
	size_t i;

	if (json_is_null(v) && (f->flags & NUL))
		return true;
	if (!ok)
		return fail("%s: expected %s%s", where, want[f->kind], f->flags & NUL ? " or null" : "");
	if (f->kind == K_OBJ)
		return check_fields(v, where, f->sub, nev);
	if (f->kind != K_ARR)
		return true;
	if ((f->flags & PER_EVENT) && json_array_size(v) != nev)
		return fail("%s: %zu entries instead of %zu (one per event)",
			    where, json_array_size(v), nev);
	json_array_foreach(v, i, x) {
		snprintf(at, sizeof(at), "%.200s[%zu]", where, i);
		if (!check_value(x, at, f->sub, nev))
			return false;
	}
	return true;
}

static bool check_report(const json_t *r)
{
	const json_t *fmt = json_object_get(r, "format"), *ver = json_object_get(r, "version");

	if (!json_is_object(r))
		return fail("not a pmcshim report (the top level is not an object)");
	if (!json_is_string(fmt) || strcmp(json_string_value(fmt), "pmcshim-report"))
		return fail("not a pmcshim report (\"format\" is not \"pmcshim-report\")");
	if (!json_is_integer(ver))
		return fail("version: missing or not an integer");
	if (json_integer_value(ver) != 1)
		return fail("report version %" JSON_INTEGER_FORMAT " is not supported "
			    "(this reader understands version 1)", json_integer_value(ver));
	return check_fields(r, "", report_f, json_array_size(json_object_get(r, "events")));
}

/* Returns the parsed, validated report, or NULL with the reason in why. */
static json_t *load_report(const char *path)
{
	json_error_t err;
	json_t *root;
	FILE *f = fopen(path, "r");

	if (!f) {
		fail("cannot open: %s", strerror(errno));
		return NULL;
	}
	root = json_loadf(f, JSON_REJECT_DUPLICATES, &err);
	if (!root && ferror(f)) /* e.g. a directory */
		fail("cannot read: %s", strerror(errno));
	else if (!root && err.position == 0)
		fail("empty file");
	else if (!root)
		fail("malformed JSON at line %d, column %d: %s", err.line, err.column, err.text);
	fclose(f);
	if (root && !check_report(root))
		json_decref(root), root = NULL;
	return root;
}

/* ---- numbers and tables ------------------------------------------------- */

enum how { COUNT, TIME, EXACT };

/* Three significant digits and a unit ("12.3 ms", "1.23 G", "456 k"), or
 * EXACT with thousands separators ("12,772") where exactness matters.
 * b holds at least 32 bytes. */
static char *fmt_num(char *b, uint64_t v, enum how how)
{
	static const char *const unit[2][7] = {
		{ "", " k", " M", " G", " T", " P", " E" }, { " ns", " us", " ms", " s" } };
	size_t u = 0, nunit = how == TIME ? 4 : 7;
	double x = (double)v;
	char d[24];

	if (how == EXACT) {
		int n = snprintf(d, sizeof(d), "%" PRIu64, v), o = 0;

		for (int i = 0; i < n; i++) {
			if (i && (n - i) % 3 == 0)
				b[o++] = ',';
			b[o++] = d[i];
		}
		b[o] = '\0';
		return b;
	}
	/* 999.5 would print as "1000": move to the next unit before that. */
	for (; u + 1 < nunit && x >= 999.5; u++)
		x /= 1000;
	snprintf(b, 32, u == 0 || x >= 99.95 ? "%.0f%s" : x >= 9.995 ? "%.1f%s" : "%.2f%s",
		 x, unit[how][u]);
	return b;
}

/* Software clock events count nanoseconds, not occurrences. */
static enum how event_how(const char *name)
{
	return strcmp(name, "task-clock") && strcmp(name, "cpu-clock") ? COUNT : TIME;
}

/* Filled cell by cell, row by row; row 0 is the heading. */
struct table {
	size_t ncol, n;
	char **cell;
	unsigned left; /* bit c set: column c is text, left-aligned */
};

static void PRINTF(2, 3) tput(struct table *t, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		oom();
	va_end(ap);
	t->cell = xrealloc(t->cell, (t->n + 1) * sizeof(*t->cell));
	t->cell[t->n++] = s;
}

/* Display width: count UTF-8 lead bytes so names in any script align. */
static int width(const char *s)
{
	int w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* Prints and frees the table; column widths come from the data. */
static void tprint(struct table *t)
{
	int *w = xcalloc(t->ncol, sizeof(*w));

	for (size_t i = 0; i < t->n; i++)
		if (width(t->cell[i]) > w[i % t->ncol])
			w[i % t->ncol] = width(t->cell[i]);
	for (size_t i = 0; i < t->n; i++) {
		size_t c = i % t->ncol;
		int pad = w[c] - width(t->cell[i]);
		bool left = c < 32 && (t->left >> c & 1), last = c + 1 == t->ncol;

		printf("%s%*s%s%*s%s", c ? "  " : "", left ? 0 : pad, "", t->cell[i],
		       left && !last ? pad : 0, "", last ? "\n" : "");
		free(t->cell[i]);
	}
	free(t->cell);
	free(w);
}

/* ---- region table ------------------------------------------------------- */

/* A sum over region rows; have/miss count rows with a value / with null. */
struct sum {
	uint64_t incl, excl;
	size_t have, miss;
};

struct row {
	const char *name; /* points into a report, which outlives the row */
	uint64_t calls, key;
	struct sum wall, *ev;
};

struct agg {
	struct row *row;
	size_t n, nev;
};

struct ctx {
	json_t **doc;
	size_t ndoc;
	const char **ev; /* union of event names over all files, first-seen order */
	size_t nev;
	int **map; /* map[file][event in ev] = its index in that file, or -1 */
	bool per_thread;
};

static void sum_add(struct sum *s, const json_t *stat)
{
	if (!json_is_object(stat)) {
		s->miss++;
		return;
	}
	s->incl += u64(stat, "incl");
	s->excl += u64(stat, "excl");
	s->have++;
}

static struct row *agg_row(struct agg *a, const char *name)
{
	struct row *r;

	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->row[i].name, name))
			return &a->row[i];
	a->row = xrealloc(a->row, (a->n + 1) * sizeof(*a->row));
	r = memset(&a->row[a->n++], 0, sizeof(*r));
	r->name = name;
	r->ev = xcalloc(a->nev, sizeof(*r->ev));
	return r;
}

/* Adds a thread's rows (one per region and call-site stack) by region name.
 * Summing incl is safe: recursion only adds at the outermost activation. */
static void agg_thread(struct agg *a, const json_t *thread, const int *map)
{
	const json_t *regions = json_object_get(thread, "regions");
	json_t *reg;
	size_t i;

	json_array_foreach(regions, i, reg) {
		struct row *r = agg_row(a, str(reg, "region"));
		const json_t *evs = json_object_get(reg, "events");

		r->calls += u64(reg, "calls");
		sum_add(&r->wall, json_object_get(reg, "wall_ns"));
		for (size_t g = 0; g < a->nev; g++)
			sum_add(&r->ev[g], map[g] < 0 ? NULL : json_array_get(evs, (size_t)map[g]));
	}
}

/* Sort key: the first event with a value in every row; -1 means wall time. */
static int sort_event(const struct agg *a)
{
	for (size_t g = 0; g < a->nev; g++) {
		size_t i = 0;

		while (i < a->n && !a->row[i].ev[g].miss)
			i++;
		if (i == a->n)
			return (int)g;
	}
	return -1;
}

static int by_key(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;

	return a->key != b->key ? (a->key < b->key ? 1 : -1) : strcmp(a->name, b->name);
}

/* The incl and excl cells: n/a when no thread had the event, a '+' mark
 * when only some threads had it (a null is never summed as 0). */
static void put_sum(struct table *t, const struct sum *s, enum how how, bool *partial)
{
	const char *mark = s->miss ? "+" : "";
	char b[32];

	*partial |= s->have && s->miss;
	if (!s->have) {
		tput(t, "n/a"), tput(t, "n/a");
		return;
	}
	tput(t, "%s%s", fmt_num(b, s->incl, how), mark);
	tput(t, "%s%s", fmt_num(b, s->excl, how), mark);
}

/* Prints the table and frees the aggregate. */
static void print_regions(const struct ctx *c, struct agg *a, const char *title)
{
	struct table t = { .ncol = 5 + 2 * a->nev, .left = 1 };
	int key = sort_event(a);
	const char *kname = key < 0 ? "wall" : c->ev[key];
	uint64_t total = 0;
	bool partial = false;
	char b[32];

	printf("\n## %s\n", title);
	if (!a->n) {
		puts("(no regions)");
		free(a->row);
		return;
	}
	for (size_t i = 0; i < a->n; i++) {
		const struct sum *s = key < 0 ? &a->row[i].wall : &a->row[i].ev[key];

		a->row[i].key = s->incl;
		total += s->excl;
	}
	qsort(a->row, a->n, sizeof(*a->row), by_key);
	printf("sorted by %s incl; %% = share of all regions' %s excl\n", kname, kname);
	tput(&t, "region"), tput(&t, "%%"), tput(&t, "calls");
	tput(&t, "wall incl"), tput(&t, "wall excl");
	for (size_t g = 0; g < a->nev; g++)
		tput(&t, "%s incl", c->ev[g]), tput(&t, "%s excl", c->ev[g]);
	for (size_t i = 0; i < a->n; i++) {
		const struct row *r = &a->row[i];
		const struct sum *s = key < 0 ? &r->wall : &r->ev[key];

		tput(&t, "%s", r->name);
		tput(&t, "%.1f", total ? 100.0 * (double)s->excl / (double)total : 0.0);
		tput(&t, "%s", fmt_num(b, r->calls, EXACT));
		put_sum(&t, &r->wall, TIME, &partial);
		for (size_t g = 0; g < a->nev; g++)
			put_sum(&t, &r->ev[g], event_how(c->ev[g]), &partial);
		free(r->ev);
	}
	tprint(&t);
	free(a->row);
	if (partial)
		puts("+ partial: some threads did not count this event; "
		     "the sum covers only those that did");
}

/* ---- per-file output ---------------------------------------------------- */

static void print_header(const json_t *doc)
{
	const json_t *p = json_object_get(doc, "process"), *evs = json_object_get(doc, "events");
	size_t nthr = json_array_size(json_object_get(doc, "threads")), i;
	json_t *ev;
	char b[32];

	printf("# %s (pid %" PRIu64 "%s, %zu thread%s, wall %s) events:", str(p, "executable"),
	       u64(p, "pid"), json_is_true(json_object_get(p, "forked")) ? ", forked" : "",
	       nthr, nthr == 1 ? "" : "s", fmt_num(b, u64(p, "wall_ns"), TIME));
	json_array_foreach(evs, i, ev) {
		const char *reason = str(ev, "reason");

		printf("%s %s [%s%s%s]", i ? "," : "", str(ev, "name"), str(ev, "source"),
		       reason ? ": " : "", reason ? reason : "");
	}
	puts(json_array_size(evs) ? "" : " none");
}

/* A thread's total: the value, the scaled estimate marked '*' when the
 * counter was multiplexed, or why there is none ("n/a", "not counted"). */
static void put_total(struct table *t, const json_t *tot, enum how how, bool *mux)
{
	const char *status = str(tot, "status");
	const json_t *v = json_object_get(tot, "value"), *scaled = json_object_get(tot, "scaled");
	bool est = !strcmp(status, "multiplexed");
	char b[32];

	if (json_is_null(v)) {
		tput(t, "%s", strcmp(status, "unavailable") ? status : "n/a");
		return;
	}
	*mux |= est;
	tput(t, "%s%s", fmt_num(b, (uint64_t)json_integer_value(est && scaled ? scaled : v), how),
	     est ? "*" : "");
}

static void print_threads(const json_t *doc)
{
	const json_t *p = json_object_get(doc, "process"), *evs = json_object_get(doc, "events");
	const json_t *threads = json_object_get(doc, "threads");
	struct table t = { .ncol = 6 + json_array_size(evs), .left = 0xe };
	bool mux = false;
	json_t *th, *ev;
	size_t i, k;
	char b[32];

	printf("\n## threads of %s (pid %" PRIu64 ")\n", str(p, "executable"), u64(p, "pid"));
	tput(&t, "tid"), tput(&t, "name"), tput(&t, "state"), tput(&t, "setup");
	tput(&t, "wall"), tput(&t, "cpu");
	json_array_foreach(evs, k, ev)
		tput(&t, "%s", str(ev, "name"));
	json_array_foreach(threads, i, th) {
		tput(&t, "%" PRIu64, u64(th, "tid"));
		tput(&t, "%s", str(th, "name")), tput(&t, "%s", str(th, "state"));
		tput(&t, "%s", str(th, "setup"));
		tput(&t, "%s", fmt_num(b, u64(th, "wall_ns"), TIME));
		tput(&t, "%s", json_is_null(json_object_get(th, "cpu_ns")) ? "n/a" :
			       fmt_num(b, u64(th, "cpu_ns"), TIME));
		json_array_foreach(evs, k, ev)
			put_total(&t, json_array_get(json_object_get(th, "totals"), k),
				  event_how(str(ev, "name")), &mux);
	}
	tprint(&t);
	if (mux)
		puts("* multiplexed: the counter ran only part of the time; shown is the "
		     "scaled estimate, value x enabled / running");
}

static void print_errors(const json_t *doc)
{
	const json_t *errs = json_object_get(doc, "errors");
	json_t *e;
	size_t i;
	char b[32];

	if (json_array_size(errs))
		puts("errors:");
	json_array_foreach(errs, i, e) {
		const char *open = str(e, "open"), *region = str(e, "region");

		printf("  %s  tid %" PRIu64 "  region %s%s%s  count %s\n", str(e, "kind"),
		       u64(e, "tid"), *region ? region : "-", open ? "  open " : "",
		       open ? open : "", fmt_num(b, u64(e, "count"), EXACT));
	}
}

/* ---- whole report ------------------------------------------------------- */

/* Files may list different events: the columns are their union, by name. */
static void map_events(struct ctx *c)
{
	size_t total = 0, i, f, g;
	json_t *ev;

	for (f = 0; f < c->ndoc; f++)
		total += json_array_size(json_object_get(c->doc[f], "events"));
	c->ev = xcalloc(total, sizeof(*c->ev));
	c->map = xcalloc(c->ndoc, sizeof(*c->map));
	for (f = 0; f < c->ndoc; f++) {
		c->map[f] = xcalloc(total, sizeof(int));
		for (g = 0; g < total; g++)
			c->map[f][g] = -1;
		json_array_foreach(json_object_get(c->doc[f], "events"), i, ev) {
			for (g = 0; g < c->nev && strcmp(c->ev[g], str(ev, "name")); g++)
				;
			if (g == c->nev)
				c->ev[c->nev++] = str(ev, "name");
			if (c->map[f][g] < 0) /* a name listed twice: keep the first */
				c->map[f][g] = (int)i;
		}
	}
}

static void report(struct ctx *c)
{
	struct agg a = { .nev = 0 };
	json_t *th;
	size_t f, i;
	char title[512];

	for (f = 0; f < c->ndoc; f++)
		print_header(c->doc[f]);
	map_events(c);
	a.nev = c->nev;
	for (f = 0; f < c->ndoc; f++)
		json_array_foreach(json_object_get(c->doc[f], "threads"), i, th)
			agg_thread(&a, th, c->map[f]);
	print_regions(c, &a, c->ndoc > 1 ? "regions, all threads of all files merged" :
					   "regions, all threads merged");
	for (f = 0; c->per_thread && f < c->ndoc; f++) {
		json_array_foreach(json_object_get(c->doc[f], "threads"), i, th) {
			struct agg t = { .nev = c->nev };

			snprintf(title, sizeof(title), "regions of thread %" PRIu64 " %.200s (pid %"
				 PRIu64 ")", u64(th, "tid"), str(th, "name"),
				 u64(json_object_get(c->doc[f], "process"), "pid"));
			agg_thread(&t, th, c->map[f]);
			print_regions(c, &t, title);
		}
	}
	for (f = 0; f < c->ndoc; f++) {
		print_threads(c->doc[f]);
		print_errors(c->doc[f]);
	}
}

static void usage(FILE *out)
{
	fputs("usage: " PROG " [--threads] FILE...\n"
	      "Summarize pmcshim JSON reports: regions merged over all threads and\n"
	      "files, then per-thread totals and marker errors.\n"
	      "  --threads  also print each thread's own region table\n"
	      "  --help     show this help\n"
	      "Exit status: 0 ok, 2 bad usage or an unreadable or invalid report.\n", out);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "threads", no_argument, NULL, 't' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 } };
	struct ctx c = { 0 };
	char **path;
	int rc = 0, o;

	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (o != 't') {
			usage(o == 'h' ? stdout : stderr); /* getopt named a bad option */
			return o == 'h' ? 0 : 2;
		}
		c.per_thread = true;
	}
	path = argv + optind, c.ndoc = (size_t)(argc - optind);
	if (!c.ndoc) {
		usage(stderr);
		return 2;
	}
	c.doc = xcalloc(c.ndoc, sizeof(*c.doc));
	for (size_t i = 0; rc == 0 && i < c.ndoc; i++) {
		if (!(c.doc[i] = load_report(path[i]))) {
			fprintf(stderr, PROG ": %s: %s\n", path[i], why);
			rc = 2;
		}
	}
	if (rc == 0) {
		report(&c);
		if (fflush(stdout)) { /* e.g. a full disk */
			fprintf(stderr, PROG ": write error: %s\n", strerror(errno));
			rc = 1;
		}
	}
	for (size_t i = 0; i < c.ndoc; i++) {
		json_decref(c.doc[i]);
		if (c.map)
			free(c.map[i]);
	}
	free(c.map), free(c.ev), free(c.doc);
	return rc;
}
