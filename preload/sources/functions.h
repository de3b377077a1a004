/* Regions from -finstrument-functions: one per function, keyed by its
 * address (the shim exports __cyg_profile_func_enter/exit). */
#ifndef PMCSHIM_FUNCTIONS_H
#define PMCSHIM_FUNCTIONS_H

/* PMCSHIM_FUNCTIONS (NULL: every function): checked at setup, one line
 * when it is bad. */
void functions_setup(const char *spec);

#endif
