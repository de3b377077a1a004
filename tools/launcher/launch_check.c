/* pmcshim --check, the doctor: one screen saying what this machine can
 * count and, for each thing that stops it, the command that fixes it.
 * Everything is found the way the shim meets it: the events are opened
 * here (counters_open), the libraries loaded as the shim loads them. */
#include "launch.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "counters/counters.h"
#include "counters/events.h"
#include "counters/pfm.h"

#define PMU_DIR "/sys/bus/event_source/devices"
#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38

/* "  WHAT          text" */
static void say(const char *what, const char *fmt, ...)
{
	va_list ap;

	printf("  %-16s", what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void fix(const char *fmt, ...)
{
	va_list ap;

	printf("  %-16s fix: ", "");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* The first line of path, without its newline: 0, or -1. */
static int read_line(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "re");
	int ok = f && fgets(out, (int)len, f);

	if (f)
		fclose(f);
	if (!ok)
		return -1;
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

static long read_long(const char *path, long fallback)
{
	char buf[64], *end;
	long v;

	if (read_line(path, buf, sizeof(buf)) != 0)
		return fallback;
	v = strtol(buf, &end, 10);
	return end == buf ? fallback : v;
}

int launch_paranoid(void)
{
	return (int)read_long("/proc/sys/kernel/perf_event_paranoid", 2);
}

/* The effective capabilities, from /proc/self/status. */
static uint64_t cap_eff(void)
{
	char line[256];
	uint64_t v = 0;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %" SCNx64, &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

int launch_cpu_wide_allowed(void)
{
	uint64_t caps = cap_eff();

	return launch_paranoid() <= 0 || (caps >> CAP_PERFMON_BIT & 1) ||
	       (caps >> CAP_SYS_ADMIN_BIT & 1);
}

static const char *paranoid_meaning(int p)
{
	if (p <= -1)
		return "everything, for every user";
	if (p == 0)
		return "CPU-wide and per-process counting, kernel included";
	if (p == 1)
		return "per-process counting, kernel included; no CPU-wide counters";
	if (p == 2)
		return "per-process counting of user space only; no CPU-wide counters";
	return "nothing without CAP_PERFMON (a distribution's level)";
}

static void check_kernel(void)
{
	struct utsname u;

	if (uname(&u) == 0)
		say("kernel", "%s %s", u.release, u.machine);
	if (access("/proc/sys/kernel/perf_event_paranoid", F_OK) != 0) {
		say("", "no /proc/sys/kernel/perf_event_paranoid: built without perf events "
		    "(CONFIG_PERF_EVENTS)");
		return;
	}
#if defined(__aarch64__)
	say("", "user-space counter reads (kernel.perf_user_access, Linux 5.17+): %s",
	    access("/proc/sys/kernel/perf_user_access", F_OK) == 0 ? "present" : "absent");
#endif
}

/* A CPU PMU: the core one (x86 "cpu", hybrid "cpu_core"/"cpu_atom", each
 * arm64 "armv8_*") has a cpus file, or is x86's "cpu". */
static int is_cpu_pmu(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), PMU_DIR "/%s/cpus", name);
	return !strcmp(name, "cpu") || access(path, F_OK) == 0;
}

/* Counters "where the kernel says": its boot lines (arm64's "hw
 * perfevents: enabled with armv8_pmuv3_0 PMU driver, 7 counters
 * available", x86's "... generic registers: 8"), if the log is readable. */
static void kernel_counters(char *out, size_t len)
{
	int n = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf, *p;

	snprintf(out, len, "not said (kernel log unreadable)");
	if (n <= 0 || !(buf = malloc((size_t)n + 1)))
		return;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, n);
	if (n > 0) {
		buf[n] = '\0';
		snprintf(out, len, "not said in the kernel log");
		if ((p = strstr(buf, " counters available")))
			while (p > buf && p[-1] != ' ' && p[-1] != '\n')
				p--;
		else if ((p = strstr(buf, "generic registers:")))
			p += strlen("generic registers:") + strspn(p + 18, " ");
		if (p)
			snprintf(out, len, "%ld (the kernel's boot log)", strtol(p, NULL, 10));
	}
	free(buf);
}

/* The PMUs; returns how many CPU PMUs there are. */
static int check_pmu(void)
{
	char others[512] = "", path[512], val[128], counters[96];
	int ncpu = 0;
	size_t at = 0;
	DIR *d = opendir(PMU_DIR);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (!is_cpu_pmu(e->d_name)) {
			at += (size_t)snprintf(others + at, at < sizeof(others) ? sizeof(others) - at : 0,
					       "%s%s", at ? ", " : "", e->d_name);
			at = at < sizeof(others) ? at : sizeof(others) - 1;
			continue;
		}
		snprintf(path, sizeof(path), PMU_DIR "/%s/cpus", e->d_name);
		if (read_line(path, val, sizeof(val)) != 0)
			snprintf(val, sizeof(val), "all");
		snprintf(path, sizeof(path), PMU_DIR "/%s/caps/pmu_name", e->d_name);
		char model[64] = "";
		read_line(path, model, sizeof(model));
		snprintf(path, sizeof(path), PMU_DIR "/%s/type", e->d_name);
		say(ncpu ? "" : "PMU", "%s (type %ld%s%s), CPUs %s", e->d_name, read_long(path, -1),
		    *model ? ", " : "", model, val);
		ncpu++;
	}
	if (d)
		closedir(d);
	if (!ncpu) {
		say("PMU", "none: the kernel shows no CPU PMU in " PMU_DIR " (only %s)",
		    *others ? others : "nothing");
		say("", "a VM without a virtual PMU, or a kernel without the PMU's driver: "
		    "only software events count");
		fix("give the guest a PMU (KVM/QEMU: -cpu host, with the host's PMU; "
		    "VMware: 'virtualize CPU performance counters'), or run on bare metal");
		return 0;
	}
	kernel_counters(counters, sizeof(counters));
	say("", "counters: %s", counters);
	if (ncpu > 1)
		say("", "hybrid: %d kinds of core, each with its own PMU (an event counts on "
		    "the cores of its PMU)", ncpu);
	return ncpu;
}

