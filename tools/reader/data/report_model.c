#include "report_model.h"

#include <stdlib.h>
#include <string.h>

#include "report_incl.h"
#include "report_symbols.h"
#include "report_util.h"

void sum_add(struct sum *s, const struct rowval *rv, uint64_t calls)
{
	const struct rep_stat *st = &rv->st;
	uint64_t calls_mm = calls;	/* the calls min and max are of */

	s->enabled = sat_add64(s->enabled, rv->enabled);
	s->running = sat_add64(s->running, rv->running);
	s->mux += rv->present && rv->cover != REP_FULL;
	if (!rv->present) {
		s->never += rv->cover == REP_NEVER;
		s->miss++;
		return;
	}
	/* a live row before its first end has no min or max yet, a row
	 * estimated from samples none at all */
	if (rv->sampled)
		calls_mm = 0;
	if (calls_mm && (!s->have_mm || st->min < s->min))
		s->min = st->min;
	if (calls_mm && (!s->have_mm || st->max > s->max))
		s->max = st->max;
	s->have_mm += calls_mm > 0;
	s->incl = sat_add64(s->incl, st->incl);
	s->excl = sat_add64(s->excl, st->excl);
	s->calls = sat_add64(s->calls, calls);
	s->have++;
}

bool event_is_time(const char *name)
{
	size_t n = strcspn(name, ":");

	return (n == 10 && !strncmp(name, "task-clock", n)) ||
	       (n == 9 && !strncmp(name, "cpu-clock", n));
}

bool event_is_faults(const char *name)
{
	size_t n = strcspn(name, ":");

	/* counted in the kernel too (no modifier, or one with k): as getrusage */
	if (!((n == 11 && !strncmp(name, "page-faults", n)) || (n == 6 && !strncmp(name, "faults", n))))
		return false;
	return !name[n] || strchr(name + n, 'k');
}

/* ---- names shared across files ------------------------------------------ */

/* Names by index into their array: open addressing, each slot the name's
 * index + 1 (0: empty) under 32 bits of its hash, so a probe compares
 * strings only when the hashes agree. A million names cost 16 bytes each
 * here, and no allocation. */
struct name_set {
	uint64_t *slot;
	size_t cap, n;
};

static uint32_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return (uint32_t)(h ^ h >> 32);
}

static uint64_t *name_slot(const struct name_set *set, const char *const *names, const char *s,
			   uint32_t h)
{
	size_t i = h & (set->cap - 1);

	while (set->slot[i] && ((uint32_t)(set->slot[i] >> 32) != h ||
				strcmp(names[(uint32_t)set->slot[i] - 1], s)))
		i = (i + 1) & (set->cap - 1);
	return &set->slot[i];
}

/* Room for n names at most half full. */
static void name_set_reserve(struct name_set *set, size_t n)
{
	struct name_set big = { .n = set->n, .cap = set->cap ? set->cap : 64 };

	while (big.cap < 2 * n)
		big.cap *= 2;
	if (big.cap == set->cap)
		return;
	big.slot = xcalloc(big.cap, sizeof(*big.slot));
	for (size_t i = 0; i < set->cap; i++) {
		size_t k = (uint32_t)(set->slot[i] >> 32) & (big.cap - 1);

		if (!set->slot[i])
			continue;
		while (big.slot[k])
			k = (k + 1) & (big.cap - 1);
		big.slot[k] = set->slot[i];
	}
	free(set->slot);
	*set = big;
}

/* Index of s in *names (added when new). */
static uint32_t intern(struct name_set *set, const char ***names, size_t *n, size_t *cap,
		       const char *s)
{
	uint32_t h = str_hash(s);
	uint64_t *slot;

	name_set_reserve(set, set->n + 1);
	slot = name_slot(set, *names, s, h);
	if (*slot)
		return (uint32_t)*slot - 1;
	*names = grow(*names, cap, *n + 1, sizeof(**names));
	(*names)[(*n)++] = s;
	*slot = (uint64_t)h << 32 | (uint32_t)*n;
	set->n++;
	return (uint32_t)*n - 1;
}

static void clear_names(struct name_set *set)
{
	free(set->slot);
	*set = (struct name_set){ 0 };
}

/* Files may list different events: the columns are their union, by name. */
static void map_events(struct model *m)
{
	struct name_set set = { 0 };
	size_t cap = 0;

	for (size_t f = 0; f < m->nfiles; f++)
		for (size_t i = 0; i < m->files[f]->nev; i++)
			intern(&set, &m->ev, &m->nev, &cap, m->files[f]->ev[i].name);
	m->evmap = xcalloc(m->nfiles * m->nev, sizeof(*m->evmap));
	for (size_t i = 0; i < m->nfiles * m->nev; i++)
		m->evmap[i] = -1;
	for (size_t f = 0; f < m->nfiles; f++) {
		for (size_t i = m->files[f]->nev; i-- > 0;) { /* a name listed twice: the first */
			const char *name = m->files[f]->ev[i].name;
			uint32_t e = (uint32_t)*name_slot(&set, m->ev, name, str_hash(name)) - 1;

			m->evmap[f * m->nev + e] = (int)i;
		}
	}
	clear_names(&set);
}

