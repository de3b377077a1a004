/* Keeping the shim's file descriptors out of the numbers the application
 * expects to get (many programs assume open() returns the lowest free
 * number, often 3). */
#ifndef PMCSHIM_FDS_H
#define PMCSHIM_FDS_H

#define FDS_FLOOR 64	/* the shim's descriptors start at least here */

/* Move fd to a high number (close-on-exec); returns the new fd, or fd
 * itself when that is not possible. */
int fds_move_high(int fd);

/* Run fn while every free descriptor below FDS_FLOOR is taken, so that
 * whatever descriptors fn makes a library open (libunwind's validation
 * pipe) land above it. Single-threaded use (constructor). */
void fds_with_low_reserved(void (*fn)(void *), void *arg);

#endif
