/* Stacks by the unwind-table walk and the frame-pointer walk against
 * libunwind's (PMCSHIM_STACK_METHOD), on tests/apps/fpchain.c built with
 * and without frame pointers, and on tests/apps/mixed.c and throws.cpp
 * (code mixing frames with and without frame records, libc's qsort,
 * C++ exceptions) at -O0, -O2 and -O3. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "runapp.h"
#include "stackrows.h"

static struct run r;
static struct rows fp_rows, unw_rows, auto_rows;

/* Run app with method; its rows of region (NULL: all) in out. */
static int run_method(const char *app, const char *method, const char *region,
		      struct rows *out)
{
	char m[64], done[64];
	const char *env[] = { "PMCSHIM_QUIET=1", "PMCSHIM_EVENTS=task-clock",
			      "PMCSHIM_STACK_DEPTH=8", m, NULL };

	snprintf(m, sizeof(m), "PMCSHIM_STACK_METHOD=%s", method);
	snprintf(done, sizeof(done), "%.*s: done", (int)strcspn(app, "-"), app);
	runapp_free(&r);
	if (runapp(&r, app, NULL, env, 1) != 0 || r.status != 0 ||
	    strncmp(r.out, done, strlen(done)) != 0 || r.nreports != 1 || !r.report[0]) {
		printf("    %s (%s): status %d, out '%s', err '%s'\n", app, method, r.status, r.out,
		       r.err);
		return -1;
	}
	rows_collect(r.report[0], region, method, out);
	return 0;
}

/* Built with frame pointers: the walk's stacks are libunwind's, frame for
 * frame, where the chain covers the depth asked for; auto is libunwind's
 * everywhere. */
static void test_fp_build_same_as_libunwind(void)
{
	CHECK(run_method("fpchain-fp", "unwind", NULL, &unw_rows) == 0, "unwind run");
	CHECK(run_method("fpchain-fp", "auto", NULL, &auto_rows) == 0, "auto run");
	CHECK(!rows_differ(&auto_rows, &unw_rows), "auto differs from unwind at: %s",
	      rows_differ(&auto_rows, &unw_rows));
	for (const char *const *g = (const char *const[]){ "deep", "deep-thread", NULL }; *g; g++) {
		CHECK(run_method("fpchain-fp", "fp", *g, &fp_rows) == 0, "fp run");
		CHECK(run_method("fpchain-fp", "unwind", *g, &unw_rows) == 0, "unwind run");
		CHECK(fp_rows.n == 1 && row_frames(fp_rows.s[0]) == 9, "%s: %d rows, '%s'", *g,
		      fp_rows.n, fp_rows.s[0]);
		CHECK(!rows_differ(&fp_rows, &unw_rows), "%s: fp '%s' vs unwind '%s'", *g, fp_rows.s[0],
		      unw_rows.s[0]);
	}
	printf("    deep: %s\n", fp_rows.s[0]);
}

/* One call site reached by two stacks in turn, which differ only in the
 * last frame asked for: each marker finds its own stack (a walk that
 * read the same words as the last one is not repeated, so a stale stack
 * would show here as one row of 8 calls). */
static void test_alternating_stacks(void)
{
	CHECK(run_method("fpchain-fp", "fp", "alternate", &fp_rows) == 0, "fp run");
	CHECK(run_method("fpchain-fp", "unwind", "alternate", &unw_rows) == 0, "unwind run");
	CHECK(fp_rows.n == 2 && row_frames(fp_rows.s[0]) == 9 && row_frames(fp_rows.s[1]) == 9,
	      "%d rows: '%s' '%s'", fp_rows.n, fp_rows.s[0], fp_rows.s[1]);
	CHECK(strncmp(fp_rows.s[0], "alternate 4 ", 12) == 0 &&
	      strncmp(fp_rows.s[1], "alternate 4 ", 12) == 0, "'%s' '%s'", fp_rows.s[0],
	      fp_rows.s[1]);
	CHECK(!rows_differ(&fp_rows, &unw_rows), "fp '%s' vs unwind '%s'", rows_differ(&fp_rows, &unw_rows),
	      unw_rows.s[0]);
}