/* Region names are per file (by id); the model's regions are their union. */
static void map_threads_and_regions(struct model *m)
{
	struct name_set set = { 0 };
	size_t cap = 0, k = 0, nnames = 0;

	for (size_t f = 0; f < m->nfiles; f++)
		nnames += m->files[f]->nname_ids;
	name_set_reserve(&set, nnames);
	m->namemap = xcalloc(m->nfiles, sizeof(*m->namemap));
	for (size_t f = 0; f < m->nfiles; f++) {
		const struct report *r = m->files[f];

		m->nthreads += r->nthreads;
		m->namemap[f] = xcalloc(r->nname_ids, sizeof(**m->namemap));
		for (size_t id = 0; id < r->nname_ids; id++)
			if (r->names[id])
				m->namemap[f][id] = intern(&set, &m->regions, &m->nregions, &cap,
							   r->names[id]);
	}
	m->threads = xcalloc(m->nthreads, sizeof(*m->threads));
	for (size_t f = 0; f < m->nfiles; f++)
		for (size_t i = 0; i < m->files[f]->nthreads; i++, k++)
			m->threads[k] = (struct mthread){ .file = f, .t = &m->files[f]->threads[i],
							  .regmap = m->namemap[f] };
	clear_names(&set);
	m->source = xcalloc(m->nregions + 1, sizeof(*m->source));
	for (size_t f = m->nfiles; f-- > 0;) /* the first file's, where they differ */
		for (size_t id = 0; id < m->files[f]->nname_ids; id++)
			if (m->files[f]->names[id])
				m->source[m->namemap[f][id]] = (uint8_t)rep_source(m->files[f],
										    (uint32_t)id);
	m->labels = xcalloc(m->nregions + 1, sizeof(*m->labels));
	m->selected = xcalloc(m->nregions, sizeof(*m->selected));
	for (size_t i = 0; i < m->nregions; i++) {
		bool re = !m->o->has_re || !regexec(&m->o->re, m->regions[i], 0, NULL, 0);

		m->selected[i] = re && (!m->o->sources || (m->o->sources >> m->source[i] & 1));
		m->show_source |= m->selected[i] && m->source[i] != RF_FROM_MARKERS;
	}
}

/* ---- weight ------------------------------------------------------------- */

bool model_per_thread(const struct model *m, size_t e)
{
	bool any = false;

	for (size_t f = 0; f < m->nfiles; f++) {
		int k = m->evmap[f * m->nev + e];

		if (k < 0)
			continue;
		if (!m->files[f]->ev[k].per_thread)
			return false;
		any = true;
	}
	return any;
}

static bool event_has_values(const struct model *m, size_t e)
{
	for (size_t i = 0; i < m->nthreads; i++) {
		const struct mthread *t = &m->threads[i];
		int k = m->evmap[t->file * m->nev + e];

		if (k >= 0 && t->t->nrows && t->t->slot[k])
			return true;
	}
	return false;
}

static bool choose_weight(struct model *m, char *why, size_t whylen)
{
	const char *want = m->o->event;
	size_t n = 0;

	m->weight = -1;
	if (want && !strcmp(want, "wall"))
		return true;
	for (size_t e = 0; e < m->nev; e++) {
		if (want ? !strcmp(want, m->ev[e]) : event_has_values(m, e)) {
			m->weight = (int)e;
			return true;
		}
	}
	if (!want) /* no event has a value: wall time */
		return true;
	n = (size_t)snprintf(why, whylen, "--event %s: no such event in the report%s (",
			     want, m->nfiles > 1 ? "s" : "");
	for (size_t e = 0; e < m->nev && n < whylen; e++)
		n += (size_t)snprintf(why + n, whylen - n, "%s, ", m->ev[e]);
	if (n < whylen)
		snprintf(why + n, whylen - n, "or wall)");
	return false;
}

/* IPC needs instructions and cycles counted the same way (same modifier). */
static void find_ipc(struct model *m)
{
	m->ipc_ins = m->ipc_cyc = -1;
	for (size_t i = 0; i < m->nev && m->ipc_ins < 0; i++) {
		const char *ins = m->ev[i];

		if (strncmp(ins, "instructions", 12) || (ins[12] && ins[12] != ':'))
			continue;
		for (size_t c = 0; c < m->nev; c++) {
			const char *cyc = m->ev[c];

			if (!strncmp(cyc, "cycles", 6) && !strcmp(cyc + 6, ins + 12)) {
				m->ipc_ins = (int)i, m->ipc_cyc = (int)c;
				break;
			}
		}
	}
}

