/* Parsing (jansson) and validation of one report into struct report.
 *
 * Every field the reader uses is checked for presence and type as it is
 * converted; the first problem becomes the one-line reason, with the path
 * of the offending value ("threads[2].regions[7].calls: missing"). Fields
 * the reader does not use are not checked, so a writer may add some. */
#include "report_load.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <uthash.h>

#include "report_json.h"

/* ---- where we are, for messages ----------------------------------------- */

enum { NOIDX = (size_t)-1, MAXSEG = 6 };

struct ld {
	struct report *r;
	int nseg;
	struct {
		const char *key;
		size_t idx; /* NOIDX: a member, not an array element */
	} seg[MAXSEG];
	bool failed;
	char why[512];
};

static void enter(struct ld *L, const char *key, size_t idx)
{
	L->seg[L->nseg].key = key;
	L->seg[L->nseg++].idx = idx;
}

static void leave(struct ld *L)
{
	L->nseg--;
}

/* Records "path.key: message" (only the first problem counts); false. */
static bool PRINTF(3, 4) bad(struct ld *L, const char *key, const char *fmt, ...)
{
	size_t n = 0;
	va_list ap;

	if (L->failed)
		return false;
	L->failed = true;
	for (int i = 0; i < L->nseg && n < sizeof(L->why); i++) {
		n += (size_t)snprintf(L->why + n, sizeof(L->why) - n, "%s%s", i ? "." : "",
				      L->seg[i].key);
		if (L->seg[i].idx != NOIDX && n < sizeof(L->why))
			n += (size_t)snprintf(L->why + n, sizeof(L->why) - n, "[%zu]",
					      L->seg[i].idx);
	}
	if (key && n < sizeof(L->why))
		n += (size_t)snprintf(L->why + n, sizeof(L->why) - n, "%s%s", n ? "." : "", key);
	if (n < sizeof(L->why))
		n += (size_t)snprintf(L->why + n, sizeof(L->why) - n, "%s", n ? ": " : "");
	va_start(ap, fmt);
	if (n < sizeof(L->why))
		vsnprintf(L->why + n, sizeof(L->why) - n, fmt, ap);
	va_end(ap);
	return false;
}

/* ---- typed field access ------------------------------------------------- */

enum { OPT = 1, NUL = 2 };	/* may be absent; may be null */
enum kind { K_OBJ, K_ARR, K_STR, K_U64, K_INT, K_BOOL };

static bool kind_ok(const json_t *v, enum kind k)
{
	switch (k) {
	case K_OBJ: return json_is_object(v);
	case K_ARR: return json_is_array(v);
	case K_STR: return json_is_string(v);
	/* jansson integers are signed; the format's counts never are. */
	case K_U64: return json_is_integer(v) && json_integer_value(v) >= 0;
	case K_INT: return json_is_integer(v);
	case K_BOOL: return json_is_boolean(v);
	}
	return false;
}

/* *out: the value, or NULL when it is absent (OPT) or null (NUL). */
static bool get(struct ld *L, const json_t *o, const char *key, unsigned flags, enum kind k,
		const json_t **out)
{
	static const char *const want[] = { "an object", "an array", "a string",
					    "a non-negative integer", "an integer",
					    "true or false" };
	const json_t *v = json_object_get(o, key);

	*out = NULL;
	if (!v)
		return (flags & OPT) || bad(L, key, "missing");
	if (json_is_null(v) && (flags & NUL))
		return true;
	if (!kind_ok(v, k))
		return bad(L, key, "expected %s%s", want[k], flags & NUL ? " or null" : "");
	*out = v;
	return true;
}

static bool get_u64(struct ld *L, const json_t *o, const char *key, unsigned flags,
		    uint64_t *v, bool *has)
{
	const json_t *x;

	if (!get(L, o, key, flags, K_U64, &x))
		return false;
	*v = x ? (uint64_t)json_integer_value(x) : 0;
	if (has)
		*has = x != NULL;
	return true;
}

/* The string, copied into pool (the tree it came from is short-lived). */
static bool get_str(struct ld *L, const json_t *o, const char *key, unsigned flags,
		    struct pool *pool, const char **s)
{
	const json_t *x;