static int check_paranoid(uint64_t caps)
{
	int p = launch_paranoid();
	int privileged = (caps >> CAP_PERFMON_BIT & 1) || (caps >> CAP_SYS_ADMIN_BIT & 1);

	say("paranoid", "kernel.perf_event_paranoid = %d: %s", p, paranoid_meaning(p));
	say("capabilities", "CAP_PERFMON %s, CAP_SYS_ADMIN %s%s",
	    caps >> CAP_PERFMON_BIT & 1 ? "yes" : "no", caps >> CAP_SYS_ADMIN_BIT & 1 ? "yes" : "no",
	    privileged ? ": this process may count anything, whatever the setting" : "");
	if (p > 0 && !privileged) {
		say("", "pmcshim --system (CPU-wide counters) is refused");
		fix("sysctl kernel.perf_event_paranoid=0 (or grant CAP_PERFMON: "
		    "setcap cap_perfmon+ep on the program)");
	}
	return p > 2 && !privileged;
}

/* Open instructions on this thread as the shim does (with what the
 * architecture needs to ask for user reads) and look at its page: what
 * the shim's markers would find. */
static void try_user_read(int npmu)
{
	struct event_status st[1];
	struct event_list list = { .n = 1 };
	struct counters c;
	char err[256];

	if (!npmu) {
		say("", "user-space reads: nothing to read (no PMU)");
		return;
	}
	if (events_parse_one("instructions", &list.ev[0], err, sizeof(err)) != 0)
		return;
	memset(st, 0, sizeof(st));
	counters_open(&c, &list, st, 1);
	if (st[0].source == SOURCE_UNAVAILABLE)
		say("", "user-space reads: instructions does not open (%s)", st[0].reason);
	else if (c.page[0])
		say("", "user-space reads: %s (cap_user_rdpmc %u, %u-bit counter)",
		    st[0].source == SOURCE_USER ? "work: a marker costs no system call" :
		    "refused: every marker makes a read() system call",
		    (unsigned)c.page[0]->cap_user_rdpmc, (unsigned)c.page[0]->pmc_width);
	else
		say("", "user-space reads: refused (the event's page does not allow them): every "
		    "marker makes a read() system call");
	counters_close(&c);
}