struct rowval site_value(const struct report *r, const struct rep_thread *t,
			 const struct rf_site *s, int e)
{
	struct rowval rv = { .cover = REP_FULL };

	rv.present = rep_shown(r, t, s, e, &rv.st, &rv.cover);
	if (!rv.present) {
		rv.st = (struct rep_stat){ 0 };
	} else {
		struct rep_stat raw = rep_measured(r, t, s, e, rv.cover);

		rv.taken = rep_minus(raw.excl, rv.st.excl);
		rv.mmin = raw.min, rv.mmax = raw.max;
		rv.sampled = rep_fn_sampled(r, s);
	}
	if (e >= 0 && t->slot[e] && t->coverage)
		rv.enabled = s->v[t->slot[e]].enabled, rv.running = s->v[t->slot[e]].running;
	return rv;
}

/* (report_model.h) */
struct rowval model_row_own(const struct model *m, const struct mthread *t, size_t j, int e)
{
	const struct report *r = m->files[t->file];
	int k = e < 0 ? -1 : m->evmap[t->file * m->nev + (size_t)e];

	if (e >= 0 && k < 0)
		return (struct rowval){ .cover = REP_FULL };
	return site_value(r, t->t, rep_site(r, t->t, j), k);
}

static uint64_t row_calls(const struct model *m, const struct mthread *t, size_t j)
{
	return rep_site(m->files[t->file], t->t, j)->calls;
}

/* A row's min and max where its incl is made from the tree: its calls'
 * min and max as measured, each less the markers' cost taken out of the
 * subtree per call on average (taken / calls: the cost of one call's
 * markers and of the child markers inside it; which call had how many
 * children is not recorded), so they are corrected as the mean is, and
 * min <= mean <= max as measured gives the same order here. Rounding to
 * ns and a multiplexed subtree scaled row by row can leave them a unit
 * across the mean (incl / calls): the mean bounds them. And no call is
 * longer than the row's incl, all its (outermost) calls together: the
 * longest call, the outermost of a recursive function whose subtree is
 * the whole run, had far more than the average taken out of it (Lua's
 * luaD_precall: max 590 ms, incl 231 ms, the process 239 ms). */
static void minmax_from_tree(struct rowval *rv, uint64_t incl, uint64_t taken, uint64_t calls)
{
	uint64_t per = taken / calls, lo = incl / calls, hi = lo + (incl % calls != 0);

	rv->st.min = rep_minus(rv->mmin, per);
	rv->st.max = rep_minus(rv->mmax, per);
	rv->st.min = rv->st.min < lo ? rv->st.min : lo;
	rv->st.max = rv->st.max > hi ? rv->st.max : hi;
	rv->st.max = rv->st.max < incl ? rv->st.max : incl;
}

struct rowval model_row_value(const struct model *m, const struct mthread *t, size_t j,
			      int e, unsigned outer)
{
	struct rowval rv = model_row_own(m, t, j, e);
	size_t x = j * (1 + m->nev) + (size_t)(1 + e);
	uint64_t calls = row_calls(m, t, j);

	if (!t->incl || !rv.present)
		return rv;
	rv.st.incl = t->outer[j] & outer ? t->incl[x] : 0;
	if (calls && rv.mmin != UINT64_MAX)
		minmax_from_tree(&rv, t->incl[x], t->taken[x], calls);
	return rv;
}

/* The denominator of share: every region of the process, not only those
 * --region keeps. */
static void add_totals(struct model *m, struct sum *per, const uint32_t *part, struct sum *all)
{
	for (size_t i = 0; i < m->nthreads; i++) {
		const struct mthread *t = &m->threads[i];

		for (size_t j = 0; j < t->t->nrows; j++) {
			struct rowval rv = model_row_own(m, t, j, m->weight);

			sum_add(&per[part ? part[t->file] : t->file], &rv, row_calls(m, t, j));
			if (all)
				sum_add(all, &rv, row_calls(m, t, j));
		}
	}
}

void model_set_parts(struct model *m, const uint32_t *part, size_t nparts)
{
	m->part = part, m->nparts = nparts;
	free(m->part_total);
	m->part_total = xcalloc(nparts, sizeof(*m->part_total));
	add_totals(m, m->part_total, part, NULL);
}

/* ---- stacks across files ------------------------------------------------ */

struct skey_ent {
	void *key;
	size_t len;
	uint32_t idx;
	UT_hash_handle hh;
};

