/* Event names: perf's generic hardware and software events, raw rNNNN,
 * and the :u / :k / :uk modifiers. */
#include "events.h"

#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct known_event {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static const struct known_event known[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
};

/* rNNNN: 1 to 16 hex digits, nothing else. */
static int parse_raw(const char *base, uint64_t *config)
{
	size_t n = strlen(base);

	if (n < 2 || n > 17 || base[0] != 'r')
		return -1;
	for (size_t i = 1; i < n; i++)
		if (!isxdigit((unsigned char)base[i]))
			return -1;
	*config = strtoull(base + 1, NULL, 16);
	return 0;
}

static int parse_modifier(const char *mod, int *exclude_kernel)
{
	if (strcmp(mod, "u") == 0)
		*exclude_kernel = 1;
	else if (strcmp(mod, "k") == 0 || strcmp(mod, "uk") == 0 ||
		 strcmp(mod, "ku") == 0)
		*exclude_kernel = 0;
	else
		return -1;
	return 0;
}

int events_parse_one(const char *name, struct event_spec *out,
		     char *err, size_t errlen)
{
	char base[EVENT_NAME_MAX];
	size_t len = strlen(name);
	const char *colon;

	if (len == 0 || len >= EVENT_NAME_MAX) {
		snprintf(err, errlen, "'%s': %s", name,
			 len ? "name too long" : "empty name");
		return -1;
	}
	memset(out, 0, sizeof(*out));
	memcpy(out->name, name, len + 1);
	out->exclude_kernel = 1;

	colon = strchr(name, ':');
	len = colon ? (size_t)(colon - name) : len;
	memcpy(base, name, len);
	base[len] = '\0';
	if (colon && parse_modifier(colon + 1, &out->exclude_kernel) != 0) {
		snprintf(err, errlen, "'%s': unknown modifier (use :u, :k or :uk)", name);
		return -1;
	}
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (strcmp(base, known[i].name) == 0) {
			out->type = known[i].type;
			out->config = known[i].config;
			return 0;
		}
	}
	if (parse_raw(base, &out->config) == 0) {
		out->type = PERF_TYPE_RAW;
		return 0;
	}
	snprintf(err, errlen, "'%s': unknown event (perf generic names, "
		 "software events or rNNNN)", name);
	return -1;
}

static void trim(char *s)
{
	size_t n = strlen(s);
	size_t start = 0;

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (isspace((unsigned char)s[start]))
		start++;
	memmove(s, s + start, n - start + 1);
}

static void append_reason(char *err, size_t errlen, const char *reason)
{
	size_t used = strlen(err);

	if (used + 3 >= errlen)
		return;
	snprintf(err + used, errlen - used, "%s%s", used ? "; " : "", reason);
}

static int already_listed(const struct event_list *list, const struct event_spec *ev)
{
	for (int i = 0; i < list->n; i++)
		if (list->ev[i].type == ev->type && list->ev[i].config == ev->config &&
		    list->ev[i].exclude_kernel == ev->exclude_kernel)
			return 1;
	return 0;
}

int events_parse_list(const char *text, struct event_list *list,
		      char *err, size_t errlen)
{
	char *copy = strdup(text ? text : "");
	char *save = NULL, *tok;
	char reason[160];
	int skipped = 0;
	struct event_spec ev;

	list->n = 0;
	err[0] = '\0';
	if (!copy)
		return 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		trim(tok);
		if (*tok == '\0')
			continue;
		if (events_parse_one(tok, &ev, reason, sizeof(reason)) != 0) {
			append_reason(err, errlen, reason);
			skipped++;
		} else if (already_listed(list, &ev)) {
			snprintf(reason, sizeof(reason), "'%s': listed twice", tok);
			append_reason(err, errlen, reason);
			skipped++;
		} else if (list->n == EVENTS_MAX) {
			snprintf(reason, sizeof(reason), "'%s': more than %d events",
				 tok, EVENTS_MAX);
			append_reason(err, errlen, reason);
			skipped++;
		} else {
			list->ev[list->n++] = ev;
		}
	}
	free(copy);
	return skipped;
}

/* --list-events: the names this build accepts, grouped the way perf list
 * groups them. */
void events_list(FILE *out)
{
	static const char *const kinds[] = { "Hardware event (generic)", "Software event" };
	static const uint32_t types[] = { PERF_TYPE_HARDWARE, PERF_TYPE_SOFTWARE };

	for (size_t k = 0; k < 2; k++) {
		fprintf(out, "%s%s:\n", k ? "\n" : "", kinds[k]);
		for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			if (known[i].type == types[k])
				fprintf(out, "  %s\n", known[i].name);
	}
	fputs("\nRaw hardware event:\n  rNNNN (hex, as perf takes it)\n"
	      "\nModifiers: :u user space (the default), :k or :uk with the kernel\n", out);
}
