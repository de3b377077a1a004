/* Functions from the compiler: a program built with -finstrument-functions
 * calls __cyg_profile_func_enter/exit around each of its functions (the
 * shim exports both), and each function becomes a region keyed by its
 * address (names_intern_addr),
 * which the reader names from the symbols. The warm path is one look-up
 * in a table every thread shares, read without a lock: a slot is filled
 * once, under the lock, and never changed. PMCSHIM_FUNCTIONS chooses the
 * functions by name: a module's symbol table is read once, at the first
 * function met in it, never per call. The shim is built without
 * -finstrument-functions, and so are the libraries it calls: nothing here
 * calls back into these hooks. */

#include "base/cold.h"
#include "settings/funcspec.h"
#include "functions.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/arch.h"
#include "base/arena.h"
#include "base/clock.h"
#include "regions/counted.h"
#include "regions/entry.h"
#include "regions/guard.h"
#include "base/log.h"
#include "report/mapfile.h"
#include "report/modules.h"
#include "stacks/cfi.h"
#include "stacks/codemap.h"
#include "stacks/fpwalk.h"
#include "regions/names.h"
#include "lifecycle/hooks.h"
#include "lifecycle/shim.h"

#define EXPORT __attribute__((visibility("default")))
#define unlikely(x) __builtin_expect(!!(x), 0)

#define SLOTS (1u << 16)		/* functions met, per process */
#define PROBES 64
#define UNSEEN UINT32_MAX		/* a function not met yet */
#define MODULES_MAX 256

struct slot {
	uintptr_t fn;			/* 0: empty; set last (release) */
	uint32_t id;			/* 0: not recorded */
};

/* Functions met: their region, or 0. */
static struct slot *table;
/* With a filter: the chosen functions' addresses in the modules read. */
static struct slot *chosen;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned used, nchosen;
static int full_said;

/* PMCSHIM_FUNCTIONS, parsed (checked by config.c before). */
COLD struct funcspec functions_filter;

/* PMCSHIM_FUNCTIONS=sampled: calls counted, no clock read; their time
 * comes from the sampler (regions/counted.h). */
static int counted_only;

/* min= in ticks, once a function is met (0: no folding). */
static uint64_t fold_ticks;

/* Modules whose symbols were read (by their link map). */
COLD const void *functions_read_modules[MODULES_MAX];
static int nread;

static inline uint32_t first_slot(uintptr_t fn)
{
	return (uint32_t)(((uint64_t)fn * UINT64_C(0x9E3779B97F4A7C15)) >> 48) & (SLOTS - 1);
}

/* The slot of fn in t: its own, or the empty one where it would go; NULL
 * when the run of slots to look at is full. */
static inline struct slot *slot_of(struct slot *t, uintptr_t fn)
{
	uint32_t i = first_slot(fn);

	for (int n = 0; n < PROBES; n++, i = (i + 1) & (SLOTS - 1)) {
		uintptr_t f = __atomic_load_n(&t[i].fn, __ATOMIC_ACQUIRE);

		if (f == fn || !f)
			return &t[i];
	}
	return NULL;
}

/* fn's region: 0 when it is not recorded, UNSEEN when not met yet. */
static inline uint32_t known(uintptr_t fn)
{
	struct slot *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
	struct slot *s = t ? slot_of(t, fn) : NULL;

	if (s && __atomic_load_n(&s->fn, __ATOMIC_RELAXED) == fn)
		return s->id;
	return s || !t ? UNSEEN : 0;
}

/* min= in ticks: the tick rate against CLOCK_MONOTONIC since the process
 * started (at least 2 ms of it: waited for here, once). */
static void set_fold_ticks(void)
{
	uint64_t ns = clock_mono_ns() - clock_start_mono_ns(), ticks;
	struct timespec ts = { 0, 2000000 };

	if (ns < 2000000) {
		nanosleep(&ts, NULL);
		ns = clock_mono_ns() - clock_start_mono_ns();
	}
	ticks = arch_ticks() - clock_start_ticks();
	__atomic_store_n(&fold_ticks, (uint64_t)((double)functions_filter.min_ns * ticks / ns) + 1,
			 __ATOMIC_RELEASE);
}