static uint32_t intern_bytes(struct skey_ent **hash, const void *key, size_t len,
			     uint32_t next)
{
	struct skey_ent *e;

	HASH_FIND(hh, *hash, key, len, e);
	if (e)
		return e->idx;
	e = xcalloc(1, sizeof(*e));
	e->key = memcpy(xmalloc(len), key, len), e->len = len, e->idx = next;
	HASH_ADD_KEYPTR(hh, *hash, e->key, len, e);
	return next;
}

static void clear_bytes(struct skey_ent **hash)
{
	struct skey_ent *e, *tmp;

	HASH_ITER(hh, *hash, e, tmp) {
		HASH_DEL(*hash, e);
		free(e->key);
		free(e);
	}
}

/* A module is the same in two reports when path and build-id are. */
static void map_modules(struct model *m)
{
	struct skey_ent *hash = NULL;
	size_t cap = 0;

	m->modmap = xcalloc(m->nfiles, sizeof(*m->modmap));
	for (size_t f = 0; f < m->nfiles; f++) {
		const struct report *r = m->files[f];

		m->modmap[f] = xcalloc(r->nmodules, sizeof(**m->modmap));
		for (size_t i = 0; i < r->nmodules; i++) {
			const struct rep_module *md = &r->modules[i];
			size_t lp = strlen(md->path), lb = strlen(md->build_id);
			char *key = xmalloc(lp + lb + 2);
			uint32_t g;

			memcpy(key, md->path, lp + 1), memcpy(key + lp + 1, md->build_id, lb + 1);
			g = intern_bytes(&hash, key, lp + lb + 2, (uint32_t)m->nmodules);
			free(key);
			if (g == m->nmodules) {
				m->modules = grow(m->modules, &cap, m->nmodules + 1,
						  sizeof(*m->modules));
				m->modules[m->nmodules++] = (struct gmodule){ md->path, md->build_id };
			}
			m->modmap[f][i] = g;
		}
	}
	clear_bytes(&hash);
}

struct fkey {
	int64_t mod;
	uint64_t off;
};

/* Two processes load the same code at different addresses: a stack is the
 * same when its frames are at the same offsets of the same modules. */
static void map_stacks(struct model *m)
{
	struct skey_ent *hash = NULL;
	size_t cap = 0, kcap = 0;
	struct fkey *key = NULL;

	m->stackmap = xcalloc(m->nfiles, sizeof(*m->stackmap));
	for (size_t f = 0; f < m->nfiles; f++) {
		const struct report *r = m->files[f];

		m->stackmap[f] = xcalloc(r->nstacks, sizeof(**m->stackmap));
		for (size_t s = 0; s < r->nstacks; s++) {
			const struct rep_frame *fr = &rep_frames(r)[r->stacks[s].first];
			size_t n = r->stacks[s].n;
			uint32_t g;

			key = grow(key, &kcap, n + 1, sizeof(*key));
			for (size_t k = 0; k < n; k++)
				key[k] = fr[k].module < 0 ?
					(struct fkey){ -1, fr[k].addr } :
					(struct fkey){ m->modmap[f][fr[k].module], fr[k].offset };
			g = intern_bytes(&hash, key, n * sizeof(*key), (uint32_t)m->nstacks);
			if (g == m->nstacks) {
				m->stacks = grow(m->stacks, &cap, m->nstacks + 1, sizeof(*m->stacks));
				m->stacks[m->nstacks++] = (struct gstack){ .file = f, .local = (uint32_t)s };
			}
			m->stackmap[f][s] = g;
		}
	}
	free(key);
	clear_bytes(&hash);
}

/* Physical frame k of a stack as text: one line per function where some
 * were inlined at the call (symbolize.h). */
static const char *frame_text(struct model *m, const struct gstack *g, size_t k)
{
	const struct report *r = m->files[g->file];
	const struct rep_frame *f = &rep_frames(r)[r->stacks[g->local].first + k];
	const struct gmodule *md = f->module < 0 ? NULL : &m->modules[m->modmap[g->file][f->module]];

	return symbols_frame(m->sym, md ? (int64_t)m->modmap[g->file][f->module] : -1,
			     md ? md->path : NULL, md ? md->build_id : NULL, f);
}

static size_t count_lines(const char *s)
{
	size_t n = 1;

	while ((s = strchr(s, '\n')))
		n++, s++;
	return n;
}

/* A stack's frames as text, once asked for (only the stacks shown are): a
 * frame where functions were inlined is one frame per function, so the
 * first frame of the user's own is the line that wrote a marker macro,
 * not the header's inline function it expands to. */
