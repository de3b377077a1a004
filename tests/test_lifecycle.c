/* Nothing lost: however a process ends, its report file holds every
 * region closed before the end, and says how it ended. The apps end
 * themselves after a known number of calls (tests/apps/ends.c), so every
 * check is exact; no check depends on timing (a hang is killed after a
 * generous timeout and fails). Files are read with the report file's own
 * reading code (preload/format/reportfile.c). */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <signal.h>
#include <errno.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../preload/format/reportfile.h"
#include "harness.h"
#include "runapp.h"

#define QUIET "PMCSHIM_QUIET=1"

/* What a file says, summed over its records. */
struct summary {
	int ok;
	uint32_t state;
	enum rf_liveness live;
	uint64_t pid;
	char target[256];
	int nthreads, running, snapshot, exited, cpu_unknown, lost;
	char lost_reason[64];		/* the first thread's with lost totals */
	int partial;
	long long calls;		/* of the region asked for */
};

static const char *name_of(const struct rf_file *f, uint32_t id)
{
	uint64_t off = 0;
	const struct rf_record *r;
	int bad;

	while ((r = rf_next(f, &off, &bad)))
		if (r->type == RF_NAME && ((const struct rf_name *)r)->id == id)
			return ((const struct rf_name *)r)->text;
	return "";
}

static void add_thread(struct summary *s, const struct rf_thread *t)
{
	uint32_t st = rf_thread_state(t);

	s->nthreads++;
	s->running += st == RF_T_RUNNING;
	s->snapshot += st == RF_T_SNAPSHOT;
	s->exited += st == RF_T_EXITED;
	s->cpu_unknown += st != RF_T_RUNNING && t->cpu_ns == UINT64_MAX;
	if (t->total_status == RF_TOTAL_LOST && !s->lost++)
		snprintf(s->lost_reason, sizeof(s->lost_reason), "%.63s", t->lost_reason);
}

static struct summary summarize(const char *path, const char *region)
{
	struct summary s = { 0 };
	struct rf_file f;
	char why[256];
	uint64_t off = 0;
	const struct rf_record *r;
	int bad;

	if (rf_open(path, &f, why, sizeof(why)) != 0) {
		printf("    %s: %s\n", path, why);
		return s;
	}
	s.ok = 1;
	s.state = rf_state(f.h);
	s.live = rf_liveness(f.h);
	s.pid = f.h->pid;
	snprintf(s.target, sizeof(s.target), "%s", f.h->exec_target);
	while ((r = rf_next(&f, &off, &bad))) {
		if (r->type == RF_THREAD)
			add_thread(&s, (const void *)r);
		if (r->type == RF_SITE) {
			const struct rf_site *site = (const void *)r;
			struct rf_stat v[RF_EVENTS_MAX + 1];
			uint64_t calls;
			s.partial += !rf_site_read(site, &calls, v, RF_EVENTS_MAX + 1);
			if (!strcmp(name_of(&f, site->region), region))
				s.calls += (long long)calls;
		}
	}
	s.ok = !bad;
	rf_close(&f);
	return s;
}

/* The report file of a run whose name contains `part` ("" for any). */
static const char *file_of(const struct run *r, const char *part)
{
	for (int i = 0; i < r->nreports; i++)
		if (strstr(strrchr(r->report_path[i], '/'), part))
			return r->report_path[i];
	return NULL;
}

static int run_ends(struct run *r, const char *mode, const char *n)
{
	const char *args[] = { mode, n, NULL };
	const char *env[] = { QUIET, NULL };

	return runapp(r, "ends", args, env, 1);
}

/* --- ends ------------------------------------------------------------- */

static void check_killed(const char *mode, int sig)
{
	struct run r;
	struct summary s;

	CHECK(run_ends(&r, mode, "1000") == 0, "ran");
	CHECK(r.status == 128 + sig, "%s: status %d, want %d", mode, r.status, 128 + sig);
	CHECK(r.nreports == 1, "%s: one file, got %d", mode, r.nreports);
	s = summarize(r.report_path[0], "work");
	CHECK(s.ok && s.calls == 1000, "%s: %lld calls of 1000 in the file", mode, s.calls);
	CHECK(s.state == RF_RUNNING && s.live == RF_GONE,
	      "%s: reads as ended without exit (state %u, liveness %d)", mode, s.state, s.live);
	CHECK(s.running == 1 && s.partial == 0, "%s: thread running at the end, no torn site", mode);
	runapp_free(&r);
}

static void test_sigkill(void) { check_killed("kill", SIGKILL); }
static void test_sigterm(void) { check_killed("term", SIGTERM); }
static void test_sigint(void) { check_killed("int", SIGINT); }
static void test_sigsegv(void) { check_killed("segv", SIGSEGV); }
static void test_abort(void) { check_killed("abort", SIGABRT); }

static void test_killed_with_region_open(void)
{
	check_killed("nested", SIGKILL);
}

static void test_quick_exit(void)
{
	struct run r;
	struct summary s;

	CHECK(run_ends(&r, "_exit", "1000") == 0 && r.status == 3, "status %d", r.status);
	s = summarize(r.report_path[0], "work");
	CHECK(s.calls == 1000 && s.state == RF_QUICK_EXIT, "calls %lld, state %u", s.calls, s.state);
	CHECK(s.exited == 1, "the thread's totals were stored");
	runapp_free(&r);
}

