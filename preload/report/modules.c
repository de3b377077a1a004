#include "modules.h"

#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "mapfile.h"

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

/* Modules already in the file, by mapped range. */
struct known {
	uintptr_t lo, hi, base;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct arena arena;
static struct known *known;
static int nknown, capknown;

static int is_known(uintptr_t lo, uintptr_t hi, uintptr_t base)
{
	for (int i = 0; i < nknown; i++)
		if (known[i].lo == lo && known[i].hi == hi && known[i].base == base)
			return 1;
	return 0;
}

static int remember(const struct module *m)
{
	if (nknown == capknown) {
		int cap = capknown ? capknown * 2 : 64;
		struct known *p = arena_alloc(&arena, (size_t)cap * sizeof(*p));
		if (!p)
			return -1;
		if (nknown)
			memcpy(p, known, (size_t)nknown * sizeof(*p));
		known = p;
		capknown = cap;
	}
	known[nknown++] = (struct known){ m->lo, m->hi, m->base };
	return 0;
}

static void record(const struct module *m)
{
	size_t len = strlen(m->path);
	struct rf_module *rec = mapfile_append(RF_MODULE, sizeof(*rec) + len + 1);

	if (!rec || remember(m) != 0)
		return;
	rec->id = (uint32_t)(nknown - 1);
	rec->base = m->base;
	rec->lo = m->lo;
	rec->hi = m->hi;
	snprintf(rec->build_id, sizeof(rec->build_id), "%s", m->build_id);
	memcpy(rec->path, m->path, len + 1);
	mapfile_publish(rec);
}

static int add_module(struct dl_phdr_info *info, size_t size, void *data)
{
	struct module m;

	(void)size;
	(void)data;
	memset(&m, 0, sizeof(m));
	m.base = info->dlpi_addr;
	m.lo = UINTPTR_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;
		if (start < m.lo)
			m.lo = start;
		if (start + ph->p_memsz > m.hi)
			m.hi = start + ph->p_memsz;
	}
	if (m.hi == 0 || is_known(m.lo, m.hi, m.base))
		return 0;
	set_path(info, &m);
	find_build_id(info, &m);
	record(&m);
	return 0;
}

static int covered(uintptr_t pc)
{
	for (int i = 0; i < nknown; i++)
		if (pc >= known[i].lo && pc < known[i].hi)
			return 1;
	return 0;
}

void modules_note(const uintptr_t *pcs, int n)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < n; i++)
		if (!covered(pcs[i])) {
			dl_iterate_phdr(add_module, NULL);
			break;
		}
	pthread_mutex_unlock(&lock);
}

void modules_lock(void)
{
	pthread_mutex_lock(&lock);
}

void modules_unlock(void)
{
	pthread_mutex_unlock(&lock);
}
