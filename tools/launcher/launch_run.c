/* Running the command under the shim, then the reader on what every
 * process of the run wrote, and leaving with the command's status. */
#include "launch.h"

#include "settings/config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

void launch_check_env(const struct launch *l)
{
	/* set for every process below (set_env), whatever the caller had */
	const char *const mine[] = { "PMCSHIM_EVENTS", "PMCSHIM_OUTPUT", "PMCSHIM_QUIET",
				     l->depth ? "PMCSHIM_STACK_DEPTH" : NULL,
				     l->sample ? "PMCSHIM_SAMPLE" : NULL, NULL };
	const char *v;

	if ((v = getenv("PMCSHIM_OUTPUT")))
		fprintf(stderr, LAUNCHER ": PMCSHIM_OUTPUT='%s': not used; the reports go into "
			"the run directory (-o)\n", v);
	if ((v = getenv("PMCSHIM_QUIET")) && strcmp(v, "1"))
		fprintf(stderr, LAUNCHER ": PMCSHIM_QUIET='%s': not used; the processes of a "
			"run are quiet, and -q quiets " LAUNCHER "\n", v);
	config_check_env(mine);
}

/* Existing preloads (a sanitizer runtime must stay first) then the shim. */
static void set_preload(const char *shim)
{
	const char *old = getenv("LD_PRELOAD");
	char *both;

	if (!old || !*old) {
		setenv("LD_PRELOAD", shim, 1);
		return;
	}
	if (asprintf(&both, "%s:%s", old, shim) < 0)
		return;	/* (no memory: the shim not preloaded) */
	setenv("LD_PRELOAD", both, 1);
	free(both);
}

/* The environment every process of the run inherits (set for the fork,
 * then put back). The notices are the launcher's to print, once for the
 * whole run. */
static void set_env(const struct launch *l)
{
	char out[PATH_MAX + 32];

	/* a directory: the shim's default name, with the rank in an MPI job */
	snprintf(out, sizeof(out), "%s/", l->dir);
	set_preload(l->shim);
	setenv("PMCSHIM_OUTPUT", out, 1);
	setenv("PMCSHIM_QUIET", "1", 1);
	if (l->events_default)	/* each process chooses them, as counted per thread */
		unsetenv("PMCSHIM_EVENTS");
	else
		setenv("PMCSHIM_EVENTS", l->events, 1);
	if (l->depth)
		setenv("PMCSHIM_STACK_DEPTH", l->depth, 1);
	if (l->sample)
		setenv("PMCSHIM_SAMPLE", l->sample, 1);
	/* NVTX ranges come to the shim even where it is not in a library's
	 * global scope; a tool the user named keeps them (setenv's 0) */
	setenv("NVTX_INJECTION64_PATH", l->shim, 0);
}

/* The variables set_env sets, as the launcher had them. */
static const char *const env_names[] = { "LD_PRELOAD", "PMCSHIM_OUTPUT", "PMCSHIM_QUIET",
					 "PMCSHIM_EVENTS", "PMCSHIM_STACK_DEPTH" };
#define NENV (sizeof(env_names) / sizeof(env_names[0]))

static void save_env(char **saved)
{
	for (size_t i = 0; i < NENV; i++) {
		const char *v = getenv(env_names[i]);

		saved[i] = v ? strdup(v) : NULL;
	}
}

static void restore_env(char **saved)
{
	for (size_t i = 0; i < NENV; i++) {
		if (saved[i])
			setenv(env_names[i], saved[i], 1);
		else
			unsetenv(env_names[i]);
		free(saved[i]);
	}
}

/* Never returns: exec, or write errno to the pipe and exit. It waits
 * for the launcher's counters first (gofd closed on the other end). Its
 * environment was set before the fork: what it does before its exec
 * (page faults on the launcher's pages) is not the command's, and the
 * command's own getrusage counts it. */
