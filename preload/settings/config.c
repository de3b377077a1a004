/* The PMCSHIM_* variables: one table, each row naming a variable, how
 * its value is checked and its default, so a new variable is one row. A
 * bad value gets one line naming the variable, the value and what is
 * used instead; the application runs on as it would. */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/cold.h"
#include "counters/counters.h"
#include "funcspec.h"
#include "base/log.h"
#include "base/suggest.h"
#include "base/text.h"

extern char **environ;

enum kind {
	FLAG,		/* 0 or 1 */
	NUMBER,		/* a whole number in min..max */
	CHOICE,		/* one of the words in choices */
	TEXT,		/* checked by load */
};

struct choice {
	const char *word;
	int value;
};

struct var {
	const char *name;
	enum kind kind;
	size_t field;		/* FLAG, NUMBER, CHOICE: an int in struct config */
	long min, max;		/* NUMBER */
	long def;		/* FLAG, NUMBER, CHOICE: the value when unset or bad */
	const struct choice *choices;	/* CHOICE: ends with a NULL word */
	/* TEXT: fill c from v (NULL when unset); 0, or -1 after one line */
	int (*load)(struct config *c, const char *v);
};

const char *config_default_events(char *why, size_t len)
{
	if (counters_pmu_counts(why, len)) {
		text_copy(why, len, "");
		return CONFIG_DEFAULT_EVENTS;
	}
	return CONFIG_SOFTWARE_EVENTS;
}

uint32_t config_read_only(const struct event_list *list)
{
	uint32_t mask = 0;

	for (int i = 0; i < list->n; i++)
		if (!counters_user_readable(&list->ev[i]))
			mask |= 1u << i;
	return mask;
}

/* The events chosen for this machine; those read only through read()
 * are counted per thread: a default never puts a system call in a
 * marker. */
static const char *load_default_events(struct config *c)
{
	const char *list = config_default_events(c->events_why, sizeof(c->events_why));
	char err[512];

	c->events_default = 1;
	events_parse_list(list, &c->events, err, sizeof(err));
	c->per_thread = config_read_only(&c->events);
	return list;
}

/* "none": no counters, wall time, calls and stacks only; a list that
 * names no event (empty, a script's unset variable) is a mistake, not a
 * request for none. */
static int load_events(struct config *c, const char *v)
{
	char err[512];
	int skipped;

	c->events_default = 0;
	c->per_thread = 0;
	if (v && !strcmp(v, "none")) {
		c->events.n = 0;
		return 0;
	}
	if (!v) {
		(void)load_default_events(c);
		return 0;
	}
	skipped = events_parse_list(v, &c->events, err, sizeof(err));
	if (!skipped && !c->events.n) {
		log_error("PMCSHIM_EVENTS='%s' names no event; using %s (none: no counters)",
			  v, load_default_events(c));
		return -1;
	}
	if (skipped) {
		log_error("PMCSHIM_EVENTS: skipped %s; measuring %d event%s%s",
			  err, c->events.n, c->events.n == 1 ? "" : "s",
			  c->events.n ? "" : " (wall time, calls and stacks only)");
		return -1;
	}
	return 0;
}

/* A % that config_expand_output does not know is kept as written: one
 * line says so, for the first. */
static void check_conversions(const char *v)
{
	for (const char *p = v; (p = strchr(p, '%')); p += 2) {
		if (!p[1]) {
			log_error("PMCSHIM_OUTPUT='%s': a lone %% at the end, kept as written "
				  "(%%p pid, %%h host, %%e executable, %%r MPI rank, %%%% a %%)", v);
			return;
		}
		if (!strchr("pher%", p[1])) {
			log_error("PMCSHIM_OUTPUT='%s': unknown conversion %%%c, kept as written "
				  "(%%p pid, %%h host, %%e executable, %%r MPI rank, %%%% a %%)", v, p[1]);
			return;
		}
	}
}

/* A whole number from the first of names that is set; -1 when none is,
 * or it is not a number. */
static long first_number(const char *const *names)
{
	for (; *names; names++) {
		const char *v = getenv(*names);
		char *end;
		long n;

		if (!v || !*v)
			continue;
		errno = 0;
		n = strtol(v, &end, 10);
		return errno || *end || n < 0 || n > INT_MAX ? -1 : n;
	}
	return -1;
}

int config_mpi_rank(long *rank, long *size)
{
	static const char *const ranks[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
					     "SLURM_PROCID", NULL };
	static const char *const sizes[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
					     "SLURM_NTASKS", NULL };

	*rank = first_number(ranks);
	*size = first_number(sizes);
	return *rank >= 0 ? 0 : -1;
}

