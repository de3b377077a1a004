/* The metrics files: one definition a line.
 *
 *   # a comment
 *   NAME = EXPRESSION [; UNIT [; DESCRIPTION]]
 *   group NAME = METRIC, METRIC... [; DESCRIPTION]
 *
 * EXPRESSION: event names and numbers with + - * / and parentheses. An
 * event name may hold '-' (branch-misses): a minus between two names
 * needs a blank before it. A later definition of a name replaces the
 * earlier one (an architecture's file refines the generic one). */
#include "metrics_def.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define MAX_TERMS 64
#define MAX_DEPTH 32			/* the parser recurses: bounded */

static _Noreturn void no_memory(void)
{
	fputs("pmcshim: out of memory\n", stderr);
	exit(1);
}

static void *more(void *p, size_t n, size_t size)
{
	if (!(p = realloc(p, (n ? n : 1) * size)))
		no_memory();
	return p;
}

static const char *keep(struct mdefs *d, const char *s, size_t n)
{
	char *c = strndup(s, n);

	if (!c)
		no_memory();
	d->strings = more(d->strings, d->nstr + 1, sizeof(*d->strings));
	return d->strings[d->nstr++] = c;
}

/* ---- expressions ---------------------------------------------------------- */

struct parse {
	struct mdefs *d;
	const char *p;
	struct mterm term[MAX_TERMS];
	size_t n;
	int depth;			/* parentheses and minus signs open */
	char why[160];
};

static int bad(struct parse *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(struct parse *ps, const char *fmt, ...)
{
	va_list ap;

	if (!ps->why[0]) {
		va_start(ap, fmt);
		vsnprintf(ps->why, sizeof(ps->why), fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int emit(struct parse *ps, struct mterm t)
{
	if (ps->n == MAX_TERMS)
		return bad(ps, "the expression is too long (%d terms at most)", MAX_TERMS);
	ps->term[ps->n++] = t;
	return 0;
}

static void blanks(struct parse *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t')
		ps->p++;
}

static bool name_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == ':' || c == '-';
}

static int expr(struct parse *ps);

static int primary(struct parse *ps)
{
	const char *s;
	char *end;
	double v;

	blanks(ps);
	s = ps->p;
	if (*s == '(') {
		ps->p++;
		if (++ps->depth > MAX_DEPTH)
			return bad(ps, "parentheses nested deeper than %d", MAX_DEPTH);
		if (expr(ps))
			return -1;
		ps->depth--;
		blanks(ps);
		if (*ps->p != ')')
			return bad(ps, "')' expected at '%.20s'", ps->p);
		ps->p++;
		return 0;
	}
	if (name_start(*s)) {
		while (name_char(*ps->p))
			ps->p++;
		return emit(ps, (struct mterm){ .op = 'e', .ev = keep(ps->d, s, (size_t)(ps->p - s)) });
	}
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isdigit((unsigned char)*s))
		return *s ? bad(ps, "an event name, a number or '(' expected at '%.20s'", s) :
			    bad(ps, "the expression ends early");
	ps->p = end;
	return emit(ps, (struct mterm){ .num = v });
}

static int unary(struct parse *ps)
{
	blanks(ps);
	if (*ps->p == '-') {
		ps->p++;
		if (++ps->depth > MAX_DEPTH)
			return bad(ps, "more than %d minus signs in a row", MAX_DEPTH);
		if (unary(ps))
			return -1;
		ps->depth--;
		return emit(ps, (struct mterm){ .op = 'n' });
	}
	return primary(ps);
}

/* One precedence level: next (op next)... with op one of ops. */
static int level(struct parse *ps, const char *ops, int (*next)(struct parse *))
{
	char op;

	if (next(ps))
		return -1;
	for (blanks(ps); *ps->p && strchr(ops, *ps->p); blanks(ps)) {
		op = *ps->p++;
		if (next(ps) || emit(ps, (struct mterm){ .op = op }))
			return -1;
	}
	return 0;
}

static int product(struct parse *ps)
{
	return level(ps, "*/", unary);
}

static int expr(struct parse *ps)
{
	return level(ps, "+-", product);
}

bool metric_eval(const struct metric *m, bool (*value)(void *arg, const char *ev, double *v),
		 void *arg, double *out)
{
	double st[MAX_TERMS];
	size_t n = 0;

	for (size_t i = 0; i < m->nterm; i++) {
		const struct mterm *t = &m->term[i];

		if (!t->op)
			st[n++] = t->num;
		else if (t->op == 'e') {
			if (!value(arg, t->ev, &st[n++]))
				return false;
		} else if (t->op == 'n')
			st[n - 1] = -st[n - 1];
		else {
			double b = st[--n], *a = &st[n - 1];

			if (t->op == '/' && b == 0)
				return false;
			*a = t->op == '+' ? *a + b : t->op == '-' ? *a - b :
			     t->op == '*' ? *a * b : *a / b;
		}
	}
	*out = st[0];
	return n == 1;
}

/* ---- lines ------------------------------------------------------------------ */

static const char *trimmed(struct mdefs *d, const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return keep(d, s, n);
}

static bool good_name(const char *s)
{
	if (!name_start(*s))
		return false;
	for (; *s; s++)
		if (!name_char(*s) && *s != '%')
			return false;
	return true;
}

static void add_event(struct metric *m, const char *ev)
{
	for (size_t i = 0; i < m->nev; i++)
		if (!strcmp(m->ev[i], ev))
			return;
	m->ev = more(m->ev, m->nev + 1, sizeof(*m->ev));
	m->ev[m->nev++] = ev;
}

static struct metric *metric_slot(struct mdefs *d, const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->m[i].name, name)) {
			free(d->m[i].term), free(d->m[i].ev);
			return &d->m[i];
		}
	d->m = more(d->m, d->n + 1, sizeof(*d->m));
	return &d->m[d->n++];
}

