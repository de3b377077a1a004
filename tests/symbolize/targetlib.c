/* The shared-library half of the symbolizer's test target (see target.c):
 * a call site in a module loaded at a run-time base. */
#include "target.h"

static void *last_ra;

/* The call to it is a statement of its own: see mark() in target.c. */
static __attribute__((noinline)) void lib_mark(void)
{
	last_ra = __builtin_return_address(0);
}

static __attribute__((noinline)) void lib_caller(struct site *out)
{
	out->line = __LINE__ + 1;
	lib_mark();
	out->ra = last_ra;
	out->func = __func__;
	out->file = __FILE__;
	out->func_addr = (void *)lib_caller;
}

void target_lib_site(struct site *out)
{
	lib_caller(out);
}