static struct gstack *stack_frames(struct model *m, uint32_t stack)
{
	struct gstack *g = &m->stacks[stack];
	size_t n = m->files[g->file]->stacks[g->local].n, k = 0;
	const char **text;

	if (g->frames)
		return g;
	text = xcalloc(n ? n : 1, sizeof(*text));
	for (size_t i = 0; i < n; i++) {
		text[i] = frame_text(m, g, i);
		g->nframes += count_lines(text[i]);
	}
	g->frames = pool_zalloc(&m->gpool, (g->nframes ? g->nframes : 1) * sizeof(*g->frames));
	for (size_t i = 0; i < n; i++) {
		for (const char *p = text[i], *nl; (nl = strchr(p, '\n')); p = nl + 1)
			g->frames[k++] = pool_strndup(&m->gpool, p, (size_t)(nl - p));
		g->frames[k++] = strrchr(text[i], '\n') ? strrchr(text[i], '\n') + 1 : text[i];
	}
	free(text);
	k = symbols_header_frames(g->frames, g->nframes);	/* from the marker's line */
	g->frames += k, g->nframes -= k;
	return g;
}

size_t model_stack_depth(struct model *m, uint32_t stack)
{
	return stack_frames(m, stack)->nframes;
}

const char *model_frame(struct model *m, uint32_t stack, size_t k)
{
	return stack_frames(m, stack)->frames[k];
}

void model_symbol_notes(struct model *m, void (*fn)(void *arg, const char *path,
						     const char *note), void *arg)
{
	symbols_notes(m->sym, fn, arg);
}

/* ---- the model ---------------------------------------------------------- */

struct model *model_new(struct report **files, size_t n, const struct opts *o, char *why,
			size_t whylen)
{
	struct model *m = xcalloc(1, sizeof(*m));

	m->o = o, m->files = files, m->nfiles = n;
	map_events(m);
	map_threads_and_regions(m);
	if (!choose_weight(m, why, whylen)) {
		model_free(m);
		return NULL;
	}
	find_ipc(m);
	m->file_total = xcalloc(m->nfiles, sizeof(*m->file_total));
	add_totals(m, m->file_total, NULL, &m->all_total);
	incl_derive(m);
	if (o->stacks || o->format == F_FOLDED_STACKS) {
		map_modules(m);
		map_stacks(m);
	}
	m->sym = symbols_new(o->symbolize);
	return m;
}

void model_free(struct model *m)
{
	if (!m)
		return;
	for (size_t f = 0; m->namemap && f < m->nfiles; f++)
		free(m->namemap[f]);
	free(m->namemap);
	for (size_t f = 0; m->modmap && f < m->nfiles; f++)
		free(m->modmap[f]);
	for (size_t f = 0; m->stackmap && f < m->nfiles; f++)
		free(m->stackmap[f]);
	for (size_t t = 0; t < m->ntables; t++)
		free(m->tables[t].g);
	while (m->groups) {
		struct group *g = m->groups;

		m->groups = g->next_all;
		free(g->sub);
	}
	pool_free(&m->gpool);
	incl_free(m);
	free(m->tables), free(m->modmap), free(m->stackmap), free(m->modules), free(m->stacks);
	for (size_t i = 0; m->labels && i <= m->nregions; i++)
		free(m->labels[i]);
	free(m->labels);
	free(m->threads), free(m->regions), free(m->selected), free(m->source);
	free(m->ev), free(m->evmap);
	free(m->file_total);
	free(m->part_total);
	symbols_free(m->sym);
	free(m);
}

/* --min-coverage leaves the group out (one with no coverage stays). */
static bool below_min_coverage(const struct model *m, const struct group *g)
{
	double c;

	return m->o->has_min_coverage && group_coverage(m, g, &c) && c < m->o->min_coverage;
}

/* ---- tables ------------------------------------------------------------- */

/* The groups of a scope by key: open addressing (a million groups, no
 * million allocations), and in v in the order they came, to visit. */
struct gmap {
	struct group **slot, **v;
	size_t cap, n, vcap;
};

static size_t key_hash(uint32_t region, uint32_t scope, uint32_t stack)
{
	uint64_t h = (region * 0x9e3779b97f4a7c15ull) ^
		     ((((uint64_t)scope << 32) | stack) * 0xc2b2ae3d27d4eb4full);

	return (size_t)(h ^ h >> 31);
}

static struct group **gmap_slot(const struct gmap *map, uint32_t region, uint32_t scope,
				uint32_t stack)
{
	size_t i = key_hash(region, scope, stack) & (map->cap - 1);
	struct group *g;

	while ((g = map->slot[i]) &&
	       (g->key.region != region || g->key.scope != scope || g->key.stack != stack))
		i = (i + 1) & (map->cap - 1);
	return &map->slot[i];
}

