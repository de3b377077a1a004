#include "arena.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define CHUNK_MIN (64 * 1024)
#define HUGE_PAGE (2u << 20)	/* x86-64's, and arm64's with 4 KiB pages */
#define CHUNK_GROWN_MAX HUGE_PAGE

struct arena_chunk {
	struct arena_chunk *next;
	size_t size;			/* bytes mapped, this header included */
};

/* Finished arenas' first chunks, kept for the next thread: its first
 * allocations then land on pages already faulted in, and the ending
 * thread skips an munmap (a TLB shootdown in every other thread). Taken
 * with a try-lock only, never waited for: a marker in a signal handler
 * that interrupted the owner, or a child forked while another thread held
 * it, maps and unmaps as before. */
#define SPARE_MAX 16
static struct arena_chunk *spare[SPARE_MAX];
static int nspare;
static int spare_busy;

static int spare_lock(void)
{
	return !__atomic_exchange_n(&spare_busy, 1, __ATOMIC_ACQUIRE);
}

static void spare_unlock(void)
{
	__atomic_store_n(&spare_busy, 0, __ATOMIC_RELEASE);
}

static struct arena_chunk *spare_take(void)
{
	struct arena_chunk *c = NULL;

	if (!spare_lock())
		return NULL;
	if (nspare > 0)
		c = spare[--nspare];
	spare_unlock();
	return c;
}

/* The chunk's first dirty bytes are zeroed first: arena_alloc's memory is
 * zeroed. 1 when kept. */
static int spare_keep(struct arena_chunk *c, size_t dirty)
{
	int kept = 0;

	if (c->size != CHUNK_MIN)
		return 0;
	memset(c, 0, dirty);
	c->size = CHUNK_MIN;
	if (!spare_lock())
		return 0;
	if (nspare < SPARE_MAX) {
		spare[nspare++] = c;
		kept = 1;
	}
	spare_unlock();
	return kept;
}

static size_t round16(size_t n)
{
	return (n + 15) & ~(size_t)15;
}

/* Whole huge pages, aligned to them and marked for them: where the kernel
 * allows (transparent huge pages: always, or madvise), 2 MiB cost one
 * fault and one TLB entry rather than 512. */
static void *map_huge(size_t bytes)
{
	char *p = mmap(NULL, bytes + HUGE_PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t head;

	if (p == MAP_FAILED)
		return NULL;
	head = (HUGE_PAGE - (uintptr_t)p % HUGE_PAGE) % HUGE_PAGE;
	if (head)
		munmap(p, head);
	munmap(p + head + bytes, HUGE_PAGE - head);
	madvise(p + head, bytes, MADV_HUGEPAGE);
	return p + head;
}

void *arena_pages(size_t bytes)
{
	void *p;

	if (bytes % HUGE_PAGE == 0)
		return map_huge(bytes);
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
		 -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void arena_pages_free(void *p, size_t bytes)
{
	munmap(p, bytes);
}

/* The first chunk is small and its pages come as they are touched (most
 * threads mark a few regions); an arena that needs more doubles its chunks
 * up to a huge page, each from arena_pages: an arena that filled one chunk
 * fills the next. */
static struct arena_chunk *chunk_new(const struct arena_chunk *last, size_t need)
{
	size_t size = CHUNK_MIN;
	struct arena_chunk *c;

	if (last && last->size < CHUNK_GROWN_MAX)
		size = last->size * 2;
	else if (last)
		size = CHUNK_GROWN_MAX;
	while (size < need + sizeof(*c))
		size *= 2;
	if (last)
		c = arena_pages(size);
	else if (size == CHUNK_MIN && (c = spare_take()) != NULL)
		;
	else if ((c = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0)) == MAP_FAILED)
		c = NULL;
	if (c)
		c->size = size;
	return c;
}

void *arena_alloc(struct arena *a, size_t size)
{
	struct arena_chunk *c = a->chunks;

	size = round16(size);
	if (!c || a->used + size > c->size) {
		if (!(c = chunk_new(c, size)))
			return NULL;
		c->next = a->chunks;
		a->chunks = c;
		a->used = round16(sizeof(*c));
	}
	a->used += size;
	return (char *)c + a->used - size;
}

/* The newest chunk is dirty up to used, an older one to its end. */
void arena_release(struct arena *a)
{
	size_t dirty = a->used;

	while (a->chunks) {
		struct arena_chunk *c = a->chunks;
		a->chunks = c->next;
		if (!spare_keep(c, dirty < c->size ? dirty : c->size))
			munmap(c, c->size);
		dirty = SIZE_MAX;
	}
	a->used = 0;
}
