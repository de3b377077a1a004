/* Region names: each distinct name becomes an RF_NAME record in the report
 * file, and its id is what sites and markers carry. The index lives in
 * arena memory (no malloc: a marker may run in a signal handler). */
#include "names.h"

#include <pthread.h>
#include <string.h>

#include "arena.h"
#include "mapfile.h"

static struct arena arena;
static int oom;			/* uthash could not add (out of memory) */
#define HASH_ARENA (&arena)
#define HASH_OOM oom
#include "arena_hash.h"

struct name {
	UT_hash_handle hh;
	const struct rf_name *rec;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct name *table;
static struct name **by_id;	/* by_id[id - 1] */
static uint32_t count, capacity;

static int grow_index(void)
{
	uint32_t cap = capacity ? capacity * 2 : 256;
	struct name **p = arena_alloc(&arena, cap * sizeof(*p));

	if (!p)
		return -1;
	if (count)
		memcpy(p, by_id, count * sizeof(*p));
	by_id = p;		/* the old index stays in the arena */
	capacity = cap;
	return 0;
}

static struct name *add(const char *text, size_t len)
{
	struct name *n = arena_alloc(&arena, sizeof(*n));
	struct rf_name *rec;

	if (!n || (count == capacity && grow_index() != 0))
		return NULL;
	rec = mapfile_append(RF_NAME, sizeof(*rec) + len + 1);
	if (!rec)
		return NULL;
	rec->id = count + 1;
	rec->len = (uint32_t)len;
	memcpy(rec->text, text, len);
	mapfile_publish(rec);
	n->rec = rec;
	oom = 0;
	HASH_ADD_KEYPTR(hh, table, rec->text, len, n);
	by_id[count++] = n;	/* the id is in the file either way */
	return oom ? NULL : n;
}

uint32_t names_intern(const char *name, const char **interned)
{
	size_t len;
	struct name *n;

	if (!name)
		name = "(null)";
	len = strnlen(name, NAMES_MAX_LEN);
	pthread_mutex_lock(&lock);
	HASH_FIND(hh, table, name, len, n);
	if (!n)
		n = add(name, len);
	pthread_mutex_unlock(&lock);
	if (n && interned)
		*interned = n->rec->text;
	return n ? n->rec->id : 0;
}

const char *names_get(uint32_t id)
{
	const char *s = "?";

	pthread_mutex_lock(&lock);
	if (id >= 1 && id <= count)
		s = by_id[id - 1]->rec->text;
	pthread_mutex_unlock(&lock);
	return s;
}

void names_lock(void)
{
	pthread_mutex_lock(&lock);
}

void names_unlock(void)
{
	pthread_mutex_unlock(&lock);
}