static _Noreturn void child(const struct launch *l, int errfd, int gofd)
{
	int err;
	char c;

	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	while (read(gofd, &c, 1) < 0 && errno == EINTR)
		;
	close(gofd);
	execvp(l->argv[0], l->argv);
	err = errno;
	if (write(errfd, &err, sizeof(err)) != sizeof(err))
		_exit(127);
	_exit(err == ENOENT ? 127 : 126);
}

/* The shell's wording for a command that could not start. */
static int exec_failed(const char *cmd, int err)
{
	if (err == ENOENT) {
		fprintf(stderr, LAUNCHER ": %s: command not found\n", cmd);
		return 127;
	}
	fprintf(stderr, LAUNCHER ": %s: %s\n", cmd, strerror(err));
	return 126;
}

static int wait_rusage(pid_t pid, int *signo, struct rusage *ru)
{
	int st;

	memset(ru, 0, sizeof(*ru));
	while (wait4(pid, &st, 0, ru) < 0)
		if (errno != EINTR)
			return 127;
	*signo = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	return *signo ? 128 + *signo : WEXITSTATUS(st);
}

static int wait_for(pid_t pid, int *signo)
{
	struct rusage ru;

	return wait_rusage(pid, signo, &ru);
}

static volatile sig_atomic_t child_pid;

/* SIGTERM or SIGHUP sent to the launcher (a batch system's time limit, a
 * closed terminal) go on to the command: it ends the way it would have
 * alone, and the table of what it did is still printed. */
