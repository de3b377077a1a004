/* Offline stack symbolizer (see symbolize.h), built on elfutils libdwfl.
 *
 * Each module path gets its own Dwfl holding just that file, reported with
 * dwfl_report_elf() at base 0: one module per Dwfl means files never
 * overlap, and the report's offsets (file addresses) map to Dwfl addresses
 * by adding the module's bias. Modules are kept in a list for the life of
 * the symbolizer; a report names a few dozen at most.
 *
 * Output forms:
 *   SYM_LINE     "function (file:line)"  note NULL
 *   SYM_FUNCTION "function+0xoff"        note "no debug info", or
 *                                        "no line info" (debug info exists
 *                                        but does not cover the address)
 *   SYM_MODULE   "module+0xoff"          note "module not found",
 *                "not an ELF file", "build-id mismatch: file changed since
 *                the run", or "no symbol" (nothing covers the address)
 * "module" is the basename of the path. "+0xoff" is counted from the
 * return address, like dladdr()-based names ("solve+0x24"). "file" is the
 * source path as the compiler recorded it, with the compilation directory
 * stripped when it is a prefix (so usually the path given to the compiler,
 * e.g. "src/solve.c"); headers outside that directory keep their full path.
 *
 * Debug info: the standard libdwfl search, i.e. the file itself, then
 * .build-id/xx/rest.debug and .gnu_debuglink names under /usr/lib/debug.
 * PMCSHIM_DEBUG_ROOT=/some/dir (read by symbolizer_new) adds one directory
 * with the /usr/lib/debug layout, searched first. libdw also asks a
 * debuginfod server for missing debug info when DEBUGINFOD_URLS is set
 * (its choice, not ours: unset the variable to stay off the network).
 *
 * An empty build-id in the report means the run could not read one: the
 * file is then trusted. A report build-id with a file that has none is a
 * mismatch. */
#include "symbolize.h"

#include <errno.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define NOTE_MISMATCH "build-id mismatch: file changed since the run"

struct module {
	struct module *next;
	char *path;
	Dwfl *dwfl;		/* NULL when the file could not be used */
	Dwfl_Module *mod;
	const char *error;	/* why dwfl is NULL */
	char build_id[129];	/* the file's, lower-case hex; "" if none */
};

struct symbolizer {
	struct module *modules;
	char *debuginfo_path;	/* what callbacks.debuginfo_path points to */
	Dwfl_Callbacks callbacks;
};

struct symbolizer *symbolizer_new(void)
{
	struct symbolizer *s = calloc(1, sizeof(*s));
	const char *root = getenv("PMCSHIM_DEBUG_ROOT");
	char abs[PATH_MAX];

	if (!s)
		return NULL;
	/* Build-id lookups only use absolute directories, so resolve the
	 * root; the rest is libdwfl's default path. */
	if (root && root[0] && !realpath(root, abs)) {
		static int said;	/* once, however many symbolizers */

		if (!said++)
			fprintf(stderr, "pmcshim-report: PMCSHIM_DEBUG_ROOT='%s': %s; using the "
				"default debug paths only\n", root, strerror(errno));
	} else if (root && root[0]) {
		size_t n = strlen(abs) + sizeof("::.debug:/usr/lib/debug");
		s->debuginfo_path = malloc(n);
		if (s->debuginfo_path)
			snprintf(s->debuginfo_path, n, "%s::.debug:/usr/lib/debug", abs);
	}
	s->callbacks.find_elf = dwfl_build_id_find_elf;
	s->callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
	s->callbacks.section_address = dwfl_offline_section_address;
	s->callbacks.debuginfo_path = &s->debuginfo_path; /* NULL: default */
	return s;
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	while (s->modules) {
		struct module *m = s->modules;
		s->modules = m->next;
		if (m->dwfl)
			dwfl_end(m->dwfl);
		free(m->path);
		free(m);
	}
	free(s->debuginfo_path);
	free(s);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash && slash[1])
		return slash + 1;
	return path[0] ? path : "??";
}

static void hex(const unsigned char *p, int n, char *out, size_t outlen)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < (size_t)n && 2 * i + 2 < outlen; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * i] = '\0';
}

/* Report the file into m's own Dwfl; on failure say why in m->error. */
static void module_open(struct symbolizer *s, struct module *m)
{
	struct stat st;
	const unsigned char *bits;
	GElf_Addr vaddr;
	Dwarf_Addr bias;
	int n;

	if (!m->path[0] || stat(m->path, &st) != 0) {
		m->error = "module not found";
		return;
	}
	m->error = "not an ELF file";
	if (!S_ISREG(st.st_mode))
		return;
	m->dwfl = dwfl_begin(&s->callbacks);
	if (!m->dwfl)
		return;
	dwfl_report_begin(m->dwfl);
	m->mod = dwfl_report_elf(m->dwfl, base_name(m->path), m->path, -1, 0, false);
	dwfl_report_end(m->dwfl, NULL, NULL);
	/* getelf first: build_id is only known once the ELF is loaded. */
	if (!m->mod || !dwfl_module_getelf(m->mod, &bias)) {
		dwfl_end(m->dwfl);
		m->dwfl = NULL;
		m->mod = NULL;
		return;
	}
	m->error = NULL;
	n = dwfl_module_build_id(m->mod, &bits, &vaddr);
	if (n > 0)
		hex(bits, n, m->build_id, sizeof(m->build_id));
}

