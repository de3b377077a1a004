/* Turning a stack frame of a report into "function (file:line)" with
 * elfutils (libdwfl), offline: the module is found by the path and build-id
 * the report recorded, never in the reader's own address space. */
#ifndef PMCSHIM_SYMBOLIZE_H
#define PMCSHIM_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sym_quality {
	SYM_LINE,	/* "function (file:line)"; where code was inlined at the
			 * address, one such line per function, innermost first,
			 * each line separated by '\n': the inlined function at
			 * the address's line, then each caller at the line of its
			 * call, last the function they were inlined into */
	SYM_FUNCTION,	/* "function+0xoff" (no line information) */
	SYM_MODULE,	/* "module+0xoff" (no symbol, or module not usable) */
};

/* Room for a name (a demangled C++ name can run to thousands of
 * characters), and for a frame's text: a name and its line per function
 * inlined there. Longer text is cut. */
#define SYM_NAME_MAX 4096
#define SYM_TEXT_MAX (4 * SYM_NAME_MAX)

struct symbolizer;

struct symbolizer *symbolizer_new(void);
void symbolizer_free(struct symbolizer *s);

/* Describe the frame at `offset` (the report's "offset": address minus the
 * module's load bias, i.e. the address in the ELF file; a return address,
 * so the call is looked up at offset - 1) of the module at `path` whose
 * build-id was `build_id` (hex, may be empty). Writes the text to out.
 * *note is set to NULL, or to a short static explanation of why the
 * answer is less than SYM_LINE: "build-id mismatch: file changed since the
 * run", "module not found", "not an ELF file", "no symbol" (SYM_MODULE);
 * "no debug info", "no line info" (SYM_FUNCTION). Debug info is also
 * looked for in /usr/lib/debug/.build-id/xx/rest.debug, and first under
 * $PMCSHIM_DEBUG_ROOT (same layout) when that is set. Results are cached
 * per module; the call is cheap after the first for a module. */
enum sym_quality symbolize(struct symbolizer *s, const char *path, const char *build_id,
			   uint64_t offset, char *out, size_t outlen, const char **note);

/* The frame as "function+0xoff" from the symbol table (no line), as
 * --format json's frames[].symbol: false when the module cannot be read,
 * its build-id differs, or no symbol holds the address. */
bool symbolize_function(struct symbolizer *s, const char *path, const char *build_id,
			uint64_t offset, char *out, size_t outlen);

/* The symbol that holds `offset` itself (not a return address: a
 * function's entry, a variable): "name", or "name+0xoff" inside it; false
 * as for symbolize_function. */
bool symbolize_symbol(struct symbolizer *s, const char *path, const char *build_id,
		      uint64_t offset, char *out, size_t outlen);

/* Why the module at `path` cannot name the run's addresses: "module not
 * found", "not an ELF file", "build-id mismatch: file changed since the
 * run"; NULL when it can. */
const char *symbolize_unusable(struct symbolizer *s, const char *path, const char *build_id);

#endif
