/* perf_event_open for the calling thread (pid 0, any cpu), user space only
 * unless asked otherwise, all events in one group so they count together. */
#include "counters.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fds.h"

#define READ_FORMAT (PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | \
		     PERF_FORMAT_TOTAL_TIME_RUNNING)

const char *counters_source_name(enum event_source s)
{
	switch (s) {
	case SOURCE_USER:
#if defined(__aarch64__)
		return "mrs";
#else
		return "rdpmc";
#endif
	case SOURCE_READ:
		return "read";
	default:
		return "unavailable";
	}
}

/* Errors that every thread of the process would meet again. */
static int permanent_error(int err)
{
	return err == ENOENT || err == EOPNOTSUPP || err == EACCES ||
	       err == EPERM || err == EINVAL || err == ENOSYS || err == ENODEV;
}

static int read_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = -99;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -99;
		fclose(f);
	}
	return v;
}

static void explain(struct event_status *st, const struct event_spec *ev, int err)
{
	const char *hint;
	char buf[96];

	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		hint = ev->type == PERF_TYPE_RAW ? "this CPU has no such raw event"
			: "no hardware PMU visible to this kernel (VM or container?)";
		break;
	case EACCES:
	case EPERM:
		snprintf(buf, sizeof(buf), "not allowed with kernel.perf_event_paranoid=%d;"
			 " lower it or grant CAP_PERFMON", read_paranoid());
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
	snprintf(st->reason, sizeof(st->reason), "%s: %s",
		 strerrorname_np(err) ? strerrorname_np(err) : "error", hint);
}

static int open_one(const struct event_spec *ev, int group)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = ev->type;
	attr.config = ev->config;
	attr.exclude_kernel = ev->exclude_kernel ? 1 : 0;
	attr.exclude_hv = 1;
	attr.read_format = READ_FORMAT;
	return (int)syscall(SYS_perf_event_open, &attr, 0, -1, group,
			    PERF_FLAG_FD_CLOEXEC);
}

static int user_readable(const struct event_spec *ev)
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

void counters_open(struct counters *c, const struct event_list *ev,
		   struct event_status *status, int first)
{
	int saved = errno;

	memset(c, 0, sizeof(*c));
	c->n = ev->n;
	c->leader = -1;
	c->all_user = 1;
	for (int i = 0; i < ev->n; i++) {
		c->fd[i] = -1;
		c->slot[i] = -1;
		if (!first && status[i].source == SOURCE_UNAVAILABLE &&
		    permanent_error(status[i].err))
			continue;
		int fd = open_one(&ev->ev[i], c->leader);
		if (fd < 0) {
			if (first)
				explain(&status[i], &ev->ev[i], errno);
			continue;
		}
		fd = fds_move_high(fd);
		if (c->leader < 0)
			c->leader = fd;
		c->fd[i] = fd;
		c->slot[i] = c->nopen++;
		if (user_readable(&ev->ev[i]))
			c->page[i] = map_page(fd);
		if (!c->page[i])
			c->all_user = 0;
		if (first)
			status[i].source = c->page[i] ? SOURCE_USER : SOURCE_READ;
	}
	if (c->nopen == 0)
		c->all_user = 0;
	errno = saved;
}

void counters_close(struct counters *c)
{
	long size = sysconf(_SC_PAGESIZE);

	for (int i = 0; i < c->n; i++) {
		if (c->page[i])
			munmap(c->page[i], (size_t)size);
		if (c->fd[i] >= 0)
			close(c->fd[i]);
		c->page[i] = NULL;
		c->fd[i] = -1;
		c->slot[i] = -1;
	}
	c->nopen = 0;
	c->leader = -1;
	c->all_user = 0;
}

/* Layout of a PERF_FORMAT_GROUP read with both times. */
static int group_read(struct counters *c, uint64_t *buf, size_t words)
{
	int saved = errno;
	ssize_t want = (ssize_t)((3 + (size_t)c->nopen) * sizeof(uint64_t));
	ssize_t got;

	if (c->leader < 0 || words < 3 + (size_t)c->nopen)
		return -1;
	got = read(c->leader, buf, (size_t)want);
	errno = saved;
	return got == want && buf[0] == (uint64_t)c->nopen ? 0 : -1;
}

void counters_read_group(struct counters *c, uint64_t *vals)
{
	uint64_t buf[3 + EVENTS_MAX];

	/* The report may look at broken from another thread. */
	if (__atomic_load_n(&c->broken, __ATOMIC_RELAXED))
		return;
	if (group_read(c, buf, sizeof(buf) / sizeof(buf[0])) != 0) {
		__atomic_store_n(&c->broken, 1, __ATOMIC_RELAXED);
		return;
	}
	for (int i = 0; i < c->n; i++)
		if (c->slot[i] >= 0)
			vals[i] = buf[3 + c->slot[i]];
}

int counters_read_totals(struct counters *c, uint64_t *vals,
			 uint64_t *enabled, uint64_t *running)
{
	uint64_t buf[3 + EVENTS_MAX];

	if (group_read(c, buf, sizeof(buf) / sizeof(buf[0])) != 0)
		return -1;
	for (int i = 0; i < c->n; i++) {
		if (c->slot[i] < 0)
			continue;
		vals[i] = buf[3 + c->slot[i]];
		enabled[i] = buf[1];
		running[i] = buf[2];
	}
	return 0;
}
