/* Reading the report file: checks, the record walk, the site protocol,
 * and whether the process that writes a file still runs. */
#include "reportfile.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/arch.h"
#include "base/text.h"

_Static_assert(sizeof(struct rf_header) <= RF_HEADER_SIZE, "header fits its page");
_Static_assert(sizeof(struct rf_record) == 8, "record header");
_Static_assert(sizeof(struct rf_site) % 8 == 0, "site alignment");
_Static_assert(sizeof(struct rf_thread) % 8 == 0, "thread alignment");
_Static_assert(sizeof(struct rf_event) % 8 == 0, "event alignment");
_Static_assert(offsetof(struct rf_event, mode_note) == RF_EVENT_SIZE_V0, "event v0 size");
_Static_assert(offsetof(struct rf_event, per_thread) == RF_EVENT_SIZE_V1, "event v1 size");
_Static_assert(offsetof(struct rf_thread, begin_cpu_ns) == RF_THREAD_SIZE_V0, "thread v0 size");
_Static_assert(offsetof(struct rf_thread, calib_fn_calls) == RF_THREAD_SIZE_V1, "thread v1 size");
_Static_assert(offsetof(struct rf_thread, begin_faults) == RF_THREAD_SIZE_V2, "thread v2 size");
_Static_assert(offsetof(struct rf_thread, live_seq) == RF_THREAD_SIZE_V3, "thread v3 size");
_Static_assert(sizeof(struct rf_error) % 8 == 0, "error alignment");

static int fail(char *why, size_t len, const char *fmt, const char *arg)
{
	snprintf(why, len, fmt, arg);
	return -1;
}

static int check_header(struct rf_file *f, char *why, size_t whylen)
{
	const struct rf_header *h = (const struct rf_header *)f->base;
	uint64_t tail;

	if (f->size < 8 || memcmp(h->magic, RF_MAGIC, 8) != 0)
		return fail(why, whylen, "not a pmcshim report file%s", "");
	if (f->size < RF_HEADER_SIZE)
		return fail(why, whylen, "truncated: shorter than its header%s", "");
	if (h->version != RF_VERSION) {
		char v[16];
		snprintf(v, sizeof(v), "%u", h->version);
		return fail(why, whylen, "format version %s; this reader reads version 2", v);
	}
	if (h->header_size != RF_HEADER_SIZE)
		return fail(why, whylen, "corrupt header (header_size)%s", "");
	tail = __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE);
	if (tail < RF_HEADER_SIZE || tail % 8)
		return fail(why, whylen, "corrupt header (tail)%s", "");
	/* A killed process can leave tail past a file that never grew. */
	f->tail = tail < f->size ? tail : f->size & ~(uint64_t)7;
	f->h = h;
	return 0;
}

int rf_open_mem(const void *buf, size_t len, struct rf_file *f, char *why, size_t whylen)
{
	memset(f, 0, sizeof(*f));
	f->base = buf;
	f->size = len;
	return check_header(f, why, whylen);
}

/* Why a file that is not a regular one cannot be a report, by its kind. */
static const char *not_regular(mode_t mode)
{
	if (S_ISDIR(mode))
		return "is a directory";
	if (S_ISFIFO(mode))
		return "not a regular file (a named pipe)";
	if (S_ISSOCK(mode))
		return "not a regular file (a socket)";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "not a regular file (a device)";
	return "not a regular file";
}