static void forward(int sig)
{
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

static void forward_signals(pid_t pid)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sa.sa_flags = SA_RESTART;
	child_pid = pid;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int launch_command(const struct launch *l, int *signo, int *ran)
{
	int fds[2], go[2], err = 0;
	struct launch_count count;
	struct rusage ru;
	char *saved[NENV];
	pid_t pid;
	ssize_t n;

	*signo = 0;
	*ran = 0;
	fflush(NULL);
	if (pipe2(fds, O_CLOEXEC) != 0 || pipe2(go, O_CLOEXEC) != 0) {
		fprintf(stderr, LAUNCHER ": cannot start %s: %s\n", l->argv[0], strerror(errno));
		return 126;
	}
	save_env(saved);
	set_env(l);
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		child(l, fds[1], go[0]);
	}
	restore_env(saved);
	if (pid < 0) {
		fprintf(stderr, LAUNCHER ": cannot start %s: %s\n", l->argv[0], strerror(errno));
		return 126;
	}
	close(fds[1]);
	close(go[0]);
	launch_count_open(&count, l, pid);
	launch_count_started(&count);
	close(go[1]);	/* it may exec now */
	/* Like a shell: ^C and ^\ are for the command; the launcher lives on
	 * to print the table. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	forward_signals(pid);
	while ((n = read(fds[0], &err, sizeof(err))) < 0 && errno == EINTR)
		;
	close(fds[0]);
	int status = wait_rusage(pid, signo, &ru);
	if (n == sizeof(err)) {
		for (uint32_t i = 0; i < count.job.nevents; i++)
			if (count.fd[i] >= 0)
				close(count.fd[i]);
		return exec_failed(l->argv[0], err);
	}
	*ran = 1;
	launch_count_end(&count, l, status, *signo, &ru);
	return status;
}

/* Dot files are an MPI job's marks (launch_job.c), not reports. */
static int regular_file(const struct dirent *e)
{
	return (e->d_type == DT_REG || e->d_type == DT_UNKNOWN) && e->d_name[0] != '.';
}

int launch_run_reader(const struct launch *l, char *const *args, int nargs,
		      struct dirent **files, int n)
{
	int first = 2 + l->nreader_args + nargs;
	char **argv = calloc((size_t)(n + first + 1), sizeof(*argv));
	int rc = 1, signo;
	pid_t pid;

	if (!argv)
		return 1;
	argv[0] = (char *)l->reader;
	/* the notice said which events cannot count: no n/a columns for them */
	argv[1] = "--collapse-unavailable";
	memcpy(argv + 2, l->reader_args, (size_t)l->nreader_args * sizeof(*argv));
	if (nargs)	/* args may be NULL then, which memcpy may not take */
		memcpy(argv + 2 + l->nreader_args, args, (size_t)nargs * sizeof(*argv));
	for (int i = 0; i < n; i++)
		if (asprintf(&argv[i + first], "%s/%s", l->dir, files[i]->d_name) < 0)
			goto out;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(l->table_fd >= 0 ? l->table_fd : STDERR_FILENO, STDOUT_FILENO);
		execv(argv[0], argv);
		fprintf(stderr, LAUNCHER ": %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	rc = pid < 0 ? 1 : wait_for(pid, &signo);
out:
	for (int i = first; i < n + first; i++)
		free(argv[i]);
	free(argv);
	return rc;
}

static int totals_file(const struct dirent *e)
{
	return (e->d_type == DT_REG || e->d_type == DT_UNKNOWN) &&
	       !strncmp(e->d_name, LAUNCH_TOTALS, strlen(LAUNCH_TOTALS));
}

/* The reader's table of the reports, with the launchers' totals files
 * (launch_count.c) among them: rc of the reader. */
static int show_with_totals(const struct launch *l, struct dirent **files, int n)
{
	struct dirent **tot = NULL;
	int k = scandir(l->dir, &tot, totals_file, alphasort), na = 0, rc;
	char **args = calloc((size_t)(k > 0 ? k : 0) + 1, sizeof(*args));

	for (int i = 0; i < k && args; i++)
		if (asprintf(&args[na], "%s/%s", l->dir, tot[i]->d_name) >= 0)
			na++;
	rc = launch_run_reader(l, args, na, files, n);
	for (int i = 0; i < na; i++)
		free(args[i]);
	for (int i = 0; i < k; i++)
		free(tot[i]);
	free(tot);
	free(args);
	return rc;
}

void launch_show_reports(const struct launch *l)
{
	struct dirent **files = NULL;
	int n = scandir(l->dir, &files, regular_file, alphasort);

	if (n <= 0) {
		char why[160];

		fprintf(stderr, LAUNCHER ": no report in %s: %s\n", l->dir,
			launch_why_no_report(l, why, sizeof(why)));
	} else {
		int rc = show_with_totals(l, files, n);
		if (rc != 0)
			fprintf(stderr, LAUNCHER ": %s exited with status %d\n", l->reader, rc);
		else if (!l->quiet)
			fprintf(stderr, LAUNCHER ": %s%s%s%d report%s in %s\n",
				l->table ? "table in " : "", l->table ? l->table : "",
				l->table ? "; " : "", n, n == 1 ? "" : "s", l->dir);
	}
	for (int i = 0; i < n; i++)
		free(files[i]);
	free(files);
}

int launch_open_table(struct launch *l)
{
	if (!l->table)
		return 0;
	l->table_fd = open(l->table, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (l->table_fd >= 0)
		return 0;
	fprintf(stderr, LAUNCHER ": --table '%s': %s\n", l->table, strerror(errno));
	return -1;
}

/* Die of the same signal, as a shell's caller expects, without a core
 * of the launcher's own: the command's core (if any) is the one to read.
 * RLIMIT_CORE 0 stops a core file; a core_pattern that pipes to a
 * collector (systemd-coredump, apport) ignores that limit, but not a
 * process that is not dumpable, and the shell then says no "(core
 * dumped)" either. */
static void reraise(int signo)
{
	struct rlimit none = { 0, 0 };
	sigset_t set;

	setrlimit(RLIMIT_CORE, &none);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	signal(signo, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, signo);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(signo);
}

_Noreturn void launch_exit(const struct launch *l, int status, int signo)
{
	if (signo) {
		/* A shell says nothing for ^C or a closed pipe either. */
		if (signo != SIGINT && signo != SIGPIPE)
			fprintf(stderr, LAUNCHER ": %s: %s\n", l->argv[0], strsignal(signo));
		fflush(NULL);
		reraise(signo);
	}
	exit(status);
}
