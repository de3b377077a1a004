/* Where the loaded modules are: a cached, sorted list of the loadable
 * segments of every object dl_iterate_phdr reports, so that the
 * frame-pointer walker can tell a return address from garbage, and the
 * name markers a string literal from a buffer. */
#ifndef PMCSHIM_CODEMAP_H
#define PMCSHIM_CODEMAP_H

#include <stddef.h>
#include <stdint.h>

struct codemap_range {
	uintptr_t lo, hi;
	int exec;	/* PF_X */
	int writable;	/* PF_W */
	int tramp;	/* may hold the signal return trampoline */
};

/* At load time: the objects loaded then are the ones whose signal
 * trampoline codemap_is_sigreturn recognises. The table of code is built
 * at the first lookup. */
void codemap_init(void);

/* The segment of this thread's last hit: a stack's return addresses
 * mostly lie in one module, so most checks end here. */
extern __thread struct codemap_range codemap_last;

/* 1 when pc lies in an executable segment of a loaded module (and then
 * codemap_last holds it). A miss re-reads the module list once when
 * objects were loaded or unloaded since it was last read. */
int codemap_lookup(uintptr_t pc);

/* Set on a thread while its lookups must not re-read the module list (a
 * sampler's signal handler: the list's lock may be held by the code it
 * interrupted): a miss is then a miss. */
extern __thread int codemap_frozen;
extern unsigned long codemap_unload_count;	/* dlclose is interposed to count */

/* fn runs after each dlclose() the shim sees returns (the object may be
 * gone): for caches keyed by address, which a new object may now reuse.
 * Set once, at load time (one hook: the functions' table). */
void codemap_on_unload(void (*fn)(void));

/* A dlclose is under way: an object's memory may go at any moment. */
int codemap_unloading(void);

/* What a constant answer is worth now: it holds while this stays the
 * same (until an object is unloaded). */
static inline unsigned long codemap_stamp(void)
{
	return __atomic_load_n(&codemap_unload_count, __ATOMIC_SEQ_CST) + 1;
}

/* When [p, p + len] lies in a segment without PF_W, whose bytes stay as
 * they are while its object stays loaded: the stamp (codemap_stamp) this
 * holds for. 0 when it does not, or cannot be told now (a dlclose is
 * under way). Not for objects closed behind the interposed dlclose (a
 * plugin loaded with RTLD_DEEPBIND calls its own libc's). */
unsigned long codemap_constant(uintptr_t p, size_t len);

/* 1 when pc, in a segment with tramp set that ends at hi, is the signal
 * return trampoline: the frame above it is the kernel's signal frame,
 * which has no frame record. */
int codemap_is_sigreturn(uintptr_t pc, uintptr_t hi);

#endif
