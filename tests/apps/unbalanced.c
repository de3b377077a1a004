/* Every kind of unbalanced marker, around one region used correctly. */
#include <stdio.h>

#include <pmcshim.h>

int main(void)
{
	PMCSHIM_END("stray");			/* end-unopened */
	PMCSHIM_END("stray");
	PMCSHIM_BEGIN("outer");
	PMCSHIM_BEGIN("forgotten");
	PMCSHIM_END("outer");			/* end-mismatch: closes "forgotten" first */
	for (int i = 0; i < 4; i++) {
		PMCSHIM_BEGIN("good");
		PMCSHIM_END("good");
	}
	PMCSHIM_BEGIN("left-open");		/* open-at-exit */
	printf("unbalanced: done\n");
	return 3;
}
