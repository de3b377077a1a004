/* Sampled functions: each slot of each thread's table (RF_SAMPLES) is a
 * stack and a count; the innermost frame, the pc the signal interrupted,
 * is named with the symbol that holds it in its module (symbolize_symbol:
 * the address itself, not a return address), and counts are summed per
 * function and module over every thread of every file. With --region,
 * only the samples taken while a selected region was the innermost open
 * one count: a region's functions then add up to its samples. */
#include "report_functions.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "reader/cells/report_cells.h"
#include "reader/cells/report_escape.h"
#include "reader/cells/report_text.h"
#include "reader/data/symbolize.h"

struct fn {
	const char *key;		/* name, NUL, module: the hash key */
	const char *name, *module;
	uint64_t samples, est;		/* est: samples times their period */
	uint64_t children;		/* samples whose stack holds it (once each) */
	bool timed;			/* some samples had a period in ns */
	uint64_t *val;			/* [model event]: what the samples read */
	UT_hash_handle hh;
};

struct fsum {
	struct fn *byname;
	struct fn **fn;
	size_t n;
	uint64_t total, dropped[RF_SAMPLE_DROPS];
	size_t nev;			/* the model's events */
	bool *valued;			/* [event]: some table read it at its samples */
	size_t stopped;			/* tables whose sampling stopped */
	const char *event;		/* the first table's event */
	uint64_t period;		/* its period (0: varies) */
	struct symbolizer *sz;
	struct pool pool;
};

bool functions_present(const struct model *m)
{
	for (size_t f = 0; f < m->nfiles; f++)
		if (m->files[f]->nsamples)
			return true;
	return false;
}

/* The region a slot was taken in, by name, as --region matches it. */
static const char *region_name(const struct report *r, uint32_t id)
{
	if (id == 0)
		return "(no region)";
	return id < r->nfile_ids && r->names[id] ? r->names[id] : "(unknown region)";
}

static bool wanted(const struct model *m, const struct report *r, uint32_t region)
{
	return !m->o->has_re || regexec(&m->o->re, region_name(r, region), 0, NULL, 0) == 0;
}

/* "name" of the function holding pc - back (back 1: pc is a return
 * address, the call is before it), and its module's base name. */
static void name_at(struct symbolizer *sz, const struct report *r, uint64_t pc, uint64_t back,
		    char *name, size_t len, const char **module)
{
	int32_t i = rep_module_of(r, pc, UINT32_MAX);
	const struct rep_module *mod = i >= 0 ? &r->modules[i] : NULL;
	const char *slash;

	*module = "[unknown]";
	snprintf(name, len, "[unknown]");
	if (!mod)
		return;
	slash = strrchr(mod->path, '/');
	*module = slash ? slash + 1 : mod->path;
	if (sz && symbolize_symbol(sz, mod->path, mod->build_id, pc - back - mod->base,
				       name, len))
		name[strcspn(name, "+")] = '\0';	/* "solve+0x1c": the function */
	else
		snprintf(name, len, "[%s+0x%" PRIx64 "]", *module, pc - mod->base);
}

static struct fn *find(struct fsum *fs, const char *name, const char *module)
{
	size_t ln = strlen(name), lm = strlen(module);
	char *key = xmalloc(ln + lm + 2);
	struct fn *f;

	memcpy(key, name, ln + 1);
	memcpy(key + ln + 1, module, lm + 1);
	HASH_FIND(hh, fs->byname, key, ln + lm + 1, f);
	if (!f) {
		f = pool_zalloc(&fs->pool, sizeof(*f));
		f->key = pool_strndup(&fs->pool, key, ln + lm + 1);
		f->name = f->key;
		f->module = f->key + ln + 1;
		f->val = pool_zalloc(&fs->pool, (fs->nev ? fs->nev : 1) * sizeof(*f->val));
		HASH_ADD_KEYPTR(hh, fs->byname, f->key, ln + lm + 1, f);
	}
	free(key);
	return f;
}

/* n samples of f, with what they read (val: by model event, NULL: none) */
static void add(struct fsum *fs, struct fn *f, uint64_t n, uint64_t period, const uint64_t *val)
{
	f->samples += n;
	if (period) {
		f->est += rep_times(n, period);
		f->timed = true;
	}
	for (size_t e = 0; val && e < fs->nev; e++)
		f->val[e] += val[e];
}

/* --children: n samples for every function on the stack, once each
 * however often it recurs (perf report --children). */