/* Built without: the walk cannot give the stack, auto falls back. */
static void test_nofp_build_falls_back(void)
{
	CHECK(run_method("fpchain-nofp", "unwind", NULL, &unw_rows) == 0, "unwind run");
	CHECK(run_method("fpchain-nofp", "auto", NULL, &auto_rows) == 0, "auto run");
	CHECK(!rows_differ(&auto_rows, &unw_rows), "auto differs from unwind at: %s",
	      rows_differ(&auto_rows, &unw_rows));
	CHECK(run_method("fpchain-nofp", "fp", "deep", &fp_rows) == 0, "fp run");
	CHECK(run_method("fpchain-nofp", "unwind", "deep", &unw_rows) == 0, "unwind run");
	/* else this binary has a chain after all and proves nothing */
	CHECK(fp_rows.n == 1 && row_frames(fp_rows.s[0]) < 9 && row_frames(unw_rows.s[0]) == 9,
	      "no chain expected: fp '%s', unwind '%s'", fp_rows.s[0], unw_rows.s[0]);
	printf("    walk alone: %s\n    fallback:   %s\n", fp_rows.s[0], unw_rows.s[0]);
}

/* The row's first frame (the call site), as "module+offset". */
static const char *call_site(const char *row, char *buf, size_t len)
{
	const char *p = strchr(row, '+');
	const char *start = p, *end;

	while (start && start > row && start[-1] != ' ')
		start--;
	end = p ? p + strcspn(p, " ") : row;
	snprintf(buf, len, "%.*s", start ? (int)(end - start) : 0, start ? start : "");
	return buf;
}

/* A garbage frame pointer (in the saved slot, or in the register) ends
 * the walk: no crash, every call recorded at its call site, and the walk
 * alone gives at most the frame above it. A garbage return address
 * (raslot) gives a wrong stack above the call site, never a fault. */
static void test_broken_chain(void)
{
	char a[256], b[256];

	for (const char *const *m = (const char *const[]){ "fp", "tables", "auto", NULL }; *m;
	     m++) {
		for (const char *const *g = (const char *const[]){ "slot", "gpreg", "raslot", NULL };
		     *g; g++) {
			int raslot = strcmp(*g, "raslot") == 0;

			CHECK(run_method("fpchain-fp", *m, *g, &fp_rows) == 0, "%s run", *m);
			CHECK(rep_calls(r.report[0], NULL, *g) == (raslot ? 8 : 6), "%s: %s calls %lld",
			      *m, *g, rep_calls(r.report[0], NULL, *g));
			for (int i = 0; i < fp_rows.n; i++) {
				CHECK(strcmp(call_site(fp_rows.s[i], a, sizeof(a)),
					     call_site(fp_rows.s[0], b, sizeof(b))) == 0 && *a,
				      "%s: call sites '%s' '%s'", *g, a, b);
				/* (a return address into other code goes on from there) */
				CHECK(strcmp(*m, "auto") == 0 || raslot || row_frames(fp_rows.s[i]) <= 2,
				      "%s %s: '%s'", *m, *g, fp_rows.s[i]);
			}
		}
	}
}

/* Signal handlers: on the thread's stack the frame-pointer walk stops at
 * the signal return trampoline, on an alternate stack it does not start;
 * the unwind tables go on through the context the kernel saved, from
 * either, and give libunwind's stack. */
static void test_signal_handlers(void)
{
	static struct rows tab_rows;

	for (const char *const *g = (const char *const[]){ "signal", "altstack", NULL }; *g; g++) {
		CHECK(run_method("fpchain-nofp", "tables", *g, &tab_rows) == 0, "tables run");
		CHECK(run_method("fpchain-nofp", "unwind", *g, &unw_rows) == 0, "unwind run");
		CHECK(tab_rows.n == 1 && row_frames(tab_rows.s[0]) == 9 && !tab_rows.other_method,
		      "%s, tables: '%s'", *g, tab_rows.s[0]);
		CHECK(!rows_differ(&tab_rows, &unw_rows), "%s: tables '%s', libunwind '%s'", *g,
		      tab_rows.s[0], unw_rows.s[0]);
	}
	CHECK(run_method("fpchain-fp", "fp", "signal", &fp_rows) == 0, "fp run");
	CHECK(fp_rows.n == 1 && row_frames(fp_rows.s[0]) == 1, "signal: '%s'", fp_rows.s[0]);
	CHECK(run_method("fpchain-fp", "fp", "altstack", &fp_rows) == 0, "fp run");
	CHECK(fp_rows.n == 1 && row_frames(fp_rows.s[0]) == 1, "altstack: '%s'", fp_rows.s[0]);
	CHECK(run_method("fpchain-fp", "unwind", "altstack", &unw_rows) == 0, "unwind run");
	CHECK(unw_rows.n == 1 && row_frames(unw_rows.s[0]) == 9, "altstack, libunwind: '%s'",
	      unw_rows.s[0]);
}

