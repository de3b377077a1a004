/* The walk keeps three registers of each frame: the return address into
 * it (pc), SP and FP as they were when the call at pc returns. The first
 * frame's come from the shim's entry: the shim keeps frame pointers, and
 * on x86-64 a frame record lies just below the CFA of the function that
 * pushed it (push %rbp at entry), so the record that returns to caller
 * sits 16 bytes below the caller's SP and holds its FP. */
#include "tablewalk.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <ucontext.h>

#include "cfi.h"
#include "codemap.h"

#if defined(__x86_64__)
#define TABLEWALK_ON 1
#else
#define TABLEWALK_ON 0
#endif

static int usable;

int tablewalk_init(void)
{
	usable = TABLEWALK_ON && cfi_init() == 0;
	return usable;
}

/* Reads the word at addr into the trail: addr must lie on the stack, at
 * or above the frame below (sp), 8-aligned; and the trail have room
 * (signal frames take more words than others). */
static inline int read_word(uintptr_t addr, uintptr_t sp, uintptr_t top, uintptr_t *w,
			    struct fpwalk_trail *t)
{
	if (addr < sp || addr > top - 8 || (addr & 7) || t->n == FPWALK_TRAIL_MAX)
		return 0;
	*w = tablewalk_load(addr);
	t->rec[t->n++] = (struct fpwalk_record){ .fp = addr, .ra = *w };
	return 1;
}

/* Where a walk may read: the stack it is on, [lo, top); off: it began on
 * a signal stack (sigaltstack), and is not replayed (a trail of words
 * there is only read while that stack is there). */
struct bounds {
	uintptr_t lo, top;
	int off;
};

/* Whether start is on the signal stack this thread runs on (then b is
 * that stack). One system call: a handler's markers on a signal stack. */
static int on_signal_stack(uintptr_t start, struct bounds *b)
{
	int saved = errno, on;
	stack_t ss;

	on = sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK) &&
	     start >= (uintptr_t)ss.ss_sp && start - (uintptr_t)ss.ss_sp < ss.ss_size;
	errno = saved;
	if (on)
		*b = (struct bounds){ (uintptr_t)ss.ss_sp, (uintptr_t)ss.ss_sp + ss.ss_size, 1 };
	return on;
}

#if defined(__x86_64__)
/* The signal return trampoline returns with SP at the ucontext the
 * kernel saved (x86-64: its rt_sigframe's pretcode, the handler's return
 * address, just popped): the interrupted frame's registers are there,
 * on this stack, or on the thread's when the handler ran on a signal
 * stack. Its pc is where it was interrupted, not a return address. */
static int interrupted(uintptr_t *sp, uintptr_t *fp, uintptr_t *pc, struct bounds *b,
		       struct fpwalk_trail *t)
{
	const uintptr_t greg = offsetof(ucontext_t, uc_mcontext.gregs);
	uintptr_t uc = *sp, rsp, lo, hi;

	if (!read_word(uc + greg + REG_RSP * 8, uc, b->top, &rsp, t) ||
	    !read_word(uc + greg + REG_RBP * 8, uc, b->top, fp, t) ||
	    !read_word(uc + greg + REG_RIP * 8, uc, b->top, pc, t))
		return 0;
	if (rsp <= uc || rsp > b->top) {
		fpwalk_stack(&lo, &hi);
		if (!b->off || rsp < lo || rsp >= hi)
			return 0;
		b->lo = lo;
		b->top = hi;
	}
	*sp = rsp;
	return 1;
}
#else
static int interrupted(uintptr_t *sp, uintptr_t *fp, uintptr_t *pc, struct bounds *b,
		       struct fpwalk_trail *t)
{
	(void)sp, (void)fp, (void)pc, (void)b, (void)t;
	return 0;
}
#endif

/* The trail so far held the shim's records; as words, each record is
 * two (a record's address is the frame pointer read before it). */
static void records_to_words(struct fpwalk_trail *t)
{
	struct fpwalk_record rec[FPWALK_SHIM_FRAMES_MAX + 1];
	uintptr_t at = t->start;
	int n = t->n;

	memcpy(rec, t->rec, (size_t)n * sizeof(rec[0]));
	t->n = 0;
	for (int i = 0; i < n; i++) {
		t->rec[t->n++] = (struct fpwalk_record){ .fp = at, .ra = rec[i].fp };
		t->rec[t->n++] = (struct fpwalk_record){ .fp = at + 8, .ra = rec[i].ra };
		at = rec[i].fp;
	}
	t->words = 1;
}

