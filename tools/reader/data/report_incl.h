/* Inclusive values derived from the region tree: the one rule every view
 * keeps (docs/reading.md, "Inclusive and recursion").
 *
 * A row's inclusive value is its exclusive value plus the inclusive values
 * of the rows closed inside it: the sum of the exclusive values of its
 * subtree. Exclusive values are what every call adds to, with the markers'
 * own cost of the call and of each child call taken out, so an inclusive
 * value made from them is calibrated the same way, a node of the tree is
 * never smaller than its children, and never below its own exclusive
 * value, whatever the shim left in a row's own incl (0 for an inner
 * activation of a recursive region; a call folded or dropped is in its
 * parent's excl only).
 *
 * A group of rows (a region, or one call-site stack of it) counts the
 * inclusive value of a row only when no row of the same group is open
 * above it: a recursive re-entry adds to calls and exclusive, not again to
 * inclusive.
 *
 * Files without a tree (an older shim) keep the rows' own incl. */
#ifndef PMCSHIM_REPORT_INCL_H
#define PMCSHIM_REPORT_INCL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct model;
struct mthread;
struct report;
struct rep_thread;

/* Which outermost test a row's inclusive value passes (incl_outer). */
enum {
	OUTER_REGION = 1,		/* no row of its region above it */
	OUTER_STACK = 2,		/* no row of its region and stack above it */
	OUTER_NODE = 4			/* always: a tree node is its own group */
};

/* Fills each model thread's derived values (mthread.incl, .outer) where
 * its file holds a tree. */
void incl_derive(struct model *m);

/* The rule on any values of a thread's rows (the whole run's, or what an
 * interval of --watch added): own gives row j's value v (its excl, and
 * its incl as the site holds it, and what calibration took out of it;
 * false: no value); the result is each row's derived incl, [j * nv + v]
 * (free it). With taken, also each subtree's sum of what calibration
 * took out, laid out the same (free it too). */
typedef bool (*incl_own_fn)(void *arg, size_t j, size_t v, uint64_t *excl, uint64_t *incl,
			    uint64_t *taken);
uint64_t *incl_sweep(const struct rep_thread *t, size_t nv, incl_own_fn own, void *arg,
		     uint64_t **taken);
/* Each row's OUTER_* bits (free them). */
uint8_t *incl_outer(const struct report *r, const struct rep_thread *t);
void incl_free(struct model *m);

#endif
