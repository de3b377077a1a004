#include "funcspec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* v starts with a digit (strtoull would take a sign). */
static int end_of_number(const char *v)
{
	return *v >= '0' && *v <= '9';
}

/* min=DURATION: a whole number with ns, us, ms or s. */
static int parse_min(struct funcspec *f, const char *v, char *why, size_t len)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 } };
	size_t nunits = end_of_number(v) ? sizeof(units) / sizeof(units[0]) : 0;
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(v, &end, 10);
	for (size_t i = 0; end != v && !errno && i < nunits; i++)
		if (!strcmp(end, units[i].unit) && n > 0 && n <= UINT64_MAX / units[i].ns / 4) {
			f->min_ns = n * units[i].ns;
			return 0;
		}
	snprintf(why, len, "min=%s: want a duration such as 500ns, 20us, 5ms, 1s", v);
	return -1;
}

/* One item of the list; -1 with why. */
static int parse_item(struct funcspec *f, char *item, char *why, size_t len)
{
	size_t n = strlen(item);
	char msg[128];
	int err;

	if (!strncmp(item, "min=", 4))
		return parse_min(f, item + 4, why, len);
	if (!strcmp(item, "sampled")) {
		f->sampled = 1;
		return 0;
	}
	if (n >= 2 && item[0] == '/' && item[n - 1] == '/') {
		item[n - 1] = '\0';
		if (f->nres == FUNCSPEC_RES_MAX) {
			snprintf(why, len, "more than %d regular expressions", FUNCSPEC_RES_MAX);
			return -1;
		}
		if ((err = regcomp(&f->res[f->nres], item + 1, REG_EXTENDED | REG_NOSUB))) {
			regerror(err, &f->res[f->nres], msg, sizeof(msg));
			snprintf(why, len, "/%s/: %s", item + 1, msg);
			return -1;
		}
		f->nres++;
		return 0;
	}
	if (!n || strspn(item, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			       "0123456789_.$@") != n) {
		snprintf(why, len, "'%s' is neither a function name nor /REGEX/", item);
		return -1;
	}
	f->names[f->nnames++] = item;
	return 0;
}

void funcspec_clear(struct funcspec *f)
{
	for (int i = 0; i < f->nres; i++)
		regfree(&f->res[i]);
	memset(f, 0, sizeof(*f));
}

int funcspec_parse(struct funcspec *f, const char *spec, char *why, size_t len)
{
	char *save, *item;

	memset(f, 0, sizeof(*f));
	if (!spec || !*spec)
		return 0;
	if (strlen(spec) >= sizeof(f->text)) {
		snprintf(why, len, "longer than %zu bytes", sizeof(f->text) - 1);
		return -1;
	}
	strcpy(f->text, spec);
	for (item = strtok_r(f->text, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		if (parse_item(f, item, why, len) != 0) {
			funcspec_clear(f);
			return -1;
		}
	}
	/* min= folds a call by its measured length; sampled measures none */
	if (f->sampled && f->min_ns) {
		snprintf(why, len, "min= needs each call timed; sampled times none");
		funcspec_clear(f);
		return -1;
	}
	f->on = f->nnames || f->nres;
	return 0;
}

int funcspec_chooses(const struct funcspec *f, const char *name)
{
	for (int i = 0; i < f->nnames; i++)
		if (!strcmp(name, f->names[i]))
			return 1;
	for (int i = 0; i < f->nres; i++)
		if (!regexec(&f->res[i], name, 0, NULL, 0))
			return 1;
	return 0;
}
