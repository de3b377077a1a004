/* libunwind is loaded with dlopen(RTLD_LOCAL) rather than linked: linked,
 * libunwind.so.8 would sit in the global scope ahead of libc, and its weak
 * backtrace() would answer the application's own backtrace() calls. */
#include "stacks.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "fds.h"
#include "mapfile.h"
#include "modules.h"

static struct arena arena;
static int oom;			/* uthash could not add (out of memory) */
#define HASH_ARENA (&arena)
#define HASH_OOM oom
#include "arena_hash.h"

#define SKIP_MAX 6	/* shim frames above the caller, at most */

typedef int (*backtrace_fn)(void **buf, int size);

struct stack {
	UT_hash_handle hh;
	const struct rf_stack *rec;	/* the key is its pcs */
};

static backtrace_fn unw_backtrace_fn;
/* Shim frames seen above the caller (the markers' own call chain); each
 * frame asked of the unwinder costs ~6 ns, so ask for no more than these
 * plus one. Only grows. */
static int shim_frames = 1;
static uintptr_t shim_lo, shim_hi;	/* the shim's own mapped range */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct stack *table;
static uint32_t count;

static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t self = (uintptr_t)data;
	uintptr_t lo = UINTPTR_MAX, hi = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;
		if (start < lo)
			lo = start;
		if (start + ph->p_memsz > hi)
			hi = start + ph->p_memsz;
	}
	if (self < lo || self >= hi)
		return 0;
	shim_lo = lo;
	shim_hi = hi;
	return 1;
}

static void warm_up(void *arg)
{
	void *frames[4];

	(void)arg;
	unw_backtrace_fn(frames, 4);
}

int stacks_init(char *why, size_t whylen)
{
	void *h;

	dl_iterate_phdr(find_self, (void *)(uintptr_t)&stacks_init);
	h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, whylen, "libunwind.so.8: %s", dlerror());
		return -1;
	}
	*(void **)&unw_backtrace_fn = dlsym(h, "unw_backtrace");
	if (!unw_backtrace_fn) {
		snprintf(why, whylen, "libunwind.so.8 has no unw_backtrace");
		return -1;
	}
	/* The first unwind costs ~1 ms (it reads unwind tables) and opens
	 * libunwind's address-validation pipe: do it now, with the pipe kept
	 * out of the application's descriptor numbers. */
	fds_with_low_reserved(warm_up, NULL);
	return 0;
}

static int in_shim(uintptr_t pc)
{
	return pc >= shim_lo && pc < shim_hi;
}

static __thread int last_method;

int stacks_last_method(void)
{
	return last_method;
}

int stacks_capture(uintptr_t caller, int depth, uintptr_t *pcs)
{
	void *buf[STACKS_MAX_FRAMES + SKIP_MAX];
	int got, skip = 0, n = 0;

	int extra = __atomic_load_n(&shim_frames, __ATOMIC_RELAXED) + 1;

	pcs[0] = caller;
	last_method = RF_STACK_CALLER;
	if (depth == 0 || !unw_backtrace_fn)
		return 1;
	got = unw_backtrace_fn(buf, depth + 1 + extra);
	while (skip < got && in_shim((uintptr_t)buf[skip]))
		skip++;
	if (skip > extra - 1 && skip < SKIP_MAX) {
		/* a longer path through the shim: learn it, unwind again */
		__atomic_store_n(&shim_frames, skip, __ATOMIC_RELAXED);
		return stacks_capture(caller, depth, pcs);
	}
	/* Trust the unwinder only if it agrees on the call site. */
	if (skip >= got || (uintptr_t)buf[skip] != caller)
		return 1;
	for (int i = skip; i < got && n <= depth; i++)
		pcs[n++] = (uintptr_t)buf[i];
	last_method = RF_STACK_UNWIND;
	return n;
}

/* A new stack: its record, and the modules its frames are in. */
static struct stack *add(const uintptr_t *pcs, int n, int method)
{
	struct stack *s = arena_alloc(&arena, sizeof(*s));
	struct rf_stack *rec;

	if (!s)
		return NULL;
	modules_note(pcs, n);
	rec = mapfile_append(RF_STACK, sizeof(*rec) + (size_t)n * sizeof(rec->pc[0]));
	if (!rec)
		return NULL;
	rec->id = count++;
	rec->nframes = (uint16_t)n;
	rec->method = (uint16_t)method;
	for (int i = 0; i < n; i++)
		rec->pc[i] = pcs[i];
	mapfile_publish(rec);
	s->rec = rec;
	oom = 0;
	HASH_ADD_KEYPTR(hh, table, rec->pc, (size_t)n * sizeof(rec->pc[0]), s);
	return oom ? NULL : s;
}

uint32_t stacks_intern(const uintptr_t *pcs, int n, int method)
{
	size_t len = (size_t)n * sizeof(uintptr_t);
	struct stack *s;

	pthread_mutex_lock(&lock);
	HASH_FIND(hh, table, pcs, len, s);
	if (!s)
		s = add(pcs, n, method);
	pthread_mutex_unlock(&lock);
	return s ? s->rec->id : UINT32_MAX;
}

void stacks_lock(void)
{
	pthread_mutex_lock(&lock);
}

void stacks_unlock(void)
{
	pthread_mutex_unlock(&lock);
}
