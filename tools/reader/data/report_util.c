#include "report_util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

_Noreturn void oom(void)
{
	fputs(PROG ": out of memory\n", stderr);
	exit(1);
}

#define HUGE_PAGE (2u << 20)

/* A big array (a million rows' worth) is first touched page by page: on
 * huge pages that is 512 times fewer faults, most of a big table's time.
 * The kernel may say no; the hint costs one call per big allocation. */
static void *huge(void *p, size_t n)
{
	uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	uintptr_t hi = ((uintptr_t)p + n) & ~(uintptr_t)(HUGE_PAGE - 1);

	if (p && n >= 2 * HUGE_PAGE && hi > lo)
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
	return p;
}

const char *path_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom();
	return huge(p, n);
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom();
	return huge(p, n * size);
}

void *xrealloc(void *p, size_t n)
{
	if (!(p = realloc(p, n ? n : 1)))
		oom();
	return huge(p, n);
}

void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 8;

	if (need <= *cap)
		return p;
	while (c < need)
		c *= 2;
	if (c > (size_t)-1 / size)
		oom();
	*cap = c;
	return xrealloc(p, c * size);
}

struct pool_block {
	struct pool_block *next;
	size_t used, size;
	_Alignas(max_align_t) char data[];
};

/* Blocks double from 64 KiB to 4 MiB, so a small report's pool stays small
 * and a big one's costs few page faults: from 2 MiB on, a block is aligned
 * for the kernel to back it with huge pages. */
#define POOL_FIRST (64u << 10)
#define POOL_HUGE HUGE_PAGE
#define POOL_MAX (4u << 20)

static struct pool_block *block_new(size_t size)
{
	size_t all = offsetof(struct pool_block, data) + size;
	void *p;

	if (size < POOL_HUGE)
		return xmalloc(all);
	if (posix_memalign(&p, POOL_HUGE, all))
		oom();
	madvise(p, all & ~(size_t)(POOL_HUGE - 1), MADV_HUGEPAGE); /* a hint: may fail */
	return p;
}

/* n bytes at an offset aligned to align (a power of two) from its block's
 * data, which is aligned for anything. */
static void *pool_take(struct pool *p, size_t n, size_t align)
{
	struct pool_block *b = p->head;
	size_t at = b ? (b->used + align - 1) & ~(align - 1) : 0;

	if (!b || at > b->size || b->size - at < n) {
		size_t size = b ? (b->size < POOL_MAX ? 2 * b->size : b->size) : POOL_FIRST;

		if (size < n + align)
			size = n + align;
		b = block_new(size);
		b->next = p->head, b->used = 0, b->size = size;
		p->head = b;
		at = 0;
	}
	b->used = at + n;
	return b->data + at;
}

void *pool_zalloc(struct pool *p, size_t n)
{
	return memset(pool_take(p, n, _Alignof(max_align_t)), 0, n);
}

const char *pool_strndup(struct pool *p, const char *s, size_t n)
{
	char *out = pool_take(p, n + 1, 1);

	memcpy(out, s, n);
	out[n] = '\0';
	return out;
}

const char *pool_strdup(struct pool *p, const char *s)
{
	return pool_strndup(p, s, strlen(s));
}

void pool_move(struct pool *dst, struct pool *src)
{
	struct pool_block **tail = &dst->head;

	while (*tail)
		tail = &(*tail)->next;
	*tail = src->head;
	src->head = NULL;
}

void pool_free(struct pool *p)
{
	while (p->head) {
		struct pool_block *b = p->head;

		p->head = b->next;
		free(b);
	}
}

void say_bad(const char *path, char *why)
{
	for (char *c = why; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	fprintf(stderr, PROG ": %s: %s\n", path, why);
}