static void add_children(struct fsum *fs, const struct report *r,
			 const struct rf_sample_slot *slot, uint64_t n)
{
	struct fn *seen[RF_FRAMES_MAX];
	int nseen = 0;
	char name[512];
	const char *module;

	for (int k = 0; k < slot->nframes && nseen < RF_FRAMES_MAX; k++) {
		struct fn *f;
		bool again = false;

		name_at(fs->sz, r, slot->pc[k], k > 0, name, sizeof(name), &module);
		f = find(fs, name, module);
		for (int j = 0; j < nseen && !again; j++)
			again = seen[j] == f;
		if (!again)
			seen[nseen++] = f, f->children += n;
	}
}

/* The thread a table belongs to, in its file. */
static const struct rep_thread *thread_of(const struct report *r, uint32_t index)
{
	for (size_t i = 0; i < r->nthreads; i++)
		if (r->threads[i].index == index)
			return &r->threads[i];
	return NULL;
}

/* Where each model event is among table s's values (map[e]: -1 none). */
static bool value_map(struct fsum *fs, const struct model *m, size_t file,
		      const struct rf_samples *s, int *map)
{
	const struct report *r = m->files[file];
	const struct rep_thread *t = thread_of(r, s->thread);
	uint32_t nv = rf_sample_nvalues(s);
	bool any = false;

	for (size_t e = 0; e < fs->nev; e++) {
		int fe = m->evmap[file * m->nev + e];
		int k = t && fe >= 0 ? t->slot[fe] - 1 : -1;

		map[e] = k >= 0 && (uint32_t)k < nv ? k : -1;
		if (map[e] >= 0)
			any = fs->valued[e] = true;
	}
	return any;
}

/* A slot's stack as one folded line, outermost frame first, under its
 * region ("[solve];main;three"). */
static void fold(struct fsum *fs, const struct report *r, const struct rf_sample_slot *slot,
		 char *text, size_t len)
{
	char name[512];
	const char *module;
	size_t at = 0;

	text[0] = '\0';
	if (slot->region)
		at += (size_t)snprintf(text, len, "[%s];", region_name(r, slot->region));
	for (int k = slot->nframes - 1; k >= 0 && at < len; k--) {
		name_at(fs->sz, r, slot->pc[k], k > 0, name, sizeof(name), &module);
		name[strcspn(name, ";")] = '\0';	/* the separator stays one */
		at += (size_t)snprintf(text + at, len - at, "%s%s", name, k ? ";" : "");
	}
}

/* The samples of a slot that holds a whole stack in a region --region
 * keeps, else 0. */
static uint64_t slot_kept(const struct model *m, const struct report *r, const struct rf_samples *s,
			  const struct rf_sample_slot *slot)
{
	uint64_t n = __atomic_load_n(&slot->count, __ATOMIC_ACQUIRE);

	if (!n || slot->nframes == 0 || slot->nframes > s->depth || !wanted(m, r, slot->region))
		return 0;
	return n;
}

static void add_table(struct fsum *fs, const struct model *m, size_t file,
		      const struct rf_samples *s, bool folded)
{
	const struct report *r = m->files[file];
	char name[4096];
	const char *module = "";
	int map[64];
	uint64_t val[64];
	bool valued = fs->nev <= 64 && value_map(fs, m, file, s, map);

	if (!fs->event) {
		fs->event = pool_strndup(&fs->pool, s->event_name,
					 strnlen(s->event_name, sizeof(s->event_name)));
		fs->period = s->period;
	} else if (fs->period != s->period) {
		fs->period = 0;
	}
	for (int k = 0; k < RF_SAMPLE_DROPS; k++)
		fs->dropped[k] += s->dropped[k];
	fs->stopped += s->stopped != 0;
	for (uint32_t i = 0; i < s->nslots; i++) {
		const struct rf_sample_slot *slot = rf_sample_slot(s, i);
		uint64_t n = slot_kept(m, r, s, slot);

		if (!n)
			continue;
		if (folded)
			fold(fs, r, slot, name, sizeof(name));
		else
			name_at(fs->sz, r, slot->pc[0], 0, name, sizeof(name), &module);
		for (size_t e = 0; valued && e < fs->nev; e++)
			val[e] = map[e] >= 0 ? rf_sample_values(s, slot)[map[e]] : 0;
		add(fs, find(fs, name, module), n, s->period, valued ? val : NULL);
		if (m->o->children && !folded)
			add_children(fs, r, slot, n);
		fs->total += n;
	}
}

static int by_samples(const void *a, const void *b)
{
	const struct fn *x = *(const struct fn *const *)a, *y = *(const struct fn *const *)b;

	if (x->children != y->children)	/* --children: by it first */
		return x->children < y->children ? 1 : -1;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->key, y->key);
}

