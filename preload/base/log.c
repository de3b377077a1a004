/* Messages go out in a single write() so lines from several threads or
 * processes do not interleave, and errno is left as the application had it. */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int quiet;

void log_set_quiet(int q)
{
	quiet = q;
}

static void log_v(const char *fmt, va_list ap)
{
	char line[1024] = "pmcshim: ";
	size_t prefix = strlen(line);
	int saved = errno;
	int n = vsnprintf(line + prefix, sizeof(line) - prefix - 1, fmt, ap);
	size_t len;

	if (n < 0)
		n = 0;
	len = prefix + (size_t)n;
	if (len > sizeof(line) - 2)
		len = sizeof(line) - 2;
	line[len++] = '\n';
	if (write(STDERR_FILENO, line, len) < 0) {
		/* nowhere left to report it */
	}
	errno = saved;
}

void log_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_v(fmt, ap);
	va_end(ap);
}

void log_notice(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	log_v(fmt, ap);
	va_end(ap);
}
