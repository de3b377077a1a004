#include "modules.h"

#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct collect {
	struct module *m;
	int n, cap;
};

static void hex(const unsigned char *p, size_t n, char *out, size_t outlen)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n && 2 * i + 2 < outlen; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * i] = '\0';
}

static void find_build_id(const struct dl_phdr_info *info, struct module *m)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			const char *name = p + sizeof(*nh);
			const char *desc = name + ((nh->n_namesz + 3) & ~3u);
			if (desc + nh->n_descsz > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0) {
				hex((const unsigned char *)desc, nh->n_descsz,
				    m->build_id, sizeof(m->build_id));
				return;
			}
			p = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
}

static void set_path(const struct dl_phdr_info *info, struct module *m)
{
	ssize_t n;

	if (info->dlpi_name && info->dlpi_name[0]) {
		strncpy(m->path, info->dlpi_name, sizeof(m->path) - 1);
		return;
	}
	n = readlink("/proc/self/exe", m->path, sizeof(m->path) - 1);
	m->path[n > 0 ? n : 0] = '\0';
}

static int add_module(struct dl_phdr_info *info, size_t size, void *data)
{
	struct collect *c = data;
	struct module *m;

	(void)size;
	if (c->n == c->cap) {
		int cap = c->cap ? c->cap * 2 : 32;
		struct module *p = realloc(c->m, (size_t)cap * sizeof(*p));
		if (!p)
			return 1;
		c->m = p;
		c->cap = cap;
	}
	m = &c->m[c->n];
	memset(m, 0, sizeof(*m));
	m->base = info->dlpi_addr;
	m->lo = UINTPTR_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;
		if (start < m->lo)
			m->lo = start;
		if (start + ph->p_memsz > m->hi)
			m->hi = start + ph->p_memsz;
	}
	if (m->hi == 0)
		return 0;
	set_path(info, m);
	find_build_id(info, m);
	c->n++;
	return 0;
}

int modules_collect(struct module **out)
{
	struct collect c = { 0 };

	dl_iterate_phdr(add_module, &c);
	*out = c.m;
	return c.n;
}

int modules_find(const struct module *m, int n, uintptr_t addr)
{
	for (int i = 0; i < n; i++)
		if (addr >= m[i].lo && addr < m[i].hi)
			return i;
	return -1;
}
