/* Real programs under LD_PRELOAD, checked through their reports.
 * PMCSHIM_TEST_ONLY=name,name limits the run (the sanitizer passes). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "runapp.h"

#define QUIET "PMCSHIM_QUIET=1"

static struct run r;

#define EXPECT_RAN(r, app, args, env, shim)                                   \
	CHECK(runapp(&(r), app, args, env, shim) == 0, "could not run %s", app)

#define SHOW (r).err

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

static long long num(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* Every region row: excl <= incl for wall time and each counted event. */
static int excl_within_incl(json_t *rep)
{
	size_t i, k, e;
	json_t *t, *row, *ev;

	json_array_foreach(json_object_get(rep, "threads"), i, t) {
		json_array_foreach(json_object_get(t, "regions"), k, row) {
			json_t *w = json_object_get(row, "wall_ns");
			if (num(w, "excl") > num(w, "incl") && num(w, "incl") != 0)
				return 0;
			json_array_foreach(json_object_get(row, "events"), e, ev)
				if (json_is_object(ev) && num(ev, "incl") &&
				    num(ev, "excl") > num(ev, "incl"))
					return 0;
		}
	}
	return 1;
}

static void threads_exact_counts(const char **env)
{
	json_t *rep, *t;
	char name[8];

	EXPECT_RAN(r, "threads", NULL, env, 1);
	CHECK(r.status == 0 && strcmp(r.out, "threads: done\n") == 0, "status %d out '%s' err %s",
	      r.status, r.out, SHOW);
	CHECK(r.nreports == 1, "%d reports", r.nreports);
	rep = r.report[0];
	CHECK(strstr(str(rep, "file"), ".pmc") != NULL, "file %s", str(rep, "file"));
	CHECK(json_array_size(json_object_get(rep, "threads")) == 9, "9 threads");
	CHECK(rep_calls(rep, NULL, "work") == 80, "work %lld", rep_calls(rep, NULL, "work"));
	CHECK(rep_calls(rep, NULL, "inner") == 240, "inner");
	CHECK(rep_calls(rep, NULL, "rec") == 40, "rec");
	CHECK(rep_calls(rep, NULL, "sleep50") == 1 && rep_calls(rep, NULL, "spin30") == 1, "main");
	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "t%d", i);
		t = rep_thread_named(rep, name);
		CHECK(t, "thread %s missing", name);
		CHECK(strcmp(str(t, "setup"), "start") == 0 && strcmp(str(t, "state"), "exited") == 0,
		      "%s setup/state", name);
		CHECK(rep_calls(rep, t, "work") == 10 && rep_calls(rep, t, "inner") == 30 &&
		      rep_calls(rep, t, "rec") == 5, "%s per-thread calls", name);
		/* exclusive = inclusive minus children, up to ns rounding per row */
		long long w = rep_wall(rep, t, "work", "incl"), we = rep_wall(rep, t, "work", "excl");
		long long in = rep_wall(rep, t, "inner", "incl");
		CHECK(llabs(we + in - w) <= 40, "%s work excl %lld + inner %lld != %lld", name, we, in, w);
		/* recursion: incl counts the outermost call once; excl sums to it */
		long long ri = rep_wall(rep, t, "rec", "incl"), re = rep_wall(rep, t, "rec", "excl");
		CHECK(ri > 0 && llabs(ri - re) <= 10, "%s rec incl %lld excl %lld", name, ri, re);
	}
	CHECK(excl_within_incl(rep), "some row has excl > incl");
	long long sleep = rep_wall(rep, NULL, "sleep50", "incl");
	const char *said = strstr(r.err, "sleep50 span ");
	long long span = said ? atoll(said + strlen("sleep50 span ")) : -1;
	/* at least the nap (less 1 ms of clock calibration), at most the span the
	 * application measured around its markers (plus the same 1 ms) */
	CHECK(sleep >= 49000000 && sleep <= span + 1000000, "sleep50 took %lld ns, span %lld ns",
	      sleep, span);
	t = rep_main_thread(rep);
	CHECK(t && num(t, "cpu_ns") >= 30000000, "main cpu_ns %lld", t ? num(t, "cpu_ns") : -1);
}

static void test_threads_exact_counts(void)
{
	const char *env[] = { QUIET, "THREADS_SPAN=1", NULL };

	threads_exact_counts(env);
}

/* Each thread starts after the last one ended, on the memory the shim
 * kept from it: nothing of the last thread's regions may show. */
