/* Whether the process runs code built with -finstrument-functions, asked
 * once at setup, before the first thread opens its counters: an event
 * that counts only through read() (task-clock) would make every call of
 * every function two system calls (a script 770 times slower on a VM), so
 * in such a process it is counted per thread, never per call. Code built
 * so imports __cyg_profile_func_enter: a relocation of some loaded object
 * names it, undefined there. (An object dlopen()ed later is not looked
 * at: its functions then read the event per call, as the markers do, and
 * functions.c says what that costs at the first one.) */
#include "functions.h"

#include <link.h>
#include <string.h>

#include "base/log.h"
#include "lifecycle/hooks.h"
#include "settings/config.h"

#define HOOK "__cyg_profile_func_enter"
#if __ELF_NATIVE_CLASS == 64
#define R_SYM(info) ELF64_R_SYM(info)
#else
#define R_SYM(info) ELF32_R_SYM(info)
#endif

/* A relocation table of an object: entries of entsize bytes, r_info at
 * the same place in Rel and Rela. */
struct relocs {
	const unsigned char *at;
	size_t size, entsize;
};

struct dynamic {
	const ElfW(Sym) *sym;
	const char *str;
	size_t strsz;
	struct relocs rel[3];		/* DT_JMPREL, DT_RELA, DT_REL */
	int plt_rela;			/* DT_PLTREL: DT_RELA (else DT_REL) */
};

/* glibc has turned most objects' addresses into absolute ones; the vDSO's
 * stay relative to its base. */
static const void *address(const struct dl_phdr_info *info, ElfW(Addr) p)
{
	return (const void *)(p < info->dlpi_addr ? p + info->dlpi_addr : p);
}

static void read_dynamic(const struct dl_phdr_info *info, const ElfW(Dyn) *d, struct dynamic *out)
{
	memset(out, 0, sizeof(*out));
	for (; d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_SYMTAB: out->sym = address(info, d->d_un.d_ptr); break;
		case DT_STRTAB: out->str = address(info, d->d_un.d_ptr); break;
		case DT_STRSZ: out->strsz = d->d_un.d_val; break;
		case DT_JMPREL: out->rel[0].at = address(info, d->d_un.d_ptr); break;
		case DT_PLTRELSZ: out->rel[0].size = d->d_un.d_val; break;
		case DT_PLTREL: out->plt_rela = d->d_un.d_val == DT_RELA; break;
		case DT_RELA: out->rel[1].at = address(info, d->d_un.d_ptr); break;
		case DT_RELASZ: out->rel[1].size = d->d_un.d_val; break;
		case DT_REL: out->rel[2].at = address(info, d->d_un.d_ptr); break;
		case DT_RELSZ: out->rel[2].size = d->d_un.d_val; break;
		default: break;
		}
	}
	out->rel[0].entsize = out->plt_rela ? sizeof(ElfW(Rela)) : sizeof(ElfW(Rel));
	out->rel[1].entsize = sizeof(ElfW(Rela));
	out->rel[2].entsize = sizeof(ElfW(Rel));
}

/* Whether a relocation of t names the hook, undefined in its object. */
static int names_hook(const struct dynamic *dy, const struct relocs *t)
{
	for (size_t at = 0; t->at && at + t->entsize <= t->size; at += t->entsize) {
		const ElfW(Rel) *r = (const void *)(t->at + at);
		size_t s = R_SYM(r->r_info);
		const ElfW(Sym) *sym;

		if (!s)
			continue;
		sym = &dy->sym[s];
		if (sym->st_shndx == SHN_UNDEF && sym->st_name < dy->strsz &&
		    !strncmp(dy->str + sym->st_name, HOOK, dy->strsz - sym->st_name))
			return 1;
	}
	return 0;
}

static int imports_hook(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct dynamic dy;

	(void)size;
	(void)arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
			continue;
		read_dynamic(info, address(info, info->dlpi_phdr[i].p_vaddr), &dy);
		if (!dy.sym || !dy.str)
			return 0;
		for (int k = 0; k < 3; k++)
			if (names_hook(&dy, &dy.rel[k]))
				return 1;
		return 0;
	}
	return 0;
}

int functions_instrumented(void)
{
	return dl_iterate_phdr(imports_hook, NULL) == 1;
}

static uint32_t functions_per_thread(const struct config *c)
{
	uint32_t mask = config_read_only(&c->events) & ~c->per_thread;
	char names[400];

	if (!mask || !functions_instrumented())
		return 0;
	events_names(&c->events, mask, names, sizeof(names));
	if (!c->quiet)
		log_notice("-finstrument-functions: %s counted per thread, not per call or region "
			   "(read() only: two system calls a call) (PMCSHIM_QUIET=1 hides this line)",
			   names);
	return mask;
}

/* Before the shim's own constructor (which sets up the main thread's
 * counters; the default priority): the hooks' other entries (functions.c)
 * come after it, this one must be there when the first thread opens. */
__attribute__((constructor(102))) static void funcuse_register(void)
{
	static const struct shim_hooks hooks = { .per_thread = functions_per_thread };

	hooks_register(&hooks);
}
