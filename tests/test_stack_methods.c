/* Stacks by frame-pointer walk against libunwind's (PMCSHIM_STACK_METHOD),
 * on tests/apps/fpchain.c built with and without frame pointers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "runapp.h"

#define ROWS_MAX 64
#define ROW_LEN 1024

/* One report's rows as sorted strings "region calls module+offset ...":
 * equal lists mean the same stacks, row for row. */
struct rows {
	int n;
	char s[ROWS_MAX][ROW_LEN];
};

static const char *module_name(json_t *rep, long long id)
{
	json_t *m = json_array_get(json_object_get(rep, "modules"), (size_t)id);
	const char *p = json_string_value(json_object_get(m, "path"));
	const char *slash = p ? strrchr(p, '/') : NULL;

	return slash ? slash + 1 : p ? p : "?";
}

static void append_frames(json_t *rep, json_t *stack, char *out, size_t len)
{
	size_t i, used = strlen(out);
	json_t *f;

	json_array_foreach(json_object_get(stack, "frames"), i, f) {
		int k = snprintf(out + used, len - used, " %s+%s",
				 module_name(rep, json_integer_value(json_object_get(f, "module"))),
				 json_string_value(json_object_get(f, "offset")));
		if (k < 0 || (size_t)k >= len - used)
			return;
		used += (size_t)k;
	}
}

