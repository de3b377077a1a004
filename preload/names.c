#include "names.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

struct name {
	UT_hash_handle hh;
	uint32_t id;
	char text[];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct name *table;
static struct name **by_id;	/* by_id[id - 1] */
static uint32_t count, capacity;

static struct name *add(const char *text, size_t len)
{
	struct name *n;

	if (count == capacity) {
		uint32_t cap = capacity ? capacity * 2 : 64;
		struct name **p = realloc(by_id, cap * sizeof(*p));
		if (!p)
			return NULL;
		by_id = p;
		capacity = cap;
	}
	n = malloc(sizeof(*n) + len + 1);
	if (!n)
		return NULL;
	memcpy(n->text, text, len);
	n->text[len] = '\0';
	n->id = ++count;
	by_id[n->id - 1] = n;
	HASH_ADD(hh, table, text, len, n);
	return n;
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
		*interned = n->text;
	return n ? n->id : 0;
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

uint32_t names_count(void)
{
	uint32_t n;

	pthread_mutex_lock(&lock);
	n = count;
	pthread_mutex_unlock(&lock);
	return n;
}

void names_lock(void)
{
	pthread_mutex_lock(&lock);
}

void names_unlock(void)
{
	pthread_mutex_unlock(&lock);
}
