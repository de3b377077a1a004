/* OpenMP with GCC's libgomp, with no source change: its entry points are
 * interposed (the real ones found with dlsym(RTLD_NEXT)). A parallel
 * region runs the outlined function through run_outlined in every thread
 * of its team, which makes it a region keyed by the outlined function's
 * address ("solve._omp_fn.0" once the reader names it), followed by its
 * implicit barrier as a region of its own: run_outlined waits at an
 * explicit barrier after the function, so the team's own barrier after it
 * finds everyone there. Barriers, critical sections and their waits, and
 * taskwaits are regions too: the table shows who waited. Threads are
 * named by team and number ("omp-0.3"). LLVM's libomp: ompt.c. */
#include "openmp.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regions/guard.h"
#include "base/log.h"
#include "report/modules.h"
#include "regions/names.h"
#include "base/nextsym.h"
#include "lifecycle/hooks.h"
#include "lifecycle/shim.h"

#define EXPORT __attribute__((visibility("default")))
#define CALLER ((uintptr_t)__builtin_return_address(0))

typedef void outlined_fn(void *);

static int on;				/* PMCSHIM_OPENMP */

/* The regions with fixed names, interned at their first use. */
static uint32_t barrier_id, loop_end_id, sections_end_id, critical_id, critical_wait_id,
	taskwait_id;

/* The real entry point `name` (libgomp's), looked up once. */
static void *real(void **slot, const char *name)
{
	void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	if (!p) {
		p = nextsym(RTLD_NEXT, name);
		if (!p) {	/* the program called it: some library defines it */
			log_error("OpenMP: %s not found after the shim; the program cannot go on",
				  name);
			abort();
		}
		__atomic_store_n(slot, p, __ATOMIC_RELEASE);
	}
	return p;
}

#define REAL(name, type) ((type)real(&real_##name, #name))

static void *real_GOMP_parallel, *real_GOMP_parallel_reductions, *real_GOMP_barrier,
	*real_GOMP_barrier_cancel, *real_GOMP_cancellation_point,
	*real_GOMP_critical_start, *real_GOMP_critical_end, *real_GOMP_critical_name_start,
	*real_GOMP_critical_name_end, *real_GOMP_taskwait, *real_GOMP_loop_end,
	*real_GOMP_sections_end, *real_GOMP_parallel_sections,
	*real_GOMP_parallel_loop_static, *real_GOMP_parallel_loop_dynamic,
	*real_GOMP_parallel_loop_guided, *real_GOMP_parallel_loop_nonmonotonic_dynamic,
	*real_GOMP_parallel_loop_nonmonotonic_guided, *real_GOMP_parallel_loop_runtime,
	*real_GOMP_parallel_loop_nonmonotonic_runtime,
	*real_GOMP_parallel_loop_maybe_nonmonotonic_runtime;

/* libgomp's own queries, for the thread names and the implicit barrier. */
static int (*get_thread_num)(void), (*get_level)(void), (*get_ancestor)(int),
	(*get_num_threads)(void), (*get_cancellation)(void);

struct thread_state *openmp_thread(void)
{
	struct thread_state *t = shim_thread();

	return t && __atomic_load_n(&on, __ATOMIC_RELAXED) ? t : NULL;
}


uint32_t openmp_addr_id(const char *prefix, const void *addr, enum rf_addr_kind kind)
{
	uint32_t id = 0;

	if (guard_enter()) {
		uintptr_t a = (uintptr_t)addr;

		/* a dlopen()ed module: recorded for the reader */
		id = names_intern_addr(prefix, a, RF_FROM_OPENMP, kind, modules_note(&a, 1));
		guard_leave();
	}
	return id;
}

uint32_t openmp_fixed_id(uint32_t *slot, const char *name)
{
	uint32_t id = __atomic_load_n(slot, __ATOMIC_RELAXED);

	if (!id && guard_enter()) {
		id = names_intern_from(name, RF_FROM_OPENMP);
		guard_leave();
		__atomic_store_n(slot, id, __ATOMIC_RELAXED);
	}
	return id;
}

#define FIXED(var, name) (t ? openmp_fixed_id(&var, name) : 0)

/* --- parallel regions ------------------------------------------------ */

/* What every thread of a team runs instead of the outlined function: on
 * the encountering thread's stack, which outlives the team. */
struct outlined {
	outlined_fn *fn;
	void *data;
	uintptr_t site;			/* where the program started the region */
	uint32_t id, implicit;		/* the region, its implicit barrier */
};

/* The runtime's queries (libgomp's or libomp's), found once. */
static void find_queries(void)
{
	if (__atomic_load_n(&get_thread_num, __ATOMIC_ACQUIRE))
		return;
	*(void **)&get_level = nextsym(RTLD_DEFAULT, "omp_get_level");
	*(void **)&get_ancestor = nextsym(RTLD_DEFAULT, "omp_get_ancestor_thread_num");
	*(void **)&get_num_threads = nextsym(RTLD_DEFAULT, "omp_get_num_threads");
	*(void **)&get_cancellation = nextsym(RTLD_DEFAULT, "omp_get_cancellation");
	__atomic_store_n((void **)&get_thread_num,
			 nextsym(RTLD_DEFAULT, "omp_get_thread_num"), __ATOMIC_RELEASE);
}

