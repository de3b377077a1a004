/*
 * pmcshim: run a command with the shim preloaded, the way `perf stat` is
 * used, and print the merged region table of every process of the run.
 *
 *   pmcshim [OPTIONS] [--] COMMAND [ARGS...]
 *
 * Every process writes its report into one run directory; the launcher
 * prints the unavailable-events notice once (the processes are quiet),
 * runs pmcshim-report on the directory (its table on stderr, or into the
 * --table file), says in one line where the reports are, and exits with
 * the command's status. Under an MPI launcher (mpirun -np 4 pmcshim ./app)
 * the ranks' launchers share one directory and rank 0's prints the one
 * table (launch_job.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PMCSHIM_API_ONLY	/* the version only: no marker machinery */
#include "pmcshim.h"

#include "common/badopt.h"
#include "settings/config.h"
#include "launch.h"

static void usage(FILE *out)
{
	fputs("usage: " LAUNCHER " [OPTIONS] [--] COMMAND [ARGS...]\n"
	      "Run COMMAND with libpmcshim.so preloaded: every process it starts writes its\n"
	      "report into one run directory, then the merged region table is printed on\n"
	      "stderr and " LAUNCHER " exits with COMMAND's exit status.\n"
	      "  -e, --events LIST  events to count, comma separated, or none for no counters\n"
	      "                     (default: PMCSHIM_EVENTS, else " CONFIG_DEFAULT_EVENTS "\n"
	      "                     where the PMU counts them, else " CONFIG_SOFTWARE_EVENTS ",\n"
	      "                     counted per thread);\n"
	      "                     see --list-events\n"
	      "  -d, --depth N      call-site stack frames above each marker, 0..64 (default 8)\n"
	      "  -s, --sample[=HZ]  also sample every thread, HZ times a second of its CPU\n"
	      "                     time (1..100000, default 1000): the table gets the\n"
	      "                     functions the time went to, per region too;\n"
	      "      --sample=EVENT@PERIOD  a sample every PERIOD counts of EVENT\n"
	      "                     (instructions@10007; PERIOD >= 1000)\n"
	      "  -o, --output DIR   the run directory (made if missing, its missing parents\n"
	      "                     with mode 0700; must be empty);\n"
	      "                     default: pmcshim-COMMAND-YYYYmmdd-HHMMSS here\n"
	      "                     (an MPI job's ranks share it: pmcshim-COMMAND-JOB)\n"
	      "  -M, --metrics LIST derived metrics (names or groups, comma separated; see\n"
	      "                     --list-metrics): their events are added to -e, and the\n"
	      "                     table shows a column (incl and excl) for each\n"
	      "  -g, --group GROUP  a metric group (the same as -M GROUP)\n"
	      "      --metrics-file FILE  more metric definitions (metrics/generic.def\n"
	      "                     gives the syntax), read after the installed ones\n"
	      "      --list-metrics the metrics and groups, each marked with whether this\n"
	      "                     machine can compute it now, and why not\n"
	      "  -r, --repeat N     run COMMAND N times (1..1000), each run into DIR/K, and\n"
	      "                     print per region and in total the mean, +- the runs'\n"
	      "                     standard deviation, min and max (exit status: the last\n"
	      "                     run's)\n"
	      "  -q, --quiet        the table alone: no notices (unavailable events, where\n"
	      "                     the reports are)\n"
	      "  -O, --table FILE   the table into FILE instead of stderr (made or\n"
	      "                     truncated); stderr then gets one line\n"
	      "      --list-events  the event names, each marked with whether this machine\n"
	      "                     can count it now, and why not\n"
	      "      --check        what this machine can count and why not, with the fix\n"
	      "                     for each problem (exit 0: the events of -e count)\n"
	      "      --system       count the whole machine instead of a command's regions:\n"
	      "                     per CPU and per process, every -I MS (default 1000)\n"
	      "                     into DIR/system.pmc, until --duration S, COMMAND's end\n"
	      "                     or SIGINT; -C LIST: only these CPUs (pmcshim --system\n"
	      "                     [-e EVENTS] [-I MS] [-C LIST] [-o DIR] [--duration S |\n"
	      "                     -- COMMAND...]; pmcshim-report reads it)\n"
	      "      --version      the version\n"
	      "  -h, --help         this help\n"
	      "Exit status: COMMAND's; 127 not found, 126 not executable, 128+N killed by\n"
	      "signal N (re-raised), 2 bad usage.\n"
	      "Read the run again: pmcshim-report [--threads|--by-process|--stacks] DIR/*\n", out);
}

