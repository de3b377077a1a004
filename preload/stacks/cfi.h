/* Unwind rules of return addresses, read once per address from the
 * binary's own .eh_frame_hdr and .eh_frame (the tables the compiler emits
 * for exceptions, kept in binaries built without frame pointers), and
 * kept in a lock-free per-process cache. A rule says where a frame's
 * caller is: the frame's CFA (canonical frame address: SP or FP plus an
 * offset), where the return address is, and where FP was saved. */
#ifndef PMCSHIM_CFI_H
#define PMCSHIM_CFI_H

#include <stdint.h>

enum cfi_kind {
	CFI_UNKNOWN,	/* no table, or a rule of another form (expressions,
			 * signal frames, registers other than SP and FP) */
	CFI_STEP,	/* the caller is where the fields say */
	CFI_OUTERMOST,	/* the return address is undefined: the stack's end
			 * (_start, the thread start in clone) */
	CFI_LINK	/* the return address is still in the link register
			 * (arm64 x30: a leaf, a prologue before it is saved) */
};

struct cfi_rule {
	enum cfi_kind kind;
	int cfa_fp;		/* CFA = FP + cfa_off (else SP + cfa_off) */
	int fp_saved;		/* the caller's FP is at CFA + fp_off (else FP
				 * is not changed by the frame) */
	long cfa_off;
	int ra_off, fp_off;	/* from the CFA */
};

/* Find the tables (at load time: looks up _dl_find_object). Returns 0, or
 * -1 when this libc cannot say where an address's tables are; then every
 * rule is CFI_UNKNOWN. */
int cfi_init(void);

/* The rule in force at the call that returns to ra (looked up at
 * ra - 1), from the cache, else from the tables (the first time: no lock,
 * no allocation, no system call). Rules found before the latest dlclose
 * are read again. */
struct cfi_rule cfi_rule(uintptr_t ra);

/* Rules read from the tables so far (the tests: a warm walk reads none). */
unsigned long cfi_parsed(void);

#endif
