#include "annot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/arch.h"
#include "base/clock.h"
#include "lifecycle/hooks.h"
#include "lifecycle/shim.h"
#include "regions/sites.h"

/* The last names a thread used, by a hash of their text: a hit compares
 * the text with the stored name (it never changes) and takes the lock-free
 * path; a miss interns the name (the shared table's lock) and replaces
 * the slot. */
#define ANNOT_CACHE 16			/* power of two */

struct annot_slot {
	const char *text;		/* the stored name; NULL: empty */
	uint32_t id;
	uint32_t source;
};

/* Made at the thread's first name, freed as it ends: static TLS is
 * scarce (the shim must still fit when dlopen()ed), a pointer is not. */
static __thread struct annot_slot *cache;

static void annot_thread_finish(struct thread_state *t)
{
	(void)t;
	free(cache);
	cache = NULL;
}

__attribute__((constructor)) static void annot_register(void)
{
	static const struct shim_hooks hooks = { .thread_finish = annot_thread_finish };

	hooks_register(&hooks);
}

static unsigned slot_of(const char *name, enum rf_from source)
{
	uint32_t h = 2166136261u ^ source;	/* FNV-1a over the first 32 bytes */

	for (int i = 0; i < 32 && name[i]; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	return h & (ANNOT_CACHE - 1);
}

uint32_t annot_id(const char *name, enum rf_from source)
{
	struct annot_slot *s;
	const char *text = NULL;
	uint32_t id;

	if (!name)
		name = "(null)";
	if (!cache && !(cache = calloc(ANNOT_CACHE, sizeof(*cache))))
		return shim_name_text(name, source, &text);	/* no cache: the lock */
	s = &cache[slot_of(name, source)];
	if (s->text && s->source == source && !strcmp(s->text, name))
		return s->id;
	if ((id = shim_name_text(name, source, &text)) && text)
		*s = (struct annot_slot){ .text = text, .id = id, .source = source };
	return id;
}

int annot_begin(const char *name, enum rf_from source, uintptr_t caller)
{
	int saved = errno;
	uint32_t id = annot_id(name, source);

	if (id)
		shim_begin_at(id, caller);
	errno = saved;
	return id ? 0 : -1;
}

int annot_end(const char *name, enum rf_from source)
{
	int saved = errno;
	uint32_t id = annot_id(name, source);

	if (id)
		shim_end_at(id);
	errno = saved;
	return id ? 0 : -1;
}

/* Wall ticks per second as measured so far (the report's rate is fixed
 * at the end; this one is for a running program's own question). */
void annot_sums(const char *name, enum rf_from source, uint64_t *calls, double *seconds,
		double *ev, int *nev)
{
	struct thread_state *t = shim_thread();
	uint64_t incl[VALUES_MAX] = { 0 };
	uint32_t id = t ? annot_id(name, source) : 0;
	double rate;
	int n = 0;

	*calls = 0, *seconds = 0;
	if (id) {
		sites_sum_region(&t->rs.sites, id, calls, incl, t->rs.nv);
		rate = clock_ticks_per_ns_now();
		*seconds = rate > 0 ? (double)incl[0] / rate / 1e9 : 0;
		for (n = 0; n < *nev && n + 1 < t->rs.nv; n++)
			ev[n] = (double)incl[n + 1];
	}
	*nev = n;
}
