#include "arena.h"

#include <stdint.h>
#include <sys/mman.h>

#define CHUNK_MIN (64 * 1024)

struct arena_chunk {
	struct arena_chunk *next;
	size_t size;			/* bytes mapped, this header included */
};

static size_t round16(size_t n)
{
	return (n + 15) & ~(size_t)15;
}

static struct arena_chunk *chunk_new(size_t need)
{
	size_t size = CHUNK_MIN;
	struct arena_chunk *c;

	while (size < need + sizeof(*c))
		size *= 2;
	c = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED)
		return NULL;
	c->size = size;
	return c;
}

void *arena_alloc(struct arena *a, size_t size)
{
	struct arena_chunk *c = a->chunks;

	size = round16(size);
	if (!c || a->used + size > c->size) {
		if (!(c = chunk_new(size)))
			return NULL;
		c->next = a->chunks;
		a->chunks = c;
		a->used = round16(sizeof(*c));
	}
	a->used += size;
	return (char *)c + a->used - size;
}

void arena_release(struct arena *a)
{
	while (a->chunks) {
		struct arena_chunk *c = a->chunks;
		a->chunks = c->next;
		munmap(c, c->size);
	}
	a->used = 0;
}
