/* pmcshim --system: the whole machine, per CPU and per process, every
 * interval into a system report (launch_sysfile.c; docs/report-format.md,
 * "System reports"), until --duration, the command's end or SIGINT.
 * CPU-wide counters need privilege (kernel.perf_event_paranoid <= 0,
 * CAP_PERFMON or CAP_SYS_ADMIN); without it the run says so in one line
 * and counts the user's own processes. */
#include "launch.h"
#include "system.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SYSTEM_DEFAULT_EVENTS "cpu-clock,context-switches,page-faults,instructions,cycles"
#define CPUS_MAX 4096
#define FD_RESERVE 64		/* kept for /proc, the report, the reader */

static volatile sig_atomic_t stop_signal, child_ended;

static void on_signal(int signo)
{
	if (signo == SIGCHLD)
		child_ended = 1;
	else
		stop_signal = signo;
}

/* -C LIST: "0,2-3". 0, or -1 after one line. */
static int parse_cpus(const char *list, unsigned char *on, int ncpus)
{
	const char *p = list;

	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p || a < 0)
			goto bad;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a)
				goto bad;
		}
		if (b >= ncpus) {
			fprintf(stderr, LAUNCHER ": -C '%s': CPU %ld: this machine has CPUs 0-%d\n",
				list, b, ncpus - 1);
			return -1;
		}
		for (long c = a; c <= b; c++)
			on[c] = 1;
		if (*end && *end != ',')
			goto bad;
		p = *end ? end + 1 : end;
	}
	return 0;
bad:
	fprintf(stderr, LAUNCHER ": -C '%s': want CPU numbers and ranges, as 0,2-3\n", list);
	return -1;
}

int launch_system_opt(struct system_opts *o, int c, const char *arg)
{
	char *end;
	double v;

	o->given = 1;
	if (c == 'C') {
		unsigned char on[CPUS_MAX] = { 0 };

		o->cpus = arg;
		return parse_cpus(arg, on, CPUS_MAX);
	}
	errno = 0;
	v = strtod(arg, &end);
	if (c == 'I') {
		if (errno || end == arg || *end || !(v >= 10 && v <= 3600000)) {
			fprintf(stderr, LAUNCHER ": -I '%s': want 10..3600000 ms\n", arg);
			return -1;
		}
		o->interval_ms = (long)v;
		return 0;
	}
	if (errno || end == arg || *end || !(v > 0 && v <= 31 * 86400.0)) {
		fprintf(stderr, LAUNCHER ": --duration '%s': want seconds, more than 0\n", arg);
		return -1;
	}
	o->duration = v;
	return 0;
}

/* As many descriptors as the hard limit allows (root's may raise it). */
static int raise_fd_limit(void)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) != 0)
		return 1024;
	r.rlim_cur = r.rlim_max;
	setrlimit(RLIMIT_NOFILE, &r);
	getrlimit(RLIMIT_NOFILE, &r);
	return r.rlim_cur > INT_MAX ? INT_MAX : (int)r.rlim_cur;
}

/* Whether cpu is online: read every interval. PMCSHIM_TEST_SYSFS, for
 * the tests only (docs/testing.md), stands for /sys there: a CPU can then
 * go offline and come back in a test without taking it from the machine. */
static int cpu_online(int cpu)
{
	static const char *sysfs;
	char path[PATH_MAX], c = '1';
	int fd;

	if (!sysfs && !(sysfs = getenv("PMCSHIM_TEST_SYSFS")))
		sysfs = "/sys";
	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/online", sysfs, cpu);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 1;	/* cpu0 often has no such file: always online */
	if (read(fd, &c, 1) != 1)
		c = '1';
	close(fd);
	return c == '1';
}

