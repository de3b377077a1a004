#include "report_symbols.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "report_util.h"
#include "symbolize.h"

#ifdef PMCSHIM_NO_SYMBOLIZE
/* Built without elfutils (the fuzz target): frames are named from the
 * report only. */
struct symbolizer *symbolizer_new(void)
{
	return NULL;
}

void symbolizer_free(struct symbolizer *s)
{
	(void)s;
}

enum sym_quality symbolize(struct symbolizer *s, const char *path, const char *build_id,
			   uint64_t offset, char *out, size_t outlen, const char **note)
{
	(void)s, (void)path, (void)build_id, (void)offset, (void)out, (void)outlen;
	*note = NULL;
	return SYM_MODULE;
}

bool symbolize_function(struct symbolizer *s, const char *path, const char *build_id,
			uint64_t offset, char *out, size_t outlen)
{
	(void)s, (void)path, (void)build_id, (void)offset, (void)out, (void)outlen;
	return false;
}

bool symbolize_symbol(struct symbolizer *s, const char *path, const char *build_id,
		      uint64_t offset, char *out, size_t outlen)
{
	(void)s, (void)path, (void)build_id, (void)offset, (void)out, (void)outlen;
	return false;
}

const char *symbolize_unusable(struct symbolizer *s, const char *path, const char *build_id)
{
	(void)s, (void)path, (void)build_id;
	return NULL;
}
#endif

struct fkey {
	int64_t mod;
	uint64_t off;		/* offset in the module, or the address */
};

struct fent {
	struct fkey key;
	const char *text;
	UT_hash_handle hh;
};

struct note {
	int64_t mod;
	const char *path, *note;
	bool lines;		/* some frame of the module had its line */
};

/* Cache entries come in chunks: a report can have 100 000 distinct frames. */
enum { CHUNK = 4096 };

struct fchunk {
	struct fchunk *next;
	size_t used;
	struct fent e[CHUNK];
};

struct symbols {
	struct symbolizer *sz;		/* NULL: --no-symbolize */
	struct fent *cache;
	struct fchunk *chunks;
	struct pool pool;
	size_t nnotes, notes_cap;
	struct note *notes;
};

struct symbols *symbols_new(bool use_debuginfo)
{
	struct symbols *s = xcalloc(1, sizeof(*s));

	if (use_debuginfo)
		s->sz = symbolizer_new();
	return s;
}

void symbols_free(struct symbols *s)
{
	if (!s)
		return;
	HASH_CLEAR(hh, s->cache);
	while (s->chunks) {
		struct fchunk *c = s->chunks;

		s->chunks = c->next;
		free(c);
	}
	if (s->sz)
		symbolizer_free(s->sz);
	pool_free(&s->pool);
	free(s->notes);
	free(s);
}

/* One note per module: the first reason its frames fell short (note
 * NULL: none yet, the module only known to have lines). */
static void add_note(struct symbols *s, int64_t mod, const char *path, const char *note,
		     bool lines)
{
	for (size_t i = 0; i < s->nnotes; i++)
		if (s->notes[i].mod == mod) {
			s->notes[i].lines |= lines;
			if (!s->notes[i].note)
				s->notes[i].note = note;
			return;
		}
	s->notes = grow(s->notes, &s->notes_cap, s->nnotes + 1, sizeof(*s->notes));
	s->notes[s->nnotes++] = (struct note){ mod, pool_strdup(&s->pool, path), note, lines };
}

static const char *describe(struct symbols *s, int64_t gmod, const char *path,
			    const char *build_id, const struct rep_frame *f)
{
	char buf[SYM_TEXT_MAX];
	const char *note = NULL;
	enum sym_quality q = SYM_MODULE;

	if (gmod < 0) { /* JIT code, a vDSO not listed...: the address is all */
		if (f->symbol)
			return pool_strdup(&s->pool, f->symbol);
		if (s->sz) /* names were asked for: say why there are none */
			add_note(s, -1, "(no module)", "addresses in no module loaded when their "
				 "stack was recorded (generated code?): shown as addresses", false);
		snprintf(buf, sizeof(buf), "0x%" PRIx64, f->addr);
		return pool_strdup(&s->pool, buf);
	}
	if (s->sz)
		q = symbolize(s->sz, path, build_id, f->offset, buf, sizeof(buf), &note);
	if (note || q == SYM_LINE)
		add_note(s, gmod, path, note, q == SYM_LINE);
	if (q == SYM_LINE || q == SYM_FUNCTION)
		return pool_strdup(&s->pool, buf);
	if (f->symbol)
		return pool_strdup(&s->pool, f->symbol);
	snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, path_base(path), f->offset);
	return pool_strdup(&s->pool, buf);
}

