/* Capture: the unwind-table walk (tablewalk.c) or the frame-pointer walk
 * (fpwalk.c) where they can prove the stack, libunwind otherwise. libunwind is loaded with dlopen(RTLD_LOCAL) rather
 * than linked: linked, libunwind.so.8 would sit in the global scope ahead
 * of libc, and its weak backtrace() would answer the application's own
 * backtrace() calls. */
#include "stacks.h"

#include <errno.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "codemap.h"
#include "base/fds.h"
#include "fpwalk.h"
#include "base/index.h"
#include "base/log.h"
#include "base/self.h"
#include "report/mapfile.h"
#include "report/modules.h"
#include "tablewalk.h"

static struct arena arena;

#define SKIP_MAX 16	/* shim frames above the caller, at most (-O1 builds: no tail calls) */

typedef int (*backtrace_fn)(void **buf, int size);

static backtrace_fn unw_backtrace_fn;
/* Shim frames seen above the caller (the markers' own call chain); each
 * frame asked of the unwinder costs ~6 ns, so ask for no more than these
 * plus one. Only grows. */
static int shim_frames = 1;
static uintptr_t shim_lo, shim_hi;	/* the shim's own mapped range */
static int method = STACKS_AUTO;	/* PMCSHIM_STACK_METHOD */
static int tables;			/* the table walk can be used here */
static __thread int last_method;	/* of this thread's last capture */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct index table;		/* of struct rf_stack *, keyed by their pcs */
static uint32_t count;

static void warm_up(void *arg)
{
	void *frames[4];

	(void)arg;
	unw_backtrace_fn(frames, 4);
}

static int load_libunwind(char *why, size_t whylen)
{
	void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);

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

/* libunwind: not tried, loaded, failed; loaded under unw_lock (held
 * across fork(), so that a child never finds it half loaded). */
enum { UNW_UNTRIED, UNW_LOADED, UNW_FAILED };
static int unw_state;
static pthread_mutex_t unw_lock = PTHREAD_MUTEX_INITIALIZER;

/* The first walk that needs libunwind loads it (a process whose walks
 * the tables serve never does); other threads wait for it. 0 when
 * libunwind is there. */
