/* A call site seen from inside: the return address of a call, the
 * function and source line making it, and the function's entry. */
#ifndef SYMBOLIZE_TARGET_H
#define SYMBOLIZE_TARGET_H

struct site {
	void *ra;
	int line;
	const char *func, *file;
	void *func_addr;
};

void target_lib_site(struct site *out);

#endif