/* Busy ns of each CPU from /proc/stat (all but idle and iowait). */
static void cpu_busy(uint64_t *busy, int ncpus)
{
	char line[512];
	FILE *f = fopen("/proc/stat", "re");
	uint64_t per_tick = 1000000000u / (uint64_t)sysconf(_SC_CLK_TCK);

	for (int c = 0; c < ncpus; c++)
		busy[c] = UINT64_MAX;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long u, n, s, idle, io, irq, sirq, steal;
		int cpu;

		if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &u, &n, &s,
			   &idle, &io, &irq, &sirq, &steal) == 9 && cpu >= 0 && cpu < ncpus)
			busy[cpu] = (u + n + s + irq + sirq + steal) * per_tick;
	}
	if (f)
		fclose(f);
}

static void cpu_event(struct systate *s, struct sysent *e, uint32_t kind, uint64_t at_ns)
{
	struct rf_sys_end *r = sysfile_append(&s->file, RF_SYS_END, sizeof(*r));

	if (r) {
		r->entity = e->index, r->kind = kind, r->at_ns = at_ns;
		sysfile_publish(&s->file, r);
	}
}

/* The CPUs' values, and CPUs that went or came (said in the report and on
 * stderr, at end_ns: the interval's end, where a CPU's values stop or its
 * next interval's begin). Returns the CPUs online. */
static uint32_t cpus_interval(struct systate *s, int ncpus, uint64_t end_ns)
{
	uint64_t *busy = calloc((size_t)ncpus, sizeof(*busy));
	uint32_t online = 0;

	if (busy)
		cpu_busy(busy, ncpus);
	for (uint32_t k = 0; k < s->nent; k++) {
		struct sysent *e = &s->ent[k];
		int on = cpu_online((int)e->id);

		if (e->scope != RF_SCOPE_CPU)
			continue;
		online += (uint32_t)on;
		if (e->alive && !on) {
			sys_write_values(s, e, UINT64_MAX);
			sys_close(e);
			cpu_event(s, e, RF_END_OFFLINE, end_ns);
			fprintf(stderr, LAUNCHER ": --system: CPU %llu went offline\n",
				(unsigned long long)e->id);
		} else if (!e->alive && on && sys_open_cpu(s, e) == 0) {
			memset(e->last, 0, sizeof(e->last));	/* new counters start at 0 */
			cpu_event(s, e, RF_END_ONLINE, end_ns);
			fprintf(stderr, LAUNCHER ": --system: CPU %llu came online\n",
				(unsigned long long)e->id);
		} else if (e->alive) {
			sys_write_values(s, e, busy ? busy[e->id] : UINT64_MAX);
		}
	}
	free(busy);
	return online;
}

/* The CPUs count from here (the first /proc scan, which takes a while,
 * is before): their values and busy time now are the base. */
static void cpus_baseline(struct systate *s, int ncpus)
{
	uint64_t *busy = calloc((size_t)ncpus, sizeof(*busy));

	if (busy)
		cpu_busy(busy, ncpus);
	for (uint32_t k = 0; k < s->nent; k++) {
		struct sysent *e = &s->ent[k];

		if (e->scope != RF_SCOPE_CPU || !e->alive)
			continue;
		sys_read(s, e, e->last);
		e->last_busy = busy ? busy[e->id] : UINT64_MAX;
	}
	free(busy);
}

static void processes_interval(struct systate *s, uint64_t end_ns)
{
	sys_scan(s, end_ns);	/* the ended write their last values */
	s->unfollowed = 0;
	for (uint32_t k = 0; k < s->nent; k++) {
		struct sysent *e = &s->ent[k];

		if (e->scope == RF_SCOPE_PROCESS && e->alive)
			sys_write_values(s, e, e->cpu_ns);
	}
}

static void close_interval(struct systate *s, uint64_t start_ns, uint64_t end_ns,
			   uint32_t online)
{
	struct rf_sys_interval *r = sysfile_append(&s->file, RF_SYS_INTERVAL, sizeof(*r));

	s->followed_sum += s->followed;	/* (also once the file is full) */
	if (r) {
		r->index = s->interval, r->cpus_online = online;
		r->start_ns = start_ns, r->end_ns = end_ns;
		r->followed = s->followed;
		r->unfollowed = (uint32_t)(s->unfollowed_total > UINT32_MAX ? UINT32_MAX :
					   s->unfollowed_total);
		sysfile_publish(&s->file, r);
	}
	s->interval++;
}

