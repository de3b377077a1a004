/* Derived metrics and groups, read from data files (metrics/ARCH.def: the
 * syntax is in metrics/generic.def and pmcshim-report(1)). Shared by the
 * launcher (which events a metric needs) and the reader (its values). */
#ifndef PMCSHIM_METRICS_DEF_H
#define PMCSHIM_METRICS_DEF_H

#include <stdbool.h>
#include <stddef.h>

/* An expression in postfix order: a number, an event (by name) or an
 * operator (+ - * / and 'n' for unary minus). */
struct mterm {
	char op;			/* 0: number, 'e': event, else the operator */
	double num;
	const char *ev;
};

struct metric {
	const char *name, *unit, *desc, *file;
	int line;
	size_t nterm;
	struct mterm *term;
	size_t nev;
	const char **ev;		/* its events, each once, in order of use */
};

struct mgroup {
	const char *name, *desc;
	size_t n;
	const char **metric;
};

struct mdefs {
	size_t n, ngroup;
	struct metric *m;
	struct mgroup *g;
	size_t nfiles;
	char **files;			/* what was read, for --list-metrics */
	char **strings;			/* owned text */
	size_t nstr;
};

/* Reads generic.def, <machine>.def (uname) and <machine>-<maker>.def
 * (the CPU's: intel or amd) where they exist, from the first metrics
 * directory found beside the program (the build tree: EXE/../metrics;
 * installed: EXE/../share/pmcshim/metrics), then extra (a file, or NULL).
 * 0, or -1 with why ("FILE:LINE: what is wrong"). */
int mdefs_load(struct mdefs *d, const char *extra, char *why, size_t len);
void mdefs_free(struct mdefs *d);

/* The metric named name, or NULL. */
const struct metric *mdefs_find(const struct mdefs *d, const char *name);

/* The metrics of -M LIST (comma separated; a group's name stands for its
 * metrics) into out (each once, at most max). Their number, or -1 with
 * why. */
int mdefs_select(const struct mdefs *d, const char *list, const struct metric **out, int max,
		 char *why, size_t len);

/* The metric's value, with value(arg, event) giving each event's; false
 * when an event has none or a division is by zero. */
bool metric_eval(const struct metric *m, bool (*value)(void *arg, const char *ev, double *v),
		 void *arg, double *out);

#endif
