/* Tests of the offline symbolizer (tools/reader/data/symbolize.c). The expected answers
 * come from the target program itself (target.c): it prints, for a few
 * call sites, the report's view (path, build-id, offset of the return
 * address) and the truth (function, __FILE__, __LINE__ of the call, the
 * function's own offset). The files the tests use sit next to this binary
 * (see symbolize.mk). */
#include "harness.h"
#include "reader/data/symbolize.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#define NOTE_MISMATCH "build-id mismatch: file changed since the run"

struct site {
	char label[32], path[PATH_MAX], build_id[129], func[64], file[256];
	uint64_t offset, func_offset;
	int line;
};

/* INLINED and INLINED_BY: one call site, inlined_where() inlined into
 * inlining_caller() */
enum { FIRST, SECOND, LIB, NCALLS, INLINED = NCALLS, INLINED_BY, NSITES };
static const char *const labels[NSITES] = { "first", "second", "lib", "inlined", "inlined-by" };
static struct site sites[NSITES];
static int have_sites;
static char dir[PATH_MAX / 2];	/* where this binary and the target live */

static void parse_site(char *line)
{
	char *f[10], *save = NULL;
	int n = 0;

	for (char *t = strtok_r(line, "\t\n", &save); t && n < 10;
	     t = strtok_r(NULL, "\t\n", &save))
		f[n++] = t;
	if (n != 9 || strcmp(f[0], "site") != 0)
		return;
	for (int i = 0; i < NSITES; i++) {
		struct site *s = &sites[i];
		if (strcmp(f[1], labels[i]) != 0)
			continue;
		snprintf(s->label, sizeof(s->label), "%s", f[1]);
		snprintf(s->path, sizeof(s->path), "%s", f[2]);
		snprintf(s->build_id, sizeof(s->build_id), "%s",
			 strcmp(f[3], "-") ? f[3] : "");
		s->offset = strtoull(f[4], NULL, 16);
		snprintf(s->func, sizeof(s->func), "%s", f[5]);
		snprintf(s->file, sizeof(s->file), "%s", f[6]);
		s->line = atoi(f[7]);
		s->func_offset = strtoull(f[8], NULL, 16);
		have_sites |= 1 << i;
	}
}

/* Run the target once and keep what it says about its call sites. */
static void load_sites(void)
{
	char self[PATH_MAX], cmd[PATH_MAX + 16], line[PATH_MAX + 512];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	FILE *p;

	if (n <= 0)
		return;
	self[n] = '\0';
	snprintf(dir, sizeof(dir), "%s", dirname(self));
	snprintf(cmd, sizeof(cmd), "'%s/target'", dir);
	p = popen(cmd, "r");
	if (!p)
		return;
	while (fgets(line, sizeof(line), p))
		parse_site(line);
	pclose(p);
}

static const struct site *site(int i)
{
	return (have_sites >> i) & 1 ? &sites[i] : NULL;
}

static void in_dir(char *out, size_t outlen, const char *name)
{
	snprintf(out, outlen, "%s/%s", dir, name);
}

static void expect_line(char *out, size_t outlen, const struct site *s)
{
	snprintf(out, outlen, "%s (%s:%d)", s->func, s->file, s->line);
}

/* Every call site, in the executable and in the library, to the line. */
static void test_line_of_each_call_site(void)
{
	struct symbolizer *sym = symbolizer_new();
	char out[512], want[512];
	const char *note = "unset";

	CHECK(sym, "symbolizer_new failed");
	for (int i = 0; i < NCALLS; i++) {
		const struct site *s = site(i);
		CHECK(s, "the target did not report site %s", labels[i]);
		CHECK(s->build_id[0], "site %s: no build-id in the target", labels[i]);
		enum sym_quality q = symbolize(sym, s->path, s->build_id, s->offset, out,
					       sizeof(out), &note);
		expect_line(want, sizeof(want), s);
		if (q != SYM_LINE || strcmp(out, want) != 0 || note) {
			symbolizer_free(sym);
			CHECK(0, "site %s: got %d \"%s\" (note %s), want \"%s\"", labels[i],
			      (int)q, out, note ? note : "NULL", want);
		}
	}
	symbolizer_free(sym);
}

/* A call in a function inlined into another: a line each, the inlined
 * function at the call, then its caller at the line it was inlined at (so
 * a marker macro's frames end in the user's line, not the header's). */