const char *symbols_frame(struct symbols *s, int64_t gmod, const char *path,
			  const char *build_id, const struct rep_frame *f)
{
	struct fkey k = { gmod < 0 ? -1 : gmod, gmod < 0 ? f->addr : f->offset };
	struct fent *e;

	HASH_FIND(hh, s->cache, &k, sizeof(k), e);
	if (e)
		return e->text;
	if (!s->chunks || s->chunks->used == CHUNK) {
		struct fchunk *c = xmalloc(sizeof(*c));

		c->next = s->chunks, c->used = 0;
		s->chunks = c;
	}
	e = &s->chunks->e[s->chunks->used++];
	memset(e, 0, sizeof(*e));
	e->key = k;
	e->text = describe(s, gmod, path, build_id, f);
	HASH_ADD(hh, s->cache, key, sizeof(k), e);
	return e->text;
}

void symbols_notes(struct symbols *s, void (*fn)(void *arg, const char *path,
						 const char *note), void *arg)
{
	for (size_t i = 0; i < s->nnotes; i++) {
		const struct note *n = &s->notes[i];

		/* a module with lines has its debug info: the frames without
		 * are code built without (crt1.o's _start), nothing to fix */
		if (n->note && !(n->lines && strcmp(n->note, "no line info") == 0))
			fn(arg, n->path, n->note);
	}
}

/* Said once per module and reader, on stderr (every format keeps its
 * output): the regions of a module that cannot name them, such as a binary
 * rebuilt since the run, are shown as module+offset. */
static void warn_unusable(const char *path, const char *why)
{
	static const char *said[16];	/* the paths said, the first few */
	static size_t nsaid;

	for (size_t i = 0; i < nsaid; i++)
		if (strcmp(said[i], path) == 0)
			return;
	if (nsaid < sizeof(said) / sizeof(said[0]) && !(said[nsaid] = strdup(path)))
		return;
	nsaid += nsaid < sizeof(said) / sizeof(said[0]);
	fprintf(stderr, PROG ": %s: %s: its regions are named module+offset%s\n", path, why,
		strncmp(why, "build-id", 8) == 0 ? " (rebuilt? run it again to name them)" : "");
}

/* The text region `o` is named after: its symbol, or (frame-like) its
 * call's function and line; module+offset when the module cannot say
 * (rebuilt since the run); false when it holds no symbol there. */
static bool region_symbol(struct symbolizer *sz, const struct rf_origin *o,
			  const struct rep_module *mod, char *sym, size_t len)
{
	const char *why = symbolize_unusable(sz, mod->path, mod->build_id);
	uint64_t off = o->addr - mod->base;

	if (why) {
		warn_unusable(mod->path, why);
		snprintf(sym, len, "%s+0x%" PRIx64, path_base(mod->path), off);
		return true;
	}
	if (o->addr_kind == RF_ADDR_CALL) {
		bool found = symbolize(sz, mod->path, mod->build_id, off, sym, len, NULL) != SYM_MODULE;

		/* one line: the innermost function, where the call is written
		 * (the functions it was inlined into are the stack's) */
		sym[strcspn(sym, "\n")] = '\0';
		return found;
	}
	return symbolize_symbol(sz, mod->path, mod->build_id, off, sym, len);
}

void symbols_name_regions(struct symbolizer *sz, struct report *r)
{
	char sym[SYM_TEXT_MAX], text[SYM_TEXT_MAX + 256];

	for (size_t id = 0; id < r->nname_ids; id++) {
		const struct rf_origin *o = rep_origin(r, (uint32_t)id);
		int32_t m = o && o->addr ? rep_module_of(r, o->addr, rf_origin_gen(o)) : -1;
		const struct rep_module *mod = m >= 0 ? &r->modules[m] : NULL;

		if (!mod || !region_symbol(sz, o, mod, sym, sizeof(sym)))
			continue;
		snprintf(text, sizeof(text), "%.*s%s", (int)o->prefix, r->names[id], sym);
		r->names[id] = pool_strdup(&r->pool, text);
	}
}

/* Whether a frame's text ("function (file:line)") is in include/pmcshim.h. */
static bool in_marker_header(const char *frame)
{
	static const char header[] = "pmcshim.h:";
	const char *colon = strrchr(frame, ':'), *at;
	size_t n = sizeof(header) - 1, digits;

	/* "function (dir/pmcshim.h:123)": the file is the header itself */
	if (!colon || (size_t)(colon + 1 - frame) < n + 1)
		return false;
	at = colon + 1 - n;
	digits = strspn(colon + 1, "0123456789");
	return strncmp(at, header, n) == 0 && (at[-1] == '/' || at[-1] == '(') && digits > 0 &&
	       strcmp(colon + 1 + digits, ")") == 0;
}

size_t symbols_header_frames(const char *const *frames, size_t n)
{
	size_t k = 0;

	while (k + 1 < n && in_marker_header(frames[k]))
		k++;
	return k;
}
