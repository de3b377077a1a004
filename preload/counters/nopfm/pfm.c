/* pfm.h when the shim is built without libpfm4's headers (libpfm4-dev is
 * optional for the build): perf's own names keep working, and a native
 * name is refused with the reason. */
#include "counters/pfm.h"

#include <stdio.h>

static int refuse(char *err, size_t errlen)
{
	snprintf(err, errlen, "no native names: pmcshim was built without libpfm4's headers "
		 "(Debian package libpfm4-dev; rebuild after installing it)");
	return -1;
}

int native_encode(const char *name, struct native_attr *out, char *err, size_t errlen)
{
	(void)name;
	(void)out;
	return refuse(err, errlen);
}

int native_each(void (*fn)(void *arg, const char *name), void *arg,
		char *pmus, size_t pmuslen, char *err, size_t errlen)
{
	(void)fn;
	(void)arg;
	if (pmuslen)
		pmus[0] = '\0';
	return refuse(err, errlen);
}
