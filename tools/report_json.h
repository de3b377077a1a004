/* The jansson layer of the report reader: a bump allocator for jansson
 * trees, a document split into pieces that jansson parses independently
 * (and in parallel), and a small worker pool.
 *
 * Why: jansson builds a tree of small allocations at ~30 MB/s here, too slow
 * for a 45 MB report in under a second. Splitting the document at its top
 * level (and the elements of its top-level arrays) lets several threads run
 * jansson at once, and lets the loader drop each thread's tree as soon as it
 * is converted, so the memory (and page faults) stay small. Every byte of
 * every value is still parsed by jansson; the splitter only finds where the
 * values begin and end, and any document it does not fully understand is
 * parsed whole by jansson instead. */
#ifndef PMCSHIM_REPORT_JSON_H
#define PMCSHIM_REPORT_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* ---- arenas ---- */

struct jarena;

/* Installs the arena allocator for jansson (json_set_alloc_funcs) until
 * jarena_uninstall. Trees built meanwhile must never be json_decref()ed:
 * they die with their arena. */
void jarena_install(void);
void jarena_uninstall(void);

struct jarena *jarena_new(void);
/* This thread's jansson allocations go to a from now on. */
void jarena_use(struct jarena *a);
/* Forgets everything allocated in a, keeping its memory for reuse. */
void jarena_reset(struct jarena *a);
void jarena_free(struct jarena *a);

/* ---- document split ---- */

struct jpiece {
	const char *p;
	size_t len;
};

struct jmember {
	char *key;		/* decoded by jansson */
	struct jpiece value;	/* the whole value */
	bool array;		/* value is an array: its elements follow */
	size_t nel;
	struct jpiece *el;
};

struct jsplit {
	size_t n;
	struct jmember *m;	/* top-level members, in document order */
};

/* Splits a document that is one object into its members, and each member
 * that is an array into its elements. False when the document is not such
 * an object (or the split is not sure): parse it whole with jansson. */
bool jsplit(const char *buf, size_t len, struct jsplit *s);
void jsplit_free(struct jsplit *s);

/* Parses one piece with jansson (a complete JSON value, any type). */
json_t *jpiece_parse(const struct jpiece *p);

/* The same, with the indentation left out first (into b, reused): faster
 * for big pieces. Only for the verdict: positions in errors would be off. */
struct jbuf {
	char *p;
	size_t cap;
};
json_t *jpiece_parse_compact(const struct jpiece *p, struct jbuf *b);

/* ---- workers ---- */

/* Runs fn(i, worker, arg) for every i < n on up to nworkers threads
 * (worker < nworkers; the caller's thread is worker 0), and returns when
 * all are done. nworkers <= 1 runs everything in the caller's thread. */
void parallel_for(size_t n, int nworkers, void (*fn)(size_t i, int worker, void *arg),
		  void *arg);

#endif