static void test_threads_one_by_one(void)
{
	const char *env[] = { QUIET, "THREADS_SPAN=1", "THREADS_ONE_BY_ONE=1", NULL };

	threads_exact_counts(env);
}

static void test_events_unavailable_are_null(void)
{
	const char *env[] = { QUIET, "PMCSHIM_EVENTS=instructions,r1,task-clock", NULL };
	json_t *rep, *ev, *t;

	EXPECT_RAN(r, "threads", NULL, env, 1);
	CHECK(r.nreports == 1, "report");
	rep = r.report[0];
	ev = json_object_get(rep, "events");
	CHECK(json_array_size(ev) == 3, "3 events");
	if (strcmp(str(json_array_get(ev, 0), "source"), "unavailable") != 0)
		SKIP("a PMU is present: this test is for machines without one");
	CHECK(strlen(str(json_array_get(ev, 0), "reason")) > 5, "reason given");
	t = rep_main_thread(rep);
	CHECK(json_is_null(json_object_get(json_array_get(json_object_get(t, "totals"), 0), "value")),
	      "unavailable total must be null");
	CHECK(rep_event(t, "spin30", 0, "incl") == -1, "unavailable region value must be null");
	CHECK(rep_event(t, "spin30", 2, "incl") > 0, "task-clock still measured");
}

static void test_read_path_software_events(void)
{
	const char *env[] = { QUIET, "PMCSHIM_EVENTS=task-clock,page-faults", NULL };
	json_t *rep, *t, *total;

	EXPECT_RAN(r, "threads", NULL, env, 1);
	CHECK(r.status == 0 && r.nreports == 1, "ran: %s", SHOW);
	rep = r.report[0];
	CHECK(strcmp(str(json_array_get(json_object_get(rep, "events"), 0), "source"), "read") == 0,
	      "task-clock is read with read()");
	t = rep_main_thread(rep);
	long long tc = rep_event(t, "spin30", 0, "incl"), wall = rep_wall(rep, t, "spin30", "incl");
	/* CPU time, not wall: most of the 30 ms spun (the application's clock
	 * and perf's account a loaded machine's preemptions apart: 27.7 ms was
	 * seen at load 10), never more than the wall */
	CHECK(tc >= 20000000 && tc <= wall + 2000000, "spin30 task-clock %lld wall %lld", tc, wall);
	CHECK(rep_event(t, "sleep50", 0, "incl") < 10000000, "sleeping costs no task-clock");
	total = json_array_get(json_object_get(t, "totals"), 0);
	CHECK(strcmp(str(total, "status"), "counted") == 0 && num(total, "value") >= 30000000,
	      "main total %lld %s", num(total, "value"), str(total, "status"));
	CHECK(num(total, "running_ns") > 0 && num(total, "enabled_ns") >= num(total, "running_ns"),
	      "enabled/running");
	CHECK(excl_within_incl(rep), "excl > incl");
}

static void test_hardware_instructions(void)
{
	const char *env[] = { QUIET, "PMCSHIM_EVENTS=instructions,cycles", NULL };
	json_t *ev0, *t;

	EXPECT_RAN(r, "threads", NULL, env, 1);
	CHECK(r.nreports == 1, "report");
	ev0 = json_array_get(json_object_get(r.report[0], "events"), 0);
	if (strcmp(str(ev0, "source"), "unavailable") == 0)
		SKIP("no PMU: %s", str(ev0, "reason"));
	t = rep_thread_named(r.report[0], "t0");
	/* 30 calls of a 2000-iteration loop: well over 2 instructions each */
	CHECK(rep_event(t, "inner", 0, "incl") >= 30 * 2000 * 2, "instructions %lld",
	      rep_event(t, "inner", 0, "incl"));
	CHECK(rep_event(t, "inner", 1, "incl") > 0, "cycles");
	CHECK(excl_within_incl(r.report[0]), "excl > incl");
}

static void test_same_binary_without_shim(void)
{
	EXPECT_RAN(r, "threads", NULL, NULL, 0);
	CHECK(r.status == 0 && strcmp(r.out, "threads: done\n") == 0 && r.err[0] == '\0',
	      "status %d out '%s' err '%s'", r.status, r.out, r.err);
	CHECK(r.nreports == 0, "no report without the shim");
}

