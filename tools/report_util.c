#include "report_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Noreturn void oom(void)
{
	fputs(PROG ": out of memory\n", stderr);
	exit(1);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	if (!(p = realloc(p, n ? n : 1)))
		oom();
	return p;
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
	char data[];
};

const char *pool_strndup(struct pool *p, const char *s, size_t n)
{
	struct pool_block *b = p->head;
	char *out;

	if (!b || b->size - b->used < n + 1) {
		size_t size = n + 1 > 60000 ? n + 1 : 60000;

		b = xmalloc(sizeof(*b) + size);
		b->next = p->head, b->used = 0, b->size = size;
		p->head = b;
	}
	out = b->data + b->used;
	memcpy(out, s, n);
	out[n] = '\0';
	b->used += n + 1;
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
