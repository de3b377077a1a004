/* Closest names: Levenshtein distance, case-insensitive (native names are
 * upper case, people type them in lower case). */
#include "suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

void suggest_begin(struct suggest *s, const char *typed)
{
	memset(s, 0, sizeof(*s));
	s->typed = typed;
}

static int min3(int a, int b, int c)
{
	int m = a < b ? a : b;

	return m < c ? m : c;
}

/* Distance of a and b, or a value > limit when it exceeds limit (rows of
 * at most SUGGEST_NAME columns). */
static int distance(const char *a, const char *b, int limit)
{
	int la = (int)strlen(a), lb = (int)strlen(b);
	int row[SUGGEST_NAME + 1];

	if (la >= SUGGEST_NAME || lb >= SUGGEST_NAME || la - lb > limit || lb - la > limit)
		return limit + 1;
	for (int j = 0; j <= lb; j++)
		row[j] = j;
	for (int i = 1; i <= la; i++) {
		int diag = row[0], best;

		row[0] = best = i;
		for (int j = 1; j <= lb; j++) {
			int up = row[j];
			int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);

			row[j] = min3(row[j] + 1, row[j - 1] + 1, diag + !same);
			diag = up;
			best = row[j] < best ? row[j] : best;
		}
		if (best > limit)
			return limit + 1;
	}
	return row[lb];
}

/* Close enough to be a typo: a third of the typed name, at least 2. */
static int limit_for(const char *typed)
{
	int l = (int)strlen(typed) / 3;

	return l < 2 ? 2 : l;
}

void suggest_offer(void *arg, const char *name)
{
	struct suggest *s = arg;
	int d = distance(s->typed, name, limit_for(s->typed)), at;

	if (d > limit_for(s->typed) || strcmp(name, s->typed) == 0)
		return;
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->name[i], name) == 0)
			return;
	if (s->n == SUGGEST_MAX && d >= s->dist[SUGGEST_MAX - 1])
		return;		/* no closer than the farthest kept */
	/* insert into the short list, kept sorted by distance */
	at = s->n < SUGGEST_MAX ? s->n++ : SUGGEST_MAX - 1;
	while (at > 0 && s->dist[at - 1] > d) {
		s->dist[at] = s->dist[at - 1];
		memcpy(s->name[at], s->name[at - 1], SUGGEST_NAME);
		at--;
	}
	s->dist[at] = d;
	snprintf(s->name[at], SUGGEST_NAME, "%s", name);
}

void suggest_format(const struct suggest *s, char *out, size_t len)
{
	size_t used = 0;

	out[0] = '\0';
	for (int i = 0; i < s->n && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s",
					 i == 0 ? "" : i == s->n - 1 ? " or " : ", ", s->name[i]);
}
