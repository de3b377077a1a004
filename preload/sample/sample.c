/* The sampler's events and signal. Each thread opens its own event
 * (pid 0, any cpu), disabled, its overflow signalled to that thread
 * alone (F_SETOWN_EX with F_OWNER_TID, F_SETSIG, O_ASYNC), and armed
 * with PERF_EVENT_IOC_REFRESH for one overflow at a time: the handler
 * re-arms it. So at most one signal of ours is ever pending on a thread,
 * and a thread that blocks it holds that one, not a queue growing
 * against the user's limit of pending signals.
 *
 * The signal: the highest real-time one without a handler when the
 * shim starts. The shim's sigaction() tells us (sigbus_watch) when the
 * application sets an action for it: then every thread's event goes
 * off, what is pending is dropped (SIG_IGN discards it), the application
 * gets the signal for its own, and one line says so. */
#include "sample.h"
#include "sample_impl.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/fds.h"
#include "base/log.h"
#include "base/nextsym.h"
#include "base/text.h"
#include "counters/counters.h"
#include "regions/guard.h"
#include "regions/regions.h"
#include "report/mapfile.h"
#include "report/modules.h"
#include "report/sigbus.h"
#include "stacks/codemap.h"
#include "stacks/fpwalk.h"

#define REGISTRY_MAX 4096	/* threads sampled at once; more go unsampled */

int sample_signal;
int sample_stopped;

typedef int sigaction_fn(int, const struct sigaction *, struct sigaction *);
static sigaction_fn *real_sigaction;
static int hz;
static struct sample_by by;	/* PMCSHIM_SAMPLE=EVENT@PERIOD: by.set */
/* PMCSHIM_FUNCTIONS=sampled: task-clock alone, a fixed CPU time per
 * sample for the functions' times (regions/counted.h) */
static int time_only;
/* The event every thread opens: the first that opened. */
static struct perf_event_attr attr;
static int attr_known;		/* 1: attr opened; -1: none would */
static char event_name[16];

/* The threads sampled now: fd + 1 (0: free), and their tables; what
 * stops them all when the application takes the signal. Lock-free: the
 * application's sigaction() may be called from a signal handler. */
static int reg_fd[REGISTRY_MAX];
static struct rf_samples *reg_rec[REGISTRY_MAX];

static int reg_add(int fd, struct rf_samples *rec)
{
	for (int i = 0; i < REGISTRY_MAX; i++) {
		int free = 0;

		if (__atomic_compare_exchange_n(&reg_fd[i], &free, fd + 1, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED)) {
			__atomic_store_n(&reg_rec[i], rec, __ATOMIC_RELEASE);
			return i;
		}
	}
	return -1;
}

static void reg_remove(int i)
{
	if (i < 0)
		return;
	__atomic_store_n(&reg_rec[i], NULL, __ATOMIC_RELAXED);
	__atomic_store_n(&reg_fd[i], 0, __ATOMIC_RELEASE);
}

/* --- the signal ------------------------------------------------------------ */

/* The application has just set an action for sig (sigbus_watch). */
static void on_app_sigaction(int sig)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };

	if (sig != sample_signal || sample_signal == 0 ||
	    __atomic_exchange_n(&sample_stopped, 1, __ATOMIC_ACQ_REL))
		return;
	for (int i = 0; i < REGISTRY_MAX; i++) {
		int fd = __atomic_load_n(&reg_fd[i], __ATOMIC_ACQUIRE) - 1;
		struct rf_samples *rec = __atomic_load_n(&reg_rec[i], __ATOMIC_ACQUIRE);

		if (fd >= 0)
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		if (rec)
			__atomic_store_n(&rec->stopped, 1, __ATOMIC_RELAXED);
	}
	real_sigaction(sig, &ign, NULL);	/* drops the signals pending */
	log_error("the application set an action for signal %d (SIGRTMIN+%d), which the shim "
		  "samples with: sampling stopped in process %d", sig, sig - SIGRTMIN, (int)getpid());
}

void sample_pass_on(int sig)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	/* nobody else handles it (else sampling had stopped): the default,
	 * sent again, delivered when the handler returns */
	real_sigaction(sig, &dfl, NULL);
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
}

/* The highest real-time signal with the default action, not ignored. */
static int choose_signal(void)
{
	for (int sig = SIGRTMAX; sig >= SIGRTMIN; sig--) {
		struct sigaction a;

		if (real_sigaction(sig, NULL, &a) == 0 && !(a.sa_flags & SA_SIGINFO) &&
		    a.sa_handler == SIG_DFL)
			return sig;
	}
	return 0;
}

