/* moves MODE [ARG] N: the ground moves under a running program's report
 * file, then the program goes on: N new names ("after0", "after1", ...)
 * marked once each, and a thread made afterwards marks "late" 5 times.
 *   cut SIZE      10 calls of "before", its report truncated to SIZE bytes,
 *                 10 more
 *   quietcut SIZE its report truncated, no marker at all (N ignored)
 *   chdir         chdir("/") (the report's name is relative)
 *   setuid        setresuid/setresgid to nobody (run as root)
 *   rename        its report renamed to pmcshim-moved.pmc
 *   replace       renamed so, and another file made at its name
 *   unlink        linked as pmcshim-kept.pmc, its name unlinked
 *   closefd       the shim's descriptor of it closed
 *   lostfd        the descriptor closed and the file unlinked: it cannot
 *                 grow any more
 *   ownbus        its own SIGBUS handler, which catches its own fault;
 *                 then its report cut: the handler must not see that
 *   dflbus        its own fault with no handler: it dies of SIGBUS
 *   dfork         the daemon double fork: the parent _exits right after
 *                 fork; the child waits for that (a pipe), then reads the
 *                 state its own report file says
 *   sigwaitcut    every signal blocked (before its threads are made, so
 *                 they inherit it), one thread in sigwait; a marking
 *                 thread cuts its report to 4096 bytes mid-way through
 *                 200 calls of "before"; then a SIGBUS raised while
 *                 blocked, its handler run when it unblocks it
 *   altstack      its SIGBUS and SIGSEGV handlers on a 4 KiB alternate
 *                 stack (SA_ONSTACK); its report cut to 4096 bytes while
 *                 it marks
 *   cutloop CUTS  2000 names marked, then 8 threads mark "busy" while
 *                 the main thread cuts the report to 4096 bytes CUTS
 *                 times, each as soon as the file has its size back;
 *                 each marker stops 100 calls after the last cut
 * The report is found through /proc/self/fd (the shim keeps it open), or
 * named by MOVES_REPORT. */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmcshim.h>

static char report[4096];

static int find_report(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int fd = -1;

	while (d && (e = readdir(d))) {
		char link[300];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		n = readlink(link, report, sizeof(report) - 1);
		if (n > 4 && (report[n] = '\0', strstr(report, ".pmc"))) {
			fd = atoi(e->d_name);
			break;
		}
	}
	if (d)
		closedir(d);
	/* (a shim that keeps no descriptor: told where it is) */
	if (fd < 0 && getenv("MOVES_REPORT"))
		snprintf(report, sizeof(report), "%s", getenv("MOVES_REPORT")), fd = 0;
	return fd;
}

static void *late(void *arg)
{
	(void)arg;
	for (int i = 0; i < 5; i++) {
		PMCSHIM_BEGIN("late");
		PMCSHIM_END("late");
	}
	return NULL;
}

static int go_on(int n)
{
	pthread_t t;
	char name[32];

	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "after%d", i);
		pmcshim_begin_name(name);
		pmcshim_end_name(name);
	}
	if (pthread_create(&t, NULL, late, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	printf("moves: done\n");
	return 0;
}

static void before(int n)
{
	for (int i = 0; i < n; i++) {
		PMCSHIM_BEGIN("before");
		PMCSHIM_END("before");
	}
}

/* Records enough that a cut at 8192 lands among them, whatever setup
 * wrote (16 names and sites of their own). */
static void fill(void)
{
	char name[16];

	for (int i = 0; i < 16; i++) {
		snprintf(name, sizeof(name), "fill%d", i);
		pmcshim_begin_name(name);
		pmcshim_end_name(name);
	}
}

/* --- SIGBUS of its own ----------------------------------------------------- */

static sigjmp_buf back;
static volatile sig_atomic_t caught;

static void on_bus(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	caught++;
	siglongjmp(back, 1);
}

/* A page of a file cut to 0 bytes, read: SIGBUS. */
static int own_fault(void)
{
	char tmp[] = "own-XXXXXX";
	int fd = mkstemp(tmp);
	volatile char *p;

	if (fd < 0 || ftruncate(fd, 4096) != 0)
		return -1;
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED || ftruncate(fd, 0) != 0)
		return -1;
	unlink(tmp);
	close(fd);
	return p[0];
}