static void test_exec_keeps_both_images(void)
{
	struct run r;
	struct summary before, after;

	CHECK(run_ends(&r, "exec", "1000") == 0 && r.status == 0, "status %d", r.status);
	CHECK(r.nreports == 2, "two files (one per image), got %d", r.nreports);
	before = summarize(r.report_path[1], "work");	/* pmcshim-ends-PID.pmc */
	after = summarize(r.report_path[0], "after");	/* pmcshim-ends-PID.1.pmc */
	CHECK(before.state == RF_EXECED && strstr(before.target, "/proc/self/exe"),
	      "first image: exec'd (state %u, target '%s')", before.state, before.target);
	CHECK(before.calls == 1000, "first image kept its %lld calls", before.calls);
	CHECK(after.state == RF_EXITED && after.calls == 500, "second image: %lld calls",
	      after.calls);
	CHECK(before.pid == after.pid, "same pid");
	runapp_free(&r);
}

/* An exec that fails ends nothing: the markers after it are recorded
 * (the shim puts its entries back in the api table). */
static void test_exec_that_fails(void)
{
	struct run r;
	struct summary s;

	CHECK(run_ends(&r, "badexec", "1000") == 0 && r.status == 0, "status %d", r.status);
	CHECK(r.nreports == 1, "one file, got %d", r.nreports);
	s = summarize(r.report_path[0], "work");
	CHECK(s.calls == 1000 && s.state == RF_EXITED, "before: %lld calls, state %u", s.calls,
	      s.state);
	s = summarize(r.report_path[0], "after");
	CHECK(s.calls == 500, "after, by name: %lld calls of 500", s.calls);
	s = summarize(r.report_path[0], "fixed");
	CHECK(s.calls == 500, "after, by id: %lld calls of 500", s.calls);
	runapp_free(&r);
}

static void test_sh_c(void)
{
	struct run r;
	const char *mine, *shell;
	struct summary s;

	CHECK(run_ends(&r, "sh", "1000") == 0 && r.status == 5, "status %d", r.status);
	mine = file_of(&r, "-ends-");
	CHECK(mine && r.nreports == 2, "the app's file and the shell's, got %d", r.nreports);
	s = summarize(mine, "work");
	CHECK(s.state == RF_EXECED && s.calls == 1000 && !strcmp(s.target, "/bin/sh"),
	      "app: exec'd /bin/sh with its calls (state %u, %lld)", s.state, s.calls);
	shell = r.report_path[0] == mine ? r.report_path[1] : r.report_path[0];
	s = summarize(shell, "");
	CHECK(s.state == RF_QUICK_EXIT || s.state == RF_EXITED, "shell: ended (state %u)", s.state);
	runapp_free(&r);
}

static void test_exit_from_signal_handler(void)
{
	int clean = 0;

	for (int i = 0; i < 40; i++) {
		struct run r;
		const char *args[] = { "handler", NULL };
		const char *env[] = { QUIET, NULL };
		struct summary s;

		CHECK(runapp_start(&r, "ends", args, env, 1) == 0 && runapp_wait(&r, 30) == 0,
		      "ran");
		CHECK(!r.timed_out, "run %d hung in exit", i);
		CHECK(r.status == 0 && r.err[0] == '\0', "run %d: status %d, stderr '%s'", i,
		      r.status, r.err);
		s = summarize(r.report_path[0], "spin");
		CHECK(s.state == RF_EXITED && s.calls > 0, "run %d: file finished", i);
		clean++;
		runapp_free(&r);
	}
	CHECK(clean == 40, "%d/40 clean", clean);
}

/* The parent appends while its fork child copies the file: the child's
 * file holds what was there at the fork and its own regions, whole. */
static void test_fork_child_copy(void)
{
	struct run r;
	const char *child = NULL;
	struct summary s, p;

	CHECK(run_ends(&r, "forkafter", "2000") == 0 && r.status == 0, "status %d", r.status);
	CHECK(r.nreports == 2, "two files, got %d", r.nreports);
	for (int i = 0; i < 2; i++)
		if (summarize(r.report_path[i], "child").calls == 5)
			child = r.report_path[i];
	CHECK(child, "the child's file has its 5 calls");
	s = summarize(child, "p1999");
	p = summarize(child == r.report_path[0] ? r.report_path[1] : r.report_path[0], "p1999");
	CHECK(s.ok && s.calls == 0, "child's file well-formed, none of the parent's later calls");
	CHECK(p.ok && p.calls == 1, "the parent's file has them");
	runapp_free(&r);
}

/* --- live ------------------------------------------------------------------ */

static const char *find_file(const char *dir, char *out, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	const char *found = NULL;

	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "pmcshim-", 8)) {
			snprintf(out, len, "%s/%s", dir, e->d_name);
			found = out;
		}
	if (d)
		closedir(d);
	return found;
}

/* Poll (at most 60 s: only a broken shim waits that long) for n ticks. */
static struct summary wait_for_ticks(const char *dir, long long n, char *path, size_t len)
{
	struct timespec ms = { 0, 1000000 };
	struct summary s = { 0 };

	for (int i = 0; i < 60000; i++, nanosleep(&ms, NULL)) {
		struct rf_file f;
		char why[128];

		/* (a file just made has no header yet) */
		if (!find_file(dir, path, len) || rf_open(path, &f, why, sizeof(why)) != 0)
			continue;
		rf_close(&f);
		if ((s = summarize(path, "tick")).calls >= n)
			break;
	}
	return s;
}

static void test_daemon_read_live(void)
{
	struct run r;
	const char *args[] = { "daemon", NULL };
	const char *env[] = { QUIET, NULL };
	char path[4096], stop[4096];
	struct summary s, end;
	FILE *f;

	CHECK(runapp_start(&r, "ends", args, env, 1) == 0, "started");
	s = wait_for_ticks(r.dir, 20, path, sizeof(path));
	snprintf(stop, sizeof(stop), "%s/stop", r.dir);
	f = fopen(stop, "w");
	if (f)
		fclose(f);
	CHECK(runapp_wait(&r, 60) == 0 && r.status == 0 && !r.timed_out, "stopped cleanly");
	CHECK(s.calls >= 20, "seen live: %lld ticks", s.calls);
	CHECK(s.state == RF_RUNNING && s.live == RF_LIVE, "live: state %u, liveness %d",
	      s.state, s.live);
	end = summarize(path, "tick");
	CHECK(end.state == RF_EXITED && end.live == RF_GONE && end.calls >= s.calls,
	      "after: exited with %lld >= %lld ticks", end.calls, s.calls);
	runapp_free(&r);
}

