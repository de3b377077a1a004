/* The launcher's side of events: names checked before the command runs,
 * and the "unavailable" notice printed once for the whole run (the
 * processes run with PMCSHIM_QUIET=1), found by opening the events here
 * the way the shim opens them in each process. */
#include "launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "events.h"

int launch_check_events(const char *events)
{
	struct event_list list;
	char err[1024];

	if (events_parse_list(events, &list, err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, LAUNCHER ": -e: %s\n", err);
	return -1;
}

/* "a, b (reason)" for the unavailable events that share event i's
 * reason; marks them done. */
static void name_group(const struct event_list *list, struct event_status *st,
		       int i, unsigned *done, FILE *f)
{
	const char *sep = "";

	for (int k = i; k < list->n; k++) {
		if (st[k].source != SOURCE_UNAVAILABLE || strcmp(st[k].reason, st[i].reason))
			continue;
		fprintf(f, "%s%s", sep, list->ev[k].name);
		sep = ", ";
		*done |= 1u << k;
	}
	fprintf(f, " (%s)", st[i].reason);
}

void launch_events_notice(const char *events)
{
	struct event_status st[EVENTS_MAX];
	struct event_list list;
	struct counters c;
	char err[1024];
	unsigned done = 0;
	int missing = 0;

	events_parse_list(events, &list, err, sizeof(err));
	memset(st, 0, sizeof(st));
	counters_open(&c, &list, st, 1);
	counters_close(&c);
	for (int i = 0; i < list.n; i++)
		missing += st[i].source == SOURCE_UNAVAILABLE;
	if (!missing)
		return;
	fprintf(stderr, LAUNCHER ": %s unavailable: ", missing == list.n ? "events" : "some events");
	for (int i = 0; i < list.n; i++) {
		if (st[i].source != SOURCE_UNAVAILABLE || (done & (1u << i)))
			continue;
		if (done)
			fputs("; ", stderr);
		name_group(&list, st, i, &done, stderr);
	}
	fprintf(stderr, "; measuring %s (-q hides this line)\n", missing == list.n
		? "wall time, calls, stacks and thread CPU time" : "the rest");
}

void launch_list_events(void)
{
	events_list(stdout);
}
