/* SIGBUS in the shim's own mapping: a report file cut short under the
 * running program (truncate, cp over it) makes the next store into its
 * lost pages fault. The shim's handler stays installed first; it mends
 * its own faults and hands every other SIGBUS to what the application
 * asked for (its handler, the default action, ignore), as if the shim
 * were not there. The application's sigaction()/signal() for SIGBUS are
 * kept and reported back to it; the kernel keeps the shim's handler. */
#ifndef PMCSHIM_SIGBUS_H
#define PMCSHIM_SIGBUS_H

#include <signal.h>

/* The owner of a mapping, for its faults. All async-signal-safe. */
struct sigbus_mender {
	/* whether addr lies in its mapping (called on whatever stack the
	 * fault came on: a small frame) */
	int (*ours)(const void *addr);
	/* mend the fault at addr: 1 when the access can run again, else 0
	 * (the application's action then). One thread at a time, on a stack
	 * of the shim's own, with SIGBUS open: a fault in it calls again() */
	int (*mend)(void *addr);
	/* a fault in mend(), in the same thread (the file cut again): 1 when
	 * the access can run again, else 0 */
	int (*again)(void *addr);
};

/* Install the shim's SIGBUS handler for m (kept, not copied). Call once,
 * in the constructor. From then on SIGBUS is never blocked for the
 * kernel (sigmask.h). */
void sigbus_install(const struct sigbus_mender *m);

/* exec*(): the new image gets what the application set (an ignored
 * SIGBUS stays ignored, a blocked one blocked); an exec that failed takes
 * the shim's back. */
void sigbus_before_exec(void);
void sigbus_after_exec_failed(void);

/* The sampler's signal: while the kernel's action for sig is the shim's
 * handler, the application's sigaction() and signal() report the
 * default (SIG_DFL, no flags, an empty mask) in its place, as if the
 * shim were not there; fn(sig) runs before the application sets an
 * action for sig (its signal taken by the application). Once, at load
 * time. */
void sigbus_watch(int sig, void (*handler)(int, siginfo_t *, void *), void (*fn)(int sig));

#endif