static void test_application_untouched(void)
{
	const char *env[] = { QUIET, "PMCSHIM_EVENTS=task-clock,page-faults", NULL };
	struct run plain;

	EXPECT_RAN(plain, "behaviour", NULL, NULL, 0);
	EXPECT_RAN(r, "behaviour", NULL, env, 1);
	CHECK(strstr(plain.out, "errno after markers: EDOM") && strstr(plain.out, "first open: 3"),
	      "baseline run: %s", plain.out);
	CHECK(strcmp(plain.out, r.out) == 0, "stdout differs:\n--- plain\n%s--- shim\n%s", plain.out, r.out);
	CHECK(strcmp(plain.err, r.err) == 0, "stderr differs:\n--- plain\n%s--- shim\n%s", plain.err, r.err);
	CHECK(plain.status == 7 && r.status == 7, "exit status %d / %d", plain.status, r.status);
	CHECK(r.nreports >= 1, "report written");
	runapp_free(&plain);
}

static void test_bad_events_value(void)
{
	const char *env[] = { "PMCSHIM_EVENTS=bogus,task-clock", NULL };
	json_t *ev;

	EXPECT_RAN(r, "threads", NULL, env, 1);
	CHECK(r.status == 0 && strcmp(r.out, "threads: done\n") == 0, "app unaffected");
	CHECK(count_lines(r.err, "PMCSHIM_EVENTS") == 1 && count_lines(r.err, "'bogus'") == 1,
	      "one clear line, got:\n%s", r.err);
	CHECK(r.nreports == 1, "report still written");
	ev = json_object_get(r.report[0], "events");
	CHECK(json_array_size(ev) == 1 && strcmp(str(json_array_get(ev, 0), "name"), "task-clock") == 0,
	      "good entries kept");
}

static void test_unwritable_output(void)
{
	char fb[] = "build/tmp/fallback-XXXXXX", abs[PATH_MAX], env_tmp[PATH_MAX + 16],
	     fallback[PATH_MAX + 64];
	const char *env[] = { QUIET, "PMCSHIM_OUTPUT=/nonexistent-dir/r.pmc", env_tmp, NULL };
	struct stat st;

	CHECK(mkdtemp(fb) && realpath(fb, abs), "fallback dir");
	snprintf(env_tmp, sizeof(env_tmp), "TMPDIR=%s", abs);
	EXPECT_RAN(r, "threads", NULL, env, 1);
	CHECK(r.status == 0 && strcmp(r.out, "threads: done\n") == 0, "app unaffected");
	CHECK(count_lines(r.err, "pmcshim:") == 1 &&
	      count_lines(r.err, "cannot write the report to /nonexistent-dir/r.pmc") == 1,
	      "one clear line, got:\n%s", r.err);
	const char *wrote = strstr(r.err, "writing ");
	CHECK(wrote, "fallback named: %s", r.err);
	snprintf(fallback, sizeof(fallback), "%.*s", (int)strcspn(wrote + 8, " \n"), wrote + 8);
	CHECK(strncmp(fallback, abs, strlen(abs)) == 0, "fallback %s not in TMPDIR", fallback);
	CHECK(stat(fallback, &st) == 0 && st.st_size > 100, "fallback %s exists", fallback);

	const char *env2[] = { QUIET, "PMCSHIM_OUTPUT=/nonexistent-dir/r.pmc",
			       "TMPDIR=/nonexistent-too", NULL };
	runapp_free(&r);
	EXPECT_RAN(r, "threads", NULL, env2, 1);
	CHECK(r.status == 0, "exit status kept when nothing can be written");
	CHECK(count_lines(r.err, "this run is not recorded") == 1, "says so: %s", r.err);
}

static void test_no_clobber_no_symlink_follow(void)
{
	char out[PATH_MAX + 32], target[PATH_MAX + 32], link1[PATH_MAX + 32], env_out[PATH_MAX + 48];
	const char *env[] = { QUIET, env_out, NULL };
	char keep[16] = "";
	FILE *f;
	struct stat st;

	/* Plant a report and a symlink where the next ones would go. */
	char base[] = "build/tmp/clobber-XXXXXX";
	CHECK(mkdtemp(base), "mkdtemp");
	char abs[PATH_MAX];
	CHECK(realpath(base, abs), "realpath");
	snprintf(out, sizeof(out), "%s/fixed.pmc", abs);
	snprintf(link1, sizeof(link1), "%s/fixed.1.pmc", abs);
	snprintf(target, sizeof(target), "%s/victim", abs);
	snprintf(env_out, sizeof(env_out), "PMCSHIM_OUTPUT=%s", out);
	f = fopen(out, "w");
	CHECK(f, "create");
	fputs("keep", f);
	fclose(f);
	CHECK(symlink(target, link1) == 0, "symlink");
	EXPECT_RAN(r, "threads", NULL, env, 1);
	f = fopen(out, "r");
	CHECK(f && fgets(keep, sizeof(keep), f), "read back");
	fclose(f);
	CHECK(strcmp(keep, "keep") == 0, "existing report clobbered");
	CHECK(lstat(link1, &st) == 0 && S_ISLNK(st.st_mode), "symlink replaced");
	CHECK(stat(target, &st) != 0 && errno == ENOENT, "symlink followed");
	snprintf(out, sizeof(out), "%s/fixed.2.pmc", abs);
	CHECK(stat(out, &st) == 0 && st.st_size > 100, "report went to fixed.2.pmc");
}