/* rest: "EXPRESSION [; UNIT [; DESCRIPTION]]" */
static int parse_metric(struct parse *ps, const char *name, const char *rest)
{
	const char *semi = strchr(rest, ';'), *semi2;
	struct metric *m;
	char *e = strndup(rest, semi ? (size_t)(semi - rest) : strlen(rest));

	if (!e)
		no_memory();
	ps->p = e, ps->n = 0, ps->depth = 0;
	if (expr(ps) == 0 && (blanks(ps), *ps->p))
		bad(ps, "unexpected '%.20s'", ps->p);
	free(e);
	if (ps->why[0])
		return -1;
	m = metric_slot(ps->d, name);
	memset(m, 0, sizeof(*m));
	m->name = name;
	m->term = more(NULL, ps->n, sizeof(*m->term));
	memcpy(m->term, ps->term, ps->n * sizeof(*m->term));
	m->nterm = ps->n;
	for (size_t i = 0; i < ps->n; i++)
		if (ps->term[i].op == 'e')
			add_event(m, ps->term[i].ev);
	semi2 = semi ? strchr(semi + 1, ';') : NULL;
	m->unit = semi ? trimmed(ps->d, semi + 1, semi2 ? (size_t)(semi2 - semi - 1) :
				 strlen(semi + 1)) : "";
	m->desc = semi2 ? trimmed(ps->d, semi2 + 1, strlen(semi2 + 1)) : "";
	return 0;
}

/* rest: "METRIC, METRIC... [; DESCRIPTION]"; the metrics are checked when
 * chosen (a group may name one of a later file). */
static int parse_group(struct parse *ps, const char *name, const char *rest)
{
	const char *semi = strchr(rest, ';'), *end = semi ? semi : rest + strlen(rest);
	struct mgroup g = { .name = name, .desc = semi ? trimmed(ps->d, semi + 1,
								 strlen(semi + 1)) : "" };

	for (const char *p = rest; p < end;) {
		const char *c = memchr(p, ',', (size_t)(end - p)), *q = c ? c : end;
		const char *mname = trimmed(ps->d, p, (size_t)(q - p));

		if (!good_name(mname))
			return free(g.metric), bad(ps, "group %s: '%s' is not a metric name", name,
						   mname);
		g.metric = more(g.metric, g.n + 1, sizeof(*g.metric));
		g.metric[g.n++] = mname;
		p = q + 1;
	}
	if (!g.n)
		return bad(ps, "group %s names no metric", name);
	for (size_t i = 0; i < ps->d->ngroup; i++)
		if (!strcmp(ps->d->g[i].name, name)) {
			free(ps->d->g[i].metric);
			ps->d->g[i] = g;
			return 0;
		}
	ps->d->g = more(ps->d->g, ps->d->ngroup + 1, sizeof(*ps->d->g));
	ps->d->g[ps->d->ngroup++] = g;
	return 0;
}

static int parse_line(struct parse *ps, char *line)
{
	char *eq, *s = line;
	bool group;
	const char *name;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s || *s == '#')
		return 0;
	group = !strncmp(s, "group", 5) && isspace((unsigned char)s[5]);
	if (group)
		s += 6;
	if (!(eq = strchr(s, '=')))
		return bad(ps, "'=' expected (NAME = EXPRESSION, or group NAME = METRIC, ...)");
	name = trimmed(ps->d, s, (size_t)(eq - s));
	if (!good_name(name))
		return bad(ps, "'%s' is not a name (a letter, then letters, digits, _ . : - %%)",
			   name);
	return group ? parse_group(ps, name, eq + 1) : parse_metric(ps, name, eq + 1);
}

static int parse_file(struct mdefs *d, const char *path, char *why, size_t len)
{
	FILE *f = fopen(path, "r");
	struct parse ps = { .d = d };
	char *line = NULL;
	size_t cap = 0;
	int n = 0, rc = 0;

	if (!f) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		n++;
		line[strcspn(line, "\n")] = '\0';
		if (parse_line(&ps, line)) {
			snprintf(why, len, "%s:%d: %s", path, n, ps.why);
			for (char *c = why; *c; c++)	/* the file's bytes, quoted */
				if ((unsigned char)*c < 0x20 || *c == 0x7f)
					*c = '?';
			rc = -1;
			break;
		}
		for (size_t i = 0; i < d->n; i++)
			if (!d->m[i].file)
				d->m[i].file = keep(d, path, strlen(path)), d->m[i].line = n;
	}
	free(line);
	fclose(f);
	if (!rc) {
		d->files = more(d->files, d->nfiles + 1, sizeof(*d->files));
		d->files[d->nfiles++] = (char *)keep(d, path, strlen(path));
	}
	return rc;
}