void openmp_name_thread(struct thread_state *t)
{
	static __thread int last_team = -1, last_num = -1;
	int level;

	find_queries();
	level = get_level ? get_level() : 1;
	int team = level > 1 && get_ancestor ? get_ancestor(level - 1) : 0;
	int num = get_thread_num ? get_thread_num() : 0;
	char name[24];

	if (t->rec->is_main || (team == last_team && num == last_num))
		return;
	last_team = team, last_num = num;
	snprintf(name, sizeof(name), "omp-%d.%d", team, num);
	threads_name(t, name);
}

#define GOMP_CANCEL_PARALLEL 1	/* libgomp's gomp-constants.h */

/* The barrier after the outlined function. With OMP_CANCELLATION=true a
 * thread may leave the function through `cancel parallel`, and libgomp's
 * barrier then counts the team wrongly if every thread arrives at it: a
 * cancelled region has no barrier after it (each thread leaves, as the
 * program's own threads do), and one not yet cancelled waits at the
 * cancellable barrier, which a cancel releases. A team of one has nothing
 * to wait for (and the cancellable barrier needs a team). */
static void implicit_barrier(void)
{
	find_queries();
	if (!get_cancellation || !get_cancellation() || !get_num_threads || get_num_threads() < 2)
		REAL(GOMP_barrier, void (*)(void))();
	else if (!REAL(GOMP_cancellation_point, bool (*)(int))(GOMP_CANCEL_PARALLEL))
		REAL(GOMP_barrier_cancel, bool (*)(void))();
}

static void run_outlined(void *arg)
{
	const struct outlined *o = arg;
	struct thread_state *t = shim_thread();

	if (t)
		openmp_name_thread(t);
	openmp_begin(t, o->id, OPENMP_SITE(t, o->site));
	o->fn(o->data);
	openmp_begin(t, o->implicit, OPENMP_SITE(t, o->site));
	implicit_barrier();
	openmp_end(t, o->implicit);
	openmp_end(t, o->id);
}

/* Fills o for a parallel region of fn; false when OpenMP is not recorded
 * (the real entry point then runs fn itself). */
static bool wrap(struct outlined *o, outlined_fn *fn, void *data, uintptr_t site)
{
	if (!openmp_thread())
		return false;
	*o = (struct outlined){ fn, data, site, openmp_addr_id("", (const void *)fn, RF_ADDR_ENTRY),
				openmp_addr_id("omp implicit barrier ", (const void *)fn,
					       RF_ADDR_ENTRY) };
	return o->id && o->implicit;
}

typedef void parallel_fn(outlined_fn *, void *, unsigned, unsigned);

EXPORT void GOMP_parallel(outlined_fn *fn, void *data, unsigned nthreads, unsigned flags)
{
	struct outlined o;

	if (wrap(&o, fn, data, CALLER))
		fn = run_outlined, data = &o;
	REAL(GOMP_parallel, parallel_fn *)(fn, data, nthreads, flags);
}

EXPORT unsigned GOMP_parallel_reductions(outlined_fn *fn, void *data, unsigned nthreads,
					 unsigned flags)
{
	struct outlined o;

	if (wrap(&o, fn, data, CALLER))
		fn = run_outlined, data = &o;
	return REAL(GOMP_parallel_reductions,
		    unsigned (*)(outlined_fn *, void *, unsigned, unsigned))(fn, data, nthreads,
									   flags);
}

EXPORT void GOMP_parallel_sections(outlined_fn *fn, void *data, unsigned nthreads,
				   unsigned count, unsigned flags)
{
	struct outlined o;

	if (wrap(&o, fn, data, CALLER))
		fn = run_outlined, data = &o;
	REAL(GOMP_parallel_sections,
	     void (*)(outlined_fn *, void *, unsigned, unsigned, unsigned))(fn, data, nthreads,
									      count, flags);
}

/* The combined parallel loops: with a chunk size, and the runtime forms
 * without one. */
typedef void loop_chunk_fn(outlined_fn *, void *, unsigned, long, long, long, long, unsigned);
typedef void loop_runtime_fn(outlined_fn *, void *, unsigned, long, long, long, unsigned);

#define LOOP_CHUNK(name)                                                              \
	EXPORT void name(outlined_fn *fn, void *data, unsigned nthreads, long start,  \
			 long stop, long incr, long chunk, unsigned flags)            \
	{                                                                             \
		struct outlined o;                                                    \
		if (wrap(&o, fn, data, CALLER))                                       \
			fn = run_outlined, data = &o;                                 \
		REAL(name, loop_chunk_fn *)(fn, data, nthreads, start, stop, incr,    \
					    chunk, flags);                            \
	}