int rf_map(const char *path, const void **base, size_t *len, int *fdp, char *why,
	   size_t whylen)
{
	struct stat st;
	void *p;
	int fd;

	/* Looked at before it is opened: opening a named pipe for reading
	 * waits for a writer, which may never come. */
	if (stat(path, &st) != 0)
		return fail(why, whylen, "%s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(why, whylen, "%s", not_regular(st.st_mode));
	/* (non-blocking all the same: the path may name a pipe by now) */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return fail(why, whylen, "%s", strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return fail(why, whylen, "%s", not_regular(st.st_mode));
	}
	if (st.st_size == 0) {
		close(fd);
		return fail(why, whylen, "empty file%s", "");
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return fail(why, whylen, "cannot map: %s", strerror(errno));
	}
	if (fdp)
		*fdp = fd;
	else
		close(fd);
	*base = p, *len = (size_t)st.st_size;
	return 0;
}

int rf_open(const char *path, struct rf_file *f, char *why, size_t whylen)
{
	const void *p;
	size_t len;

	memset(f, 0, sizeof(*f));
	if (rf_map(path, &p, &len, NULL, why, whylen) != 0)
		return -1;
	if (rf_open_mem(p, len, f, why, whylen) != 0) {
		munmap((void *)p, len);
		memset(f, 0, sizeof(*f));
		return -1;
	}
	f->mapped = 1;
#ifdef MADV_POPULATE_READ
	/* The reader reads every record: its pages mapped in one call, not
	 * one fault per 64 KiB (a hint: older kernels say EINVAL) */
	madvise((void *)p, (size_t)(f->tail < f->size ? f->tail : f->size), MADV_POPULATE_READ);
#endif
	return 0;
}

int rf_job_read(const char *path, struct rf_job *out, char *why, size_t whylen)
{
	/* (not blocking on a FIFO: not a regular file, rf_map says so) */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return 0;	/* rf_open says why */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	memset(out, 0, sizeof(*out));
	n = read(fd, out, sizeof(*out));
	close(fd);
	if (n < 8 || memcmp(out->magic, RF_JOB_MAGIC, 8) != 0)
		return 0;
	if (out->version != RF_JOB_VERSION || out->size != sizeof(*out) ||
	    n != (ssize_t)sizeof(*out) || out->nevents > RF_EVENTS_MAX)
		return fail(why, whylen, "a launcher's totals file%s, but damaged or of "
			    "another version", "");
	out->host[sizeof(out->host) - 1] = '\0';
	out->command[sizeof(out->command) - 1] = '\0';
	for (uint32_t e = 0; e < out->nevents; e++) {
		out->ev[e].name[sizeof(out->ev[e].name) - 1] = '\0';
		out->ev[e].reason[sizeof(out->ev[e].reason) - 1] = '\0';
	}
	return 1;
}

void rf_close(struct rf_file *f)
{
	if (f->mapped && f->base)
		munmap((void *)f->base, f->size);
	memset(f, 0, sizeof(*f));
}

/* The smallest size each type can have. */
static uint32_t min_size(uint16_t type)
{
	switch (type) {
	case RF_EVENT: return RF_EVENT_SIZE_V0;
	case RF_THREAD: return RF_THREAD_SIZE_V0;
	case RF_NAME: return sizeof(struct rf_name) + 1;
	case RF_STACK: return sizeof(struct rf_stack);
	case RF_MODULE: return sizeof(struct rf_module) + 1;
	case RF_SITE: return sizeof(struct rf_site);
	case RF_ERROR: return sizeof(struct rf_error);
	case RF_ORIGIN: return RF_ORIGIN_SIZE_V0;
	case RF_SAMPLES: return sizeof(struct rf_samples);
	case RF_SYS_RUN: return sizeof(struct rf_sys_run);
	case RF_SYS_ENTITY: return sizeof(struct rf_sys_entity);
	case RF_SYS_VALUES: return sizeof(struct rf_sys_values);
	case RF_SYS_INTERVAL: return sizeof(struct rf_sys_interval);
	case RF_SYS_END: return sizeof(struct rf_sys_end);
	default: return 0;
	}
}

const struct rf_record *rf_next(const struct rf_file *f, uint64_t *off, int *bad)
{
	uint64_t at = *off ? *off : RF_HEADER_SIZE;

	*bad = 0;
	while (at + sizeof(struct rf_record) <= f->tail) {
		const struct rf_record *r = (const void *)(f->base + at);
		uint32_t size = r->size, need = min_size(r->type);

		if (size < sizeof(*r) || size % 8 || size > f->tail - at ||
		    (need && size < need)) {
			*bad = 1;
			return NULL;
		}
		at += size;
		*off = at;
		if (__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) == 1 && need)
			return r;
		/* not done (writer busy or killed), or a type from a newer
		 * shim: skip it */
	}
	*off = at;
	return NULL;
}

int rf_site_read(const struct rf_site *s, uint64_t *calls, struct rf_stat *out, uint32_t max)
{
	uint64_t children;

	return rf_site_read_children(s, calls, &children, out, max);
}

int rf_site_read_children(const struct rf_site *s, uint64_t *calls, uint64_t *child_calls,
			  struct rf_stat *out, uint32_t max)
{
	uint32_t n = s->nvalues < max ? s->nvalues : max;

	/* A writer preempted mid-update holds the count odd for a time slice
	 * or more: spin, then yield, then sleep, for up to about a second. */
	for (int tries = 0; tries < 20000; tries++) {
		uint32_t seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);

		if (seq & 1) {
			if (tries > 10000)
				nanosleep(&(struct timespec){ 0, 100000 }, NULL);
			else if (tries > 100)
				sched_yield();
			continue;
		}
		*calls = __atomic_load_n(&s->calls, __ATOMIC_RELAXED);
		*child_calls = __atomic_load_n(&s->child_calls, __ATOMIC_RELAXED);
		for (uint32_t i = 0; i < n; i++) {
			out[i].incl = __atomic_load_n(&s->v[i].incl, __ATOMIC_RELAXED);
			out[i].excl = __atomic_load_n(&s->v[i].excl, __ATOMIC_RELAXED);
			out[i].min = __atomic_load_n(&s->v[i].min, __ATOMIC_RELAXED);
			out[i].max = __atomic_load_n(&s->v[i].max, __ATOMIC_RELAXED);
			out[i].enabled = __atomic_load_n(&s->v[i].enabled, __ATOMIC_RELAXED);
			out[i].running = __atomic_load_n(&s->v[i].running, __ATOMIC_RELAXED);
		}
		rf_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) == seq)
			return 1;
	}
	/* The writer never finished: its process died inside a marker. */
	*calls = s->calls;
	*child_calls = s->child_calls;
	memcpy(out, s->v, n * sizeof(*out));
	return 0;
}