	if (!get(L, o, key, flags, K_STR, &x))
		return false;
	*s = x ? pool_strndup(pool, json_string_value(x), json_string_length(x)) : NULL;
	return true;
}

/* Addresses are strings "0x..." in the format (JSON numbers are doubles to
 * many readers). */
static bool get_hex(struct ld *L, const json_t *o, const char *key, unsigned flags,
		    uint64_t *v)
{
	const json_t *x;
	const char *s;
	size_t n;

	*v = 0;
	if (!get(L, o, key, flags, K_STR, &x) || !x)
		return !L->failed;
	s = json_string_value(x), n = json_string_length(x);
	if (n < 3 || n > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') ||
	    strspn(s + 2, "0123456789abcdefABCDEF") != n - 2)
		return bad(L, key, "expected a hex string like \"0x1f\" (at most 64 bits)");
	*v = strtoull(s + 2, NULL, 16);
	return true;
}

static bool get_bool(struct ld *L, const json_t *o, const char *key, bool *v)
{
	const json_t *x;

	if (!get(L, o, key, OPT, K_BOOL, &x))
		return false;
	*v = json_is_true(x);
	return true;
}

/* An array that holds one entry per event. */
static bool get_per_event(struct ld *L, const json_t *o, const char *key, const json_t **a)
{
	if (!get(L, o, key, 0, K_ARR, a))
		return false;
	if (json_array_size(*a) != L->r->nev)
		return bad(L, key, "%zu entr%s instead of %zu (one per event)",
			   json_array_size(*a), json_array_size(*a) == 1 ? "y" : "ies", L->r->nev);
	return true;
}

/* ---- ids ---------------------------------------------------------------- */

/* Stacks and modules are referred to by "id": looked up by binary search
 * (ids are 0..n-1 in the shim's output, but nothing depends on it). */
struct idmap {
	size_t n;
	struct ident {
		uint64_t id;
		uint32_t idx;
	} *e;
};

