/* See report_labels.h. A shortened name stands for the name only while no
 * other region's shortens to the same text: "std::map<…>::find(…)" is both
 * std::map<int, int>'s and std::map<long, long>'s. Such regions are shown
 * again with the brackets that hold the difference open
 * ("std::map<int, int>::find(…)") in a column up to four times as wide,
 * and in full where that still does not tell them apart: a wider column
 * rather than rows that read the same. */
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

/* Where name a first differs from name b. */
static size_t differs_at(const char *a, const char *b)
{
	size_t k = 0;

	while (a[k] && a[k] == b[k])
		k++;
	return k;
}

/* l[i] made again, keeping where its name differs from those of the other
 * labels in [from, to) (which read the same as it). */
static char *keeping(const struct model *m, const struct label *l, size_t i, size_t from,
		     size_t to)
{
	size_t *at = xcalloc(to - from, sizeof(*at)), nat = 0;
	const char *name = m->regions[l[i].region];
	char *text;

	for (size_t j = from; j < to; j++)
		if (j != i)
			at[nat++] = differs_at(name, m->regions[l[j].region]);
	text = escape_name_keeping(name, 4 * NAME_COLUMN_MAX, at, nat);
	free(at);
	return text;
}

/* One pass over the labels (sorted): each run of labels that read the same
 * is made again, the first pass keeping where their names differ in a
 * column up to four times as wide, the second in full. Returns how many
 * were. */
static size_t relabel(const struct model *m, struct label *l, size_t n, int pass)
{
	size_t changed = 0, from = 0;
	char **text = xcalloc(n ? n : 1, sizeof(*text));

	for (size_t i = 1; i <= n; i++) {
		if (i < n && strcmp(l[i].text, l[from].text) == 0)
			continue;
		for (size_t j = from; i - from > 1 && j < i; j++, changed++)
			text[j] = pass == 0 ? keeping(m, l, j, from, i) :
					      escape_name_cut(m->regions[l[j].region], 0, CUT_NONE);
		from = i;
	}
	for (size_t i = 0; i < n; i++)
		if (text[i])
			free(l[i].text), l[i].text = text[i];
	free(text);
	return changed;
}

/* Whether region i's name may be shortened: longer than a column, or with
 * bytes that are escaped (which lengthen it). Only those can read the same
 * as another's (the names are distinct), so only they are sorted. */
static bool may_shorten(const char *name)
{
	size_t k = 0;

	for (; name[k] && k <= NAME_COLUMN_MAX; k++)
		if ((unsigned char)name[k] < 0x20 || name[k] == 0x7f || (unsigned char)name[k] == 0xc2)
			return true;
	return k > NAME_COLUMN_MAX;
}

/* The labels of every region that may be shortened: shortened, those that
 * clash made again. The others are made as they are asked for. */
static void make_labels(const struct model *m)
{
	size_t n = 0;
	struct label *l = xcalloc(m->nregions + 1, sizeof(*l));

	for (size_t i = 0; i < m->nregions; i++)
		if (may_shorten(m->regions[i]))
			l[n++] = (struct label){ (uint32_t)i,
						 escape_name(m->regions[i], NAME_COLUMN_MAX) };
	for (int pass = 0; pass < 2; pass++) {
		qsort(l, n, sizeof(*l), by_text);
		if (!relabel(m, l, n, pass))
			break;
	}
	for (size_t i = 0; i < n; i++)
		m->labels[l[i].region] = l[i].text;
	free(l);
}

const char *region_label(const struct model *m, uint32_t region)
{
	/* labels[nregions]: set once the labels that may clash are made */
	if (!m->labels[m->nregions]) {
		make_labels(m);
		m->labels[m->nregions] = escape_name("", 0);
	}
	if (!m->labels[region])
		m->labels[region] = escape_name(m->regions[region], NAME_COLUMN_MAX);
	return m->labels[region];
}