static void test_reader_while_8_threads_mark(void)
{
	struct run r;
	const char *args[] = { "hammer.pmc", NULL };
	const char *env[] = { QUIET, "PMCSHIM_OUTPUT=hammer.pmc", NULL };

	CHECK(runapp(&r, "hammer", args, env, 1) == 0, "ran");
	CHECK(r.status == 0 && strstr(r.out, "hammer: ok"), "status %d: %s", r.status, r.out);
	runapp_free(&r);
}

/* --- threads ----------------------------------------------------------------- */

static void test_raw_exit_thread(void)
{
	struct run r;
	struct summary s;

	CHECK(run_ends(&r, "rawthread", "0") == 0 && r.status == 0, "status %d", r.status);
	s = summarize(r.report_path[0], "raw");
	CHECK(s.calls == 10 && s.nthreads == 2, "calls %lld threads %d", s.calls, s.nthreads);
	CHECK(s.snapshot == 1 && s.cpu_unknown == 1,
	      "the gone thread: a snapshot with unknown (not wrapped) CPU time");
	runapp_free(&r);
}

static void test_memory_flat_over_exited_threads(void)
{
	struct run r;
	long first = -1, all = -1;
	const char *p;

	CHECK(run_ends(&r, "threads", "2000") == 0 && r.status == 0, "status %d", r.status);
	p = strstr(r.out, "rss100 ");
	CHECK(p && sscanf(p, "rss100 %ld", &first) == 1, "rss after 100: %s", r.out);
	p = strstr(r.out, "rssall ");
	CHECK(p && sscanf(p, "rssall %ld", &all) == 1, "rss after all");
	/* 1900 more threads: their records (~0.5 KB each) are all that may grow */
	CHECK(all - first < 2048, "resident memory grew %ld KB over 1900 threads", all - first);
	CHECK(summarize(r.report_path[0], "thread").calls == 8000, "every thread's calls");
	runapp_free(&r);
}

/* --- descriptors ---------------------------------------------------------------- */

static void test_fd_reused_by_app(void)
{
	struct run r;
	const char *args[] = { "reuse", NULL };
	const char *env[] = { QUIET, "PMCSHIM_EVENTS=task-clock,page-faults", NULL };
	struct summary s;

	CHECK(runapp(&r, "fdapp", args, env, 1) == 0, "ran");
	CHECK(r.status == 0 && strstr(r.out, "pipe intact"), "status %d: %s", r.status, r.out);
	s = summarize(r.report_path[0], "after");
	CHECK(s.calls == 11 && s.lost == 1, "markers went on (%lld), totals lost (%d)", s.calls,
	      s.lost);
	runapp_free(&r);
}

static void test_fd_closefrom(void)
{
	struct run r;
	const char *args[] = { "closefrom", NULL };
	const char *env[] = { QUIET, "PMCSHIM_EVENTS=task-clock", NULL };

	CHECK(runapp(&r, "fdapp", args, env, 1) == 0, "ran");
	CHECK(r.status == 0 && strstr(r.out, "closefrom ok"), "status %d", r.status);
	CHECK(summarize(r.report_path[0], "after").calls == 11, "recorded");
	runapp_free(&r);
}

/* fdapp MODE: the application's bytes intact, the markers all recorded,
 * and the marking thread's totals lost with the reason, never read from
 * what took the numbers. */
static void check_fds_taken(const char *mode, const char *says, long long calls)
{
	struct run r;
	const char *args[] = { mode, NULL };
	const char *env[] = { QUIET, "PMCSHIM_EVENTS=task-clock,page-faults", NULL };
	struct summary s;

	CHECK(runapp(&r, "fdapp", args, env, 1) == 0, "ran");
	CHECK(r.status == 0 && strstr(r.out, says), "%s: status %d (142: SIGALRM, it hung): %s%s",
	      mode, r.status, r.out, r.err);
	s = summarize(r.report_path[0], "after");
	CHECK(s.calls == calls, "%s: markers went on: %lld calls of %lld", mode, s.calls, calls);
	CHECK(s.lost == 1 && strstr(s.lost_reason, "another file"),
	      "%s: one thread's totals lost (%d), why: '%s'", mode, s.lost, s.lost_reason);
	runapp_free(&r);
}

static void test_fd_raw_dup(void)
{
	json_t *t;
	long long across;

	check_fds_taken("rawdup", "pipe intact", 11);
	if (t_current_failed)
		return;
	/* a region open across the change: what was counted, not garbage */
	struct run r;
	const char *args[] = { "rawdup", NULL };
	const char *env[] = { QUIET, "PMCSHIM_EVENTS=task-clock", NULL };

	CHECK(runapp(&r, "fdapp", args, env, 1) == 0 && r.status == 0, "ran");
	json_t *rep = runapp_load_json(r.report_path[0]);
	CHECK(rep, "the reader's JSON");
	t = rep_main_thread(rep);
	across = rep_event(t, "across", 0, "incl");
	CHECK(rep_calls(rep, t, "across") == 1 && across >= 0 && across < 60LL * 1000000000,
	      "across: task-clock %lld ns", across);
	json_decref(rep);
	runapp_free(&r);
}