static void choose(uintptr_t addr)
{
	struct slot *s = slot_of(chosen, addr);

	if (s && !s->fn) {
		s->fn = addr;
		nchosen++;
	}
}

/* The chosen functions of one ELF image (the symbol table, else the
 * dynamic one), at load bias `bias`. */
static void choose_in_image(const unsigned char *img, size_t size, uintptr_t bias)
{
	const ElfW(Ehdr) *eh = (const void *)img;
	const ElfW(Shdr) *sh, *tab = NULL;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(*sh) > size)
		return;
	sh = (const void *)(img + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB || (sh[i].sh_type == SHT_DYNSYM && !tab))
			tab = &sh[i];
	if (!tab || tab->sh_link >= eh->e_shnum || tab->sh_offset + tab->sh_size > size ||
	    sh[tab->sh_link].sh_offset + sh[tab->sh_link].sh_size > size)
		return;
	const ElfW(Sym) *sym = (const void *)(img + tab->sh_offset);
	const char *str = (const char *)img + sh[tab->sh_link].sh_offset;
	size_t nsym = tab->sh_size / sizeof(*sym), strsize = sh[tab->sh_link].sh_size;

	for (size_t i = 0; i < nsym; i++) {
		int type = ELF64_ST_TYPE(sym[i].st_info);

		if ((type == STT_FUNC || type == STT_GNU_IFUNC) && sym[i].st_shndx != SHN_UNDEF &&
		    sym[i].st_value && sym[i].st_name < strsize &&
		    memchr(str + sym[i].st_name, 0, strsize - sym[i].st_name) &&
		    funcspec_chooses(&functions_filter, str + sym[i].st_name))
			choose(bias + sym[i].st_value);
	}
}

static void choose_in_file(const char *path, uintptr_t bias)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *img;

	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && st.st_size > 0 &&
	    (img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) != MAP_FAILED) {
		choose_in_image(img, (size_t)st.st_size, bias);
		munmap(img, (size_t)st.st_size);
	}
	close(fd);
}

/* Whether PMCSHIM_FUNCTIONS chose fn: its module's symbols are read the
 * first time one of its functions is met. */
