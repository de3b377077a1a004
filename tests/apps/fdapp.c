/* fdapp MODE: what an application may do to descriptors it did not open.
 *   first:   prints the number its first open() gets (run under ulimit -n 16)
 *   reuse:   finds the shim's counter descriptors, closes everything with
 *            close_range, puts a pipe on their numbers with dup2, marks a
 *            region, and checks the pipe still holds what it wrote there
 *   closefrom: closefrom(3), then markers; must not crash
 * The same behind the shim's back (raw syscalls, which it cannot see; a
 * marker that read or waited on the application's pipe would take its
 * bytes or hang: an alarm ends a hang with SIGALRM):
 *   rawdup:    a pipe holding "DATA" put on the counters' numbers with a
 *              raw dup2 (dup3), then markers; the pipe keeps its bytes
 *              (region "across" is open meanwhile)
 *   rawclose:  the counters closed with a raw close_range, an empty pipe
 *              on their numbers (F_DUPFD: the lowest free), then markers
 *   perfswap:  the application's own perf event put on the numbers with
 *              a raw dup3, then markers; it still reads it there
 *   rawthread: rawdup on a thread's own counters, then the thread ends;
 *              its numbers still hold the pipe */
#include <dirent.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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

/* fd onto number to, behind the shim's back (SYS_dup2 is x86's alone). */
static int raw_dup(int fd, int to)
{
	return (int)syscall(SYS_dup3, fd, to, 0);
}

/* The pipe holds exactly "DATA" (written before the markers or after). */
static int pipe_intact(int *p, int write_first, int n)
{
	char buf[16] = "";

	if (write_first && write(p[1], "DATA", 4) != 4)
		return 1;
	mark(n);
	if (!write_first && write(p[1], "DATA", 4) != 4)
		return 1;
	if (read(p[0], buf, sizeof(buf) - 1) != 4 || strcmp(buf, "DATA") != 0)
		return printf("fdapp: the pipe lost its data: '%s'\n", buf), 1;
	return 0;
}

static int rawdup(void)
{
	int fds[MAXFD], n = perf_fds(fds), p[2];

	if (n == 0 || pipe(p) != 0)
		return printf("fdapp: no counter descriptors\n"), 1;
	PMCSHIM_BEGIN("across");	/* open while the numbers change hands */
	for (int i = 0; i < n; i++)
		if (raw_dup(p[0], fds[i]) != fds[i])
			return 1;
	if (pipe_intact(p, 1, 10))
		return 1;
	PMCSHIM_END("across");
	printf("fdapp: %d counter descriptors replaced (raw dup3), pipe intact\n", n);
	return 0;
}

static int rawclose(void)
{
	int fds[MAXFD], n = perf_fds(fds), p[2];

	if (n == 0 || pipe(p) != 0)
		return printf("fdapp: no counter descriptors\n"), 1;
	for (int i = 0; i < n; i++)
		if (syscall(SYS_close_range, fds[i], fds[i], 0) != 0 ||
		    fcntl(p[0], F_DUPFD, fds[i]) != fds[i])
			return 1;
	if (pipe_intact(p, 0, 10))
		return 1;
	printf("fdapp: %d counter descriptors closed (raw close_range), empty pipe on them, "
	       "pipe intact\n", n);
	return 0;
}

static int own_event(void)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_TASK_CLOCK, .exclude_kernel = 1 };

	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static int perfswap(void)
{
	int fds[MAXFD], n = perf_fds(fds), ev = own_event();
	uint64_t v[4];

	if (n == 0 || ev < 0)
		return printf("fdapp: no counter descriptors\n"), 1;
	for (int i = 0; i < n; i++)
		if (raw_dup(ev, fds[i]) != fds[i])
			return 1;
	mark(10);
	if (read(fds[0], v, sizeof(v)) != sizeof(v[0]))
		return printf("fdapp: the application's event reads wrong\n"), 1;
	printf("fdapp: %d counter descriptors hold the application's event, still readable\n",
	       n);
	return 0;
}

/* rawthread: the main thread's numbers, known before the thread starts. */
static int main_fds[MAXFD], main_n;
static struct stat pipe_st;

static int is_mine(int fd)
{
	for (int i = 0; i < main_n; i++)
		if (main_fds[i] == fd)
			return 1;
	return 0;
}

static void *thread_swaps(void *arg)
{
	int *p = arg, fds[MAXFD], n, k = 0;

	mark(1);			/* the thread's counters are open */
	n = perf_fds(fds);
	for (int i = 0; i < n; i++)
		if (!is_mine(fds[i]))
			fds[k++] = fds[i];
	for (int i = 0; i < k; i++)
		raw_dup(p[0], fds[i]);
	p[2] = k > 0 ? fds[0] : -1;
	p[3] = pipe_intact(p, 1, 10);
	return NULL;
}

static int rawthread(void)
{
	int p[4];
	pthread_t t;
	struct stat st;

	main_n = perf_fds(main_fds);
	if (pipe(p) != 0 || fstat(p[0], &pipe_st) != 0)
		return 1;
	pthread_create(&t, NULL, thread_swaps, p);
	pthread_join(t, NULL);
	if (p[2] < 0 || p[3] != 0)
		return printf("fdapp: the thread's pipe: number %d, %s\n", p[2],
			      p[3] ? "lost its data" : "intact"), 1;
	if (fstat(p[2], &st) != 0 || st.st_ino != pipe_st.st_ino)
		return printf("fdapp: the thread's end closed the pipe on %d\n", p[2]), 1;
	printf("fdapp: the thread ended, its numbers still hold the pipe\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "first";

	alarm(60);	/* a marker blocked on the application's pipe: fail, never hang */
	mark(1);
	if (!strcmp(mode, "rawdup"))
		return rawdup();
	if (!strcmp(mode, "rawclose"))
		return rawclose();
	if (!strcmp(mode, "perfswap"))
		return perfswap();
	if (!strcmp(mode, "rawthread"))
		return rawthread();
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
