/* Region names: each distinct name becomes an RF_NAME record in the report
 * file, and its id is what sites and markers carry. The index points at
 * the records themselves; it and the id table live in memory taken
 * without malloc (a marker may run in a signal handler). */
#include "names.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "settings/config.h"
#include "base/index.h"
#include "base/log.h"
#include "report/mapfile.h"

struct entry {
	const struct rf_name *rec;
	uint32_t source;		/* enum rf_from */
	uint32_t gen;			/* an address's: rf_origin.gen */
};

static struct arena arena;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct index table;		/* of struct entry */
static const struct entry **by_id;	/* by_id[id - 1] */
static uint32_t count, capacity;
uint32_t names_issued;			/* count, for the markers' compare */
static uint32_t own;			/* of count, the shim's own: not limited */
static uint32_t limit = CONFIG_DEFAULT_MAX_NAMES;
static int limit_noticed;
static int (*first_hook)(void);
static int first_done;

void names_set_limit(uint32_t max)
{
	limit = max;
}

static int grow_index(void)
{
	uint32_t cap = capacity ? capacity * 2 : 256;
	const struct entry **p = arena_alloc(&arena, cap * sizeof(*p));

	if (!p)
		return -1;
	if (count)
		memcpy(p, by_id, count * sizeof(*p));
	by_id = p;		/* the old index stays in the arena */
	capacity = cap;
	return 0;
}

/* What a name is looked up by: its text and where it comes from (a
 * marker's "MPI_Send" and MPI's are two regions). addr: see rf_origin. */
struct key {
	const char *text;
	size_t len;
	uint32_t source, prefix, addr_kind;
	uint32_t gen;			/* with addr: its module's load generation */
	uint64_t addr;
};


static int same_name(const void *item, const void *key, size_t len)
{
	const struct entry *e = item;
	const struct key *k = key;

	return e->rec->len == len && e->source == k->source && e->gen == k->gen &&
	       memcmp(e->rec->text, k->text, len) == 0;
}

/* Every source but the markers' says so in an RF_ORIGIN record, just
 * before the name's. */
static int add_origin(const struct key *k, uint32_t id)
{
	struct rf_origin *o;

	if (k->source == RF_FROM_MARKERS && !k->addr)
		return 0;
	if (!(o = mapfile_append(RF_ORIGIN, sizeof(*o))))
		return -1;
	o->id = id;
	o->source = k->source;
	o->addr = k->addr;
	o->prefix = k->prefix;
	o->addr_kind = k->addr_kind;
	o->gen = k->gen;
	mapfile_publish(o);
	return 0;
}

static const struct rf_name *add(const struct key *k, uint64_t hash)
{
	struct rf_name *rec;
	struct entry *e;

	if ((count == capacity && grow_index() != 0) || index_reserve(&table, &arena) != 0 ||
	    !(e = arena_alloc(&arena, sizeof(*e))) || add_origin(k, count + 1) != 0)
		return NULL;
	rec = mapfile_append(RF_NAME, sizeof(*rec) + k->len + 1);
	if (!rec)
		return NULL;
	rec->id = count + 1;
	rec->len = (uint32_t)k->len;
	memcpy(rec->text, k->text, k->len);
	mapfile_publish(rec);
	*e = (struct entry){ rec, k->source, k->gen };
	by_id[count++] = e;
	__atomic_store_n(&names_issued, count, __ATOMIC_RELEASE);
	index_add(&table, &arena, hash, e);	/* reserved: cannot fail */
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

void names_on_first(int (*hook)(void))
{
	__atomic_store_n(&first_hook, hook, __ATOMIC_RELEASE);
}

void names_before_first(void)
{
	int (*hook)(void);

	if (__atomic_load_n(&first_done, __ATOMIC_RELAXED) ||
	    !(hook = __atomic_load_n(&first_hook, __ATOMIC_ACQUIRE)))
		return;
	if (hook())
		__atomic_store_n(&first_done, 1, __ATOMIC_RELAXED);
}

static uint32_t intern(struct key *k, const char **interned, int shims)
{
	const struct rf_name *rec = NULL;
	const struct entry *e;
	uint64_t hash;
	int notice = 0;

	if (!shims)
		names_before_first();
	if (!k->text)
		k->text = "(null)";
	k->len = strnlen(k->text, NAMES_MAX_LEN);
	hash = index_hash(k->text, k->len) ^ k->source ^ (uint64_t)k->gen << 8;
	pthread_mutex_lock(&lock);
	if ((e = index_find(&table, hash, k, k->len, same_name)))
		rec = e->rec;
	if (!rec && (shims || count - own < limit)) {
		rec = add(k, hash);
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
	struct key k = { .text = name };

	return intern(&k, interned, 0);
}

uint32_t names_intern_own(const char *name)
{
	struct key k = { .text = name };

	return intern(&k, NULL, 1);
}

uint32_t names_intern_from(const char *name, enum rf_from source)
{
	struct key k = { .text = name, .source = source };

	return intern(&k, NULL, 0);
}

uint32_t names_intern_text(const char *name, enum rf_from source, const char **interned)
{
	struct key k = { .text = name, .source = source };

	return intern(&k, interned, 0);
}

uint32_t names_intern_addr(const char *prefix, uintptr_t addr, enum rf_from source,
			   enum rf_addr_kind kind, uint32_t gen)
{
	char text[NAMES_MAX_LEN + 1];
	int n = snprintf(text, sizeof(text), "%.200s%#lx", prefix, (unsigned long)addr);
	struct key k = { .text = text, .source = source, .addr = addr, .addr_kind = kind, .gen = gen,
			 .prefix = (uint32_t)(n - snprintf(NULL, 0, "%#lx", (unsigned long)addr)) };

	return intern(&k, NULL, 0);
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
		s = by_id[id - 1]->rec->text;
	pthread_mutex_unlock(&lock);
	return s;
}

uint32_t names_source(uint32_t id)
{
	uint32_t source = RF_FROM_MARKERS;

	pthread_mutex_lock(&lock);
	if (id >= 1 && id <= count)
		source = by_id[id - 1]->source;
	pthread_mutex_unlock(&lock);
	return source;
}

void names_lock(void)
{
	pthread_mutex_lock(&lock);
}

void names_unlock(void)
{
	pthread_mutex_unlock(&lock);
}
