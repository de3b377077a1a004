/* PMCSHIM_EVENTS, PMCSHIM_STACK_DEPTH, PMCSHIM_MAX_NAMES, PMCSHIM_OUTPUT,
 * PMCSHIM_QUIET, PMCSHIM_SERIALIZE. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

static int parse_flag(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0") != 0;
}

static void load_events(struct config *c)
{
	const char *v = getenv("PMCSHIM_EVENTS");
	char err[512];

	if (!v)
		v = CONFIG_DEFAULT_EVENTS;
	if (events_parse_list(v, &c->events, err, sizeof(err)) > 0)
		log_error("PMCSHIM_EVENTS: skipped %s; measuring %d event%s%s",
			  err, c->events.n, c->events.n == 1 ? "" : "s",
			  c->events.n ? "" : " (wall time, calls and stacks only)");
}

/* A whole number in min..max from variable name; unset or empty gives
 * def, anything else one message and def. */
static long load_number(const char *name, long min, long max, long def)
{
	const char *v = getenv(name);
	char *end;
	long d;

	if (!v || !*v)
		return def;
	errno = 0;
	d = strtol(v, &end, 10);
	if (errno || *end || end == v || d < min || d > max) {
		log_error("%s='%s': want %ld..%ld; using %ld", name, v, min, max, def);
		return def;
	}
	return d;
}

/* A % that config_expand_output does not know is kept as written: one
 * line says so, for the first. */
static void check_conversions(const char *v)
{
	for (const char *p = v; (p = strchr(p, '%')); p += 2) {
		if (!p[1]) {
			log_error("PMCSHIM_OUTPUT='%s': a lone %% at the end, kept as written "
				  "(%%p pid, %%h host, %%e executable, %%%% a %%)", v);
			return;
		}
		if (!strchr("phe%", p[1])) {
			log_error("PMCSHIM_OUTPUT='%s': unknown conversion %%%c, kept as written "
				  "(%%p pid, %%h host, %%e executable, %%%% a %%)", v, p[1]);
			return;
		}
	}
}

static void load_output(struct config *c)
{
	const char *v = getenv("PMCSHIM_OUTPUT");

	if (v && strlen(v) >= sizeof(c->output)) {
		log_error("PMCSHIM_OUTPUT is longer than %zu bytes; using %s",
			  sizeof(c->output) - 1, CONFIG_DEFAULT_OUTPUT);
		v = NULL;
	}
	if (v && !*v) {
		log_error("PMCSHIM_OUTPUT is empty; using %s", CONFIG_DEFAULT_OUTPUT);
		v = NULL;
	}
	if (v)
		check_conversions(v);
	snprintf(c->output, sizeof(c->output), "%s", v ? v : CONFIG_DEFAULT_OUTPUT);
}

void config_load(struct config *c)
{
	int saved = errno;

	memset(c, 0, sizeof(*c));
	c->quiet = parse_flag("PMCSHIM_QUIET");
	c->serialize = parse_flag("PMCSHIM_SERIALIZE");
	log_set_quiet(c->quiet);
	load_events(c);
	c->stack_depth = (int)load_number("PMCSHIM_STACK_DEPTH", 0, CONFIG_MAX_DEPTH,
					  CONFIG_DEFAULT_DEPTH);
	c->max_names = (unsigned)load_number("PMCSHIM_MAX_NAMES", 1, CONFIG_MAX_MAX_NAMES,
					     CONFIG_DEFAULT_MAX_NAMES);
	load_output(c);
	errno = saved;
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
			 const char *exe, char *out, size_t outlen)
{
	char pidbuf[24], one[2] = { 0, 0 };
	size_t pos = 0;

	if (outlen == 0)
		return -1;
	out[0] = '\0';
	snprintf(pidbuf, sizeof(pidbuf), "%d", pid);
	for (const char *p = pattern; *p; p++) {
		const char *piece = one;

		one[0] = *p;
		if (*p == '%' && p[1]) {
			switch (p[1]) {
			case 'p': piece = pidbuf; p++; break;
			case 'h': piece = host; p++; break;
			case 'e': piece = exe; p++; break;
			case '%': p++; break;
			default: break;	/* unknown: kept as written */
			}
		}
		if (append(out, outlen, &pos, piece) != 0)
			return -1;
	}
	return 0;
}
