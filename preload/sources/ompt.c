/* OpenMP with LLVM's libomp, through the standard tool interface (OMPT,
 * OpenMP 5.1 section 4): the shim exports ompt_start_tool, and the runtime
 * calls back at each parallel region, implicit task, worksharing
 * construct, synchronization region and critical section. The regions
 * are those of openmp.c: a parallel region in every thread of its team,
 * keyed here by the address it was started from ("omp parallel solve
 * (solve.c:31)" once the reader names it; the outlined function is not
 * given to a tool), its implicit barrier, barriers, taskwaits, critical
 * sections and their waits by their lock. A runtime that does not start
 * the tool (OMP_TOOL=disabled) gets one line at exit.
 *
 * The few OMPT declarations used are written out from the specification
 * (the shim is built without LLVM's omp-tools.h). */
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "openmp.h"
#include "lifecycle/shim.h"

#define EXPORT __attribute__((visibility("default")))

/* --- the interface (OpenMP 5.1, 4.4) ---------------------------------- */

typedef union {
	uint64_t value;
	void *ptr;
} ompt_data;

typedef void (*ompt_fn)(void);
typedef ompt_fn (*ompt_lookup)(const char *name);
typedef int (*ompt_set_callback)(int event, ompt_fn callback);

struct ompt_start_tool_result {
	int (*initialize)(ompt_lookup lookup, int device, ompt_data *tool_data);
	void (*finalize)(ompt_data *tool_data);
	ompt_data tool_data;
};

enum {
	CB_PARALLEL_BEGIN = 3, CB_IMPLICIT_TASK = 7, CB_MUTEX_RELEASED = 17, CB_WORK = 20,
	CB_SYNC_REGION = 23, CB_MUTEX_ACQUIRE = 26, CB_MUTEX_ACQUIRED = 27,
};
enum { SCOPE_BEGIN = 1, SCOPE_END = 2 };
enum { TASK_INITIAL = 1 };
enum { MUTEX_CRITICAL = 5 };
enum { SET_ALWAYS = 5 };
enum {
	SYNC_BARRIER = 1, SYNC_BARRIER_IMPLICIT = 2, SYNC_BARRIER_EXPLICIT = 3,
	SYNC_BARRIER_IMPLEMENTATION = 4, SYNC_TASKWAIT = 5, SYNC_TASKGROUP = 6,
	SYNC_REDUCTION = 7, SYNC_BARRIER_IMPLICIT_WORKSHARE = 8,
	SYNC_BARRIER_IMPLICIT_PARALLEL = 9, SYNC_KINDS = 11
};
enum { WORK_LOOP = 1, WORK_SECTIONS = 2, WORK_SINGLE_EXECUTOR = 3, WORK_KINDS = 9 };

/* --- regions ------------------------------------------------------------ */

static int started;			/* the runtime called initialize */

/* Fixed names by kind (0: not recorded), interned at first use. */
static uint32_t sync_ids[SYNC_KINDS], work_ids[WORK_KINDS];
static const char *const sync_names[SYNC_KINDS] = {
	[SYNC_BARRIER] = "omp barrier", [SYNC_BARRIER_EXPLICIT] = "omp barrier",
	[SYNC_BARRIER_IMPLEMENTATION] = "omp runtime barrier",
	[SYNC_TASKWAIT] = "omp taskwait", [SYNC_TASKGROUP] = "omp taskgroup",
	[SYNC_REDUCTION] = "omp reduction",
	[SYNC_BARRIER_IMPLICIT_WORKSHARE] = "omp loop barrier",
};
static const char *const work_names[WORK_KINDS] = {
	[WORK_LOOP] = "omp loop", [WORK_SECTIONS] = "omp sections",
	[WORK_SINGLE_EXECUTOR] = "omp single",
};
static uint32_t parallel_id;		/* a region started from an unknown address */

/* A parallel region's data: its region and its implicit barrier's. */
static inline uint64_t pack(uint32_t region, uint32_t barrier)
{
	return (uint64_t)barrier << 32 | region;
}

