#include "fds.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

int fds_move_high(int fd)
{
	struct rlimit rl;
	int floor = FDS_FLOOR, high;

	/* Counters need one fd per event per thread: prefer the top half. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur / 2 > FDS_FLOOR)
		floor = rl.rlim_cur / 2 > 1 << 20 ? 1 << 20 : (int)(rl.rlim_cur / 2);
	high = fcntl(fd, F_DUPFD_CLOEXEC, floor);
	if (high < 0)
		high = fcntl(fd, F_DUPFD_CLOEXEC, FDS_FLOOR);
	if (high < 0)
		return fd;
	close(fd);
	return high;
}

void fds_with_low_reserved(void (*fn)(void *), void *arg)
{
	int taken[FDS_FLOOR], n = 0;
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	while (fd >= 0 && fd < FDS_FLOOR && n < FDS_FLOOR) {
		taken[n++] = fd;
		fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	}
	if (fd >= FDS_FLOOR)
		close(fd);
	fn(arg);
	while (n > 0)
		close(taken[--n]);
}
