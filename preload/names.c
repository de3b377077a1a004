/* Region names: each distinct name becomes an RF_NAME record in the report
 * file, and its id is what sites and markers carry. The index points at
 * the records themselves; it and the id table live in memory taken
 * without malloc (a marker may run in a signal handler). */
#include "names.h"

#include <pthread.h>
#include <string.h>

#include "arena.h"
#include "config.h"
#include "index.h"
#include "log.h"
#include "mapfile.h"

static struct arena arena;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct index table;		/* of const struct rf_name * */
static const struct rf_name **by_id;	/* by_id[id - 1] */
static uint32_t count, capacity;
uint32_t names_issued;			/* count, for the markers' compare */
static uint32_t own;			/* of count, the shim's own: not limited */
static uint32_t limit = CONFIG_DEFAULT_MAX_NAMES;
static int limit_noticed;

void names_set_limit(uint32_t max)
{
	limit = max;
}

static int grow_index(void)
{
	uint32_t cap = capacity ? capacity * 2 : 256;
	const struct rf_name **p = arena_alloc(&arena, cap * sizeof(*p));

	if (!p)
		return -1;
	if (count)
		memcpy(p, by_id, count * sizeof(*p));
	by_id = p;		/* the old index stays in the arena */
	capacity = cap;
	return 0;
}

static int same_name(const void *item, const void *key, size_t len)
{
	const struct rf_name *rec = item;

	return rec->len == len && memcmp(rec->text, key, len) == 0;
}

static const struct rf_name *add(const char *text, size_t len, uint64_t hash)
{
	struct rf_name *rec;

	if ((count == capacity && grow_index() != 0) || index_reserve(&table, &arena) != 0)
		return NULL;
	rec = mapfile_append(RF_NAME, sizeof(*rec) + len + 1);
	if (!rec)
		return NULL;
	rec->id = count + 1;
	rec->len = (uint32_t)len;
	memcpy(rec->text, text, len);
	mapfile_publish(rec);
	by_id[count++] = rec;
	__atomic_store_n(&names_issued, count, __ATOMIC_RELEASE);
	index_add(&table, &arena, hash, rec);	/* reserved: cannot fail */
	return rec;
}

/* Past the limit: the marker is dropped and counted; the first time, one
 * line says so (returns whether this is that time: the line is written
 * after the lock is released). */
static int refuse(void)
{
	mapfile_drop(RF_DROP_NAMES);
	if (__atomic_load_n(&limit_noticed, __ATOMIC_RELAXED))
		return 0;
	__atomic_store_n(&limit_noticed, 1, __ATOMIC_RELEASE);
	return 1;
}

int names_limit_reached(void)
{
	return __atomic_load_n(&limit_noticed, __ATOMIC_ACQUIRE);
}

void names_drop_refused(void)
{
	mapfile_drop(RF_DROP_NAMES);
}

static uint32_t intern(const char *name, const char **interned, int shims)
{
	const struct rf_name *rec;
	size_t len;
	uint64_t hash;
	int notice = 0;

	if (!name)
		name = "(null)";
	len = strnlen(name, NAMES_MAX_LEN);
	hash = index_hash(name, len);
	pthread_mutex_lock(&lock);
	rec = index_find(&table, hash, name, len, same_name);
	if (!rec && (shims || count - own < limit)) {
		rec = add(name, len, hash);
		own += rec && shims;
	} else if (!rec) {
		notice = refuse();
	}
	pthread_mutex_unlock(&lock);
	/* an error, not a notice: markers are lost (PMCSHIM_QUIET keeps it) */
	if (notice)
		log_error("%u distinct region names, the limit (PMCSHIM_MAX_NAMES): markers "
			  "with a new name are dropped from here on and counted in the report",
			  limit);
	if (rec && interned)
		*interned = rec->text;
	return rec ? rec->id : 0;
}

uint32_t names_intern(const char *name, const char **interned)
{
	return intern(name, interned, 0);
}

uint32_t names_intern_own(const char *name)
{
	return intern(name, NULL, 1);
}

int names_given_out(uint32_t id)
{
	int known;

	pthread_mutex_lock(&lock);
	known = id >= 1 && id <= count;
	pthread_mutex_unlock(&lock);
	return known;
}

const char *names_get(uint32_t id)
{
	const char *s = "?";

	pthread_mutex_lock(&lock);
	if (id >= 1 && id <= count)
		s = by_id[id - 1]->text;
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
