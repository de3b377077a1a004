/* perf_event_open for the calling thread (pid 0, any cpu), in the mode
 * each event asks for (events.c), all events in one group so they count
 * together. Once a group with a software event has its members in, its
 * leader is disabled and enabled again: a software member added to a group
 * already counting counts nothing until the thread is next scheduled in
 * (seen on 6.18: a task-clock group's context-switches missing the first
 * switch), and the enable schedules the whole group at once. Hardware-only
 * groups are left alone (the guest's exact read() counts came out off after
 * the toggle). The leader is not opened disabled instead: arm64 does not
 * count a disabled leader when it checks that a group fits its counters,
 * so a group one event too big would be taken and then never scheduled. */
#include "counters.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/fds.h"
#include "base/text.h"

#define READ_FORMAT (PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | \
		     PERF_FORMAT_TOTAL_TIME_RUNNING)

/* Errors that every thread of the process would meet again. */
static int permanent_error(int err)
{
	return err == ENOENT || err == EOPNOTSUPP || err == EACCES ||
	       err == EPERM || err == EINVAL || err == ENOSYS || err == ENODEV;
}

static int read_int_file(const char *path);
static int open_one(const struct event_spec *ev, int user_only, int group);

static void explain(struct event_status *st, const struct event_spec *ev, int err);

/* Whether the kernel shows a PMU at all: one of the events every PMU
 * counts opens (and is closed at once). Tells "no PMU" (a VM) from "the
 * PMU has no such event" (an emulated PMU with a few events). The first
 * refusal's errno in *err (0 when one opened). */
static int probe_pmu(int *err)
{
	static const uint64_t any[] = { PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS };
	static int known = -1;	/* a PMU does not come or go: asked once */
	static int first_err;
	struct event_spec ev = { .type = PERF_TYPE_HARDWARE, .exclude_kernel = 1 };

	for (size_t i = 0; known < 0 && i < sizeof(any) / sizeof(any[0]); i++) {
		int fd;

		ev.config = any[i];
		if ((fd = open_one(&ev, 1, -1)) >= 0) {
			close(fd);
			known = 1;
		} else if (!first_err) {
			first_err = errno;
		}
	}
	if (known < 0)
		known = 0;
	*err = known ? 0 : first_err;
	return known;
}

static int have_pmu(void)
{
	int err;

	return probe_pmu(&err);
}

int counters_pmu_counts(char *why, size_t len)
{
	int saved = errno, err;
	struct event_status st;
	struct event_spec ev = { .type = PERF_TYPE_HARDWARE,
				 .config = PERF_COUNT_HW_INSTRUCTIONS };

	if (probe_pmu(&err))
		return 1;
	explain(&st, &ev, err);
	text_copy(why, len, st.reason);
	errno = saved;
	return 0;
}

static void explain(struct event_status *st, const struct event_spec *ev, int err)
{
	const char *hint;
	char buf[96];
	size_t at;

	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (ev->type == PERF_TYPE_RAW)
			hint = "this CPU has no such raw event";
		else if (ev->type == PERF_TYPE_SOFTWARE)
			hint = "this kernel has no such software event";
		else if (have_pmu())
			hint = "this CPU's PMU does not count it";
		else
			hint = "no hardware PMU visible to this kernel (VM or container?)";
		break;
	case EACCES:
	case EPERM:
		snprintf(buf, sizeof(buf), "not allowed with kernel.perf_event_paranoid=%d;"
			 " lower it or grant CAP_PERFMON",
			 read_int_file("/proc/sys/kernel/perf_event_paranoid"));
		hint = buf;
		break;
	case EINVAL:
		hint = "not valid for this CPU or kernel";
		break;
	case EMFILE:
	case ENFILE:
		hint = "out of file descriptors";
		break;
	case ENOSYS:
		hint = "perf_event_open is not available (seccomp or kernel config)";
		break;
	default:
		hint = "perf_event_open failed";
		break;
	}
	st->source = SOURCE_UNAVAILABLE;
	st->err = err;
	at = text_put(st->reason, 0, sizeof(st->reason),
		      strerrorname_np(err) ? strerrorname_np(err) : "error");
	at = text_put(st->reason, at, sizeof(st->reason), ": ");
	st->reason[text_put(st->reason, at, sizeof(st->reason), hint)] = '\0';
}

