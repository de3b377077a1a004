/* The walk keeps three registers of each frame: the return address into
 * it (pc), SP and FP as they were when the call at pc returns. The first
 * frame's come from the shim's entry: the shim keeps frame pointers, so
 * the record that returns to caller holds the caller's FP, and it lies
 * at a fixed place below the caller's SP (the CFA of the shim function
 * that pushed it): on x86-64 just below (push %rbp at entry), on arm64
 * where that function's rule says (entry_cfa). Return addresses are
 * taken without their pointer-authentication code (arm64 pac-ret). */
#include "tablewalk.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <ucontext.h>

#include "base/arch.h"
#include "cfi.h"
#include "codemap.h"

#if defined(__x86_64__) || defined(__aarch64__)
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

/* Whether the word at addr may be read: on the stack, at or above the
 * frame below (sp), 8-aligned. */
static inline int on_stack(uintptr_t addr, uintptr_t sp, uintptr_t top)
{
	return addr >= sp && addr <= top - 8 && !(addr & 7);
}

/* Reads the word at addr into the trail: addr must be on_stack, and the
 * trail have room (signal frames take more words than others). */
static inline int read_word(uintptr_t addr, uintptr_t sp, uintptr_t top, uintptr_t *w,
			    struct fpwalk_trail *t)
{
	if (!on_stack(addr, sp, top) || t->n == FPWALK_TRAIL_MAX)
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

/* The signal return trampoline returns with SP at the frame the kernel
 * saved the interrupted registers in, on this stack, or on the thread's
 * when the handler ran on a signal stack: x86-64's rt_sigframe begins
 * with the handler's return address (just popped), then the ucontext;
 * arm64's with the siginfo, then the ucontext. The saved pc is where the
 * frame was interrupted, not a return address. */
#if defined(__x86_64__)
#define UC_AT(sp) (sp)
#define UC_SP offsetof(ucontext_t, uc_mcontext.gregs[REG_RSP])
#define UC_FP offsetof(ucontext_t, uc_mcontext.gregs[REG_RBP])
#define UC_PC offsetof(ucontext_t, uc_mcontext.gregs[REG_RIP])
#elif defined(__aarch64__)
#define UC_AT(sp) ((sp) + sizeof(siginfo_t))
#define UC_SP offsetof(ucontext_t, uc_mcontext.sp)
#define UC_FP offsetof(ucontext_t, uc_mcontext.regs[29])
#define UC_PC offsetof(ucontext_t, uc_mcontext.pc)
#endif

#ifdef UC_AT
static int interrupted(uintptr_t *sp, uintptr_t *fp, uintptr_t *pc, struct bounds *b,
		       struct fpwalk_trail *t)
{
	uintptr_t uc = UC_AT(*sp), isp, lo, hi;

	if (!read_word(uc + UC_SP, *sp, b->top, &isp, t) ||
	    !read_word(uc + UC_FP, *sp, b->top, fp, t) ||
	    !read_word(uc + UC_PC, *sp, b->top, pc, t))
		return 0;
	if (isp <= uc || isp > b->top) {
		fpwalk_stack(&lo, &hi);
		if (!b->off || isp < lo || isp >= hi)
			return 0;
		b->lo = lo;
		b->top = hi;
	}
	*sp = isp;
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

/* How a walk ends where a frame the tables describe is garbage: on
 * arm64, there (tablewalk.h); elsewhere libunwind decides (on x86-64 it
 * checks what it reads). */
#if defined(__aarch64__)
#define GARBAGE TABLEWALK_CORRUPT
#define RA_ALIGN 3	/* instructions are 4 bytes */
#else
#define GARBAGE TABLEWALK_UNPROVED
#define RA_ALIGN 0
#endif

/* The application's frames, from the call site's registers: pcs[1..]
 * up to depth; the count. A leaf's rule (CFI_LINK) is garbage but in
 * the frame a signal interrupted, where the return address is in a
 * register the walk does not keep: libunwind reads it. A saved FP is
 * read only when a rule finds the CFA from it: most frames' CFA is from
 * SP (on arm64 also in code built with frame pointers), and a word not
 * read is a word the trail need not compare. */
static int frames(uintptr_t sp, uintptr_t fp, uintptr_t pc, int depth, uintptr_t *pcs,
		  struct codemap_range *code, uintptr_t shim_lo, uintptr_t shim_hi,
		  struct bounds *b, struct fpwalk_trail *trail, int *end, int signalled)
{
	int n;
	uintptr_t ra, fp_at = 0, fp_lo = 0;	/* FP is the word at fp_at (not 0) */