static void test_inlined_call(void)
{
	struct symbolizer *sym = symbolizer_new();
	const struct site *in = site(INLINED), *by = site(INLINED_BY);
	char out[512], want[512], a[256], b[256];
	const char *note = "unset";
	enum sym_quality q;

	CHECK(sym && in && by, "no symbolizer, or the target did not report its inlined call");
	q = symbolize(sym, in->path, in->build_id, in->offset, out, sizeof(out), &note);
	expect_line(a, sizeof(a), in);
	expect_line(b, sizeof(b), by);
	snprintf(want, sizeof(want), "%s\n%s", a, b);
	symbolizer_free(sym);
	CHECK(q == SYM_LINE && strcmp(out, want) == 0 && !note,
	      "got %d \"%s\" (note %s), want \"%s\"", (int)q, out, note ? note : "NULL", want);
}

/* An empty build-id (the run could not read one) trusts the file; case
 * does not matter in a given one. Asking again hits the cache. */
static void test_build_id_empty_or_upper_case(void)
{
	const struct site *s = site(FIRST);
	struct symbolizer *sym = symbolizer_new();
	char out[512], want[512], upper[129];
	const char *note;
	enum sym_quality q1, q2;
	int same;

	CHECK(s && sym, "no site or no symbolizer");
	for (size_t i = 0; i <= strlen(s->build_id); i++)
		upper[i] = (char)toupper((unsigned char)s->build_id[i]);
	expect_line(want, sizeof(want), s);
	q1 = symbolize(sym, s->path, "", s->offset, out, sizeof(out), &note);
	same = strcmp(out, want) == 0;
	q2 = symbolize(sym, s->path, upper, s->offset, out, sizeof(out), &note);
	same = same && strcmp(out, want) == 0;
	symbolizer_free(sym);
	CHECK(q1 == SYM_LINE && q2 == SYM_LINE && same, "got %d/%d, last \"%s\", want \"%s\"",
	      (int)q1, (int)q2, out, want);
}

static void test_build_id_mismatch(void)
{
	const struct site *s = site(LIB);
	struct symbolizer *sym = symbolizer_new();
	char out[512], want[512], wrong[129];
	const char *note = NULL;
	enum sym_quality q;

	CHECK(s && sym, "no site or no symbolizer");
	/* Same length, one digit off: the file was rebuilt. */
	snprintf(wrong, sizeof(wrong), "%s", s->build_id);
	wrong[0] = wrong[0] == '0' ? '1' : '0';
	q = symbolize(sym, s->path, wrong, s->offset, out, sizeof(out), &note);
	symbolizer_free(sym);
	snprintf(want, sizeof(want), "libsymtarget.so+0x%" PRIx64, s->offset);
	CHECK(q == SYM_MODULE && strcmp(out, want) == 0, "got %d \"%s\", want \"%s\"",
	      (int)q, out, want);
	CHECK(note && strcmp(note, NOTE_MISMATCH) == 0, "note %s", note ? note : "NULL");
}

static void test_missing_file(void)
{
	struct symbolizer *sym = symbolizer_new();
	char out[512];
	const char *note = NULL;
	enum sym_quality q;

	CHECK(sym, "symbolizer_new failed");
	q = symbolize(sym, "/nonexistent/dir/libgone.so.1", "abcd", 0x1234, out, sizeof(out),
		      &note);
	symbolizer_free(sym);
	CHECK(q == SYM_MODULE && strcmp(out, "libgone.so.1+0x1234") == 0, "got %d \"%s\"",
	      (int)q, out);
	CHECK(note && strcmp(note, "module not found") == 0, "note %s", note ? note : "NULL");
}

/* The path of the debug file that /usr/lib/debug would hold for an id. */
static void usr_lib_debug_path(char *out, size_t outlen, const char *build_id)
{
	snprintf(out, outlen, "/usr/lib/debug/.build-id/%.2s/%s.debug", build_id,
		 build_id + 2);
}

/* objcopy --strip-debug keeps .symtab: names, but no lines. */
static void test_stripped_gives_function(void)
{
	const struct site *s = site(SECOND);
	struct symbolizer *sym;
	char path[PATH_MAX], out[512], want[512];
	const char *note = NULL;
	enum sym_quality q;

	CHECK(s, "no site");
	usr_lib_debug_path(path, sizeof(path), s->build_id);
	if (access(path, F_OK) == 0)
		SKIP("%.200s exists: the target is not stripped to dwfl", path);
	in_dir(path, sizeof(path), "target-nodebug");
	sym = symbolizer_new();
	CHECK(sym, "symbolizer_new failed");
	q = symbolize(sym, path, s->build_id, s->offset, out, sizeof(out), &note);
	symbolizer_free(sym);
	snprintf(want, sizeof(want), "%s+0x%" PRIx64, s->func, s->offset - s->func_offset);
	CHECK(q == SYM_FUNCTION && strcmp(out, want) == 0, "got %d \"%s\", want \"%s\"",
	      (int)q, out, want);
	CHECK(note && strcmp(note, "no debug info") == 0, "note %s", note ? note : "NULL");
}

