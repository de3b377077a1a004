/* pmcshim region markers.
 *
 *   #include <pmcshim.h>
 *   PMCSHIM_BEGIN("solve");  ...  PMCSHIM_END("solve");
 *
 * The application does not link against the shim. Each translation unit
 * that includes this header looks the shim up once, at load time, with
 * dlsym(RTLD_DEFAULT); when the program runs without
 * LD_PRELOAD=libpmcshim.so every marker is one predictable branch.
 *
 * PMCSHIM_BEGIN/END take a name that is the same every time that line runs
 * (a string literal): the name is turned into an id once per call site.
 * pmcshim_begin()/pmcshim_end() take any string, at the cost of a lookup.
 * Markers run before this unit's constructor (from other constructors) are
 * not recorded.
 *
 * C99 and later, C++; GCC or Clang (uses __atomic builtins). Link with
 * -ldl on glibc older than 2.34. */
#ifndef PMCSHIM_H
#define PMCSHIM_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1	/* RTLD_DEFAULT */
#endif
#include <dlfcn.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PMCSHIM_API_VERSION 1
/* The release: shown by the tools' --version and recorded in every report. */
#define PMCSHIM_VERSION "0.3.0"

/* What the shim exports as "pmcshim_api"; fields are only ever added. */
struct pmcshim_api {
	unsigned version;
	unsigned size;				/* sizeof(struct pmcshim_api) */
	unsigned (*region)(const char *name);	/* name -> id (never 0) */
	void (*begin_id)(unsigned id);
	void (*end_id)(unsigned id);
	void (*begin)(const char *name);
	void (*end)(const char *name);
};

typedef const struct pmcshim_api *(*pmcshim_api_fn)(unsigned version);

#ifndef PMCSHIM_API_ONLY	/* defined by the shim itself */

static const struct pmcshim_api *pmcshim_api_;

__attribute__((constructor, unused)) static void pmcshim_resolve_(void)
{
	pmcshim_api_fn get;
	const struct pmcshim_api *api = 0;

	*(void **)&get = dlsym(RTLD_DEFAULT, "pmcshim_api");
	if (get)
		api = get(PMCSHIM_API_VERSION);
	__atomic_store_n(&pmcshim_api_, api, __ATOMIC_RELAXED);
}

static inline const struct pmcshim_api *pmcshim_get_(void)
{
	return __atomic_load_n(&pmcshim_api_, __ATOMIC_RELAXED);
}

#define PMCSHIM_MARK_(fn, name)                                               \
	do {                                                                  \
		const struct pmcshim_api *pmcshim_a_ = pmcshim_get_();        \
		if (pmcshim_a_) {                                             \
			static unsigned pmcshim_id_;                          \
			unsigned pmcshim_i_ = __atomic_load_n(&pmcshim_id_,   \
							      __ATOMIC_RELAXED); \
			if (!pmcshim_i_) {                                    \
				pmcshim_i_ = pmcshim_a_->region(name);        \
				__atomic_store_n(&pmcshim_id_, pmcshim_i_,    \
						 __ATOMIC_RELAXED);           \
			}                                                     \
			pmcshim_a_->fn(pmcshim_i_);                           \
		}                                                             \
	} while (0)

/* Begin/end a region; name fixed per call site. */
#define PMCSHIM_BEGIN(name) PMCSHIM_MARK_(begin_id, name)
#define PMCSHIM_END(name) PMCSHIM_MARK_(end_id, name)

/* Function forms, for names computed at run time or callers without
 * macros. */
__attribute__((always_inline)) static inline void pmcshim_begin_name(const char *name)
{
	const struct pmcshim_api *a = pmcshim_get_();
	if (a)
		a->begin(name);
}

__attribute__((always_inline)) static inline void pmcshim_end_name(const char *name)
{
	const struct pmcshim_api *a = pmcshim_get_();
	if (a)
		a->end(name);
}

/* Non-zero when the program runs under the shim. */
static inline int pmcshim_active(void)
{
	return pmcshim_get_() != 0;
}

#endif /* PMCSHIM_API_ONLY */

#ifdef __cplusplus
}
#endif

#endif