static void test_output_pattern(void)
{
	char path[sizeof(r.dir) + PATH_MAX + 300], host[256] = "";
	const char *env[] = { QUIET, "PMCSHIM_OUTPUT=out-%e.%p.%h.pmc", NULL };
	struct stat st;

	EXPECT_RAN(r, "lazy", NULL, env, 1);
	gethostname(host, sizeof(host) - 1);
	/* the report is not named pmcshim-*, so find it by the pattern */
	FILE *p;
	char cmd[sizeof(r.dir) + 64], name[PATH_MAX] = "";
	snprintf(cmd, sizeof(cmd), "ls %s | grep '^out-lazy\\.'", r.dir);
	p = popen(cmd, "r");
	CHECK(p && fgets(name, sizeof(name), p), "no out-lazy.* file");
	pclose(p);
	name[strcspn(name, "\n")] = '\0';
	int pid = atoi(name + strlen("out-lazy."));
	snprintf(path, sizeof(path), "%s/out-lazy.%d.%s.pmc", r.dir, pid, host);
	CHECK(pid > 0 && stat(path, &st) == 0, "expected %s, found %s", path, name);
}

static json_t *error_entry(json_t *rep, const char *kind, const char *region)
{
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(rep, "errors"), i, e)
		if (strcmp(str(e, "kind"), kind) == 0 && strcmp(str(e, "region"), region) == 0)
			return e;
	return NULL;
}

static void test_unbalanced_markers(void)
{
	json_t *rep, *e;

	EXPECT_RAN(r, "unbalanced", NULL, NULL, 1);
	CHECK(r.status == 3 && strcmp(r.out, "unbalanced: done\n") == 0, "app unaffected");
	CHECK(r.nreports == 1, "report");
	rep = r.report[0];
	e = error_entry(rep, "end-unopened", "stray");
	CHECK(e && num(e, "count") == 2, "end-unopened stray x2");
	e = error_entry(rep, "end-mismatch", "outer");
	CHECK(e && strcmp(str(e, "open"), "forgotten") == 0 && num(e, "count") == 1, "end-mismatch");
	e = error_entry(rep, "open-at-exit", "left-open");
	CHECK(e && num(e, "count") == 1, "open-at-exit");
	CHECK(rep_calls(rep, NULL, "good") == 4 && rep_calls(rep, NULL, "outer") == 1,
	      "other regions measured");
	CHECK(rep_calls(rep, NULL, "forgotten") == 1, "forgotten closed at outer's end, counted");
	e = error_entry(rep, "closed-by-resync", "forgotten");
	CHECK(e && strcmp(str(e, "open"), "outer") == 0 && num(e, "count") == 1,
	      "closed-by-resync, by outer's end");
	CHECK(count_lines(r.err, "unbalanced markers") == 3, "one warning per kind:\n%s", r.err);
}

/* Ids that no region() call returned, among good regions: refused and
 * counted at the marker (10 x 3), never written as rows; the good region
 * exact, with no marker error; the reader takes the file (exit 0). */
static void test_unissued_ids(void)
{
	const char *env[] = { "PMCSHIM_EVENTS=task-clock", NULL };
	json_t *rep;

	EXPECT_RAN(r, "badids", NULL, env, 1);
	CHECK(r.status == 0 && strcmp(r.out, "badids: done\n") == 0, "status %d: %s", r.status,
	      r.out);
	CHECK(r.nreports == 1 && (rep = r.report[0]), "the reader took the report");
	CHECK(num(json_object_get(rep, "dropped"), "ids") == 30, "refused ids counted: %lld",
	      num(json_object_get(rep, "dropped"), "ids"));
	CHECK(rep_calls(rep, NULL, "good") == 10, "good: %lld calls", rep_calls(rep, NULL, "good"));
	CHECK(json_array_size(json_object_get(rep, "errors")) == 0, "no marker error");
	/* (task-clock named: one line says what it costs a marker pair) */
	CHECK(count_lines(r.err, "pmcshim:") - count_lines(r.err, "only through read()") == 0 ||
	      count_lines(r.err, "unavailable") == 1, "nothing said of it on stderr:\n%s", r.err);
}

