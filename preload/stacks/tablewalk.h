/* Call-site stacks from the unwind tables (cfi.h): from the marker's
 * entry, each frame's caller where its return address's rule says, with
 * code built with and without frame pointers mixed freely. A few loads
 * per frame once the rules are cached. On x86-64 and arm64 (elsewhere
 * tablewalk_init gives 0 and the frame-pointer walk serves). */
#ifndef PMCSHIM_TABLEWALK_H
#define PMCSHIM_TABLEWALK_H

#include <stdint.h>

#include "fpwalk.h"

/* At load time: 1 when the walk can be used here. */
int tablewalk_init(void);

/* How a walk ended (tablewalk_capture's *end). */
enum {
	TABLEWALK_UNPROVED,	/* at a frame it could not prove */
	TABLEWALK_WHOLE,	/* with the stack asked for */
	TABLEWALK_CORRUPT	/* arm64: where the stack is garbage */
};

/* Walk from start (a frame record of the shim's on the way from the
 * marker, as for fpwalk_capture) to the marker's return to caller, then
 * up to depth frames above it. Fills pcs[0] = caller, then the return
 * addresses; returns the count. *end is TABLEWALK_WHOLE when that is the
 * stack: depth frames, or fewer where the stack ends (a return address
 * the tables call undefined, as in _start and in clone's child, or a zero
 * one); TABLEWALK_UNPROVED when a frame could not be proved (no rule, a
 * rule of another form, a frame off the stack or a return address that
 * is not code: a corrupted stack; a return into the shim), and the count
 * is what came before it (0 when the walk did not reach caller). On
 * arm64 a frame whose rule the tables give but which is not on the
 * stack, or returns to no code or to code that has not saved its return
 * address (a leaf's rule, where only a call can have returned), ends the
 * walk with TABLEWALK_CORRUPT: the stack is garbage from there (the count
 * is the stack; libunwind there reads through garbage unchecked and can
 * fault). A signal handler's caller is the
 * context the kernel saved; a handler may run on a signal stack
 * (sigaltstack). Never faults: what it reads lies on the stack it is on,
 * above start (or, past a signal frame, above the interrupted SP on this
 * thread's stack). trail receives the words read (none for a walk begun
 * on a signal stack: it is not replayed). */
int tablewalk_capture(uintptr_t start, uintptr_t caller, int depth, uintptr_t *pcs,
		      uintptr_t shim_lo, uintptr_t shim_hi, struct fpwalk_trail *trail, int *end);

/* The stack of a frame a signal interrupted (a sampler's handler): pc,
 * sp and fp from the kernel's saved context, on this thread's stack
 * (fpwalk_stack: looked up before, not here). Fills pcs[0] = pc, then
 * up to depth return addresses; returns the count (>= 1; 1 when the
 * frame is not on the thread's stack: a signal stack, a coroutine's).
 * Async-signal-safe where codemap_frozen is set: no lock, no allocation,
 * no system call. */
int tablewalk_interrupted(uintptr_t pc, uintptr_t sp, uintptr_t fp, int depth, uintptr_t *pcs,
			  int *end);

__attribute__((no_sanitize("address"), no_sanitize_thread))
static inline uintptr_t tablewalk_load(uintptr_t addr)
{
	uintptr_t w;

	memcpy(&w, (const void *)addr, sizeof(w));
	return w;
}

/* 1 when a walk from start would read the n words of a trail left by a
 * walk from `from` (and so give the same stack): the same start, and
 * every word as it was. The walk's every step is a function of the words
 * it read and the rules of the return addresses among them. Inline: the
 * warm path at depth > 0. */
static inline int tablewalk_same(uintptr_t start, uintptr_t from, const struct fpwalk_record *w,
				 int n)
{
	const struct fpwalk_record *end = w + n;
	uintptr_t differ = 0;

	if (start != from || n == 0)
		return 0;
	do
		differ |= tablewalk_load(w->fp) ^ w->ra;
	while (++w < end);
	return differ == 0;
}

#endif
