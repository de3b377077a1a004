/* uthash with its memory from an arena (no malloc on a marker's path).
 * Include instead of <uthash.h>, after defining HASH_ARENA (a struct
 * arena * expression) and HASH_OOM (an int lvalue that is set when an
 * add fails for memory; the item is then not in the table). */
#ifndef PMCSHIM_ARENA_HASH_H
#define PMCSHIM_ARENA_HASH_H

#include "arena.h"

#define uthash_malloc(sz) arena_alloc(HASH_ARENA, sz)
#define uthash_free(ptr, sz) ((void)0)
#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(obj) (HASH_OOM = 1)
#include <uthash.h>

#endif
