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
 * the command's status.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PMCSHIM_API_ONLY	/* the version only: no marker machinery */
#include "pmcshim.h"

#include "config.h"
#include "launch.h"

static void usage(FILE *out)
{
	fputs("usage: " LAUNCHER " [OPTIONS] [--] COMMAND [ARGS...]\n"
	      "Run COMMAND with libpmcshim.so preloaded: every process it starts writes its\n"
	      "report into one run directory, then the merged region table is printed on\n"
	      "stderr and " LAUNCHER " exits with COMMAND's exit status.\n"
	      "  -e, --events LIST  events to count, comma separated (default: PMCSHIM_EVENTS,\n"
	      "                     else " CONFIG_DEFAULT_EVENTS "); see --list-events\n"
	      "  -d, --depth N      call-site stack frames above each marker, 0..64 (default 8)\n"
	      "  -o, --output DIR   the run directory (made if missing; must be empty);\n"
	      "                     default: pmcshim-COMMAND-YYYYmmdd-HHMMSS here\n"
	      "  -q, --quiet        the table alone: no notices (unavailable events, where\n"
	      "                     the reports are)\n"
	      "  -O, --table FILE   the table into FILE instead of stderr (made or\n"
	      "                     truncated); stderr then gets one line\n"
	      "      --list-events  the event names this machine accepts\n"
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

enum { OPT_LIST = 256, OPT_VERSION };

/* 0: run; 1: done (help, version, list); 2: bad usage, said why. */
static int parse_opts(int argc, char **argv, struct launch *l)
{
	static const struct option lo[] = {
		{ "events", required_argument, NULL, 'e' }, { "depth", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' }, { "quiet", no_argument, NULL, 'q' },
		{ "table", required_argument, NULL, 'O' },
		{ "list-events", no_argument, NULL, OPT_LIST },
		{ "version", no_argument, NULL, OPT_VERSION }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 } };
	int c;

	/* '+': options end at the command; its own options are its own. */
	while ((c = getopt_long(argc, argv, "+e:d:o:O:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'e': l->events = optarg; break;
		case 'd':
			if (check_depth(optarg) != 0)
				return 2;
			l->depth = optarg;
			break;
		case 'o': l->outdir = optarg; break;
		case 'q': l->quiet = 1; break;
		case 'O': l->table = optarg; break;
		case OPT_LIST: launch_list_events(); return 1;
		case OPT_VERSION: puts(LAUNCHER " " PMCSHIM_VERSION); return 1;
		case 'h': usage(stdout); return 1;
		default: usage(stderr); return 2;
		}
	}
	if (optind == argc) {
		fputs(LAUNCHER ": no command given\n", stderr);
		usage(stderr);
		return 2;
	}
	l->argv = argv + optind;
	return 0;
}

int main(int argc, char **argv)
{
	static struct launch l = { .table_fd = -1 };
	int rc, signo, ran;

	l.events = getenv("PMCSHIM_EVENTS") ? getenv("PMCSHIM_EVENTS") : CONFIG_DEFAULT_EVENTS;
	if ((rc = parse_opts(argc, argv, &l)))
		return rc == 1 ? 0 : 2;
	if (launch_check_events(l.events) != 0)
		return 2;
	if (launch_find_tools(&l) != 0 || launch_open_table(&l) != 0 ||
	    launch_make_dir(&l) != 0)
		return 2;
	/* With --table the table says it: stderr gets one line. */
	if (!l.quiet && !l.table)
		launch_events_notice(l.events);
	rc = launch_command(&l, &signo, &ran);
	if (ran)
		launch_show_reports(&l);
	else
		rmdir(l.dir);	/* nothing ran: leave nothing behind */
	launch_exit(&l, rc, signo);
}