uint32_t rf_state(const struct rf_header *h)
{
	return __atomic_load_n(&h->state, __ATOMIC_ACQUIRE);
}

uint32_t rf_thread_state(const struct rf_thread *t)
{
	return __atomic_load_n(&t->state, __ATOMIC_ACQUIRE);
}

static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	syscall(SYS_close, fd);	/* (in the shim close() is its own, watching the
				 * application's descriptors: not this one) */
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

int rf_boot_id(char *out, size_t len)
{
	if (read_small("/proc/sys/kernel/random/boot_id", out, len) != 0) {
		out[0] = '\0';
		return -1;
	}
	/* (by hand: strcspn would page in libc's code for it at every start) */
	for (char *p = out; *p; p++)
		if (*p == '\n')
			*p = '\0';
	return 0;
}

static int same_boot(const struct rf_header *h)
{
	char id[64];

	return rf_boot_id(id, sizeof(id)) == 0 && h->boot_id[0] &&
	       strncmp(id, h->boot_id, sizeof(h->boot_id)) == 0;
}

int rf_proc_start(uint64_t pid, uint64_t *start)
{
	char path[64], buf[1024];
	size_t at = text_put_u64(path, text_put(path, 0, sizeof(path), "/proc/"), sizeof(path), pid);
	const char *p;
	int field = 2;

	path[text_put(path, at, sizeof(path), "/stat")] = '\0';
	if (read_small(path, buf, sizeof(buf)) != 0 || !(p = strrchr(buf, ')')))
		return -1;
	if (p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'))
		return -1;
	while (*p && field < 22)
		if (*p++ == ' ')
			field++;
	if (*p < '0' || *p > '9')
		return -1;
	/* by hand: sscanf would page in scanf's code at every process start */
	for (*start = 0; *p >= '0' && *p <= '9'; p++)
		*start = *start * 10 + (uint64_t)(*p - '0');
	return 0;
}

enum rf_liveness rf_liveness(const struct rf_header *h)
{
	uint64_t start;

	if (rf_state(h) != RF_RUNNING)
		return RF_GONE;
	if (!same_boot(h))
		return h->boot_id[0] ? RF_GONE : RF_UNKNOWN;
	if (rf_proc_start(h->pid, &start) != 0 || start != h->proc_start)
		return RF_GONE;
	return RF_LIVE;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double rf_ticks_per_ns(const struct rf_header *h)
{
	uint64_t mono, ticks;

	if (rf_state(h) != RF_RUNNING && h->ticks_per_ns > 0)
		return h->ticks_per_ns;
	/* The tick counter runs at one rate for the whole machine (invariant
	 * TSC, the arm64 generic timer): on the same boot our own sample
	 * against the file's start calibrates it. */
	if (strcmp(h->clock_source, ARCH_TICKS_NAME) != 0 || !same_boot(h))
		return 0;
	mono = mono_ns();
	ticks = arch_ticks();
	if (mono <= h->start_mono_ns + 1000000 || ticks <= h->start_ticks)
		return 0;
	return (double)(ticks - h->start_ticks) / (double)(mono - h->start_mono_ns);
}

const char *rf_state_name(uint32_t state)
{
	switch (state) {
	case RF_RUNNING: return "running";
	case RF_EXITED: return "exited";
	case RF_EXECED: return "exec";
	case RF_QUICK_EXIT: return "_exit";
	default: return "?";
	}
}

const char *rf_error_name(uint32_t kind)
{
	static const char *const names[RF_ERR_KINDS] = {
		[RF_ERR_END_MISMATCH] = "end-mismatch",
		[RF_ERR_END_UNOPENED] = "end-unopened",
		[RF_ERR_OPEN_AT_EXIT] = "open-at-exit",
		[RF_ERR_REENTRANT] = "reentrant",
		[RF_ERR_TOO_DEEP] = "too-deep",
		[RF_ERR_RESYNC] = "closed-by-resync",
	};
	return kind < RF_ERR_KINDS ? names[kind] : "?";
}

const char *rf_source_name(const struct rf_header *h, uint32_t source)
{
	switch (source) {
	case RF_SOURCE_USER:
		return h->user_read[0] ? h->user_read : "user";
	case RF_SOURCE_READ: return "read";
	default: return "unavailable";
	}
}

const char *rf_stack_method_name(uint32_t method)
{
	switch (method) {
	case RF_STACK_CALLER: return "caller";
	case RF_STACK_FP: return "frame-pointer";
	case RF_STACK_UNWIND: return "libunwind";
	case RF_STACK_TABLES: return "unwind-tables";
	default: return "?";
	}
}

const char *rf_from_name(uint32_t source)
{
	static const char *const names[RF_FROM_KINDS] = { "markers", "functions", "openmp", "mpi",
							  "likwid", "papi", "nvtx" };

	return source < RF_FROM_KINDS ? names[source] : NULL;
}