/* Whether libunwind was loaded in the last run (the app says). */
static int loaded_libunwind(void)
{
	return strstr(r.out, "libunwind loaded: yes") != NULL;
}

static const char *const differential_apps[] = {
	"mixed-O0", "mixed-O0-fp", "mixed-O2", "mixed-O2-fp", "mixed-O3", "mixed-O3-fp",
	"throws-O0", "throws-O2", "throws-O2-fp", "throws-O3", NULL
};

/* Call for call, the unwind tables give libunwind's stacks: through
 * frames with and without frame records, libc's qsort, C++ exceptions,
 * main's and a thread's outermost frames (where the walk ends as the
 * stack does, without libunwind, which is then never loaded). A frame
 * in the shim above the call site is left to libunwind (tablewalk.c):
 * the rows through one are not counted as the tables'. */
static void test_tables_same_as_libunwind(void)
{
	static struct rows tab_rows;

	for (const char *const *app = differential_apps; *app; app++) {
		if (run_method(*app, "unwind", NULL, &unw_rows) != 0) {
			CHECK(0, "%s: unwind run", *app);
			continue;
		}
		CHECK(loaded_libunwind(), "%s: libunwind not loaded for method unwind", *app);
		for (const char *const *m = (const char *const[]){ "auto", "tables", NULL }; *m;
		     m++) {
			CHECK(run_method(*app, *m, NULL, &tab_rows) == 0, "%s: %s run", *app, *m);
			/* (tables alone stop at a frame in the shim) */
			CHECK(!rows_differ(&tab_rows, &unw_rows) ||
			      (unw_rows.through_shim && !strcmp(*m, "tables")),
			      "%s, %s: '%s' (unwind: %d rows, %s: %d)",
			      *app, *m, rows_differ(&tab_rows, &unw_rows), unw_rows.n, *m, tab_rows.n);
			CHECK(tab_rows.other_method == 0, "%s, %s: %d rows not from the tables",
			      *app, *m, tab_rows.other_method);
			CHECK(!loaded_libunwind() || (tab_rows.through_shim && !strcmp(*m, "auto")),
			      "%s, %s: libunwind loaded", *app, *m);
		}
		CHECK(unw_rows.n >= 6, "%s: %d rows", *app, unw_rows.n);
	}
	printf("    throws-O3, first row: %s\n", unw_rows.n ? unw_rows.s[0] : "");
}

/* The calls of the row, from its "region calls ..." text. */
static long long row_calls(const char *row)
{
	const char *sp = strchr(row, ' ');

	return sp ? atoll(sp + 1) : 0;
}

/* What the tables fix: in mixed code the frame-pointer walk puts calls on
 * stacks one caller short, which nothing in the report tells (else
 * mixed-O2 proves nothing above). */
static void test_fp_walk_short_in_mixed_code(void)
{
	long long calls = 0, elsewhere = 0;

	CHECK(run_method("mixed-O2", "fp", NULL, &fp_rows) == 0, "fp run");
	CHECK(run_method("mixed-O2", "unwind", NULL, &unw_rows) == 0, "unwind run");
	for (int i = 0; i < fp_rows.n; i++) {
		int found = 0;

		for (int k = 0; k < unw_rows.n; k++)
			found |= strcmp(fp_rows.s[i], unw_rows.s[k]) == 0;
		calls += row_calls(fp_rows.s[i]);
		elsewhere += found ? 0 : row_calls(fp_rows.s[i]);
	}
	CHECK(elsewhere > 0, "the frame-pointer walk agrees on all %d rows", fp_rows.n);
	printf("    frame pointers: %lld of %lld calls on another stack than libunwind's"
	       " (the tables: none, test_tables_same_as_libunwind)\n", elsewhere, calls);
}

int main(void)
{
	runapp_init();
	printf("shim under test: %s\n", runapp_shim());
	RUN(test_fp_build_same_as_libunwind);
	RUN(test_alternating_stacks);
	RUN(test_nofp_build_falls_back);
	RUN(test_broken_chain);
	RUN(test_signal_handlers);
	RUN(test_tables_same_as_libunwind);
	RUN(test_fp_walk_short_in_mixed_code);
	runapp_free(&r);
	return t_done(getenv("PMCSHIM_TEST_SUITE") ? getenv("PMCSHIM_TEST_SUITE") : "stacks");
}
