/* Call-site stacks: captured by walking the binary's own unwind tables
 * (tablewalk.h; on x86-64 and arm64), or frame pointers where the application keeps
 * them, else with libunwind's unw_backtrace; interned once per distinct
 * stack as an RF_STACK record in the report file. */
#ifndef PMCSHIM_STACKS_H
#define PMCSHIM_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "settings/config.h"
#include "fpwalk.h"
#include "format/reportfile.h"

#define STACKS_MAX_FRAMES (CONFIG_MAX_DEPTH + 1)

/* How a stack was captured (stacks_last_method) and what
 * PMCSHIM_STACK_METHOD asks for: STACKS_* in config.h. */

/* Capture by method how (config's PMCSHIM_STACK_METHOD: STACKS_AUTO,
 * _TABLES, _FP or _UNWIND). libunwind is loaded privately (RTLD_LOCAL:
 * its weak backtrace() must not replace glibc's for the application):
 * now for unwind, else at the first walk that needs it. Returns 0, or -1
 * with a reason. */
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