/* Padded to the job size's digits, so that the files sort by rank. */
static void load_rank(char *out, size_t len)
{
	long rank, size;
	char digits[16];
	int n;

	if (config_mpi_rank(&rank, &size) != 0)
		return;
	n = snprintf(digits, sizeof(digits), "%ld", size > 0 ? size - 1 : 0);
	snprintf(out, len, "%0*d", n > 0 && n < 11 ? n : 1, (int)rank);
}

const char *config_default_output(const struct config *c)
{
	return c->rank[0] ? CONFIG_DEFAULT_OUTPUT_RANK : CONFIG_DEFAULT_OUTPUT;
}

/* After PMCSHIM_MPI's row: the default name has the rank in an MPI job. */
static int load_output(struct config *c, const char *v)
{
	int bad = 0;

	if (c->mpi)
		load_rank(c->rank, sizeof(c->rank));

	if (v && strlen(v) >= sizeof(c->output)) {
		log_error("PMCSHIM_OUTPUT is longer than %zu bytes; using %s",
			  sizeof(c->output) - 1, config_default_output(c));
		v = NULL, bad = -1;
	}
	if (v && !*v) {
		log_error("PMCSHIM_OUTPUT is empty; using %s", config_default_output(c));
		v = NULL, bad = -1;
	}
	if (v)
		check_conversions(v);
	text_copy(c->output, sizeof(c->output), v ? v : config_default_output(c));
	return bad;
}

/* NAME,/REGEX/,...,min=DURATION (funcspec.h); a bad list: every
 * function recorded. */
COLD struct funcspec config_funcspec_scratch;	/* 1 KiB of text and the regexes */

static int load_functions(struct config *c, const char *v)
{
	struct funcspec *scratch = &config_funcspec_scratch;
	char why[256];

	c->functions = v;
	if (!v || !*v)
		return 0;	/* (a parse would clear scratch: pages touched for nothing) */
	c->functions = NULL;
	if (funcspec_parse(scratch, v, why, sizeof(why)) != 0) {
		log_error("PMCSHIM_FUNCTIONS='%s': %s; recording every function", v, why);
		return -1;
	}
	c->functions_sampled = scratch->sampled;
	funcspec_clear(scratch);
	c->functions = v;
	return 0;
}

static int parse_number(const char *v, long min, long max, long *d);

int config_parse_sample(const char *v, int *hz, struct sample_by *by, char *err, size_t len)
{
	const char *at = strrchr(v, '@');
	char name[EVENT_NAME_MAX], why[256];
	unsigned long long period;
	long d;
	char *end;

	memset(by, 0, sizeof(*by));
	*hz = 0;
	if (!at) {
		if (parse_number(v, 0, CONFIG_MAX_SAMPLE, &d) == 0) {
			*hz = (int)d;
			return 0;
		}
		snprintf(err, len, "want 0..%d samples a second, or EVENT@PERIOD "
			 "(instructions@10007)", CONFIG_MAX_SAMPLE);
		return -1;
	}
	if ((size_t)(at - v) >= sizeof(name)) {
		snprintf(err, len, "the event's name is too long");
		return -1;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(at - v), v);
	if (events_parse_one(name, &by->event, why, sizeof(why)) != 0) {
		snprintf(err, len, "%s", why);
		return -1;
	}
	errno = 0;
	period = strtoull(at + 1, &end, 10);
	if (errno || *end || end == at + 1 || at[1] == '-' || period < CONFIG_MIN_SAMPLE_PERIOD ||
	    period > CONFIG_MAX_SAMPLE_PERIOD) {
		snprintf(err, len, "want a period of %d..%llu %s after the @", CONFIG_MIN_SAMPLE_PERIOD,
			 (unsigned long long)CONFIG_MAX_SAMPLE_PERIOD, name);
		return -1;
	}
	by->set = 1;
	by->period = period;
	*hz = 1;
	return 0;
}

static int load_sample(struct config *c, const char *v)
{
	char err[300];

	c->sample = 0;
	memset(&c->sample_by, 0, sizeof(c->sample_by));
	if (!v || !*v)
		return 0;
	if (config_parse_sample(v, &c->sample, &c->sample_by, err, sizeof(err)) == 0)
		return 0;
	log_error("PMCSHIM_SAMPLE='%s': %s; not sampling", v, err);
	return -1;
}

static const struct choice stack_methods[] = {
	{ "auto", STACKS_AUTO }, { "tables", STACKS_TABLES }, { "fp", STACKS_FP },
	{ "unwind", STACKS_UNWIND }, { NULL, 0 } };

