#include "report_tree.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "reader/cells/report_cells.h"
#include "reader/cells/report_escape.h"
#include "reader/cells/report_labels.h"
#include "reader/cells/report_text.h"
#include "report_functions.h"
#include "report_render.h"
#include "reader/data/report_incl.h"
#include "reader/data/report_util.h"

struct tkey {
	uint64_t key;			/* parent << 32 | region */
	uint32_t node;
	UT_hash_handle hh;
};

static uint32_t add_node(struct tree *t, uint32_t parent, uint32_t region)
{
	struct tnode *n;

	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->node = xrealloc(t->node, t->cap * sizeof(*t->node));
		t->s = xrealloc(t->s, t->cap * t->nv * sizeof(*t->s));
	}
	memset(&t->s[t->n * t->nv], 0, t->nv * sizeof(*t->s));
	n = &t->node[t->n];
	*n = (struct tnode){ parent, region, NO_NODE, NO_NODE, 0, T_IN, 0 };
	if (parent != NO_NODE)
		n->depth = t->node[parent].depth + 1;
	return (uint32_t)t->n++;
}

/* The child of parent for region, made the first time. */
static uint32_t child_of(struct tree *t, uint32_t parent, uint32_t region)
{
	uint64_t key = (uint64_t)parent << 32 | region;
	struct tkey *k;

	HASH_FIND(hh, t->hash, &key, sizeof(key), k);
	if (k)
		return k->node;
	k = xcalloc(1, sizeof(*k));
	k->key = key, k->node = add_node(t, parent, region);
	HASH_ADD(hh, t->hash, key, sizeof(k->key), k);
	return k->node;
}

/* Rows of thread i become nodes; a parent row comes before its children. */
static void add_thread(struct tree *t, size_t i, uint32_t **scratch, size_t *scap)
{
	const struct model *m = t->m;
	const struct mthread *mt = &m->threads[i];
	const struct report *r = m->files[mt->file];

	*scratch = grow(*scratch, scap, mt->t->nrows, sizeof(**scratch));
	for (size_t j = 0; j < mt->t->nrows; j++) {
		const struct rf_site *s = rep_site(r, mt->t, j);
		uint32_t up = r->tree && mt->t->parent[j] != NO_PARENT ?
			      (*scratch)[mt->t->parent[j]] : 0;
		uint32_t k = child_of(t, up, mthread_region(m, mt, s));

		(*scratch)[j] = k;
		t->node[k].calls += s->calls;
		for (int e = -1; e < (int)m->nev; e++) {
			struct rowval rv = model_row_value(m, mt, j, e, OUTER_NODE);

			sum_add(&t->s[k * t->nv + (size_t)(1 + e)], &rv, s->calls);
		}
	}
}

static bool in_scope(const struct model *m, size_t i, size_t file, size_t thread)
{
	return (thread == SIZE_MAX || thread == i) &&
	       (file == SIZE_MAX || file == m->threads[i].file);
}

static int by_weight(const void *a, const void *b, void *arg)
{
	const struct tree *t = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int w = t->m->weight;
	const struct sum *sx = tree_sum(t, x, w), *sy = tree_sum(t, y, w);
	uint64_t ix = sx->have ? tree_incl(t, x, w) : 0, iy = sy->have ? tree_incl(t, y, w) : 0;

	if (t->node[x].parent != t->node[y].parent)
		return t->node[x].parent < t->node[y].parent ? -1 : 1;
	if (ix != iy && !(t->m->o->sort_given && t->m->o->sort == S_NAME))
		return ix > iy ? -1 : 1;
	return strcmp(t->m->regions[t->node[x].region], t->m->regions[t->node[y].region]);
}

/* Each node's children, heaviest first (ties by name), or by name with
 * --sort name. */
