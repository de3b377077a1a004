/* Call-site stacks from the frame-pointer chain: a few loads per frame,
 * where libunwind's unw_backtrace reads unwind tables. Used when the
 * application keeps frame pointers (-fno-omit-frame-pointer); the caller
 * falls back to libunwind when the chain is not there. */
#ifndef PMCSHIM_FPWALK_H
#define PMCSHIM_FPWALK_H

#include <stdint.h>
#include <string.h>

#include "settings/config.h"

#define FPWALK_SHIM_FRAMES_MAX 8	/* between the walk and the marker's entry */
/* two per frame: a table walk's trail holds words, not records */
#define FPWALK_TRAIL_MAX (2 * (FPWALK_SHIM_FRAMES_MAX + 1 + CONFIG_MAX_DEPTH))

/* A frame record as stored: the caller's frame pointer, the return
 * address (signed, where pointer authentication is on). In a trail with
 * words set (tablewalk.h), a word the walk read: fp its address, ra the
 * word. */
struct fpwalk_record {
	uintptr_t fp, ra;
};

/* The frame records a walk read, in order from its start. Records that
 * hold the same words give the same walk (fpwalk_same): each record's
 * address is the fp read before it, so only the first record's address
 * (the start) can differ. */
struct fpwalk_trail {
	uintptr_t start;	/* the first record's address */
	int n;
	int words;		/* rec[] holds words read (tablewalk.h) */
	struct fpwalk_record rec[FPWALK_TRAIL_MAX];
};

/* Walk from the frame record at start (a frame of the shim's, on the way
 * from the marker; 0: fpwalk_capture's own): the shim's frames
 * (return addresses in [shim_lo, shim_hi)) up to the one returning to
 * caller, then
 * up to depth frames above the call site. Fills pcs[0] = caller, then the
 * return addresses; returns the count, or 0 when the chain does not reach
 * caller. Never faults: each frame must lie on this thread's stack above
 * the previous one, 16-byte aligned, and each return address must lie in
 * a loaded module's code and not be the signal return trampoline; the
 * walk stops at the first that does not. The shim must be built with
 * -fno-omit-frame-pointer. trail receives the records read. */
int fpwalk_capture(uintptr_t start, uintptr_t caller, int depth, uintptr_t *pcs,
		   uintptr_t shim_lo, uintptr_t shim_hi, struct fpwalk_trail *trail);

/* The shim's part of a walk from start (as fpwalk_capture's, but start
 * not 0): the address of the frame record that returns to caller, or 0
 * when the chain does not reach it. trail receives the records read; the
 * thread's stack bounds are looked up on its first walk. */
uintptr_t fpwalk_entry(uintptr_t start, uintptr_t caller, uintptr_t shim_lo, uintptr_t shim_hi,
		       struct fpwalk_trail *trail);
/* The same on the stack [lo, hi) (a signal stack). */
uintptr_t fpwalk_entry_within(uintptr_t start, uintptr_t lo, uintptr_t hi, uintptr_t caller,
			      uintptr_t shim_lo, uintptr_t shim_hi, struct fpwalk_trail *trail);

/* This thread's stack [lo, hi), once a walk looked it up. */
void fpwalk_stack(uintptr_t *lo, uintptr_t *hi);

/* The sanitizers would check these loads against other frames' shadow;
 * the walk's bounds checks are what keep them safe. */
__attribute__((no_sanitize("address"), no_sanitize_thread))
static inline struct fpwalk_record fpwalk_load(uintptr_t addr)
{
	struct fpwalk_record r;

	memcpy(&r, (const void *)addr, sizeof(r));	/* one load of both words */
	return r;
}

/* The n records from the one at fp hold rec's words. */
__attribute__((no_sanitize("address"), no_sanitize_thread))
static inline int fpwalk_records_at(uintptr_t fp, const struct fpwalk_record *rec, int n)
{
	const struct fpwalk_record *end = rec + n;

	do {
		struct fpwalk_record r = fpwalk_load(fp), want = *rec;

		if ((r.fp != want.fp) | (r.ra != want.ra))	/* both: one branch */
			return 0;
		fp = r.fp;
	} while (++rec < end);
	return 1;
}

/* fpwalk_same from a start other than the first walk's. */
int fpwalk_same_moved(uintptr_t start, const struct fpwalk_record *rec, int n);

/* 1 when a walk from start would read the n records rec (a trail's, of a
 * walk from `from`) and so give the same stack as the walk that left
 * them: a load and a compare per word, where the walk checks each frame
 * and return address. From the same start the same words are the same
 * walk, wherever it stopped. (What counts as code is as the walk found
 * it: a module loaded at a word the walk refused is not seen until the
 * words change.) Inline: the warm path at depth > 0. */
static inline int fpwalk_same(uintptr_t start, uintptr_t from, const struct fpwalk_record *rec,
			      int n)
{
	if (start != from)
		return fpwalk_same_moved(start, rec, n);
	return n > 0 && fpwalk_records_at(start, rec, n);
}

/* At load time, on the main thread: the module table, and which thread
 * is the main one. Every thread's stack bounds, the main thread's too,
 * are looked up at its first walk, async-signal-safely. */
void fpwalk_init(void);

/* Look up the calling thread's stack bounds now rather than at its first
 * walk. */
void fpwalk_thread_init(void);

#endif