static int need_libunwind(void)
{
	int s = __atomic_load_n(&unw_state, __ATOMIC_ACQUIRE);
	char why[256];

	if (__builtin_expect(s != UNW_UNTRIED, 1))
		return s == UNW_LOADED ? 0 : -1;
	pthread_mutex_lock(&unw_lock);
	s = unw_state;
	if (s == UNW_UNTRIED) {
		s = load_libunwind(why, sizeof(why)) == 0 ? UNW_LOADED : UNW_FAILED;
		if (s == UNW_FAILED)
			log_notice("call-site stacks reduced to what the unwind tables give: %s",
				   why);
		__atomic_store_n(&unw_state, s, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&unw_lock);
	return s == UNW_LOADED ? 0 : -1;
}

int stacks_init(int how, char *why, size_t whylen)
{
	self_range(&shim_lo, &shim_hi);
	tables = tablewalk_init();
	method = how;
	if (method == STACKS_TABLES && !tables) {
		log_error("PMCSHIM_STACK_METHOD=tables: not on this machine; using auto");
		method = STACKS_AUTO;
	}
	fpwalk_init();	/* module table, which thread is the main one */
	if (method != STACKS_UNWIND)
		return 0;	/* libunwind when a walk first needs it, if ever */
	if (load_libunwind(why, whylen) != 0) {
		__atomic_store_n(&unw_state, UNW_FAILED, __ATOMIC_RELEASE);
		return -1;
	}
	__atomic_store_n(&unw_state, UNW_LOADED, __ATOMIC_RELEASE);
	return 0;
}

int stacks_last_method(void)
{
	return last_method;
}

static int in_shim(uintptr_t pc)
{
	return pc >= shim_lo && pc < shim_hi;
}

/* libunwind's trace on arm64 gives each frame's return address minus one
 * (the call instruction's last byte, for symbolizers); instructions are
 * 4 bytes there, so rounding up gives back the return address that the
 * call site and the frame-pointer walk report. */
static inline uintptr_t return_address(void *pc)
{
#if defined(__aarch64__)
	return ((uintptr_t)pc + 3) & ~(uintptr_t)3;
#else
	return (uintptr_t)pc;
#endif
}

static int unwind_capture(uintptr_t caller, int depth, uintptr_t *pcs)
{
	void *buf[STACKS_MAX_FRAMES + SKIP_MAX];
	struct codemap_range code;
	int got, skip = 0, n = 0;

	int extra = __atomic_load_n(&shim_frames, __ATOMIC_RELAXED) + 1;

	if (need_libunwind() != 0)
		return 1;
	got = unw_backtrace_fn(buf, depth + 1 + extra);
	while (skip < got && in_shim((uintptr_t)buf[skip]))
		skip++;
	if (skip > extra - 1 && skip < SKIP_MAX) {
		/* a longer path through the shim: learn it, unwind again */
		__atomic_store_n(&shim_frames, skip, __ATOMIC_RELAXED);
		return unwind_capture(caller, depth, pcs);
	}
	/* Trust the unwinder only if it agrees on the call site. */
	if (skip >= got || return_address(buf[skip]) != caller)
		return 1;
	pcs[n++] = caller;
	code = codemap_last;	/* a local copy, as the walks keep */
	for (int i = skip + 1; i < got && n <= depth; i++) {
		uintptr_t pc = return_address(buf[i]);

		/* The stack ends where a frame returns to no code, as the
		 * walks' do: garbage in a saved FP or return address, which
		 * the unwinder does not stop at. What it reads through that
		 * frame is garbage too, and depends on where it points: below
		 * the call site, into the shim's own live frames, whose words
		 * differ with the shim's path to this walk. */
		if (pc < code.lo || pc >= code.hi) {
			if (!codemap_lookup(pc))
				break;
			code = codemap_last;
		}
		pcs[n++] = pc;
	}
	return n;
}

/* The unwind tables where they prove every frame up to the depth asked
 * for or to the stack's end; frame pointers (without the tables) when
 * they give the whole stack asked for. libunwind when they cannot: a
 * frame without a rule of the tables' simple form, a frame in the shim
 * above the call site, a stack other than the thread's and its signal
 * stack (a coroutine's); a frame-pointer chain that breaks first (code built without frame
 * pointers, a frame pointer used as a general register, the stack's
 * bottom in libc's start code, which keeps none), since a short chain
 * cannot tell a short stack from a broken one. A frame-pointer chain
 * cannot tell either whether each frame kept a record: a leaf without one
 * hides its caller, which is why the tables come first. On arm64 a stack
 * the tables find garbage in is cut there, not left to libunwind, whose
 * arm64 trace reads through garbage unchecked and faults. */
int stacks_capture(uintptr_t start, uintptr_t caller, int depth, uintptr_t *pcs,
		   struct fpwalk_trail *trail)
{
	int n, saved, end;

	pcs[0] = caller;
	trail->n = 0;
	trail->words = 0;
	last_method = STACKS_NONE;
	if (depth == 0)
		return 1;
	if (tables && (method == STACKS_AUTO || method == STACKS_TABLES)) {
		n = tablewalk_capture(start, caller, depth, pcs, shim_lo, shim_hi, trail, &end);
		if (end != TABLEWALK_UNPROVED || method == STACKS_TABLES) {
			last_method = STACKS_TABLES;
			if (end != TABLEWALK_WHOLE)
				trail->n = 0;	/* a stop is not replayed: walk again */
			return n ? n : 1;
		}
		trail->n = 0;
		pcs[0] = caller;
	} else if (method != STACKS_UNWIND) {
		n = fpwalk_capture(start, caller, depth, pcs, shim_lo, shim_hi, trail);
		if (n == depth + 1 || method == STACKS_FP) {
			last_method = STACKS_FP;
			return n ? n : 1;
		}
		trail->n = 0;	/* the stack is libunwind's */
		pcs[0] = caller;
	}
	saved = errno;		/* libunwind may probe memory with syscalls */
	n = unwind_capture(caller, depth, pcs);
	errno = saved;
	last_method = n > 1 ? STACKS_UNWIND : STACKS_NONE;
	return n;
}

/* A stack's key: its pcs, then its load generation (the record holds
 * the same words: rf_stack_gen). */
static int same_pcs(const void *item, const void *key, size_t len)
{
	const struct rf_stack *rec = item;

	return (rec->nframes + 1u) * sizeof(rec->pc[0]) == len && memcmp(rec->pc, key, len) == 0;
}

/* A new stack: its record, pcs and generation (key, n + 1 words). */
static struct rf_stack *add(const uintptr_t *key, int n, int method, uint64_t hash)
{
	struct rf_stack *rec;

	if (index_reserve(&table, &arena) != 0)
		return NULL;
	rec = mapfile_append(RF_STACK, sizeof(*rec) + ((size_t)n + 1) * sizeof(rec->pc[0]));
	if (!rec)
		return NULL;
	rec->id = count++;
	rec->nframes = (uint16_t)n;
	rec->method = (uint16_t)method;
	for (int i = 0; i <= n; i++)
		rec->pc[i] = key[i];
	mapfile_publish(rec);
	index_add(&table, &arena, hash, rec);	/* reserved: cannot fail */
	return rec;
}

/* The same pcs in a module loaded where an unloaded one was are another
 * stack: the key holds the generation of the modules the pcs are in
 * (modules_note), so that the reader names them after the right one. */
uint32_t stacks_intern(const uintptr_t *pcs, int n, int method)
{
	uintptr_t key[STACKS_MAX_FRAMES + 1];
	size_t len = ((size_t)n + 1) * sizeof(uintptr_t);
	const struct rf_stack *rec;
	uint64_t hash;

	if (n > STACKS_MAX_FRAMES)
		n = STACKS_MAX_FRAMES, len = sizeof(key);
	memcpy(key, pcs, (size_t)n * sizeof(uintptr_t));
	pthread_mutex_lock(&lock);
	key[n] = modules_note(pcs, n);
	hash = index_hash(key, len);
	rec = index_find(&table, hash, key, len, same_pcs);
	if (!rec)
		rec = add(key, n, method, hash);
	pthread_mutex_unlock(&lock);
	return rec ? rec->id : UINT32_MAX;
}

void stacks_lock(void)
{
	pthread_mutex_lock(&unw_lock);
	pthread_mutex_lock(&lock);
}

void stacks_unlock(void)
{
	pthread_mutex_unlock(&lock);
	pthread_mutex_unlock(&unw_lock);
}