static void link_children(struct tree *t)
{
	uint32_t *order = xmalloc(t->n * sizeof(*order));
	size_t n = 0;

	for (uint32_t k = 1; k < t->n; k++)
		if (t->node[k].in != T_OUT)
			order[n++] = k;
	t->nshown = n;
	qsort_r(order, n, sizeof(*order), by_weight, t);
	for (size_t i = n; i-- > 0;) {
		struct tnode *c = &t->node[order[i]], *p = &t->node[c->parent];

		c->next = p->child;
		p->child = order[i];
	}
	free(order);
}

/* The root holds the whole: every outermost region's inclusive value,
 * before --region leaves any out (shares stay shares of the whole). */
static void whole(struct tree *t)
{
	for (uint32_t k = 1; k < t->n; k++)
		for (size_t v = 0; t->node[k].parent == 0 && v < t->nv; v++) {
			struct sum *r = &t->s[v], *c = &t->s[k * t->nv + v];

			r->have += c->have;
			r->incl = c->have ? sat_add64(r->incl, c->incl) : r->incl;
		}
}

/* --region and --source: a node is in when its path holds a region they
 * keep (its whole subtree with it); an ancestor of one stays as its
 * context, its inclusive value its children's, none of its own weight.
 * Children have higher numbers than their parents. */
static void select_paths(struct tree *t)
{
	const struct model *m = t->m;

	for (uint32_t k = 1; k < t->n; k++) {
		struct tnode *n = &t->node[k];

		n->in = m->selected[n->region] || (n->parent && t->node[n->parent].in == T_IN) ?
			T_IN : T_OUT;
	}
	for (uint32_t k = (uint32_t)t->n; k-- > 1;) {
		struct tnode *n = &t->node[k];

		if (n->in != T_OUT && n->parent && t->node[n->parent].in == T_OUT) {
			t->node[n->parent].in = T_CONTEXT;
			for (size_t v = 0; v < t->nv; v++)
				t->s[n->parent * t->nv + v].incl = t->s[n->parent * t->nv + v].excl = 0;
		}
		if (n->in != T_OUT && n->parent && t->node[n->parent].in == T_CONTEXT)
			for (size_t v = 0; v < t->nv; v++) {
				uint64_t *p = &t->s[n->parent * t->nv + v].incl;

				*p = sat_add64(*p, t->s[k * t->nv + v].incl);
			}
	}
}

struct tree *tree_build(const struct model *m, size_t file, size_t thread)
{
	struct tree *t = xcalloc(1, sizeof(*t));
	uint32_t *scratch = NULL;
	size_t scap = 0;

	t->m = m, t->nv = 1 + m->nev;
	add_node(t, NO_NODE, NO_NODE);
	for (size_t i = 0; i < m->nthreads; i++)
		if (in_scope(m, i, file, thread))
			add_thread(t, i, &scratch, &scap);
	free(scratch);
	whole(t);
	select_paths(t);
	link_children(t);
	return t;
}

void tree_free(struct tree *t)
{
	struct tkey *k, *tmp;

	if (!t)
		return;
	HASH_ITER(hh, t->hash, k, tmp) {
		HASH_DEL(t->hash, k);
		free(k);
	}
	free(t->node), free(t->s), free(t);
}

const struct sum *tree_sum(const struct tree *t, uint32_t k, int e)
{
	return &t->s[k * t->nv + (size_t)(1 + e)];
}

uint64_t tree_incl(const struct tree *t, uint32_t k, int e)
{
	return tree_sum(t, k, e)->incl;
}

bool tree_total(const struct tree *t, int e, uint64_t *v)
{
	*v = tree_sum(t, 0, e)->incl;
	return tree_sum(t, 0, e)->have;
}

bool model_has_tree(const struct model *m)
{
	for (size_t i = 0; i < m->nfiles; i++)
		if (!m->files[i]->tree)
			return false;
	return true;
}

/* ---- scopes ---------------------------------------------------------------- */

/* What one tree of an output covers, and its name ("" for everything). */
struct tscope {
	size_t file, thread;
	char name[300];
};

