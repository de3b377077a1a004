/* A library whose constructor marks a region: the dynamic linker runs it
 * before the constructor of a preloaded shim. */
#include <pmcshim.h>

int early_active;

__attribute__((constructor)) static void early(void)
{
	early_active = pmcshim_active();
	PMCSHIM_BEGIN("early");
	PMCSHIM_END("early");
}
