/*
 * pmcshim-report: the reader of pmcshim report files (docs/report-format.md,
 * version 2: preload/format/reportfile.h), finished or still being written.
 *
 *   pmcshim-report [OPTIONS] FILE...          regions, merged over threads/files
 *   pmcshim-report diff [OPTIONS] BEFORE AFTER
 *
 * Every file is loaded and checked in full before anything is printed: a
 * bad file gives one line on stderr, naming it and what is wrong, and exit
 * status 2.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <malloc.h>
#include <regex.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#define PMCSHIM_API_ONLY	/* PMCSHIM_VERSION only */
#include "../../include/pmcshim.h"
#include "common/badopt.h"
#include "reader/data/report_load.h"
#include "reader/data/report_model.h"
#include "reader/data/report_runs.h"
#include "reader/views/report_metrics.h"
#include "reader/views/report_functions.h"
#include "reader/views/report_render.h"
#include "reader/data/report_symbols.h"
#include "reader/data/symbolize.h"
#include "reader/views/report_tree.h"
#include "reader/views/report_repeat.h"
#include "reader/views/report_system.h"

static void usage(FILE *out)
{
	fputs("usage: " PROG " [OPTIONS] FILE...\n"
	      "       " PROG " diff [OPTIONS] BEFORE AFTER\n"
	      "       " PROG " --watch[=SECONDS] [--raw] FILE\n"
	      "Summarize pmcshim reports: per region, calls, wall time and each event's\n"
	      "inclusive and exclusive totals, per-call mean/min/max, IPC and share, with\n"
	      "the threads (and files: the processes of one run) merged.\n"
	      "  --threads          also per thread: totals and regions\n"
	      "  --by-process       also per process (file)\n"
	      "  --by-command       the totals per executable (processes, threads, CPU,\n"
	      "                     each event) instead of per process; with diff, the\n"
	      "                     rows per executable alone (csv, json)\n"
	      "  --ranks            the MPI ranks: per rank the weight in MPI calls and\n"
	      "                     outside them (the slowest rank marked), and each region's\n"
	      "                     spread across ranks (min, mean, max); shown without the\n"
	      "                     option when the files hold two ranks or more\n"
	      "  --stacks           each region's call-site stacks, heaviest first\n"
	      "  --no-symbolize     name frames from the report only (no debug info)\n"
	      "  --raw              values as measured: the markers' own cost (calibrated at\n"
	      "                     setup, taken out by default) left in, and a multiplexed\n"
	      "                     event's count not scaled (by default a value counted\n"
	      "                     only part of its region's time shows its estimate,\n"
	      "                     value x enabled / running, marked '*')\n"
	      "  --sort FIELD       incl (default), excl, mean, min, max (of the weight),\n"
	      "                     calls, share, ipc, wall, name, coverage (the least\n"
	      "                     counted first), source (then by incl)\n"
	      "  --min-coverage PCT leave out regions whose least-counted event ran on a\n"
	      "                     counter less than PCT% of their time (0 to 100; a\n"
	      "                     note says how many)\n"
	      "  --top N            the first N regions of each table (N stacks per region);\n"
	      "                     not with --tree, folded, speedscope, html or --watch\n"
	      "  --region REGEX     only regions whose name matches (POSIX extended); in a\n"
	      "                     tree, the paths through them (their parents as context)\n"
	      "  --source LIST      only regions from these sources, comma-separated:\n"
	      "                     markers, functions (-finstrument-functions), openmp,\n"
	      "                     mpi\n"
	      "  --event NAME       the weight: an event, or wall (default: the first\n"
	      "                     event with values, else wall)\n"
	      "  --format FORMAT    table (default), csv, folded (region paths for flame\n"
	      "                     graphs: main;solve;factor WEIGHT), folded-stacks (the\n"
	      "                     sampled stacks of a run with --sample, else each\n"
	      "                     region's call-site stacks folded), speedscope (a region\n"
	      "                     flame graph for the speedscope viewer), html (one\n"
	      "                     self-contained page), json (each file in full),\n"
	      "                     json-table (the table as JSON)\n"
	      "  --tree             the region tree instead of the table: each region\n"
	      "                     under the one open at its begin, with calls, inclusive\n"
	      "                     and exclusive weight and its incl share of the total\n"
	      "                     (share: always exclusive; inclusive: a region's excl\n"
	      "                     and all closed inside it, a recursive re-entry not\n"
	      "                     counted again)\n"
	      "  --min-share PCT    --tree: children below PCT% of the total collapsed into\n"
	      "                     one line (default 0: every node)\n"
	      "  --functions        the sampled functions alone (a run with --sample):\n"
	      "                     function, module, samples, share, estimated time; with\n"
	      "                     --region, those inside the regions it selects (table\n"
	      "                     and csv; the table shows them after the regions);\n"
	      "                     with --stacks, the sampled stacks too\n"
	      "  --children         the functions' inclusive shares too (samples whose\n"
	      "                     stack holds the function, once each), as perf\n"
	      "                     report --children; sorted by them\n"
	      "  --totals           the totals alone (table and csv): the run's, each\n"
	      "                     process's, with --threads each thread's\n"
	      "  -M, --metrics LIST derived metrics (comma separated names or groups, from\n"
	      "                     metrics/*.def): an incl and an excl column each in the\n"
	      "                     region tables, a column in the thread tables\n"
	      "  --metrics-file FILE  more metric definitions, read after the installed ones\n"
	      "  --list-metrics     the metric definitions and groups, and their events\n"
	      "  --repeat           the files are repeated runs of one program (a directory:\n"
	      "                     one run, its files merged): per region and in total,\n"
	      "                     mean +- stddev, min and max over the runs\n"
	      "  --collapse-unavailable  leave out the columns of events that no row\n"
	      "                     could count (one note instead of columns of n/a),\n"
	      "                     one events line for files that share their events\n"
	      "  --intervals        a system report (pmcshim --system): also a row per\n"
	      "                     interval (each CPU, the processes shown)\n"
	      "  --version          the version\n"
	      "  -h, --help         this help\n"
	      "--watch: a running process's file every SECONDS (default 1, decimals\n"
	      "allowed): per interval, each region that changed with its new calls and\n"
	      "what each inclusive total grew by, until the process ends; calibrated like\n"
	      "the table, and a value counted only part of the interval scaled by the\n"
	      "interval's own enabled / running and marked '*' (--raw: as measured).\n"
	      "diff: per region, the change from BEFORE to AFTER in calls, wall time and\n"
	      "each event, absolute and as a ratio, largest change of the weight first.\n"
	      "Exit status: 0 ok, 1 write error, 2 bad usage or an unreadable or invalid\n"
	      "report, or a profile (folded, speedscope, html) with nothing to draw.\n", out);
}

