/* The launcher's own count of the whole command, as perf stat makes it:
 * one counter per event opened on the command's process between its fork
 * and its exec, inherited by every thread and process it starts, enabled
 * by the exec, read once the command has been waited for. Whatever ends
 * the command (a signal to the launcher passed on, SIGKILL, a crash) the
 * counts are the kernel's, so the totals survive it; they go into the run
 * directory as .totals.PID (struct rf_job) for the reader. */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "counters/events.h"
#include "format/reportfile.h"

static uint64_t now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int open_on(const struct event_spec *s, pid_t pid, int exclude_kernel)
{
	struct perf_event_attr a;

	events_attr(s, &a);
	a.exclude_kernel = (unsigned)exclude_kernel;
	a.disabled = 1;
	a.inherit = 1;
	a.enable_on_exec = 1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

void launch_count_open(struct launch_count *c, const struct launch *l, pid_t pid)
{
	struct event_list list;
	char err[1024];
	struct rf_job *j = &c->job;

	memset(c, 0, sizeof(*c));
	memcpy(j->magic, RF_JOB_MAGIC, sizeof(j->magic));
	j->version = RF_JOB_VERSION;
	j->size = sizeof(*j);
	j->pid = (uint64_t)pid;
	j->launcher_pid = (uint64_t)getpid();
	j->rank = l->rank;
	gethostname(j->host, sizeof(j->host) - 1);
	snprintf(j->command, sizeof(j->command), "%s", l->argv[0]);
	if (!strcmp(l->events, "none"))
		return;
	events_parse_list(l->events, &list, err, sizeof(err));
	for (int i = 0; i < list.n && i < RF_EVENTS_MAX; i++) {
		struct rf_job_event *e = &j->ev[i];
		int fd = open_on(&list.ev[i], pid, list.ev[i].exclude_kernel);

		/* where the kernel is not for this user to count: user space */
		if (fd < 0 && (errno == EACCES || errno == EPERM) && !list.ev[i].exclude_kernel)
			fd = open_on(&list.ev[i], pid, 1);
		snprintf(e->name, sizeof(e->name), "%s", list.ev[i].name);
		if (fd < 0)
			snprintf(e->reason, sizeof(e->reason), "%s", strerror(errno));
		c->fd[i] = fd;
		j->nevents = (uint32_t)i + 1;
	}
}

void launch_count_started(struct launch_count *c)
{
	c->start_mono = now_ns(CLOCK_MONOTONIC);
	c->job.start_real_ns = now_ns(CLOCK_REALTIME);
}

static void read_event(int fd, struct rf_job_event *e)
{
	uint64_t v[3];

	if (fd < 0)
		return;
	if (read(fd, v, sizeof(v)) != (ssize_t)sizeof(v)) {
		snprintf(e->reason, sizeof(e->reason), "read: %s", strerror(errno));
		return;
	}
	e->value = v[0], e->enabled = v[1], e->running = v[2];
	e->status = RF_JOB_COUNTED;
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

/* The command was waited for (its status and rusage): read, close, write
 * DIR/.totals.PID. A file that cannot be written leaves the totals to the
 * processes' own (one line says so). */
void launch_count_end(struct launch_count *c, const struct launch *l, int status, int signo,
		      const struct rusage *ru)
{
	struct rf_job *j = &c->job;
	char path[PATH_MAX + 64];
	int fd;

	j->wall_ns = now_ns(CLOCK_MONOTONIC) - c->start_mono;
	j->end_real_ns = now_ns(CLOCK_REALTIME);
	j->exit_code = status, j->signo = signo;
	j->cpu_ns = tv_ns(ru->ru_utime) + tv_ns(ru->ru_stime);
	j->faults = (uint64_t)ru->ru_minflt + (uint64_t)ru->ru_majflt;
	for (uint32_t i = 0; i < j->nevents; i++) {
		read_event(c->fd[i], &j->ev[i]);
		if (c->fd[i] >= 0)
			close(c->fd[i]);
	}
	snprintf(path, sizeof(path), "%s/" LAUNCH_TOTALS "%ld", l->dir, (long)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, j, sizeof(*j)) != (ssize_t)sizeof(*j))
		fprintf(stderr, LAUNCHER ": %s: %s (the totals are the processes' own)\n", path,
			strerror(errno));
	if (fd >= 0)
		close(fd);
}
