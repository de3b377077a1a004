/* SIGBUS in the shim's own mapping: a report file cut short under the
 * running program (truncate, cp over it) makes the next store into its
 * lost pages fault. The shim's handler stays installed first; it mends
 * its own faults and hands every other SIGBUS to what the application
 * asked for (its handler, the default action, ignore), as if the shim
 * were not there. The application's sigaction()/signal() for SIGBUS are
 * kept and reported back to it; the kernel keeps the shim's handler. */
#ifndef PMCSHIM_SIGBUS_H
#define PMCSHIM_SIGBUS_H

/* mend(addr): 1 when the fault at addr was the shim's and is mended (the
 * faulting access is retried), else 0. Async-signal-safe. Call once, in
 * the constructor. */
void sigbus_install(int (*mend)(void *addr));

/* exec*(): the new image gets what the application set (an ignored
 * SIGBUS stays ignored); an exec that failed takes the shim's back. */
void sigbus_before_exec(void);
void sigbus_after_exec_failed(void);

/* fn(sig) runs before the application's sigaction() or signal() sets an
 * action for sig (the sampler's: its signal taken by the application).
 * Once, at load time. */
void sigbus_watch(void (*fn)(int sig));

#endif