static void test_fd_raw_close_range(void) { check_fds_taken("rawclose", "pipe intact", 11); }
static void test_fd_perf_event_swapped(void) { check_fds_taken("perfswap", "still readable", 11); }
static void test_fd_raw_dup_thread(void)
{
	check_fds_taken("rawthread", "still hold the pipe", 12);
}

static void test_small_fd_limit(void)
{
	struct rlimit old, small = { 16, 16 };
	const char *args[] = { "first", NULL };
	const char *env[] = { QUIET, "PMCSHIM_EVENTS=task-clock,page-faults", NULL };
	struct run r;
	int rc;

	getrlimit(RLIMIT_NOFILE, &old);
	small.rlim_max = old.rlim_max;
	setrlimit(RLIMIT_NOFILE, &small);
	rc = runapp(&r, "fdapp", args, env, 1);
	setrlimit(RLIMIT_NOFILE, &old);
	CHECK(rc == 0 && r.status == 0, "ran");
	CHECK(strstr(r.out, "first fd 3"), "ulimit -n 16: the app's first open: %s", r.out);
	runapp_free(&r);
}

/* --- loaded as a plugin ------------------------------------------------------------- */

/* A host dlopens the shim (no LD_PRELOAD), a thread marks, the host
 * dlcloses the shim, then the thread exits: the shim's thread-exit and
 * process-end work runs after the dlclose. */
static void test_dlopen_dlclose_shim(void)
{
	struct run r;
	const char *args[] = { runapp_shim(), NULL };
	const char *first = getenv("PMCSHIM_TEST_PRELOAD_FIRST");
	char preload[4200];
	const char *env[] = { QUIET, preload, NULL };
	struct summary s;

	/* a sanitizer runtime must still come first */
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", first ? first : "");
	CHECK(runapp(&r, "dlshim", args, env, 0) == 0, "ran");
	CHECK(r.status == 0 && strstr(r.out, "dlclose: 0") && strstr(r.out, "dlshim: done"),
	      "status %d (139: SIGSEGV): %s%s", r.status, r.out, r.err);
	CHECK(r.nreports == 1, "one report, got %d", r.nreports);
	s = summarize(r.report_path[0], "worker");
	CHECK(s.ok && s.state == RF_EXITED && s.calls == 10,
	      "the report written at exit: state %u, %lld calls", s.state, s.calls);
	CHECK(s.nthreads == 2 && s.exited == 2, "both threads finished: %d of %d", s.exited,
	      s.nthreads);
	runapp_free(&r);
}

/* --- the ground moves (tests/apps/moves.c) ------------------------------------ */

/* Regions named prefix...: how many, and their calls (the file's own
 * reading code), or -1 when the file cannot be read. */
static int names_with(const char *path, const char *prefix, long long *calls)
{
	struct rf_file f;
	char why[256], *is = NULL;
	uint64_t off = 0, nids;
	const struct rf_record *r;
	int bad, n = 0;

	*calls = 0;
	if (rf_open(path, &f, why, sizeof(why)) != 0)
		return printf("    %s: %s\n", path, why), -1;
	nids = f.tail / 24 + 2;
	is = calloc(nids, 1);
	while (is && (r = rf_next(&f, &off, &bad)))
		if (r->type == RF_NAME && ((const struct rf_name *)r)->id < nids)
			is[((const struct rf_name *)r)->id] =
				!strncmp(((const struct rf_name *)r)->text, prefix, strlen(prefix));
	for (off = 0; is && (r = rf_next(&f, &off, &bad));) {
		const struct rf_site *site = (const void *)r;
		struct rf_stat v[RF_EVENTS_MAX + 1];
		uint64_t c;

		if (r->type != RF_SITE || site->region >= nids || !is[site->region])
			continue;
		rf_site_read(site, &c, v, RF_EVENTS_MAX + 1);
		n++, *calls += (long long)c;
	}
	free(is);
	rf_close(&f);
	return bad ? -1 : n;
}

/* The same through the reader (its JSON export): rows named prefix... */
static int reader_rows(const char *path, const char *prefix, long long *calls)
{
	json_t *j = runapp_load_json(path), *t, *row;
	size_t i, k;
	int n = 0;

	*calls = 0;
	if (!j)
		return -1;
	json_array_foreach(json_object_get(j, "threads"), i, t)
		json_array_foreach(json_object_get(t, "regions"), k, row) {
			const char *name = json_string_value(json_object_get(row, "region"));

			if (name && !strncmp(name, prefix, strlen(prefix)))
				n++, *calls += json_integer_value(json_object_get(row, "calls"));
		}
	json_decref(j);
	return n;
}

static int header_of(const char *path, struct rf_header *h)
{
	struct rf_file f;
	char why[256];

	if (rf_open(path, &f, why, sizeof(why)) != 0)
		return printf("    %s: %s\n", path, why), -1;
	*h = *f.h;
	rf_close(&f);
	return 0;
}

/* The run went on as if nothing happened: n new names, each once, in the
 * file and through the reader, and the thread made afterwards. */
static void check_went_on(const char *path, int n, const char *what)
{
	long long calls;
	int names;

	CHECK(path, "%s: the report file", what);
	names = names_with(path, "after", &calls);
	CHECK(names == n && calls == n, "%s: %d new names, %lld calls in the file, want %d",
	      what, names, calls, n);
	names = reader_rows(path, "after", &calls);
	CHECK(names == n && calls == n, "%s: the reader reads %d names, %lld calls, want %d",
	      what, names, calls, n);
	CHECK(summarize(path, "late").calls == 5 && summarize(path, "late").nthreads == 2,
	      "%s: the thread made afterwards, its 5 calls", what);
}