static void check_user_reads(int npmu)
{
	const char *hint = counters_user_read_hint();
#if defined(__x86_64__)
	long v = read_long(PMU_DIR "/cpu/rdpmc", -1);

	if (v >= 0)
		say("rdpmc", PMU_DIR "/cpu/rdpmc = %ld (%s)", v, v == 0 ? "off" :
		    v == 1 ? "on while an event is open in the process" : "on for every process");
	else
		say("rdpmc", "no " PMU_DIR "/cpu/rdpmc (no x86 core PMU)");
#elif defined(__aarch64__)
	long v = read_long("/proc/sys/kernel/perf_user_access", -1);

	say("rdpmc", "kernel.perf_user_access = %ld%s", v, v < 0 ? " (absent: before Linux 5.17)" :
	    v == 0 ? " (off)" : " (on)");
#else
	say("rdpmc", "not read on this architecture: every marker makes a read() system call");
#endif
	try_user_read(npmu);
	if (hint && npmu) {
#if defined(__aarch64__)
		fix("sysctl kernel.perf_user_access=1");
#else
		fix("echo 2 > " PMU_DIR "/cpu/rdpmc");
#endif
	}
}

static void check_watchdog(int npmu)
{
	long v = read_long("/proc/sys/kernel/nmi_watchdog", -1);

	if (v < 0) {
		say("NMI watchdog", "absent (no /proc/sys/kernel/nmi_watchdog)");
		return;
	}
	say("NMI watchdog", "%s", v == 0 ? "off: every counter is free" : npmu ?
	    "on: it holds one hardware counter, so one event fewer fits before "
	    "multiplexing" : "on (no PMU: it holds no counter here)");
	if (v && npmu)
		fix("sysctl kernel.nmi_watchdog=0");
}

static void check_libraries(void)
{
	char pmus[512], err[256];
	int n = native_each(NULL, NULL, pmus, sizeof(pmus), err, sizeof(err));
	void *h;

	if (n >= 0)
		say("libpfm4", "loaded: %d native event names (%s)", n, *pmus ? pmus : "no CPU PMU known");
	else
		say("libpfm4", "%s (perf's names work)", err);
	if (n < 0 && strstr(err, "not installed"))
		fix("apt-get install libpfm4 (or your distribution's libpfm)");
	if ((h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL))) {
		say("libunwind", "loaded: stacks without frame pointers are walked");
		dlclose(h);
	} else {
		say("libunwind", "missing (%s): stacks use frame pointers and unwind tables only",
		    dlerror());
		fix("apt-get install libunwind8");
	}
}

/* The events the run would count: 0 when all of them count. */
static int check_events(const char *events)
{
	struct event_status st[EVENTS_MAX];
	struct event_list list;
	struct counters c;
	char err[1024];
	int bad = 0;

	if (events_parse_list(events, &list, err, sizeof(err)) != 0 || !list.n) {
		say("events", "'%s': %s", events, *err ? err : "no event");
		return 1;
	}
	memset(st, 0, sizeof(st));
	counters_open(&c, &list, st, 1);
	counters_close(&c);
	for (int i = 0; i < list.n; i++) {
		bad |= st[i].source == SOURCE_UNAVAILABLE;
		say(i ? "" : "events", "%-20s %s%s", list.ev[i].name,
		    st[i].source == SOURCE_UNAVAILABLE ? "no: " :
		    st[i].source == SOURCE_USER ? "yes, read in user space" : "yes, read by read()",
		    st[i].source == SOURCE_UNAVAILABLE ? st[i].reason : "");
	}
	return bad;
}

int launch_check(const char *events)
{
	uint64_t caps = cap_eff();
	int npmu, bad;

	printf(LAUNCHER " --check: what this machine can count, and why not\n");
	check_kernel();
	npmu = check_pmu();
	check_paranoid(caps);
	check_user_reads(npmu);
	check_watchdog(npmu);
	check_libraries();
	bad = check_events(events);
	printf("%s: %s %s\n", LAUNCHER, events, bad ? "do not all count here (exit 1)" :
	       "count here (exit 0)");
	fflush(stdout);
	return bad;
}