#if defined(__aarch64__)
static int user_access_sysctl(void);
static int narrow_only;		/* a 64-bit user counter was refused once */
#endif

static int open_one(const struct event_spec *ev, int user_only, int group)
{
	struct perf_event_attr attr;

	events_attr(ev, &attr);
	if (user_only)
		attr.exclude_kernel = 1;
	attr.read_format = READ_FORMAT;
#if defined(__aarch64__)
	/* arm64 lets user space read a counter only when asked (config1
	 * bit 1) and only while kernel.perf_user_access allows it; bit 0
	 * asks for a 64-bit counter, which a marker reads with no sign
	 * extension and whose page no overflow rewrites (counters_wide).
	 * Without FEAT_PMUv3p5 the kernel refuses that for a user-read event
	 * (but the cycle counter's): open a 32-bit one then. */
	if (ev->type != PERF_TYPE_SOFTWARE && user_access_sysctl() == 1) {
		int fd;

		attr.config1 |= 0x2;
		if (!__atomic_load_n(&narrow_only, __ATOMIC_RELAXED) && !(ev->config1 & 0x1)) {
			attr.config1 |= 0x1;
			fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, group,
					  PERF_FLAG_FD_CLOEXEC);
			if (fd >= 0)
				return fd;
			attr.config1 &= ~(uint64_t)0x1;
			fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, group,
					  PERF_FLAG_FD_CLOEXEC);
			if (fd >= 0)	/* the PMU has no 64-bit user counters */
				__atomic_store_n(&narrow_only, 1, __ATOMIC_RELAXED);
			return fd;
		}
	}
#endif
	return (int)syscall(SYS_perf_event_open, &attr, 0, -1, group,
			    PERF_FLAG_FD_CLOEXEC);
}