static struct module *module_get(struct symbolizer *s, const char *path)
{
	struct module *m;

	for (m = s->modules; m; m = m->next)
		if (strcmp(m->path, path) == 0)
			return m;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->path = strdup(path);
	if (!m->path) {
		free(m);
		return NULL;
	}
	module_open(s, m);
	m->next = s->modules;
	s->modules = m;
	return m;
}

/* The source file of a line, relative to its compilation directory when
 * it lies under it: shorter than the absolute path, and still says which
 * of several same-named files it is. */
static const char *line_file(Dwfl_Line *line, int *lineno)
{
	const char *file = dwfl_lineinfo(line, NULL, lineno, NULL, NULL, NULL);
	Dwarf_Die *cu = dwfl_linecu(line);
	Dwarf_Attribute attr;
	const char *dir = NULL;
	size_t n;

	if (!file)
		return NULL;
	if (cu && dwarf_attr(cu, DW_AT_comp_dir, &attr))
		dir = dwarf_formstring(&attr);
	n = dir ? strlen(dir) : 0;
	if (n > 0 && strncmp(file, dir, n) == 0 && file[n] == '/' && file[n + 1])
		return file + n + 1;
	return file;
}

static enum sym_quality module_only(const char *path, uint64_t offset, char *out,
				    size_t outlen, const char **note, const char *why)
{
	snprintf(out, outlen, "%s+0x%" PRIx64, base_name(path), offset);
	*note = why;
	return SYM_MODULE;
}

/* Symbolize `offset` in a usable module whose build-id matched. */
static enum sym_quality lookup(struct module *m, uint64_t offset, char *out,
			       size_t outlen, const char **note)
{
	Dwarf_Addr bias, dwbias;
	GElf_Off symoff;
	GElf_Sym sym;
	GElf_Addr addr;
	const char *name, *file;
	Dwfl_Line *line;
	int lineno = 0;

	if (offset == 0 || !dwfl_module_getelf(m->mod, &bias))
		return module_only(m->path, offset, out, outlen, note, "no symbol");
	/* The call instruction is the byte before the return address. */
	addr = offset - 1 + bias;
	name = dwfl_module_addrinfo(m->mod, addr, &symoff, &sym, NULL, NULL, NULL);
	line = dwfl_module_getsrc(m->mod, addr);
	file = line ? line_file(line, &lineno) : NULL;
	if (file && lineno > 0) {
		snprintf(out, outlen, "%s (%s:%d)", name ? name : "??", file, lineno);
		*note = NULL;
		return SYM_LINE;
	}
	if (!name)
		return module_only(m->path, offset, out, outlen, note, "no symbol");
	snprintf(out, outlen, "%s+0x%" PRIx64, name, (uint64_t)symoff + 1);
	*note = dwfl_module_getdwarf(m->mod, &dwbias) ? "no line info" : "no debug info";
	return SYM_FUNCTION;
}

enum sym_quality symbolize(struct symbolizer *s, const char *path, const char *build_id,
			   uint64_t offset, char *out, size_t outlen, const char **note)
{
	char scratch[1];
	const char *unused;
	struct module *m;

	/* Tolerate what a damaged report or a careless caller may pass. */
	if (!out || outlen == 0) {
		out = scratch;
		outlen = sizeof(scratch);
	}
	if (!note)
		note = &unused;
	if (!path)
		path = "";
	if (!build_id)
		build_id = "";
	m = s ? module_get(s, path) : NULL;
	if (!m)
		return module_only(path, offset, out, outlen, note, "module not found");
	if (m->error)
		return module_only(path, offset, out, outlen, note, m->error);
	if (build_id[0] && strcasecmp(build_id, m->build_id) != 0)
		return module_only(path, offset, out, outlen, note, NOTE_MISMATCH);
	return lookup(m, offset, out, outlen, note);
}

bool symbolize_function(struct symbolizer *s, const char *path, const char *build_id,
			uint64_t offset, char *out, size_t outlen)
{
	struct module *m = s && path ? module_get(s, path) : NULL;
	Dwarf_Addr bias;
	GElf_Off symoff;
	GElf_Sym sym;
	const char *name;

	if (!m || m->error || offset == 0 || (build_id && build_id[0] &&
					      strcasecmp(build_id, m->build_id) != 0))
		return false;
	if (!dwfl_module_getelf(m->mod, &bias))
		return false;
	name = dwfl_module_addrinfo(m->mod, offset - 1 + bias, &symoff, &sym, NULL, NULL, NULL);
	if (!name)
		return false;
	/* +1: the return address, as a dladdr() name would say it */
	snprintf(out, outlen, "%s+0x%" PRIx64, name, (uint64_t)symoff + 1);
	return true;
}
