/* Test target for the symbolizer: prints, for a few call sites, what a
 * pmcshim report would hold for them (module path, build-id, offset of the
 * return address from the module's load bias) and what the symbolizer
 * should say (function, source file, line), one tab-separated line each:
 *   site <label> <path> <build-id> <offset> <function> <file> <line> <func offset>
 * Built with -g -O0 so every call keeps its own line. */
#include "target.h"

#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct found {
	uintptr_t addr;
	uintptr_t base;
	char path[4096];
	char build_id[129];
};

static void hex(const unsigned char *p, size_t n, char *out, size_t outlen)
{
	size_t i;

	for (i = 0; i < n && 2 * i + 2 < outlen; i++)
		snprintf(out + 2 * i, 3, "%02x", p[i]);
	out[2 * i] = '\0';
}

static void note_build_id(const struct dl_phdr_info *info, const ElfW(Phdr) *ph,
			  struct found *f)
{
	const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
	const char *end = p + ph->p_memsz;

	while (p + sizeof(ElfW(Nhdr)) <= end) {
		const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
		const char *name = p + sizeof(*nh);
		const char *desc = name + ((nh->n_namesz + 3) & ~3u);

		if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
		    memcmp(name, "GNU", 4) == 0) {
			hex((const unsigned char *)desc, nh->n_descsz, f->build_id,
			    sizeof(f->build_id));
			return;
		}
		p = desc + ((nh->n_descsz + 3) & ~3u);
	}
}

/* The module holding f->addr, found the way the shim finds it. */
static int find_module(struct dl_phdr_info *info, size_t size, void *data)
{
	struct found *f = data;
	int inside = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && f->addr >= start && f->addr < start + ph->p_memsz)
			inside = 1;
	}
	if (!inside)
		return 0;
	f->base = info->dlpi_addr;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_NOTE)
			note_build_id(info, &info->dlpi_phdr[i], f);
	if (info->dlpi_name && info->dlpi_name[0]) {
		snprintf(f->path, sizeof(f->path), "%s", info->dlpi_name);
	} else {
		ssize_t n = readlink("/proc/self/exe", f->path, sizeof(f->path) - 1);
		f->path[n > 0 ? n : 0] = '\0';
	}
	return 1;
}

static void emit(const char *label, const struct site *s)
{
	struct found f = { .addr = (uintptr_t)s->ra };

	if (!dl_iterate_phdr(find_module, &f)) {
		printf("error\t%s\tno module\n", label);
		return;
	}
	printf("site\t%s\t%s\t%s\t0x%jx\t%s\t%s\t%d\t0x%jx\n", label, f.path,
	       f.build_id[0] ? f.build_id : "-", (uintmax_t)(f.addr - f.base),
	       s->func, s->file, s->line, (uintmax_t)((uintptr_t)s->func_addr - f.base));
}

static void *last_ra;

static __attribute__((noinline)) void *where(void)
{
	return __builtin_return_address(0);
}

/* Like where(), for a call that is a statement of its own: its return
 * address is the first instruction of the next line, so only a lookup at
 * offset - 1 names the line of the call. */
static __attribute__((noinline)) void mark(void)
{
	last_ra = __builtin_return_address(0);
}

/* Each call sits on the line recorded with it. */
static __attribute__((noinline)) void first_caller(struct site *s)
{
	s->ra = where(); s->line = __LINE__;
	s->func = __func__;
	s->file = __FILE__;
	s->func_addr = (void *)first_caller;
}

static __attribute__((noinline)) void second_caller(struct site *s)
{
	s->line = __LINE__ + 1;
	mark();
	s->ra = last_ra;
	s->func = __func__;
	s->file = __FILE__;
	s->func_addr = (void *)second_caller;
}

/* A call inlined into its caller, as a marker macro's inline function is
 * into the user's code: the symbolizer names both, the inlined function at
 * the call's line and the caller at the line of the inlined call
 * (always_inline: inlined at -O0 too). */
static __attribute__((always_inline)) inline void inlined_where(struct site *s)
{
	s->ra = where(); s->line = __LINE__;
	s->func = __func__;
}

static __attribute__((noinline)) void inlining_caller(struct site *s, struct site *by)
{
	inlined_where(s); by->line = __LINE__;
	s->file = by->file = __FILE__;
	s->func_addr = by->func_addr = (void *)inlining_caller;
	by->ra = s->ra;
	by->func = __func__;
}

int main(void)
{
	struct site s, by;

	first_caller(&s);
	emit("first", &s);
	second_caller(&s);
	emit("second", &s);
	target_lib_site(&s);
	emit("lib", &s);
	inlining_caller(&s, &by);
	emit("inlined", &s);
	emit("inlined-by", &by);
	return 0;
}