/* The functions (folded: the stacks as folded lines) of every table. */
static void collect(struct fsum *fs, const struct model *m, bool folded)
{
	struct fn *f, *tmp;

	memset(fs, 0, sizeof(*fs));
	fs->sz = m->o->symbolize ? symbolizer_new() : NULL;
	fs->nev = m->nev;
	fs->valued = xcalloc(fs->nev ? fs->nev : 1, sizeof(*fs->valued));
	for (size_t k = 0; k < m->nfiles; k++)
		for (size_t t = 0; t < m->files[k]->nsamples; t++)
			add_table(fs, m, k, m->files[k]->samples[t], folded);
	fs->n = 0;
	fs->fn = xcalloc(HASH_COUNT(fs->byname) + 1, sizeof(*fs->fn));
	HASH_ITER(hh, fs->byname, f, tmp)
		if (f->samples || f->children)	/* (a caller's frame alone: children) */
			fs->fn[fs->n++] = f;
	if (fs->n > 1)
		qsort(fs->fn, fs->n, sizeof(*fs->fn), by_samples);
	if (m->o->top && fs->n > m->o->top)
		fs->n = m->o->top;
}

static void release(struct fsum *fs)
{
	HASH_CLEAR(hh, fs->byname);
	free(fs->fn);
	free(fs->valued);
	symbolizer_free(fs->sz);
	pool_free(&fs->pool);
}

static double share(const struct fsum *fs, const struct fn *f)
{
	return fs->total ? 100.0 * (double)f->samples / (double)fs->total : 0;
}

/* What was not sampled, in a line: never silent. */
static void print_drops(FILE *out, const struct fsum *fs)
{
	uint64_t full = fs->dropped[RF_SAMPLE_FULL], busy = fs->dropped[RF_SAMPLE_BUSY];
	uint64_t partial = fs->dropped[RF_SAMPLE_PARTIAL];

	if (full || busy)
		fprintf(out, "not taken: %" PRIu64 " sample%s (%" PRIu64 " with the table full, %"
			PRIu64 " inside a marker)\n", full + busy, full + busy == 1 ? "" : "s",
			full, busy);
	if (partial)
		fprintf(out, "%" PRIu64 " sample%s with the stack cut short (the walk stopped "
			"before its end); their functions are right\n", partial,
			partial == 1 ? "" : "s");
	if (fs->dropped[RF_SAMPLE_UNREAD])
		fprintf(out, "%" PRIu64 " sample%s without counter values (the counters could not "
			"be read then): what they counted there is in no function\n",
			fs->dropped[RF_SAMPLE_UNREAD], fs->dropped[RF_SAMPLE_UNREAD] == 1 ? "" : "s");
	if (fs->stopped)
		fprintf(out, "sampling stopped in %zu thread%s: the application set a handler for "
			"the shim's signal\n", fs->stopped, fs->stopped == 1 ? "" : "s");
}

/* IPC of f where both its instructions and cycles were read. */
static bool fn_ipc(const struct fsum *fs, const struct model *m, const struct fn *f, double *ipc)
{
	if (m->ipc_ins < 0 || !fs->valued[m->ipc_ins] || !fs->valued[m->ipc_cyc] ||
	    !f->val[m->ipc_cyc])
		return false;
	*ipc = (double)f->val[m->ipc_ins] / (double)f->val[m->ipc_cyc];
	return true;
}

static bool any_ipc(const struct fsum *fs, const struct model *m)
{
	return m->ipc_ins >= 0 && fs->valued[m->ipc_ins] && fs->valued[m->ipc_cyc];
}

static size_t nvalued(const struct fsum *fs)
{
	size_t n = 0;

	for (size_t e = 0; e < fs->nev; e++)
		n += fs->valued[e];
	return n;
}

static double children_share(const struct fsum *fs, const struct fn *f)
{
	return fs->total ? 100.0 * (double)f->children / (double)fs->total : 0;
}

/* " every 250 us of each thread's CPU time", " every 10,007 instructions" */
static void say_period(const struct fsum *fs, char *per, size_t len)
{
	char b[64];

	per[0] = '\0';
	if (fs->period && event_is_time(fs->event))
		snprintf(per, len, " every %s of each thread's CPU time",
			 fmt_num(b, fs->period, H_TIME));
	else if (fs->period)
		snprintf(per, len, " every %s", fmt_num(b, fs->period, H_EXACT));
}

