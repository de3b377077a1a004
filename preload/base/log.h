/* One-line messages on stderr, each starting "pmcshim: ". */
#ifndef PMCSHIM_LOG_H
#define PMCSHIM_LOG_H

/* Always printed: lost data or rejected input. */
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Silenced by PMCSHIM_QUIET=1: notices about the environment. */
void log_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_set_quiet(int quiet);

#endif