static int lookup(const char *what, const char *arg, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(arg, names[i]))
			return i;
	fprintf(stderr, PROG ": %s: unknown value '%s' (one of:", what, arg);
	for (int i = 0; i < n; i++)
		fprintf(stderr, " %s", names[i]);
	fputs(")\n", stderr);
	return -1;
}

/* --watch's SECONDS: positive, at most a day. */
static int parse_interval(const char *arg, double *v)
{
	char *end;

	if (!arg) {
		*v = 1;
		return 0;
	}
	errno = 0;
	*v = strtod(arg, &end);
	if (errno || end == arg || *end || !(*v >= 0.001 && *v <= 86400)) {
		fprintf(stderr, PROG ": --watch: '%s' is not a number of seconds (0.001 to 86400)\n",
			arg);
		return 2;
	}
	return 0;
}

/* --min-coverage's or --min-share's PCT ("50", "12.5", "50%"), as a
 * fraction. */
static int parse_percent(const char *what, const char *arg, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(arg, &end);
	if (*end == '%')
		end++;
	if (errno || end == arg || *end || !(*v >= 0 && *v <= 100)) {
		fprintf(stderr, PROG ": %s: '%s' is not a percentage (0 to 100)\n", what, arg);
		return 2;
	}
	*v /= 100;
	return 0;
}

/* --source's LIST: markers,functions,openmp,mpi,likwid,papi,nvtx, as a
 * bit per rf_from. */
