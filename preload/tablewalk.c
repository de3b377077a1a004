/* The walk keeps three registers of each frame: the return address into
 * it (pc), SP and FP as they were when the call at pc returns. The first
 * frame's come from the shim's entry: the shim keeps frame pointers, and
 * on x86-64 a frame record lies just below the CFA of the function that
 * pushed it (push %rbp at entry), so the record that returns to caller
 * sits 16 bytes below the caller's SP and holds its FP. */
#include "tablewalk.h"

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

/* Reads the word at addr into the trail: addr must lie on this thread's
 * stack, at or above the frame below (sp), 8-aligned. */
static inline int read_word(uintptr_t addr, uintptr_t sp, uintptr_t top, uintptr_t *w,
			    struct fpwalk_trail *t)
{
	if (addr < sp || addr > top - 8 || (addr & 7))
		return 0;
	*w = tablewalk_load(addr);
	t->rec[t->n++] = (struct fpwalk_record){ .fp = addr, .ra = *w };
	return 1;
}

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

int tablewalk_capture(uintptr_t start, uintptr_t caller, int depth, uintptr_t *pcs,
		      uintptr_t shim_lo, uintptr_t shim_hi, struct fpwalk_trail *trail, int *whole)
{
	uintptr_t entry, sp, fp, pc = caller, top, ra;
	struct codemap_range code;
	int n = 1;

	*whole = 0;
	if (!usable)
		return 0;
	entry = fpwalk_entry(start, caller, shim_lo, shim_hi, trail);
	if (!entry)
		return 0;
	records_to_words(trail);
	sp = entry + 16;
	fp = trail->rec[trail->n - 2].ra;	/* the entry record's saved FP */
	top = fpwalk_stack_top();
	pcs[0] = caller;
	code = codemap_last;
	if (code.lo < shim_hi && code.hi > shim_lo)
		code.lo = code.hi = 0;
	if (caller >= shim_lo && caller < shim_hi)
		shim_lo = shim_hi = 0;
	for (; n <= depth; n++) {
		struct cfi_rule r = cfi_rule(pc);
		uintptr_t cfa;

		if (r.kind != CFI_STEP) {
			*whole = r.kind == CFI_OUTERMOST;
			return n;
		}
		cfa = (r.cfa_fp ? fp : sp) + (uintptr_t)r.cfa_off;
		if (cfa <= sp || cfa > top || !read_word(cfa + (uintptr_t)(long)r.ra_off, sp, top,
							  &ra, trail))
			return n;
		if (ra == 0) {
			*whole = 1;
			return n;
		}
		if (r.fp_saved &&
		    !read_word(cfa + (uintptr_t)(long)r.fp_off, sp, top, &fp, trail))
			return n;
		/* a signal handler's caller: the kernel's frame, libunwind's */
		if (!is_code(ra, &code, shim_lo, shim_hi) ||
		    (code.tramp && codemap_is_sigreturn(ra, code.hi)))
			return n;
		pcs[n] = ra;
		sp = cfa;
		pc = ra;
	}
	*whole = 1;
	return n;
}
