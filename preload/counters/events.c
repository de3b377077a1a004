/* Event names: perf's generic hardware, cache and software events, raw
 * rNNNN, the CPU's native names through libpfm4 (pfm.c), and the :u / :k /
 * :uk modifiers. Without one, a software event counts where it happens,
 * kernel included (a context switch or a page fault happens there: user
 * space alone reads 0), and a hardware event in user space only. */
#include "events.h"

#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfm.h"
#include "base/suggest.h"

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

/* perf's generic cache events, CACHE-OP[s|-misses] (L1-dcache-load-misses,
 * LLC-stores, dTLB-load-misses, ...): the caches and the operations each
 * one has, as perf lists them. */
static const struct {
	const char *name;
	unsigned ops;	/* bit per PERF_COUNT_HW_CACHE_OP_* */
} caches[] = {
	[PERF_COUNT_HW_CACHE_L1D] = { "L1-dcache", 7 },
	[PERF_COUNT_HW_CACHE_L1I] = { "L1-icache", 5 },
	[PERF_COUNT_HW_CACHE_LL] = { "LLC", 7 },
	[PERF_COUNT_HW_CACHE_DTLB] = { "dTLB", 7 },
	[PERF_COUNT_HW_CACHE_ITLB] = { "iTLB", 1 },
	[PERF_COUNT_HW_CACHE_BPU] = { "branch", 1 },
	[PERF_COUNT_HW_CACHE_NODE] = { "node", 7 },
};
static const char *const cache_ops[][2] = {	/* accesses, misses */
	{ "loads", "load-misses" }, { "stores", "store-misses" },
	{ "prefetches", "prefetch-misses" },
};

#define NCACHES (sizeof(caches) / sizeof(caches[0]))
/* Every (cache, op, access|miss) triple, valid or not, as one index. */
#define NCACHE_NAMES (NCACHES * 3 * 2)

/* Name number i (0 .. NCACHE_NAMES-1) into out, and its config; -1 when
 * that cache has no such operation. */
static int cache_name(size_t i, char *out, size_t len, uint64_t *config)
{
	size_t cache = i / 6, op = i / 2 % 3, miss = i % 2;

	if (!(caches[cache].ops & (1u << op)))
		return -1;
	snprintf(out, len, "%s-%s", caches[cache].name, cache_ops[op][miss]);
	*config = cache | op << 8 |
		  (miss ? PERF_COUNT_HW_CACHE_RESULT_MISS : PERF_COUNT_HW_CACHE_RESULT_ACCESS) << 16;
	return 0;
}

static int parse_cache(const char *base, uint64_t *config)
{
	char name[EVENT_NAME_MAX];

	for (size_t i = 0; i < NCACHE_NAMES; i++)
		if (cache_name(i, name, sizeof(name), config) == 0 && strcmp(name, base) == 0)
			return 0;
	return -1;
}

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

/* perf's own names: generic, cache, raw. */
static int parse_perf(const char *base, struct event_spec *out)
{
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (strcmp(base, known[i].name) == 0) {
			out->type = known[i].type;
			out->config = known[i].config;
			return 0;
		}
	}
	if (parse_cache(base, &out->config) == 0) {
		out->type = PERF_TYPE_HW_CACHE;
		return 0;
	}
	if (parse_raw(base, &out->config) == 0) {
		out->type = PERF_TYPE_RAW;
		return 0;
	}
	return -1;
}

static int parse_native(const char *base, struct event_spec *out, char *why, size_t len)
{
	struct native_attr a;

	if (native_encode(base, &a, why, len) != 0)
		return -1;
	out->type = a.type;
	out->config = a.config;
	out->config1 = a.config1;
	out->config2 = a.config2;
	return 0;
}

/* Every known name, to fn (the suggestions; the native names only when
 * libpfm4 knows the CPU). */
static void each_name(void (*fn)(void *, const char *), void *arg)
{
	char name[EVENT_NAME_MAX], why[8], pmus[8];
	uint64_t config;

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		fn(arg, known[i].name);
	for (size_t i = 0; i < NCACHE_NAMES; i++)
		if (cache_name(i, name, sizeof(name), &config) == 0)
			fn(arg, name);
	native_each(fn, arg, pmus, sizeof(pmus), why, sizeof(why));
}

static void unknown(const char *name, const char *base, const char *native_why,
		    char *err, size_t errlen)
{
	struct suggest s;
	char close[3 * SUGGEST_NAME + 16];

	suggest_begin(&s, base);
	each_name(suggest_offer, &s);
	suggest_format(&s, close, sizeof(close));
	if (close[0])
		snprintf(err, errlen, "'%s': unknown event; closest: %s", name, close);
	else
		snprintf(err, errlen, "'%s': unknown event (not a perf generic, cache, software "
			 "or rNNNN name; %s)", name, native_why);
}

/* Split off a trailing pmcshim modifier (:u, :k, :uk); a native name's own
 * colons (libpfm4's EVENT:UMASK) stay in the base. */
static int split_modifier(const char *name, char *base, struct event_spec *out)
{
	const char *colon = strrchr(name, ':');
	size_t len = strlen(name);

	if (colon && parse_modifier(colon + 1, &out->exclude_kernel) == 0)
		len = (size_t)(colon - name);
	memcpy(base, name, len);
	base[len] = '\0';
	return colon && len == strlen(name) ? -1 : 0;
}

void events_attr(const struct event_spec *ev, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = ev->type;
	attr->config = ev->config;
	attr->config1 = ev->config1;	/* native events (libpfm4) may use these */
	attr->config2 = ev->config2;
	attr->exclude_kernel = ev->exclude_kernel ? 1 : 0;
	attr->exclude_hv = 1;
}