static int ownbus(int n)
{
	struct sigaction a = { .sa_sigaction = on_bus, .sa_flags = SA_SIGINFO }, old;

	sigemptyset(&a.sa_mask);
	if (sigaction(SIGBUS, &a, NULL) != 0 || sigaction(SIGBUS, NULL, &old) != 0)
		return 1;
	printf("moves: sigaction reports its own handler: %s\n",
	       old.sa_sigaction == on_bus && (old.sa_flags & SA_SIGINFO) ? "yes" : "no");
	if (!sigsetjmp(back, 1))
		own_fault();
	printf("moves: own fault caught %d\n", (int)caught);
	before(10);
	if (truncate(report, 0) != 0)
		return 1;
	before(10);
	printf("moves: caught after the cut %d\n", (int)caught);
	/* signal() gives back what sigaction set */
	{
		void *h = (void *)signal(SIGBUS, SIG_IGN);

		printf("moves: signal gives its handler back: %s\n",
		       h == (void *)on_bus ? "yes" : "no");
	}
	raise(SIGBUS);	/* ignored, as the application asked */
	return go_on(n);
}

/* --- cuts the application's own masks and stacks must survive -------------- */

static void *waiter(void *arg)
{
	sigset_t s;
	int sig = 0;

	(void)arg;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	if (sigwait(&s, &sig) != 0)
		return NULL;
	printf("moves: sigwait got %s\n", sig == SIGUSR1 ? "SIGUSR1" : "another");
	return NULL;
}

static void *marker_cuts(void *arg)
{
	sigset_t s;
	int *ok = arg;

	for (int i = 0; i < 200; i++) {
		if (i == 100 && truncate(report, 4096) != 0)
			return NULL;
		before(1);
	}
	/* what it asked for is what it is told */
	*ok = pthread_sigmask(SIG_BLOCK, NULL, &s) == 0 && sigismember(&s, SIGBUS) &&
	      sigismember(&s, SIGSEGV) && sigismember(&s, SIGUSR1);
	return NULL;
}

static volatile sig_atomic_t sent_caught;

static void on_sent(int sig)
{
	(void)sig;
	sent_caught++;
}

/* A SIGBUS raised while it blocks it waits until it unblocks it. */
static int sent_while_blocked(void)
{
	sigset_t bus;
	int before;

	sigemptyset(&bus);
	sigaddset(&bus, SIGBUS);
	if (signal(SIGBUS, on_sent) == SIG_ERR || raise(SIGBUS) != 0)
		return 1;
	before = sent_caught;
	if (pthread_sigmask(SIG_UNBLOCK, &bus, NULL) != 0)
		return 1;
	printf("moves: a raised SIGBUS waited for its unblocking: %s\n",
	       before == 0 && sent_caught == 1 ? "yes" : "no");
	return 0;
}

static int sigwaitcut(int n)
{
	sigset_t all, now;
	pthread_t w, m;
	int ok = 0;

	sigfillset(&all);
	if (pthread_sigmask(SIG_BLOCK, &all, NULL) != 0 ||
	    pthread_create(&w, NULL, waiter, NULL) != 0 ||
	    pthread_create(&m, NULL, marker_cuts, &ok) != 0 || pthread_join(m, NULL) != 0 ||
	    pthread_kill(w, SIGUSR1) != 0 || pthread_join(w, NULL) != 0)
		return 1;
	printf("moves: the marking thread's mask as it set it: %s\n", ok ? "yes" : "no");
	if (sigprocmask(SIG_SETMASK, NULL, &now) != 0)
		return 1;
	printf("moves: its own mask as it set it: %s\n",
	       sigismember(&now, SIGBUS) && sigismember(&now, SIGTERM) ? "yes" : "no");
	return sent_while_blocked() ? 1 : go_on(n);
}

static volatile sig_atomic_t alt_caught;

static void on_alt(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	alt_caught++;
	siglongjmp(back, 1);
}

static int altstack(int n)
{
	static char alt[4096] __attribute__((aligned(16)));
	stack_t ss = { .ss_sp = alt, .ss_size = sizeof(alt) };
	struct sigaction a = { .sa_sigaction = on_alt, .sa_flags = SA_SIGINFO | SA_ONSTACK };

	sigemptyset(&a.sa_mask);
	if (sigaltstack(&ss, NULL) != 0)
		return printf("moves: sigaltstack: %m\n"), 1;
	if (sigaction(SIGBUS, &a, NULL) != 0 || sigaction(SIGSEGV, &a, NULL) != 0)
		return 1;
	fill();
	before(10);
	if (truncate(report, 4096) != 0)
		return 1;
	before(10);
	printf("moves: its handler ran %d times\n", (int)alt_caught);
	return go_on(n);
}