/* Whether ra is a return address into code; code caches the last
 * module's. A return into the shim above the call site is more often a
 * stale word, read through a corrupted FP, than the shim calling the
 * application back (its thread start routine, where not a tail call;
 * its interposed dlclose running destructors): it is not proved, and
 * libunwind decides. The shim's own markers (its calibration) are
 * walked through its frames (shim_lo, shim_hi: 0). */
static inline int is_code(uintptr_t ra, struct codemap_range *code, uintptr_t shim_lo,
			  uintptr_t shim_hi)
{
	if (ra >= code->lo && ra < code->hi)
		return 1;
	if ((ra >= shim_lo && ra < shim_hi) || !codemap_lookup(ra))
		return 0;
	*code = codemap_last;
	return 1;
}

/* The application's frames, from the call site's registers: pcs[1..]
 * up to depth; the count. */
static int frames(uintptr_t sp, uintptr_t fp, uintptr_t pc, int depth, uintptr_t *pcs,
		  struct codemap_range *code, uintptr_t shim_lo, uintptr_t shim_hi,
		  struct bounds *b, struct fpwalk_trail *trail, int *whole)
{
	uintptr_t ra;
	int n;

	for (n = 1; n <= depth; n++) {
		struct cfi_rule r = cfi_rule(pc);
		uintptr_t cfa;

		if (r.kind != CFI_STEP) {
			*whole = r.kind == CFI_OUTERMOST;
			return n;
		}
		cfa = (r.cfa_fp ? fp : sp) + (uintptr_t)r.cfa_off;
		if (cfa <= sp || cfa > b->top ||
		    !read_word(cfa + (uintptr_t)(long)r.ra_off, sp, b->top, &ra, trail))
			return n;
		if (ra == 0) {
			*whole = 1;
			return n;
		}
		if ((r.fp_saved &&
		     !read_word(cfa + (uintptr_t)(long)r.fp_off, sp, b->top, &fp, trail)) ||
		    !is_code(ra, code, shim_lo, shim_hi))
			return n;
		pcs[n] = ra;
		sp = cfa;
		pc = ra;
		/* a signal handler's caller: the context the kernel saved */
		if (code->tramp && codemap_is_sigreturn(ra, code->hi) && n < depth) {
			if (!interrupted(&sp, &fp, &pc, b, trail) ||
			    !is_code(pc, code, shim_lo, shim_hi))
				return n + 1;
			pcs[++n] = pc;
			pc++;	/* its rule is the one at pc itself, not at pc - 1 */
		}
	}
	*whole = 1;
	return n;
}

/* The shim's frames from start to the record returning to caller, on
 * the thread's stack or a signal stack (b): that record's address. */
static uintptr_t entry_record(uintptr_t start, uintptr_t caller, uintptr_t shim_lo,
			      uintptr_t shim_hi, struct fpwalk_trail *trail, struct bounds *b)
{
	uintptr_t entry = fpwalk_entry(start, caller, shim_lo, shim_hi, trail);

	if (entry) {
		fpwalk_stack(&b->lo, &b->top);
		b->off = 0;
	} else if (on_signal_stack(start, b)) {
		entry = fpwalk_entry_within(start, b->lo, b->top, caller, shim_lo, shim_hi, trail);
	}
	return entry;
}

int tablewalk_capture(uintptr_t start, uintptr_t caller, int depth, uintptr_t *pcs,
		      uintptr_t shim_lo, uintptr_t shim_hi, struct fpwalk_trail *trail, int *whole)
{
	uintptr_t entry, sp, fp;
	struct codemap_range code;
	struct bounds b;
	int n;

	*whole = 0;
	if (!usable || !(entry = entry_record(start, caller, shim_lo, shim_hi, trail, &b)))
		return 0;
	records_to_words(trail);
	sp = entry + 16;
	fp = trail->rec[trail->n - 2].ra;	/* the entry record's saved FP */
	pcs[0] = caller;
	code = codemap_last;
	if (code.lo < shim_hi && code.hi > shim_lo)
		code.lo = code.hi = 0;
	if (caller >= shim_lo && caller < shim_hi)
		shim_lo = shim_hi = 0;
	n = frames(sp, fp, caller, depth, pcs, &code, shim_lo, shim_hi, &b, trail, whole);
	if (b.off)
		trail->n = 0;
	return n;
}