static int check_depth(const char *v)
{
	char *end;
	long d;

	errno = 0;
	d = strtol(v, &end, 10);
	if (errno || *end || end == v || d < 0 || d > CONFIG_MAX_DEPTH) {
		fprintf(stderr, LAUNCHER ": -d '%s': want 0..%d\n", v, CONFIG_MAX_DEPTH);
		return -1;
	}
	return 0;
}

/* --sample[=HZ|EVENT@PERIOD]: as PMCSHIM_SAMPLE takes it, but not 0;
 * none given: 1000 a second. */
static int check_sample(const char *v, const char **out)
{
	struct sample_by by;
	char err[300];
	int hz, bad;

	if (!v) {
		*out = "1000";
		return 0;
	}
	bad = config_parse_sample(v, &hz, &by, err, sizeof(err));
	if (bad || hz == 0) {
		if (!bad)
			snprintf(err, sizeof(err), "want 1..%d samples a second, or EVENT@PERIOD "
				 "(instructions@10007)", CONFIG_MAX_SAMPLE);
		fprintf(stderr, LAUNCHER ": --sample '%s': %s\n", v, err);
		return -1;
	}
	*out = v;
	return 0;
}

enum { OPT_LIST = 256, OPT_VERSION, OPT_LIST_METRICS, OPT_METRICS_FILE, OPT_CHECK, OPT_SYSTEM,
       OPT_DURATION };

/* -r N: 1..1000 runs. */
static int check_repeat(const char *v, int *n)
{
	char *end;
	long r;

	errno = 0;
	r = strtol(v, &end, 10);
	if (errno || *end || end == v || r < 1 || r > 1000) {
		fprintf(stderr, LAUNCHER ": -r '%s': want 1..1000 runs\n", v);
		return -1;
	}
	*n = (int)r;
	return 0;
}

/* -M and -g add to one list. */
static void add_metrics(struct launch *l, const char *v)
{
	char *both;

	if (!l->metrics) {
		l->metrics = v;
		return;
	}
	if (asprintf(&both, "%s,%s", l->metrics, v) < 0)
		exit(2);
	l->metrics = both;	/* lives as long as the run */
}

