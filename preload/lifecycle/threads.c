/* Thread lifecycle. A pthread key's destructor finishes every thread the
 * shim knows, however it ends (return, pthread_exit, cancellation); the
 * interposed pthread_create only makes sure counters open before the
 * thread's own code runs. A thread's memory comes from its own arena and
 * goes when it ends; its RF_THREAD record and sites stay in the file. */
#include "threads.h"
#include "hooks.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "calibrate.h"
#include "base/clock.h"
#include "regions/counted.h"
#include "regions/guard.h"
#include "report/mapfile.h"
#include "report/sigmask.h"
#include "regions/names.h"
#include "sample/sample.h"

enum { TLS_NONE, TLS_SETTING_UP, TLS_DONE };

__thread struct thread_state *threads_tls;
static __thread int tls_phase;

static const struct config *config;
static struct event_status *status;
static int ready;
static pthread_key_t key;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct thread_state *registry;
static uint32_t next_index;
/* The markers' own cost, measured once, at the application's first region
 * name (a process that names none never needs it). */
static struct calibration calib;
static int calib_taken, calib_ready;
static int calib_wanted;	/* named on a thread not yet set up */
static struct calibration calib_fn;	/* the function hooks' (threads_calibrate_functions) */
static int calib_fn_ready;
/* The main thread's CPU clock as the shim's setup began (0: not noted). */
static uint64_t main_begin_cpu;

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *,
			 void *(*)(void *), void *);
static create_fn real_create;

/* --- the registry (threads not yet finished) ---------------------------- */

static void register_thread(struct thread_state *t)
{
	pthread_mutex_lock(&registry_lock);
	t->next = registry;
	registry = t;
	pthread_mutex_unlock(&registry_lock);
}

static void unregister_thread(struct thread_state *t)
{
	pthread_mutex_lock(&registry_lock);
	for (struct thread_state **p = &registry; *p; p = &(*p)->next)
		if (*p == t) {
			*p = t->next;
			break;
		}
	pthread_mutex_unlock(&registry_lock);
}

void threads_each(void (*fn)(struct thread_state *t))
{
	pthread_mutex_lock(&registry_lock);
	for (struct thread_state *t = registry; t; t = t->next)
		fn(t);
	pthread_mutex_unlock(&registry_lock);
}

/* The process may be ending from a signal handler that interrupted a
 * thread holding the lock: try for a while, never wait forever. */
static int try_lock_registry(void)
{
	for (int i = 0; i < 1000; i++) {
		if (pthread_mutex_trylock(&registry_lock) == 0)
			return 0;
		sched_yield();
	}
	return -1;
}

/* --- setup ---------------------------------------------------------------- */

static uint32_t open_mask(const struct counters *c)
{
	uint32_t mask = 0;

	for (int i = 0; i < c->n; i++)
		if (c->fd[i] >= 0)
			mask |= 1u << i;
	return mask;
}

/* Every thread runs the same marker code: one thread's calibration holds
 * for all of them. Each record may be stored twice at once, by its thread
 * and by the calibrating one (calibrated()), with the same values. The
 * read-modify-write orders this against calibrated()'s exchange: either
 * it reads 1, or calibrated() sees this record published. */
static void store_calibration(struct rf_thread *r)
{
	if (!__atomic_fetch_or(&calib_ready, 0, __ATOMIC_ACQ_REL))
		return;
	for (size_t i = 0; i < sizeof(r->calib_in) / sizeof(r->calib_in[0]); i++) {
		__atomic_store_n(&r->calib_in[i], calib.in[i], __ATOMIC_RELAXED);
		__atomic_store_n(&r->calib_child[i], calib.child[i], __ATOMIC_RELAXED);
	}
	__atomic_store_n(&r->calib_calls, calib.calls, __ATOMIC_RELEASE);
}

/* The same for the function hooks' calibration. */
static void store_fn_calibration(struct rf_thread *r)
{
	if (!__atomic_fetch_or(&calib_fn_ready, 0, __ATOMIC_ACQ_REL))
		return;
	for (size_t i = 0; i < sizeof(r->calib_fn_in) / sizeof(r->calib_fn_in[0]); i++) {
		__atomic_store_n(&r->calib_fn_in[i], calib_fn.in[i], __ATOMIC_RELAXED);
		__atomic_store_n(&r->calib_fn_child[i], calib_fn.child[i], __ATOMIC_RELAXED);
	}
	__atomic_store_n(&r->calib_fn_calls, calib_fn.calls, __ATOMIC_RELEASE);
}

