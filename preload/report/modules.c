#include "modules.h"

#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>
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

/* Modules already in the file: their range, and what tells a module
 * loaded in the same range apart (a hash of its path and build id). A
 * module found missing by a scan is dead: never matched again, so that
 * one loaded later in its range (even the same file) gets a record of a
 * later generation. */
struct known {
	uintptr_t lo, hi, base;
	uint64_t ident;
	uint32_t gen;			/* rf_module.gen */
	uint32_t seen;			/* the last scan that found it */
	int dead;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct arena arena;
static struct known *known;
static int nknown, capknown;
static uint32_t scans;			/* scans made: known[].seen */
static uint32_t scanned_gen = UINT32_MAX;	/* the generation of the last scan */

/* A scan of the loaded modules. */
struct scan {
	uint32_t gen;			/* the loader's unloads (dlpi_subs) */
	int started;
};

/* The loader's count of objects unloaded, as the first callback of a
 * dl_iterate_phdr sees it (under the loader's lock: an object unloaded
 * before is counted, one loaded in its place is mapped after). 0 where
 * the loader has no such count. */
static uint32_t unloads_of(const struct dl_phdr_info *info, size_t size)
{
	if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
		return 0;
	return (uint32_t)info->dlpi_subs;
}

static int read_unloads(struct dl_phdr_info *info, size_t size, void *data)
{
	*(uint32_t *)data = unloads_of(info, size);
	return 1;
}

/* The load generation now. */
static uint32_t generation(void)
{
	uint32_t gen = 0;

	dl_iterate_phdr(read_unloads, &gen);
	return gen;
}

static uint64_t ident_of(const struct module *m)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	for (const char *p = m->path; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	h = (h ^ '/') * 0x100000001b3ull;
	for (const char *p = m->build_id; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	return h;
}

static struct known *find_known(const struct known *k)
{
	for (int i = 0; i < nknown; i++)
		if (!known[i].dead && known[i].lo == k->lo && known[i].hi == k->hi &&
		    known[i].base == k->base && known[i].ident == k->ident)
			return &known[i];
	return NULL;
}

static int remember(const struct known *k)
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
	known[nknown++] = *k;
	return 0;
}

static void record(const struct module *m, const struct known *k)
{
	size_t len = strlen(m->path);
	struct rf_module *rec = mapfile_append(RF_MODULE, sizeof(*rec) + len + 1);

	if (!rec || remember(k) != 0)
		return;
	rec->id = (uint32_t)(nknown - 1);
	rec->gen = k->gen;
	rec->base = m->base;
	rec->lo = m->lo;
	rec->hi = m->hi;
	snprintf(rec->build_id, sizeof(rec->build_id), "%s", m->build_id);
	memcpy(rec->path, m->path, len + 1);
	mapfile_publish(rec);
}

static void set_range(const struct dl_phdr_info *info, struct module *m)
{
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
}

static int add_module(struct dl_phdr_info *info, size_t size, void *data)
{
	struct scan *sc = data;
	struct module m;
	struct known k, *old;

	if (!sc->started) {
		sc->started = 1;
		sc->gen = unloads_of(info, size);
	}
	memset(&m, 0, sizeof(m));
	set_range(info, &m);
	if (m.hi == 0)
		return 0;
	set_path(info, &m);
	find_build_id(info, &m);
	k = (struct known){ m.lo, m.hi, m.base, ident_of(&m), sc->gen, scans, 0 };
	if ((old = find_known(&k)))
		old->seen = scans;
	else
		record(&m, &k);
	return 0;
}

/* Every module loaded now: those not in the file are recorded, those
 * gone are dead. */
static void scan(void)
{
	struct scan sc = { 0, 0 };

	scans++;
	dl_iterate_phdr(add_module, &sc);
	for (int i = 0; i < nknown; i++)
		if (known[i].seen != scans)
			known[i].dead = 1;
	scanned_gen = sc.gen;
}

/* The live module holding pc, or NULL. */
static const struct known *holding(uintptr_t pc)
{
	for (int i = 0; i < nknown; i++)
		if (!known[i].dead && pc >= known[i].lo && pc < known[i].hi)
			return &known[i];
	return NULL;
}

/* Scanned again after a dlclose (a module may have been loaded where an
 * unloaded one was: the same range, another module) and when a pc is in
 * no module known. */
uint32_t modules_note(const uintptr_t *pcs, int n)
{
	uint32_t gen = 0;
	const struct known *k;

	pthread_mutex_lock(&lock);
	int fresh = scanned_gen == generation();
	for (int i = 0; i < n && fresh; i++)
		fresh = holding(pcs[i]) != NULL;
	if (!fresh)
		scan();
	for (int i = 0; i < n; i++)
		if ((k = holding(pcs[i])) && k->gen > gen)
			gen = k->gen;
	pthread_mutex_unlock(&lock);
	return gen;
}

void modules_lock(void)
{
	pthread_mutex_lock(&lock);
}

void modules_unlock(void)
{
	pthread_mutex_unlock(&lock);
}