static void run_moves(struct run *r, const char *const *args)
{
	const char *env[] = { QUIET, NULL };

	CHECK(runapp(r, "moves", args, env, 1) == 0, "ran");
	CHECK(r->status == 0 && strstr(r->out, "moves: done"), "status %d, out: %s, err: %s",
	      r->status, r->out, r->err);
}

/* Truncated under the running program: it never dies of it; one line;
 * the file says so, every record is back, and counting went on. */
static void check_cut(const char *size, uint64_t want_size, long long want_before)
{
	struct run r;
	const char *args[] = { "cut", size, "1000", NULL };
	struct rf_header h;

	run_moves(&r, args);
	CHECK(count_lines(r.err, "was cut to") == 1 && count_lines(r.err, "pmcshim") == 1,
	      "one line: %s", r.err);
	CHECK(r.nreports == 1 && header_of(r.report_path[0], &h) == 0, "one readable file");
	CHECK((h.flags & RF_CUT) && h.cuts == 1 && h.cut_size == want_size && h.cut_lost > 0,
	      "flagged: flags %u, %u cuts, to %llu, %llu bytes lost", h.flags, h.cuts,
	      (unsigned long long)h.cut_size, (unsigned long long)h.cut_lost);
	CHECK(h.state == RF_EXITED, "exited: state %u", h.state);
	CHECK(summarize(r.report_path[0], "before").calls >= 10 &&
	      summarize(r.report_path[0], "before").calls <= want_before,
	      "the 10 calls after the cut, and those before it that lay below it: %lld",
	      summarize(r.report_path[0], "before").calls);
	check_went_on(r.report_path[0], 1000, "after the cut");
	runapp_free(&r);
}

static void test_cut_to_zero(void) { check_cut("0", 0, 10); }
static void test_cut_into_records(void) { check_cut("8192", 8192, 20); }
static void test_cut_inside_a_page(void) { check_cut("6000", 6000, 20); }

static void test_cut_without_markers(void)
{
	struct run r;
	const char *args[] = { "quietcut", "0", NULL };
	struct rf_header h;

	run_moves(&r, args);
	CHECK(count_lines(r.err, "was cut to 0 bytes") == 1, "one line: %s", r.err);
	CHECK(!strcmp(r.out, "moves: done\n"), "its output intact: %s", r.out);
	CHECK(r.nreports == 1 && header_of(r.report_path[0], &h) == 0 && (h.flags & RF_CUT) &&
	      h.state == RF_EXITED, "the file: exited, flagged cut");
	CHECK(summarize(r.report_path[0], "").nthreads == 1, "its thread record back");
	runapp_free(&r);
}

static void check_grows(const char *mode, const char *file)
{
	struct run r;
	const char *args[] = { mode, "5000", NULL };
	char path[3000];

	run_moves(&r, args);
	CHECK(r.err[0] == '\0', "%s: not a word: %s", mode, r.err);
	snprintf(path, sizeof(path), "%s/%s", r.dir, file ? file : "");
	check_went_on(file ? path : r.nreports ? r.report_path[0] : NULL, 5000, mode);
	runapp_free(&r);
}

static void test_grows_after_chdir(void) { check_grows("chdir", NULL); }
static void test_grows_after_rename(void) { check_grows("rename", "pmcshim-moved.pmc"); }
static void test_grows_after_replace(void) { check_grows("replace", "pmcshim-moved.pmc"); }
static void test_grows_after_unlink(void) { check_grows("unlink", "pmcshim-kept.pmc"); }
static void test_grows_after_close(void) { check_grows("closefd", NULL); }

static void test_grows_after_setresuid(void)
{
	if (geteuid() != 0)
		SKIP("not root: cannot become nobody");
	check_grows("setuid", NULL);
}

/* Its descriptor closed and its name gone: the file cannot grow; the
 * one line says why, and the program goes on. */
static void test_cannot_grow_says_why(void)
{
	struct run r;
	const char *args[] = { "lostfd", "5000", NULL };

	run_moves(&r, args);
	CHECK(count_lines(r.err, "cannot grow") == 1 &&
	      strstr(r.err, "closed or replaced its descriptor") &&
	      strstr(r.err, "No such file or directory") && !strstr(r.err, "nested"),
	      "one line with the cause: %s", r.err);
	runapp_free(&r);
}

/* The application's SIGBUS handler: reported back to it, called for its
 * own fault, not for the shim's. */
static void test_app_sigbus_handler(void)
{
	struct run r;
	const char *args[] = { "ownbus", "100", NULL };

	run_moves(&r, args);
	CHECK(strstr(r.out, "sigaction reports its own handler: yes") &&
	      strstr(r.out, "own fault caught 1") && strstr(r.out, "caught after the cut 1") &&
	      strstr(r.out, "signal gives its handler back: yes"), "out: %s", r.out);
	CHECK(count_lines(r.err, "was cut to") == 1, "one line: %s", r.err);
	check_went_on(r.report_path[0], 100, "its own handler");
	runapp_free(&r);
}

/* No handler: its own fault ends it as it would without the shim. */
static void test_app_sigbus_default(void)
{
	struct run r, plain;
	const char *args[] = { "dflbus", NULL };
	const char *env[] = { QUIET, NULL };

	CHECK(runapp(&r, "moves", args, env, 1) == 0 && runapp(&plain, "moves", args, NULL, 0) == 0,
	      "ran");
	CHECK(plain.status == 128 + SIGBUS && r.status == plain.status,
	      "status %d, without the shim %d", r.status, plain.status);
	runapp_free(&r);
	runapp_free(&plain);
}

/* How many cuts the reader says the file had (its JSON export), or -1. */
static long long reader_cuts(const char *path)
{
	json_t *j = runapp_load_json(path);
	long long n = -1;

	if (j)
		n = json_integer_value(json_object_get(json_object_get(j, "cut_while_running"),
							"times"));
	json_decref(j);
	return n;
}