static void on_parallel_begin(ompt_data *task, const void *frame, ompt_data *parallel,
			      unsigned requested, int flags, const void *site)
{
	struct thread_state *t = openmp_thread();
	uint32_t id, barrier;

	(void)task, (void)frame, (void)requested, (void)flags;
	if (!t || !parallel)
		return;
	if (site) {
		id = openmp_addr_id("omp parallel ", site, RF_ADDR_CALL);
		barrier = openmp_addr_id("omp implicit barrier ", site, RF_ADDR_CALL);
	} else {
		id = openmp_fixed_id(&parallel_id, "omp parallel");
		barrier = id ? openmp_fixed_id(&sync_ids[SYNC_BARRIER_IMPLICIT],
					       "omp implicit barrier") : 0;
	}
	parallel->value = id && barrier ? pack(id, barrier) : 0;
}

/* What a thread has open of its implicit task: the task's region and, once
 * the implicit barrier began, the barrier's (a runtime may end the task
 * before the barrier: both close then, innermost first). */
static __thread uint32_t task_open, barrier_open;

static void close_task(struct thread_state *t)
{
	openmp_end(t, barrier_open);
	openmp_end(t, task_open);
	barrier_open = task_open = 0;
}

void ompt_thread_finish(struct thread_state *t)
{
	if (task_open)
		close_task(t);
}

static void on_implicit_task(int endpoint, ompt_data *parallel, ompt_data *task,
			     unsigned nthreads, unsigned index, int flags)
{
	struct thread_state *t = openmp_thread();

	(void)task, (void)nthreads, (void)index;
	if (!t || (flags & TASK_INITIAL))
		return;
	if (endpoint == SCOPE_BEGIN && parallel && (uint32_t)parallel->value) {
		close_task(t);	/* a task left open (nested teams reuse threads) */
		openmp_name_thread(t);
		task_open = (uint32_t)parallel->value;
		openmp_begin(t, task_open, OPENMP_SITE(t, 0));
	} else if (endpoint == SCOPE_END) {
		close_task(t);
	}
}

static void on_sync_region(int kind, int endpoint, ompt_data *parallel, ompt_data *task,
			   const void *site)
{
	struct thread_state *t = openmp_thread();
	uint32_t id;

	(void)task;
	if (!t || kind <= 0 || kind >= SYNC_KINDS)
		return;
	if (kind == SYNC_BARRIER_IMPLICIT || kind == SYNC_BARRIER_IMPLICIT_PARALLEL) {
		if (endpoint == SCOPE_BEGIN && task_open && parallel) {
			barrier_open = (uint32_t)(parallel->value >> 32);
			openmp_begin(t, barrier_open, OPENMP_SITE(t, site));
		} else if (endpoint == SCOPE_END) {
			openmp_end(t, barrier_open);
			barrier_open = 0;
		}
		return;
	}
	if (!sync_names[kind] || !(id = openmp_fixed_id(&sync_ids[kind], sync_names[kind])))
		return;
	if (endpoint == SCOPE_BEGIN)
		openmp_begin(t, id, OPENMP_SITE(t, site));
	else if (endpoint == SCOPE_END)
		openmp_end(t, id);
}

static void on_work(int kind, int endpoint, ompt_data *parallel, ompt_data *task,
		    uint64_t count, const void *site)
{
	struct thread_state *t = openmp_thread();
	uint32_t id;

	(void)parallel, (void)task, (void)count;
	if (!t || kind <= 0 || kind >= WORK_KINDS || !work_names[kind] ||
	    !(id = openmp_fixed_id(&work_ids[kind], work_names[kind])))
		return;
	if (endpoint == SCOPE_BEGIN)
		openmp_begin(t, id, OPENMP_SITE(t, site));
	else if (endpoint == SCOPE_END)
		openmp_end(t, id);
}

/* Critical sections, keyed by where they are entered: the wait from
 * acquire to acquired, then the body until released. The runtime names
 * the lock (wait_id) at each; the thread's open ones are kept by it. */
#define CRITICAL_DEPTH 16

static __thread struct {
	uint64_t lock;
	const struct openmp_critical *ids;
} critical_open[CRITICAL_DEPTH];
static __thread int ncritical;

static void on_mutex_acquire(int kind, unsigned hint, unsigned impl, uint64_t lock,
			     const void *site)
{
	struct thread_state *t = kind == MUTEX_CRITICAL ? openmp_thread() : NULL;
	const struct openmp_critical *c;

	(void)hint, (void)impl;
	if (!t || ncritical == CRITICAL_DEPTH)
		return;
	c = openmp_critical_ids(site, RF_ADDR_CALL);
	critical_open[ncritical].lock = lock;
	critical_open[ncritical++].ids = c;
	openmp_begin(t, c->wait, OPENMP_SITE(t, site));
}

