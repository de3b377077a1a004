/* A program whose SIGALRM handler marks a region, with a 20 us timer
 * started before its first marker: the shim calibrates its markers at the
 * first name, while the timer fires. */
#include <pmcshim.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

static volatile sig_atomic_t ticks;

static void on_alarm(int sig)
{
	(void)sig;
	PMCSHIM_BEGIN("handler");
	ticks++;
	PMCSHIM_END("handler");
}

int main(void)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 20 }, { 0, 20 } };
	volatile double x = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (int i = 0; i < 50; i++) {
		PMCSHIM_BEGIN("work");
		for (int j = 0; j < 20000; j++)
			x += j;
		PMCSHIM_END("work");
	}
	it = (struct itimerval){ { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &it, NULL);
	printf("done\n");
	return 0;
}