static void gmap_grow(struct gmap *map)
{
	struct gmap big = { .cap = map->cap ? 2 * map->cap : 64 };

	big.slot = xcalloc(big.cap, sizeof(*big.slot));
	for (size_t i = 0; i < map->n; i++)
		*gmap_slot(&big, map->v[i]->key.region, map->v[i]->key.scope,
			   map->v[i]->key.stack) = map->v[i];
	free(map->slot);
	map->slot = big.slot, map->cap = big.cap;
}

/* The columns a group sums before the cut: all (1 + nev), or with light
 * only the weight's, which is all that --top needs to choose the rows
 * shown; those get the rest after (fill_shown). */
static struct group *group_new(struct model *m, struct gmap *map, bool light, uint32_t region,
			       uint32_t scope, uint32_t stack)
{
	struct group *g = pool_zalloc(&m->gpool, sizeof(*g));

	g->key.region = region, g->key.scope = scope, g->key.stack = stack;
	g->light = light;
	g->s = pool_zalloc(&m->gpool, (light ? 1 : 1 + m->nev) * sizeof(*g->s));
	map->v = grow(map->v, &map->vcap, map->n + 1, sizeof(*map->v));
	map->v[map->n++] = g;
	return g;
}

static struct group *group_get(struct model *m, struct gmap *map, bool light, uint32_t region,
			       uint32_t scope, uint32_t stack)
{
	struct group **slot;

	if (2 * (map->n + 1) > map->cap)
		gmap_grow(map);
	slot = gmap_slot(map, region, scope, stack);
	return *slot ? *slot : (*slot = group_new(m, map, light, region, scope, stack));
}

static struct group *group_find(const struct gmap *map, uint32_t region, uint32_t scope,
				uint32_t stack)
{
	return map->cap ? *gmap_slot(map, region, scope, stack) : NULL;
}

/* Row j into g: its calls counted once (count), its values into each
 * column g keeps. */
static void add_row(const struct model *m, struct group *g, const struct mthread *t, size_t j,
		    bool count)
{
	uint64_t calls = row_calls(m, t, j);
	unsigned outer = g->key.stack == NO_STACK ? OUTER_REGION : OUTER_STACK;

	if (count)
		g->calls = sat_add64(g->calls, calls);
	if (g->light) {
		struct rowval rv = model_row_value(m, t, j, m->weight, outer);

		sum_add(&g->s[0], &rv, calls);
		return;
	}
	for (int e = -1; e < (int)m->nev; e++) {
		struct rowval rv = model_row_value(m, t, j, e, outer);

		sum_add(&g->s[1 + e], &rv, calls);
	}
}

/* The weight alone orders the rows (ties included) unless the sort or
 * --min-coverage reads another column; and only a cut leaves rows out. */
static bool sort_needs_weight_only(const struct model *m)
{
	const struct opts *o = m->o;

	return o->top && !o->has_min_coverage && o->sort != S_IPC && o->sort != S_COVERAGE &&
	       o->sort != S_SOURCE &&
	       (o->sort != S_WALL || m->weight < 0);
}

/* The stacks of a region are "heaviest first": by their own (exclusive)
 * cost, unless --sort says otherwise. */
static void set_sort_key(const struct model *m, struct group *g)
{
	const struct sum *w = g->light ? &g->s[0] : model_weight(m, g);
	double v = 0;
	bool ok = w->have > 0;
	enum sort_field sort = m->o->sort;

	if (!m->o->sort_given && g->key.stack != NO_STACK)
		sort = S_EXCL;
	g->tie_excl = w->have ? (double)w->excl : -1;
	g->tie_incl = w->have ? (double)w->incl : -1;
	switch (sort) {
	case S_INCL: case S_SOURCE: v = (double)w->incl; break;
	case S_EXCL: case S_SHARE: v = (double)w->excl; break;
	case S_MEAN: ok = sum_mean(w, &v); break;
	case S_MIN: v = (double)sum_min(w); break;
	case S_MAX: v = (double)sum_max(w); break;
	case S_CALLS: v = (double)g->calls, ok = true; break;
	case S_IPC: ok = group_ipc(m, g, &v); break;
	case S_WALL: v = (double)g->s[0].incl, ok = true; break;
	case S_NAME: ok = true; break;
	case S_COVERAGE: /* the least first: where to look for numbers to doubt */
		ok = group_coverage(m, g, &v), v = -v;
		break;
	}
	g->sort_key = v, g->sort_na = !ok;
}

static const struct model *sort_model; /* qsort has no context argument */

/* Heaviest first, n/a last; ties by name, then scope and stack, so the
 * order never depends on hashing. */
