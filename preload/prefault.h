/* The shim's own code and read-only data, mapped at its start in one
 * call rather than a page fault at a time. */
#ifndef PMCSHIM_PREFAULT_H
#define PMCSHIM_PREFAULT_H

void prefault_code(void);

#endif
