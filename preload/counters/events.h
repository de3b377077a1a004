/* Event names as perf spells them, parsed into perf_event_attr fields. */
#ifndef PMCSHIM_EVENTS_H
#define PMCSHIM_EVENTS_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#define EVENTS_MAX 8
#define EVENT_NAME_MAX 48

struct event_spec {
	char name[EVENT_NAME_MAX];	/* as the user wrote it, modifiers included */
	uint32_t type;			/* PERF_TYPE_* */
	uint64_t config;
	uint64_t config1, config2;	/* native events' extra fields (libpfm4) */
	int exclude_kernel;		/* 1: user space only (:u, a hardware event's default) */
};

struct event_list {
	struct event_spec ev[EVENTS_MAX];
	int n;
};

struct perf_event_attr;

/* *attr zeroed, then ev's event: its type, config words and whether it
 * leaves the kernel out; never the hypervisor. The one translation of an
 * event into perf_event_open's terms (the shim's counters, its sampler,
 * the launcher's job counts); each caller adds its own mode. */
void events_attr(const struct event_spec *ev, struct perf_event_attr *attr);

/* Parse one name ("cycles", "task-clock", "r01c2", "instructions:uk").
 * Returns 0, or -1 with a reason in err. */
int events_parse_one(const char *name, struct event_spec *out,
		     char *err, size_t errlen);

/* Parse a comma list into list. Bad entries are skipped; each one's reason
 * is appended to err (empty when all were good). Returns the number of
 * entries skipped. */
int events_parse_list(const char *text, struct event_list *list,
		      char *err, size_t errlen);

/* "a, b, c": the names of list's events whose bit is set in mask (bit i:
 * list->ev[i]), into out, cut to fit len. Returns how many. */
int events_names(const struct event_list *list, uint32_t mask, char *out, size_t len);

/* Every accepted name, grouped by kind, one a line (--list-events); with
 * why_not, each marked with whether it can count: why_not returns 0, or
 * -1 with the reason in why. */
void events_list(FILE *out, int (*why_not)(const char *name, char *why, size_t len));

#endif