static int chosen_fn(uintptr_t fn)
{
	struct link_map *lm = NULL;
	Dl_info info;
	struct slot *s;
	int i;

	if (!chosen && !(chosen = arena_pages(SLOTS * sizeof(*chosen))))
		return 0;
	if (!dladdr1((void *)fn, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return 0;
	for (i = 0; i < nread && functions_read_modules[i] != lm; i++)
		;
	if (i == nread && nread < MODULES_MAX) {
		functions_read_modules[nread++] = lm;
		choose_in_file(lm->l_name && lm->l_name[0] ? lm->l_name : "/proc/self/exe",
			       lm->l_addr);
	}
	s = slot_of(chosen, fn);
	return s && s->fn == fn;
}

/* --- functions met -------------------------------------------------- */

static uint32_t region_of(uintptr_t fn)
{
	uint32_t id;

	if (functions_filter.on && !chosen_fn(fn))
		return 0;
	/* a dlopen()ed module: recorded for the reader */
	id = names_intern_addr("", fn, RF_FROM_FUNCTIONS, RF_ADDR_ENTRY, modules_note(&fn, 1));
	return id;
}

/* (functions.h) */
int functions_seed(uintptr_t fn, uint32_t id)
{
	struct slot *s = NULL;

	pthread_mutex_lock(&lock);
	if (!table)
		__atomic_store_n(&table, arena_pages(SLOTS * sizeof(*table)), __ATOMIC_RELEASE);
	if (table && (s = slot_of(table, fn)) && !s->fn) {	/* (not counted: the shim's) */
		s->id = id;
		__atomic_store_n(&s->fn, fn, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&lock);
	return s && s->fn == fn;
}

/* Once per process, at the first function met: events read through
 * read() (no user-space read: software events, a VM) make every call of
 * every function two system calls; said before the program's functions
 * run, so that a slow run is not a surprise. */
static void say_read_cost(const struct thread_state *t)
{
	static int said;

	if (!t || !t->ctr.nopen || !t->ctr.slow || __atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		return;
	log_notice("-finstrument-functions with events read through read() (%d open): every "
		   "function call makes two system calls (1-2 us each on a VM); "
		   "PMCSHIM_EVENTS=none counts wall time at ~20 ns a call", t->ctr.nopen);
}

/* The first call of fn (any thread): its region, made once. */
static __attribute__((noinline)) uint32_t first_call(uintptr_t fn)
{
	int saved = errno;
	uint32_t id = 0;
	struct slot *s = NULL;

	if (!counted_only) {	/* (nothing read per call to calibrate) */
		functions_calibrate();	/* once, before the first function is begun */
		say_read_cost(shim_thread());
	}
	if (!guard_enter())
		return 0;
	names_before_first();	/* not under the lock: it runs markers */
	pthread_mutex_lock(&lock);
	if (functions_filter.min_ns && !fold_ticks)
		set_fold_ticks();
	if (!table)
		__atomic_store_n(&table, arena_pages(SLOTS * sizeof(*table)), __ATOMIC_RELEASE);
	if (table && (s = slot_of(table, fn)) && s->fn == fn) {
		id = s->id;
	} else if (s) {
		/* past the limit a function is kept unrecorded (id 0), so that
		 * its next calls take no lock either */
		if (used < SLOTS / 2)
			id = region_of(fn), used++;
		else
			mapfile_drop(RF_DROP_FUNCTIONS);
		s->id = id;
		__atomic_store_n(&s->fn, fn, __ATOMIC_RELEASE);
	}
	if (table && !id && used >= SLOTS / 2 && !full_said) {
		full_said = 1;
		log_error("more than %u instrumented functions met: the others are not recorded "
			  "(the report counts them)", used);
	}
	pthread_mutex_unlock(&lock);
	guard_leave();
	errno = saved;
	return id;
}

/* --- frames abandoned --------------------------------------------- */

/* Where a hook was called from: its return address, and the stack and
 * frame pointers at the call, read in the exported hook itself (the
 * helpers below may run in a frame of their own). */
struct hook_call {
	uintptr_t ra, sp;
	const uintptr_t *fp;
};

#define HOOK_CALL() ((struct hook_call){ arch_return_address(), \
	(uintptr_t)__builtin_dwarf_cfa(), (const uintptr_t *)__builtin_frame_address(0) })

/* The unwind rules of the places the hooks were called from, by return
 * address, so that the rule is looked up (cfi_rule: ~90 instructions) once
 * per place, not at every call: direct-mapped, each entry one word with
 * the return address in its high 48 bits, then whether the CFA is
 * FP-based and its offset (0 .. 32767 bytes), read and written whole by
 * any thread (0: empty). A place is a function's prologue, or a copy of
 * it inlined (GCC inlines a recursive function into itself): the places
 * are more than the functions. Rules of another kind or offset, and
 * addresses past 48 bits, are not kept. Emptied at an unload (functions_
 * unloaded): the code at an address may change. */
#define RULES 4096
#define RULE_FP (UINT64_C(1) << 15)
#define RULE_OFF_MAX 0x7fff

static uint64_t rules[RULES];

static inline uint64_t *rule_entry(uintptr_t ra)
{
	return &rules[(ra ^ (ra >> 12)) & (RULES - 1)];
}

static uint64_t rule_pack(uintptr_t ra, const struct cfi_rule *r)
{
	if (r->kind != CFI_STEP || r->cfa_off < 0 || r->cfa_off > RULE_OFF_MAX ||
	    (uint64_t)ra >> 48)
		return 0;
	return (uint64_t)ra << 16 | (r->cfa_fp ? RULE_FP : 0) | (uint64_t)r->cfa_off;
}

/* The canonical frame address of the machine frame that called a hook,
 * from its unwind rule; 0 where there is none. */
static inline uintptr_t frame_cfa(const struct hook_call *c)
{
	uint64_t *e = rule_entry(c->ra), w = __atomic_load_n(e, __ATOMIC_RELAXED);
	struct cfi_rule r;

	if (unlikely(w >> 16 != c->ra)) {
		r = cfi_rule(c->ra);
		if (r.kind != CFI_STEP)
			return 0;
		w = rule_pack(c->ra, &r);
		if (!w)	/* [hook fp]: caller's fp */
			return (uintptr_t)((r.cfa_fp ? *c->fp : c->sp) + r.cfa_off);
		__atomic_store_n(e, w, __ATOMIC_RELAXED);
	}
	return ((w & RULE_FP) ? *c->fp : c->sp) + (uintptr_t)(w & RULE_OFF_MAX);
}

/* Open frames abandoned before function p began are closed, where the
 * hook and they run on the thread's own stack (another, a signal stack or
 * a coroutine's, lies below or above it by chance: its frames are left as
 * they are). */
static __attribute__((noinline)) void resync(struct thread_state *t, const struct fn_place *p)
{
	uintptr_t lo, hi;

	fpwalk_stack(&lo, &hi);
	if (!hi) {
		fpwalk_thread_init();
		fpwalk_stack(&lo, &hi);
	}
	if (p->cfa >= lo && p->cfa < hi)
		regions_resync(&t->rs, &t->ctr, lo, p);
}

/* A function's entry: frames a longjmp or an exception left open end
 * first, then its region begins; returns the thread (NULL: none, or the
 * function is not recorded). */
static inline __attribute__((always_inline)) struct thread_state *enter(void *fn, void *site,
									const struct hook_call *c)
{
	struct thread_state *t = shim_thread();
	struct fn_place p;
	uint32_t id;

	if (!t)
		return NULL;
	id = known((uintptr_t)fn);
	if (unlikely(id == UNSEEN))
		id = first_call((uintptr_t)fn);
	if (!id)
		return NULL;
	p = (struct fn_place){ frame_cfa(c), (uintptr_t)site, c->ra, id, (uintptr_t)fn };
	if (p.cfa && unlikely(regions_abandoned(&t->rs, &p)))
		resync(t, &p);
	/* keyed by the call site alone: the function tree is the stack (a
	 * walk per call would cost more than the rest of the hooks) */
	regions_begin_function(&t->rs, &t->ctr, &p);
	return t;
}

/* A function's exit. A function not met at its entry (it began before
 * recording did) is not ended either. Frames open above its own were
 * abandoned: the end closes them (an end that does not match). Not by the
 * stack pointer: the compiler may call this hook as a tail call, after
 * the function's frame is gone. */
static inline __attribute__((always_inline)) void leave(void *fn)
{
	struct thread_state *t = shim_thread();
	uint64_t fold = __atomic_load_n(&fold_ticks, __ATOMIC_RELAXED);
	uint32_t id;

	if (!t)
		return;
	id = regions_top_function(&t->rs, (uintptr_t)fn);
	if (!id && (!(id = known((uintptr_t)fn)) || id == UNSEEN))
		return;
	arch_barrier();	/* the function's work done (__cyg_profile_func_exit) */
	if (fold)
		regions_end_fold(&t->rs, &t->ctr, id, fold);
	else
		regions_end(&t->rs, &t->ctr, id);
}

/* --- the hooks' own cost, where they run ------------------------------ */

/* What the hooks cost around their counter reads depends on the program:
 * a function met from many callers misses the begin's cache and looks its
 * site up, a large program misses the processor's caches. The cost
 * measured at setup (funccalib.c: one function, warm) is the least; so
 * every SAMPLE-th call of each hook on a thread is timed too, from the
 * hook's entry to its return, around the tick read that begins or ends
 * the region (the frame's start; its parent's children's sum grows by
 * the call's value), and the thread's means replace the setup's wall
 * cost in its record as they come (rf_thread.calib_fn_*[0], what the
 * reader takes out: per call the enter's tail and the exit's head, per
 * child call the enter's head and the exit's tail). The tail of a timed
 * hook holds the read that ends it, which the others do not make: one
 * read's cost (functions_read_ticks) comes out of each tail. The timed
 * calls' own reads land in their callers: a tick read per SAMPLE calls.
 * What the hooks cannot time, the calls to them and back (the caller's
 * side, the PLT), and what timing adds, are the difference between the
 * setup's cost and its own pairs' timed means (functions_glue,
 * funccalib.c), added to the means. */
#define SAMPLE 64
#define PUBLISH 64			/* samples between two stores */
#define TIMED_MAX 65536			/* ticks (~20 us): a call longer was
					 * interrupted (preempted, a fault), not
					 * slow: left out */

struct hook_costs {
	uint32_t enter_left, exit_left;	/* calls till the next timed one */
	uint64_t enters, exits;		/* timed calls */
	uint64_t enter_head, enter_tail, exit_head, exit_tail;	/* their ticks */
};

static __thread struct hook_costs costs;

/* The setup's cost less its timed means, per call and per child (ticks):
 * the calls to the hooks and back, less what timing adds. */
static int64_t glue_in, glue_child;

/* A mean plus its correction, never below 0. */
static uint64_t corrected(uint64_t mean, int64_t glue)
{
	return glue < 0 && (uint64_t)-glue > mean ? 0 : mean + (uint64_t)glue;
}

/* One tick read's cost, to take out of a timed tail. */
static inline uint64_t less_read(uint64_t ticks)
{
	uint64_t r = __atomic_load_n(&functions_read_ticks, __ATOMIC_RELAXED);

	return ticks > r ? ticks - r : 0;
}

/* The thread's means into its record (once each hook has PUBLISH
 * samples more). */
static void publish_costs(const struct thread_state *t)
{
	struct rf_thread *r = t->rec;
	const struct hook_costs *c = &costs;

	if (!r || !c->enters || !c->exits || (c->enters + c->exits) % PUBLISH)
		return;
	__atomic_store_n(&r->calib_fn_in[0],
			 corrected(c->enter_tail / c->enters + c->exit_head / c->exits,
				   __atomic_load_n(&glue_in, __ATOMIC_RELAXED)),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&r->calib_fn_child[0],
			 corrected(c->enter_head / c->enters + c->exit_tail / c->exits,
				   __atomic_load_n(&glue_child, __ATOMIC_RELAXED)),
			 __ATOMIC_RELAXED);
	if (!__atomic_load_n(&r->calib_fn_calls, __ATOMIC_RELAXED))
		__atomic_store_n(&r->calib_fn_calls, c->enters, __ATOMIC_RELEASE);
}

static __attribute__((noinline)) void enter_timed(void *fn, void *site,
						 const struct hook_call *c)
{
	uint64_t a = arch_ticks(), b, read;
	struct thread_state *t = enter(fn, site, c);

	b = arch_ticks();
	costs.enter_left = SAMPLE - 1;
	if (!t || !t->rs.top || t->rs.top == t->rs.frames)
		return;
	read = t->rs.top->start[0];
	if (read < a || read > b || b - a > TIMED_MAX)	/* not this call's begin (dropped) */
		return;
	costs.enter_head += read - a;
	costs.enter_tail += less_read(b - read);
	costs.enters++;
	publish_costs(t);
}

static __attribute__((noinline)) void leave_timed(void *fn)
{
	uint64_t a, b, start = 0, children = 0, read;
	struct thread_state *t = shim_thread();
	struct frame *f = t ? t->rs.top : NULL;
	int whole = f && f != t->rs.frames && !__atomic_load_n(&fold_ticks, __ATOMIC_RELAXED);

	/* the function's wait is not the hook's cost; leave's own barrier,
	 * which then waits for nothing, is timed as the hook's, as it is
	 * taken out of every call */
	arch_barrier();
	a = arch_ticks();
	if (whole)
		start = f->start[0], children = f[-1].child[0];
	leave(fn);
	b = arch_ticks();
	costs.exit_left = SAMPLE - 1;
	if (!whole || t->rs.top != f - 1)	/* not closed here */
		return;
	read = start + (f[-1].child[0] - children);
	if (read < a || read > b || b - a > TIMED_MAX)
		return;
	costs.exit_head += read - a;
	costs.exit_tail += less_read(b - read);
	costs.exits++;
	publish_costs(t);
}

/* (functions.h) */
void functions_time_next(void)
{
	costs.enter_left = costs.exit_left = 0;
}

int functions_timed(uint64_t *in, uint64_t *child)
{
	const struct hook_costs *c = &costs;
	int any = c->enters && c->exits;

	if (any) {
		*in = c->enter_tail / c->enters + c->exit_head / c->exits;
		*child = c->enter_head / c->enters + c->exit_tail / c->exits;
	}
	memset(&costs, 0, sizeof(costs));
	return any;
}

void functions_glue(int64_t in, int64_t child)
{
	__atomic_store_n(&glue_in, in, __ATOMIC_RELAXED);
	__atomic_store_n(&glue_child, child, __ATOMIC_RELAXED);
}


/* --- counted, not timed: PMCSHIM_FUNCTIONS=sampled -------------------- */

/* A call the warm enter could not take: the thread's first, a child not
 * entered last, entries left behind, a stack too deep. */
static __attribute__((noinline)) void enter_counted(uintptr_t fn, uintptr_t site, uintptr_t sp)
{
	struct thread_state *t = shim_thread();
	struct counted *cs;
	uint32_t id;

	if (!t)
		return;
	id = known(fn);
	if (unlikely(id == UNSEEN))
		id = first_call(fn);
	if (!guard_enter()) {
		__atomic_add_fetch(&t->rs.reentrant, 1, __ATOMIC_RELAXED);
		mapfile_drop(RF_DROP_BUSY);
		return;
	}
	if ((cs = counted_of(&t->rs)))
		counted_enter(cs, fn, site, sp, id);
	guard_leave();
}

/* A warm enter whose node is not in its first slot (counted.h). */
static __attribute__((noinline)) void enter_near(struct counted *cs, uintptr_t fn,
						 uintptr_t site, uintptr_t sp)
{
	if (!counted_enter_near(cs, fn, sp))
		enter_counted(fn, site, sp);
}

static __attribute__((noinline)) void leave_counted(struct counted *cs, uintptr_t fn)
{
	if (!guard_enter())	/* (its entry stays: a later call's stack
				 * pointer shows it left, counted.c) */
		return;
	counted_exit(cs, fn);
	guard_leave();
}

/* --- the hooks ----------------------------------------------------------- */

/* Counted: the thread's counted stack (set only with PMCSHIM_FUNCTIONS=
 * sampled) and the warm paths of counted.h (on Lua 5.4, 40 instructions
 * an enter, 10 an exit, callgrind); else timed, every SAMPLE-th call of
 * each hook with its own cost timed too.
 *
 * Every enter but a counted warm one goes out of the exported hook, as
 * its tail call, so that the warm path, in it, saves at most one
 * register (GCC 12: one, and the frame pointer): ra, sp and fp are the
 * hook's (HOOK_CALL's return address, CFA and frame address). A counted
 * thread's warm enter
 * does not look at shim_active: once recording ended its counts go
 * nowhere (the last publish was at the end), and a thread has a counted
 * stack only once recording began. */
static __attribute__((noinline)) void enter_other(void *fn, void *site, uintptr_t ra,
						  uintptr_t sp, const uintptr_t *fp)
{
	struct hook_call c = { ra, sp, fp };

	if (shim_tls.counted || counted_only)
		enter_counted((uintptr_t)fn, (uintptr_t)site, sp);
	else if (unlikely(costs.enter_left-- == 0))
		enter_timed(fn, site, &c);
	else
		enter(fn, site, &c);
}

EXPORT void __cyg_profile_func_enter(void *fn, void *site)
{
	struct counted *cs = shim_tls.counted;
	uintptr_t sp = (uintptr_t)__builtin_dwarf_cfa();
	int warm = cs ? counted_enter_warm(cs, (uintptr_t)fn, (uintptr_t)site, sp) : 0;

	if (warm > 0)
		return;
	if (warm < 0)
		enter_near(cs, (uintptr_t)fn, (uintptr_t)site, sp);
	else
		enter_other(fn, site, arch_return_address(), sp,
			    (const uintptr_t *)__builtin_frame_address(0));
}

/* The exit of a function recorded waits for the function's own work
 * (arch_barrier: lfence, isb) before it reads the time (leave; a timed
 * exit, before it starts its clock). A tick read does not wait: the loads a
 * function left in flight would finish after it, inside the hook, and
 * so land in what runs next, or in a timed hook's cost, which the
 * calibration takes out. A function of 8 cache misses a call
 * (tests/sources/chase.c) kept 8-72% of its time; with the wait, 97-98%.
 * On Lua 5.4 (27 M calls), luaV_lessthan, 2% of the plain binary's
 * instructions, came first in the table with 15-17% of the time, and
 * l_strcmp, first under perf record, had 4-8%; with it, l_strcmp comes
 * first (30-36%) and four of the top five are in perf's (make
 * bench-lua). It costs about 40% more time under the hooks there (0.9 s
 * -> 1.26 s); a barrier at the enter as well cost a third more again
 * for no better order. */
static __attribute__((noinline)) void exit_timed(void *fn)
{
	if (counted_only)	/* a thread with no counted stack (its first
				 * enter dropped): nothing of it was begun */
		return;
	if (unlikely(costs.exit_left-- == 0))
		leave_timed(fn);
	else
		leave(fn);
}

EXPORT void __cyg_profile_func_exit(void *fn, void *site)
{
	struct counted *cs = shim_tls.counted;

	(void)site;
	if (cs && counted_exit_warm(cs, (uintptr_t)fn))
		return;
	if (cs)
		leave_counted(cs, (uintptr_t)fn);
	else
		exit_timed(fn);
}

/* --- objects unloaded -------------------------------------------- */

/* Whether some function met lies in no loaded object now. */
static int any_gone(const struct slot *t)
{
	Dl_info info;

	for (uint32_t i = 0; i < SLOTS; i++)
		if (t[i].fn && !dladdr((void *)t[i].fn, &info))
			return 1;
	return 0;
}

/* The functions of t still loaded, into a new table (NULL: no memory). */
static struct slot *without_gone(const struct slot *t)
{
	struct slot *n = arena_pages(SLOTS * sizeof(*n));
	Dl_info info;

	used = 0;
	for (uint32_t i = 0; n && i < SLOTS; i++)
		if (t[i].fn && dladdr((void *)t[i].fn, &info)) {
			*slot_of(n, t[i].fn) = t[i];
			used++;
		}
	return n;
}

/* Whether fn's code is gone: the table, rebuilt after an unload, keeps
 * every function met that is still loaded (called with the lock held). */
static int fn_gone(uintptr_t fn)
{
	return known(fn) == UNSEEN;
}

/* A thread's counted nodes of functions gone, keyed by their addresses,
 * are forgotten. */
static void unloaded_in(struct thread_state *t)
{
	struct counted *cs = __atomic_load_n(&t->rs.counted, __ATOMIC_ACQUIRE);

	if (cs)
		counted_unloaded(cs, fn_gone);
}

/* After a dlclose: an object loaded where the closed one was would find
 * its functions' addresses taken by the old ones' regions, read without a
 * lock on the warm path. So the table is replaced (the warm path sees a
 * new pointer, no new check) by one without the functions gone: met
 * again, they become regions of the generation of the module then there
 * (region_of). The functions still loaded keep their slots and ids, so a
 * function open across the dlclose is still ended. The old table is
 * kept, never freed: another thread may be reading it. With a filter,
 * the chosen addresses are read anew, module by module. A dlclose that
 * took no function met costs a look at the table, no memory. */
static void functions_unloaded(void)
{
	struct slot *t;

	pthread_mutex_lock(&lock);
	t = table;
	if (t && any_gone(t)) {
		memset(rules, 0, sizeof(rules));
		__atomic_store_n(&table, without_gone(t), __ATOMIC_RELEASE);
		threads_each(unloaded_in);	/* (by the new table) */
		if (chosen)
			memset(chosen, 0, SLOTS * sizeof(*chosen));
		nchosen = 0;
		nread = 0;
	}
	pthread_mutex_unlock(&lock);
}

/* PMCSHIM_FUNCTIONS (unset: every function); config has said so when it
 * is bad. */
static void functions_setup(const struct config *c)
{
	char why[256];

	cfi_init();	/* the frames' keys (stacks_init does it only for walks) */
	if (c->functions && *c->functions)	/* else filter stays as it is, off */
		funcspec_parse(&functions_filter, c->functions, why, sizeof(why));
	counted_only = functions_filter.sampled;
}

__attribute__((constructor)) static void functions_register(void)
{
	static const struct shim_hooks hooks = { .setup = functions_setup };

	hooks_register(&hooks);
	codemap_on_unload(functions_unloaded);
}
