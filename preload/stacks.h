/* Call-site stacks: captured by walking frame pointers where the
 * application keeps them, else with libunwind's unw_backtrace; interned
 * once per distinct stack in a process-wide table. */
#ifndef PMCSHIM_STACKS_H
#define PMCSHIM_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

#define STACKS_MAX_FRAMES (CONFIG_MAX_DEPTH + 1)

/* How a stack was captured (stacks_capture_method), and what
 * PMCSHIM_STACK_METHOD asks for: auto (the default: frame pointers when
 * the chain gives every frame asked for, else libunwind), fp (frame
 * pointers only: a broken chain gives a short stack, at least the call
 * site), unwind (libunwind only, as before frame pointers were used). */
enum {
	STACKS_NONE = 0,	/* no capture yet on this thread (or depth 0) */
	STACKS_FP = 1,		/* frame-pointer walk */
	STACKS_UNWIND = 2,	/* libunwind's unw_backtrace */
	STACKS_AUTO = 3		/* a setting only, never a result */
};

/* Read PMCSHIM_STACK_METHOD; load libunwind privately (RTLD_LOCAL: its
 * weak backtrace() must not replace glibc's for the application) unless
 * the method is fp. Returns 0, or -1 with a reason. */
int stacks_init(char *why, size_t whylen);

/* Fill pcs with the call site (caller, a return address in the
 * application) and up to depth frames above it. Returns the count (>= 1).
 * Must be called from the marker's own call chain (its frames are
 * skipped by address). */
int stacks_capture(uintptr_t caller, int depth, uintptr_t *pcs);

/* The method (STACKS_FP or STACKS_UNWIND) that gave this thread's last
 * stacks_capture; STACKS_NONE before the first. Meant for the report:
 * which method gave each stack. */
int stacks_capture_method(void);

/* Process-wide id of a stack; takes a lock (call once per new site).
 * Returns UINT32_MAX when out of memory. */
uint32_t stacks_intern(const uintptr_t *pcs, int n);

/* For the report, with stacks_lock held: the number of stacks, and
 * stack id's frames. */
uint32_t stacks_count(void);
int stacks_get(uint32_t id, const uintptr_t **pcs);

/* Held across fork(), and by the report while it reads the table. */
void stacks_lock(void);
void stacks_unlock(void);

#endif