void sample_init(const struct config *c)
{
	struct sigaction a;

	if (c->sample <= 0)
		return;
	*(void **)&real_sigaction = nextsym(RTLD_NEXT, "sigaction");
	if (!real_sigaction || !(sample_signal = choose_signal())) {
		log_error("no real-time signal free for sampling; not sampling");
		return;
	}
	memset(&a, 0, sizeof(a));
	a.sa_sigaction = sample_on_signal;
	/* SA_RESTART: a system call the signal interrupts goes on */
	a.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&a.sa_mask);
	if (real_sigaction(sample_signal, &a, NULL) != 0) {
		log_error("sampling: sigaction(%d): %s; not sampling", sample_signal, strerror(errno));
		sample_signal = 0;
		return;
	}
	hz = c->sample;
	by = c->sample_by;
	time_only = c->functions_sampled;
	sigbus_watch(sample_signal, sample_on_signal, on_app_sigaction);
	codemap_init();
}

/* --- a thread's event ---------------------------------------------------------- */

static int open_attr(struct perf_event_attr *a)
{
	return (int)syscall(SYS_perf_event_open, a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* For the counted functions' times (PMCSHIM_FUNCTIONS=sampled), task-clock
 * with the kernel's time too where this user may count it: a sample that
 * lands in a system call is the calling function's CPU time (with the
 * kernel left out, a function of getppid() calls showed 40% of its time).
 * Else the user's time alone, named task-clock:u, as the reader says. */
static int open_all_time(struct perf_event_attr *a)
{
	int fd;

	a->exclude_kernel = 0;
	if ((fd = open_attr(a)) >= 0 || (errno != EACCES && errno != EPERM))
		return fd;
	a->exclude_kernel = 1;
	text_copy(event_name, sizeof(event_name), "task-clock:u");
	return open_attr(a);
}

/* The thread's event, disabled; -1 when none opens (said once). */
static int open_event(void)
{
	struct perf_event_attr a;
	int fd;

	if (attr_known > 0)
		return open_attr(&attr);
	if (attr_known < 0)
		return -1;
	if (by.set) {	/* PMCSHIM_SAMPLE=EVENT@PERIOD */
		events_attr(&by.event, &a);
		a.disabled = 1;
		a.sample_period = by.period;
		text_copy(event_name, sizeof(event_name), by.event.name);
		fd = open_attr(&a);
	} else {
		/* cycles where there is a PMU, at hz per second of CPU on average */
		events_attr(&(struct event_spec){ .type = PERF_TYPE_HARDWARE,
						  .config = PERF_COUNT_HW_CPU_CYCLES,
						  .exclude_kernel = 1 }, &a);
		a.disabled = 1;
		a.freq = 1;
		a.sample_freq = (uint64_t)hz;
		text_copy(event_name, sizeof(event_name), "cycles");
		if (time_only || (fd = open_attr(&a)) < 0) {
			/* task-clock: a sample every 1/hz s of the thread's CPU time */
			a.type = PERF_TYPE_SOFTWARE;
			a.config = PERF_COUNT_SW_TASK_CLOCK;
			a.freq = 0;
			a.sample_period = 1000000000u / (uint64_t)hz;
			text_copy(event_name, sizeof(event_name), "task-clock");
			fd = time_only ? open_all_time(&a) : open_attr(&a);
		}
	}
	if (fd < 0) {
		attr_known = -1;
		log_error("sampling: perf_event_open(%s): %s; not sampling", event_name,
			  strerror(errno));
		return -1;
	}
	attr = a;
	attr_known = 1;
	return fd;
}

/* Signal the calling thread with our signal at each overflow. */
static int route(int fd)
{
	struct f_owner_ex owner = { .type = F_OWNER_TID, .pid = (pid_t)syscall(SYS_gettid) };
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 || fcntl(fd, F_SETOWN_EX, &owner) != 0 ||
	       fcntl(fd, F_SETSIG, sample_signal) != 0 ||
	       fcntl(fd, F_SETFL, fl | O_ASYNC) != 0 ? -1 : 0;
}

/* The counters a sample reads (rf_sample_values): the thread's open
 * events when every one reads from user space and none is multiplexed
 * (a read() per sample would cost a system call each, and multiplexed
 * counts would need scaling per sample); else none. */
static void choose_values(struct sampler *s)
{
	const struct region_state *rs = shim_tls.regions;
	const struct counters *c = rs ? rs->counters : NULL;

	s->ctr = NULL;
	s->nvalues = 0;
	s->have_last = 0;
	if (!c || c->broken || !c->all_user || c->multiplexed || c->nopen <= 0 ||
	    c->nopen > RF_EVENTS_MAX)
		return;
	s->ctr = c;
	s->nvalues = c->nopen;
}

static struct rf_samples *table(uint32_t thread, int nvalues)
{
	uint32_t nslots = syscall(SYS_gettid) == getpid() ? SAMPLE_SLOTS_MAIN : SAMPLE_SLOTS;
	uint32_t slot_size = (uint32_t)(sizeof(struct rf_sample_slot) + SAMPLE_DEPTH * 8 +
					(size_t)nvalues * 8);
	struct rf_samples *r = mapfile_append(RF_SAMPLES,
					      sizeof(*r) + (size_t)nslots * slot_size);

	if (!r)
		return NULL;
	r->thread = thread;
	r->nslots = nslots;
	r->depth = SAMPLE_DEPTH;
	r->slot_size = slot_size;
	r->event_type = attr.type;
	r->event_config = attr.config;
	r->period = attr.freq ? 0 : attr.sample_period;
	text_copy(r->event_name, sizeof(r->event_name), event_name);
	mapfile_publish(r);
	return r;
}

void sample_thread_start(uint32_t thread)
{
	struct sampler *s = &sample_tls;
	int fd;

	s->fd = -1;
	s->reg = -1;
	s->armed = 0;
	if (!hz || !sample_signal || __atomic_load_n(&sample_stopped, __ATOMIC_ACQUIRE))
		return;
	/* what the handler's walk needs, looked up here, not there */
	fpwalk_thread_init();
	codemap_lookup((uintptr_t)sample_thread_start);
	/* the modules loaded now, in the file (the first note records them all) */
	{
		uintptr_t self = (uintptr_t)sample_thread_start;

		modules_note(&self, 1);
	}
	if ((fd = open_event()) < 0)
		return;
	fd = fds_move_high(fd);
	choose_values(s);
	if (route(fd) != 0 || !(s->rec = table(thread, s->nvalues))) {
		close(fd);
		return;
	}
	fds_own(fd);
	s->mask = s->rec->nslots - 1;
	s->reg = reg_add(fd, s->rec);
	s->fd = fd;
	s->armed = 1;
	if (__atomic_load_n(&sample_stopped, __ATOMIC_ACQUIRE))
		s->armed = 0;	/* stopped meanwhile: never armed */
	else
		ioctl(fd, PERF_EVENT_IOC_REFRESH, 1);
}

/* The calling thread's event off, and its signal if one is pending
 * taken (the handler, with armed 0, does not re-arm). */
static void disarm(struct sampler *s)
{
	sigset_t one, was;

	s->armed = 0;
	if (s->fd < 0)
		return;
	ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
	sigemptyset(&one);
	sigaddset(&one, sample_signal);
	pthread_sigmask(SIG_UNBLOCK, &one, &was);	/* a pending one runs now */
	pthread_sigmask(SIG_SETMASK, &was, NULL);
}

/* The modules of the thread's sampled stacks recorded (those loaded
 * since it started: a reader names frames from the file's modules). */
static void note_modules(const struct sampler *s)
{
	int entered;

	if (!s->rec || !(entered = guard_enter()))
		return;
	for (uint32_t i = 0; i < s->rec->nslots; i++) {
		const struct rf_sample_slot *slot = (const void *)((const char *)(s->rec + 1) +
								   (size_t)i * s->rec->slot_size);

		if (__atomic_load_n(&slot->count, __ATOMIC_ACQUIRE))
			modules_note((const uintptr_t *)slot->pc, slot->nframes);
	}
	guard_leave();
}

void sample_thread_stop(void)
{
	struct sampler *s = &sample_tls;

	disarm(s);
	note_modules(s);
	if (s->fd < 0)
		return;
	reg_remove(s->reg);
	fds_close(s->fd);
	s->fd = -1;
	s->reg = -1;
}

void sample_end(void)
{
	disarm(&sample_tls);
	note_modules(&sample_tls);
}

void sample_resume(void)
{
	struct sampler *s = &sample_tls;

	if (s->fd < 0 || __atomic_load_n(&sample_stopped, __ATOMIC_ACQUIRE))
		return;
	s->armed = 1;
	ioctl(s->fd, PERF_EVENT_IOC_REFRESH, 1);
}

static int hide_tables(const struct rf_record *r, const void *arg)
{
	(void)arg;
	if (r->type == RF_SAMPLES)
		mapfile_hide((struct rf_record *)r);
	return 0;
}

void sample_after_fork(uint32_t thread)
{
	struct sampler *s = &sample_tls;

	if (!hz || !sample_signal)
		return;
	/* the parent's events: closed here (the parent keeps its own) */
	for (int i = 0; i < REGISTRY_MAX; i++) {
		int fd = reg_fd[i] - 1;

		if (fd >= 0)
			fds_close(fd);
		reg_fd[i] = 0;
		reg_rec[i] = NULL;
	}
	s->fd = -1;
	mapfile_find(hide_tables, NULL);
	sample_thread_start(thread);
}