static int by_id(const void *a, const void *b)
{
	const struct ident *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Sorts and checks for duplicates; what names the array in messages. */
static bool idmap_sort(struct ld *L, struct idmap *m, const char *what)
{
	qsort(m->e, m->n, sizeof(*m->e), by_id);
	for (size_t i = 1; i < m->n; i++)
		if (m->e[i].id == m->e[i - 1].id)
			return bad(L, what, "id %" PRIu64 " is used twice", m->e[i].id);
	return true;
}

static bool idmap_find(const struct idmap *m, uint64_t id, uint32_t *idx)
{
	struct ident key = { id, 0 }, *f = bsearch(&key, m->e, m->n, sizeof(*m->e), by_id);

	if (f)
		*idx = f->idx;
	return f != NULL;
}

/* ---- the parts of a report ---------------------------------------------- */

static bool load_header(struct ld *L, const json_t *root)
{
	const json_t *fmt = json_object_get(root, "format"), *ver = json_object_get(root, "version");

	if (!json_is_object(root))
		return bad(L, NULL, "not a pmcshim report (the top level is not an object)");
	if (!json_is_string(fmt) || strcmp(json_string_value(fmt), "pmcshim-report"))
		return bad(L, NULL, "not a pmcshim report (\"format\" is not \"pmcshim-report\")");
	if (!json_is_integer(ver))
		return bad(L, NULL, "version: missing or not an integer");
	if (json_integer_value(ver) > REPORT_VERSION)
		return bad(L, NULL, "report version %" JSON_INTEGER_FORMAT " is newer than this "
			   "reader (it understands version %d): use a newer pmcshim-report",
			   json_integer_value(ver), REPORT_VERSION);
	if (json_integer_value(ver) != REPORT_VERSION)
		return bad(L, NULL, "report version %" JSON_INTEGER_FORMAT " is not supported "
			   "(this reader understands version %d)", json_integer_value(ver),
			   REPORT_VERSION);
	return true;
}

static bool load_process(struct ld *L, const json_t *root)
{
	struct report *r = L->r;
	const json_t *p;
	bool ok;

	if (!get(L, root, "process", 0, K_OBJ, &p))
		return false;
	enter(L, "process", NOIDX);
	ok = get_u64(L, p, "pid", 0, &r->pid, NULL) &&
	     get_u64(L, p, "ppid", OPT, &r->ppid, &r->has_ppid) &&
	     get_str(L, p, "host", OPT, &r->pool, &r->host) &&
	     get_str(L, p, "executable", 0, &r->pool, &r->executable) &&
	     get_bool(L, p, "forked", &r->forked) &&
	     get_u64(L, p, "wall_ns", 0, &r->wall_ns, NULL);
	leave(L);
	return ok;
}

static bool load_events(struct ld *L, const json_t *root)
{
	struct report *r = L->r;
	const json_t *a;
	bool ok = true;

	if (!get(L, root, "events", 0, K_ARR, &a))
		return false;
	r->nev = json_array_size(a);
	r->ev = xcalloc(r->nev, sizeof(*r->ev));
	for (size_t i = 0; ok && i < r->nev; i++) {
		const json_t *e = json_array_get(a, i);

		enter(L, "events", i);
		ok = json_is_object(e) ? get_str(L, e, "name", 0, &r->pool, &r->ev[i].name) &&
			get_str(L, e, "source", 0, &r->pool, &r->ev[i].source) &&
			get_str(L, e, "reason", OPT, &r->pool, &r->ev[i].reason) :
			bad(L, NULL, "expected an object");
		leave(L);
	}
	return ok;
}

static bool load_modules(struct ld *L, const json_t *root, struct idmap *ids)
{
	struct report *r = L->r;
	const json_t *a;
	bool ok = true;

	if (!get(L, root, "modules", 0, K_ARR, &a))
		return false;
	r->nmodules = json_array_size(a);
	r->modules = xcalloc(r->nmodules, sizeof(*r->modules));
	ids->e = xcalloc(r->nmodules, sizeof(*ids->e));
	for (size_t i = 0; ok && i < r->nmodules; i++) {
		const json_t *m = json_array_get(a, i);
		struct rep_module *o = &r->modules[i];

		enter(L, "modules", i);
		ok = json_is_object(m) ? get_u64(L, m, "id", 0, &ids->e[i].id, NULL) &&
			get_str(L, m, "path", 0, &r->pool, &o->path) &&
			get_str(L, m, "build_id", 0, &r->pool, &o->build_id) &&
			get_hex(L, m, "base", 0, &o->base) :
			bad(L, NULL, "expected an object");
		ids->e[i].idx = (uint32_t)i;
		ids->n++;
		leave(L);
	}
	return ok && idmap_sort(L, ids, "modules");
}

static bool load_frame(struct ld *L, const json_t *f, const struct idmap *mods,
		       struct pool *pool, struct rep_frame *o)
{
	const json_t *mod;
	uint32_t idx;

	if (!json_is_object(f))
		return bad(L, NULL, "expected an object");
	if (!get_hex(L, f, "addr", 0, &o->addr) || !get(L, f, "module", 0, K_INT, &mod) ||
	    !get_str(L, f, "symbol", OPT, pool, &o->symbol))
		return false;
	o->module = -1;
	if (json_integer_value(mod) == -1) /* no module holds the address */
		return get_hex(L, f, "offset", OPT, &o->offset);
	if (json_integer_value(mod) < 0 ||
	    !idmap_find(mods, (uint64_t)json_integer_value(mod), &idx))
		return bad(L, "module", "no module with id %" JSON_INTEGER_FORMAT,
			   json_integer_value(mod));
	o->module = (int32_t)idx;
	return get_hex(L, f, "offset", 0, &o->offset);
}

/* One stack, converted on its own (in parallel with the others): its
 * frames are joined into the report's array afterwards. */
struct sload {
	uint64_t id;
	size_t n;
	struct rep_frame *frames;
};

static bool load_stack(struct ld *L, const json_t *s, const struct idmap *mods,
		       struct pool *pool, struct sload *o)
{
	const json_t *frames;
	bool ok = true;

	if (!json_is_object(s))
		return bad(L, NULL, "expected an object");
	if (!get_u64(L, s, "id", 0, &o->id, NULL) || !get(L, s, "frames", 0, K_ARR, &frames))
		return false;
	o->frames = xcalloc(json_array_size(frames), sizeof(*o->frames));
	for (size_t k = 0; ok && k < json_array_size(frames); k++) {
		enter(L, "frames", k);
		ok = load_frame(L, json_array_get(frames, k), mods, pool, &o->frames[o->n++]);
		leave(L);
	}
	return ok;
}

static bool load_errors(struct ld *L, const json_t *root)
{
	struct report *r = L->r;
	const json_t *a;
	bool ok = true;

	if (!get(L, root, "errors", 0, K_ARR, &a))
		return false;
	r->errors = xcalloc(json_array_size(a), sizeof(*r->errors));
	for (size_t i = 0; ok && i < json_array_size(a); i++) {
		const json_t *e = json_array_get(a, i);
		struct rep_error *o = &r->errors[r->nerrors];

		enter(L, "errors", i);
		ok = json_is_object(e) ? get_str(L, e, "kind", 0, &r->pool, &o->kind) &&
			get_u64(L, e, "tid", 0, &o->tid, NULL) &&
			get_str(L, e, "region", 0, &r->pool, &o->region) &&
			get_str(L, e, "open", OPT, &r->pool, &o->open) &&
			get_u64(L, e, "count", 0, &o->count, NULL) :
			bad(L, NULL, "expected an object");
		r->nerrors += ok;
		leave(L);
	}
	return ok;
}

/* Everything but the two big arrays, stacks and threads. */
static bool load_head(struct ld *L, const json_t *root, struct idmap *mods)
{
	return load_header(L, root) && load_events(L, root) && load_process(L, root) &&
	       load_modules(L, root, mods) && load_errors(L, root);
}

/* ---- threads ------------------------------------------------------------ */

struct name_ent {
	const char *s;
	uint32_t idx;
	UT_hash_handle hh;
};

struct tload {
	struct ld *L;
	struct rep_thread *t;
	uint64_t *stack_ids;	/* per row, resolved once all stacks are in */
	struct name_ent *names, *ents;
	size_t nent;
	size_t names_cap;
};

/* Rows name their region; a thread has few distinct names, stored once. */
static uint32_t intern(struct tload *T, const char *s, size_t len)
{
	struct rep_thread *t = T->t;
	struct name_ent *e;

	HASH_FIND(hh, T->names, s, len, e);
	if (e)
		return e->idx;
	e = &T->ents[T->nent++];
	e->s = pool_strndup(&t->pool, s, len);
	e->idx = (uint32_t)t->nnames;
	HASH_ADD_KEYPTR(hh, T->names, e->s, len, e);
	t->names = grow(t->names, &T->names_cap, t->nnames + 1, sizeof(*t->names));
	t->names[t->nnames++] = e->s;
	return e->idx;
}

static bool load_stat(struct ld *L, const json_t *o, struct rep_stat *s)
{
	return get_u64(L, o, "incl", 0, &s->incl, NULL) &&
	       get_u64(L, o, "excl", 0, &s->excl, NULL) &&
	       get_u64(L, o, "min", 0, &s->min, NULL) &&
	       get_u64(L, o, "max", 0, &s->max, NULL);
}

static bool load_row(struct tload *T, const json_t *row, size_t j)
{
	struct ld *L = T->L;
	size_t nev = L->r->nev;
	struct rep_row *o = &T->t->rows[j];
	struct rep_stat *st = &T->t->stats[j * (1 + nev)];
	const json_t *name, *wall, *evs;
	bool ok;

	if (!json_is_object(row))
		return bad(L, NULL, "expected an object");
	if (!get(L, row, "region", 0, K_STR, &name) ||
	    !get_u64(L, row, "stack", 0, &T->stack_ids[j], NULL) ||
	    !get_u64(L, row, "calls", 0, &o->calls, NULL) ||
	    !get(L, row, "wall_ns", 0, K_OBJ, &wall) || !get_per_event(L, row, "events", &evs))
		return false;
	o->region = intern(T, json_string_value(name), json_string_length(name));
	enter(L, "wall_ns", NOIDX);
	ok = load_stat(L, wall, &st[0]);
	leave(L);
	for (size_t e = 0; ok && e < nev; e++) {
		const json_t *v = json_array_get(evs, e);

		if (json_is_null(v)) /* unavailable: never read as 0 */
			continue;
		enter(L, "events", e);
		ok = json_is_object(v) ? load_stat(L, v, &st[1 + e]) :
					 bad(L, NULL, "expected an object or null");
		leave(L);
		T->t->present[j * nev + e] = 1;
	}
	return ok;
}

static bool load_totals(struct ld *L, const json_t *th, struct rep_thread *t)
{
	const json_t *a;
	bool ok = true;

	if (!get_per_event(L, th, "totals", &a))
		return false;
	t->totals = xcalloc(L->r->nev, sizeof(*t->totals));
	for (size_t e = 0; ok && e < L->r->nev; e++) {
		const json_t *v = json_array_get(a, e);
		struct rep_total *o = &t->totals[e];

		enter(L, "totals", e);
		ok = json_is_object(v) ?
			get_u64(L, v, "value", NUL, &o->value, &o->has_value) &&
			get_str(L, v, "status", 0, &t->pool, &o->status) &&
			get_u64(L, v, "scaled", OPT, &o->scaled, &o->has_scaled) :
			bad(L, NULL, "expected an object");
		leave(L);
	}
	return ok;
}

static bool load_thread(struct ld *L, const json_t *th, struct rep_thread *t,
			uint64_t **stack_ids)
{
	struct tload T = { .L = L, .t = t };
	const json_t *rows;
	bool ok;

	if (!json_is_object(th))
		return bad(L, NULL, "expected an object");
	if (!get_u64(L, th, "tid", 0, &t->tid, NULL) ||
	    !get_str(L, th, "name", 0, &t->pool, &t->name) || !get_bool(L, th, "main", &t->main) ||
	    !get_str(L, th, "state", 0, &t->pool, &t->state) ||
	    !get_str(L, th, "setup", 0, &t->pool, &t->setup) ||
	    !get_u64(L, th, "wall_ns", 0, &t->wall_ns, NULL) ||
	    !get_u64(L, th, "cpu_ns", NUL, &t->cpu_ns, &t->has_cpu) || !load_totals(L, th, t) ||
	    !get(L, th, "regions", 0, K_ARR, &rows))
		return false;
	t->nrows = json_array_size(rows);
	t->rows = xcalloc(t->nrows, sizeof(*t->rows));
	t->stats = xcalloc(t->nrows * (1 + L->r->nev), sizeof(*t->stats));
	t->present = xcalloc(t->nrows * L->r->nev, 1);
	T.stack_ids = *stack_ids = xcalloc(t->nrows, sizeof(**stack_ids));
	T.ents = xcalloc(t->nrows, sizeof(*T.ents));
	ok = true;
	for (size_t j = 0; ok && j < t->nrows; j++) {
		enter(L, "regions", j);
		ok = load_row(&T, json_array_get(rows, j), j);
		leave(L);
	}
	HASH_CLEAR(hh, T.names);
	free(T.ents);
	return ok;
}

/* ---- the two ways to a tree --------------------------------------------- */

enum outcome { LOADED, INVALID, PARSE_WHOLE };

struct job {
	struct report *r;
	int nworkers;
	struct jarena *keep;		 /* the small members, or the whole tree */
	struct jarena **scratch;	 /* per worker: a piece's tree, dropped */
	struct pool *wpool;		 /* per worker: strings of stacks */
	struct jbuf *wbuf;		 /* per worker: a piece, compacted */
	struct idmap mods;
	bool split;
	struct jsplit sp;
	const struct jmember *stacks_m, *threads_m;	/* split: their elements */
	const json_t *stacks_a, *threads_a;		/* whole: the arrays */
	size_t nstacks;
	struct sload *st;
	uint64_t **ids;			/* per thread: its rows' stack ids */
	char **why;			/* per item: what is wrong with it, or NULL */
	bool *json_bad;			/* per item: jansson refused the piece */
};

/* Item i of the batch: stack i, or thread i - nstacks. In a split document
 * it is parsed here, converted, and its tree dropped at once. */
static void batch_item(size_t i, int w, void *arg)
{
	struct job *J = arg;
	bool thread = i >= J->nstacks;
	size_t k = thread ? i - J->nstacks : i;
	struct ld L = { .r = J->r };
	const json_t *v;

	if (J->split) {
		jarena_use(J->scratch[w]);
		v = jpiece_parse_compact(thread ? &J->threads_m->el[k] : &J->stacks_m->el[k],
					 &J->wbuf[w]);
	} else {
		v = json_array_get(thread ? J->threads_a : J->stacks_a, k);
	}
	enter(&L, thread ? "threads" : "stacks", k);
	if (!v)
		J->json_bad[i] = true;
	else if (thread)
		load_thread(&L, v, &J->r->threads[k], &J->ids[k]);
	else
		load_stack(&L, v, &J->mods, &J->wpool[w], &J->st[k]);
	if (L.failed)
		J->why[i] = strdup(L.why);
	if (L.failed && !J->why[i])
		oom();
	if (J->split)
		jarena_reset(J->scratch[w]);
}

static void run_batch(struct job *J, size_t nstacks, size_t nthreads)
{
	struct report *r = J->r;

	J->nstacks = nstacks;
	J->st = xcalloc(nstacks, sizeof(*J->st));
	J->ids = xcalloc(nthreads, sizeof(*J->ids));
	J->why = xcalloc(nstacks + nthreads, sizeof(*J->why));
	J->json_bad = xcalloc(nstacks + nthreads, sizeof(*J->json_bad));
	r->nthreads = nthreads;
	r->threads = xcalloc(nthreads, sizeof(*r->threads));
	parallel_for(nstacks + nthreads, J->nworkers, batch_item, J);
}

/* The stacks into one array, with their ids for the rows to find. */
static bool join_stacks(struct job *J, struct ld *L, struct idmap *ids)
{
	struct report *r = J->r;
	size_t nframes = 0;

	if (J->nstacks >= NO_STACK)
		return bad(L, "stacks", "too many stacks");
	for (size_t k = 0; k < J->nstacks; k++)
		nframes += J->st[k].n;
	r->stacks = xcalloc(J->nstacks, sizeof(*r->stacks));
	r->frames = xcalloc(nframes, sizeof(*r->frames));
	ids->e = xcalloc(J->nstacks, sizeof(*ids->e));
	for (size_t k = 0; k < J->nstacks; k++) {
		struct sload *s = &J->st[k];

		r->stacks[k] = (struct rep_stack){ r->nframes, s->n };
		memcpy(r->frames + r->nframes, s->frames, s->n * sizeof(*s->frames));
		r->nframes += s->n;
		ids->e[ids->n++] = (struct ident){ s->id, (uint32_t)k };
	}
	r->nstacks = J->nstacks;
	return idmap_sort(L, ids, "stacks");
}

static bool resolve_stacks(struct job *J, struct ld *L, const struct idmap *ids)
{
	for (size_t k = 0; k < J->r->nthreads; k++) {
		struct rep_thread *t = &J->r->threads[k];

		for (size_t j = 0; j < t->nrows; j++) {
			if (idmap_find(ids, J->ids[k][j], &t->rows[j].stack))
				continue;
			enter(L, "threads", k), enter(L, "regions", j);
			return bad(L, "stack", "no stack with id %" PRIu64, J->ids[k][j]);
		}
	}
	return true;
}

/* After the batch: the first problem in document order, or the stacks
 * joined and every row's stack found. */
static enum outcome finish(struct job *J, struct ld *L)
{
	struct idmap ids = { 0 };
	bool ok;

	size_t n = J->nstacks + J->r->nthreads;

	for (size_t i = 0; i < n; i++)
		if (J->json_bad[i])
			return PARSE_WHOLE;
	for (size_t i = 0; i < n; i++) /* stacks first, as in load_whole's order */
		if (J->why[i]) {
			snprintf(L->why, sizeof(L->why), "%s", J->why[i]);
			L->failed = true;
			return INVALID;
		}
	ok = join_stacks(J, L, &ids) && resolve_stacks(J, L, &ids);
	free(ids.e);
	return ok ? LOADED : INVALID;
}

/* The two big arrays must be arrays; the message names the first that is
 * not (absent, or of another type). */
static bool check_arrays(struct ld *L, const json_t *root, bool stacks, bool threads)
{
	const json_t *x;

	return (stacks || get(L, root, "stacks", 0, K_ARR, &x)) &&
	       (threads || get(L, root, "threads", 0, K_ARR, &x));
}

/* The split document: the small members parsed here, the elements of
 * stacks and threads by the workers. */
static enum outcome load_split(struct job *J, struct ld *L, const char *buf, size_t len)
{
	json_t *root;

	jarena_use(J->keep); /* the split decodes keys with jansson */
	if (!jsplit(buf, len, &J->sp))
		return PARSE_WHOLE;
	J->split = true;
	root = json_object();
	for (size_t i = 0; i < J->sp.n; i++) {
		const struct jmember *m = &J->sp.m[i];
		json_t *v = m->array ? json_array() : jpiece_parse(&m->value);

		if (m->array && !strcmp(m->key, "stacks")) {
			J->stacks_m = m;
			continue;
		}
		if (m->array && !strcmp(m->key, "threads")) {
			J->threads_m = m;
			continue;
		}
		for (size_t e = 0; m->array && v && e < m->nel; e++) {
			json_t *x = jpiece_parse(&m->el[e]);

			if (!x)
				return PARSE_WHOLE;
			json_array_append_new(v, x);
		}
		if (!v)
			return PARSE_WHOLE;
		json_object_set_new_nocheck(root, m->key, v);
	}
	if (!load_head(L, root, &J->mods) || !check_arrays(L, root, J->stacks_m, J->threads_m))
		return INVALID;
	run_batch(J, J->stacks_m->nel, J->threads_m->nel);
	return finish(J, L);
}

static void json_failure(struct ld *L, const char *buf, size_t len, const json_error_t *err)
{
	size_t i = 0;

	while (i < len && strchr(" \t\r\n", buf[i]))
		i++;
	if (i == len)
		bad(L, NULL, "empty file");
	else if (strstr(err->text, "near end of file"))
		bad(L, NULL, "truncated: the JSON ends early (line %d): %s", err->line, err->text);
	else
		bad(L, NULL, "malformed JSON at line %d, column %d: %s", err->line, err->column,
		    err->text);
}

/* The document as one jansson tree: when the split does not apply, or
 * jansson must say where the syntax error is. */
static enum outcome load_whole(struct job *J, struct ld *L, const char *buf, size_t len)
{
	json_error_t err;
	json_t *root;

	jarena_use(J->keep);
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err);
	if (!root) {
		json_failure(L, buf, len, &err);
		return INVALID;
	}
	if (!load_head(L, root, &J->mods) || !check_arrays(L, root, false, false))
		return INVALID;
	J->stacks_a = json_object_get(root, "stacks");
	J->threads_a = json_object_get(root, "threads");
	run_batch(J, json_array_size(J->stacks_a), json_array_size(J->threads_a));
	return finish(J, L);
}