/* The scopes asked for: everything, or each process (--by-process, or
 * several files for a folded or speedscope output), or each thread. */
static size_t scopes(const struct model *m, bool split_files, struct tscope **out)
{
	size_t n = 0;
	struct tscope *s;

	if (m->o->threads) {
		s = xcalloc(m->nthreads ? m->nthreads : 1, sizeof(*s));
		for (size_t i = 0; i < m->nthreads; i++) {
			const struct report *r = m->files[m->threads[i].file];
			const struct rep_thread *t = m->threads[i].t;

			s[n].file = SIZE_MAX, s[n].thread = i;
			snprintf(s[n++].name, sizeof(s->name), "%s [pid %" PRIu64 "];%s [tid %" PRIu64
				 "]", r->executable, r->pid, t->name, t->tid);
		}
	} else if (m->o->by_process || (split_files && m->nfiles > 1)) {
		s = xcalloc(m->nfiles, sizeof(*s));
		for (size_t i = 0; i < m->nfiles; i++) {
			s[n].file = i, s[n].thread = SIZE_MAX;
			snprintf(s[n++].name, sizeof(s->name), "%s [pid %" PRIu64 "]",
				 m->files[i]->executable, m->files[i]->pid);
		}
	} else {
		s = xcalloc(1, sizeof(*s));
		s[n++] = (struct tscope){ SIZE_MAX, SIZE_MAX, "" };
	}
	*out = s;
	return n;
}

/* A name inside a path: ';' separates frames and a line ends a sample. */
static void put_path_name(FILE *out, const char *s)
{
	for (; *s; s++)
		putc(*s == ';' ? ':' : *s == '\n' || *s == '\r' ? ' ' : *s, out);
}

/* ---- --tree ------------------------------------------------------------------ */

static void share_cell(struct table *tb, bool ok, uint64_t v, uint64_t total)
{
	if (ok && total)
		tbl_put(tb, "%.1f%%", 100.0 * (double)v / (double)total);
	else
		tbl_put(tb, "n/a");
}

static void tree_row(struct table *tb, const struct tree *t, uint32_t k, uint64_t total,
		     bool has_total)
{
	const struct model *m = t->m;
	const struct sum *w = tree_sum(t, k, m->weight);
	enum how how = how_of(m, m->weight);
	char b[48];

	tbl_put(tb, "%*s%s", 2 * (int)(t->node[k].depth - 1), "",
		region_label(m, t->node[k].region));
	tbl_put(tb, "%s", fmt_num(b, t->node[k].calls, H_EXACT));
	tbl_put(tb, "%s", est_cell(b, w, tree_incl(t, k, m->weight), how));
	tbl_put(tb, "%s", t->node[k].in == T_CONTEXT ? "-" : est_cell(b, w, w->excl, how));
	share_cell(tb, has_total && w->have, tree_incl(t, k, m->weight), total);
}

/* Children below the share are summed into one line under their parent. */
static void tree_rows(struct table *tb, const struct tree *t, uint32_t k, uint64_t total,
		      bool has_total)
{
	const struct model *m = t->m;
	uint64_t low = 0, n = 0;
	char b[48];

	if (k)
		tree_row(tb, t, k, total, has_total);
	for (uint32_t c = t->node[k].child; c != NO_NODE; c = t->node[c].next) {
		uint64_t v = tree_incl(t, c, m->weight);

		if (has_total && total && m->o->min_share > 0 &&
		    (double)v < m->o->min_share * (double)total) {
			low = sat_add64(low, v);
			n++;
			continue;
		}
		tree_rows(tb, t, c, total, has_total);
	}
	if (!n)
		return;
	tbl_put(tb, "%*s(%" PRIu64 " more below %g%%)", 2 * (int)t->node[k].depth, "", n,
		100 * m->o->min_share);
	tbl_put(tb, "%s", "");
	tbl_put(tb, "%s", fmt_num(b, low, how_of(m, m->weight)));
	tbl_put(tb, "%s", "");
	share_cell(tb, true, low, total);
}