int events_parse_one(const char *name, struct event_spec *out,
		     char *err, size_t errlen)
{
	char base[EVENT_NAME_MAX], why[200];
	size_t len = strlen(name);

	if (len == 0 || len >= EVENT_NAME_MAX) {
		snprintf(err, errlen, "'%s': %s", name,
			 len ? "name too long" : "empty name");
		return -1;
	}
	memset(out, 0, sizeof(*out));
	memcpy(out->name, name, len + 1);
	out->exclude_kernel = -1;	/* not given: decided by the type below */
	if (split_modifier(name, base, out) != 0) {
		/* "cycles:x": perf's name with a bad modifier */
		struct event_spec probe;
		char head[EVENT_NAME_MAX];

		snprintf(head, sizeof(head), "%.*s", (int)(strrchr(name, ':') - name), name);
		if (parse_perf(head, &probe) == 0) {
			snprintf(err, errlen, "'%s': unknown modifier (use :u, :k or :uk)", name);
			return -1;
		}
	}
	if (parse_perf(base, out) == 0 || parse_native(base, out, why, sizeof(why)) == 0) {
		if (out->exclude_kernel < 0)
			out->exclude_kernel = out->type != PERF_TYPE_SOFTWARE;
		return 0;
	}
	unknown(name, base, why, err, errlen);
	return -1;
}

/* isspace of the C locale, by hand: isspace reads the locale's tables
 * (and strcspn its own), a page fault each at every start. */
static int blank(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* The token text[0..n), without the spaces around it, into tok (size
 * len); -1 when it does not fit. */
static int take_token(const char *text, size_t n, char *tok, size_t len)
{
	while (n > 0 && blank(text[n - 1]))
		n--;
	while (n > 0 && blank(*text))
		text++, n--;
	if (n >= len)
		return -1;
	memcpy(tok, text, n);
	tok[n] = '\0';
	return 0;
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

/* No heap: under a sanitizer runtime, strdup comes from the runtime's
 * heap while free may be the application's own (tests/apps/mallocmark). */
int events_parse_list(const char *text, struct event_list *list,
		      char *err, size_t errlen)
{
	char tok[EVENT_NAME_MAX * 4], reason[400];
	int skipped = 0;
	struct event_spec ev;

	list->n = 0;
	err[0] = '\0';
	for (const char *p = text ? text : "", *next; *p; p = next + (*next == ',')) {
		for (next = p; *next && *next != ','; next++)
			;
		if (take_token(p, (size_t)(next - p), tok, sizeof(tok)) != 0) {
			snprintf(reason, sizeof(reason), "'%.*s...': name too long",
				 EVENT_NAME_MAX, p);
			append_reason(err, errlen, reason);
			skipped++;
			continue;
		}
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
	return skipped;
}

struct listing {
	FILE *out;
	int (*why_not)(const char *name, char *why, size_t len);
};

/* "  NAME   yes", or "no: why" */
static void print_name(void *arg, const char *name)
{
	const struct listing *l = arg;
	char why[256];

	if (!l->why_not) {
		fprintf(l->out, "  %s\n", name);
		return;
	}
	if (l->why_not(name, why, sizeof(why)) == 0)
		fprintf(l->out, "  %-32s yes\n", name);
	else
		fprintf(l->out, "  %-32s no: %s\n", name, why);
}

void events_list(FILE *out, int (*why_not)(const char *name, char *why, size_t len))
{
	static const char *const kinds[] = { "Hardware event (generic)", "Software event" };
	static const uint32_t types[] = { PERF_TYPE_HARDWARE, PERF_TYPE_SOFTWARE };
	char name[EVENT_NAME_MAX], why[200], pmus[300];
	struct listing l = { out, why_not };
	uint64_t config;
	int n;

	if (why_not)
		fputs("Each name, and whether this machine can count it now (opened and closed\n"
		      "once, here, as the shim opens it): yes, or no and why.\n\n", out);
	for (size_t k = 0; k < 2; k++) {
		fprintf(out, "%s%s:\n", k ? "\n" : "", kinds[k]);
		for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			if (known[i].type == types[k])
				print_name(&l, known[i].name);
	}
	fputs("\nHardware cache event (generic):\n", out);
	for (size_t i = 0; i < NCACHE_NAMES; i++)
		if (cache_name(i, name, sizeof(name), &config) == 0)
			print_name(&l, name);
	fputs("\nRaw hardware event:\n  rNNNN (hex, as perf takes it)\n", out);
	fputs("\nNative event (libpfm4", out);
	if ((n = native_each(NULL, NULL, pmus, sizeof(pmus), why, sizeof(why))) < 0) {
		fprintf(out, "):\n  %s\n", why);
	} else {
		fprintf(out, "; %d events of %s; EVENT:UMASK as libpfm4 spells them):\n", n, pmus);
		native_each(print_name, &l, pmus, sizeof(pmus), why, sizeof(why));
	}
	fputs("\nModifiers: :u user space, :k or :uk with the kernel; by default software\n"
	      "events count in both, the others in user space\n", out);
}

int events_names(const struct event_list *list, uint32_t mask, char *out, size_t len)
{
	size_t used = 0;
	int n = 0;

	if (len)
		out[0] = '\0';
	for (int i = 0; i < list->n && used < len; i++) {
		if (!(mask >> i & 1))
			continue;
		used += (size_t)snprintf(out + used, len - used, "%s%s", n ? ", " : "",
					 list->ev[i].name);
		n++;
	}
	return n;
}
