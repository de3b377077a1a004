/* Small helpers shared by the report reader's files: allocation that exits
 * on failure (a reader has nothing better to do), and a string pool. */
#ifndef PMCSHIM_REPORT_UTIL_H
#define PMCSHIM_REPORT_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define PROG "pmcshim-report"
#define PRINTF(f, a) __attribute__((format(printf, f, a)))

/* Sums never wrap: a saturated total is wrong, a wrapped one is absurd. */
static inline uint64_t sat_add64(uint64_t a, uint64_t b)
{
	uint64_t c;

	return __builtin_add_overflow(a, b, &c) ? UINT64_MAX : c;
}

_Noreturn void oom(void);
/* path's last component ("cc1" of "/usr/lib/gcc/cc1"); path itself when it
 * ends in '/' or has none. */
const char *path_base(const char *path);
/* "pmcshim-report: PATH: WHY" on stderr, WHY's control characters shown
 * as '?' (a file's damaged bytes may be in it). */
void say_bad(const char *path, char *why);
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* p (an array of *cap elements of size bytes), grown to hold at least need
 * elements: a = grow(a, &cap, n + 1, sizeof(*a)). Doubles, so appending n
 * elements costs O(n). */
void *grow(void *p, size_t *cap, size_t need, size_t size);

/* Strings (and other small things) that live as long as the pool: copied into big blocks, so a
 * report with 100 000 names costs a few allocations, not 100 000. */
struct pool {
	struct pool_block *head;
};

/* n zeroed bytes aligned for any type, freed with the pool. */
void *pool_zalloc(struct pool *p, size_t n);
const char *pool_strndup(struct pool *p, const char *s, size_t n);
const char *pool_strdup(struct pool *p, const char *s);
/* Hands src's strings over to dst (src is then empty). */
void pool_move(struct pool *dst, struct pool *src);
void pool_free(struct pool *p);

#endif
