/* "Did you mean": the known names closest to a mistyped one, by edit
 * distance, case ignored. */
#ifndef PMCSHIM_SUGGEST_H
#define PMCSHIM_SUGGEST_H

#include <stddef.h>

#define SUGGEST_MAX 3
#define SUGGEST_NAME 64

struct suggest {
	const char *typed;
	int n;
	int dist[SUGGEST_MAX];
	char name[SUGGEST_MAX][SUGGEST_NAME];
};

void suggest_begin(struct suggest *s, const char *typed);
/* Consider one known name (a callback shape, for native_each). */
void suggest_offer(void *s, const char *name);
/* "a, b or c", or "" when nothing is close. */
void suggest_format(const struct suggest *s, char *out, size_t len);

#endif
