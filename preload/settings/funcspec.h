/* PMCSHIM_FUNCTIONS: NAME,/REGEX/,...,min=DURATION,sampled, parsed. One
 * definition of the syntax, for functions.c (the filter it applies) and
 * config.c (the check at start-up, and the launcher's once per run). */
#ifndef PMCSHIM_FUNCSPEC_H
#define PMCSHIM_FUNCSPEC_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#define FUNCSPEC_MAX 1024
#define FUNCSPEC_RES_MAX 8

struct funcspec {
	int on;				/* names or regexes given: a filter */
	uint64_t min_ns;		/* min=: shorter calls folded, 0: none */
	int sampled;			/* sampled: calls counted, time from samples */
	char text[FUNCSPEC_MAX];	/* the names point into it */
	const char *names[FUNCSPEC_MAX / 2];
	int nnames, nres;
	regex_t res[FUNCSPEC_RES_MAX];
};

/* Parse spec (NULL or empty: no filter) into f; 0, or -1 with why and f
 * left empty. */
int funcspec_parse(struct funcspec *f, const char *spec, char *why, size_t len);
/* f's names or regexes choose name (f->on). */
int funcspec_chooses(const struct funcspec *f, const char *name);
void funcspec_clear(struct funcspec *f);

#endif