static int by_sort_key(const void *pa, const void *pb)
{
	const struct group *a = *(struct group *const *)pa, *b = *(struct group *const *)pb;
	int c = 0;

	if (sort_model->o->sort == S_SOURCE &&
	    sort_model->source[a->key.region] != sort_model->source[b->key.region])
		return strcmp(rf_from_name(sort_model->source[a->key.region]),
			      rf_from_name(sort_model->source[b->key.region]));
	if (sort_model->o->sort != S_NAME) {
		if (a->sort_na != b->sort_na)
			return a->sort_na ? 1 : -1;
		if (a->sort_key != b->sort_key)
			return a->sort_key < b->sort_key ? 1 : -1;
		if (a->tie_excl != b->tie_excl)
			return a->tie_excl < b->tie_excl ? 1 : -1;
		if (a->tie_incl != b->tie_incl)
			return a->tie_incl < b->tie_incl ? 1 : -1;
	}
	if (a->key.region != b->key.region)
		c = strcmp(sort_model->regions[a->key.region], sort_model->regions[b->key.region]);
	if (!c && a->key.scope != b->key.scope)
		c = a->key.scope < b->key.scope ? -1 : 1;
	if (!c && a->key.stack != b->key.stack)
		c = a->key.stack < b->key.stack ? -1 : 1;
	return c;
}

/* x into the heap h[0..k) at p, sifted down: the worst of by_sort_key on top. */
static void sift_down(struct group **h, size_t k, size_t p, struct group *x)
{
	for (size_t c; (c = 2 * p + 1) < k; p = c) {
		c += c + 1 < k && by_sort_key(&h[c + 1], &h[c]) > 0;
		if (by_sort_key(&h[c], &x) <= 0)
			break;
		h[p] = h[c];
	}
	h[p] = x;
}

/* The first k of n (k < n) in by_sort_key order, moved to g[0..k) unsorted:
 * a heap of the k best so far, so a table of a million regions cut to 20
 * costs n log k comparisons, not n log n. */
static void select_top(struct group **g, size_t n, size_t k)
{
	for (size_t r = k / 2; r-- > 0;)
		sift_down(g, k, r, g[r]);
	for (size_t i = k; i < n; i++)
		if (by_sort_key(&g[i], &g[0]) < 0)
			sift_down(g, k, 0, g[i]);
}

static void sort_cut(const struct model *m, struct group **g, size_t *n)
{
	sort_model = m;
	if (m->o->top && *n > 2 * m->o->top) {
		select_top(g, *n, m->o->top);
		*n = m->o->top;
	}
	if (*n > 1) /* g may be NULL when empty, which qsort must not see */
		qsort(g, *n, sizeof(*g), by_sort_key);
	if (m->o->top && *n > m->o->top)
		*n = m->o->top;
}

/* Groups leave their map for the model's list (their memory is the
 * model's pool; their stacks' arrays are freed with the model). */
static void keep_groups(struct model *m, struct gmap *map)
{
	for (size_t i = 0; i < map->n; i++) {
		map->v[i]->next_all = m->groups;
		m->groups = map->v[i];
	}
	free(map->slot), free(map->v);
}

static uint32_t scope_of(const struct model *m, enum scope sc, size_t thread)
{
	size_t file = m->threads[thread].file;

	return sc == SC_ALL ? 0 : sc == SC_PROCESS ? (m->part ? m->part[file] : (uint32_t)file) :
		(uint32_t)thread;
}

/* The groups of a scope: in a map, the regions' in a direct table instead
 * when scopes x regions is small enough (one lookup per row is most of
 * the work on a big file). */
struct scope_groups {
	struct gmap regs, stks;
	struct group **direct;
	size_t nregions;
	bool light;
};

static struct group *region_group(struct model *m, struct scope_groups *sg, uint32_t region,
				  uint32_t scope)
{
	struct group **slot;

	if (!sg->direct)
		return group_get(m, &sg->regs, sg->light, region, scope, NO_STACK);
	slot = &sg->direct[(size_t)scope * sg->nregions + region];
	return *slot ? *slot : (*slot = group_new(m, &sg->regs, sg->light, region, scope, NO_STACK));
}

static struct group *region_find(const struct scope_groups *sg, uint32_t region,
				 uint32_t scope)
{
	return sg->direct ? sg->direct[(size_t)scope * sg->nregions + region] :
		group_find(&sg->regs, region, scope, NO_STACK);
}

static void attach_stacks(struct model *m, struct scope_groups *sg)
{
	for (size_t i = 0; i < sg->stks.n; i++) {
		struct group *s = sg->stks.v[i];
		struct group *r = region_find(sg, s->key.region, s->key.scope);

		set_sort_key(m, s);
		r->sub = grow(r->sub, &r->subcap, r->nsub + 1, sizeof(*r->sub));
		r->sub[r->nsub++] = s;
	}
	for (size_t i = 0; i < sg->regs.n; i++)
		sort_cut(m, sg->regs.v[i]->sub, &sg->regs.v[i]->nsub);
}