static void free_threads(struct report *r)
{
	for (size_t i = 0; i < r->nthreads; i++) {
		struct rep_thread *t = &r->threads[i];

		free(t->totals), free(t->rows), free(t->stats), free(t->present), free(t->names);
		pool_free(&t->pool);
	}
	free(r->threads);
}

/* What one try (split or whole) leaves besides the report. */
static void try_free(struct job *J)
{
	for (size_t k = 0; k < J->nstacks; k++)
		free(J->st[k].frames);
	for (size_t k = 0; J->ids && k < J->r->nthreads; k++)
		free(J->ids[k]);
	for (size_t i = 0; J->why && i < J->nstacks + J->r->nthreads; i++)
		free(J->why[i]);
	free(J->st), free(J->ids), free(J->why), free(J->json_bad);
	free(J->mods.e);
	jsplit_free(&J->sp);
	J->st = NULL, J->ids = NULL, J->why = NULL, J->json_bad = NULL;
	J->mods = (struct idmap){ 0 };
	J->nstacks = 0, J->split = false;
	J->stacks_m = J->threads_m = NULL, J->stacks_a = J->threads_a = NULL;
}

/* Forgets the split try, report included, so the whole one starts afresh. */
static void job_clear(struct job *J)
{
	struct report *r = J->r;

	try_free(J);
	free_threads(r);
	free(r->ev), free(r->modules), free(r->stacks), free(r->frames), free(r->errors);
	r->threads = NULL, r->ev = NULL, r->modules = NULL, r->stacks = NULL;
	r->frames = NULL, r->errors = NULL;
	r->nthreads = r->nev = r->nmodules = r->nstacks = r->nframes = r->nerrors = 0;
}

