/* Thread lifecycle. A pthread key's destructor finishes every thread the
 * shim knows, however it ends (return, pthread_exit, cancellation); the
 * interposed pthread_create only makes sure counters open before the
 * thread's own code runs. */
#include "threads.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

enum { TLS_NONE, TLS_SETTING_UP, TLS_DONE };

__thread struct thread_state *threads_tls;
static __thread int tls_phase;

static const struct config *config;
static struct event_status *status;
static int ready;
static pthread_key_t key;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct thread_state *registry;
static struct thread_state *orphans;	/* a fork child's parent threads */

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *,
			 void *(*)(void *), void *);
static create_fn real_create;

static void register_thread(struct thread_state *t)
{
	pthread_mutex_lock(&registry_lock);
	t->next = registry;
	registry = t;
	pthread_mutex_unlock(&registry_lock);
}

static struct thread_state *setup(int lazy, int first)
{
	int saved = errno;
	struct thread_state *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	tls_phase = TLS_SETTING_UP;
	t->tid = gettid();
	t->is_main = t->tid == getpid();
	t->lazy = lazy;
	t->start_mono = clock_mono_ns();
	counters_open(&t->ctr, &config->events, status, first);
	regions_init(&t->rs, 1 + t->ctr.nopen, config->stack_depth);
	t->start_cpu = clock_thread_cpu_ns();
	pthread_setspecific(key, t);
	register_thread(t);
	threads_tls = t;
	tls_phase = TLS_NONE;
	errno = saved;
	return t;
}

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
 * pthread_getcpuclockid computes, but without needing a pthread_t). */
static uint64_t thread_cpu_of(pid_t tid)
{
	clockid_t id = (clockid_t)((~(unsigned)tid << 3) | 6);
	struct timespec ts;

	if (clock_gettime(id, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Totals, CPU time and name as of now; caller holds t->rs.lock. */
static void take_totals(struct thread_state *t, int self)
{
	t->end_mono = clock_mono_ns();
	t->cpu_ns = (self ? clock_thread_cpu_ns() : thread_cpu_of(t->tid)) - t->start_cpu;
	t->open_mask = 0;
	for (int i = 0; i < t->ctr.n; i++)
		if (t->ctr.fd[i] >= 0)
			t->open_mask |= 1u << i;
	t->totals_ok = counters_read_totals(&t->ctr, t->totals, t->enabled,
					    t->running) == 0;
	t->lost = t->ctr.nopen > 0 &&
		  (!t->totals_ok || __atomic_load_n(&t->ctr.broken, __ATOMIC_RELAXED));
	if (self)
		prctl(PR_GET_NAME, t->name, 0, 0, 0);
	else
		read_name(t->tid, t->name, sizeof(t->name));
}

static void finish(struct thread_state *t)
{
	int saved = errno;
	uint64_t dropped = __atomic_exchange_n(&t->reentrant, 0, __ATOMIC_RELAXED);

	threads_tls = NULL;
	tls_phase = TLS_DONE;
	regions_finish(&t->rs);
	if (dropped)
		regions_record_error(&t->rs, ERR_REENTRANT, 0, 0, dropped);
	pthread_mutex_lock(&t->rs.lock);
	if (!t->finished) {
		take_totals(t, 1);
		counters_close(&t->ctr);
		t->finished = 1;
	}
	pthread_mutex_unlock(&t->rs.lock);
	errno = saved;
}

static void key_destructor(void *p)
{
	finish(p);
}

void threads_init(const struct config *cfg, struct event_status *st)
{
	config = cfg;
	status = st;
	pthread_key_create(&key, key_destructor);
	*(void **)&real_create = dlsym(RTLD_NEXT, "pthread_create");
	setup(0, 1);
	__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
}

struct thread_state *threads_setup_lazy(void)
{
	if (tls_phase != TLS_NONE || !__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
		return NULL;
	return setup(1, 0);
}

void threads_finish_self(void)
{
	if (threads_tls)
		finish(threads_tls);
}

static void snapshot(struct thread_state *t, void *ctx)
{
	(void)ctx;
	if (!t->finished)
		take_totals(t, t == threads_tls);
}

void threads_snapshot_running(void)
{
	threads_for_each(snapshot, NULL);
}

void threads_for_each(void (*fn)(struct thread_state *t, void *ctx), void *ctx)
{
	pthread_mutex_lock(&registry_lock);
	for (struct thread_state *t = registry; t; t = t->next) {
		pthread_mutex_lock(&t->rs.lock);
		fn(t, ctx);
		pthread_mutex_unlock(&t->rs.lock);
	}
	pthread_mutex_unlock(&registry_lock);
}

void threads_lock_registry(void)
{
	pthread_mutex_lock(&registry_lock);
}

void threads_unlock_registry(void)
{
	pthread_mutex_unlock(&registry_lock);
}

/* In a fork child only the forking thread exists, and the counters it
 * inherited count its parent: reopen them and start afresh. */
void threads_after_fork_child(void)
{
	struct thread_state *t = threads_tls;

	/* Kept reachable, never used: the parent's threads do not exist here. */
	orphans = registry;
	registry = NULL;
	if (!t)
		return;
	int before = t->ctr.nopen;

	counters_close(&t->ctr);
	counters_open(&t->ctr, &config->events, status, 0);
	/* Sites keep one value per event open before the fork. */
	if (t->ctr.nopen != before)
		counters_close(&t->ctr), t->ctr.broken = 1;
	t->tid = gettid();
	t->is_main = 1;
	t->start_mono = clock_mono_ns();
	t->start_cpu = clock_thread_cpu_ns();
	__atomic_store_n(&t->reentrant, 0, __ATOMIC_RELAXED);
	regions_after_fork(&t->rs, &t->ctr);
	t->next = NULL;
	registry = t;
}

/* pthread_create ------------------------------------------------------ */

struct start {
	void *(*fn)(void *);
	void *arg;
};

static void *trampoline(void *p)
{
	struct start s = *(struct start *)p;
	int saved = errno;

	free(p);
	setup(0, 0);
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
	rc = create(thread, attr, trampoline, s);
	if (rc != 0)
		free(s);
	return rc;
}