/* A cut under a program that the shim's handler must not kill: it ends
 * as it would, its output whole, the file flagged cut (by the reader
 * too) and readable, and (whole) counting went on: what was marked after
 * the cuts is there. Past 16 cuts the shim keeps the file in memory and
 * writes it back at exit; what threads store during that copy can be
 * lost (docs/design.md), records too, so there only survival holds: the
 * program's status and output, one line, the header flagged cut. */
static void check_survives_cut(const char *mode, const char *arg, const char *want_out,
			       uint32_t max_cuts, int nthreads, int whole)
{
	long long calls;
	struct run r;
	const char *args[] = { mode, arg, NULL };
	const char *env[] = { QUIET, NULL };
	struct rf_header h;

	CHECK(runapp(&r, "moves", args, env, 1) == 0, "%s: ran", mode);
	CHECK(r.status == 0 && !strcmp(r.out, want_out), "%s: status %d, out: %s, err: %s", mode,
	      r.status, r.out, r.err);
	CHECK(count_lines(r.err, "was cut to") == 1, "%s: one line says so: %s", mode, r.err);
	CHECK(r.nreports == 1 && header_of(r.report_path[0], &h) == 0 && (h.flags & RF_CUT) &&
	      h.cuts >= 1 && h.cuts <= max_cuts && h.state == RF_EXITED,
	      "%s: the file: flags %u, %u cuts, state %u", mode, h.flags, h.cuts, h.state);
	if (!whole) {	/* (the file's header says cut and exited, checked above) */
		runapp_free(&r);
		return;
	}
	CHECK(reader_cuts(r.report_path[0]) == h.cuts, "%s: the reader says cut %lld times",
	      mode, reader_cuts(r.report_path[0]));
	CHECK(reader_rows(r.report_path[0], "after", &calls) == 10 && calls == 10,
	      "%s: the reader reads the 10 names marked after the cuts", mode);
	CHECK(summarize(r.report_path[0], "late").calls == 5 &&
	      summarize(r.report_path[0], "late").nthreads == nthreads,
	      "%s: the thread made afterwards, its 5 calls; %d threads", mode,
	      summarize(r.report_path[0], "late").nthreads);
	runapp_free(&r);
}

/* Every signal blocked, the usual pattern of one thread in sigwait: a
 * fault in the shim's mapping with SIGBUS blocked would make the kernel
 * kill the process; the application still sees the mask it set, and a
 * SIGBUS it raises while blocked waits until it unblocks it. */
static void test_cut_with_signals_blocked(void)
{
	check_survives_cut("sigwaitcut", "10",
			   "moves: sigwait got SIGUSR1\n"
			   "moves: the marking thread's mask as it set it: yes\n"
			   "moves: its own mask as it set it: yes\n"
			   "moves: a raised SIGBUS waited for its unblocking: yes\n"
			   "moves: done\n", 1, 4, 1);
}

/* The application's SIGBUS and SIGSEGV handlers on a 4 KiB alternate
 * stack: the mending must not run there (it would overflow it), and its
 * handler never sees the shim's fault. */
static void test_cut_on_small_altstack(void)
{
	check_survives_cut("altstack", "10", "moves: its handler ran 0 times\nmoves: done\n", 1, 2, 1);
}

/* The file cut 400 times, each as soon as it is mended, while 8 threads mark: cuts land
 * inside the repair of the one before; past a bound the shim stops
 * mending and keeps the report in memory, written at the end. */
static void test_cut_again_and_again(void)
{
	check_survives_cut("cutloop", "400", "moves: 400 cuts made\nmoves: done\n", 400, 10, 0);
}

/* The daemon double fork: the parent _exits right after fork; its child's
 * file says running until the child ends. */
static void test_double_fork_child_running(void)
{
	for (int i = 0; i < 5; i++) {
		struct run r;
		const char *args[] = { "dfork", NULL };
		char out[4096] = "", path[3000];
		struct timespec ms = { 0, 1000000 };
		int done = 0;
		const char *env[] = { QUIET, NULL };

		CHECK(runapp(&r, "moves", args, env, 1) == 0 && r.status == 0, "ran");
		for (int k = 0; k < 60000 && !done; k++, nanosleep(&ms, NULL)) {
			FILE *f;

			snprintf(path, sizeof(path), "%s/stdout", r.dir);
			if ((f = fopen(path, "r"))) {
				out[fread(out, 1, sizeof(out) - 1, f)] = '\0';
				fclose(f);
			}
			done = strstr(out, "its file says") != NULL;
		}
		CHECK(strstr(out, "its file says running"), "run %d: %s", i, out);
		runapp_free(&r);
	}
}

/* --- where the file goes ----------------------------------------------------------- */

static void test_output_device(void)
{
	struct run r;
	char dir[] = "build/tmp/tmpdir-XXXXXX", abs[4096], tmpdir[4200], left[4400];
	const char *args[] = { "exit", "10", NULL };
	const char *env[] = { QUIET, "PMCSHIM_OUTPUT=/dev/null", tmpdir, NULL };
	struct stat st;
	DIR *d;
	int n = 0;

	CHECK(mkdtemp(dir) && realpath(dir, abs), "temp dir");
	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s", abs);
	CHECK(runapp(&r, "ends", args, env, 1) == 0 && r.status == 0, "ran");
	CHECK(count_lines(r.err, "/dev/null") == 1 && strstr(r.err, "a device"),
	      "one line: %s", r.err);
	CHECK(stat("/dev/null.1", &st) != 0, "nothing created in /dev");
	d = opendir(abs);
	for (struct dirent *e; d && (e = readdir(d));)
		if (!strncmp(e->d_name, "pmcshim-ends-", 13) && ++n)
			snprintf(left, sizeof(left), "%s/%s", abs, e->d_name);
	if (d)
		closedir(d);
	CHECK(n == 1 && summarize(left, "work").calls == 10, "the fallback in $TMPDIR has it");
	runapp_free(&r);
}