#define LOOP_RUNTIME(name)                                                            \
	EXPORT void name(outlined_fn *fn, void *data, unsigned nthreads, long start,  \
			 long stop, long incr, unsigned flags)                        \
	{                                                                             \
		struct outlined o;                                                    \
		if (wrap(&o, fn, data, CALLER))                                       \
			fn = run_outlined, data = &o;                                 \
		REAL(name, loop_runtime_fn *)(fn, data, nthreads, start, stop, incr,  \
					      flags);                                 \
	}
LOOP_CHUNK(GOMP_parallel_loop_static)
LOOP_CHUNK(GOMP_parallel_loop_dynamic)
LOOP_CHUNK(GOMP_parallel_loop_guided)
LOOP_CHUNK(GOMP_parallel_loop_nonmonotonic_dynamic)
LOOP_CHUNK(GOMP_parallel_loop_nonmonotonic_guided)
LOOP_RUNTIME(GOMP_parallel_loop_runtime)
LOOP_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime)
LOOP_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime)

/* --- waits ------------------------------------------------------------ */

/* A wait as a region: fixed name, keyed by the call site. */
#define WAIT(name, var, text)                                                         \
	EXPORT void name(void)                                                        \
	{                                                                             \
		struct thread_state *t = openmp_thread();                                \
		uint32_t id = FIXED(var, text);                                       \
		openmp_begin(t, id, CALLER);                                                 \
		REAL(name, void (*)(void))();                                         \
		openmp_end(t, id);                                                           \
	}
WAIT(GOMP_barrier, barrier_id, "omp barrier")
WAIT(GOMP_loop_end, loop_end_id, "omp loop barrier")
WAIT(GOMP_sections_end, sections_end_id, "omp sections barrier")
WAIT(GOMP_taskwait, taskwait_id, "omp taskwait")

/* A critical section: the wait to enter it, then its body, each a
 * region. */
EXPORT void GOMP_critical_start(void)
{
	struct thread_state *t = openmp_thread();
	uint32_t wait = FIXED(critical_wait_id, "omp critical wait");

	openmp_begin(t, wait, CALLER);
	REAL(GOMP_critical_start, void (*)(void))();
	openmp_end(t, wait);
	openmp_begin(t, FIXED(critical_id, "omp critical"), CALLER);
}

EXPORT void GOMP_critical_end(void)
{
	struct thread_state *t = openmp_thread();

	openmp_end(t, FIXED(critical_id, "omp critical"));
	REAL(GOMP_critical_end, void (*)(void))();
}

/* Named critical sections: keyed by their lock's address, which the
 * reader names (".gomp_critical_user_NAME"). The ids of the last few
 * locks a thread met are kept: the names lock once per lock and thread. */
#define NAMED_CACHE 8

const struct openmp_critical *openmp_critical_ids(const void *key, enum rf_addr_kind kind)
{
	static __thread struct openmp_critical cache[NAMED_CACHE];
	struct openmp_critical *n = &cache[((uintptr_t)key >> 3) % NAMED_CACHE];

	if (n->key != key || n->kind != kind) {
		n->wait = openmp_addr_id("omp critical wait ", key, kind);
		n->body = openmp_addr_id("omp critical ", key, kind);
		n->key = n->wait && n->body ? key : NULL;
		n->kind = kind;
	}
	return n;
}

EXPORT void GOMP_critical_name_start(void **lock)
{
	struct thread_state *t = openmp_thread();
	const struct openmp_critical *n = t ? openmp_critical_ids(lock, RF_ADDR_ENTRY) : NULL;

	openmp_begin(t, n ? n->wait : 0, CALLER);
	REAL(GOMP_critical_name_start, void (*)(void **))(lock);
	openmp_end(t, n ? n->wait : 0);
	openmp_begin(t, n ? n->body : 0, CALLER);
}

EXPORT void GOMP_critical_name_end(void **lock)
{
	struct thread_state *t = openmp_thread();
	const struct openmp_critical *n = t ? openmp_critical_ids(lock, RF_ADDR_ENTRY) : NULL;

	openmp_end(t, n ? n->body : 0);
	REAL(GOMP_critical_name_end, void (*)(void **))(lock);
}

int openmp_enabled(void)
{
	return __atomic_load_n(&on, __ATOMIC_ACQUIRE);
}

/* PMCSHIM_OPENMP: 0 leaves every OpenMP entry point to the runtime alone. */
static void openmp_setup(const struct config *c)
{
	__atomic_store_n(&on, c->openmp, __ATOMIC_RELEASE);
}

__attribute__((constructor)) static void openmp_register(void)
{
	static const struct shim_hooks hooks = {
		.setup = openmp_setup,
		.thread_finish = ompt_thread_finish,
		.end = ompt_check_started,
	};

	hooks_register(&hooks);
}