static void table_head(struct table *t, const struct fsum *fs, const struct model *m)
{
	size_t ncol = 5 + (m->o->children ? 1 : 0) + nvalued(fs) + (any_ipc(fs, m) ? 1 : 0);

	tbl_init(t, ncol);
	tbl_left(t, ncol - 2);
	tbl_left(t, ncol - 1);
	tbl_put(t, "samples"), tbl_put(t, m->o->children ? "self" : "share");
	if (m->o->children)
		tbl_put(t, "children");
	tbl_put(t, "time (est.)");
	for (size_t e = 0; e < fs->nev; e++)
		if (fs->valued[e])
			tbl_put(t, "%s", m->ev[e]);
	if (any_ipc(fs, m))
		tbl_put(t, "IPC");
	tbl_put(t, "function"), tbl_put(t, "module");
}

static void table_row(struct table *t, const struct fsum *fs, const struct model *m,
		      const struct fn *f)
{
	char b[64];
	char *name = escape_name(f->name, NAME_COLUMN_MAX);
	char *mod = escape_name(f->module, NAME_COLUMN_MAX);
	double ipc;

	tbl_put(t, "%s", fmt_num(b, f->samples, H_EXACT));
	tbl_put(t, "%.1f%%", share(fs, f));
	if (m->o->children)
		tbl_put(t, "%.1f%%", children_share(fs, f));
	tbl_put(t, "%s", f->timed && event_is_time(fs->event) ? fmt_num(b, f->est, H_TIME) : "n/a");
	for (size_t e = 0; e < fs->nev; e++)
		if (fs->valued[e])
			tbl_put(t, "%s", fmt_num(b, f->val[e], how_of(m, (int)e)));
	if (fn_ipc(fs, m, f, &ipc))
		tbl_put(t, "%.2f", ipc);
	else if (any_ipc(fs, m))
		tbl_put(t, "-");
	tbl_put(t, "%s", name);
	tbl_put(t, "%s", mod);
	free(name), free(mod);
}

/* --stacks: the sampled stacks themselves, heaviest first. */
static void render_sampled_stacks(FILE *out, const struct model *m)
{
	struct fsum fs;
	char b[64];

	collect(&fs, m, true);
	fprintf(out, "\n### sampled stacks (outermost first, under the region)\n");
	for (size_t i = 0; i < fs.n; i++) {
		char *text = escape_name(fs.fn[i]->name, 4096);

		fprintf(out, "%10s %5.1f%%  %s\n", fmt_num(b, fs.fn[i]->samples, H_EXACT),
			share(&fs, fs.fn[i]), text);
		free(text);
	}
	release(&fs);
}

void render_functions(FILE *out, const struct model *m)
{
	struct fsum fs;
	struct table t;
	char b[64], per[96];

	collect(&fs, m, false);
	say_period(&fs, per, sizeof(per));
	fprintf(out, "\n## functions, sampled%s (%s%s): %s sample%s\n",
		m->o->has_re ? " in the regions --region selects" : "", fs.event ? fs.event : "-",
		per, fmt_num(b, fs.total, H_EXACT), fs.total == 1 ? "" : "s");
	if (fs.n == 0) {
		fputs("(no samples)\n", out);
	} else {
		table_head(&t, &fs, m);
		for (size_t i = 0; i < fs.n; i++)
			table_row(&t, &fs, m, fs.fn[i]);
		tbl_print(&t, out);
		if (nvalued(&fs))
			fputs("(each event: what the thread counted between its previous sample "
			      "and this one, summed over the function's samples)\n", out);
	}
	print_drops(out, &fs);
	release(&fs);
	if (m->o->stacks)
		render_sampled_stacks(out, m);
}

void render_functions_csv(FILE *out, const struct model *m)
{
	struct fsum fs;
	double ipc;

	collect(&fs, m, false);
	fputs("function,module,samples,share,", out);
	if (m->o->children)
		fputs("children,", out);
	csv_field(out, fs.event ? fs.event : "estimate");
	for (size_t e = 0; e < fs.nev; e++)
		if (fs.valued[e])
			fputc(',', out), csv_field(out, m->ev[e]);
	if (any_ipc(&fs, m))
		fputs(",ipc", out);
	fputc('\n', out);
	for (size_t i = 0; i < fs.n; i++) {
		const struct fn *f = fs.fn[i];

		csv_field(out, f->name);
		fputc(',', out);
		csv_field(out, f->module);
		fprintf(out, ",%" PRIu64 ",%.4f,", f->samples, share(&fs, f) / 100.0);
		if (m->o->children)
			fprintf(out, "%.4f,", children_share(&fs, f) / 100.0);
		if (f->timed)
			fprintf(out, "%" PRIu64, f->est);
		for (size_t e = 0; e < fs.nev; e++)
			if (fs.valued[e])
				fprintf(out, ",%" PRIu64, f->val[e]);
		if (any_ipc(&fs, m))
			fn_ipc(&fs, m, f, &ipc) ? fprintf(out, ",%.4f", ipc) : fputs(",", out);
		fputc('\n', out);
	}
	release(&fs);
}

