/* Memory for the shim's indexes, taken straight from mmap: markers may run
 * in a signal handler or inside the application's own malloc, where
 * calling malloc could deadlock or recurse. Freed all at once. */
#ifndef PMCSHIM_ARENA_H
#define PMCSHIM_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
	struct arena_chunk *chunks;	/* newest first */
	size_t used;			/* bytes taken in the newest chunk */
};

/* Zeroed, 16-byte aligned; NULL when the system has no memory left. */
void *arena_alloc(struct arena *a, size_t size);
/* Unmap every chunk, or keep a small first one, zeroed, for the next
 * arena (a thread that starts after one ended). */
void arena_release(struct arena *a);

/* Zeroed pages of their own, for large index tables and an arena's grown
 * chunks (bytes: a multiple of the page size); huge pages for a multiple of 2 MiB where the
 * kernel allows, else populated at once, one call costing less than a
 * fault per page. NULL when the system has no memory left. */
void *arena_pages(size_t bytes);
void arena_pages_free(void *p, size_t bytes);

#endif