static void render_one_tree(FILE *out, struct model *m, const struct tscope *sc)
{
	struct tree *t = tree_build(m, sc->file, sc->thread);
	uint64_t total;
	bool has_total = tree_total(t, m->weight, &total);
	struct table tb;

	fprintf(out, "\nregion tree%s%s, weight %s: %zu nodes\n", sc->name[0] ? " of " : "",
		sc->name, model_weight_name(m), t->nshown);
	tbl_init(&tb, 5);
	tbl_left(&tb, 0);
	tbl_put(&tb, "region");
	tbl_put(&tb, "calls");
	tbl_put(&tb, "incl");
	tbl_put(&tb, "excl");
	tbl_put(&tb, "incl share");
	tree_rows(&tb, t, 0, total, has_total);
	tbl_print(&tb, out);
	tree_free(t);
}

void render_tree(FILE *out, struct model *m)
{
	struct tscope *sc;
	size_t n = scopes(m, false, &sc);

	for (size_t i = 0; i < m->nfiles; i++)
		if (!m->files[i]->tree)
			fprintf(out, "note: %s holds no region tree (written by an older shim): "
				"its regions are shown as outermost\n", m->files[i]->path);
	if (m->o->by_process || m->o->threads) {
		struct tscope all = { SIZE_MAX, SIZE_MAX, "" };

		render_one_tree(out, m, &all);
	}
	for (size_t i = 0; i < n; i++)
		render_one_tree(out, m, &sc[i]);
	free(sc);
}

/* ---- folded paths ------------------------------------------------------------ */

/* The path from the outermost region down to k, into *path (grown). */
static size_t path_of(const struct tree *t, uint32_t k, uint32_t **path, size_t *cap)
{
	size_t n = t->node[k].depth;

	*path = grow(*path, cap, n ? n : 1, sizeof(**path));
	for (size_t i = n; i-- > 0; k = t->node[k].parent)
		(*path)[i] = t->node[k].region;
	return n;
}

/* Every node with some exclusive weight, in tree order (parents first). */
static void each_node(const struct tree *t, void (*fn)(const struct tree *t, uint32_t k,
						       void *arg), void *arg)
{
	uint32_t k = t->node[0].child;

	while (k != NO_NODE && k != 0) {
		const struct sum *w = tree_sum(t, k, t->m->weight);

		if (w->have && w->excl)
			fn(t, k, arg);
		if (t->node[k].child != NO_NODE) {
			k = t->node[k].child;
			continue;
		}
		while (k != 0 && t->node[k].next == NO_NODE)
			k = t->node[k].parent;
		if (k != 0)
			k = t->node[k].next;
	}
}

struct folded {
	FILE *out;
	const char *prefix;
	uint32_t *path;
	size_t cap;
};

static void folded_line(const struct tree *t, uint32_t k, void *arg)
{
	struct folded *f = arg;
	size_t n = path_of(t, k, &f->path, &f->cap);

	if (f->prefix[0]) {
		put_path_name(f->out, f->prefix);
		putc(';', f->out);
	}
	for (size_t i = 0; i < n; i++) {
		put_path_name(f->out, t->m->regions[f->path[i]]);
		putc(i + 1 < n ? ';' : ' ', f->out);
	}
	fprintf(f->out, "%" PRIu64 "\n", tree_sum(t, k, t->m->weight)->excl);
}

void render_tree_folded(FILE *out, struct model *m)
{
	struct tscope *sc;
	size_t n = scopes(m, true, &sc);
	struct folded f = { out, "", NULL, 0 };

	for (size_t i = 0; i < n; i++) {
		struct tree *t = tree_build(m, sc[i].file, sc[i].thread);

		f.prefix = sc[i].name;
		each_node(t, folded_line, &f);
		tree_free(t);
	}
	free(f.path), free(sc);
}