/* PMCSHIM_MAX_NAMES=10 and 26 names: the first ten measured, one line on
 * stderr, every later marker with a new name dropped and counted (15
 * run-time pairs and a fixed-name pair: 32 markers), and the program's
 * output and exit status its own. */
static void test_names_limit(void)
{
	const char *env[] = { "PMCSHIM_MAX_NAMES=10", "PMCSHIM_EVENTS=task-clock", NULL };
	json_t *rep, *dropped;
	struct run plain;
	char name[16];

	EXPECT_RAN(plain, "namelimit", NULL, NULL, 0);
	EXPECT_RAN(r, "namelimit", NULL, env, 1);
	CHECK(plain.status == 5 && r.status == 5, "exit status %d / %d", plain.status, r.status);
	CHECK(strcmp(plain.out, r.out) == 0 && strcmp(r.out, "namelimit: 25 names\n") == 0,
	      "stdout differs:\n--- plain\n%s--- shim\n%s", plain.out, r.out);
	/* (and the line on what task-clock, named, costs a marker pair) */
	CHECK(count_lines(r.err, "pmcshim:") - count_lines(r.err, "only through read()") == 1 &&
	      count_lines(r.err, "10 distinct region names, the limit (PMCSHIM_MAX_NAMES)") == 1,
	      "one line, got:\n%s", r.err);
	CHECK(r.nreports == 1, "report");
	rep = r.report[0];
	dropped = json_object_get(rep, "dropped");
	CHECK(num(dropped, "names") == 32 && num(dropped, "busy") == 0 && num(dropped, "full") == 0,
	      "dropped names %lld", num(dropped, "names"));
	CHECK(rep_calls(rep, NULL, "n0") == 2, "n0 calls %lld", rep_calls(rep, NULL, "n0"));
	for (int i = 1; i < 10; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		CHECK(rep_calls(rep, NULL, name) == 1, "%s calls %lld", name, rep_calls(rep, NULL, name));
	}
	CHECK(rep_calls(rep, NULL, "n10") == 0 && rep_calls(rep, NULL, "fixed") == 0,
	      "names past the limit are not in the report");
	runapp_free(&plain);
}

/* A name the cache took as constant (a string literal) is checked again
 * once its object is unloaded: another one, loaded at the same address,
 * has other text there. */
static void test_names_of_unloaded_plugin(void)
{
	const char *env[] = { QUIET, NULL };

	EXPECT_RAN(r, "plugins", NULL, env, 1);
	CHECK(r.status == 0 && r.nreports == 1, "status %d, %d reports:\n%s", r.status,
	      r.nreports, r.err);
	if (!strstr(r.out, "same address: yes"))
		SKIP("the kernel mapped the second plugin elsewhere: nothing to check");
	CHECK(rep_calls(r.report[0], NULL, "plugin-alpha") == 3 &&
	      rep_calls(r.report[0], NULL, "plugin-bravo") == 2,
	      "plugin-alpha %lld calls (3), plugin-bravo %lld (2)",
	      rep_calls(r.report[0], NULL, "plugin-alpha"),
	      rep_calls(r.report[0], NULL, "plugin-bravo"));
}

/* Literal names marked on 4 threads while the main thread loads and
 * unloads a library: each pair counted under its own name. */
static void test_names_while_unloading(void)
{
	const char *env[] = { QUIET, NULL };
	char name[16];

	EXPECT_RAN(r, "unloads", NULL, env, 1);
	CHECK(r.status == 0 && strcmp(r.out, "unloads: done\n") == 0 && r.nreports == 1,
	      "status %d, out '%s', %d reports:\n%s", r.status, r.out, r.nreports, r.err);
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "lit-%d", i);
		CHECK(rep_calls(r.report[0], NULL, name) == 20000, "%s: %lld calls (20000)", name,
		      rep_calls(r.report[0], NULL, name));
	}
}

static void test_backtrace_is_glibc(void)
{
	const char *env[] = { QUIET, NULL };

	EXPECT_RAN(r, "backtrace", NULL, env, 1);
	CHECK(r.status == 0, "app's backtrace() not glibc's under the shim:\n%s", r.out);
	CHECK(strstr(r.out, "unw_backtrace visible: no"), "%s", r.out);
}

