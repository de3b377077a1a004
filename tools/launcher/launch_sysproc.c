/* --system's counters: one per event on each CPU (pid -1, cpu N), and one
 * per event on each thread of each process (cpu -1, inherit: the threads
 * it starts later count in the same counter). /proc is read again every
 * interval: a new process is followed from then on; one that ended keeps
 * its last values, and its counters are closed. */
#include "system.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* One event on (pid, cpu). Kernel mode refused (paranoid 2, no
 * capability): user space only from then on, as the shim does. */
static int open_event(struct systate *s, int i, pid_t pid, int cpu)
{
	const struct event_spec *ev = &s->ev.ev[i];
	struct perf_event_attr a = {
		.size = sizeof(a), .type = ev->type, .config = ev->config,
		.config1 = ev->config1, .config2 = ev->config2,
		.exclude_kernel = (unsigned)(ev->exclude_kernel || s->user_only[i]),
		.exclude_hv = 1, .inherit = pid > 0, .inherit_thread = pid > 0,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
	};
	int fd = perf_open(&a, pid, cpu);

	if (fd < 0 && errno == EINVAL && a.inherit_thread) {
		a.inherit_thread = 0;	/* before Linux 5.13: children count too */
		fd = perf_open(&a, pid, cpu);
	}
	if (fd < 0 && (errno == EACCES || errno == EPERM) && !a.exclude_kernel) {
		a.exclude_kernel = 1;
		if ((fd = perf_open(&a, pid, cpu)) >= 0)
			s->user_only[i] = 1;
	}
	return fd;
}

