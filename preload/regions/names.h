/* Region names, interned process-wide: each distinct name gets a small id
 * (from 1) that markers carry instead of the string. */
#ifndef PMCSHIM_NAMES_H
#define PMCSHIM_NAMES_H

#include <stdint.h>

#include "format/reportfile.h"

#define NAMES_MAX_LEN 255	/* longer names are cut */

/* Returns the id and, if interned is not NULL, the immortal stored copy
 * of the name; 0 on allocation failure, or for a new name once the limit
 * is reached (counted as RF_DROP_NAMES; the first time, one line).
 * Takes a lock. */
uint32_t names_intern(const char *name, const char **interned);

/* The same for a region of another source (enum rf_from): "MPI_Send"
 * from MPI is not the marker region "MPI_Send". */
uint32_t names_intern_from(const char *name, enum rf_from source);
/* The same, with *interned set to the stored text (it lives as long as
 * the process): a caller can cache the id and compare texts later. */
uint32_t names_intern_text(const char *name, enum rf_from source, const char **interned);
/* A region keyed by an address (a function's entry, a call's return
 * address: kind) and the load generation of the module holding it (gen:
 * modules_note's; the same address in a module loaded where an unloaded
 * one was is another region), which the reader names from that module's
 * symbols; its text says "PREFIX0xADDR" (prefix: at most 200 bytes)
 * until then. No symbol is looked up here. */
uint32_t names_intern_addr(const char *prefix, uintptr_t addr, enum rf_from source,
			   enum rf_addr_kind kind, uint32_t gen);

/* 1 once a new name was refused for the limit (a name refused then is
 * refused for the rest of the process: callers may remember it). */
int names_limit_reached(void);
/* Count a marker dropped for a name the caller remembers as refused. */
void names_drop_refused(void);

/* The shim's own names (calibration's), interned before its markers use
 * them: never counted against the limit. */
uint32_t names_intern_own(const char *name);

/* hook runs before the application's first name is given out (the
 * markers' calibration, which a process that names no region never
 * needs), until it returns 1. names_intern* call it on the caller's
 * thread, where the guard is held and nothing else: no lock, no marker
 * half done. A caller that interns under a lock of its own calls
 * names_before_first() before taking it. */
void names_on_first(int (*hook)(void));
void names_before_first(void);

/* At most max distinct names of the application's (PMCSHIM_MAX_NAMES);
 * set at setup. */
void names_set_limit(uint32_t max);

/* Ids 1 .. names_issued have been given out (grows; relaxed atomic). */
extern uint32_t names_issued;

/* How many ids were given out (they are 1 to it). */
static inline uint32_t names_issued_count(void)
{
	return __atomic_load_n(&names_issued, __ATOMIC_RELAXED);
}

/* Whether id was given out, as a marker asks: one compare, no lock. An
 * id it refuses takes names_given_out (the id may have been given out on
 * another thread an instant ago). */
static inline int names_issued_id(uint32_t id)
{
	return id - 1u < __atomic_load_n(&names_issued, __ATOMIC_RELAXED);
}

/* The same, for certain (takes the lock). */
int names_given_out(uint32_t id);

/* The name of an id, or "?"; takes the lock. */
const char *names_get(uint32_t id);

/* The source of an id (enum rf_from); takes the lock. */
uint32_t names_source(uint32_t id);

void names_lock(void);
void names_unlock(void);

#endif