static int default_workers(size_t len, int workers)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (workers > 0)
		return workers;
	if (len < (1 << 20)) /* threads cost more than they save */
		return 1;
	return cpus < 1 ? 1 : cpus > 16 ? 16 : (int)cpus;
}

struct report *report_load_buf(const char *buf, size_t len, const char *name, int workers,
			       char *why, size_t whylen)
{
	struct report *r = xcalloc(1, sizeof(*r));
	struct job J = { .r = r, .nworkers = default_workers(len, workers < 0 ? 1 : workers) };
	struct ld L = { .r = r };
	enum outcome out;

	r->path = pool_strdup(&r->pool, name);
	J.keep = jarena_new();
	J.scratch = xcalloc((size_t)J.nworkers, sizeof(*J.scratch));
	J.wpool = xcalloc((size_t)J.nworkers, sizeof(*J.wpool));
	J.wbuf = xcalloc((size_t)J.nworkers, sizeof(*J.wbuf));
	for (int w = 0; w < J.nworkers; w++)
		J.scratch[w] = jarena_new();
	jarena_install();
	out = workers < 0 ? PARSE_WHOLE : load_split(&J, &L, buf, len);
	if (out == PARSE_WHOLE) { /* not split, or jansson has a syntax error to tell */
		job_clear(&J);
		L = (struct ld){ .r = r };
		out = load_whole(&J, &L, buf, len);
	}
	jarena_uninstall();
	for (int w = 0; w < J.nworkers; w++) {
		jarena_free(J.scratch[w]);
		pool_move(&r->pool, &J.wpool[w]); /* the frames' symbols */
		free(J.wbuf[w].p);
	}
	jarena_free(J.keep);
	free(J.scratch), free(J.wpool), free(J.wbuf);
	try_free(&J);
	if (out != LOADED) {
		snprintf(why, whylen, "%s", L.why);
		report_free(r);
		return NULL;
	}
	return r;
}