/* What the shim interposes: thread start, the ways a process ends, the
 * calls that close or replace descriptors, and MPI's C calls (PMPI); what
 * it provides as the compiler's function hooks and an OMPT tool, and
 * libgomp's entry points. */
static int interposed(const char *name)
{
	if (strncmp(name, "MPI_", 4) == 0)
		return 1;
	static const char *const names[] = {
		"pthread_create", "_exit", "_Exit", "execve", "execv", "execvp", "execvpe",
		"execl", "execlp", "execle", "fexecve", "close", "dup2", "dup3",
		"close_range", "closefrom", "dlclose", "sigaction", "signal", "bsd_signal",
		"sysv_signal", "sigprocmask", "pthread_sigmask", "__cyg_profile_func_enter",
		"__cyg_profile_func_exit",
		"ompt_start_tool", "InitializeInjectionNvtx2",
	};

	/* GOMP_*; LIKWID's marker API and PAPI's high-level API (likwid.c,
	 * papihl.c) */
	if (strncmp(name, "GOMP_", 5) == 0 || strncmp(name, "likwid_marker", 13) == 0 ||
	    strncmp(name, "PAPI_hl_", 8) == 0)
		return 1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return 1;
	return 0;
}

static void test_exported_symbols(void)
{
	char cmd[PATH_MAX + 64], line[512];
	int names = 0, api = 0;
	FILE *p;

	if (system("command -v nm >/dev/null 2>&1") != 0)
		SKIP("nm not installed");
	snprintf(cmd, sizeof(cmd), "nm -D --defined-only '%s'", runapp_shim());
	p = popen(cmd, "r");
	CHECK(p, "popen");
	while (fgets(line, sizeof(line), p)) {
		char *name = strrchr(line, ' ');
		name = name ? name + 1 : line;
		name[strcspn(name, "\n")] = '\0';
		/* sanitizer builds export their runtime hooks */
		if (strncmp(name, "__asan", 6) == 0 || strncmp(name, "__ubsan", 7) == 0 ||
		    strncmp(name, "__tsan", 6) == 0 || strncmp(name, "__sanitizer", 11) == 0)
			continue;
		names++;
		api += strcmp(name, "pmcshim_api") == 0;
		CHECK(strncmp(name, "pmcshim_", 8) == 0 || interposed(name),
		      "unexpected export '%s'", name);
	}
	pclose(p);
	CHECK(api == 1 && names >= 6, "%d exports", names);
}

static void test_fork_child_own_report(void)
{
	const char *env[] = { QUIET, NULL };
	json_t *parent = NULL, *child = NULL;

	EXPECT_RAN(r, "forks", NULL, env, 1);
	CHECK(r.status == 0 && strstr(r.out, "exit 0"), "out %s", r.out);
	CHECK(r.nreports == 2, "%d reports", r.nreports);
	for (int i = 0; i < 2; i++) {
		json_t *p = json_object_get(r.report[i], "process");
		if (json_is_true(json_object_get(p, "forked")))
			child = r.report[i];
		else
			parent = r.report[i];
	}
	CHECK(child && parent, "one parent, one child report");
	CHECK(num(json_object_get(child, "process"), "ppid") ==
	      num(json_object_get(parent, "process"), "pid"), "child's ppid");
	CHECK(rep_calls(child, NULL, "child_work") == 5, "child work");
	CHECK(rep_calls(child, NULL, "parent_work") == 0, "parent's work leaked into child");
	CHECK(rep_calls(child, NULL, "across_fork") == 1, "region open across fork ends in child");
	CHECK(rep_calls(child, NULL, "outer") == 1 && !error_entry(child, "open-at-exit", "outer"),
	      "the parent's region the child left open ends with it, unreported");
	CHECK(rep_calls(parent, NULL, "outer") == 1, "parent's outer");
	CHECK(rep_calls(parent, NULL, "parent_work") == 5 && rep_calls(parent, NULL, "child_work") == 0,
	      "parent counts");
	CHECK(json_array_size(json_object_get(child, "threads")) == 1, "child has one thread");
}