static int read_int_file(const char *path)
{
	FILE *f = fopen(path, "re");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

#if defined(__aarch64__)
/* 1 when user-space counter reads are allowed, -1 if unknown. Read once,
 * by the constructor's thread, before any other thread exists. */
static int user_access_sysctl(void)
{
	static int cached = -2;

	if (cached == -2)
		cached = read_int_file("/proc/sys/kernel/perf_user_access");
	return cached;
}
#endif

const char *counters_user_read_hint(void)
{
#if defined(__aarch64__)
	if (user_access_sysctl() == 0)
		return "user-space counter reads are off (kernel.perf_user_access=0): "
		       "every marker makes a read() syscall; "
		       "'sysctl kernel.perf_user_access=1' enables the fast path";
#elif defined(__x86_64__)
	if (read_int_file("/sys/bus/event_source/devices/cpu/rdpmc") == 0)
		return "rdpmc is off (/sys/bus/event_source/devices/cpu/rdpmc=0): "
		       "every marker makes a read() syscall; "
		       "'echo 1 > /sys/bus/event_source/devices/cpu/rdpmc' enables the fast path";
#endif
	return NULL;
}

int counters_user_readable(const struct event_spec *ev)
{
	return ARCH_HAS_USER_PMC && ev->type != PERF_TYPE_SOFTWARE;
}

/* Map the event's control page; keep it only if it allows user reads. */
static struct perf_event_mmap_page *map_page(int fd)
{
	long size = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *p;

	p = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (!p->cap_user_rdpmc) {
		munmap(p, (size_t)size);
		return NULL;
	}
	return p;
}

static void add_to_group(struct counters *c, int i, int fd, int new_group)
{
	int g;

	if (new_group) {
		g = c->ngroups++;
		c->leader[g] = fd;
		c->leader_event[g] = i;
		c->size[g] = 0;
	} else {
		g = c->ngroups - 1;
	}
	c->group[i] = g;
	c->slot[i] = c->size[g]++;
	c->fd[i] = fd;
	c->value[i] = c->nopen;
	c->open[c->nopen++] = i;
}

/* Whether every CPU has the same counters: at most one PMU that names
 * its CPUs ("cpus": arm64's PMUs, x86's hybrid cpu_core and cpu_atom).
 * Wide reads rely on it (counters_read_snaps). Looked up once, with
 * system calls alone: the first may come from a marker in a signal
 * handler (no opendir, which allocates). */
struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static int count_cpu_pmus(int dir)
{
	char buf[2048], path[300];
	long got;
	int n = 0;

	while ((got = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
		for (long at = 0; at < got;) {
			const struct linux_dirent64 *e = (const void *)(buf + at);

			path[text_put(path, text_put(path, 0, sizeof(path), e->d_name),
				      sizeof(path), "/cpus")] = '\0';
			n += e->d_name[0] != '.' && faccessat(dir, path, F_OK, 0) == 0;
			at += e->d_reclen;
		}
	}
	return got < 0 ? -1 : n;
}

static int one_kind_of_cpu(void)
{
	static int known;	/* 1 one kind, 2 more (or unknown) */
	int k = __atomic_load_n(&known, __ATOMIC_RELAXED);

	if (k == 0) {
		int saved = errno, n = -1;
		int dir = open("/sys/bus/event_source/devices", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (dir >= 0) {
			n = count_cpu_pmus(dir);
			close(dir);
		}
		k = n >= 0 && n <= 1 ? 1 : 2;
		errno = saved;
		__atomic_store_n(&known, k, __ATOMIC_RELAXED);
	}
	return k == 1;
}

/* Snapshots of every page, for the markers' reads; -1 (and marked for
 * another try at the next marker) when a page refuses. */
static int retake(struct counters *c)
{
	int wide = c->nfast > 0 && c->ngroups == 1 && !(c->slow & COUNTERS_SLOW_READ);

	c->slow &= ~COUNTERS_SLOW_SNAP;
	c->wide = 0;
	for (int k = 0; k < c->nfast; k++) {
		if (!selfread_snap_take(&c->fast[k], c->page[c->open[k]])) {
			c->slow |= COUNTERS_SLOW_SNAP;
			return -1;
		}
		c->fast[k].idx = arch_pmc_slot(c->fast[k].idx);	/* the reads' form */
		if (c->fast[k].shift != 0)
			wide = 0;
	}
	c->wide = wide && one_kind_of_cpu();
	return 0;
}

/* In the current group, else (the PMU cannot schedule them together) a
 * group of its own. */
static int open_any_group(const struct counters *c, const struct event_spec *ev,
			  int user_only, int *new_group)
{
	int fd = open_one(ev, user_only, c->ngroups ? c->leader[c->ngroups - 1] : -1);

	*new_group = c->ngroups == 0;
	if (fd < 0 && c->ngroups && (errno == EINVAL || errno == ENOSPC)) {
		fd = open_one(ev, user_only, -1);
		*new_group = 1;
	}
	return fd;
}

static int has_software(const struct counters *c, const struct event_list *ev, int g)
{
	for (int i = 0; i < c->n; i++)
		if (c->group[i] == g && ev->ev[i].type == PERF_TYPE_SOFTWARE)
			return 1;
	return 0;
}

static void restart_groups(const struct counters *c, const struct event_list *ev)
{
	for (int g = 0; g < c->ngroups; g++) {
		if (c->size[g] < 2 || !has_software(c, ev, g))
			continue;
		ioctl(c->leader[g], PERF_EVENT_IOC_DISABLE, 0);
		ioctl(c->leader[g], PERF_EVENT_IOC_ENABLE, 0);
	}
}

/* Kernel mode asked for and not allowed (perf_event_paranoid): user
 * space may still be. */
static int kernel_refused(const struct event_spec *ev, int err)
{
	return !ev->exclude_kernel && (err == EACCES || err == EPERM);
}

void counters_open(struct counters *c, const struct event_list *ev,
		   struct event_status *status, int first)
{
	counters_open_some(c, ev, status, first, ~0u);
}

void counters_open_some(struct counters *c, const struct event_list *ev,
			struct event_status *status, int first, uint32_t which)
{
	int saved = errno;

	memset(c, 0, sizeof(*c));
	c->n = ev->n;
	c->all_user = 1;
	for (int i = 0; i < ev->n; i++) {
		c->fd[i] = -1;
		c->group[i] = -1;
		c->value[i] = -1;
		if (!(which >> i & 1))
			continue;
		if (!first && status[i].source == SOURCE_UNAVAILABLE &&
		    permanent_error(status[i].err))
			continue;
		int new_group;
		int fd = open_any_group(c, &ev->ev[i], status[i].user_only, &new_group);
		if (fd < 0 && first && kernel_refused(&ev->ev[i], errno)) {
			explain(&status[i], &ev->ev[i], errno);
			fd = open_any_group(c, &ev->ev[i], 1, &new_group);
			status[i].user_only = fd >= 0;
		}
		if (fd < 0) {
			if (first)
				explain(&status[i], &ev->ev[i], errno);
			continue;
		}
		fd = fds_move_high(fd);
		if (ioctl(fd, PERF_EVENT_IOC_ID, &c->id[i]) != 0) {	/* (Linux >= 3.12) */
			if (first)
				explain(&status[i], &ev->ev[i], errno);
			syscall(SYS_close, fd);
			continue;
		}
		fds_own(fd);
		add_to_group(c, i, fd, new_group);
		if (counters_user_readable(&ev->ev[i]))
			c->page[i] = map_page(fd);
		if (!c->page[i])
			c->all_user = 0;
		if (first)
			status[i].source = c->page[i] ? SOURCE_USER : SOURCE_READ;
	}
	restart_groups(c, ev);
	if (c->nopen == 0)
		c->all_user = 0;
	c->multiplexed = c->ngroups > 1;
	c->nvalues = c->nopen;
	c->nfast = c->all_user ? c->nopen : 0;
	c->slow = !c->all_user && c->nopen > 0 ? COUNTERS_SLOW_READ : 0;
	retake(c);
	errno = saved;
}

/* Whether event i's descriptor still holds the event opened there. The
 * interposed close, dup2, close_range say when the application takes a
 * number; a raw syscall does not, and whatever it put there (a pipe, a
 * socket, another perf event) must be neither read nor closed: the
 * number must answer the id the kernel gave the event ('$' ioctls are
 * perf's alone; the id is unique for the kernel's lifetime). An event
 * that has its page mapped lives on without the descriptor: its
 * user-space reads need neither. (Another thread of the application can
 * still replace the descriptor between this check and the read or close
 * that follows: a window of one syscall.) */
static int still_ours(const struct counters *c, int i)
{
	int saved = errno;
	uint64_t id;
	int ours;

	ours = !fds_lost(c->fd[i]) && ioctl(c->fd[i], PERF_EVENT_IOC_ID, &id) == 0 &&
	       id == c->id[i];
	errno = saved;
	return ours;
}

void counters_close(struct counters *c)
{
	long size = sysconf(_SC_PAGESIZE);

	for (int i = 0; i < c->n; i++) {
		if (c->page[i])
			munmap(c->page[i], (size_t)size);
		if (c->fd[i] >= 0 && still_ours(c, i))
			fds_close(c->fd[i]);
		else if (c->fd[i] >= 0)
			fds_disown(c->fd[i]);
		c->page[i] = NULL;
		c->fd[i] = -1;
		c->group[i] = -1;
	}
	c->slow = COUNTERS_SLOW_READ;	/* reads give the held values now (marker_read) */
	c->nfast = 0;
	c->wide = 0;
	c->nopen = 0;
	c->ngroups = 0;
	c->all_user = 0;
}

void counters_disable(struct counters *c, int nvalues)
{
	counters_close(c);
	c->nvalues = nvalues;
	memset(c->held, 0, sizeof(c->held));
	memset(c->held_enabled, 0, sizeof(c->held_enabled));
	memset(c->held_running, 0, sizeof(c->held_running));
	__atomic_store_n(&c->broken, 1, __ATOMIC_RELAXED);
}

/* One PERF_FORMAT_GROUP read with both times: nr, enabled, running, then
 * a value per member. */
static int group_read(const struct counters *c, int g, uint64_t *buf)
{
	int saved = errno;
	ssize_t want = (ssize_t)((3 + (size_t)c->size[g]) * sizeof(uint64_t));
	ssize_t got;

	if (!still_ours(c, c->leader_event[g]))
		return -1;
	got = read(c->leader[g], buf, (size_t)want);

	errno = saved;
	return got == want && buf[0] == (uint64_t)c->size[g] ? 0 : -1;
}

/* Read every group; fn(arg, event, value, enabled, running) per event. */
static int read_groups(const struct counters *c,
		       void (*fn)(void *arg, int i, const uint64_t *buf), void *arg)
{
	uint64_t buf[EVENTS_MAX][3 + EVENTS_MAX];

	for (int g = 0; g < c->ngroups; g++)
		if (group_read(c, g, buf[g]) != 0)
			return -1;
	for (int i = 0; i < c->n; i++)
		if (c->group[i] >= 0)
			fn(arg, i, buf[c->group[i]]);
	return 0;
}

struct totals {
	const struct counters *c;
	uint64_t *vals, *enabled, *running;
};

/* Hot path: compact, one value per open event. */
static void take_compact(void *arg, int i, const uint64_t *buf)
{
	struct totals *t = arg;

	t->vals[t->c->value[i]] = buf[3 + t->c->slot[i]];
}

/* Markers of a multiplexed thread: compact, with the times. */
static void take_timed(void *arg, int i, const uint64_t *buf)
{
	struct totals *t = arg;
	int k = t->c->value[i];

	t->vals[k] = buf[3 + t->c->slot[i]];
	t->enabled[k] = buf[1];
	t->running[k] = buf[2];
}

/* Report: by event index, with the times. */
static void take_value(void *arg, int i, const uint64_t *buf)
{
	struct totals *t = arg;

	t->vals[i] = buf[3 + t->c->slot[i]];
	t->enabled[i] = buf[1];
	t->running[i] = buf[2];
}

void counters_read_slow(struct counters *c, uint64_t *vals)
{
	if (!(c->slow & COUNTERS_SLOW_READ) && retake(c) == 0 && counters_read_fast(c, vals))
		return;
	counters_read_group(c, vals);
}

/* A marker's read of every group: after one failure the counters are
 * broken for good (the exit path may look at that from another thread),
 * and every later marker takes this path (none reads a user-space value
 * again, which the held ones could trail). No group (closed, or disabled
 * in a fork child) is a failure too: the caller then gives the held
 * values. */
static int marker_read(struct counters *c, void (*fn)(void *arg, int i, const uint64_t *buf),
		       struct totals *t)
{
	if (c->ngroups && !__atomic_load_n(&c->broken, __ATOMIC_RELAXED) &&
	    read_groups(c, fn, t) == 0)
		return 0;
	__atomic_store_n(&c->broken, 1, __ATOMIC_RELAXED);
	c->slow |= COUNTERS_SLOW_READ;
	c->wide = 0;
	return -1;
}

/* A marker's read() into to, or the last one's values (held). */
static void hold(uint64_t *held, uint64_t *to, size_t n, int ok)
{
	if (ok)
		memcpy(held, to, n * sizeof(*to));
	else
		memcpy(to, held, n * sizeof(*to));
}

void counters_read_group(struct counters *c, uint64_t *vals)
{
	struct totals t = { c, vals, NULL, NULL };

	hold(c->held, vals, (size_t)c->nvalues, marker_read(c, take_compact, &t) == 0);
}

void counters_read_times(struct counters *c, uint64_t *vals, uint64_t *enabled,
			 uint64_t *running)
{
	struct totals t = { c, vals, enabled, running };
	int ok = marker_read(c, take_timed, &t) == 0;

	hold(c->held, vals, (size_t)c->nvalues, ok);
	hold(c->held_enabled, enabled, (size_t)c->nvalues, ok);
	hold(c->held_running, running, (size_t)c->nvalues, ok);
}

int counters_read_totals(struct counters *c, uint64_t *vals,
			 uint64_t *enabled, uint64_t *running)
{
	struct totals t = { c, vals, enabled, running };

	if (c->nopen == 0)
		return -1;
	return read_groups(c, take_value, &t);
}

/* Found again each time (another thread may ask at the process's end):
 * what the interposed calls saw, else what the numbers hold now. */
const char *counters_lost_reason(const struct counters *c)
{
	for (int i = 0; i < c->n; i++)
		if (c->fd[i] >= 0 && fds_lost(c->fd[i]))
			return "the application closed or replaced the counter's descriptor";
	for (int i = 0; i < c->n; i++)
		if (c->fd[i] >= 0 && !still_ours(c, i))
			return "the counter's descriptor holds another file (raw syscall)";
	return "reading the counters failed";
}