static int cuts_left;

static void *busy(void *arg)
{
	int after = 0;

	(void)arg;
	while (after < 100) {
		after += __atomic_load_n(&cuts_left, __ATOMIC_ACQUIRE) == 0;
		PMCSHIM_BEGIN("busy");
		PMCSHIM_END("busy");
	}
	return NULL;
}

/* Each cut as soon as the file has its size back (the shim mending the
 * last one), while it puts back its records: at most 20000 looks; once
 * one cut is not mended in that time (the shim no longer mends: it keeps
 * the report in memory), the rest without looking. */
static void cut_when_mended(void)
{
	static int unmended;
	struct stat st;
	int i = 0;

	while (!unmended && stat(report, &st) == 0 && st.st_size <= 4096)
		unmended = ++i == 20000;
	if (truncate(report, 4096) != 0)
		exit(3);
}

static int cutloop(int cuts)
{
	pthread_t t[8];
	char name[32];

	/* records to put back: a repair long enough to be cut into */
	for (int i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "many%d", i);
		pmcshim_begin_name(name);
		pmcshim_end_name(name);
	}
	cuts_left = cuts;
	for (int i = 0; i < 8; i++)
		if (pthread_create(&t[i], NULL, busy, NULL) != 0)
			return 1;
	for (; cuts_left > 0; __atomic_sub_fetch(&cuts_left, 1, __ATOMIC_RELEASE))
		cut_when_mended();
	for (int i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	printf("moves: %d cuts made\n", cuts);
	return go_on(10);
}

/* --- the double fork -------------------------------------------------------- */

#include "../../preload/format/reportfile.h"

static int dfork(void)
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe(p) != 0)
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid > 0) /* the parent: ends at once, without exit handlers */
		_exit(0);
	close(p[1]);
	while (read(p[0], &c, 1) > 0)
		;	/* EOF: the parent is gone */
	{
		int fd = find_report();
		struct rf_header h;

		if (fd < 0 || pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
			return 1;
		printf("moves: child %d, its file says %s\n", (int)getpid(),
		       h.state == RF_RUNNING ? "running" : "ended");
	}
	before(3);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int n = argc > 2 ? atoi(argv[argc - 1]) : 0;
	int fd = find_report();

	setvbuf(stdout, NULL, _IONBF, 0);
	if (fd < 0 && strcmp(mode, "dfork") != 0 && strcmp(mode, "dflbus") != 0)
		return printf("moves: no report file open\n"), 1;
	if (!strcmp(mode, "cut") || !strcmp(mode, "quietcut")) {
		if (mode[0] == 'c') {
			fill();
			before(10);
		}
		if (truncate(report, atol(argv[2])) != 0)
			return 1;
		if (mode[0] == 'q')
			return printf("moves: done\n"), 0;
		before(10);
	} else if (!strcmp(mode, "chdir")) {
		if (chdir("/") != 0)
			return 1;
	} else if (!strcmp(mode, "setuid")) {
		struct passwd *pw = getpwnam("nobody");

		if (!pw || setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) != 0 ||
		    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) != 0)
			return printf("moves: cannot become nobody\n"), 1;
	} else if (!strcmp(mode, "rename") || !strcmp(mode, "replace")) {
		if (rename(report, "pmcshim-moved.pmc") != 0)
			return 1;
		if (mode[2] == 'p') {
			FILE *f = fopen(report, "w");

			if (!f || fputs("another file\n", f) < 0 || fclose(f) != 0)
				return 1;
		}
	} else if (!strcmp(mode, "unlink")) {
		if (link(report, "pmcshim-kept.pmc") != 0 || unlink(report) != 0)
			return 1;
	} else if (!strcmp(mode, "closefd") || !strcmp(mode, "lostfd")) {
		close(fd);
		if (mode[0] == 'l' && unlink(report) != 0)
			return 1;
	} else if (!strcmp(mode, "ownbus")) {
		return ownbus(n);
	} else if (!strcmp(mode, "dflbus")) {
		own_fault();
		return printf("moves: survived its own fault\n"), 0;
	} else if (!strcmp(mode, "dfork")) {
		return dfork();
	} else if (!strcmp(mode, "sigwaitcut")) {
		return sigwaitcut(n);
	} else if (!strcmp(mode, "altstack")) {
		return altstack(n);
	} else if (!strcmp(mode, "cutloop")) {
		return cutloop(n);
	} else {
		return printf("moves: unknown mode %s\n", mode), 2;
	}
	return go_on(n);
}
