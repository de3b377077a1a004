/* 40,000 distinct functions as -finstrument-functions reports them: the
 * program calls the compiler's hooks itself, with addresses inside an
 * array of its own (glibc's hooks do nothing without the shim). Past the
 * shim's limit the rest are counted in the report, not only on stderr. */
#include <stdio.h>

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

static char code[40000];

int main(void)
{
	for (int i = 0; i < 40000; i++) {
		__cyg_profile_func_enter(code + i, (void *)main);
		__cyg_profile_func_exit(code + i, (void *)main);
	}
	puts("done");
	return 0;
}
