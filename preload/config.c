/* PMCSHIM_EVENTS, PMCSHIM_STACK_DEPTH, PMCSHIM_MAX_NAMES, PMCSHIM_OUTPUT,
 * PMCSHIM_QUIET, PMCSHIM_SERIALIZE, PMCSHIM_MPI. */
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

static void load_output(struct config *c)
{
	const char *v = getenv("PMCSHIM_OUTPUT");

	if (v && strlen(v) >= sizeof(c->output)) {
		log_error("PMCSHIM_OUTPUT is longer than %zu bytes; using %s",
			  sizeof(c->output) - 1, config_default_output(c));
		v = NULL;
	}
	if (v && !*v) {
		log_error("PMCSHIM_OUTPUT is empty; using %s", config_default_output(c));
		v = NULL;
	}
	snprintf(c->output, sizeof(c->output), "%s", v ? v : config_default_output(c));
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

/* PMCSHIM_MPI: 1 (default) or 0. */
static int load_mpi(void)
{
	const char *v = getenv("PMCSHIM_MPI");

	if (!v || !*v || !strcmp(v, "1"))
		return 1;
	if (!strcmp(v, "0"))
		return 0;
	log_error("PMCSHIM_MPI='%s': want 0 (MPI calls not recorded) or 1; using 1", v);
	return 1;
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
	c->mpi = load_mpi();
	if (c->mpi)
		load_rank(c->rank, sizeof(c->rank));
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

const char *config_default_output(const struct config *c)
{
	return c->rank[0] ? CONFIG_DEFAULT_OUTPUT_RANK : CONFIG_DEFAULT_OUTPUT;
}

int config_expand_output(const char *pattern, int pid, const char *host,
			 const char *exe, const char *rank, char *out, size_t outlen)
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