/* 0: run; 1: done (help, version, list); 2: bad usage, said why. */
static int parse_opts(int argc, char **argv, struct launch *l)
{
	static const struct option lo[] = {
		{ "events", required_argument, NULL, 'e' }, { "depth", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' }, { "quiet", no_argument, NULL, 'q' },
		{ "table", required_argument, NULL, 'O' },
		{ "list-events", no_argument, NULL, OPT_LIST },
		{ "metrics", required_argument, NULL, 'M' }, { "group", required_argument, NULL, 'g' },
		{ "metrics-file", required_argument, NULL, OPT_METRICS_FILE },
		{ "list-metrics", no_argument, NULL, OPT_LIST_METRICS },
		{ "repeat", required_argument, NULL, 'r' },
		{ "sample", optional_argument, NULL, 's' },
		{ "check", no_argument, NULL, OPT_CHECK }, { "system", no_argument, NULL, OPT_SYSTEM },
		{ "interval", required_argument, NULL, 'I' }, { "cpus", required_argument, NULL, 'C' },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "version", no_argument, NULL, OPT_VERSION }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 } };
	int c, list_metrics = 0;

	opterr = 0;
	/* '+': options end at the command; its own options are its own. */
	while ((c = getopt_long(argc, argv, "+:e:d:o:O:qhM:g:r:s::I:C:", lo, NULL)) != -1) {
		switch (c) {
		case 'e': l->events = optarg, l->events_from = "-e", l->events_default = 0; break;
		case 'd':
			if (check_depth(optarg) != 0)
				return 2;
			l->depth = optarg;
			break;
		case 'o':
			if (!*optarg) {	/* a script's unset variable */
				fputs(LAUNCHER ": -o '': no directory named\n", stderr);
				return 2;
			}
			l->outdir = optarg;
			break;
		case 'q': l->quiet = 1; break;
		case 's':
			if (check_sample(optarg, &l->sample) != 0)
				return 2;
			break;
		case 'O':
			if (!*optarg) {
				fputs(LAUNCHER ": --table '': no file named\n", stderr);
				return 2;
			}
			l->table = optarg;
			break;
		case 'M': case 'g':
			if (!*optarg) {
				fprintf(stderr, LAUNCHER ": -%c '': no metric named\n", c);
				return 2;
			}
			add_metrics(l, optarg);
			break;
		case OPT_METRICS_FILE: l->metrics_file = optarg; break;
		case OPT_LIST_METRICS: list_metrics = 1; break;
		case 'r':
			if (check_repeat(optarg, &l->repeat) != 0)
				return 2;
			break;
		case OPT_CHECK: l->check = 1; break;
		case OPT_SYSTEM: l->sys.on = 1; break;
		case 'I': case 'C': case OPT_DURATION:
			if (launch_system_opt(&l->sys, c == OPT_DURATION ? 'D' : c, optarg) != 0)
				return 2;
			break;
		case OPT_LIST: launch_list_events(); return 1;
		case OPT_VERSION: puts(LAUNCHER " " PMCSHIM_VERSION); return 1;
		case 'h': usage(stdout); return 1;
		default: badopt_say(LAUNCHER, argv, c); return 2;
		}
	}
	if (list_metrics)
		return launch_list_metrics(l->metrics_file) ? 2 : 1;
	if (l->sys.given && !l->sys.on) {
		fputs(LAUNCHER ": -I, -C and --duration go with --system\n", stderr);
		return 2;
	}
	l->argv = argv + optind;
	if (l->check || l->sys.on)
		return 0;
	if (optind == argc) {
		fputs(LAUNCHER ": no command given (usage: " LAUNCHER " [OPTIONS] COMMAND "
		      "[ARGS...]; --help for more)\n", stderr);
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct launch l = { .table_fd = -1 };
	int rc, signo, ran;

	l.events = getenv("PMCSHIM_EVENTS") ? getenv("PMCSHIM_EVENTS") : CONFIG_DEFAULT_EVENTS;
	l.events_from = "PMCSHIM_EVENTS";
	l.events_default = !getenv("PMCSHIM_EVENTS");
	l.sys.argc = argc, l.sys.argv = argv;
	if ((rc = parse_opts(argc, argv, &l)))
		return rc == 1 ? 0 : 2;
	/* --check asks about the PMU's; --system has its own */
	if (l.events_default && !l.check && !l.sys.on)
		l.events = config_default_events(l.events_why, sizeof(l.events_why));
	if (launch_metrics(&l) != 0 || launch_check_events(l.events, l.events_from) != 0)
		return 2;
	if (l.check)
		return launch_check(l.events) ? 1 : 0;
	if (l.sys.on)
		return launch_system(&l);
	launch_check_env(&l);
	launch_job_detect(&l);
	if (l.rank >= 0 && l.repeat > 1) {
		fputs(LAUNCHER ": -r: not in an MPI job (repeat the job instead)\n", stderr);
		return 2;
	}
	if (launch_find_tools(&l) != 0 || launch_open_table(&l) != 0 ||
	    (l.rank >= 0 ? launch_job_dir(&l) : launch_make_dir(&l)) != 0)
		return 2;
	/* an MPI job's notice: rank 0's; with --table the table says it */
	if (!l.quiet && !l.table && l.rank <= 0) {
		launch_events_notice(l.events);
		launch_defaults_notice(&l);
	}
	if (l.repeat > 1)
		launch_exit(&l, launch_repeat(&l, &signo), signo);
	rc = launch_command(&l, &signo, &ran);
	if (l.rank >= 0)
		launch_job_end(&l);
	else if (ran)
		launch_show_reports(&l);
	else
		rmdir(l.dir);	/* nothing ran: leave nothing behind */
	launch_exit(&l, rc, signo);
}