int sys_try(struct systate *s, int i, int cpu)
{
	int fd = open_event(s, i, -1, cpu);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int add_fds(struct sysent *e, int n)
{
	int *fd = realloc(e->fd, (size_t)(e->nfd + n) * sizeof(*fd));

	if (!fd)
		return -1;
	e->fd = fd;
	for (int k = 0; k < n; k++)
		fd[e->nfd + k] = -1;
	e->nfd += n;
	return 0;
}

int sys_open_cpu(struct systate *s, struct sysent *e)
{
	int opened = 0, base = e->nfd;

	if (add_fds(e, s->ev.n) != 0)
		return -1;
	for (int i = 0; i < s->ev.n; i++)
		if ((e->fd[base + i] = open_event(s, i, -1, (int)e->id)) >= 0)
			opened++;
	e->alive = opened > 0;
	return opened ? 0 : -1;
}

/* Each thread of the process: a counter on the process alone counts its
 * main thread and the threads started after it, not those already there. */
int sys_open_process(struct systate *s, struct sysent *e)
{
	char path[64];
	struct dirent *t;
	DIR *d;
	int opened = 0;

	snprintf(path, sizeof(path), "/proc/%llu/task", (unsigned long long)e->id);
	if (!(d = opendir(path)))
		return -1;
	while ((t = readdir(d))) {
		pid_t tid = (pid_t)atoi(t->d_name);
		int base = e->nfd;

		if (tid <= 0)
			continue;
		if (s->fd_budget < s->ev.n || add_fds(e, s->ev.n) != 0)
			break;
		for (int i = 0; i < s->ev.n; i++) {
			if ((e->fd[base + i] = open_event(s, i, tid, -1)) >= 0) {
				opened++;
				s->fd_budget--;
			}
		}
	}
	closedir(d);
	e->alive = opened > 0;
	return opened ? 0 : -1;
}

void sys_close(struct sysent *e)
{
	for (int k = 0; k < e->nfd; k++)
		if (e->fd[k] >= 0)
			close(e->fd[k]);
	free(e->fd);
	e->fd = NULL;
	e->nfd = 0;
	e->alive = 0;
}

void sys_read(const struct systate *s, const struct sysent *e, uint64_t *v)
{
	memset(v, 0, sizeof(*v) * EVENTS_MAX);
	for (int k = 0; k < e->nfd; k++) {
		uint64_t buf[3];

		if (e->fd[k] < 0 || read(e->fd[k], buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			continue;
		/* multiplexed (more hardware events than counters): scaled */
		if (buf[2] && buf[2] < buf[1])
			buf[0] = (uint64_t)((double)buf[0] * (double)buf[1] / (double)buf[2]);
		v[k % s->ev.n] += buf[0];
	}
}

struct sysent *sys_slot(struct systate *s, int scope, uint64_t id)
{
	struct sysent *e;

	if (s->nent == s->cent) {
		uint32_t c = s->cent ? 2 * s->cent : 256;
		struct sysent *n = realloc(s->ent, c * sizeof(*n));

		if (!n)
			return NULL;
		s->ent = n, s->cent = c;
	}
	e = &s->ent[s->nent++];
	memset(e, 0, sizeof(*e));
	e->scope = scope, e->id = id;
	e->last_busy = UINT64_MAX;
	return e;
}

void sys_record(struct systate *s, struct sysent *e, uint64_t start_ns, const char *command)
{
	struct rf_sys_entity *r;

	e->index = s->nindex++;
	if ((r = sysfile_append(&s->file, RF_SYS_ENTITY, sizeof(*r)))) {
		r->index = e->index, r->scope = (uint32_t)e->scope, r->id = e->id;
		r->start_ns = start_ns, r->seen_ns = sys_now_ns();
		snprintf(r->command, sizeof(r->command), "%s", command);
		sysfile_publish(&s->file, r);
	}
}

void sys_write_values(struct systate *s, struct sysent *e, uint64_t busy)
{
	uint64_t v[EVENTS_MAX], d[EVENTS_MAX];
	uint64_t db = busy == UINT64_MAX || e->last_busy == UINT64_MAX || busy < e->last_busy ?
		UINT64_MAX : busy - e->last_busy;
	int moved = db != UINT64_MAX && db != 0;
	struct rf_sys_values *r;

	sys_read(s, e, v);
	for (int i = 0; i < s->ev.n; i++) {
		d[i] = v[i] >= e->last[i] ? v[i] - e->last[i] : 0;
		moved |= d[i] != 0;
	}
	if (busy != UINT64_MAX)
		e->last_busy = busy;
	if (!moved)	/* an idle entity takes no room: the file grows with activity */
		return;
	r = sysfile_append(&s->file, RF_SYS_VALUES, sizeof(*r) + (size_t)s->ev.n * sizeof(r->v[0]));
	if (!r)
		return;
	r->interval = s->interval, r->entity = e->index, r->nvalues = (uint32_t)s->ev.n;
	r->busy_ns = db;
	memcpy(r->v, d, (size_t)s->ev.n * sizeof(d[0]));
	memcpy(e->last, v, sizeof(e->last));
	sysfile_publish(&s->file, r);
}

/* One read of /proc/PID/stat: the start time (field 22, which tells a
 * reused pid) and the CPU time (utime + stime, fields 14 and 15), parsed
 * by hand: every process, every interval. 0, or -1 when gone or a zombie
 * (its counts are final). */
static int proc_stat(uint64_t pid, uint64_t *start, uint64_t *cpu_ns)
{
	char path[64], buf[1024], *p;
	uint64_t f[23] = { 0 };
	ssize_t n;
	int fd, field = 4;

	snprintf(path, sizeof(path), "/proc/%llu/stat", (unsigned long long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (!(p = strrchr(buf, ')')) || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X')
		return -1;
	for (p += 4; *p && field <= 22; field++) {	/* from field 4 (3: the state) */
		while (*p == ' ')
			p++;
		for (; *p >= '0' && *p <= '9'; p++)
			f[field] = f[field] * 10 + (uint64_t)(*p - '0');
		while (*p && *p != ' ')
			p++;
	}
	if (field <= 22)
		return -1;
	*start = f[22];
	*cpu_ns = (f[14] + f[15]) * (1000000000u / (uint64_t)sysconf(_SC_CLK_TCK));
	return 0;
}

static void read_comm(uint64_t pid, char *out, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%llu/comm", (unsigned long long)pid);
	out[0] = '\0';
	if ((f = fopen(path, "re"))) {
		if (fgets(out, (int)len, f))
			out[strcspn(out, "\n")] = '\0';
		fclose(f);
	}
}

static struct sysent *find_process(struct systate *s, uint64_t pid, uint64_t start)
{
	for (uint32_t k = 0; k < s->nent; k++)
		if (s->ent[k].scope == RF_SCOPE_PROCESS && s->ent[k].id == pid &&
		    s->ent[k].proc_start == start)
			return &s->ent[k];
	return NULL;
}

/* A process found for the first time: followed from now, and then in
 * the file; one that no counter could follow is remembered (counted once,
 * never in the file) until it ends. */
static void follow(struct systate *s, uint64_t pid, uint64_t start, uint64_t cpu_ns)
{
	char path[64], comm[64];
	struct stat st;
	struct sysent *e;
	long tck = sysconf(_SC_CLK_TCK);

	snprintf(path, sizeof(path), "/proc/%llu", (unsigned long long)pid);
	if (s->own_only && (stat(path, &st) != 0 || st.st_uid != s->uid))
		return;
	if (!(e = sys_slot(s, RF_SCOPE_PROCESS, pid)))
		return;
	e->proc_start = start;
	e->cpu_ns = cpu_ns;
	e->seen = 1;
	if (sys_open_process(s, e) != 0) {
		uint64_t now, cpu;

		sys_close(e);
		e->refused = 1;
		/* one that ended meanwhile was not refused */
		if (proc_stat(pid, &now, &cpu) == 0 && now == start)
			s->unfollowed_total++;
		return;
	}
	read_comm(pid, comm, sizeof(comm));
	sys_record(s, e, start * (1000000000u / (uint64_t)tck), comm);
	e->last_busy = e->cpu_ns;
}

static void ended(struct systate *s, struct sysent *e, uint64_t end_ns)
{
	struct rf_sys_end *r;

	sys_write_values(s, e, UINT64_MAX);	/* the last counts */
	for (int k = 0; k < e->nfd; k++)
		s->fd_budget += e->fd[k] >= 0;
	sys_close(e);
	s->nended++;
	if ((r = sysfile_append(&s->file, RF_SYS_END, sizeof(*r)))) {
		r->entity = e->index, r->kind = RF_END_EXITED, r->at_ns = end_ns;
		sysfile_publish(&s->file, r);
	}
}

void sys_scan(struct systate *s, uint64_t end_ns)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	uint64_t start, cpu;

	for (uint32_t k = 0; k < s->nent; k++)
		s->ent[k].seen = 0;
	while (d && (de = readdir(d))) {
		uint64_t pid;
		struct sysent *e;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = strtoull(de->d_name, NULL, 10);
		if (proc_stat(pid, &start, &cpu) != 0)
			continue;	/* gone, or a zombie: its counts are final */
		if ((e = find_process(s, pid, start)))
			e->seen = 1, e->cpu_ns = cpu;
		else
			follow(s, pid, start, cpu);
	}
	if (d)
		closedir(d);
	/* the ended write their last values and leave the array: the
	 * launcher's memory and its work per interval follow the processes
	 * alive, not those it ever saw */
	s->followed = 0;
	for (uint32_t k = 0; k < s->nent;) {
		struct sysent *e = &s->ent[k];

		if (e->scope != RF_SCOPE_PROCESS || e->seen) {
			s->followed += e->scope == RF_SCOPE_PROCESS && e->alive;
			k++;
			continue;
		}
		if (e->alive)
			ended(s, e, end_ns);
		*e = s->ent[--s->nent];
	}
}
