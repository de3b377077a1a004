/* Cost of the check a counter descriptor passes before each read() (the
 * markers' path wherever user-space counter reads are off or the events
 * are software ones): PERF_EVENT_IOC_ID, compared with the id saved at
 * open, then the read of the group. Against a floor measured in the same
 * run: the read alone. A group like the shim's (two software events, one
 * read with both times); interleaved rounds, the best of each.
 *
 *   build/bench-fdcheck
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define READS 200000
#define ROUNDS 9
#define FORMAT (PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | \
		PERF_FORMAT_TOTAL_TIME_RUNNING)

static int leader;
static uint64_t id, sink;

static int open_event(uint64_t config, int group)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.read_format = FORMAT;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void read_group(void)
{
	uint64_t buf[5];

	if (read(leader, buf, sizeof(buf)) == sizeof(buf))
		sink += buf[3];
}

__attribute__((noinline)) static void loop_read(void)
{
	for (int i = 0; i < READS; i++)
		read_group();
}

__attribute__((noinline)) static void loop_checked(void)
{
	for (int i = 0; i < READS; i++) {
		uint64_t now;

		if (ioctl(leader, PERF_EVENT_IOC_ID, &now) == 0 && now == id)
			read_group();
	}
}

static double ns_per_read(void (*fn)(void))
{
	double start = now_ns();

	fn();
	return (now_ns() - start) / READS;
}

int main(void)
{
	double rd = 1e30, ck = 1e30;

	leader = open_event(PERF_COUNT_SW_TASK_CLOCK, -1);
	if (leader < 0 || open_event(PERF_COUNT_SW_PAGE_FAULTS, leader) < 0 ||
	    ioctl(leader, PERF_EVENT_IOC_ID, &id) != 0) {
		perror("bench-fdcheck: perf_event_open");
		return 1;
	}
	loop_read();		/* warm */
	loop_checked();
	for (int r = 0; r < ROUNDS; r++) {
		double a = ns_per_read(loop_read), b = ns_per_read(loop_checked);
		rd = a < rd ? a : rd;
		ck = b < ck ? b : ck;
	}
	printf("%-40s %8s %8s\n", "a group of 2 software events", "ns/read", "x read");
	printf("%-40s %8.1f %8.2f\n", "read() alone (floor)", rd, 1.0);
	printf("%-40s %8.1f %8.2f\n", "PERF_EVENT_IOC_ID check, then read()", ck, ck / rd);
	printf("the check: +%.1f ns a read; a marker pair on this path makes 2 reads; "
	       "%d reads x %d rounds, best\n", ck - rd, READS, ROUNDS);
	return sink == 0;
}
