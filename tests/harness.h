/* A minimal test harness: each test is a function; CHECK stops the test
 * on the first failure and says why. Every binary ends with the line
 * "<suite>: N passed, N failed, N skipped". */
#ifndef PMCSHIM_TEST_HARNESS_H
#define PMCSHIM_TEST_HARNESS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_passed, t_failed, t_skipped;
static int t_current_failed, t_current_skipped;
static char t_current_skip_reason[256];

#define CHECK(cond, ...)                                                      \
	do {                                                                  \
		if (!(cond)) {                                                \
			t_fail_at(__FILE__, __LINE__, #cond, __VA_ARGS__);    \
			return;                                               \
		}                                                             \
	} while (0)

/* Stop the current test and count it as skipped, with a reason. */
#define SKIP(...)                                                             \
	do {                                                                  \
		t_current_skipped = 1;                                        \
		snprintf(t_current_skip_reason, sizeof(t_current_skip_reason), \
			 __VA_ARGS__);                                        \
		return;                                                       \
	} while (0)

__attribute__((format(printf, 4, 5), unused))
static void t_fail_at(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	t_current_failed = 1;
	printf("    %s:%d: CHECK(%s) failed: ", file, line, cond);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* PMCSHIM_TEST_ONLY=name,name limits a run (the sanitizer passes). */
__attribute__((unused))
static int t_wanted(const char *name)
{
	const char *only = getenv("PMCSHIM_TEST_ONLY");
	char list[1024], key[128];

	if (!only || !*only)
		return 1;
	snprintf(list, sizeof(list), ",%s,", only);
	snprintf(key, sizeof(key), ",%s,", name);
	return strstr(list, key) != NULL;
}

__attribute__((unused))
static void t_run(const char *name, void (*fn)(void))
{
	if (!t_wanted(name))
		return;
	t_current_failed = 0;
	t_current_skipped = 0;
	fflush(stdout);
	fn();
	if (t_current_failed) {
		t_failed++;
		printf("FAIL %s\n", name);
	} else if (t_current_skipped) {
		t_skipped++;
		printf("SKIP %s (%s)\n", name, t_current_skip_reason);
	} else {
		t_passed++;
		printf("ok   %s\n", name);
	}
	fflush(stdout);
}

#define RUN(fn) t_run(#fn, fn)

__attribute__((unused))
static int t_done(const char *suite)
{
	printf("%s: %d passed, %d failed, %d skipped\n", suite, t_passed, t_failed,
	       t_skipped);
	return t_failed ? 1 : 0;
}

#endif