/* Lay out root/.build-id/xx/rest.debug -> target; returns 0 on success. */
static int place_debug_file(const char *root, const char *build_id, const char *target,
			    char *link, size_t linklen, int *made_dirs)
{
	char d[PATH_MAX];

	*made_dirs = 0;
	snprintf(d, sizeof(d), "%s/.build-id", root);
	if (mkdir(d, 0755) == 0)
		*made_dirs = 1;
	else if (errno != EEXIST)
		return -1;
	snprintf(d, sizeof(d), "%s/.build-id/%.2s", root, build_id);
	if (mkdir(d, 0755) == 0)
		*made_dirs = 2;
	else if (errno != EEXIST)
		return -1;
	snprintf(link, linklen, "%s/%s.debug", d, build_id + 2);
	return symlink(target, link);
}

/* Undo place_debug_file: the link, and the directories it made. */
static void remove_debug_file(const char *root, const char *build_id, const char *link,
			      int made_dirs)
{
	char d[PATH_MAX];

	unlink(link);
	snprintf(d, sizeof(d), "%s/.build-id/%.2s", root, build_id);
	if (made_dirs >= 2)
		rmdir(d);
	snprintf(d, sizeof(d), "%s/.build-id", root);
	if (made_dirs >= 1)
		rmdir(d);
}

/* Symbolize a stripped file whose debug file sits under `root`. */
static void symbolize_stripped(const struct site *s, const char *stripped, char *out,
			       size_t outlen, enum sym_quality *q, const char **note)
{
	struct symbolizer *sym = symbolizer_new();
	char path[PATH_MAX];

	in_dir(path, sizeof(path), stripped);
	*q = sym ? symbolize(sym, path, s->build_id, s->offset, out, outlen, note)
		 : SYM_MODULE;
	symbolizer_free(sym);
}

/* PMCSHIM_DEBUG_ROOT: a directory laid out like /usr/lib/debug. */
static void test_debug_root_env(void)
{
	const struct site *s = site(FIRST);
	char root[] = "/tmp/symbolize-debug-XXXXXX", debug[PATH_MAX], link[PATH_MAX];
	char out[512], want[512];
	const char *note = "unset";
	enum sym_quality q;
	int made, rc;

	CHECK(s, "no site");
	CHECK(mkdtemp(root), "mkdtemp: %s", strerror(errno));
	in_dir(debug, sizeof(debug), "target.debug");
	rc = place_debug_file(root, s->build_id, debug, link, sizeof(link), &made);
	setenv("PMCSHIM_DEBUG_ROOT", root, 1);
	if (rc == 0)
		symbolize_stripped(s, "target-nodebug", out, sizeof(out), &q, &note);
	unsetenv("PMCSHIM_DEBUG_ROOT");
	remove_debug_file(root, s->build_id, link, made);
	rmdir(root);
	CHECK(rc == 0, "could not lay out %s: %s", root, strerror(errno));
	expect_line(want, sizeof(want), s);
	CHECK(q == SYM_LINE && strcmp(out, want) == 0 && !note,
	      "got %d \"%s\" (note %s), want \"%s\"", (int)q, out, note ? note : "NULL", want);
}

/* The real /usr/lib/debug/.build-id, with the library's debug file put
 * there for the test (root only) and taken away after. */
static void test_usr_lib_debug(void)
{
	const struct site *s = site(LIB);
	char debug[PATH_MAX], link[PATH_MAX], out[512], want[512];
	const char *before_note = NULL, *note = "unset";
	enum sym_quality before, q;
	int made;

	CHECK(s, "no site");
	usr_lib_debug_path(link, sizeof(link), s->build_id);
	if (access(link, F_OK) == 0)
		SKIP("%.200s already exists", link);
	if (access("/usr/lib/debug", W_OK) != 0)
		SKIP("/usr/lib/debug is not writable");
	symbolize_stripped(s, "libsymtarget-nodebug.so", out, sizeof(out), &before,
			   &before_note);
	in_dir(debug, sizeof(debug), "libsymtarget.debug");
	if (place_debug_file("/usr/lib/debug", s->build_id, debug, link, sizeof(link),
			     &made) != 0) {
		remove_debug_file("/usr/lib/debug", s->build_id, link, made);
		SKIP("cannot write under /usr/lib/debug: %s", strerror(errno));
	}
	symbolize_stripped(s, "libsymtarget-nodebug.so", out, sizeof(out), &q, &note);
	remove_debug_file("/usr/lib/debug", s->build_id, link, made);
	CHECK(before == SYM_FUNCTION, "without the debug file: %d (note %s)", (int)before,
	      before_note ? before_note : "NULL");
	expect_line(want, sizeof(want), s);
	CHECK(q == SYM_LINE && strcmp(out, want) == 0 && !note,
	      "got %d \"%s\" (note %s), want \"%s\"", (int)q, out, note ? note : "NULL", want);
}