	*end = GARBAGE;
	for (n = 1; n <= depth; n++) {
		struct cfi_rule r = cfi_rule(pc);
		int was_signalled = signalled;
		uintptr_t cfa;

		signalled = 0;
		if (r.kind != CFI_STEP) {
			*end = r.kind == CFI_OUTERMOST ? TABLEWALK_WHOLE
			       : r.kind == CFI_LINK && !was_signalled ? GARBAGE : TABLEWALK_UNPROVED;
			return n;
		}
		if (r.cfa_fp && fp_at) {
			if (!read_word(fp_at, fp_lo, b->top, &fp, trail))
				break;
			fp_at = 0;
		}
		cfa = (r.cfa_fp ? fp : sp) + (uintptr_t)r.cfa_off;
		if (cfa <= sp || cfa > b->top ||
		    !read_word(cfa + (uintptr_t)(long)r.ra_off, sp, b->top, &ra, trail))
			break;
		ra = arch_strip_ra(ra);
		if (ra == 0) {
			*end = TABLEWALK_WHOLE;
			return n;
		}
		if (r.fp_saved) {
			fp_at = cfa + (uintptr_t)(long)r.fp_off;
			fp_lo = sp;
			if (!on_stack(fp_at, sp, b->top))
				break;
		}
		if (ra & RA_ALIGN)
			break;
		if (!is_code(ra, code, shim_lo, shim_hi)) {
			if (ra >= shim_lo && ra < shim_hi)
				*end = TABLEWALK_UNPROVED;
			return n;
		}
		pcs[n] = ra;
		sp = cfa;
		pc = ra;
		/* a signal handler's caller: the context the kernel saved */
		if (code->tramp && codemap_is_sigreturn(ra, code->hi) && n < depth) {
			if (!interrupted(&sp, &fp, &pc, b, trail) ||
			    !is_code(pc, code, shim_lo, shim_hi)) {
				*end = TABLEWALK_UNPROVED;
				return n + 1;
			}
			pcs[++n] = pc;
			pc++;	/* its rule is the one at pc itself, not at pc - 1 */
			fp_at = 0;
			signalled = 1;
		}
	}
	if (n > depth)
		*end = TABLEWALK_WHOLE;
	else if (trail->n == FPWALK_TRAIL_MAX)
		*end = TABLEWALK_UNPROVED;	/* not garbage: no room */
	return n;
}

#if defined(__aarch64__)
/* The CFA of the shim function whose frame record is at entry. Its x29
 * points at the record, where the prologue saved the caller's x29 (stp
 * x29, x30), and its rule says where that is from the CFA: wherever in
 * the frame the record lies (the bottom, or above the outgoing
 * arguments), CFA = entry - fp_off. The rule is read at a return address
 * into the function: in the record just below, found from this
 * function's own record up the shim's chain (lo: the stack's bottom). */
static uintptr_t entry_cfa(uintptr_t entry, uintptr_t lo)
{
	uintptr_t fp = (uintptr_t)__builtin_frame_address(0), next;
	struct cfi_rule r;

	for (int n = 0;; n++, fp = next) {
		if (n == 2 * FPWALK_SHIM_FRAMES_MAX + 8 || fp < lo || fp >= entry || (fp & 15))
			return 0;
		next = tablewalk_load(fp);
		if (next == entry)
			break;
		if (next <= fp)
			return 0;
	}
	r = cfi_rule(arch_strip_ra(tablewalk_load(fp + 8)));
	if (r.kind != CFI_STEP || !r.fp_saved || r.fp_off >= 0)
		return 0;
	return entry - (uintptr_t)(long)r.fp_off;
}
#else
/* push %rbp at entry: the record lies just below the CFA */
static uintptr_t entry_cfa(uintptr_t entry, uintptr_t lo)
{
	(void)lo;
	return entry + 16;
}
#endif

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
		      uintptr_t shim_lo, uintptr_t shim_hi, struct fpwalk_trail *trail, int *end)
{
	uintptr_t entry, sp, fp;
	struct codemap_range code;
	struct bounds b;
	int n;

	*end = TABLEWALK_UNPROVED;
	if (!usable || !(entry = entry_record(start, caller, shim_lo, shim_hi, trail, &b)))
		return 0;
	if (!(sp = entry_cfa(entry, b.lo)))
		return 0;
	records_to_words(trail);
	fp = trail->rec[trail->n - 2].ra;	/* the entry record's saved FP */
	pcs[0] = caller;
	code = codemap_last;
	if (code.lo < shim_hi && code.hi > shim_lo)
		code.lo = code.hi = 0;
	if (caller >= shim_lo && caller < shim_hi)
		shim_lo = shim_hi = 0;
	n = frames(sp, fp, caller, depth, pcs, &code, shim_lo, shim_hi, &b, trail, end, 0);
	if (b.off)
		trail->n = 0;
	return n;
}

int tablewalk_interrupted(uintptr_t pc, uintptr_t sp, uintptr_t fp, int depth, uintptr_t *pcs,
			  int *end)
{
	struct fpwalk_trail trail = { .n = 0, .words = 1 };
	struct codemap_range code = { 0 };
	struct bounds b = { 0 };

	*end = TABLEWALK_UNPROVED;
	pcs[0] = pc;
	fpwalk_stack(&b.lo, &b.top);
	if (!usable || sp < b.lo || sp >= b.top)
		return 1;
	/* pc + 1: an interrupted pc's rule is the one at pc itself */
	return frames(sp, fp, pc + 1, depth, pcs, &code, 0, 0, &b, &trail, end, 1);
}
