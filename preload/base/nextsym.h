/* The definition a wrapper passes a call on to: the one after the shim in
 * the global scope, or, where its library is in no global scope (the
 * dependency of a module dlopen()ed RTLD_LOCAL: an MPI or OpenMP binding
 * of Python, R, Julia, whose calls still come to the shim first), the one
 * a loaded object's own scope finds. */
#ifndef PMCSHIM_NEXTSYM_H
#define PMCSHIM_NEXTSYM_H

/* dlsym(scope, name) (RTLD_NEXT, RTLD_DEFAULT), else each loaded object
 * but the shim asked in turn, with its dependencies; NULL when none has
 * it. Loads nothing (dlopen RTLD_NOLOAD). Not on a warm path: callers keep
 * what it finds. */
void *nextsym(void *scope, const char *name);

/* The next definition of name (RTLD_NEXT), found once and kept in *slot
 * (NULL while there is none); for wrappers called on warm paths. */
void *nextsym_once(void **slot, const char *name);

#endif