/* The events, and why each one cannot count (opened once on the first
 * CPU asked for, or on this process, as the run will). Returns how many
 * can. */
static int probe_events(struct systate *s, int cpu, char reason[][200])
{
	int n = 0;

	for (int i = 0; i < s->ev.n; i++) {
		char why[200];
		int err = s->cpu_wide ? sys_try(s, i, cpu) : -1;
		int self = launch_why_not(s->ev.ev[i].name, why, sizeof(why));

		reason[i][0] = '\0';
		if (err == 0 || (err < 0 && self == 0))
			n++;
		else if (self != 0)	/* the shim's reason says why in words */
			snprintf(reason[i], 200, "%s", why);
		else
			snprintf(reason[i], 200, "CPU-wide: %s", strerror(err));
	}
	return n;
}

static int start_command(char **argv, pid_t *pid)
{
	if ((*pid = fork()) < 0) {
		fprintf(stderr, LAUNCHER ": fork: %s\n", strerror(errno));
		return -1;
	}
	if (*pid == 0) {
		signal(SIGCHLD, SIG_DFL);
		execvp(argv[0], argv);
		fprintf(stderr, LAUNCHER ": %s: %s\n", argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	return 0;
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);	/* no SA_RESTART: the sleep ends */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
}

/* Sleep until deadline (boottime ns), a signal or the command's end. */
static void wait_until(uint64_t deadline)
{
	struct timespec ts = { (time_t)(deadline / 1000000000u), (long)(deadline % 1000000000u) };

	while (!stop_signal && !child_ended &&
	       clock_nanosleep(CLOCK_BOOTTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int first_cpu(const unsigned char *on, int ncpus)
{
	for (int c = 0; c < ncpus; c++)
		if (on[c] && cpu_online(c))
			return c;
	return 0;
}

static int open_run(struct launch *l, struct systate *s, int ncpus, unsigned char *on)
{
	char reason[EVENTS_MAX][200], err[1024], path[PATH_MAX + 16];
	struct rf_sys_run *run;
	char **cmd = l->argv;
	static char *name[] = { "system", NULL };
	int rc;

	events_parse_list(l->events, &s->ev, err, sizeof(err));
	s->uid = getuid();
	s->cpu_wide = launch_cpu_wide_allowed();
	s->own_only = !s->cpu_wide;
	if (!s->cpu_wide)
		fprintf(stderr, LAUNCHER ": --system: per-CPU counters need kernel.perf_event_paranoid"
			" <= 0 or CAP_PERFMON (paranoid is %d, no capability): counting your own "
			"processes only\n", launch_paranoid());
	l->argv = name;		/* the run directory: pmcshim-system-TIME */
	rc = launch_find_tools(l) != 0 || launch_make_dir(l) != 0;
	l->argv = cmd;
	if (rc)
		return -1;
	if (probe_events(s, first_cpu(on, ncpus), reason) == 0) {
		fprintf(stderr, LAUNCHER ": --system: none of %s can count here (%s)\n", l->events,
			reason[0]);
		return -1;
	}
	for (int i = 0; i < s->ev.n; i++)	/* (a VM: the hardware events) */
		if (reason[i][0])
			fprintf(stderr, LAUNCHER ": --system: %s unavailable (%s); the others count\n",
				s->ev.ev[i].name, reason[i]);
	snprintf(path, sizeof(path), "%s/system.pmc", l->dir);
	if (sysfile_create(&s->file, path, &s->ev, reason, l->sys.argc, l->sys.argv) != 0)
		return -1;
	if ((run = sysfile_append(&s->file, RF_SYS_RUN, sizeof(*run)))) {
		run->flags = (s->cpu_wide ? RF_SYS_CPU_WIDE : 0) | (s->own_only ? RF_SYS_OWN_ONLY : 0);
		run->interval_ms = (uint32_t)l->sys.interval_ms;
		run->start_ns = sys_now_ns();
		run->ncpus = (uint32_t)ncpus;
		run->uid = (uint32_t)s->uid;
		sysfile_publish(&s->file, run);
	}
	for (int c = 0; s->cpu_wide && c < ncpus; c++) {
		struct sysent *e;

		if (!on[c] || !(e = sys_slot(s, RF_SCOPE_CPU, (uint64_t)c)))
			continue;
		sys_record(s, e, run ? run->start_ns : 0, "");
		/* one offline from the start says so, as one that goes later */
		if (!cpu_online(c) || sys_open_cpu(s, e) != 0)
			cpu_event(s, e, RF_END_OFFLINE, run ? run->start_ns : sys_now_ns());
	}
	return 0;
}

int launch_system(struct launch *l)
{
	static struct systate s;
	int ncpus = (int)sysconf(_SC_NPROCESSORS_CONF), status = 0, rc = 0;
	unsigned char on[CPUS_MAX];
	uint64_t start, t0, deadline;
	pid_t child = 0;

	if (!l->sys.interval_ms)
		l->sys.interval_ms = 1000;
	if (!strcmp(l->events_from, "PMCSHIM_EVENTS") && !getenv("PMCSHIM_EVENTS"))
		l->events = SYSTEM_DEFAULT_EVENTS;
	ncpus = ncpus < 1 ? 1 : ncpus > CPUS_MAX ? CPUS_MAX : ncpus;
	memset(on, !l->sys.cpus, sizeof(on));
	if (l->sys.cpus && parse_cpus(l->sys.cpus, on, ncpus) != 0)
		return 2;
	s.fd_budget = raise_fd_limit() - FD_RESERVE;
	if (open_run(l, &s, ncpus, on) != 0)
		return 2;
	catch_signals();
	sys_scan(&s, sys_now_ns());
	cpus_baseline(&s, ncpus);
	start = sys_now_ns();
	fprintf(stderr, LAUNCHER ": --system: counting %s%s, %u processes, every %ld ms into "
		"%s/system.pmc\n", s.cpu_wide ? "every CPU and " : "", l->events, s.followed,
		l->sys.interval_ms, l->dir);
	if (*l->argv && start_command(l->argv, &child) != 0)
		rc = 2;
	for (t0 = start; !rc;) {
		uint64_t end;
		uint32_t online;
		int last;

		deadline = start + (uint64_t)(s.interval + 1) * (uint64_t)l->sys.interval_ms * 1000000u;
		if (l->sys.duration > 0 && deadline > start + (uint64_t)(l->sys.duration * 1e9))
			deadline = start + (uint64_t)(l->sys.duration * 1e9);
		wait_until(deadline);
		end = sys_now_ns();
		if (child && child_ended && waitpid(child, &status, WNOHANG) == child)
			child = -child;
		child_ended = 0;
		last = stop_signal || child < 0 ||
		       (l->sys.duration > 0 && end >= start + (uint64_t)(l->sys.duration * 1e9));
		online = cpus_interval(&s, ncpus, end);
		processes_interval(&s, end);
		close_interval(&s, t0, end, online), t0 = end;
		if (last)
			break;
	}
	sysfile_finish(&s.file);
	if (child > 0) {	/* a signal stopped the run: the command has it too */
		if (stop_signal && stop_signal != SIGINT)	/* ^C reached it from the terminal */
			kill(child, stop_signal);
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
	}
	if (s.unfollowed_total)
		fprintf(stderr, LAUNCHER ": --system: %llu processes could not be followed (out of "
			"descriptors or not allowed)\n", (unsigned long long)s.unfollowed_total);
	fprintf(stderr, LAUNCHER ": --system: %u intervals, %.1f processes followed in each on "
		"average, %llu ended during the run\n", s.interval,
		s.interval ? (double)s.followed_sum / s.interval : 0.0, (unsigned long long)s.nended);
	if (!l->quiet)
		launch_show_reports(l);
	if (rc)
		return rc;
	if (child && WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return child ? WEXITSTATUS(status) : 0;
}
