/* Text without stdio, for the start of every process and for signal
 * handlers: snprintf's first call pages in printf's code and tables
 * (five page faults, ~60 us on a VM, in a program that prints nothing),
 * and is not async-signal-safe. Each appends at buf[at], stops one byte
 * short of len (so buf[at] = '\0' always fits) and returns the new at. */
#ifndef PMCSHIM_TEXT_H
#define PMCSHIM_TEXT_H

#include <stddef.h>
#include <stdint.h>

static inline size_t text_put(char *buf, size_t at, size_t len, const char *s)
{
	while (*s && at + 1 < len)
		buf[at++] = *s++;
	return at;
}

static inline size_t text_put_u64(char *buf, size_t at, size_t len, uint64_t v)
{
	char d[24];
	int n = 0;

	do
		d[n++] = (char)('0' + v % 10);
	while (v /= 10);
	while (n && at + 1 < len)
		buf[at++] = d[--n];
	return at;
}

/* s into buf (len bytes), cut to fit, terminated. */
static inline void text_copy(char *buf, size_t len, const char *s)
{
	buf[text_put(buf, 0, len, s)] = '\0';
}

#endif
