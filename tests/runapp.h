/* Running a test application under the shim and loading its report. */
#ifndef PMCSHIM_TEST_RUNAPP_H
#define PMCSHIM_TEST_RUNAPP_H

#include <jansson.h>
#include <limits.h>

#define RUN_OUT_MAX 16384
#define RUN_REPORTS_MAX 4

struct run {
	int pid;
	int status;			/* exit status, or 128 + signal */
	int timed_out;			/* killed after the timeout */
	char dir[2300];		/* fresh working directory */
	char out[RUN_OUT_MAX];		/* stdout */
	char err[RUN_OUT_MAX];		/* stderr */
	int nreports;
	json_t *report[RUN_REPORTS_MAX];	/* pmcshim-*.pmc in dir, by name, as
						 * the reader's JSON export */
	char report_path[RUN_REPORTS_MAX][2600];
};

/* The shim, apps and reader under test: PMCSHIM_TEST_SHIM,
 * PMCSHIM_TEST_APPS, PMCSHIM_TEST_READER, PMCSHIM_TEST_PRELOAD_FIRST (a
 * sanitizer runtime to preload before it). */
void runapp_init(void);
/* Whether runs load their reports as JSON (through the reader); on by
 * default. */
void runapp_json(int on);
const char *runapp_shim(void);

/* Run app (a name in the apps directory) with args (NULL-terminated, may
 * be NULL) and extra environment "K=V" entries (NULL-terminated, may be
 * NULL), with or without the shim, in a fresh directory. Returns 0 if it
 * ran. */
int runapp(struct run *r, const char *app, const char *const *args,
	   const char *const *env, int with_shim);
void runapp_free(struct run *r);
/* The same in two steps: start it (r->pid), then wait at most timeout_s
 * (killed after that, r->timed_out set) and load its output. */
int runapp_start(struct run *r, const char *app, const char *const *args,
		 const char *const *env, int with_shim);
int runapp_wait(struct run *r, int timeout_s);

/* A report file as the reader exports it (pmcshim-report --format json
 * --raw: values as measured), or NULL (said why). */
json_t *runapp_load_json(const char *path);
/* The same with other reader options ("" for calibrated values). */
json_t *runapp_load_json_opts(const char *path, const char *opts);

/* Count of stderr lines containing needle. */
int count_lines(const char *text, const char *needle);

/* Report queries. */
json_t *rep_thread_named(json_t *rep, const char *name);
json_t *rep_main_thread(json_t *rep);
/* Sum of calls of region over all threads (thread NULL) or one thread. */
long long rep_calls(json_t *rep, json_t *thread, const char *region);
/* Sum of wall_ns.<field> ("incl"/"excl") of region. */
long long rep_wall(json_t *rep, json_t *thread, const char *region, const char *field);
/* Sum of events[ev].<field>; -1 if null anywhere. */
long long rep_event(json_t *thread, const char *region, int ev, const char *field);
json_t *rep_stack(json_t *rep, long long id);

#endif