static int parse_sources(const char *arg, unsigned *mask)
{
	const char *names[RF_FROM_KINDS];
	char buf[256], *save, *item;
	int v;

	for (unsigned k = 0; k < RF_FROM_KINDS; k++)
		names[k] = rf_from_name(k);

	snprintf(buf, sizeof(buf), "%s", arg);
	*mask = 0;
	for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		if ((v = lookup("--source", item, names, RF_FROM_KINDS)) < 0)
			return 2;
		*mask |= 1u << v;
	}
	if (!*mask) {
		fprintf(stderr, PROG ": --source: give markers, functions, openmp, mpi, likwid, "
			"papi or nvtx\n");
		return 2;
	}
	return 0;
}
static const char *metrics_arg, *metrics_file;
static bool list_metrics, repeat, collapse, intervals;

/* Fills o from argv; 0 ok, -1 --help or --version shown, 2 bad usage (said
 * why). */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "threads", no_argument, NULL, 't' }, { "by-process", no_argument, NULL, 'p' },
		{ "ranks", no_argument, NULL, 'k' },
		{ "stacks", no_argument, NULL, 's' }, { "no-symbolize", no_argument, NULL, 'S' },
		{ "raw", no_argument, NULL, 'R' },
		{ "sort", required_argument, NULL, 'o' }, { "top", required_argument, NULL, 'n' },
		{ "region", required_argument, NULL, 'r' }, { "event", required_argument, NULL, 'e' },
		{ "format", required_argument, NULL, 'f' }, { "help", no_argument, NULL, 'h' },
		{ "watch", optional_argument, NULL, 'w' }, { "version", no_argument, NULL, 'V' },
		{ "collapse-unavailable", no_argument, NULL, 'C' },
		{ "totals", no_argument, NULL, 'T' },
		{ "min-coverage", required_argument, NULL, 'c' },
		{ "source", required_argument, NULL, 'F' },
		{ "tree", no_argument, NULL, 'E' }, { "min-share", required_argument, NULL, 'm' },
		{ "metrics", required_argument, NULL, 'M' },
		{ "metrics-file", required_argument, NULL, 'Q' },
		{ "list-metrics", no_argument, NULL, 'L' },
		{ "repeat", no_argument, NULL, 'P' }, { "functions", no_argument, NULL, 'U' },
		{ "intervals", no_argument, NULL, 'N' },
		{ "by-command", no_argument, NULL, 'B' }, { "children", no_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 } };
	static const char *const sorts[] = { "incl", "excl", "mean", "min", "max", "calls",
					     "share", "ipc", "wall", "name", "coverage", "source" };
	static const char *const formats[] = { "table", "csv", "json", "folded", "json-table",
					       "folded-stacks", "speedscope", "html" };
	char *end, msg[256];
	int c, v, err;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hM:", lo, NULL)) != -1) {
		switch (c) {
		case 't': o->threads = true; break;
		case 'p': o->by_process = true; break;
		case 'B': o->by_command = true; break;
		case 'k': o->ranks = true; break;
		case 's': o->stacks = true; break;
		case 'S': o->symbolize = false; break;
		case 'R': o->raw = true; break;
		case 'E': o->tree = true; break;
		case 'm':
			if (parse_percent("--min-share", optarg, &o->min_share))
				return 2;
			break;
		case 'e': o->event = optarg; break;
		case 'h': usage(stdout); return -1;
		case 'w':
			if (parse_interval(optarg, &o->watch))
				return 2;
			break;
		case 'V': puts(PROG " " PMCSHIM_VERSION); return -1;
		case 'C': render_table_collapse(true), collapse = true; break;
		case 'M': metrics_arg = optarg; break;
		case 'Q': metrics_file = optarg; break;
		case 'L': list_metrics = true; break;
		case 'P': repeat = true; break;
		case 'N': intervals = true; break;
		case 'T': o->totals = true; break;
		case 'U': o->functions = true; break;
		case 'D': o->children = true; break;
		case 'c':
			if (parse_percent("--min-coverage", optarg, &o->min_coverage))
				return 2;
			o->has_min_coverage = true;
			break;
		case 'o':
			if ((v = lookup("--sort", optarg, sorts, 12)) < 0)
				return 2;
			o->sort = (enum sort_field)v, o->sort_given = true;
			break;
		case 'f':
			if ((v = lookup("--format", optarg, formats, 8)) < 0)
				return 2;
			o->format = (enum out_format)v;
			break;
		case 'n':
			errno = 0;
			o->top = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || *optarg == '-' || !o->top) {
				fprintf(stderr, PROG ": --top: '%s' is not a positive number\n", optarg);
				return 2;
			}
			break;
		case 'F':
			if (parse_sources(optarg, &o->sources))
				return 2;
			break;
		case 'r':
			if (o->has_re)
				regfree(&o->re);
			if ((err = regcomp(&o->re, optarg, REG_EXTENDED | REG_NOSUB))) {
				regerror(err, &o->re, msg, sizeof(msg));
				fprintf(stderr, PROG ": --region '%s': %s\n", optarg, msg);
				o->has_re = false;
				return 2;
			}
			o->has_re = true;
			break;
		default:
			badopt_say(PROG, argv, c);
			return 2;
		}
	}
	if (list_metrics)
		return metrics_list(stdout, metrics_file) ? 2 : -1;
	if (metrics_arg && metrics_choose(metrics_arg, metrics_file))
		return 2;
	return 0;
}

