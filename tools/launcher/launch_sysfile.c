/* The system report file: the header the region reports have (so that
 * every reader tool opens it), then RF_SYS_* records appended through a
 * shared mapping. The address space is reserved once and the file grows
 * under it a step at a time, so records never move. */
#include "system.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PMCSHIM_API_ONLY
#include "pmcshim.h"

#include "launch.h"

/* 1 GiB: a month of a busy machine's changed values at -I 1000. */
#define SYSFILE_RESERVE (UINT64_C(1) << 30)
#define SYSFILE_STEP (UINT64_C(1) << 20)

uint64_t sys_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The file's bound: SYSFILE_RESERVE, or PMCSHIM_TEST_SYSFILE_MAX bytes
 * (for the tests only: docs/man/pmcshim.1), so that a test fills it. */
static uint64_t bound(void)
{
	const char *v = getenv("PMCSHIM_TEST_SYSFILE_MAX");
	char *end;
	unsigned long long n = v ? strtoull(v, &end, 10) : 0;

	return v && *v && !*end && n >= 4096 && n < SYSFILE_RESERVE ? (uint64_t)n : SYSFILE_RESERVE;
}

static int grow(struct sysfile *f, uint64_t need)
{
	uint64_t size = f->size;

	while (size < need)
		size += SYSFILE_STEP;
	if (size > f->cap)
		size = f->cap;
	if (size < need || ftruncate(f->fd, (off_t)size) != 0)
		return -1;
	f->size = size;
	return 0;
}

static void fill_header(struct rf_header *h, int argc, char **argv, uint32_t nevents)
{
	size_t at = 0;

	memcpy(h->magic, RF_MAGIC, sizeof(h->magic));
	h->version = RF_VERSION;
	h->header_size = RF_HEADER_SIZE;
	h->flags = RF_SYSTEM;
	h->pid = (uint64_t)getpid();
	h->ppid = (uint64_t)getppid();
	rf_proc_start(h->pid, &h->proc_start);
	rf_boot_id(h->boot_id, sizeof(h->boot_id));
	h->start_real_ns = clock_ns(CLOCK_REALTIME);
	h->start_mono_ns = clock_ns(CLOCK_MONOTONIC);
	h->nevents = nevents;
	snprintf(h->clock_source, sizeof(h->clock_source), "boottime");
	snprintf(h->shim_version, sizeof(h->shim_version), "%s", PMCSHIM_VERSION);
	gethostname(h->host, sizeof(h->host) - 1);
	snprintf(h->executable, sizeof(h->executable), LAUNCHER);
	for (int i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]) + 1;

		if (at + n > sizeof(h->argv)) {
			h->argv_truncated = 1;
			break;
		}
		memcpy(h->argv + at, argv[i], n);
		at += n;
		h->argc++;
	}
}

int sysfile_create(struct sysfile *f, const char *path, const struct event_list *ev,
		   char reason[][200], int argc, char **argv)
{
	memset(f, 0, sizeof(*f));
	f->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (f->fd < 0) {
		fprintf(stderr, LAUNCHER ": %s: %s\n", path, strerror(errno));
		return -1;
	}
	f->cap = bound();
	f->base = mmap(NULL, SYSFILE_RESERVE, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, 0);
	if (f->base == MAP_FAILED || grow(f, RF_HEADER_SIZE) != 0) {
		fprintf(stderr, LAUNCHER ": %s: cannot map it: %s\n", path, strerror(errno));
		close(f->fd);
		return -1;
	}
	f->h = (struct rf_header *)f->base;
	f->tail = RF_HEADER_SIZE;
	fill_header(f->h, argc, argv, (uint32_t)ev->n);
	f->h->tail = f->tail;
	for (int i = 0; i < ev->n; i++) {
		struct rf_event *e = sysfile_append(f, RF_EVENT, sizeof(*e));

		e->index = (uint32_t)i;
		e->type = ev->ev[i].type;
		e->config = ev->ev[i].config;
		e->exclude_kernel = (uint32_t)ev->ev[i].exclude_kernel;
		e->source = reason[i][0] ? RF_SOURCE_UNAVAILABLE : RF_SOURCE_READ;
		snprintf(e->name, sizeof(e->name), "%s", ev->ev[i].name);
		snprintf(e->reason, sizeof(e->reason), "%s", reason[i]);
		sysfile_publish(f, e);
	}
	__atomic_store_n(&f->h->state, RF_RUNNING, __ATOMIC_RELEASE);
	return 0;
}

void *sysfile_append(struct sysfile *f, uint16_t type, size_t size)
{
	uint32_t n = rf_align(size);
	struct rf_record *r;

	if (f->tail + n > f->size && grow(f, f->tail + n) != 0) {
		if (!(f->h->flags & RF_FULL))	/* said once, when it happens */
			fprintf(stderr, LAUNCHER ": --system: the report reached its bound (%llu "
				"bytes): what is counted from now on is not recorded\n",
				(unsigned long long)f->cap);
		f->h->flags |= RF_FULL;
		__atomic_fetch_add(&f->h->dropped[RF_DROP_FULL], 1, __ATOMIC_RELAXED);
		return NULL;
	}
	r = (struct rf_record *)(f->base + f->tail);
	memset(r, 0, n);
	r->size = n;
	r->type = type;
	f->tail += n;
	/* the reader stops at tail: the record is there, not yet done */
	__atomic_store_n(&f->h->tail, f->tail, __ATOMIC_RELEASE);
	return r;
}

void sysfile_publish(struct sysfile *f, void *rec)
{
	(void)f;
	__atomic_store_n(&((struct rf_record *)rec)->done, 1, __ATOMIC_RELEASE);
}

void sysfile_finish(struct sysfile *f)
{
	f->h->end_real_ns = clock_ns(CLOCK_REALTIME);
	f->h->end_mono_ns = clock_ns(CLOCK_MONOTONIC);
	__atomic_store_n(&f->h->state, RF_EXITED, __ATOMIC_RELEASE);
	msync(f->base, f->tail, MS_ASYNC);
	/* the file ends at the last record, not at the step it grew to */
	if (ftruncate(f->fd, (off_t)f->tail) != 0)
		fprintf(stderr, LAUNCHER ": --system: cannot trim the report: %s\n",
			strerror(errno));
	munmap(f->base, SYSFILE_RESERVE);
	close(f->fd);
}
