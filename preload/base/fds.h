/* The shim's file descriptors: kept out of the numbers the application
 * expects to get (many programs assume open() returns the lowest free
 * number, often 3), and watched: the application may close them
 * (close_range, closefrom) or put its own files on their numbers (dup2,
 * dup3). The interposed calls mark such a descriptor lost, so the shim
 * never reads, writes or closes one it no longer owns. Raw syscalls go
 * around them: a counter's descriptor is also checked for its event's id
 * before each read or close (counters.c). */
#ifndef PMCSHIM_FDS_H
#define PMCSHIM_FDS_H

#define FDS_FLOOR 64	/* the shim's descriptors start at least here */

/* Move fd to a high number (close-on-exec) that still leaves the low
 * ones free; returns the new fd, or fd itself when that is not possible. */
int fds_move_high(int fd);

/* Run fn while every free descriptor below FDS_FLOOR is taken, so that
 * whatever descriptors fn makes a library open (libunwind's validation
 * pipe) land above it. Single-threaded use (constructor). */
void fds_with_low_reserved(void (*fn)(void *), void *arg);

/* The shim holds fd now / no longer. */
void fds_own(int fd);
void fds_disown(int fd);
/* The application closed or replaced fd since fds_own. */
int fds_lost(int fd);
/* Close fd if it is still ours. */
void fds_close(int fd);

#endif