/* The reason may quote the input (a name from the file): no control
 * characters reach the terminal. */
/* Loads every file, or none: the first bad one is reported. */
/* Said once per file, on stderr so that every format (the table, CSV,
 * folded, speedscope) keeps its output as it was. */
static void warn_broken_tree(const struct report *r)
{
	if (r->nbroken_parents)
		fprintf(stderr, PROG ": %s: warning: %zu site%s with a broken parent (not an "
			"earlier site of %s thread: a damaged region tree), shown as outermost: "
			"the tree is partial\n", r->path, r->nbroken_parents,
			r->nbroken_parents == 1 ? "" : "s", r->nbroken_parents == 1 ? "its" : "their");
}

static struct report **load_all(char **path, size_t n, bool raw, bool symbolize)
{
	struct report **r = xcalloc(n, sizeof(*r));
	struct symbolizer *sz = symbolize ? symbolizer_new() : NULL;
	char why[600];

	for (size_t i = 0; i < n; i++) {
		if (!(r[i] = report_load_file(path[i], why, sizeof(why)))) {
			say_bad(path[i], why);
			while (i-- > 0)
				report_free(r[i]);
			free(r);
			symbolizer_free(sz);
			return NULL;
		}
		r[i]->raw = raw;
		if (sz)
			symbols_name_regions(sz, r[i]);
		if (r[i]->missing || r[i]->shrank)
			fprintf(stderr, PROG ": %s: warning: %s%" PRIu64 " bytes of records missing\n",
				path[i], r[i]->shrank ? "it shrank while being read: " : "cut short: ",
				r[i]->missing);
		if (r[i]->thread_dups)
			fprintf(stderr, PROG ": %s: warning: %zu thread record%s written twice (the "
				"repair of a cut file): the later of each is read\n", path[i],
				r[i]->thread_dups, r[i]->thread_dups == 1 ? "" : "s");
		warn_broken_tree(r[i]);
	}
	symbolizer_free(sz);
	return r;
}

static bool draws_tree(const struct opts *o)
{
	return o->tree || o->format == F_FOLDED || o->format == F_SPEEDSCOPE ||
	       o->format == F_HTML;
}

/* An option a view cannot honour is refused, saying why (NULL: none). */
static const char *refused(const struct opts *o, bool is_diff)
{
	if (o->top && draws_tree(o) && !is_diff)
		return "--top cuts a table's rows: --tree, --format folded, speedscope and html "
		       "keep whole paths, so that they add up (--tree: --min-share folds the "
		       "small ones)";
	if (o->top && o->watch > 0)
		return "--top: --watch prints every region that changed in an interval";
	if ((o->top || o->has_re || o->sources) && o->format == F_JSON && !is_diff)
		return "--format json is each file in full: --top, --region and --source do "
		       "not apply (--format json-table applies them)";
	return NULL;
}

/* A profile (folded, speedscope, html) with nothing in it says why, on
 * stderr, and the run fails: an empty flame graph reads as "no time". */