/* The innermost critical section of this lock the thread has open, or -1. */
static int critical_of(uint64_t lock)
{
	int k = ncritical;

	while (k-- > 0 && critical_open[k].lock != lock)
		;
	return k;
}

static void on_mutex_acquired(int kind, uint64_t lock, const void *site)
{
	struct thread_state *t = kind == MUTEX_CRITICAL ? openmp_thread() : NULL;
	int k = t ? critical_of(lock) : -1;

	if (k < 0)
		return;
	openmp_end(t, critical_open[k].ids->wait);
	openmp_begin(t, critical_open[k].ids->body, OPENMP_SITE(t, site));
}

static void on_mutex_released(int kind, uint64_t lock, const void *site)
{
	struct thread_state *t = kind == MUTEX_CRITICAL ? openmp_thread() : NULL;
	int k = t ? critical_of(lock) : -1;

	(void)site;
	if (k < 0)
		return;
	openmp_end(t, critical_open[k].ids->body);
	ncritical = k;
}

/* --- the tool ------------------------------------------------------------ */

static int initialize(ompt_lookup lookup, int device, ompt_data *data)
{
	ompt_set_callback set = (ompt_set_callback)lookup("ompt_set_callback");

	(void)device, (void)data;
	if (!set)
		return 0;
	set(CB_PARALLEL_BEGIN, (ompt_fn)on_parallel_begin);
	set(CB_IMPLICIT_TASK, (ompt_fn)on_implicit_task);
	set(CB_SYNC_REGION, (ompt_fn)on_sync_region);
	set(CB_WORK, (ompt_fn)on_work);
	set(CB_MUTEX_ACQUIRE, (ompt_fn)on_mutex_acquire);
	set(CB_MUTEX_ACQUIRED, (ompt_fn)on_mutex_acquired);
	set(CB_MUTEX_RELEASED, (ompt_fn)on_mutex_released);
	__atomic_store_n(&started, 1, __ATOMIC_RELEASE);
	return 1;	/* non-zero: the tool stays */
}

static void finalize(ompt_data *data)
{
	(void)data;
}

/* The application's own tool (a profiler it links with) comes first: a
 * runtime starts one tool, and the preloaded shim's definition would hide
 * the application's. Then OpenMP regions come from the shim's GOMP
 * wrappers only (libomp's GOMP layer), said once. */
static struct ompt_start_tool_result *application_tool(unsigned version, const char *runtime)
{
	struct ompt_start_tool_result *(*next)(unsigned, const char *);
	struct ompt_start_tool_result *r;

	*(void **)&next = dlsym(RTLD_NEXT, "ompt_start_tool");
	if (!next || !(r = next(version, runtime)))
		return NULL;
	log_notice("the application's own OMPT tool started; OpenMP regions through OMPT are "
		   "not recorded");
	return r;
}

EXPORT struct ompt_start_tool_result *ompt_start_tool(unsigned version, const char *runtime)
{
	static struct ompt_start_tool_result tool = { initialize, finalize, { 0 } };
	struct ompt_start_tool_result *app = application_tool(version, runtime);

	if (app)
		return app;
	shim_thread();	/* the shim set up, if the runtime comes first */
	return openmp_thread() ? &tool : NULL;
}

static int is_libomp(struct dl_phdr_info *info, size_t size, void *arg)
{
	const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;

	(void)size, (void)arg;
	return base && (!strncmp(base, "/libomp.so", 10) || !strncmp(base, "/libiomp5.so", 12));
}

/* (not dlsym: a failed look-up leaves dlerror state behind) */
void ompt_check_started(void)
{
	const char *why = getenv("OMP_TOOL");

	if (__atomic_load_n(&started, __ATOMIC_ACQUIRE) || !openmp_enabled() ||
	    !dl_iterate_phdr(is_libomp, NULL))
		return;
	log_error("OpenMP: the runtime (libomp) did not start the shim's OMPT tool%s: its "
		  "parallel regions were not recorded", why && !strcmp(why, "disabled") ?
		  " (OMP_TOOL=disabled)" : "");
}
