#include "runapp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char shim[PATH_MAX], apps[PATH_MAX], first[PATH_MAX], tmproot[2048];
static char reader[PATH_MAX];
static int as_json = 1;

void runapp_json(int on)
{
	as_json = on;
}

static void absolute(const char *env, const char *def, char *out, size_t len)
{
	const char *v = getenv(env);
	char buf[PATH_MAX];

	if (!v || !*v)
		v = def;
	snprintf(out, len, "%s", realpath(v, buf) ? buf : v);
}

void runapp_init(void)
{
	const char *f = getenv("PMCSHIM_TEST_PRELOAD_FIRST");

	absolute("PMCSHIM_TEST_SHIM", "build/libpmcshim.so", shim, sizeof(shim));
	absolute("PMCSHIM_TEST_APPS", "build/tests/apps", apps, sizeof(apps));
	absolute("PMCSHIM_TEST_READER", "build/pmcshim-report", reader, sizeof(reader));
	snprintf(first, sizeof(first), "%s", f ? f : "");
	mkdir("build/tmp", 0755);
	absolute("PMCSHIM_TEST_TMP", "build/tmp", tmproot, sizeof(tmproot));
}

const char *runapp_shim(void)
{
	return shim;
}

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

static void child(struct run *r, const char *app, const char *const *args,
		  const char *const *env, int with_shim)
{
	char path[PATH_MAX + 2400], preload[2 * PATH_MAX + 2];
	const char *argv[32] = { app };
	int n = 1;

	if (chdir(r->dir) != 0)
		_exit(126);
	snprintf(path, sizeof(path), "%s/stdout", r->dir);
	if (!freopen(path, "w", stdout))
		_exit(126);
	snprintf(path, sizeof(path), "%s/stderr", r->dir);
	if (!freopen(path, "w", stderr))
		_exit(126);
	unsetenv("LD_PRELOAD");
	for (const char *const *e = env; e && *e; e++)
		putenv((char *)*e);
	if (with_shim) {
		snprintf(preload, sizeof(preload), "%s%s%s", first, *first ? ":" : "", shim);
		setenv("LD_PRELOAD", preload, 1);
	}
	for (const char *const *a = args; a && *a && n < 31; a++)
		argv[n++] = *a;
	argv[n] = NULL;
	snprintf(path, sizeof(path), "%s/%s", apps, app);
	execv(path, (char *const *)argv);
	_exit(127);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

json_t *runapp_load_json(const char *path)
{
	return runapp_load_json_opts(path, "--raw");
}

/* The export's one file (files[0]), the document let go; NULL (and a
 * line saying why) if the document is not the version this suite knows.
 * A json-table document (opts with --format json-table: no "format") is
 * the caller's as it is. */
static json_t *runapp_first_file(json_t *doc)
{
	const char *format = json_string_value(json_object_get(doc, "format"));
	json_t *f = NULL;

	if (!json_object_get(doc, "format") && json_object_get(doc, "files"))
		return doc;
	if (!format || strcmp(format, "pmcshim-report") != 0 ||
	    json_integer_value(json_object_get(doc, "version")) != 3)
		printf("    the reader's JSON export is not a pmcshim-report version 3 document\n");
	else if (!(f = json_incref(json_array_get(json_object_get(doc, "files"), 0))))
		printf("    the reader's JSON export has no files[0]\n");
	json_decref(doc);
	return f;
}

json_t *runapp_load_json_opts(const char *path, const char *opts)
{
	char cmd[3 * PATH_MAX];
	json_error_t err;
	json_t *j;
	FILE *p;

	/* --raw: the sums as measured, so their identities (excl = incl minus
	 * the children's incl) hold exactly; calibration has its own checks */
	snprintf(cmd, sizeof(cmd), "'%s' --format json %s '%s'", reader, opts, path);
	p = popen(cmd, "r");
	if (!p)
		return NULL;
	j = json_loadf(p, 0, &err);
	if (pclose(p) != 0 || !j) {
		printf("    %s: the reader's JSON export failed (%s)\n", path,
		       j ? "exit status" : err.text);
		json_decref(j);
		return NULL;
	}
	return runapp_first_file(j);
}

static void load_reports(struct run *r)
{
	DIR *d = opendir(r->dir);
	struct dirent *e;
	char *names[RUN_REPORTS_MAX];
	int n = 0;

	while (d && (e = readdir(d)) != NULL && n < RUN_REPORTS_MAX)
		if (strncmp(e->d_name, "pmcshim-", 8) == 0 && strstr(e->d_name, ".pmc"))
			names[n++] = strdup(e->d_name);
	if (d)
		closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), by_name);
	for (int i = 0; i < n; i++) {
		snprintf(r->report_path[i], sizeof(r->report_path[i]), "%s/%.200s", r->dir, names[i]);
		r->report[i] = as_json ? runapp_load_json(r->report_path[i]) : NULL;
		free(names[i]);
	}
	r->nreports = n;
}