static bool profile_empty(const struct model *m)
{
	const char *why = NULL;
	bool any = false;

	for (size_t i = 0; i < m->nthreads; i++) {
		const struct mthread *t = &m->threads[i];

		for (size_t j = 0; j < t->t->nrows; j++) {
			const struct rf_site *s = rep_site(m->files[t->file], t->t, j);

			if (!m->selected[mthread_region(m, t, s)])
				continue;
			any = true;
			if (model_row_own(m, t, j, m->weight).present)
				return false;
		}
	}
	for (size_t f = 0; m->weight >= 0 && f < m->nfiles && !why; f++) {
		int k = m->evmap[f * m->nev + (size_t)m->weight];

		why = k >= 0 ? m->files[f]->ev[k].reason : NULL;
	}
	if (!any)
		fprintf(stderr, PROG ": nothing to draw: no region%s\n",
			m->o->has_re || m->o->sources ? " matches --region and --source" :
			" in the report");
	else
		fprintf(stderr, PROG ": nothing to draw: no region has a value of %s%s%s%s\n",
			model_weight_name(m), why ? " (" : "", why ? why : "", why ? ")" : "");
	return true;
}

/* speedscope and the HTML page draw sampled stacks too: a run sampled
 * without regions still has a profile. */
static bool sampled_profile(const struct model *m)
{
	return (m->o->format == F_SPEEDSCOPE || m->o->format == F_HTML) && functions_kept(m);
}

/* The launchers' totals files among the arguments (runs_take_jobs). */
static struct rf_job *jobs;
static size_t njobs;

static int summarize(struct report **files, size_t n, const struct opts *o)
{
	char why[512];
	struct model *m = model_new(files, n, o, why, sizeof(why));

	if (!m) {
		fprintf(stderr, PROG ": %s\n", why);
		return 2;
	}
	m->jobs = jobs, m->njobs = njobs;
	if (o->format != F_JSON) /* the export is per file, not aggregated */
		model_tables(m);
	if (collapse)
		metrics_collapse(m);
	if ((o->format == F_FOLDED || (o->format == F_FOLDED_STACKS && !functions_present(m)) ||
	     o->format == F_SPEEDSCOPE || o->format == F_HTML) && !sampled_profile(m) &&
	    profile_empty(m)) {
		model_free(m);
		return 2;
	}
	switch (o->format) {
	case F_TABLE:
		if (o->functions) {
			render_functions(stdout, m);
			break;
		}
		if (o->tree)
			render_tree(stdout, m);
		else
			render_table(stdout, m);
		if (!o->totals)
			render_ranks(stdout, m);
		if (!o->totals && functions_present(m))
			render_functions(stdout, m);
		metrics_notes(stdout, m);
		break;
	case F_CSV:
		if (o->functions)
			render_functions_csv(stdout, m);
		else if (o->totals)
			render_totals_csv(stdout, m);
		else
			render_csv(stdout, m);
		break;
	case F_JSON: render_export(stdout, m); break;
	case F_FOLDED: render_tree_folded(stdout, m); break;
	case F_JSON_TABLE: render_json_table(stdout, m); break;
	case F_FOLDED_STACKS:
		/* sampled stacks where there are: the whole run's, by samples */
		if (o->functions || functions_present(m))
			render_functions_folded(stdout, m);
		else
			render_folded(stdout, m);
		break;
	case F_SPEEDSCOPE: render_speedscope(stdout, m); break;
	case F_HTML: render_html(stdout, m); break;
	}
	model_free(m);
	return 0;
}

static int diff(struct report **files, const struct runs *in, char **args,
		const struct opts *o)
{
	char why[512];
	const char *const name[2] = { args[0], args[1] };
	int rc = run_diff(stdout, files, in->n, in->part, name, o, why, sizeof(why));

	if (rc)
		fprintf(stderr, PROG ": %s\n", why);
	return rc;
}

/* Reports of pmcshim --system: their own views (report_system.c). */
static int read_system(char **path, size_t n, const struct opts *o, bool is_diff)
{
	static const int as[] = { [F_TABLE] = SYS_TABLE, [F_CSV] = SYS_CSV, [F_JSON] = SYS_JSON,
				  [F_HTML] = SYS_HTML, [F_FOLDED] = -1, [F_JSON_TABLE] = -1,
				  [F_FOLDED_STACKS] = -1, [F_SPEEDSCOPE] = -1 };
	struct system_view_opts so = { .format = (enum system_format)as[o->format],
				       .intervals = intervals, .top = o->top, .event = o->event,
				       .watch = o->watch };

	if (as[o->format] < 0 || (is_diff && o->format == F_HTML) || (o->watch > 0 && is_diff)) {
		fputs(PROG ": a system report reads as a table, --format csv, json or html (diff: "
		      "table, csv or json; --watch: a table)\n", stderr);
		return 2;
	}
	if (is_diff) {
		if (n != 2 || !system_is_report(path[0]) || !system_is_report(path[1])) {
			fputs(PROG ": diff: a system report is compared with another one\n", stderr);
			return 2;
		}
		return system_diff(stdout, path[0], path[1], &so);
	}
	if (n != 1) {
		fputs(PROG ": a system report is read alone\n", stderr);
		return 2;
	}
	return o->watch > 0 ? system_watch(stdout, path[0], &so) : system_view(stdout, path[0], &so);
}

