/* fdapp MODE: what an application may do to descriptors it did not open.
 *   first:   prints the number its first open() gets (run under ulimit -n 16)
 *   reuse:   finds the shim's counter descriptors, closes everything with
 *            close_range, puts a pipe on their numbers with dup2, marks a
 *            region, and checks the pipe still holds what it wrote there
 *   closefrom: closefrom(3), then markers; must not crash */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmcshim.h>

#define MAXFD 16

static int perf_fds(int *fds)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char link[256], path[300];
	int n = 0;

	while (d && (e = readdir(d)) && n < MAXFD) {
		ssize_t len;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len > 0 && (link[len] = '\0', strstr(link, "perf_event")))
			fds[n++] = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	return n;
}

static void mark(int n)
{
	for (int i = 0; i < n; i++) {
		PMCSHIM_BEGIN("after");
		PMCSHIM_END("after");
	}
}

static int reuse(void)
{
	int fds[MAXFD], n = perf_fds(fds), p[2];
	char buf[16] = "";

	if (n == 0)
		return printf("fdapp: no counter descriptors\n"), 0;
	close_range(3, ~0u, 0);
	if (pipe(p) != 0)
		return 1;
	for (int i = 0; i < n; i++)
		dup2(p[0], fds[i]);
	if (write(p[1], "DATA", 4) != 4)
		return 1;
	mark(10);
	if (read(p[0], buf, sizeof(buf) - 1) != 4 || strcmp(buf, "DATA") != 0)
		return printf("fdapp: the pipe lost its data: '%s'\n", buf), 1;
	printf("fdapp: %d counter descriptors reused, pipe intact\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "first";

	mark(1);
	if (!strcmp(mode, "first")) {
		int fd = open("/dev/null", O_RDONLY);
		printf("first fd %d\n", fd);
		return 0;
	}
	if (!strcmp(mode, "reuse"))
		return reuse();
	if (!strcmp(mode, "closefrom")) {
		closefrom(3);
		mark(10);
		printf("fdapp: closefrom ok\n");
	}
	return 0;
}
