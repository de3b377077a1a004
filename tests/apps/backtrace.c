/* The application's own backtrace() must still be glibc's under the shim,
 * and none of libunwind's names may be visible to it. Exit 0 when so. */
#include <dlfcn.h>
#include <execinfo.h>
#include <stdio.h>
#include <string.h>

static const char *module_of(void *p)
{
	Dl_info info;

	return p && dladdr(p, &info) && info.dli_fname ? info.dli_fname : "(none)";
}

int main(void)
{
	void *frames[16];
	int n = backtrace(frames, 16);
	const char *direct = module_of((void *)&backtrace);
	const char *global = module_of(dlsym(RTLD_DEFAULT, "backtrace"));
	void *unw = dlsym(RTLD_DEFAULT, "unw_backtrace");
	int bad = 0;

	printf("backtrace() -> %s\n", direct);
	printf("dlsym(backtrace) -> %s\n", global);
	printf("frames: %d\n", n);
	printf("unw_backtrace visible: %s\n", unw ? module_of(unw) : "no");
	bad |= strstr(direct, "libc.so") == NULL;
	bad |= strstr(global, "libc.so") == NULL;
	bad |= unw != NULL;
	bad |= n < 2;
	return bad;
}
