/* Call-site stacks: captured by walking frame pointers where the
 * application keeps them, else with libunwind's unw_backtrace; interned
 * once per distinct stack as an RF_STACK record in the report file. */
#ifndef PMCSHIM_STACKS_H
#define PMCSHIM_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "fpwalk.h"
#include "reportfile.h"

#define STACKS_MAX_FRAMES (CONFIG_MAX_DEPTH + 1)

/* How a stack was captured (stacks_capture_method), and what
 * PMCSHIM_STACK_METHOD asks for: auto (the default: frame pointers when
 * the chain gives every frame asked for, else libunwind), fp (frame
 * pointers only: a broken chain gives a short stack, at least the call
 * site), unwind (libunwind only, as before frame pointers were used). */
enum {
	STACKS_NONE = RF_STACK_CALLER,	/* the call site alone (depth 0, no capture) */
	STACKS_FP = RF_STACK_FP,	/* frame-pointer walk */
	STACKS_UNWIND = RF_STACK_UNWIND,	/* libunwind's unw_backtrace */
	STACKS_AUTO = 3		/* a setting only, never a result */
};

/* Capture by method how (STACKS_AUTO, _FP or _UNWIND: config's
 * PMCSHIM_STACK_METHOD); load libunwind privately (RTLD_LOCAL: its
 * weak backtrace() must not replace glibc's for the application) unless
 * the method is fp. Returns 0, or -1 with a reason. */
int stacks_init(int how, char *why, size_t whylen);

/* Fill pcs with the call site (caller, a return address in the
 * application) and up to depth frames above it. Returns the count (>= 1).
 * Must be called from the marker's own call chain (its frames are
 * skipped by address); start: the frame record of one of them, where
 * the frame-pointer walk may begin (0: the walk's own frame). When the
 * frame-pointer walk gave the stack, trail holds the records it read
 * (fpwalk_same tells whether a later walk from start would give the
 * same); else trail->n is 0. */
int stacks_capture(uintptr_t start, uintptr_t caller, int depth, uintptr_t *pcs,
		   struct fpwalk_trail *trail);

/* How the calling thread's last capture got its stack: STACKS_NONE (the
 * call site alone), STACKS_FP or STACKS_UNWIND, which are the report
 * file's enum rf_stack_method values. */
int stacks_last_method(void);

/* Process-wide id of a stack (an RF_STACK record made the first time,
 * with method: enum rf_stack_method); takes a lock (call once per new
 * site). Returns UINT32_MAX when the stack cannot be recorded. */
uint32_t stacks_intern(const uintptr_t *pcs, int n, int method);

/* Held across fork(). */
void stacks_lock(void);
void stacks_unlock(void);

#endif
