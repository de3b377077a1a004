/* OpenMP with LLVM's libomp, through the standard tool interface (OMPT,
 * OpenMP 5.1 section 4): the shim exports ompt_start_tool, and the runtime
 * calls back at each parallel region, implicit task, worksharing
 * construct, synchronization region and critical section. The regions
 * are those of openmp.c: a parallel region in every thread of its team,
 * keyed here by the address it was started from ("omp parallel solve
 * (solve.c:31)" once the reader names it; the outlined function is not
 * given to a tool), its implicit barrier, barriers, taskwaits, critical
 * sections and their waits by their lock. The barrier that ends a loop or
 * sections is named as libgomp's is ("omp loop barrier", "omp sections
 * barrier"; after a single "omp barrier"), so that both runtimes give the
 * same table. A parallel region started inside another (serialized when
 * nested parallelism is off) is nested in it, its barrier in it. A
 * runtime that does not start the tool (OMP_TOOL=disabled) gets one line
 * at exit.
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

/* Where the region this thread began last was started from: its implicit
 * task, which the runtime begins next on the same thread, keeps it (see
 * parallel_barrier). */
static __thread const void *begun_site;

static void on_parallel_begin(ompt_data *task, const void *frame, ompt_data *parallel,
			      unsigned requested, int flags, const void *site)
{
	struct thread_state *t = openmp_thread();
	uint32_t id, barrier;

	(void)task, (void)frame, (void)requested, (void)flags;
	if (!t || !parallel)
		return;
	begun_site = site;
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

/* The implicit tasks a thread has open, innermost last: a region's body
 * may start another parallel region (serialized when nested parallelism
 * is off: a team of one, on the same thread), whose task begins and ends
 * inside the enclosing one. Entry 0 is the thread outside any task. Tasks
 * nested deeper than TASK_DEPTH are not recorded (counted, said at the
 * end), their enclosing ones still are. */
#define TASK_DEPTH 16

struct open_task {
	uint32_t region, barrier;	/* the parallel region's, its implicit barrier's */
	const void *site;		/* where the thread started it, or NULL */
	uint32_t waiting;		/* the barrier open now (its own or a workshare's) */
	int joined;			/* its own implicit barrier began */
};

static __thread struct open_task tasks[TASK_DEPTH + 1];
static __thread int ntasks, too_deep;	/* tasks[1..ntasks] open; beyond them */
static uint64_t tasks_lost;		/* tasks not recorded, all threads */

/* Ends the innermost task, its open barrier first (a runtime may end the
 * task before the barrier). A team of one has no barrier in libomp 14:
 * its barrier is an empty one here, so that every region has its implicit
 * barrier, as with libgomp (whose threads always meet there). */
static void pop_task(struct thread_state *t)
{
	struct open_task *k = &tasks[ntasks];

	openmp_end(t, k->waiting);
	if (!k->joined) {
		openmp_begin(t, k->barrier, OPENMP_SITE(t, 0));
		openmp_end(t, k->barrier);
	}
	openmp_end(t, k->region);
	*k = (struct open_task){ 0 };
	ntasks--;
}

void ompt_thread_finish(struct thread_state *t)
{
	while (ntasks > 0)
		pop_task(t);
}

static void on_implicit_task(int endpoint, ompt_data *parallel, ompt_data *task,
			     unsigned nthreads, unsigned index, int flags)
{
	struct thread_state *t = openmp_thread();
	const void *site = index == 0 ? begun_site : NULL;

	(void)task, (void)nthreads;
	if (!t || (flags & TASK_INITIAL))
		return;
	if (endpoint == SCOPE_BEGIN) {
		/* a task already at its own barrier is over (libomp reports a
		 * worker's task end when it is woken next, and a thread of a
		 * nested team may be taken into another team first) */
		while (ntasks > 0 && tasks[ntasks].joined)
			pop_task(t);
		begun_site = NULL;
		if (too_deep || ntasks == TASK_DEPTH || !parallel || !(uint32_t)parallel->value) {
			too_deep++;	/* (a region not recorded: its task ends as one) */
			if (ntasks == TASK_DEPTH)
				__atomic_add_fetch(&tasks_lost, 1, __ATOMIC_RELAXED);
			return;
		}
		openmp_name_thread(t);
		tasks[++ntasks] = (struct open_task){ (uint32_t)parallel->value,
						      (uint32_t)(parallel->value >> 32), site, 0, 0 };
		openmp_begin(t, tasks[ntasks].region, OPENMP_SITE(t, 0));
	} else if (endpoint == SCOPE_END) {
		if (too_deep)
			too_deep--;
		else if (ntasks > 0)
			pop_task(t);
	}
}

/* The work construct this thread ended last: the implicit barrier after
 * it is named after it, as libgomp's are (GOMP_loop_end, GOMP_sections_end;
 * a single ends with GOMP_barrier: "omp barrier"). */
static __thread int work_ended;
static uint32_t workshare_ids[WORK_KINDS];
static const char *const workshare_names[WORK_KINDS] = {
	[WORK_LOOP] = "omp loop barrier", [WORK_SECTIONS] = "omp sections barrier",
};

static uint32_t workshare_barrier(void)
{
	int kind = work_ended;

	work_ended = 0;
	if (!workshare_names[kind])	/* single, and what libgomp does not name */
		return openmp_fixed_id(&sync_ids[SYNC_BARRIER_EXPLICIT], "omp barrier");
	return openmp_fixed_id(&workshare_ids[kind], workshare_names[kind]);
}

/* Whether an implicit barrier (kind given) is the innermost task's own,
 * at the end of its parallel region, rather than one that ends a work
 * construct. OpenMP 5.1 runtimes say which; older ones (libomp 14) say
 * "implicit" for both, and then the parallel region's barrier is the one
 * reported from where the region was started (the thread that started
 * it) or from nowhere (the others): a workshare barrier is reported from
 * its call in the region's body. */
static int parallel_barrier(int kind, const void *site)
{
	if (kind != SYNC_BARRIER_IMPLICIT)
		return kind == SYNC_BARRIER_IMPLICIT_PARALLEL;
	return !site || (ntasks > 0 && site == tasks[ntasks].site);
}

static void on_implicit_barrier(struct thread_state *t, int kind, int endpoint, const void *site)
{
	struct open_task *k = &tasks[ntasks];

	if (too_deep)
		return;
	if (endpoint == SCOPE_BEGIN) {
		openmp_end(t, k->waiting);	/* (one left open: never two at once) */
		if (parallel_barrier(kind, site)) {
			k->joined = 1;
			k->waiting = k->barrier;
		} else {
			k->waiting = workshare_barrier();
		}
		openmp_begin(t, k->waiting, OPENMP_SITE(t, site));
	} else if (endpoint == SCOPE_END) {
		openmp_end(t, k->waiting);
		k->waiting = 0;
	}
}

static void on_sync_region(int kind, int endpoint, ompt_data *parallel, ompt_data *task,
			   const void *site)
{
	struct thread_state *t = openmp_thread();
	uint32_t id;

	(void)task, (void)parallel;
	if (!t || kind <= 0 || kind >= SYNC_KINDS)
		return;
	if (kind == SYNC_BARRIER_IMPLICIT || kind == SYNC_BARRIER_IMPLICIT_PARALLEL ||
	    kind == SYNC_BARRIER_IMPLICIT_WORKSHARE) {
		on_implicit_barrier(t, kind, endpoint, site);
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
	if (endpoint == SCOPE_END && kind > 0 && kind < WORK_KINDS)
		work_ended = kind;
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
	uint64_t lost = __atomic_load_n(&tasks_lost, __ATOMIC_RELAXED);

	if (lost)
		log_error("OpenMP: %llu parallel regions nested deeper than %d in their thread "
			  "were not recorded (the regions around them were)",
			  (unsigned long long)lost, TASK_DEPTH);
	if (__atomic_load_n(&started, __ATOMIC_ACQUIRE) || !openmp_enabled() ||
	    !dl_iterate_phdr(is_libomp, NULL))
		return;
	log_error("OpenMP: the runtime (libomp) did not start the shim's OMPT tool%s: its "
		  "parallel regions were not recorded", why && !strcmp(why, "disabled") ?
		  " (OMP_TOOL=disabled)" : "");
}