static void test_thread_exit_paths(void)
{
	const char *env[] = { QUIET, NULL };
	static const char *const names[] = { "by-return", "by-exit", "by-cancel" };
	json_t *rep, *t, *e;

	EXPECT_RAN(r, "exits", NULL, env, 1);
	CHECK(r.status == 0 && strcmp(r.out, "exits: done\n") == 0, "status %d err %s", r.status, r.err);
	CHECK(r.nreports == 1, "report");
	rep = r.report[0];
	for (int i = 0; i < 3; i++) {
		t = rep_thread_named(rep, names[i]);
		CHECK(t && strcmp(str(t, "state"), "exited") == 0, "%s exited", names[i]);
		CHECK(rep_calls(rep, t, "thread-work") == 1, "%s work counted", names[i]);
	}
	t = rep_thread_named(rep, "runner");
	CHECK(t && strcmp(str(t, "state"), "snapshot") == 0, "runner still running at exit: a snapshot");
	CHECK(rep_calls(rep, t, "busy") > 0, "runner's regions reported");
	e = error_entry(rep, "open-at-exit", "cancelled");
	CHECK(e && num(e, "tid") == num(rep_thread_named(rep, "by-cancel"), "tid"),
	      "cancelled thread's open region reported");
}

static void test_lazy_thread(void)
{
	const char *env[] = { QUIET, NULL };
	size_t i;
	json_t *t, *lazy = NULL;

	EXPECT_RAN(r, "lazy", NULL, env, 1);
	CHECK(r.status == 0, "status %d", r.status);
	json_array_foreach(json_object_get(r.report[0], "threads"), i, t)
		if (strcmp(str(t, "setup"), "lazy") == 0)
			lazy = t;
	CHECK(lazy, "a thread set up lazily");
	CHECK(rep_calls(r.report[0], lazy, "lazy-work") == 6, "its calls");
	CHECK(strcmp(str(lazy, "state"), "exited") == 0, "finished when it ended");
}

/* How many of the report's threads carry the markers' calibration, of n. */
static size_t calibrated_threads(json_t *rep, size_t *n)
{
	size_t i, with = 0;
	json_t *t, *threads = json_object_get(rep, "threads");

	*n = json_array_size(threads);
	json_array_foreach(threads, i, t)
		with += json_object_get(t, "calibration") != NULL;
	return with;
}

/* The calibration runs at the application's first region name, and the
 * module list is read at the first recorded address, not at setup: a
 * program that names no region has neither; otherwise every thread
 * record has the calibration, those published before it ran too (lazy's
 * main thread never marks; its lazily set up thread names the region
 * before it is set up, and calibrates at its setup). */
static void test_calibration_at_first_name(void)
{
	const char *env[] = { QUIET, NULL };
	size_t n, with;

	EXPECT_RAN(r, "backtrace", NULL, env, 1);
	with = calibrated_threads(r.report[0], &n);
	CHECK(n == 1 && with == 0, "no region named: %zu of %zu threads calibrated", with, n);
	CHECK(json_array_size(json_object_get(r.report[0], "modules")) == 0,
	      "no address recorded: no module list");
	runapp_free(&r);
	EXPECT_RAN(r, "lazy", NULL, env, 1);
	with = calibrated_threads(r.report[0], &n);
	CHECK(n == 2 && with == 2, "%zu of %zu threads calibrated", with, n);
	CHECK(json_array_size(json_object_get(r.report[0], "modules")) >= 2,
	      "the module list, read at the first stack");
}

/* Symbol of frame k of the stack of region's first row in thread. */
static const char *frame_symbol(json_t *rep, json_t *thread, const char *region, size_t k,
				size_t *nframes)
{
	size_t i;
	json_t *row;

	json_array_foreach(json_object_get(thread, "regions"), i, row) {
		if (strcmp(str(row, "region"), region) != 0)
			continue;
		json_t *frames = json_object_get(rep_stack(rep, num(row, "stack")), "frames");
		*nframes = json_array_size(frames);
		return str(json_array_get(frames, k), "symbol");
	}
	*nframes = 0;
	return "";
}

static void test_call_site_stacks(void)
{
	const char *env[] = { QUIET, NULL };
	const char *env0[] = { QUIET, "PMCSHIM_STACK_DEPTH=0", NULL };
	json_t *t;
	size_t n;
	size_t i;
	json_t *s = NULL;

	EXPECT_RAN(r, "threads", NULL, env, 1);
	t = rep_thread_named(r.report[0], "t3");
	CHECK(strncmp(frame_symbol(r.report[0], t, "inner", 0, &n), "leaf_fn+", 8) == 0,
	      "frame 0 is the call site: '%s'", frame_symbol(r.report[0], t, "inner", 0, &n));
	CHECK(strncmp(frame_symbol(r.report[0], t, "inner", 1, &n), "work_fn+", 8) == 0, "frame 1");
	CHECK(n >= 3 && n <= 9, "%zu frames at depth 8", n);
	CHECK(num(r.report[0], "stack_depth") == 8, "depth recorded");
	json_array_foreach(json_object_get(r.report[0], "modules"), i, s)
		if (strstr(str(s, "path"), "threads"))
			break;
	CHECK(s && strlen(str(s, "build_id")) >= 16, "executable's build-id in module map");
	runapp_free(&r);

	EXPECT_RAN(r, "threads", NULL, env0, 1);
	json_array_foreach(json_object_get(r.report[0], "stacks"), i, s)
		CHECK(json_array_size(json_object_get(s, "frames")) == 1, "depth 0: call site only");
	CHECK(rep_calls(r.report[0], NULL, "rec") == 40, "calls unchanged at depth 0");
}

