#include "report_incl.h"

#include <stdlib.h>
#include <string.h>

#include "report_model.h"
#include "report_util.h"

/* Row j, one of its region's rows open above it: whether one of its
 * region and stack is too (a walk up its parents to the first). */
static bool stack_above(const struct report *r, const struct rep_thread *t, size_t j)
{
	const struct rf_site *s = rep_site(r, t, j);

	for (uint32_t a = t->parent[j]; a != NO_PARENT; a = t->parent[a]) {
		const struct rf_site *up = rep_site(r, t, a);

		if (up->region == s->region && up->stack == s->stack)
			return true;
	}
	return false;
}

/* Each row's OUTER_* bits, in one walk down the tree (children linked
 * from their parents: rows come parents first) counting the rows of each
 * region open above: no walk up the parents but for a recursive row. */
uint8_t *incl_outer(const struct report *r, const struct rep_thread *t)
{
	size_t n = t->nrows;
	uint32_t *child = xmalloc((n + 1) * sizeof(*child)), *next = xmalloc((n + 1) * sizeof(*next));
	uint32_t *open = xcalloc(r->nname_ids + 1, sizeof(*open)), *todo = xmalloc((n + 1) * sizeof(*todo));
	uint32_t *region = xmalloc((n + 1) * sizeof(*region));
	uint8_t *bits = xmalloc(n + 1);
	size_t ntodo = 0;

	memset(child, 0xff, (n + 1) * sizeof(*child));
	for (size_t j = n; j-- > 0;) {
		uint32_t p = t->parent[j] == NO_PARENT ? (uint32_t)n : t->parent[j];

		next[j] = child[p], child[p] = (uint32_t)j;
		region[j] = rep_region(r, rep_site(r, t, j)->region);	/* in file order */
	}
	/* a row on todo is entered (its bit 31 clear) or left (set) */
	for (uint32_t c = child[n]; c != UINT32_MAX; c = next[c])
		todo[ntodo++] = c;
	while (ntodo) {
		uint32_t j = todo[--ntodo], id = region[j & ~(1u << 31)];

		if (j >> 31) {
			open[id]--;
			continue;
		}
		bits[j] = OUTER_NODE | (open[id] ? 0 : OUTER_REGION | OUTER_STACK);
		if (open[id] && !stack_above(r, t, j))
			bits[j] |= OUTER_STACK;
		open[id]++;
		todo[ntodo++] = j | 1u << 31;
		for (uint32_t c = child[j]; c != UINT32_MAX; c = next[c])
			todo[ntodo++] = c;
	}
	free(child), free(next), free(open), free(todo), free(region);
	return bits;
}

/* (report_incl.h) Rows are in file order, a parent before its children:
 * a reverse sweep adds each subtree's exclusive values up. A row without
 * a value (an event never counted in it) adds nothing; a row whose
 * subtree lacks one keeps at least its own incl. */
uint64_t *incl_sweep(const struct rep_thread *t, size_t nv, incl_own_fn own, void *arg,
		     uint64_t **taken)
{
	size_t n = t->nrows;
	uint64_t *sub = xcalloc(n * nv + 1, sizeof(*sub));
	uint64_t *lost = taken ? xcalloc(n * nv + 1, sizeof(*lost)) : NULL;
	uint8_t *gap = xcalloc(n * nv + 1, 1);

	for (size_t j = n; j-- > 0;) {
		uint32_t p = t->parent[j];

		for (size_t v = 0; v < nv; v++) {
			uint64_t *x = &sub[j * nv + v], excl, incl, out = 0;

			if (!own(arg, j, v, &excl, &incl, &out)) {
				gap[j * nv + v] = 1;
			} else {
				*x = sat_add64(*x, excl);
				if (gap[j * nv + v] && *x < incl)
					*x = incl;
				if (lost)
					lost[j * nv + v] = sat_add64(lost[j * nv + v], out);
			}
			if (p != NO_PARENT) {
				sub[p * nv + v] = sat_add64(sub[p * nv + v], *x);
				gap[p * nv + v] |= gap[j * nv + v];
				if (lost)
					lost[p * nv + v] = sat_add64(lost[p * nv + v], lost[j * nv + v]);
			}
		}
	}
	free(gap);
	if (taken)
		*taken = lost;
	return sub;
}

struct model_own {
	const struct model *m;
	const struct mthread *mt;
};

/* A model row's own value v (0: wall, 1 + e: event e), as the tables read
 * it, and what calibration took out of it (rowval.taken): summed over a
 * subtree, that is what the subtree's incl lost. */
static bool model_own(void *arg, size_t j, size_t v, uint64_t *excl, uint64_t *incl,
		      uint64_t *taken)
{
	const struct model_own *a = arg;
	struct rowval rv = model_row_own(a->m, a->mt, j, (int)v - 1);

	*excl = rv.st.excl, *incl = rv.st.incl, *taken = rv.taken;
	return rv.present;
}

static void derive_thread(const struct model *m, struct mthread *mt)
{
	struct model_own a = { m, mt };

	mt->incl = incl_sweep(mt->t, 1 + m->nev, model_own, &a, &mt->taken);
	mt->outer = incl_outer(m->files[mt->file], mt->t);
}

void incl_derive(struct model *m)
{
	for (size_t i = 0; i < m->nthreads; i++)
		if (m->files[m->threads[i].file]->tree && m->threads[i].t->parent)
			derive_thread(m, &m->threads[i]);
}

void incl_free(struct model *m)
{
	for (size_t i = 0; m->threads && i < m->nthreads; i++)
		free(m->threads[i].incl), free(m->threads[i].outer), free(m->threads[i].taken);
}