int main(int argc, char **argv)
{
	static char outbuf[1 << 16];
	struct opts o = { .symbolize = true };
	bool is_diff = argc > 1 && !strcmp(argv[1], "diff"), sys;
	struct report **files;
	struct runs in = { 0 };
	char **args;
	size_t n;
	int rc;

	/* Arrays of a million rows grow by doubling: mapped on their own,
	 * realloc moves their pages instead of copying them (glibc would
	 * raise the threshold after the first big free). */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	if ((rc = parse_opts(argc - is_diff, argv + is_diff, &o))) {
		rc = rc < 0 ? 0 : rc;
		goto out;
	}
	n = (size_t)(argc - is_diff - optind);
	rc = 2;
	if (is_diff && (n != 2 || o.threads || o.by_process || o.stacks ||
			o.has_min_coverage || o.sort == S_COVERAGE)) {
		fputs(n != 2 ? PROG ": diff: give two reports or run directories, BEFORE and "
		      "AFTER\n" :
		      PROG ": diff: --threads, --by-process, --stacks, --min-coverage and --sort "
		      "coverage do not apply\n", stderr);
		goto out;
	}
	if (!n) {
		fputs(PROG ": no report file given (usage: " PROG " [OPTIONS] FILE...; --help "
		      "for more)\n", stderr);
		goto out;
	}
	/* (a system report's views take --top with --watch and html) */
	sys = system_is_report(argv[optind + is_diff]) ||
	      (is_diff && n == 2 && system_is_report(argv[optind + 2]));
	if (!sys && refused(&o, is_diff)) {
		fprintf(stderr, PROG ": %s\n", refused(&o, is_diff));
		goto out;
	}
	if (o.tree && o.format != F_TABLE && !is_diff) {
		fputs(PROG ": --tree prints a table; --format folded, speedscope and html draw the "
		      "tree themselves\n", stderr);
		goto out;
	}
	if (repeat) {
		if (is_diff || n < 2)
			fputs(PROG ": --repeat: give two runs or more (report files, or one "
			      "directory per run)\n", stderr);
		else
			rc = run_repeat(stdout, argv + optind, n, &o);
		goto out;
	}
	args = argv + is_diff + optind;
	if (runs_expand(&in, args, n))
		goto out;
	if (in.n >= 1 && (system_is_report(in.path[0]) ||
			  (is_diff && in.n == 2 && system_is_report(in.path[1])))) {
		rc = read_system(in.path, in.n, &o, is_diff);
		goto out;
	}
	if (runs_take_jobs(&in, &jobs, &njobs) != 0)
		goto out;
	if (!in.n) {
		fputs(PROG ": no report file given, only a launcher's totals (the reports are "
		      "the files next to it)\n", stderr);
		goto out;
	}
	if (o.watch > 0) {
		if (is_diff || in.n != 1)
			fprintf(stderr, PROG ": --watch: give one file (or a run directory holding "
				"one)%s\n", in.n > 1 ? "; this gives several" : "");
		else
			rc = run_watch(stdout, in.path[0], &o);
		goto out;
	}
	if (!(files = load_all(in.path, in.n, o.raw, o.symbolize)))
		goto out;
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	/* one thread writes: no lock taken per call (millions in an export) */
	__fsetlocking(stdout, FSETLOCKING_BYCALLER);
	rc = is_diff ? diff(files, &in, args, &o) : summarize(files, in.n, &o);
	if (fflush(stdout) || ferror(stdout)) { /* e.g. a full disk */
		fprintf(stderr, PROG ": write error: %s\n", strerror(errno));
		rc = 1;
	}
	for (size_t i = 0; i < in.n; i++)
		report_free(files[i]);
	free(files);
out:
	runs_free(&in);
	free(jobs);
	if (o.has_re)
		regfree(&o.re);
	return rc;
}
