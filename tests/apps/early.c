/* early: linked with libearly.so, whose constructor marks "early" before
 * the shim's constructor has run; main marks "main". */
#include <stdio.h>

#include <pmcshim.h>

extern int early_active;

int main(void)
{
	PMCSHIM_BEGIN("main");
	PMCSHIM_END("main");
	printf("early: active %d\n", early_active);
	return 0;
}
