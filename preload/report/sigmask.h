/* SIGBUS never blocked for the kernel while the shim maps its report file.
 * A store into the mapping of a file cut short faults with SIGBUS; if the
 * faulting thread blocks SIGBUS (a program that blocks every signal and
 * waits for them in one thread with sigwait), the kernel does not queue
 * it: it resets the action to the default and ends the process. So the
 * application's sigprocmask() and pthread_sigmask() are interposed: SIGBUS
 * is taken out of what reaches the kernel, and kept here as the thread's
 * view, which is what the application is told (the old set it gets back,
 * a new thread's mask, inherited). A SIGBUS sent (kill, raise) to a thread
 * whose view blocks it is held here and sent again, with its siginfo,
 * when the thread unblocks it. What is not kept: a held SIGBUS is not
 * seen by sigwait() or sigpending(); one sent to the process waits for
 * the thread that got it, not for any thread that unblocks it; a mask set
 * by a raw syscall, setcontext() or siglongjmp() is not seen here. */
#ifndef PMCSHIM_SIGMASK_H
#define PMCSHIM_SIGMASK_H

#include <signal.h>

/* The shim's handler is in: from now on the masks are filtered; this
 * thread's SIGBUS, if blocked (inherited over exec), is unblocked for the
 * kernel and kept blocked in its view. */
void sigmask_start(void);
/* Whether this thread's view blocks SIGBUS. Async-signal-safe. */
int sigmask_app_blocks(void);
/* Set this thread's view (a new thread: its creator's; the application's
 * SIGBUS handler: blocked while it runs); unblocked, a held SIGBUS is sent
 * again. Async-signal-safe. */
void sigmask_set_app_blocks(int on);
/* A sent SIGBUS its view blocks: held until it unblocks it (standard
 * signals do not queue: a second one while held is the same one). */
void sigmask_hold(const siginfo_t *si);
/* exec*() (before: 1) keeps the mask the application set, SIGBUS too (the
 * new image has no mapping of ours yet); an exec that failed (0) takes
 * it out again. */
void sigmask_exec(int before);

#endif
