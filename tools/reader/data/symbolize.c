/* Offline stack symbolizer (see symbolize.h), built on elfutils libdwfl.
 *
 * Each module path gets its own Dwfl holding just that file, reported with
 * dwfl_report_elf() at base 0: one module per Dwfl means files never
 * overlap, and the report's offsets (file addresses) map to Dwfl addresses
 * by adding the module's bias. Modules are kept in a list for the life of
 * the symbolizer; a report names a few dozen at most.
 *
 * Output forms:
 *   SYM_LINE     "function (file:line)"  note NULL; where functions were
 *                inlined at the address, one such line per function,
 *                innermost first (symbolize.h)
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
 * mismatch.
 *
 * Names are demangled (demangle.h): "app::Solver<double>::step(int)", not
 * "_ZN3app6SolverIdE4stepEi"; an inlined function is named by its linkage
 * name where DWARF has one (the qualified name, not just "step").
 *
 * Lines: libdwfl finds an address's compilation unit through
 * .debug_aranges. Clang writes none, and libdw before 0.191 then finds no
 * unit at all (every frame of a Clang binary would lack its line); and an
 * address in no unit (crt1.o's _start) is given the unit before it. So the
 * unit found is checked to hold the address, and when none is found the
 * units are searched by their own ranges. */
#include "symbolize.h"

#include <errno.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "demangle.h"

#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
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

/* A source file relative to its compilation directory when it lies under
 * it: shorter than the absolute path, and still says which of several
 * same-named files it is. */
static const char *relative(Dwarf_Die *cu, const char *file)
{
	Dwarf_Attribute attr;
	const char *dir = NULL;
	size_t n;

	if (cu && dwarf_attr(cu, DW_AT_comp_dir, &attr))
		dir = dwarf_formstring(&attr);
	n = dir ? strlen(dir) : 0;
	if (n > 0 && strncmp(file, dir, n) == 0 && file[n] == '/' && file[n + 1])
		return file + n + 1;
	return file;
}

static const char *line_file(Dwarf_Line *line, Dwarf_Die *cu, int *lineno)
{
	const char *file = dwarf_linesrc(line, NULL, NULL);

	if (!file || dwarf_lineno(line, lineno) != 0)
		return NULL;
	return relative(cu, file);
}

/* The unit of the module's DWARF whose own ranges hold addr (a DWARF
 * address: the file's, less the bias), searched one by one. */
static bool unit_holding(Dwarf *dw, Dwarf_Addr addr, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, cu) && dwarf_haspc(cu, addr) == 1)
			return true;
		off = next;
	}
	return false;
}

/* The line row of addr (a module address) and its unit in *cu; NULL when
 * no unit's ranges hold addr or its line table has no row for it. */
static Dwarf_Line *line_at(struct module *m, Dwarf_Addr addr, Dwarf_Die *cu)
{
	Dwarf_Addr bias;
	Dwarf_Die *found = dwfl_module_addrdie(m->mod, addr, &bias);
	Dwarf *dw;

	/* a unit found is checked; none found (or the wrong one: a binary
	 * mixing units with and without aranges), the units are searched */
	if (found && dwarf_haspc(found, addr - bias) == 1)
		*cu = *found;
	else if (!(dw = dwfl_module_getdwarf(m->mod, &bias)) || !unit_holding(dw, addr - bias, cu))
		return NULL;
	return dwarf_getsrc_die(cu, addr - bias);
}

/* Where an inlined function was called: DW_AT_call_file (an index into
 * its unit's file table) and DW_AT_call_line; "??" when not recorded. */
static const char *call_site(Dwarf_Die *cu, Dwarf_Die *inl, int *lineno)
{
	Dwarf_Attribute a;
	Dwarf_Word idx, line;
	Dwarf_Files *files;
	size_t n;
	const char *file;

	*lineno = 0;
	if (!dwarf_attr(inl, DW_AT_call_file, &a) || dwarf_formudata(&a, &idx) ||
	    !dwarf_attr(inl, DW_AT_call_line, &a) || dwarf_formudata(&a, &line) ||
	    dwarf_getsrcfiles(cu, &files, &n) || idx >= n ||
	    !(file = dwarf_filesrc(files, idx, NULL, NULL)))
		return "??";
	*lineno = (int)line;
	return relative(cu, file);
}

/* An inlined function's name: its linkage name demangled (qualified:
 * "app::Solver<double>::step(int)"), else its plain name (C), else "??". */
static const char *die_name(Dwarf_Die *die, char *buf, size_t buflen)
{
	Dwarf_Attribute a;
	const char *link = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		link = dwarf_formstring(&a);
	if (link && demangle(link, buf, buflen))
		return buf;
	link = dwarf_diename(die);
	return link ? link : "??";
}

/* "text\n" at out + *used, as much as fits. */
static void PRINTF_LIKE(4, 5) append(char *out, size_t outlen, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used >= outlen)
		return;
	va_start(ap, fmt);
	n = vsnprintf(out + *used, outlen - *used, fmt, ap);
	va_end(ap);
	*used += n > 0 ? (size_t)n : 0;
}