int runapp_start(struct run *r, const char *app, const char *const *args,
		 const char *const *env, int with_shim)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "%s/%s-XXXXXX", tmproot, app);
	if (!mkdtemp(r->dir))
		return -1;
	fflush(stdout);
	r->pid = fork();
	if (r->pid < 0)
		return -1;
	if (r->pid == 0)
		child(r, app, args, env, with_shim);
	return 0;
}

/* Wait for the child, at most timeout_s (then SIGKILL: a hang is a
 * failure, never a pass). */
static int wait_for(struct run *r, int timeout_s)
{
	struct timespec tick = { 0, 10000000 };
	int status;

	for (long waited = 0; waited < timeout_s * 100L; waited++) {
		pid_t got = waitpid(r->pid, &status, WNOHANG);
		if (got == r->pid) {
			r->status = WIFEXITED(status) ? WEXITSTATUS(status)
						      : 128 + WTERMSIG(status);
			return 0;
		}
		if (got < 0)
			return -1;
		nanosleep(&tick, NULL);
	}
	kill(r->pid, SIGKILL);
	waitpid(r->pid, &status, 0);
	r->timed_out = 1;
	r->status = 128 + SIGKILL;
	return 0;
}

int runapp_wait(struct run *r, int timeout_s)
{
	char path[sizeof(r->dir) + 16];

	if (wait_for(r, timeout_s) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/stdout", r->dir);
	slurp(path, r->out, sizeof(r->out));
	snprintf(path, sizeof(path), "%s/stderr", r->dir);
	slurp(path, r->err, sizeof(r->err));
	load_reports(r);
	return 0;
}

int runapp(struct run *r, const char *app, const char *const *args,
	   const char *const *env, int with_shim)
{
	if (runapp_start(r, app, args, env, with_shim) != 0)
		return -1;
	return runapp_wait(r, 120);
}

void runapp_free(struct run *r)
{
	for (int i = 0; i < r->nreports; i++)
		json_decref(r->report[i]);
	r->nreports = 0;
}

int count_lines(const char *text, const char *needle)
{
	int n = 0;

	while (text && *text) {
		const char *end = strchr(text, '\n');
		size_t len = end ? (size_t)(end - text) : strlen(text);
		char line[2048];
		snprintf(line, sizeof(line), "%.*s", (int)len, text);
		n += strstr(line, needle) != NULL;
		text += len + (end != NULL);
	}
	return n;
}

json_t *rep_thread_named(json_t *rep, const char *name)
{
	size_t i;
	json_t *t;

	json_array_foreach(json_object_get(rep, "threads"), i, t) {
		const char *n = json_string_value(json_object_get(t, "name"));
		if (n && strcmp(n, name) == 0)
			return t;
	}
	return NULL;
}

json_t *rep_main_thread(json_t *rep)
{
	size_t i;
	json_t *t;

	json_array_foreach(json_object_get(rep, "threads"), i, t)
		if (json_is_true(json_object_get(t, "main")))
			return t;
	return NULL;
}

/* Call fn on each region row of region in thread (or in every thread). */
static long long fold(json_t *rep, json_t *thread, const char *region,
		      long long (*fn)(json_t *row, const void *arg), const void *arg)
{
	long long sum = 0;
	size_t i, k;
	json_t *t, *row;

	if (thread) {
		json_array_foreach(json_object_get(thread, "regions"), k, row) {
			const char *n = json_string_value(json_object_get(row, "region"));
			if (n && strcmp(n, region) == 0) {
				long long v = fn(row, arg);
				if (v < 0)
					return -1;
				sum += v;
			}
		}
		return sum;
	}
	json_array_foreach(json_object_get(rep, "threads"), i, t) {
		long long v = fold(rep, t, region, fn, arg);
		if (v < 0)
			return -1;
		sum += v;
	}
	return sum;
}

static long long calls_of(json_t *row, const void *arg)
{
	(void)arg;
	return json_integer_value(json_object_get(row, "calls"));
}

static long long wall_of(json_t *row, const void *arg)
{
	return json_integer_value(json_object_get(json_object_get(row, "wall_ns"), arg));
}

struct ev_arg {
	int ev;
	const char *field;
};

static long long event_of(json_t *row, const void *arg)
{
	const struct ev_arg *a = arg;
	json_t *e = json_array_get(json_object_get(row, "events"), (size_t)a->ev);

	return json_is_object(e) ? json_integer_value(json_object_get(e, a->field)) : -1;
}

long long rep_calls(json_t *rep, json_t *thread, const char *region)
{
	return fold(rep, thread, region, calls_of, NULL);
}

long long rep_wall(json_t *rep, json_t *thread, const char *region, const char *field)
{
	return fold(rep, thread, region, wall_of, field);
}

long long rep_event(json_t *thread, const char *region, int ev, const char *field)
{
	struct ev_arg a = { ev, field };

	return fold(NULL, thread, region, event_of, &a);
}

json_t *rep_stack(json_t *rep, long long id)
{
	size_t i;
	json_t *s;

	json_array_foreach(json_object_get(rep, "stacks"), i, s)
		if (json_integer_value(json_object_get(s, "id")) == id)
			return s;
	return NULL;
}
