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
 * pmcshim_begin_name()/pmcshim_end_name() take any string, at the cost of a
 * lookup. PMCSHIM_SCOPE("name") ends its region when the block is left
 * (C and C++); pmcshim::scope is the C++ guard.
 * Markers run before this unit's constructor (from other constructors) are
 * not recorded.
 *
 * C99 and later, C++; GCC or Clang (uses __atomic builtins). Link with
 * -ldl on glibc older than 2.34 (pkg-config --cflags --libs pmcshim gives
 * both flags). Documented in pmcshim(3). */
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

/* This header's functions are never instrumented by -finstrument-functions
 * (the shim makes a region of every function that is). */
#define PMCSHIM_NOINSTR_ __attribute__((no_instrument_function))

#ifndef PMCSHIM_API_ONLY	/* defined by the shim itself */

static const struct pmcshim_api *pmcshim_api_;

__attribute__((constructor, unused)) PMCSHIM_NOINSTR_ static void pmcshim_resolve_(void)
{
	pmcshim_api_fn get;
	const struct pmcshim_api *api = 0;

	*(void **)&get = dlsym(RTLD_DEFAULT, "pmcshim_api");
	if (get)
		api = get(PMCSHIM_API_VERSION);
	__atomic_store_n(&pmcshim_api_, api, __ATOMIC_RELAXED);
}

PMCSHIM_NOINSTR_ static inline const struct pmcshim_api *pmcshim_get_(void)
{
	return __atomic_load_n(&pmcshim_api_, __ATOMIC_RELAXED);
}

/* A marker of the table, loaded as the shim may replace it while the
 * program runs (its own faster entries once set up, the plain ones once
 * the process ends). */
#define PMCSHIM_FN_(api, fn) __atomic_load_n(&(api)->fn, __ATOMIC_RELAXED)

/* The id of a call site's name: looked up at the site's first run, kept
 * in the site's own static. */
__attribute__((always_inline)) PMCSHIM_NOINSTR_ static inline unsigned
pmcshim_site_id_(const struct pmcshim_api *a, const char *name, unsigned *site)
{
	unsigned id = __atomic_load_n(site, __ATOMIC_RELAXED);

	if (!id) {
		id = a->region(name);
		__atomic_store_n(site, id, __ATOMIC_RELAXED);
	}
	return id;
}

#define PMCSHIM_MARK_(fn, name)                                               \
	do {                                                                  \
		const struct pmcshim_api *pmcshim_a_ = pmcshim_get_();        \
		if (pmcshim_a_) {                                             \
			static unsigned pmcshim_id_;                          \
			PMCSHIM_FN_(pmcshim_a_, fn)(pmcshim_site_id_(pmcshim_a_, name, \
							&pmcshim_id_));       \
		}                                                             \
	} while (0)

/* Begin/end a region; name fixed per call site. */
#define PMCSHIM_BEGIN(name) PMCSHIM_MARK_(begin_id, name)
#define PMCSHIM_END(name) PMCSHIM_MARK_(end_id, name)

/* Function forms, for names computed at run time or callers without
 * macros. */
__attribute__((always_inline)) PMCSHIM_NOINSTR_ static inline void pmcshim_begin_name(const char *name)
{
	const struct pmcshim_api *a = pmcshim_get_();
	if (a)
		PMCSHIM_FN_(a, begin)(name);
}

__attribute__((always_inline)) PMCSHIM_NOINSTR_ static inline void pmcshim_end_name(const char *name)
{
	const struct pmcshim_api *a = pmcshim_get_();
	if (a)
		PMCSHIM_FN_(a, end)(name);
}

/* Scoped regions: PMCSHIM_SCOPE("name") begins a region that ends when
 * the enclosing block is left, by any path: its end, return, break,
 * continue, goto out of it (the cleanup attribute); in C++ it is a
 * pmcshim::scope, which an exception unwinding through it also ends.
 * The name is fixed per call site, as for PMCSHIM_BEGIN. */
struct pmcshim_scope_ {
	const struct pmcshim_api *api;	/* NULL: not under the shim */
	unsigned id;
};

__attribute__((always_inline)) PMCSHIM_NOINSTR_ static inline struct pmcshim_scope_
pmcshim_scope_begin_(const char *name, unsigned *site)
{
	struct pmcshim_scope_ s = { pmcshim_get_(), 0 };

	if (s.api) {
		s.id = pmcshim_site_id_(s.api, name, site);
		PMCSHIM_FN_(s.api, begin_id)(s.id);
	}
	return s;
}

__attribute__((always_inline)) PMCSHIM_NOINSTR_ static inline void pmcshim_scope_end_(struct pmcshim_scope_ *s)
{
	if (s->api)
		PMCSHIM_FN_(s->api, end_id)(s->id);
}

#define PMCSHIM_CAT2_(a, b) a##b
#define PMCSHIM_CAT_(a, b) PMCSHIM_CAT2_(a, b)

#ifndef __cplusplus
#define PMCSHIM_SCOPE_(name, n)                                               \
	static unsigned PMCSHIM_CAT_(pmcshim_site_, n);                       \
	__attribute__((cleanup(pmcshim_scope_end_), unused))                  \
	struct pmcshim_scope_ PMCSHIM_CAT_(pmcshim_scope_, n) =               \
		pmcshim_scope_begin_(name, &PMCSHIM_CAT_(pmcshim_site_, n))
#else
#define PMCSHIM_SCOPE_(name, n)                                               \
	static unsigned PMCSHIM_CAT_(pmcshim_site_, n);                       \
	const pmcshim::scope PMCSHIM_CAT_(pmcshim_scope_, n)(                 \
		name, &PMCSHIM_CAT_(pmcshim_site_, n))
#endif
/* A declaration: put it where a declaration may go, once per name in a
 * block or several with different names. */
#define PMCSHIM_SCOPE(name) PMCSHIM_SCOPE_(name, __COUNTER__)

/* Non-zero when the program runs under the shim. */
PMCSHIM_NOINSTR_ static inline int pmcshim_active(void)
{
	return pmcshim_get_() != 0;
}

#endif /* PMCSHIM_API_ONLY */

#ifdef __cplusplus
}

#ifndef PMCSHIM_API_ONLY
namespace pmcshim {

/* A region for the guard's lifetime: begun by the constructor, ended by
 * the destructor, however the block is left, exceptions included.
 *   pmcshim::scope s("solve");       any name, looked up per call
 *   PMCSHIM_SCOPE("solve");          a fixed name, looked up once per site */
class scope {
public:
	PMCSHIM_NOINSTR_ explicit scope(const char *name)
	{
		s_.api = pmcshim_get_();
		s_.id = 0;
		if (s_.api) {
			s_.id = s_.api->region(name);
			PMCSHIM_FN_(s_.api, begin_id)(s_.id);
		}
	}
	PMCSHIM_NOINSTR_ scope(const char *name, unsigned *site) : s_(pmcshim_scope_begin_(name, site)) {}
	PMCSHIM_NOINSTR_ ~scope() { pmcshim_scope_end_(&s_); }

private:
	scope(const scope &);		/* one begin, one end: no copies */
	scope &operator=(const scope &);
	struct pmcshim_scope_ s_;
};

} /* namespace pmcshim */
#endif /* PMCSHIM_API_ONLY */
#endif /* __cplusplus */

#endif