static struct rf_thread *thread_record(const struct thread_state *t, int lazy)
{
	struct rf_thread *r = mapfile_append(RF_THREAD, sizeof(*r));

	if (!r)
		return NULL;
	r->index = __atomic_fetch_add(&next_index, 1, __ATOMIC_RELAXED);
	r->tid = (uint32_t)t->tid;
	r->is_main = t->tid == getpid();
	r->lazy = (uint32_t)lazy;
	r->nvalues = 1 + (uint32_t)t->ctr.nopen;
	r->open_mask = open_mask(&t->ctr);
	r->thread_mask = open_mask(&t->tctr);
	r->coverage = (uint32_t)t->ctr.multiplexed;
	r->start_mono_ns = r->is_main ? clock_mono_ns_sys() : clock_mono_ns();
	r->cpu_ns = UINT64_MAX;
	r->setup_cpu_ns = t->start_cpu;
	r->begin_cpu_ns = r->is_main && main_begin_cpu ? main_begin_cpu : t->start_cpu;
	r->begin_faults = t->begin_faults;
	r->end_faults = UINT64_MAX;
	r->state = RF_T_RUNNING;
	mapfile_publish(r);
	store_calibration(r);	/* after the publish (see there) */
	store_fn_calibration(r);
	return r;
}

/* The calling thread's page faults since it began (minor + major), or
 * UINT64_MAX. */
static uint64_t thread_faults(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return UINT64_MAX;
	return (uint64_t)ru.ru_minflt + (uint64_t)ru.ru_majflt;
}

/* The markers' events, and apart (their own group) those counted per
 * thread only, which no marker reads. */
static void open_counters(struct thread_state *t, int first)
{
	counters_open_some(&t->ctr, &config->events, status, first, ~config->per_thread);
	counters_open_some(&t->tctr, &config->events, status, first, config->per_thread);
}

static void close_counters(struct thread_state *t)
{
	counters_close(&t->ctr);
	counters_close(&t->tctr);
}

/* Every open event's count by event index, both sets: 0, or -1 when one
 * could not be read. */
static int read_totals(struct thread_state *t, uint64_t *vals, uint64_t *en, uint64_t *ran)
{
	if (t->ctr.nopen && (__atomic_load_n(&t->ctr.broken, __ATOMIC_RELAXED) ||
			     counters_read_totals(&t->ctr, vals, en, ran) != 0))
		return -1;
	if (t->tctr.nopen && counters_read_totals(&t->tctr, vals, en, ran) != 0)
		return -1;
	return 0;
}

/* Called with the guard held. */
static struct thread_state *setup(int lazy, int first)
{
	int saved = errno;
	struct arena own = { 0 };
	struct thread_state *t = arena_alloc(&own, sizeof(*t));

	tls_phase = TLS_DONE;	/* whatever happens, set up once */
	if (!t)
		return NULL;
	t->own = own;
	t->tid = gettid();
	t->begin_faults = thread_faults();	/* what its counters will not see */
	open_counters(t, first);
	t->start_cpu = clock_thread_cpu_ns();
	t->rec = thread_record(t, lazy);
	if (!t->rec) {
		close_counters(t);
		arena_release(&own);
		errno = saved;
		return NULL;
	}
	regions_init(&t->rs, &t->ctr, 1 + t->ctr.nopen, config->stack_depth, t->rec->index);
	regions_serialize(&t->rs, config->serialize);
	regions_coverage(&t->rs, t->ctr.multiplexed);
	regions_publish_into(&t->rs, t->rec);
	pthread_setspecific(key, t);
	register_thread(t);
	threads_tls = t;
	regions_attach(&t->rs);
	sample_thread_start(t->rec->index);
	errno = saved;
	return t;
}

/* --- totals ------------------------------------------------------------- */

static void read_name(pid_t tid, char *name, size_t len)
{
	char path[64];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, name, len - 1);
	close(fd);
	if (n <= 0)
		return;
	name[n] = '\0';
	name[strcspn(name, "\n")] = '\0';
}