/* Every row of the scope into its groups; with shown, only into the groups
 * shown (fill_shown), which already counted the row's calls. */
static void add_rows(struct model *m, enum scope sc, struct scope_groups *sg, bool shown)
{
	for (size_t i = 0; i < m->nthreads; i++) {
		const struct mthread *t = &m->threads[i];
		uint32_t scope = scope_of(m, sc, i);

		for (size_t j = 0; j < t->t->nrows; j++) {
			const struct rf_site *site = rep_site(m->files[t->file], t->t, j);
			uint32_t region = mthread_region(m, t, site);
			struct group *g;

			/* a function whose calls were all folded into their callers
			 * (PMCSHIM_FUNCTIONS min=) has nothing to show */
			if (!m->selected[region] ||
			    (!site->calls && m->source[region] == RF_FROM_FUNCTIONS))
				continue;
			g = shown ? region_find(sg, region, scope) : region_group(m, sg, region, scope);
			if (!shown || !g->light)
				add_row(m, g, t, j, !shown);
			if (!m->stackmap || (shown && g->light))
				continue;
			g = shown ? group_find(&sg->stks, region, scope,
					       m->stackmap[t->file][site->stack]) :
				group_get(m, &sg->stks, sg->light, region, scope,
					  m->stackmap[t->file][site->stack]);
			if (!shown || !g->light)
				add_row(m, g, t, j, !shown);
		}
	}
}

/* A group shown gets all its columns (the weight's sum again with them). */
static void unlight(struct model *m, struct group *g)
{
	g->light = false;
	g->s = pool_zalloc(&m->gpool, (1 + m->nev) * sizeof(*g->s));
}

/* After a cut on the weight alone: the rows shown, and their stacks shown,
 * summed in every column, by a second pass over the rows. */
static void fill_shown(struct model *m, enum scope sc, struct scope_groups *sg, size_t first,
		       size_t nscopes)
{
	for (size_t s = 0; s < nscopes; s++) {
		const struct gtable *t = &m->tables[first + s];

		for (size_t i = 0; i < t->n; i++) {
			unlight(m, t->g[i]);
			for (size_t k = 0; k < t->g[i]->nsub; k++)
				unlight(m, t->g[i]->sub[k]);
		}
	}
	add_rows(m, sc, sg, true);
}

static void build_scope(struct model *m, enum scope sc)
{
	size_t nscopes = sc == SC_ALL ? 1 : sc != SC_PROCESS ? m->nthreads :
			 m->part ? m->nparts : m->nfiles;
	size_t first = m->ntables;
	struct scope_groups sg = { .nregions = m->nregions, .light = sort_needs_weight_only(m) };

	if (nscopes * m->nregions <= (1u << 20))
		sg.direct = xcalloc(nscopes * m->nregions, sizeof(*sg.direct));
	add_rows(m, sc, &sg, false);
	attach_stacks(m, &sg);
	m->tables = xrealloc(m->tables, (m->ntables + nscopes) * sizeof(*m->tables));
	for (size_t s = 0; s < nscopes; s++)
		m->tables[m->ntables++] = (struct gtable){ .scope = sc, .id = (uint32_t)s };
	for (size_t i = 0; i < sg.regs.n; i++) /* count, then fill: no regrowing */
		m->tables[first + sg.regs.v[i]->key.scope].n++;
	for (size_t s = 0; s < nscopes; s++) {
		m->tables[first + s].g = xcalloc(m->tables[first + s].n, sizeof(struct group *));
		m->tables[first + s].n = 0;
	}
	for (size_t i = 0; i < sg.regs.n; i++) {
		struct group *g = sg.regs.v[i];
		struct gtable *t = &m->tables[first + g->key.scope];

		if (below_min_coverage(m, g)) {
			t->nlow++;
			continue;
		}
		set_sort_key(m, g);
		t->g[t->n++] = g;
	}
	for (size_t s = 0; s < nscopes; s++)
		sort_cut(m, m->tables[first + s].g, &m->tables[first + s].n);
	if (sg.light)
		fill_shown(m, sc, &sg, first, nscopes);
	free(sg.direct);
	keep_groups(m, &sg.regs);
	keep_groups(m, &sg.stks);
}

void model_tables(struct model *m)
{
	build_scope(m, SC_ALL);
	if (m->o->by_process)
		build_scope(m, SC_PROCESS);
	if (m->o->threads)
		build_scope(m, SC_THREAD);
}