#define FIELD(f) offsetof(struct config, f)
static const struct var vars[] = {
	{ "PMCSHIM_QUIET", FLAG, FIELD(quiet), .def = 0 },
	{ "PMCSHIM_EVENTS", TEXT, .load = load_events },
	{ "PMCSHIM_STACK_DEPTH", NUMBER, FIELD(stack_depth), .min = 0,
	  .max = CONFIG_MAX_DEPTH, .def = CONFIG_DEFAULT_DEPTH },
	{ "PMCSHIM_STACK_METHOD", CHOICE, FIELD(stack_method), .def = STACKS_AUTO,
	  .choices = stack_methods },
	{ "PMCSHIM_MAX_NAMES", NUMBER, FIELD(max_names), .min = 1,
	  .max = CONFIG_MAX_MAX_NAMES, .def = CONFIG_DEFAULT_MAX_NAMES },
	{ "PMCSHIM_MPI", FLAG, FIELD(mpi), .def = 1 },	/* before PMCSHIM_OUTPUT */
	{ "PMCSHIM_OUTPUT", TEXT, .load = load_output },
	{ "PMCSHIM_SERIALIZE", FLAG, FIELD(serialize), .def = 0 },
	{ "PMCSHIM_OPENMP", FLAG, FIELD(openmp), .def = 1 },
	{ "PMCSHIM_FUNCTIONS", TEXT, .load = load_functions },
	{ "PMCSHIM_SAMPLE", TEXT, .load = load_sample },
	{ "PMCSHIM_LIKWID", FLAG, FIELD(likwid), .def = 1 },
	{ "PMCSHIM_PAPI", FLAG, FIELD(papi), .def = 1 },
	{ "PMCSHIM_NVTX", FLAG, FIELD(nvtx), .def = 1 },
};
#define NVARS (sizeof(vars) / sizeof(vars[0]))

/* The word of choice value def. */
static const char *word_of(const struct choice *ch, long def)
{
	while (ch->word && ch->value != def)
		ch++;
	return ch->word ? ch->word : "?";
}

/* "auto, fp or unwind" */
static void list_words(const struct choice *ch, char *out, size_t len)
{
	size_t pos = 0;

	out[0] = '\0';
	for (int i = 0; ch[i].word && pos < len; i++)
		pos += (size_t)snprintf(out + pos, len - pos, "%s%s", !i ? "" :
					ch[i + 1].word ? ", " : " or ", ch[i].word);
}

/* v as a whole number in min..max into *d; 0, or -1 */
static int parse_number(const char *v, long min, long max, long *d)
{
	char *end;

	errno = 0;
	*d = strtol(v, &end, 10);
	return errno || *end || end == v || *d < min || *d > max ? -1 : 0;
}

/* v (set, not empty) for a FLAG, NUMBER or CHOICE row; 0, or -1 after
 * one line */
static int parse_value(const struct var *r, const char *v, long *out)
{
	char want[128];
	long d;

	switch (r->kind) {
	case FLAG:
		if (!strcmp(v, "0") || !strcmp(v, "1")) {
			*out = *v - '0';
			return 0;
		}
		snprintf(want, sizeof(want), "0 or 1");
		break;
	case NUMBER:
		if (parse_number(v, r->min, r->max, &d) == 0) {
			*out = d;
			return 0;
		}
		snprintf(want, sizeof(want), "%ld..%ld", r->min, r->max);
		break;
	default:
		for (const struct choice *ch = r->choices; ch->word; ch++) {
			if (!strcmp(v, ch->word)) {
				*out = ch->value;
				return 0;
			}
		}
		list_words(r->choices, want, sizeof(want));
		break;
	}
	if (r->kind == CHOICE)
		log_error("%s='%s': want %s; using %s", r->name, v, want,
			  word_of(r->choices, r->def));
	else
		log_error("%s='%s': want %s; using %ld", r->name, v, want, r->def);
	return -1;
}

/* Row r from the environment into c; 0, or -1 when its value was bad. */
static int load_var(const struct var *r, struct config *c)
{
	const char *v = getenv(r->name);
	long value = r->def;
	int rc = 0;

	if (r->kind == TEXT)
		return r->load(c, v);
	if (v && *v)	/* unset or empty: the default */
		rc = parse_value(r, v, &value);
	*(int *)((char *)c + r->field) = rc ? (int)r->def : (int)value;
	return rc;
}

/* A PMCSHIM_ name in entry ("NAME=value") that no row holds but one is
 * close to: a typo, which would otherwise change nothing without a word.
 * Names far from every row (another tool's, the tests') are left alone.
 * 1 after one line (name filled), else 0. */
