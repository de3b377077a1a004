/* Built by the install test against the installed header only, with
 * pkg-config's flags. */
#include <stdio.h>

#include <pmcshim.h>

int main(void)
{
	for (int i = 0; i < 5; i++) {
		PMCSHIM_BEGIN("installed");
		PMCSHIM_END("installed");
	}
	printf("app: %s\n", pmcshim_active() ? "under pmcshim" : "alone");
	return 0;
}