/* CPU time of any thread of this process, by tid (what glibc's
 * pthread_getcpuclockid computes, but without needing a pthread_t);
 * UINT64_MAX once the thread is gone. */
static uint64_t thread_cpu_of(pid_t tid)
{
	clockid_t id = (clockid_t)((~(unsigned)tid << 3) | 6);
	struct timespec ts;

	if (clock_gettime(id, &ts) != 0)
		return UINT64_MAX;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void store_counts(struct thread_state *t)
{
	struct rf_thread *r = t->rec;

	if (t->ctr.nopen == 0 && t->tctr.nopen == 0)
		return;
	if (read_totals(t, r->totals, r->enabled, r->running) == 0) {
		for (int e = 0; e < t->ctr.n; e++) /* the shim's calibration out */
			r->totals[e] -= r->totals[e] > t->shim_counts[e] ? t->shim_counts[e] :
					r->totals[e];
		r->total_status = RF_TOTAL_OK;
		return;
	}
	r->total_status = RF_TOTAL_LOST;
	snprintf(r->lost_reason, sizeof(r->lost_reason), "%s",
		 counters_lost_reason(t->ctr.nopen ? &t->ctr : &t->tctr));
}

/* Totals, CPU time and name as of now, then the state (release). */
static void store_totals(struct thread_state *t, int self, uint32_t state)
{
	struct rf_thread *r = t->rec;
	uint64_t cpu = self ? clock_thread_cpu_ns() : thread_cpu_of(t->tid);

	r->end_mono_ns = r->is_main ? clock_mono_ns_sys() : clock_mono_ns();
	r->cpu_ns = cpu == UINT64_MAX || cpu < t->start_cpu + t->shim_cpu ? UINT64_MAX :
		    cpu - t->start_cpu - t->shim_cpu;
	r->end_faults = self ? thread_faults() : UINT64_MAX;
	store_counts(t);
	if (!t->named && self)
		prctl(PR_GET_NAME, r->name, 0, 0, 0);
	else if (!t->named)	/* (threads_name's name is kept) */
		read_name(t->tid, r->name, sizeof(r->name));
	__atomic_store_n(&r->state, state, __ATOMIC_RELEASE);
}

void threads_name(struct thread_state *t, const char *name)
{
	snprintf(t->rec->name, sizeof(t->rec->name), "%s", name);
	t->named = 1;
}

static void finish(struct thread_state *t)
{
	int saved = errno;
	int entered;
	struct arena own = t->own;

	sample_thread_stop();
	hooks_thread_finish(t);	/* before the guard: a source may end regions */
	entered = guard_enter();
	threads_tls = NULL;
	regions_attach(NULL);
	tls_phase = TLS_DONE;
	if (entered)
		regions_finish(&t->rs, &t->ctr);
	unregister_thread(t);
	store_totals(t, 1, RF_T_EXITED);
	close_counters(t);
	regions_release(&t->rs);
	arena_release(&own);
	if (entered)
		guard_leave();
	errno = saved;
}

static void key_destructor(void *p)
{
	finish(p);
}

/* --- the process's end ---------------------------------------------------- */

static void snapshot_others(struct thread_state *self)
{
	if (try_lock_registry() != 0)
		return;
	for (struct thread_state *t = registry; t; t = t->next)
		if (t != self) {
			struct counted *cs = __atomic_load_n(&t->rs.counted, __ATOMIC_ACQUIRE);

			store_totals(t, 0, RF_T_SNAPSHOT);
			if (cs)	/* their calls so far */
				counted_publish(cs);
		}
	pthread_mutex_unlock(&registry_lock);
}

void threads_end_process(int close_open)
{
	struct thread_state *self = threads_tls;

	/* Busy: the process ends from a signal handler that interrupted the
	 * shim on this thread; its regions are mid-update, leave them. */
	if (self && close_open && guard_enter()) {
		regions_finish(&self->rs, &self->ctr);
		guard_leave();
	}
	if (self && self->rs.counted)	/* (regions_finish does it too) */
		counted_publish(self->rs.counted);
	if (self)
		store_totals(self, 1, RF_T_EXITED);
	snapshot_others(self);
}

void threads_resume(void)
{
	struct thread_state *self = threads_tls;

	if (self)
		__atomic_store_n(&self->rec->state, RF_T_RUNNING, __ATOMIC_RELEASE);
	if (try_lock_registry() != 0)
		return;
	for (struct thread_state *t = registry; t; t = t->next)
		__atomic_store_n(&t->rec->state, RF_T_RUNNING, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&registry_lock);
}

/* --- calibration ------------------------------------------------------------ */

static int store_into(const struct rf_record *r, const void *arg)
{
	(void)arg;
	if (r->type == RF_THREAD) {
		store_calibration((struct rf_thread *)r);
		store_fn_calibration((struct rf_thread *)r);
	}
	return 0;
}

/* Into every thread record published so far, finished threads' too; one
 * published from here on stores it itself (thread_record). */
static void calibrated(int *ready)
{
	__atomic_exchange_n(ready, 1, __ATOMIC_ACQ_REL);
	mapfile_find(store_into, NULL);
}

/* The calibration's cost, counted by the thread's counters, is the
 * shim's, not the program's: measured here, taken out of the totals.
 * Returns whether run measured. */
static int measure(struct thread_state *t, int (*run)(uint32_t thread, struct calibration *out),
		   struct calibration *out)
{
	uint64_t before[EVENTS_MAX] = { 0 }, after[EVENTS_MAX] = { 0 };
	uint64_t en[EVENTS_MAX], ran[EVENTS_MAX], cpu;
	int counted, ok;

	cpu = clock_thread_cpu_ns();
	counted = read_totals(t, before, en, ran) == 0;
	ok = run(t->rec->index, out) == 0;
	if (counted && read_totals(t, after, en, ran) == 0)
		for (int e = 0; e < t->ctr.n; e++)
			t->shim_counts[e] += after[e] > before[e] ? after[e] - before[e] : 0;
	t->shim_cpu += clock_thread_cpu_ns() - cpu;
	return ok;
}

static void calibrate(struct thread_state *t)
{
	if (measure(t, calibrate_run, &calib))
		calibrated(&calib_ready);
}

void threads_calibrate_functions(int (*run)(uint32_t thread, struct calibration *out))
{
	struct thread_state *t = threads_tls;

	if (t && measure(t, run, &calib_fn))
		calibrated(&calib_fn_ready);
}

/* names.h's hook, before the application's first name: once, on the
 * first thread set up to ask. The caller holds the guard, which the
 * calibration's markers take themselves. */
static int calibrate_lazy(void)
{
	struct thread_state *t = threads_tls;

	if (!t) {	/* its setup calibrates (threads_setup_lazy) */
		__atomic_store_n(&calib_wanted, 1, __ATOMIC_RELAXED);
		return 0;
	}
	if (__atomic_exchange_n(&calib_taken, 1, __ATOMIC_ACQ_REL))
		return 1;
	guard_leave();
	calibrate(t);
	guard_enter();		/* the caller's again (free after the calibration) */
	return 1;
}

/* --- init and lazy setup ---------------------------------------------------- */

void threads_note_begin(void)
{
	if (gettid() == getpid())	/* else the main thread is set up later, lazily */
		main_begin_cpu = clock_thread_cpu_ns();
}

void threads_init(const struct config *cfg, struct event_status *st)
{
	config = cfg;
	status = st;
	pthread_key_create(&key, key_destructor);
	names_on_first(calibrate_lazy);
	*(void **)&real_create = dlsym(RTLD_NEXT, "pthread_create");
	guard_enter();
	setup(0, 1);
	guard_leave();
	__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
}

struct thread_state *threads_setup_lazy(void)
{
	struct thread_state *t;

	if (tls_phase != TLS_NONE || !__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
		return NULL;
	t = setup(1, 0);
	if (t && __atomic_load_n(&calib_wanted, __ATOMIC_RELAXED))
		calibrate_lazy();
	return t;
}

/* --- fork ------------------------------------------------------------------- */

void threads_lock_registry(void)
{
	pthread_mutex_lock(&registry_lock);
}

void threads_unlock_registry(void)
{
	pthread_mutex_unlock(&registry_lock);
}

/* Per record of the child's copy of the file: the parent's other threads
 * do not exist here, so their records are hidden; ours start from zero. */
static void reset_record(struct rf_record *r, void *arg)
{
	const struct thread_state *t = arg;
	uint32_t owner = UINT32_MAX;

	if (r->type == RF_THREAD)
		owner = ((struct rf_thread *)r)->index;
	else if (r->type == RF_SITE)
		owner = ((struct rf_site *)r)->thread;
	else if (r->type == RF_ERROR)
		owner = ((struct rf_error *)r)->thread;
	if (owner == UINT32_MAX)
		return;
	if (!t || owner != t->rec->index)
		r->done = 0;
	else if (r->type != RF_THREAD)
		regions_reset_record(r, owner);
}

static void reset_own_record(struct thread_state *t)
{
	struct rf_thread *r = t->rec;
	size_t from = offsetof(struct rf_thread, state);

	memset((char *)r + from, 0, sizeof(*r) - from);
	r->tid = (uint32_t)t->tid;
	r->is_main = 1;
	r->start_mono_ns = clock_mono_ns();
	r->cpu_ns = UINT64_MAX;
	r->begin_cpu_ns = r->setup_cpu_ns = t->start_cpu;	/* the child began at the fork */
	r->begin_faults = t->begin_faults;
	r->end_faults = UINT64_MAX;
	r->thread_mask = open_mask(&t->tctr);	/* (before state: not cleared) */
	r->state = RF_T_RUNNING;
	store_calibration(r);
}

/* In a fork child only the forking thread exists, and the counters it
 * inherited count its parent: reopen them and start afresh, in a file of
 * its own. Returns -1 when the child cannot record. */
int threads_after_fork_child(void)
{
	struct thread_state *t = threads_tls;
	int before;

	registry = NULL;	/* the parent's threads: not here, memory kept */
	if (mapfile_after_fork_child(reset_record, t) != 0) {
		threads_tls = NULL;
		regions_attach(NULL);
		tls_phase = TLS_DONE;
		return -1;
	}
	if (!t)
		return 0;
	before = t->ctr.nopen;
	t->begin_faults = thread_faults();	/* the child's own, since the fork */
	close_counters(t);
	open_counters(t, 0);
	/* Sites keep one value per event open before the fork. */
	if (t->ctr.nopen != before)
		counters_disable(&t->ctr, before);
	t->tid = gettid();
	t->start_cpu = clock_thread_cpu_ns();
	t->shim_cpu = 0;		/* the parent's calibration: not in these counters */
	memset(t->shim_counts, 0, sizeof(t->shim_counts));
	reset_own_record(t);
	regions_after_fork(&t->rs, &t->ctr);
	regions_publish_into(&t->rs, t->rec);
	t->next = NULL;
	registry = t;
	if (guard_enter()) {
		sample_after_fork(t->rec->index);
		guard_leave();
	}
	return 0;
}

/* --- pthread_create ----------------------------------------------------------- */

struct start {
	void *(*fn)(void *);
	void *arg;
	int bus_blocked;	/* its creator's view of SIGBUS (sigmask.h) */
};

static void *trampoline(void *p)
{
	struct start s = *(struct start *)p;
	int saved = errno;

	sigmask_set_app_blocks(s.bus_blocked);	/* the mask it inherits, as it sees it */
	/* before free(): the application's free may mark (a lazy setup) */
	if (guard_enter()) {
		if (tls_phase == TLS_NONE)
			setup(0, 0);
		guard_leave();
	}
	free(p);
	errno = saved;
	return s.fn(s.arg);
}

__attribute__((visibility("default")))
int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
		   void *(*fn)(void *), void *arg)
{
	create_fn create = __atomic_load_n(&real_create, __ATOMIC_RELAXED);
	int saved = errno;
	struct start *s;
	int rc;

	if (!create) {
		*(void **)&create = dlsym(RTLD_NEXT, "pthread_create");
		__atomic_store_n(&real_create, create, __ATOMIC_RELAXED);
		if (!create)
			return EAGAIN;
	}
	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE) ||
	    (s = malloc(sizeof(*s))) == NULL) {
		errno = saved;
		return create(thread, attr, fn, arg);
	}
	s->fn = fn;
	s->arg = arg;
	s->bus_blocked = sigmask_app_blocks();
	rc = create(thread, attr, trampoline, s);
	if (rc != 0)
		free(s);
	return rc;
}
