/* The model's derived values (report_model.h): weight, totals, share,
 * IPC and coverage of groups and sums. */
#include "report_model.h"

#include <math.h>

/* ---- derived values ----------------------------------------------------- */

const char *model_weight_name(const struct model *m)
{
	return m->weight < 0 ? "wall" : m->ev[m->weight];
}

const struct sum *model_weight(const struct model *m, const struct group *g)
{
	return &g->s[m->weight < 0 ? 0 : 1 + m->weight];
}

const struct sum *model_total(const struct model *m, const struct gtable *t)
{
	if (t->scope == SC_PROCESS)
		return m->part ? &m->part_total[t->id] : &m->file_total[t->id];
	if (t->scope == SC_THREAD)
		return &m->file_total[m->threads[t->id].file];
	return &m->all_total;
}

/* Over the calls of the rows that had a value. */
bool sum_mean(const struct sum *s, double *v)
{
	if (!s->have || !s->calls)
		return false;
	*v = (double)s->incl / (double)s->calls;
	return true;
}

/* Where a sum's rows give a min above its mean or a max below it (a
 * recursive region's mean counts its inclusive value once over all its
 * calls; rounding; a multiplexed row scaled by its own coverage), the
 * mean is the bound: min <= mean <= max in every view. */
uint64_t sum_min(const struct sum *s)
{
	double v;

	return s->have_mm && sum_mean(s, &v) && v < (double)s->min ? (uint64_t)v : s->min;
}

uint64_t sum_max(const struct sum *s)
{
	double v;

	return s->have_mm && sum_mean(s, &v) && v > (double)s->max && v < 18e18 ? (uint64_t)ceil(v) : s->max;
}

bool group_share(const struct model *m, const struct gtable *t, const struct group *g,
		 double *v)
{
	const struct sum *w = model_weight(m, g), *tot = model_total(m, t);

	if (!w->have || !tot->have || !tot->excl)
		return false;
	*v = (double)w->excl / (double)tot->excl;
	return true;
}

/* Only when both events were counted in the same rows. */
bool group_ipc(const struct model *m, const struct group *g, double *v)
{
	const struct sum *ins, *cyc;

	if (m->ipc_ins < 0)
		return false;
	ins = &g->s[1 + m->ipc_ins], cyc = &g->s[1 + m->ipc_cyc];
	if (!ins->have || ins->have != cyc->have || ins->miss != cyc->miss || !cyc->incl)
		return false;
	*v = (double)ins->incl / (double)cyc->incl;
	return true;
}

bool sum_coverage(const struct sum *s, double *v)
{
	if (s->enabled)
		*v = s->running < s->enabled ? (double)s->running / (double)s->enabled : 1;
	else if (s->have)
		*v = 1;
	return s->enabled || s->have;
}

/* A row is as trustworthy as its least-counted number. */
bool group_coverage(const struct model *m, const struct group *g, double *v)
{
	bool ok = false;
	double c;

	for (size_t e = 0; e < m->nev; e++)
		if (sum_coverage(&g->s[1 + e], &c) && (!ok || c < *v))
			*v = c, ok = true;
	return ok;
}

bool group_multiplexed(const struct model *m, const struct group *g)
{
	for (size_t e = 0; e < m->nev; e++)
		if (g->s[1 + e].mux || g->s[1 + e].never)
			return true;
	return false;
}