/* ---- speedscope ---------------------------------------------------------------- */

struct samples {
	FILE *out;
	bool first;
	uint32_t *path;
	size_t cap;
	uint32_t *frame;		/* [region]: its index in the frames */
};

static void sample_stack(const struct tree *t, uint32_t k, void *arg)
{
	struct samples *s = arg;
	size_t n = path_of(t, k, &s->path, &s->cap);

	fputs(s->first ? "[" : ", [", s->out);
	s->first = false;
	for (size_t i = 0; i < n; i++)
		fprintf(s->out, "%s%" PRIu32, i ? "," : "", s->frame[s->path[i]]);
	putc(']', s->out);
}

static void sample_weight(const struct tree *t, uint32_t k, void *arg)
{
	struct samples *s = arg;

	fprintf(s->out, "%s%" PRIu64, s->first ? "" : ", ", tree_sum(t, k, t->m->weight)->excl);
	s->first = false;
}

static void add_weight(const struct tree *t, uint32_t k, void *arg)
{
	uint64_t *total = arg, w = tree_sum(t, k, t->m->weight)->excl;

	*total = *total + w < *total ? UINT64_MAX : *total + w;
}

/* Writes nothing (false) for a scope without a region when skip_empty: a
 * sampled run without markers has its samples' profiles alone. */
static bool speedscope_profile(FILE *out, struct model *m, const struct tscope *sc,
			       struct samples *s, bool skip_empty, bool comma)
{
	struct tree *t = tree_build(m, sc->file, sc->thread);
	uint64_t total = 0;

	if (skip_empty && !t->nshown) {
		tree_free(t);
		return false;
	}
	fputs(comma ? ",\n" : "", out);
	each_node(t, add_weight, &total);
	fputs("    {\"type\": \"sampled\", \"name\": ", out);
	json_string(out, sc->name[0] ? sc->name : m->nfiles == 1 ? m->files[0]->executable :
		    "all processes");
	fprintf(out, ", \"unit\": \"%s\", \"startValue\": 0, \"endValue\": %" PRIu64 ",\n",
		how_of(m, m->weight) == H_TIME ? "nanoseconds" : "none", total);
	fputs("     \"samples\": [", out);
	s->first = true;
	each_node(t, sample_stack, s);
	fputs("],\n     \"weights\": [", out);
	s->first = true;
	each_node(t, sample_weight, s);
	fputs("]}", out);
	tree_free(t);
	return true;
}

/* The frames: the regions some row is of, so that names no region was
 * measured under (the shim's own calibration regions) are none. */
static uint32_t *speedscope_frames(FILE *out, const struct model *m, uint32_t *count)
{
	uint32_t *frame = xmalloc((m->nregions + 1) * sizeof(*frame)), n = 0;

	memset(frame, 0xff, (m->nregions + 1) * sizeof(*frame));
	for (size_t i = 0; i < m->nthreads; i++)
		for (size_t j = 0; j < m->threads[i].t->nrows; j++)
			frame[mthread_region(m, &m->threads[i],
					     rep_site(m->files[m->threads[i].file], m->threads[i].t,
						      j))] = 0;
	for (size_t i = 0; i < m->nregions; i++) {
		if (frame[i])
			continue;
		fputs(n ? ", " : "", out);
		fputs("{\"name\": ", out);
		json_string(out, m->regions[i]);
		putc('}', out);
		frame[i] = n++;
	}
	*count = n;
	return frame;
}

/* Sampled stacks (--sample) after the regions' frames, from frame base
 * on: the functions, then each region a sample was taken in, "[name]",
 * the root of its samples as in folded-stacks. */
