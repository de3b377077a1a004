#include "report_incl.h"

#include <stdlib.h>

#include "report_model.h"
#include "report_util.h"

/* Row j's OUTER_* bits: whether a row of its region, and of its region
 * and stack, is open above it. A walk up its parents: the tree is as deep
 * as the thread's nesting, and a row stops at the first of each. */
static uint8_t outer_bits(const struct report *r, const struct rep_thread *t, size_t j)
{
	const struct rf_site *s = rep_site(r, t, j);
	bool region = true, stack = true;

	for (uint32_t a = t->parent[j]; a != NO_PARENT && stack; a = t->parent[a]) {
		const struct rf_site *up = rep_site(r, t, a);

		if (up->region == s->region) {
			region = false;
			stack = up->stack != s->stack;
		}
	}
	return (uint8_t)(OUTER_NODE | (region ? OUTER_REGION : 0) | (stack ? OUTER_STACK : 0));
}

/* Rows are in file order, a parent before its children: a reverse sweep
 * adds each subtree's exclusive values up. A row without a value (an event
 * never counted in it) adds nothing; a row whose subtree lacks one keeps
 * at least its own incl. */
static void derive_thread(const struct model *m, struct mthread *mt)
{
	const struct rep_thread *t = mt->t;
	size_t nv = 1 + m->nev, n = t->nrows;
	uint64_t *sub = xcalloc(n * nv + 1, sizeof(*sub));
	uint8_t *gap = xcalloc(n * nv + 1, 1);

	for (size_t j = n; j-- > 0;) {
		uint32_t p = t->parent[j];

		for (size_t v = 0; v < nv; v++) {
			struct rowval rv = model_row_own(m, mt, j, (int)v - 1);
			uint64_t *x = &sub[j * nv + v];

			if (!rv.present) {
				gap[j * nv + v] = 1;
			} else {
				*x = sat_add64(*x, rv.st.excl);
				if (gap[j * nv + v] && *x < rv.st.incl)
					*x = rv.st.incl;
			}
			if (p != NO_PARENT) {
				sub[p * nv + v] = sat_add64(sub[p * nv + v], *x);
				gap[p * nv + v] |= gap[j * nv + v];
			}
		}
	}
	free(gap);
	mt->outer = xmalloc(n + 1);
	for (size_t j = 0; j < n; j++)
		mt->outer[j] = outer_bits(m->files[mt->file], t, j);
	mt->incl = sub;
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
		free(m->threads[i].incl), free(m->threads[i].outer);
}