/* A tmpfs mounted under /dev of its own (/dev/shm) is not a device. */
static void test_output_dev_shm(void)
{
	struct run r;
	const char *args[] = { "exit", "10", NULL };
	char out[200], path[200];
	const char *env[] = { QUIET, out, NULL };
	struct stat shm, dev;

	if (stat("/dev/shm", &shm) != 0 || stat("/dev", &dev) != 0 || shm.st_dev == dev.st_dev)
		SKIP("no /dev/shm of its own here");
	snprintf(out, sizeof(out), "PMCSHIM_OUTPUT=/dev/shm/pmcshim-test-%d.pmc", (int)getpid());
	snprintf(path, sizeof(path), "/dev/shm/pmcshim-test-%d.pmc", (int)getpid());
	CHECK(runapp(&r, "ends", args, env, 1) == 0 && r.status == 0, "ran");
	CHECK(r.err[0] == '\0', "not a word: %s", r.err);
	CHECK(summarize(path, "work").calls == 10, "the file in /dev/shm has the 10 calls");
	unlink(path);
	runapp_free(&r);
}

/* A full file system at start: said as it is, and the file goes to
 * $TMPDIR. */
static void test_output_full_tmpfs(void)
{
	struct run r;
	char dir[] = "build/tmp/full-XXXXXX", abs[4096], out[4200], tmpdir[4200], fallback[4400];
	const char *args[] = { "exit", "10", NULL };
	const char *env[] = { QUIET, out, tmpdir, NULL };
	DIR *d;
	int n = 0;

	CHECK(mkdtemp(dir) && realpath(dir, abs), "temp dir");
	/* smaller than the file's first allocation (64 KiB) */
	if (mount("tmpfs", abs, "tmpfs", 0, "size=16k") != 0) {
		rmdir(abs);
		SKIP("cannot mount a tmpfs here (%s)", strerror(errno));
	}
	snprintf(out, sizeof(out), "PMCSHIM_OUTPUT=%s/x.pmc", abs);
	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s/..", abs);
	CHECK(runapp(&r, "ends", args, env, 1) == 0 && r.status == 0, "ran");
	umount(abs);
	CHECK(count_lines(r.err, "No space left on device") == 1 &&
	      count_lines(r.err, "writing") == 1, "one line, the real cause: %s", r.err);
	snprintf(fallback, sizeof(fallback), "%s/..", abs);
	d = opendir(fallback);
	for (struct dirent *e; d && (e = readdir(d));)
		if (!strncmp(e->d_name, "pmcshim-ends-", 13) && ++n)
			snprintf(fallback, sizeof(fallback), "%s/../%s", abs, e->d_name);
	if (d)
		closedir(d);
	CHECK(n == 1 && summarize(fallback, "work").calls == 10, "the fallback has it");
	unlink(fallback);
	rmdir(abs);
	runapp_free(&r);
}

/* An unknown conversion, a lone % at the end: one line each, kept. */
static void check_pattern(const char *pattern, const char *says, const char *made)
{
	struct run r;
	const char *args[] = { "exit", "10", NULL };
	char out[300], path[2600];
	const char *env[] = { QUIET, out, NULL };
	struct stat st;

	snprintf(out, sizeof(out), "PMCSHIM_OUTPUT=%s", pattern);
	CHECK(runapp(&r, "ends", args, env, 1) == 0 && r.status == 0, "ran");
	CHECK(count_lines(r.err, "pmcshim") == 1 && strstr(r.err, says), "one line: %s", r.err);
	snprintf(path, sizeof(path), "%s/%s", r.dir, made);
	CHECK(stat(path, &st) == 0, "%s kept as written", made);
	runapp_free(&r);
}

static void test_output_unknown_conversion(void)
{
	check_pattern("out-%q.pmc", "unknown conversion %q", "out-%q.pmc");
	check_pattern("out.pmc%", "a lone % at the end", "out.pmc%");
}

static void test_output_directory(void)
{
	struct run r;
	const char *args[] = { "exit", "10", NULL };
	const char *env[] = { QUIET, "PMCSHIM_OUTPUT=.", NULL };
	struct stat st;

	CHECK(runapp(&r, "ends", args, env, 1) == 0 && r.status == 0, "ran");
	CHECK(r.nreports == 1 && r.err[0] == '\0', "file inside the directory: %d", r.nreports);
	CHECK(stat(r.report_path[0], &st) == 0 && (st.st_mode & 0777) == 0600,
	      "mode 0600: %o", st.st_mode & 0777);
	runapp_free(&r);
}

static void test_marker_before_constructor(void)
{
	struct run r;
	const char *env[] = { QUIET, NULL };

	CHECK(runapp(&r, "early", NULL, env, 1) == 0, "ran");
	CHECK(r.status == 0 && strstr(r.out, "active 1"), "status %d: %s", r.status, r.out);
	CHECK(summarize(r.report_path[0], "early").calls == 1,
	      "the library constructor's region, marked before the shim's constructor");
	CHECK(summarize(r.report_path[0], "main").calls == 1, "and main's");
	runapp_free(&r);
}

static void test_markers_in_app_malloc(void)
{
	struct run r;
	const char *env[] = { QUIET, NULL };

	CHECK(runapp_start(&r, "mallocmark", NULL, env, 1) == 0 && runapp_wait(&r, 60) == 0,
	      "ran");
	CHECK(!r.timed_out && r.status == 0 && strstr(r.out, "done"),
	      "no deadlock: status %d, stderr:\n%s", r.status, r.err);
	CHECK(summarize(r.report_path[0], "malloc").calls >= 5000 &&
	      summarize(r.report_path[0], "free").calls >= 5000, "every thread's pairs counted");
	runapp_free(&r);
}