/* The whole file in memory: jansson then reads from a buffer, not a
 * stream. A regular file is mapped (no copy); a pipe is read. */
struct text {
	char *p;
	size_t len;
	bool mapped;
};

static bool read_all(int fd, struct text *t, char *why, size_t whylen)
{
	size_t cap = 1 << 16;
	ssize_t got;

	t->p = xmalloc(cap);
	while ((got = read(fd, t->p + t->len, cap - t->len)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			snprintf(why, whylen, "cannot read: %s", strerror(errno));
			free(t->p);
			return false;
		}
		t->len += (size_t)got;
		if (t->len == cap)
			t->p = grow(t->p, &cap, cap + 1, 1);
	}
	return true;
}

static bool slurp(const char *path, struct text *t, char *why, size_t whylen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	bool ok = true;

	memset(t, 0, sizeof(*t));
	if (fd < 0) {
		snprintf(why, whylen, "cannot open: %s", strerror(errno));
		return false;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(why, whylen, "is a directory, not a report");
		ok = false;
	} else if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
		   (t->p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE,
				fd, 0)) != MAP_FAILED) {
		t->len = (size_t)st.st_size, t->mapped = true;
	} else {
		ok = read_all(fd, t, why, whylen);
	}
	close(fd);
	return ok;
}

struct report *report_load_file(const char *path, char *why, size_t whylen)
{
	struct text t;
	struct report *r;

	if (!slurp(path, &t, why, whylen))
		return NULL;
	r = report_load_buf(t.p, t.len, path, 0, why, whylen);
	if (t.mapped)
		munmap(t.p, t.len);
	else
		free(t.p);
	return r;
}

void report_free(struct report *r)
{
	if (!r)
		return;
	free_threads(r);
	free(r->ev), free(r->modules), free(r->stacks), free(r->frames), free(r->errors);
	pool_free(&r->pool);
	free(r);
}