/* ---- finding the files ---------------------------------------------------- */

static bool metrics_dir(char *out, size_t len)
{
	static const char *const rel[] = { "../metrics", "../share/pmcshim/metrics" };
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return false;
	exe[n] = '\0';
	if (!(slash = strrchr(exe, '/')))
		return false;
	*slash = '\0';
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		if ((size_t)snprintf(out, len, "%s/%s/generic.def", exe, rel[i]) < len &&
		    access(out, R_OK) == 0)
			return (size_t)snprintf(exe + strlen(exe), sizeof(exe) - strlen(exe), "/%s",
						rel[i]) < sizeof(exe) - strlen(exe) &&
			       realpath(exe, out) != NULL;
	}
	return false;
}

/* The CPU's maker, as the metrics files are named (x86_64-intel.def):
 * events such as topdown-* or L2_RQSTS exist on one maker's cores only. */
static const char *cpu_vendor(void)
{
	static const struct { const char *id, *name; } known[] = {
		{ "GenuineIntel", "intel" }, { "AuthenticAMD", "amd" }, { "HygonGenuine", "amd" },
	};
	const char *name = NULL;
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "re");

	while (f && !name && fgets(line, sizeof(line), f))
		for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			if (!strncmp(line, "vendor_id", 9) && strstr(line, known[i].id))
				name = known[i].name;
	if (f)
		fclose(f);
	return name;
}

/* dir/NAME.def when there is one: 0; -1 when it does not parse. */
static int parse_if_there(struct mdefs *d, const char *dir, const char *name, char *why,
			  size_t len)
{
	char path[PATH_MAX + 64];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s.def", dir, name) >= sizeof(path) ||
	    access(path, F_OK) != 0)
		return 0;
	return parse_file(d, path, why, len);
}

int mdefs_load(struct mdefs *d, const char *extra, char *why, size_t len)
{
	char dir[PATH_MAX], arch[128];
	const char *vendor = cpu_vendor();
	struct utsname u;

	memset(d, 0, sizeof(*d));
	if (metrics_dir(dir, sizeof(dir))) {
		snprintf(arch, sizeof(arch), "%s", uname(&u) ? "unknown" : u.machine);
		if (parse_if_there(d, dir, "generic", why, len) ||
		    parse_if_there(d, dir, arch, why, len))
			return -1;
		if (vendor && strlen(arch) + strlen(vendor) + 2 <= sizeof(arch) &&
		    parse_if_there(d, dir, strcat(strcat(arch, "-"), vendor), why, len))
			return -1;
	}
	if (extra)
		return parse_file(d, extra, why, len);
	if (!d->nfiles) {
		snprintf(why, len, "no metrics files (neither ../metrics nor ../share/pmcshim/metrics "
			 "beside the program: an incomplete install?)");
		return -1;
	}
	return 0;
}

void mdefs_free(struct mdefs *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->m[i].term), free(d->m[i].ev);
	for (size_t i = 0; i < d->ngroup; i++)
		free(d->g[i].metric);
	for (size_t i = 0; i < d->nstr; i++)
		free(d->strings[i]);
	free(d->m), free(d->g), free(d->files), free(d->strings);
	memset(d, 0, sizeof(*d));
}

const struct metric *mdefs_find(const struct mdefs *d, const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->m[i].name, name))
			return &d->m[i];
	return NULL;
}

static const struct mgroup *group_find(const struct mdefs *d, const char *name)
{
	for (size_t i = 0; i < d->ngroup; i++)
		if (!strcmp(d->g[i].name, name))
			return &d->g[i];
	return NULL;
}

static int pick(const struct metric **out, int n, int max, const struct metric *m)
{
	for (int i = 0; i < n; i++)
		if (out[i] == m)
			return n;
	if (n < max)
		out[n++] = m;
	return n;
}

int mdefs_select(const struct mdefs *d, const char *list, const struct metric **out, int max,
		 char *why, size_t len)
{
	char *copy = strdup(list), *save = NULL;
	int n = 0;

	if (!copy)
		no_memory();
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const struct metric *m = mdefs_find(d, t);
		const struct mgroup *g = m ? NULL : group_find(d, t);

		for (size_t i = 0; g && i < g->n; i++) {
			if (!(m = mdefs_find(d, g->metric[i]))) {
				snprintf(why, len, "group %s: no metric %s", t, g->metric[i]);
				return free(copy), -1;
			}
			n = pick(out, n, max, m);
		}
		if (!m && !g) {
			snprintf(why, len, "'%s': no such metric or group (--list-metrics lists "
				 "them)", t);
			return free(copy), -1;
		}
		if (!g)
			n = pick(out, n, max, m);
	}
	free(copy);
	if (!n)
		snprintf(why, len, "'%s' names no metric", list);
	return n ? n : -1;
}
