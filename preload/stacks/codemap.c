/* The table is replaced, never changed, when modules come and go: readers
 * take no lock. Replaced tables are kept on a list and never freed, since
 * another thread may still be searching one (a new table is built only
 * when a lookup misses and objects were loaded or unloaded since, or, for
 * codemap_constant, after a dlclose). After a dlclose the old table still
 * holds the unloaded object's ranges until the next miss: an address
 * there passes as code. The walk only compares a return address, never
 * reads it, so that cannot fault; the only code ever read is that of libc
 * and the vDSO, which stay. */
#include "codemap.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"

/* Objects that hold the signal return trampoline the kernel returns
 * through from a handler (glibc's __restore_rt on x86-64, the vDSO's
 * __kernel_rt_sigreturn on arm64). Only those loaded when codemap_init ran
 * count: they are never unloaded, so their code can be read. */
#define TRAMP_MAX 4
static uintptr_t tramp_lo[TRAMP_MAX];
static int ntramp;

#if defined(__x86_64__)
#define SIGRETURN_CODE 0x0f0000000fc0c748ull	/* mov $15, %rax; syscall */
#elif defined(__aarch64__)
#define SIGRETURN_CODE 0xd4000001d2801168ull	/* mov x8, #139; svc #0 */
#endif

struct table {
	struct table *older;		/* replaced tables, kept */
	unsigned long long adds, subs;	/* dl_iterate_phdr's counters when built */
	unsigned long stamp;		/* codemap_stamp() when last found current */
	size_t n;
	struct codemap_range r[];
};

static struct table *current;
static pthread_mutex_t rebuild_lock = PTHREAD_MUTEX_INITIALIZER;

struct collect {
	struct codemap_range *r;
	size_t n, cap;
	unsigned long long adds, subs;
	struct table *base;		/* the table current when it started */
	int first, unchanged;		/* unchanged: the objects are base's */
};

/* Memory from mmap, not malloc: a marker's walk may rebuild the table,
 * in a signal handler or inside the application's malloc. */
static size_t page_round(size_t bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (bytes + page - 1) / page * page;
}

static int add_range(struct collect *c, uintptr_t lo, uintptr_t hi, int flags)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct codemap_range *p = arena_pages(page_round(cap * sizeof(*p)));
		if (!p)
			return -1;
		if (c->r) {
			memcpy(p, c->r, c->n * sizeof(*p));
			arena_pages_free(c->r, page_round(c->cap * sizeof(*p)));
		}
		c->r = p;
		c->cap = cap;
	}
	c->r[c->n++] = (struct codemap_range){
		.lo = lo, .hi = hi, .exec = !!(flags & PF_X), .writable = !!(flags & PF_W)
	};
	return 0;
}

static int may_hold_sigreturn(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return strncmp(base, "libc.so", 7) == 0 || strncmp(base, "linux-vdso", 10) == 0;
}

/* codemap_init: the executable segments of the objects that may hold
 * the trampoline. */
static int learn_tramps(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *path = info->dlpi_name ? info->dlpi_name : "";

	(void)size;
	(void)data;
	for (int i = 0; i < info->dlpi_phnum && ntramp < TRAMP_MAX; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && may_hold_sigreturn(path))
			tramp_lo[ntramp++] = info->dlpi_addr + ph->p_vaddr;
	}
	return 0;
}

/* Whether the segment at lo can hold the trampoline. */
static int tramp_segment(uintptr_t lo)
{
	for (int i = 0; i < ntramp; i++)
		if (tramp_lo[i] == lo)
			return 1;
	return 0;
}

static int collect_one(struct dl_phdr_info *info, size_t size, void *data)
{
	struct collect *c = data;
	struct table *t = c->base;

	if (c->first) {
		c->first = 0;
		if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
			return 1;	/* no counters: cannot tell what changed */
		c->adds = info->dlpi_adds;
		c->subs = info->dlpi_subs;
		if (t && t->adds == c->adds && t->subs == c->subs) {
			c->unchanged = 1;
			return 1;
		}
	}
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (add_range(c, lo, lo + ph->p_memsz, ph->p_flags) != 0)
			return 1;
		if (ph->p_flags & PF_X)
			c->r[c->n - 1].tramp = tramp_segment(lo);
	}
	return 0;
}

/* Insertion sort, not qsort (which may malloc): tens of segments, each
 * object's already in order. */
static void sort_by_lo(struct codemap_range *r, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct codemap_range x = r[i];
		size_t j = i;

		for (; j > 0 && r[j - 1].lo > x.lo; j--)
			r[j] = r[j - 1];
		r[j] = x;
	}
}

/* Returns 1 when a new table was published. The objects are read
 * without the lock: an application's dl_iterate_phdr callback may mark a
 * region and get here holding the loader's lock, which a thread reading
 * them under ours would wait for. */