/* --- set-user-ID ------------------------------------------------------------ */

static int copy_file(const char *from, const char *to, mode_t mode)
{
	char cmd[3 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && chown root:root '%s' && chmod %o '%s'",
		 from, to, to, (unsigned)mode, to);
	return system(cmd) == 0 ? 0 : -1;
}

/* Run prog as nobody, with an environment that aims the report. */
static int run_as_nobody(const char *prog, char *const env[], char *err, size_t errlen)
{
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(fds) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(fds[1], 2);
		if (chdir("/tmp") != 0 || setgid(65534) != 0 || setuid(65534) != 0)
			_exit(126);
		execle(prog, "ends", "exit", "10", (char *)NULL, env);
		_exit(127);
	}
	close(fds[1]);
	n = read(fds[0], err, errlen - 1);
	err[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void test_setuid_ignores_paths(void)
{
	Dl_info libc;
	char libdir[PATH_MAX], lib[PATH_MAX + 64], prog[PATH_MAX + 32], aimed[] = "/tmp/aimed-XXXXXX";
	char apps[PATH_MAX], src[PATH_MAX + 32], out[PATH_MAX + 64], err[4096];
	char progdir[] = "/tmp/setuid-XXXXXX";
	char *env[] = { "LD_PRELOAD=libpmcshim-setuid-test.so", out, NULL };
	struct stat st;
	int rc;

	if (getuid() != 0)
		SKIP("needs root to make a set-user-ID program and a trusted library");
	CHECK(dladdr((void *)printf, &libc) && libc.dli_fname, "libc's directory");
	snprintf(libdir, sizeof(libdir), "%s", libc.dli_fname);
	*strrchr(libdir, '/') = '\0';
	snprintf(lib, sizeof(lib), "%s/libpmcshim-setuid-test.so", libdir);
	snprintf(apps, sizeof(apps), "%s", runapp_shim());
	*strrchr(apps, '/') = '\0';
	/* a directory nobody can reach, wherever the build tree is */
	CHECK(mkdtemp(progdir) && chmod(progdir, 0755) == 0, "program dir");
	snprintf(prog, sizeof(prog), "%s/ends-setuid", progdir);
	CHECK(mkdtemp(aimed), "aimed dir");
	chmod(aimed, 0777);
	snprintf(out, sizeof(out), "PMCSHIM_OUTPUT=%s/x.pmc", aimed);
	/* glibc preloads into set-user-ID programs only libraries from its
	 * trusted directories that carry the set-user-ID bit themselves */
	CHECK(copy_file(runapp_shim(), lib, 04755) == 0, "trusted copy of the shim");
	snprintf(src, sizeof(src), "%s/tests/apps/ends", apps);
	rc = copy_file(src, prog, 04755);
	if (rc == 0)
		rc = run_as_nobody(prog, env, err, sizeof(err));
	unlink(lib);
	unlink(prog);
	rmdir(progdir);
	CHECK(rc == 0, "the program ran (status %d): %s", rc, err);
	CHECK(count_lines(err, "set-user-ID") == 1, "one line says why: %s", err);
	snprintf(out, sizeof(out), "%s/x.pmc", aimed);
	CHECK(stat(out, &st) != 0, "nothing written where the environment aimed");
	rmdir(aimed);
}

int main(void)
{
	runapp_init();
	runapp_json(0);
	RUN(test_sigkill);
	RUN(test_sigterm);
	RUN(test_sigint);
	RUN(test_sigsegv);
	RUN(test_abort);
	RUN(test_killed_with_region_open);
	RUN(test_quick_exit);
	RUN(test_exec_keeps_both_images);
	RUN(test_exec_that_fails);
	RUN(test_sh_c);
	RUN(test_exit_from_signal_handler);
	RUN(test_fork_child_copy);
	RUN(test_daemon_read_live);
	RUN(test_reader_while_8_threads_mark);
	RUN(test_raw_exit_thread);
	RUN(test_memory_flat_over_exited_threads);
	RUN(test_fd_reused_by_app);
	RUN(test_fd_closefrom);
	RUN(test_fd_raw_dup);
	RUN(test_fd_raw_close_range);
	RUN(test_fd_perf_event_swapped);
	RUN(test_fd_raw_dup_thread);
	RUN(test_small_fd_limit);
	RUN(test_dlopen_dlclose_shim);
	RUN(test_output_device);
	RUN(test_output_directory);
	RUN(test_output_dev_shm);
	RUN(test_output_full_tmpfs);
	RUN(test_output_unknown_conversion);
	RUN(test_marker_before_constructor);
	RUN(test_markers_in_app_malloc);
	RUN(test_setuid_ignores_paths);
	RUN(test_cut_to_zero);
	RUN(test_cut_into_records);
	RUN(test_cut_inside_a_page);
	RUN(test_cut_without_markers);
	RUN(test_grows_after_chdir);
	RUN(test_grows_after_setresuid);
	RUN(test_grows_after_rename);
	RUN(test_grows_after_replace);
	RUN(test_grows_after_unlink);
	RUN(test_grows_after_close);
	RUN(test_cannot_grow_says_why);
	RUN(test_app_sigbus_handler);
	RUN(test_app_sigbus_default);
	RUN(test_cut_with_signals_blocked);
	RUN(test_cut_on_small_altstack);
	RUN(test_cut_again_and_again);
	RUN(test_double_fork_child_running);
	return t_done(getenv("PMCSHIM_TEST_SUITE") ? getenv("PMCSHIM_TEST_SUITE") : "lifecycle");
}
