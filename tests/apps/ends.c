/* ends MODE N: N pairs of markers around region "work", then the process
 * ends the way MODE says, itself, so the number of calls made before the
 * end is known exactly:
 *   exit, kill (SIGKILL), term (SIGTERM), int, hup, segv, abort, _exit,
 *   sh (execs `sh -c 'exit 5'`, which ends with _exit under dash),
 *   exec (execs itself as "ends after N/2": region "after"),
 *   badexec (an exec that fails, then N/2 pairs "after" by name and
 *      "fixed" by id: the process records on),
 *   handler (40 rounds: SIGALRM's handler calls exit() while the main loop
 *      is inside markers; the parent counts the clean ends),
 *   daemon (markers until the file "stop" exists, one pair per ms),
 *   nested (an open region "outer" when SIGKILL comes),
 *   rawthread (a thread marks, then leaves with a raw SYS_exit),
 *   threads (N threads one after another, each marking; prints the
 *      resident memory after the first 100 and after all),
 *   forkafter (forks; while the child sets up its own file, the parent
 *      adds N regions "p<i>"; the child then marks "child" 5 times). */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmcshim.h>

static void work(long n, const char *region)
{
	for (long i = 0; i < n; i++) {
		pmcshim_begin_name(region);
		pmcshim_end_name(region);
	}
}

static void on_alarm(int sig)
{
	(void)sig;
	exit(0);
}

static void spin_round(void)
{
	PMCSHIM_BEGIN("spin");
	PMCSHIM_BEGIN("inner");
	PMCSHIM_END("inner");
	PMCSHIM_END("spin");
	pmcshim_begin_name("dynamic");
	pmcshim_end_name("dynamic");
}

/* Markers until SIGALRM's handler calls exit() in the middle of one. */
static void exit_from_handler(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 2000 } };

	/* every site exists and has calls before the timer can fire */
	for (int i = 0; i < 100; i++)
		spin_round();
	signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &it, NULL);
	for (;;)
		spin_round();
}

static void daemon_loop(void)
{
	for (;;) {
		work(1, "tick");
		if (access("stop", F_OK) == 0)
			exit(0);
		usleep(1000);
	}
}

static void *raw_exit(void *arg)
{
	work(10, "raw");
	__atomic_store_n((int *)arg, 1, __ATOMIC_RELEASE);
	syscall(SYS_exit, 0);
	return NULL;
}

static void raw_thread(void)
{
	static int marked;
	pthread_t t;

	pthread_create(&t, NULL, raw_exit, &marked);
	while (!__atomic_load_n(&marked, __ATOMIC_ACQUIRE))
		usleep(1000);
	usleep(20000);	/* not needed for the check: the thread is gone or going */
	exit(0);
}

static long rss_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

static void *one_thread(void *arg)
{
	work(4, "thread");
	return arg;
}

static void many_threads(long n)
{
	for (long i = 0; i < n; i++) {
		pthread_t t;
		pthread_create(&t, NULL, one_thread, NULL);
		pthread_join(t, NULL);
		if (i == 99)
			printf("rss100 %ld\n", rss_kb());
	}
	printf("rssall %ld\n", rss_kb());
	exit(0);
}

static void fork_after(long n)
{
	int go[2];
	char name[32], c = 0;
	pid_t pid;

	if (pipe(go) != 0)
		exit(2);
	pid = fork();
	if (pid == 0) {
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		work(5, "child");
		exit(0);
	}
	for (long i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "p%ld", i);
		work(1, name);
	}
	if (write(go[1], &c, 1) != 1)
		exit(2);
	waitpid(pid, NULL, 0);
	exit(0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "exit";
	long n = argc > 2 ? atol(argv[2]) : 1000;
	char count[32];

	if (!strcmp(mode, "handler"))
		exit_from_handler();
	if (!strcmp(mode, "daemon"))
		daemon_loop();
	if (!strcmp(mode, "rawthread"))
		raw_thread();
	if (!strcmp(mode, "threads"))
		many_threads(n);
	if (!strcmp(mode, "forkafter"))
		fork_after(n);
	if (!strcmp(mode, "after")) {
		work(n, "after");
		return 0;
	}
	if (!strcmp(mode, "nested"))
		pmcshim_begin_name("outer");
	work(n, "work");
	printf("done %ld\n", n);
	fflush(stdout);
	snprintf(count, sizeof(count), "%ld", n / 2);
	if (!strcmp(mode, "kill") || !strcmp(mode, "nested"))
		raise(SIGKILL);
	if (!strcmp(mode, "term"))
		raise(SIGTERM);
	if (!strcmp(mode, "int"))
		raise(SIGINT);
	if (!strcmp(mode, "segv"))
		*(volatile int *)(uintptr_t)8 = 1;
	if (!strcmp(mode, "abort"))
		abort();
	if (!strcmp(mode, "_exit"))
		_exit(3);
	if (!strcmp(mode, "exec"))
		execl("/proc/self/exe", "ends", "after", count, (char *)NULL);
	if (!strcmp(mode, "sh"))
		execl("/bin/sh", "sh", "-c", "exit 5", (char *)NULL);
	if (!strcmp(mode, "badexec") &&
	    execl("/nonexistent/ends", "ends", (char *)NULL) == -1) {
		work(n / 2, "after");
		for (long i = 0; i < n / 2; i++) {
			PMCSHIM_BEGIN("fixed");
			PMCSHIM_END("fixed");
		}
	}
	return 0;
}