static void sampled_frames(FILE *out, const struct sstacks *ss, uint32_t base)
{
	for (size_t i = 0; i < ss->nframes; i++) {
		fputs(base + i ? ", {\"name\": " : "{\"name\": ", out);
		json_string(out, ss->frames[i]);
		putc('}', out);
	}
	for (size_t i = 0; i < ss->nregions; i++) {
		char *name = xmalloc(strlen(ss->regions[i]) + 3);

		sprintf(name, "[%s]", ss->regions[i]);
		fputs(base + ss->nframes + i ? ", {\"name\": " : "{\"name\": ", out);
		json_string(out, name);
		putc('}', out);
		free(name);
	}
}

/* One sampled profile per thread's table, stacks ss->s[from, to): weights
 * are samples, a stack's root its region unless it was in none. */
static void sampled_profile(FILE *out, const struct model *m, const struct sstacks *ss,
			    size_t from, size_t to, uint32_t base)
{
	const struct sstack *first = &ss->s[from];
	const struct report *r = m->files[first->file];
	const struct rep_thread *t = functions_thread(r, first->table);
	uint32_t none = UINT32_MAX;
	uint64_t total = 0;
	char name[400];

	for (size_t i = 0; i < ss->nregions; i++)
		if (!strcmp(ss->regions[i], "(no region)"))
			none = (uint32_t)i;
	for (size_t i = from; i < to; i++)
		total = sat_add64(total, ss->s[i].count);
	snprintf(name, sizeof(name), "samples (%s): %s [pid %" PRIu64 "] %s [tid %" PRIu64 "]",
		 ss->event ? ss->event : "-", r->executable, r->pid, t ? t->name : "?",
		 t ? t->tid : 0);
	fputs("    {\"type\": \"sampled\", \"name\": ", out);
	json_string(out, name);
	fprintf(out, ", \"unit\": \"none\", \"startValue\": 0, \"endValue\": %" PRIu64 ",\n"
		"     \"samples\": [", total);
	for (size_t i = from; i < to; i++) {
		const struct sstack *st = &ss->s[i];
		bool root = st->region != none;

		fputs(i > from ? ", [" : "[", out);
		if (root)
			fprintf(out, "%zu", base + ss->nframes + st->region);
		for (uint32_t k = 0; k < st->nframes; k++)
			fprintf(out, "%s%" PRIu32, k || root ? "," : "", base + st->frame[k]);
		putc(']', out);
	}
	fputs("],\n     \"weights\": [", out);
	for (size_t i = from; i < to; i++)
		fprintf(out, "%s%" PRIu64, i > from ? ", " : "", ss->s[i].count);
	fputs("]}", out);
}

static size_t sampled_profiles(FILE *out, const struct model *m, const struct sstacks *ss,
			       uint32_t base, size_t written)
{
	for (size_t i = 0, j; i < ss->n; i = j) {
		for (j = i + 1; j < ss->n && ss->s[j].table == ss->s[i].table; j++)
			;
		fputs(written++ ? ",\n" : "", out);
		sampled_profile(out, m, ss, i, j, base);
	}
	return written;
}

void render_speedscope(FILE *out, struct model *m)
{
	struct tscope *sc;
	size_t n = scopes(m, true, &sc);
	struct samples s = { out, true, NULL, 0, NULL };
	struct sstacks *ss = functions_stacks(m);
	uint32_t nframes;
	size_t written = 0;

	fputs("{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\",\n"
	      " \"exporter\": \"" PROG "\", \"name\": ", out);
	json_string(out, m->nfiles == 1 ? m->files[0]->path : "pmcshim regions");
	fputs(", \"activeProfileIndex\": 0,\n \"shared\": {\"frames\": [", out);
	s.frame = speedscope_frames(out, m, &nframes);
	sampled_frames(out, ss, nframes);
	fputs("]},\n \"profiles\": [\n", out);
	for (size_t i = 0; i < n; i++)
		written += speedscope_profile(out, m, &sc[i], &s, ss->n > 0, written > 0);
	written = sampled_profiles(out, m, ss, nframes, written);
	fputs(written ? "\n ]}\n" : " ]}\n", out);
	functions_stacks_free(ss);
	free(s.path), free(s.frame), free(sc);
}