/* The functions inlined at addr (a marker in a header's inline function
 * or macro, say), innermost first, one a line of out: each at its line,
 * the innermost's the address's own (file:lineno), an outer one's the
 * call of the one inside it; last the function they were inlined into
 * (name), at the call of the outermost: the user's own line. False (out
 * untouched) when nothing is inlined there. */
static bool inlined_frames(Dwarf_Die *cu, Dwarf_Addr addr, const char *name,
			   const char *file, int lineno, char *out, size_t outlen)
{
	Dwarf_Die *scopes = NULL, inner;
	int n = dwarf_getscopes(cu, addr, &scopes);
	size_t used = 0;

	/* getscopes goes from an inlined instance to its abstract definition's
	 * scopes; getscopes_die from the innermost, to where it was inlined */
	if (n > 0) {
		inner = scopes[0];
		free(scopes);
		scopes = NULL;
		n = dwarf_getscopes_die(&inner, &scopes);
	}
	for (int i = 0; i < n && dwarf_tag(&scopes[i]) != DW_TAG_subprogram; i++) {
		char nice[SYM_NAME_MAX];

		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue; /* a lexical block */
		append(out, outlen, &used, "%s (%s:%d)\n", die_name(&scopes[i], nice, sizeof(nice)),
		       file, lineno);
		file = call_site(cu, &scopes[i], &lineno);
	}
	free(scopes);
	if (!used)
		return false;
	append(out, outlen, &used, "%s (%s:%d)", name ? name : "??", file, lineno);
	return true;
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
	Dwarf_Line *line;
	Dwarf_Die cu;
	char nice[SYM_NAME_MAX];
	int lineno = 0;

	if (offset == 0 || !dwfl_module_getelf(m->mod, &bias))
		return module_only(m->path, offset, out, outlen, note, "no symbol");
	/* The call instruction is the byte before the return address. */
	addr = offset - 1 + bias;
	name = dwfl_module_addrinfo(m->mod, addr, &symoff, &sym, NULL, NULL, NULL);
	name = name ? demangled(name, nice, sizeof(nice)) : NULL;
	line = line_at(m, addr, &cu);
	file = line ? line_file(line, &cu, &lineno) : NULL;
	if (file && lineno > 0) {
		if (!inlined_frames(&cu, addr - bias, name, file, lineno, out, outlen))
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

/* Why module m cannot name the run's addresses; NULL when it can. */
static const char *why_unusable(const struct module *m, const char *build_id)
{
	if (!m)
		return "module not found";
	if (m->error)
		return m->error;
	if (build_id[0] && strcasecmp(build_id, m->build_id) != 0)
		return NOTE_MISMATCH;
	return NULL;
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
	if ((*note = why_unusable(m, build_id)))
		return module_only(path, offset, out, outlen, note, *note);
	return lookup(m, offset, out, outlen, note);
}

const char *symbolize_unusable(struct symbolizer *s, const char *path, const char *build_id)
{
	return why_unusable(s && path ? module_get(s, path) : NULL, build_id ? build_id : "");
}

/* The symbol holding file address `offset` of a usable module whose
 * build-id matched, demangled into buf; NULL when there is none. */
static const char *symbol_at(struct symbolizer *s, const char *path, const char *build_id,
			     uint64_t offset, GElf_Off *symoff, char *buf, size_t buflen)
{
	struct module *m = s && path ? module_get(s, path) : NULL;
	Dwarf_Addr bias;
	GElf_Sym sym;
	const char *name;

	if (why_unusable(m, build_id ? build_id : "") || !dwfl_module_getelf(m->mod, &bias))
		return NULL;
	name = dwfl_module_addrinfo(m->mod, offset + bias, symoff, &sym, NULL, NULL, NULL);
	return name ? demangled(name, buf, buflen) : NULL;
}

bool symbolize_function(struct symbolizer *s, const char *path, const char *build_id,
			uint64_t offset, char *out, size_t outlen)
{
	GElf_Off symoff;
	char buf[SYM_NAME_MAX];
	const char *name = offset ? symbol_at(s, path, build_id, offset - 1, &symoff, buf,
					      sizeof(buf)) : NULL;

	if (!name)
		return false;
	/* +1: the return address, as a dladdr() name would say it */
	snprintf(out, outlen, "%s+0x%" PRIx64, name, (uint64_t)symoff + 1);
	return true;
}

bool symbolize_symbol(struct symbolizer *s, const char *path, const char *build_id,
		      uint64_t offset, char *out, size_t outlen)
{
	GElf_Off symoff;
	char buf[SYM_NAME_MAX];
	const char *name = symbol_at(s, path, build_id, offset, &symoff, buf, sizeof(buf));

	if (!name)
		return false;
	if (symoff)
		snprintf(out, outlen, "%s+0x%" PRIx64, name, (uint64_t)symoff);
	else
		snprintf(out, outlen, "%s", name);
	return true;
}