static int by_string(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Rows of region (NULL: all) in every thread. */
static void collect(json_t *rep, const char *region, struct rows *out)
{
	size_t i, k;
	json_t *t, *row;

	out->n = 0;
	json_array_foreach(json_object_get(rep, "threads"), i, t) {
		json_array_foreach(json_object_get(t, "regions"), k, row) {
			const char *name = json_string_value(json_object_get(row, "region"));
			if ((region && strcmp(name, region) != 0) || out->n == ROWS_MAX)
				continue;
			char *s = out->s[out->n++];
			snprintf(s, ROW_LEN, "%s %lld", name,
				 json_integer_value(json_object_get(row, "calls")));
			append_frames(rep, rep_stack(rep, json_integer_value(json_object_get(row, "stack"))),
				      s, ROW_LEN);
		}
	}
	qsort(out->s, (size_t)out->n, ROW_LEN, by_string);
}

/* The first row that differs, or NULL when the lists are equal. */
static const char *differ(const struct rows *a, const struct rows *b)
{
	for (int i = 0; i < a->n || i < b->n; i++)
		if (i >= a->n || i >= b->n || strcmp(a->s[i], b->s[i]) != 0)
			return i < a->n ? a->s[i] : b->s[i];
	return NULL;
}

static int frames(const char *row)
{
	int n = 0;

	for (const char *p = strchr(row, '+'); p; p = strchr(p + 1, '+'))
		n++;
	return n;
}

static struct run r;
static struct rows fp_rows, unw_rows, auto_rows;

/* Run app with method; its rows of region (NULL: all) in out. */
static int run_method(const char *app, const char *method, const char *region,
		      struct rows *out)
{
	char m[64];
	const char *env[] = { "PMCSHIM_QUIET=1", "PMCSHIM_EVENTS=task-clock",
			      "PMCSHIM_STACK_DEPTH=8", m, NULL };

	snprintf(m, sizeof(m), "PMCSHIM_STACK_METHOD=%s", method);
	runapp_free(&r);
	if (runapp(&r, app, NULL, env, 1) != 0 || r.status != 0 ||
	    strcmp(r.out, "fpchain: done\n") != 0 || r.nreports != 1 || !r.report[0]) {
		printf("    %s (%s): status %d, out '%s', err '%s'\n", app, method, r.status, r.out,
		       r.err);
		return -1;
	}
	collect(r.report[0], region, out);
	return 0;
}

/* Built with frame pointers: the walk's stacks are libunwind's, frame for
 * frame, where the chain covers the depth asked for; auto is libunwind's
 * everywhere. */
static void test_fp_build_same_as_libunwind(void)
{
	CHECK(run_method("fpchain-fp", "unwind", NULL, &unw_rows) == 0, "unwind run");
	CHECK(run_method("fpchain-fp", "auto", NULL, &auto_rows) == 0, "auto run");
	CHECK(!differ(&auto_rows, &unw_rows), "auto differs from unwind at: %s",
	      differ(&auto_rows, &unw_rows));
	for (const char *const *g = (const char *const[]){ "deep", "deep-thread", NULL }; *g; g++) {
		CHECK(run_method("fpchain-fp", "fp", *g, &fp_rows) == 0, "fp run");
		CHECK(run_method("fpchain-fp", "unwind", *g, &unw_rows) == 0, "unwind run");
		CHECK(fp_rows.n == 1 && frames(fp_rows.s[0]) == 9, "%s: %d rows, '%s'", *g,
		      fp_rows.n, fp_rows.s[0]);
		CHECK(!differ(&fp_rows, &unw_rows), "%s: fp '%s' vs unwind '%s'", *g, fp_rows.s[0],
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
	CHECK(fp_rows.n == 2 && frames(fp_rows.s[0]) == 9 && frames(fp_rows.s[1]) == 9,
	      "%d rows: '%s' '%s'", fp_rows.n, fp_rows.s[0], fp_rows.s[1]);
	CHECK(strncmp(fp_rows.s[0], "alternate 4 ", 12) == 0 &&
	      strncmp(fp_rows.s[1], "alternate 4 ", 12) == 0, "'%s' '%s'", fp_rows.s[0],
	      fp_rows.s[1]);
	CHECK(!differ(&fp_rows, &unw_rows), "fp '%s' vs unwind '%s'", differ(&fp_rows, &unw_rows),
	      unw_rows.s[0]);
}

/* Built without: the walk cannot give the stack, auto falls back. */
static void test_nofp_build_falls_back(void)
{
	CHECK(run_method("fpchain-nofp", "unwind", NULL, &unw_rows) == 0, "unwind run");
	CHECK(run_method("fpchain-nofp", "auto", NULL, &auto_rows) == 0, "auto run");
	CHECK(!differ(&auto_rows, &unw_rows), "auto differs from unwind at: %s",
	      differ(&auto_rows, &unw_rows));
	CHECK(run_method("fpchain-nofp", "fp", "deep", &fp_rows) == 0, "fp run");
	CHECK(run_method("fpchain-nofp", "unwind", "deep", &unw_rows) == 0, "unwind run");
	/* else this binary has a chain after all and proves nothing */
	CHECK(fp_rows.n == 1 && frames(fp_rows.s[0]) < 9 && frames(unw_rows.s[0]) == 9,
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
 * alone gives at most the frame above it. */
static void test_broken_chain(void)
{
	char a[256], b[256];

	for (const char *const *m = (const char *const[]){ "fp", "auto", NULL }; *m; m++) {
		for (const char *const *g = (const char *const[]){ "slot", "gpreg", NULL }; *g; g++) {
			CHECK(run_method("fpchain-fp", *m, *g, &fp_rows) == 0, "%s run", *m);
			CHECK(rep_calls(r.report[0], NULL, *g) == 6, "%s: %s calls %lld", *m, *g,
			      rep_calls(r.report[0], NULL, *g));
			for (int i = 0; i < fp_rows.n; i++) {
				CHECK(strcmp(call_site(fp_rows.s[i], a, sizeof(a)),
					     call_site(fp_rows.s[0], b, sizeof(b))) == 0 && *a,
				      "%s: call sites '%s' '%s'", *g, a, b);
				CHECK(strcmp(*m, "fp") != 0 || frames(fp_rows.s[i]) <= 2, "%s: '%s'",
				      *g, fp_rows.s[i]);
			}
		}
	}
}

/* Signal handlers: on the thread's stack the walk stops at the signal
 * return trampoline, on an alternate stack it does not start; either way
 * auto gives libunwind's stack (test_fp_build_same_as_libunwind). */
static void test_signal_handlers(void)
{
	CHECK(run_method("fpchain-fp", "fp", "signal", &fp_rows) == 0, "fp run");
	CHECK(fp_rows.n == 1 && frames(fp_rows.s[0]) == 1, "signal: '%s'", fp_rows.s[0]);
	CHECK(run_method("fpchain-fp", "fp", "altstack", &fp_rows) == 0, "fp run");
	CHECK(fp_rows.n == 1 && frames(fp_rows.s[0]) == 1, "altstack: '%s'", fp_rows.s[0]);
	CHECK(run_method("fpchain-fp", "unwind", "altstack", &unw_rows) == 0, "unwind run");
	CHECK(unw_rows.n == 1 && frames(unw_rows.s[0]) == 9, "altstack, libunwind: '%s'",
	      unw_rows.s[0]);
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
	runapp_free(&r);
	return t_done(getenv("PMCSHIM_TEST_SUITE") ? getenv("PMCSHIM_TEST_SUITE") : "stacks");
}
