/* The pmcshim launcher's pieces: where the shim and the reader are, the
 * run directory, the events notice, running the command and the reader. */
#ifndef PMCSHIM_LAUNCH_H
#define PMCSHIM_LAUNCH_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "format/reportfile.h"

#define LAUNCHER "pmcshim"

/* --system's options (launch_system.c). */
struct system_opts {
	int on;				/* --system */
	int given;			/* -I, -C or --duration seen */
	long interval_ms;		/* -I, default 1000 */
	double duration;		/* --duration S, 0: none */
	const char *cpus;		/* -C LIST, NULL: every CPU */
	int argc;			/* the launcher's own, for the report */
	char **argv;
};

struct launch {
	const char *events;		/* -e, else PMCSHIM_EVENTS, else the default */
	const char *events_from;	/* "-e" or "PMCSHIM_EVENTS", for messages */
	/* Neither -e, -M nor PMCSHIM_EVENTS: events are the machine's defaults
	 * (config_default_events), which each process chooses itself, and
	 * events_why says why when they are the software ones. */
	int events_default;
	char events_why[200];
	const char *depth;		/* -d, or NULL: the shim's default */
	const char *sample;		/* --sample: samples a second, or NULL: none */
	const char *outdir;		/* -o, or NULL: a new directory named after the command */
	int quiet;			/* -q: the table alone */
	const char *table;		/* --table / -O: the table's file, NULL: stderr */
	int table_fd;			/* open on table, or -1 */
	char **argv;			/* the command */
	char shim[PATH_MAX];		/* libpmcshim.so */
	char reader[PATH_MAX];		/* pmcshim-report */
	char dir[PATH_MAX];		/* the run directory, absolute */
	int rank, size;			/* in an MPI job (rank -1: not in one) */
	char job[128];			/* the job's identity, a file name's worth */
	const char *metrics;		/* -M and -g, comma separated, or NULL */
	const char *metrics_file;	/* --metrics-file */
	int repeat;			/* -r N: runs of the command (0: one, as without -r) */
	int nreader_args;
	char *reader_args[4];		/* the reader's -M LIST --metrics-file FILE */
	int check;			/* --check */
	struct system_opts sys;		/* --system */
};

/* launch_check.c: --check, the doctor's screen on stdout; 0 when every
 * event of events counts here, 1 otherwise. */
int launch_check(const char *events);
/* kernel.perf_event_paranoid (2 when unreadable). */
int launch_paranoid(void);
/* Whether CPU-wide counters may open: paranoid <= 0, CAP_PERFMON or
 * CAP_SYS_ADMIN. */
int launch_cpu_wide_allowed(void);

/* launch_system.c: one of --system's options (c: 'I', 'C', 'D' for
 * --duration) checked into o; 0, or -1 after one line. */
int launch_system_opt(struct system_opts *o, int c, const char *arg);
/* pmcshim --system: count until the duration, the command's end or
 * SIGINT; the exit status (the command's, when one ran). */
int launch_system(struct launch *l);

/* launch_paths.c: the shim and the reader next to this executable (build
 * tree) or in PREFIX/lib/pmcshim (installed). 0, or -1 after saying why. */
int launch_find_tools(struct launch *l);
/* Make the run directory (l->outdir, or pmcshim-COMMAND-TIME in the
 * current directory). 0, or -1 after saying why. */
int launch_make_dir(struct launch *l);

/* launch_events.c: refuse bad -e names (one line each, naming from, with
 * the closest known names), and an empty list; 0 or -1. */
int launch_check_events(const char *events, const char *from);
/* Open the events in this process as the shim will in each one, and print
 * one line about those that cannot count. */
void launch_events_notice(const char *events);
/* One line, when l's events are the defaults chosen for this machine
 * without the PMU's (which and why), or name events that count only
 * through read() per region (what that costs a marker pair). */
void launch_defaults_notice(const struct launch *l);
/* --list-events: each name, with whether this machine can count it now
 * (opened and closed once, as the shim would) or why not. */
void launch_list_events(void);
/* Whether name can count here: 0, or -1 and why not. */
int launch_why_not(const char *name, char *why, size_t len);

/* launch_metrics.c: -M/-g: the metrics' events added to l->events (a bad
 * name or event: one line, -1), and the reader told to show them. */
int launch_metrics(struct launch *l);
/* --list-metrics: each metric, and whether this machine can compute it
 * (its events can count), or why not. 0, or 2 after one line. */
int launch_list_metrics(const char *file);
/* -r N: the command run N times, each into DIR/K, then the reader's
 * --repeat over them. Returns the last run's status (a run that could
 * not start, or died of a signal, ends the repeats). */
int launch_repeat(struct launch *l, int *signo);

/* launch_job.c: an MPI job's launchers, one per rank, share one run
 * directory and one table. The rank, size and job from the environment
 * (rank -1 outside a job). */
void launch_job_detect(struct launch *l);
/* The job's run directory: -o DIR, or pmcshim-COMMAND-JOB, shared by its
 * ranks and refused when another run's. 0, or -1 after saying why. */
int launch_job_dir(struct launch *l);
/* The command is done: rank 0 waits for the other ranks (bounded) and
 * prints the table of every report; the others mark themselves done. */
void launch_job_end(const struct launch *l);

/* launch_run.c: check the PMCSHIM_* variables the processes will read
 * once for the run (a bad one: one line, and the processes get the
 * default without repeating it). */
void launch_check_env(const struct launch *l);
/* Run the command with the shim preloaded; returns its exit
 * status the way a shell reports it (127 not found, 128+N a signal);
 * *ran is 0 when it could not start. */
int launch_command(const struct launch *l, int *signo, int *ran);
/* Open l->table for the reader's table; 0, or -1 after saying why. */
int launch_open_table(struct launch *l);
/* Print the merged table of every report in the run directory (on stderr,
 * or into l->table), then one line naming the directory (not with -q). */
void launch_show_reports(const struct launch *l);
/* launch_why.c: why the run left no report in l->dir (buf: room for a
 * reason that names an error). */
const char *launch_why_no_report(const struct launch *l, char *buf, size_t len);
/* The reader (its table on stderr) with the options above, then args,
 * then the files of the run directory; its exit status. */
struct dirent;
int launch_run_reader(const struct launch *l, char *const *args, int nargs,
		      struct dirent **files, int n);
/* Leave with the command's status: re-raising its signal when it died
 * of one. */
_Noreturn void launch_exit(const struct launch *l, int status, int signo);

/* launch_count.c: the whole command counted as perf stat counts it
 * (inherited counters from its exec), written into the run directory as
 * LAUNCH_TOTALS.PID (struct rf_job) once it has been waited for. */
#define LAUNCH_TOTALS ".totals."
struct launch_count {
	int fd[RF_EVENTS_MAX];
	uint64_t start_mono;
	struct rf_job job;
};
/* On the forked command, before it may exec. */
void launch_count_open(struct launch_count *c, const struct launch *l, pid_t pid);
/* It is let go to exec now. */
void launch_count_started(struct launch_count *c);
/* It was waited for: status as launch_command returns it, signo, rusage. */
void launch_count_end(struct launch_count *c, const struct launch *l, int status, int signo,
		      const struct rusage *ru);

#endif
