/* The launcher's -M/-g (the metrics' events counted, their columns shown
 * by the reader), --list-metrics, and -r (repeated runs). */
#include "launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "counters/events.h"
#include "common/metrics_def.h"

#define MAX_METRICS 32

/* A metric's events the shim cannot name: one line each. */
static int check_events(const struct metric *m)
{
	struct event_spec ev;
	char err[1024];
	int bad = 0;

	for (size_t e = 0; e < m->nev; e++)
		if (events_parse_one(m->ev[e], &ev, err, sizeof(err)) != 0) {
			fprintf(stderr, LAUNCHER ": -M: metric %s (%s:%d): %s\n", m->name, m->file,
				m->line, err);
			bad = 1;
		}
	return bad;
}

/* to, a comma separated list, gets name unless it has it. */
static void add_event(char **to, const char *name)
{
	char *copy = strdup(*to), *save = NULL, *both;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (!strcmp(t, name)) {
			free(copy);
			return;
		}
	free(copy);
	if (asprintf(&both, "%s%s%s", *to, **to ? "," : "", name) < 0)
		exit(2);
	free(*to);
	*to = both;
}

int launch_metrics(struct launch *l)
{
	static struct mdefs defs;	/* its names live as long as the run */
	const struct metric *m[MAX_METRICS];
	char why[512], *events;
	int n, bad = 0;

	if (!l->metrics)
		return 0;
	if (mdefs_load(&defs, l->metrics_file, why, sizeof(why)) != 0) {
		fprintf(stderr, LAUNCHER ": %s\n", why);
		return -1;
	}
	if ((n = mdefs_select(&defs, l->metrics, m, MAX_METRICS, why, sizeof(why))) < 0) {
		fprintf(stderr, LAUNCHER ": -M: %s\n", why);
		return -1;
	}
	events = strdup(strcmp(l->events, "none") ? l->events : "");
	for (int i = 0; i < n; i++) {
		bad |= check_events(m[i]);
		for (size_t e = 0; e < m[i]->nev; e++)
			add_event(&events, m[i]->ev[e]);
	}
	if (bad)
		return free(events), -1;
	l->events = events;
	l->events_default = 0;	/* the processes are told them */
	l->reader_args[l->nreader_args++] = "-M";
	l->reader_args[l->nreader_args++] = (char *)l->metrics;
	if (l->metrics_file) {
		l->reader_args[l->nreader_args++] = "--metrics-file";
		l->reader_args[l->nreader_args++] = (char *)l->metrics_file;
	}
	return 0;
}

int launch_list_metrics(const char *file)
{
	struct mdefs defs;
	char why[1024];

	if (mdefs_load(&defs, file, why, sizeof(why)) != 0) {
		fprintf(stderr, LAUNCHER ": %s\n", why);
		return 2;
	}
	puts("Each metric, and whether this machine can compute it now (its events\n"
	     "opened once, here, as the shim opens them): yes, or no and why.");
	for (size_t i = 0; i < defs.nfiles; i++)
		printf("# %s\n", defs.files[i]);
	for (size_t i = 0; i < defs.n; i++) {
		const struct metric *m = &defs.m[i];
		const char *bad = NULL;

		for (size_t e = 0; e < m->nev && !bad; e++)
			if (launch_why_not(m->ev[e], why, sizeof(why)) != 0)
				bad = m->ev[e];
		/* the reason may name the event already */
		if (bad && strstr(why, bad))
			bad = "";
		printf("  %-24s %s%s%s%s\n", m->name, bad ? "no: " : "yes", bad ? bad : "",
		       bad && *bad ? ": " : "", bad ? why : "");
	}
	for (size_t i = 0; i < defs.ngroup; i++) {
		printf("  group %-18s", defs.g[i].name);
		for (size_t k = 0; k < defs.g[i].n; k++)
			printf("%s %s", k ? "," : "", defs.g[i].metric[k]);
		putchar('\n');
	}
	mdefs_free(&defs);
	return 0;
}

int launch_repeat(struct launch *l, int *signo)
{
	char base[sizeof(l->dir)], *args[1 + 1000];
	int rc = 0, ran = 0, done = 0;

	memcpy(base, l->dir, sizeof(base));
	args[0] = "--repeat";
	*signo = 0;
	for (int k = 0; k < l->repeat && !*signo; k++) {
		if ((size_t)snprintf(l->dir, sizeof(l->dir), "%s/%d", base, k + 1) >= sizeof(l->dir) ||
		    mkdir(l->dir, 0700) != 0) {
			perror(LAUNCHER ": a run's directory");
			break;
		}
		rc = launch_command(l, signo, &ran);
		if (!ran) {
			rmdir(l->dir);
			break;
		}
		if (!(args[1 + done++] = strdup(l->dir)))
			exit(2);
	}
	if (done == 1) {	/* stopped after one: its table */
		snprintf(l->dir, sizeof(l->dir), "%s", args[1]);
		launch_show_reports(l);
	}
	memcpy(l->dir, base, sizeof(base));
	if (done > 1) {
		int r = launch_run_reader(l, args, done + 1, NULL, 0);

		if (r)
			fprintf(stderr, LAUNCHER ": %s exited with status %d\n", l->reader, r);
		else if (!l->quiet)
			fprintf(stderr, LAUNCHER ": %d runs in %s\n", done, base);
	}
	if (!done)
		rmdir(base);
	for (int i = 1; i <= done; i++)
		free(args[i]);
	return rc;
}