/* Input a damaged report or a careless caller could give: no crash, and
 * a module-level answer. */
static void test_odd_input(void)
{
	const struct site *s = site(FIRST);
	struct symbolizer *sym = symbolizer_new();
	char junk[] = "/tmp/symbolize-junk-XXXXXX", out[512], small[8];
	const char *note = NULL, *note2 = NULL;
	enum sym_quality q[8];
	int fd = mkstemp(junk);

	CHECK(s && sym && fd >= 0, "setup failed");
	CHECK(write(fd, "not ELF\n", 8) == 8, "write");
	close(fd);
	q[0] = symbolize(sym, "", "", 0x10, out, sizeof(out), &note);
	int empty_ok = strcmp(out, "??+0x10") == 0 && note && !strcmp(note, "module not found");
	q[1] = symbolize(sym, s->path, NULL, 0, out, sizeof(out), &note);
	int zero_ok = strcmp(out, "target+0x0") == 0;
	q[2] = symbolize(sym, s->path, s->build_id, UINT64_MAX, out, sizeof(out), &note);
	q[3] = symbolize(sym, junk, "", 0x10, out, sizeof(out), &note);
	int junk_ok = note && !strcmp(note, "not an ELF file");
	q[4] = symbolize(sym, "/tmp", "", 0x10, out, sizeof(out), &note2);
	int dir_ok = note2 && !strcmp(note2, "not an ELF file");
	q[5] = symbolize(sym, s->path, s->build_id, s->offset, small, sizeof(small), &note);
	int small_ok = strlen(small) == sizeof(small) - 1;
	q[6] = symbolize(sym, s->path, s->build_id, s->offset, NULL, 0, NULL);
	q[7] = symbolize(sym, NULL, NULL, 1, out, sizeof(out), &note);
	symbolizer_free(sym);
	unlink(junk);
	CHECK(q[0] == SYM_MODULE && empty_ok, "empty path: %d \"%s\"", (int)q[0], out);
	CHECK(q[1] == SYM_MODULE && zero_ok, "offset 0: %d", (int)q[1]);
	CHECK(q[2] == SYM_MODULE, "huge offset: %d", (int)q[2]);
	CHECK(q[3] == SYM_MODULE && junk_ok, "non-ELF file: %d", (int)q[3]);
	CHECK(q[4] == SYM_MODULE && dir_ok, "directory: %d %s", (int)q[4], note2);
	CHECK(q[5] == SYM_LINE && small_ok, "small buffer: %d \"%s\"", (int)q[5], small);
	CHECK(q[6] == SYM_LINE, "no buffer: %d", (int)q[6]);
	CHECK(q[7] == SYM_MODULE, "NULL path: %d", (int)q[7]);
}

/* Many modules in one symbolizer, each asked twice; freed at the end
 * (run under valgrind or ASan to see that nothing leaks). */
static void test_many_modules(void)
{
	struct symbolizer *sym = symbolizer_new();
	char path[PATH_MAX], out[512];
	const char *note;
	int bad = 0;

	CHECK(sym, "symbolizer_new failed");
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < NSITES; i++)
			if (site(i) && symbolize(sym, sites[i].path, sites[i].build_id,
						 sites[i].offset, out, sizeof(out),
						 &note) != SYM_LINE)
				bad++;
		for (int i = 0; i < 40; i++) {
			snprintf(path, sizeof(path), "/nonexistent/lib%d.so", i);
			if (symbolize(sym, path, "", 0x40, out, sizeof(out), &note) != SYM_MODULE)
				bad++;
		}
	}
	symbolizer_free(sym);
	symbolizer_free(NULL);
	CHECK(bad == 0, "%d unexpected answers", bad);
}

int main(void)
{
	/* Only local files: no debuginfod server answers for the tests. */
	unsetenv("DEBUGINFOD_URLS");
	load_sites();
	RUN(test_line_of_each_call_site);
	RUN(test_inlined_call);
	RUN(test_build_id_empty_or_upper_case);
	RUN(test_build_id_mismatch);
	RUN(test_missing_file);
	RUN(test_stripped_gives_function);
	RUN(test_debug_root_env);
	RUN(test_usr_lib_debug);
	RUN(test_odd_input);
	RUN(test_many_modules);
	return t_done("symbolize");
}