static int rebuild(void)
{
	unsigned long stamp = codemap_stamp();	/* before the objects */
	struct collect c = { .first = 1 };
	struct table *t, *cur;
	int published = 0;

	c.base = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
	dl_iterate_phdr(collect_one, &c);
	pthread_mutex_lock(&rebuild_lock);
	cur = current;
	if (cur && cur->adds == c.adds && cur->subs == c.subs) {
		/* the same objects: cur holds them as of stamp */
		if (stamp > cur->stamp)
			__atomic_store_n(&cur->stamp, stamp, __ATOMIC_RELEASE);
		goto out;
	}
	if (c.unchanged || c.n == 0)	/* (unchanged: from base, no longer current) */
		goto out;
	t = arena_pages(page_round(sizeof(*t) + c.n * sizeof(t->r[0])));
	if (!t)
		goto out;
	sort_by_lo(c.r, c.n);
	memcpy(t->r, c.r, c.n * sizeof(t->r[0]));
	t->n = c.n;
	t->adds = c.adds;
	t->subs = c.subs;
	t->stamp = stamp;
	t->older = cur;
	__atomic_store_n(&current, t, __ATOMIC_RELEASE);
	published = 1;
out:
	pthread_mutex_unlock(&rebuild_lock);
	if (c.r)
		arena_pages_free(c.r, page_round(c.cap * sizeof(c.r[0])));
	return published;
}

/* The range holding pc, or NULL. Binary search: a process maps tens of
 * segments. */
static const struct codemap_range *find(const struct table *t, uintptr_t pc)
{
	size_t lo = 0, hi = t ? t->n : 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (pc < t->r[mid].lo)
			hi = mid;
		else if (pc >= t->r[mid].hi)
			lo = mid + 1;
		else
			return &t->r[mid];
	}
	return NULL;
}

__thread struct codemap_range codemap_last;

/* The table itself is built at the first lookup (a process that walks no
 * stack never reads the module list). */
void codemap_init(void)
{
	if (ntramp == 0)
		dl_iterate_phdr(learn_tramps, NULL);
}

int codemap_is_sigreturn(uintptr_t pc, uintptr_t hi)
{
#ifdef SIGRETURN_CODE
	uint64_t code;

	if (pc > hi - sizeof(code))
		return 0;
	memcpy(&code, (const void *)pc, sizeof(code));
	return code == SIGRETURN_CODE;
#else
	(void)pc;
	(void)hi;
	return 0;
#endif
}

__thread int codemap_frozen;

/* The segment holding p; a miss re-reads the module list once (not while
 * frozen: a rebuild takes a lock the interrupted code may hold). */
static const struct codemap_range *lookup(uintptr_t p)
{
	const struct codemap_range *r = find(__atomic_load_n(&current, __ATOMIC_ACQUIRE), p);

	if (!r && !codemap_frozen && rebuild())
		r = find(__atomic_load_n(&current, __ATOMIC_ACQUIRE), p);
	return r;
}

int codemap_lookup(uintptr_t pc)
{
	const struct codemap_range *r = lookup(pc);

	if (!r || !r->exec)
		return 0;
	codemap_last = *r;
	return 1;
}

/* dlcloses under way: while one runs, its object's segments are in the
 * table but may be unmapped, and another object mapped there. */
static unsigned long unloading;

unsigned long codemap_constant(uintptr_t p, size_t len)
{
	unsigned long stamp = codemap_stamp();	/* before anything is looked at */
	const struct table *t = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
	const struct codemap_range *r;

	if (__atomic_load_n(&unloading, __ATOMIC_SEQ_CST))
		return 0;
	if (t && __atomic_load_n(&t->stamp, __ATOMIC_ACQUIRE) == stamp) {
		r = lookup(p);
	} else {
		/* after a dlclose the table may still hold the object's ranges */
		rebuild();
		t = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
		if (!t || __atomic_load_n(&t->stamp, __ATOMIC_ACQUIRE) < stamp)
			return 0;	/* no table as new (no memory) */
		r = find(t, p);
	}
	return r && !r->writable && len < r->hi - p ? stamp : 0;
}

int codemap_unloading(void)
{
	return __atomic_load_n(&unloading, __ATOMIC_SEQ_CST) != 0;
}

unsigned long codemap_unload_count;

static int (*real_dlclose)(void *);
static void (*unload_hook)(void);

void codemap_on_unload(void (*fn)(void))
{
	__atomic_store_n(&unload_hook, fn, __ATOMIC_RELEASE);
}

/* Counted as it starts and as it ends, so that a name found constant
 * before or during it is checked again (another object may be loaded at
 * its address), and nothing is found constant while it runs. */
__attribute__((visibility("default"))) int dlclose(void *handle)
{
	int (*real)(void *) = __atomic_load_n(&real_dlclose, __ATOMIC_RELAXED);
	void (*hook)(void);
	int ret;

	if (!real) {
		*(void **)&real = dlsym(RTLD_NEXT, "dlclose");
		__atomic_store_n(&real_dlclose, real, __ATOMIC_RELAXED);
	}
	__atomic_add_fetch(&unloading, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&codemap_unload_count, 1, __ATOMIC_SEQ_CST);
	ret = real ? real(handle) : -1;
	__atomic_add_fetch(&codemap_unload_count, 1, __ATOMIC_SEQ_CST);
	__atomic_sub_fetch(&unloading, 1, __ATOMIC_SEQ_CST);
	if (ret == 0 && (hook = __atomic_load_n(&unload_hook, __ATOMIC_ACQUIRE)))
		hook();
	return ret;
}
