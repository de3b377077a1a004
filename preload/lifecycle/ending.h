/* How the process ends: exit() (the shim's destructor), _exit()/_Exit(),
 * and the exec family, which are interposed so the report file says which
 * it was, with the thread totals as of then. A process killed outright
 * leaves the file as it was: every closed region is in it already. */
#ifndef PMCSHIM_ENDING_H
#define PMCSHIM_ENDING_H

/* end: markers must stop (the process is ending); resume: an exec failed
 * and the process goes on. */
void ending_install(void (*end)(void), void (*resume)(void));

#endif