void render_functions_folded(FILE *out, const struct model *m)
{
	struct fsum fs;

	collect(&fs, m, true);
	for (size_t i = 0; i < fs.n; i++)
		fprintf(out, "%s %" PRIu64 "\n", fs.fn[i]->name, fs.fn[i]->samples);
	release(&fs);
}

/* ---- the stacks, for the HTML page and speedscope ---------------------------- */

uint64_t functions_kept(const struct model *m)
{
	uint64_t n = 0;

	for (size_t f = 0; f < m->nfiles; f++)
		for (size_t t = 0; t < m->files[f]->nsamples; t++)
			for (uint32_t i = 0; i < m->files[f]->samples[t]->nslots; i++)
				n = sat_add64(n, slot_kept(m, m->files[f], m->files[f]->samples[t],
							   rf_sample_slot(m->files[f]->samples[t], i)));
	return n;
}

struct interned {
	const char *key;
	uint32_t index;
	UT_hash_handle hh;
};

struct sstacks_own {
	struct sstacks pub;
	struct interned *byframe, *byregion;
	size_t cframes, cregions, cs;
	struct pool pool;
};

static uint32_t intern(struct sstacks_own *o, struct interned **set, const char ***names,
		       size_t *n, size_t *cap, const char *name)
{
	struct interned *x;

	HASH_FIND_STR(*set, name, x);
	if (x)
		return x->index;
	x = pool_zalloc(&o->pool, sizeof(*x));
	x->key = pool_strdup(&o->pool, name);
	x->index = (uint32_t)*n;
	*names = grow(*names, cap, *n + 1, sizeof(**names));
	(*names)[(*n)++] = x->key;
	HASH_ADD_KEYPTR(hh, *set, x->key, strlen(x->key), x);
	return x->index;
}

static void stack_of(struct sstacks_own *o, struct symbolizer *sz, size_t f,
		     const struct report *r, const struct rf_samples *s,
		     const struct rf_sample_slot *slot, uint64_t n)
{
	struct sstacks *p = &o->pub;
	struct sstack *st;
	char name[512];
	const char *module;

	p->s = grow(p->s, &o->cs, p->n + 1, sizeof(*p->s));
	st = &p->s[p->n++];
	st->file = f, st->table = s, st->count = n, st->nframes = slot->nframes;
	st->region = intern(o, &o->byregion, &p->regions, &p->nregions, &o->cregions,
			    region_name(r, slot->region));
	st->frame = pool_zalloc(&o->pool, slot->nframes * sizeof(*st->frame));
	for (uint32_t k = 0; k < slot->nframes; k++) {
		name_at(sz, r, slot->pc[k], k > 0, name, sizeof(name), &module);
		st->frame[slot->nframes - 1 - k] =
			intern(o, &o->byframe, &p->frames, &p->nframes, &o->cframes, name);
	}
	p->total += n;
}

struct sstacks *functions_stacks(const struct model *m)
{
	struct sstacks_own *o = xcalloc(1, sizeof(*o));
	struct symbolizer *sz = m->o->symbolize ? symbolizer_new() : NULL;

	for (size_t f = 0; f < m->nfiles; f++) {
		const struct report *r = m->files[f];

		for (size_t t = 0; t < r->nsamples; t++) {
			const struct rf_samples *s = r->samples[t];

			if (!o->pub.event)
				o->pub.event = pool_strndup(&o->pool, s->event_name,
							    strnlen(s->event_name,
								    sizeof(s->event_name)));
			for (uint32_t i = 0; i < s->nslots; i++) {
				const struct rf_sample_slot *slot = rf_sample_slot(s, i);
				uint64_t n = slot_kept(m, r, s, slot);

				if (n)
					stack_of(o, sz, f, r, s, slot, n);
			}
		}
	}
	symbolizer_free(sz);
	return &o->pub;
}

void functions_stacks_free(struct sstacks *p)
{
	struct sstacks_own *o = (struct sstacks_own *)p;

	if (!o)
		return;
	HASH_CLEAR(hh, o->byframe);
	HASH_CLEAR(hh, o->byregion);
	free(p->frames), free(p->regions), free(p->s);
	pool_free(&o->pool);
	free(o);
}

const struct rep_thread *functions_thread(const struct report *r, const struct rf_samples *s)
{
	for (size_t i = 0; i < r->nthreads; i++)
		if (r->threads[i].index == s->thread)
			return &r->threads[i];
	return NULL;
}
