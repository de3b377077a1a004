/* Call-site stacks: captured with libunwind's unw_backtrace, interned once
 * per distinct stack in a process-wide table. */
#ifndef PMCSHIM_STACKS_H
#define PMCSHIM_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

#define STACKS_MAX_FRAMES (CONFIG_MAX_DEPTH + 1)

/* Load libunwind privately (RTLD_LOCAL: its weak backtrace() must not
 * replace glibc's for the application). Returns 0, or -1 with a reason. */
int stacks_init(char *why, size_t whylen);

/* Fill pcs with the call site (caller, a return address in the
 * application) and up to depth frames above it. Returns the count (>= 1). */
int stacks_capture(uintptr_t caller, int depth, uintptr_t *pcs);
/* How the calling thread's last capture got its stack (enum
 * rf_stack_method). */
int stacks_last_method(void);

/* Process-wide id of a stack (an RF_STACK record made the first time,
 * with method: enum rf_stack_method); takes a lock (call once per new
 * site). Returns UINT32_MAX when the stack cannot be recorded. */
uint32_t stacks_intern(const uintptr_t *pcs, int n, int method);

/* Held across fork(). */
void stacks_lock(void);
void stacks_unlock(void);

#endif