/* Whether s begins with PMCSHIM_, in any case. By hand, as typo's
 * length: strncasecmp and strcspn would page in libc's code and tables
 * (ASCII's case, bytes up to a set) at every start, for every variable. */
static int our_prefix(const char *s)
{
	for (int i = 0; i < 8; i++) {
		char c = s[i] >= 'a' && s[i] <= 'z' ? (char)(s[i] - 'a' + 'A') : s[i];

		if (c != "PMCSHIM_"[i])
			return 0;
	}
	return 1;
}

static int typo(const char *entry, char *name, size_t len)
{
	size_t n = 0;
	struct suggest s;

	if (!our_prefix(entry))
		return 0;
	while (entry[n] && entry[n] != '=')
		n++;
	if (n <= 8 || n >= len)
		return 0;
	memcpy(name, entry, n);
	name[n] = '\0';
	for (size_t i = 0; i < NVARS; i++)
		if (!strcmp(vars[i].name, name))
			return 0;
	suggest_begin(&s, name + 8);
	for (size_t i = 0; i < NVARS; i++)
		suggest_offer(&s, vars[i].name + 8);
	if (!s.n)
		return 0;
	log_error("%s: not a variable pmcshim reads; ignored (PMCSHIM_%s?)", name, s.name[0]);
	return 1;
}

void config_load(struct config *c)
{
	int saved = errno;
	char name[SUGGEST_NAME];

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < NVARS; i++)
		load_var(&vars[i], c);
	/* sampled function hooks take their time from the sampler's
	 * task-clock: a fixed CPU time per sample */
	if (c->functions_sampled && c->sample_by.set) {
		log_error("PMCSHIM_SAMPLE=%s@%llu with PMCSHIM_FUNCTIONS=sampled: function times "
			  "come from time samples; sampling task-clock at %d a second",
			  c->sample_by.event.name, (unsigned long long)c->sample_by.period,
			  CONFIG_FUNCTIONS_SAMPLE);
		memset(&c->sample_by, 0, sizeof(c->sample_by));
		c->sample = 0;
	}
	if (c->functions_sampled && !c->sample)
		c->sample = CONFIG_FUNCTIONS_SAMPLE;
	for (char **e = environ; e && *e; e++)
		typo(*e, name, sizeof(name));
	log_set_quiet(c->quiet);
	errno = saved;
}

static int listed(const char *name, const char *const *skip)
{
	for (; skip && *skip; skip++)
		if (!strcmp(name, *skip))
			return 1;
	return 0;
}

COLD struct config config_env_scratch;	/* PATH_MAX and the events: not on the stack */

int config_check_env(const char *const *skip)
{
	struct config *scratch = &config_env_scratch;
	int bad = 0;

	char name[SUGGEST_NAME];

	for (size_t i = 0; i < NVARS; i++) {
		if (listed(vars[i].name, skip) || load_var(&vars[i], scratch) == 0)
			continue;
		unsetenv(vars[i].name);
		bad++;
	}
	/* from the start again after each removal: it moves environ's entries */
	for (char **e = environ; e && *e;) {
		if (typo(*e, name, sizeof(name))) {
			unsetenv(name);
			bad++;
			e = environ;
		} else {
			e++;
		}
	}
	return bad;
}

static int append(char *out, size_t outlen, size_t *pos, const char *s)
{
	size_t n = strlen(s);

	if (*pos + n >= outlen)
		return -1;
	memcpy(out + *pos, s, n + 1);
	*pos += n;
	return 0;
}

int config_expand_output(const char *pattern, int pid, const char *host,
			 const char *exe, const char *rank, char *out, size_t outlen)
{
	char pidbuf[24], one[2] = { 0, 0 };
	size_t pos = 0;

	if (outlen == 0)
		return -1;
	out[0] = '\0';
	pidbuf[text_put_u64(pidbuf, 0, sizeof(pidbuf), (uint64_t)pid)] = '\0';
	for (const char *p = pattern; *p; p++) {
		const char *piece = one;

		one[0] = *p;
		if (*p == '%' && p[1]) {
			switch (p[1]) {
			case 'p': piece = pidbuf; p++; break;
			case 'h': piece = host; p++; break;
			case 'e': piece = exe; p++; break;
			case 'r': piece = rank; p++; break;
			case '%': p++; break;
			default: break;	/* unknown: kept as written */
			}
		}
		if (append(out, outlen, &pos, piece) != 0)
			return -1;
	}
	return 0;
}
