/* Things the shim must leave alone: output, exit status, errno (across
 * markers and thread start), the numbering of new file descriptors, and
 * what an exec'd child inherits. Prints what it sees; the test compares
 * runs with and without the shim. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmcshim.h>

/* Descriptors below 64: the range the shim leaves to the application. */
static int count_low_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' && atoi(e->d_name) < 64 && atoi(e->d_name) != dirfd(d))
			n++;
	if (d)
		closedir(d);
	return n;
}

static void *thread_errno(void *arg)
{
	(void)arg;
	return (void *)(long)errno;	/* a new thread starts with errno 0 */
}

int main(int argc, char **argv)
{
	pthread_t t;
	void *r;
	int fd;

	if (argc > 1 && strcmp(argv[1], "child") == 0) {
		printf("child low fds: %d\n", count_low_fds());
		return 0;
	}
	errno = EDOM;
	PMCSHIM_BEGIN("a");
	PMCSHIM_END("a");
	pmcshim_begin_name("b");
	pmcshim_end_name("b");
	PMCSHIM_END("never-opened");
	printf("errno after markers: %s\n", errno == EDOM ? "EDOM" : strerror(errno));
	errno = ERANGE;
	pthread_create(&t, NULL, thread_errno, NULL);
	printf("errno after pthread_create: %s\n", errno == ERANGE ? "ERANGE" : strerror(errno));
	pthread_join(t, &r);
	printf("errno in new thread: %ld\n", (long)r);
	fd = open("/dev/null", O_RDONLY);
	printf("first open: %d\n", fd);
	close(fd);
	printf("low fds: %d\n", count_low_fds());
	fflush(stdout);
	if (fork() == 0) {
		execl("/proc/self/exe", argv[0], "child", (char *)NULL);
		_exit(127);
	}
	wait(NULL);
	fprintf(stderr, "app stderr line\n");
	return 7;
}