static void test_cxx_header(void)
{
	const char *env[] = { QUIET, NULL };

	EXPECT_RAN(r, "cxx", NULL, env, 1);
	CHECK(r.status == 0 && strcmp(r.out, "cxx: 2 active\n") == 0, "out '%s'", r.out);
	CHECK(rep_calls(r.report[0], NULL, "twice") == 2, "twice");
	CHECK(rep_calls(r.report[0], NULL, "dynamic-42") == 1, "dynamic name");
	runapp_free(&r);
	EXPECT_RAN(r, "cxx", NULL, NULL, 0);
	CHECK(r.status == 0 && strcmp(r.out, "cxx: 2 inactive\n") == 0, "without shim '%s'", r.out);
}

/* The minimal reader prints the region table of a real report, and
 * refuses a damaged one with one line and status 2. */
static void test_reader_table(void)
{
	const char *env[] = { QUIET, "PMCSHIM_EVENTS=task-clock", NULL };
	char cmd[8192], out[8192] = "", bad[sizeof(r.dir) + 16];
	FILE *p, *f;
	size_t n;

	EXPECT_RAN(r, "threads", NULL, env, 1);
	CHECK(r.nreports == 1, "report");
	snprintf(cmd, sizeof(cmd), "build/pmcshim-report '%s' 2>&1; echo status=$?", r.report_path[0]);
	p = popen(cmd, "r");
	n = p ? fread(out, 1, sizeof(out) - 1, p) : 0;
	out[n] = '\0';
	if (p)
		pclose(p);
	CHECK(strstr(out, "status=0") && strstr(out, "task-clock incl"), "reader output:\n%s", out);
	CHECK(count_lines(out, "inner ") == 1 && count_lines(out, "rec ") == 1 &&
	      count_lines(out, "240") >= 1, "region rows:\n%s", out);
	snprintf(bad, sizeof(bad), "%s/bad.json", r.dir);
	f = fopen(bad, "w");
	CHECK(f, "write");
	fputs("{\"format\": \"pmcshim-report\", \"version\": 1, \"thr", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "build/pmcshim-report '%s' 2>&1; echo status=$?", bad);
	p = popen(cmd, "r");
	n = p ? fread(out, 1, sizeof(out) - 1, p) : 0;
	out[n] = '\0';
	if (p)
		pclose(p);
	CHECK(strstr(out, "status=2") && count_lines(out, "bad.json") == 1, "damaged file:\n%s", out);
}

#define T(fn)                                   \
	do {                                    \
		if (t_wanted(#fn)) {              \
			RUN(fn);                \
			runapp_free(&r);        \
		}                               \
	} while (0)

int main(void)
{
	runapp_init();
	printf("shim under test: %s\n", runapp_shim());
	T(test_threads_exact_counts);
	T(test_threads_one_by_one);
	T(test_events_unavailable_are_null);
	T(test_read_path_software_events);
	T(test_hardware_instructions);
	T(test_same_binary_without_shim);
	T(test_application_untouched);
	T(test_bad_events_value);
	T(test_unwritable_output);
	T(test_no_clobber_no_symlink_follow);
	T(test_output_pattern);
	T(test_unbalanced_markers);
	T(test_unissued_ids);
	T(test_names_limit);
	T(test_names_of_unloaded_plugin);
	T(test_names_while_unloading);
	T(test_backtrace_is_glibc);
	T(test_exported_symbols);
	T(test_fork_child_own_report);
	T(test_thread_exit_paths);
	T(test_lazy_thread);
	T(test_calibration_at_first_name);
	T(test_call_site_stacks);
	T(test_cxx_header);
	T(test_reader_table);
	return t_done(getenv("PMCSHIM_TEST_SUITE") ? getenv("PMCSHIM_TEST_SUITE") : "integration");
}
