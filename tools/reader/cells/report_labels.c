/* See report_labels.h. A shortened name stands for the name only while no
 * other region's shortens to the same text: "std::map<…>::find(…)" is both
 * std::map<int, int>'s and std::map<long, long>'s. Such regions are cut
 * again to twice the width, then four times, then shown in full: a wider
 * column rather than rows that read the same. */
#include "report_labels.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "reader/data/report_util.h"
#include "report_escape.h"

struct label {
	uint32_t region;
	char *text;
};

static int by_text(const void *a, const void *b)
{
	return strcmp(((const struct label *)a)->text, ((const struct label *)b)->text);
}

/* Whether l[i]'s text is also the text of a neighbour (l sorted). */
static int clashes(const struct label *l, size_t n, size_t i)
{
	return (i > 0 && strcmp(l[i].text, l[i - 1].text) == 0) ||
	       (i + 1 < n && strcmp(l[i].text, l[i + 1].text) == 0);
}

/* One pass over the labels (sorted): those that read the same as another
 * are made again in a column twice as wide, the last pass in full.
 * Returns how many were. */
static size_t relabel(const struct model *m, struct label *l, size_t n, int pass, int last)
{
	bool *again = xcalloc(n ? n : 1, sizeof(*again));
	size_t changed = 0;

	for (size_t i = 0; i < n; i++)
		again[i] = clashes(l, n, i);
	for (size_t i = 0; i < n; i++) {
		if (!again[i])
			continue;
		free(l[i].text);
		l[i].text = escape_name_cut(m->regions[l[i].region], NAME_COLUMN_MAX << (pass + 1),
					    pass == last ? CUT_NONE : CUT_TEMPLATES);
		changed++;
	}
	free(again);
	return changed;
}

/* The labels of every region: shortened, those that clash made again. */
static void make_labels(const struct model *m)
{
	size_t n = m->nregions;
	struct label *l = xcalloc(n ? n : 1, sizeof(*l));

	for (size_t i = 0; i < n; i++)
		l[i] = (struct label){ (uint32_t)i, escape_name(m->regions[i], NAME_COLUMN_MAX) };
	for (int pass = 0; pass < 3; pass++) {
		qsort(l, n, sizeof(*l), by_text);
		if (!relabel(m, l, n, pass, 2))
			break;
	}
	for (size_t i = 0; i < n; i++)
		m->labels[l[i].region] = l[i].text;
	free(l);
}

const char *region_label(const struct model *m, uint32_t region)
{
	if (!m->labels[region])
		make_labels(m);
	return m->labels[region] ? m->labels[region] : m->regions[region];
}
