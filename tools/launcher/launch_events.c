/* The launcher's side of events: names checked before the command runs,
 * and the "unavailable" notice printed once for the whole run (the
 * processes run with PMCSHIM_QUIET=1), found by opening the events here
 * the way the shim opens them in each process. */
#include "launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/counters.h"
#include "counters/events.h"
#include "settings/config.h"

/* One line per bad name (each may carry suggestions), then the list's
 * own rules (twice, more than EVENTS_MAX). An empty list is a mistake (a
 * script's unset variable): none is how to ask for no counters. */
int launch_check_events(const char *events, const char *from)
{
	char *copy = strdup(events), *save = NULL, err[1024];
	struct event_spec ev;
	struct event_list list;
	int bad = 0, n = 0;

	if (!strcmp(events, "none")) {
		free(copy);
		return 0;
	}
	for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save), n++) {
		if (events_parse_one(t, &ev, err, sizeof(err)) != 0) {
			fprintf(stderr, LAUNCHER ": %s: %s\n", from, err);
			bad = 1;
		}
	}
	free(copy);
	if (!n) {
		fprintf(stderr, LAUNCHER ": %s '%s': no event named (none: no counters; "
			"--list-events lists them)\n", from, events);
		return -1;
	}
	if (!bad && events_parse_list(events, &list, err, sizeof(err)) != 0) {
		fprintf(stderr, LAUNCHER ": %s: %s\n", from, err);
		bad = 1;
	}
	return bad ? -1 : 0;
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
	for (int i = 0; i < list.n; i++) {
		missing += st[i].source == SOURCE_UNAVAILABLE;
		if (st[i].user_only)
			fprintf(stderr, LAUNCHER ": %s counts in user space only: the kernel "
				"refused kernel mode (%s)\n", list.ev[i].name, st[i].reason);
	}
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

void launch_defaults_notice(const struct launch *l)
{
	struct event_list list;
	char err[1024], names[400];
	uint32_t slow;
	int n;

	if (l->events_default) {
		if (l->events_why[0])
			fprintf(stderr, LAUNCHER ": default events %s, counted per thread (%s); "
				"regions get calls and wall time; -e names others (-q hides this "
				"line)\n", l->events, l->events_why);
		return;
	}
	if (!strcmp(l->events, "none"))
		return;
	events_parse_list(l->events, &list, err, sizeof(err));
	slow = config_read_only(&list);
	for (int i = 0; i < list.n; i++)	/* those that count */
		if (slow >> i & 1 && launch_why_not(list.ev[i].name, err, sizeof(err)) != 0)
			slow &= ~(1u << i);
	if ((n = events_names(&list, slow, names, sizeof(names))))
		fprintf(stderr, LAUNCHER ": %s count%s only through read(): each marker pair makes "
			"two system calls to count %s per region (1-2 us each on a VM; function hooks "
			"count %s per thread) (-q hides this line)\n", names,
			n > 1 ? "" : "s", n > 1 ? "them" : "it", n > 1 ? "them" : "it");
}

/* Open name alone on this thread as the shim opens its events, then
 * close it: 0, or -1 and why it cannot count. */
int launch_why_not(const char *name, char *why, size_t len)
{
	static struct event_list list;
	struct event_status st[1];
	struct counters c;

	if (events_parse_one(name, &list.ev[0], why, len) != 0)
		return -1;
	list.n = 1;
	memset(st, 0, sizeof(st));
	counters_open(&c, &list, st, 1);
	counters_close(&c);
	if (st[0].source != SOURCE_UNAVAILABLE)
		return 0;
	snprintf(why, len, "%s", st[0].reason);
	return -1;
}

void launch_list_events(void)
{
	events_list(stdout, launch_why_not);
}
