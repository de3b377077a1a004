/* fork(): the child gets its own counters, totals and report. */
#ifndef PMCSHIM_FORK_H
#define PMCSHIM_FORK_H

void fork_install(void (*on_child)(int recording));

#endif
