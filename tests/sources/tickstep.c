/* Runs a program under ptrace and, between its first and second SIGUSR1
 * (notick.c's window), single-steps it, counting the instructions and the
 * tick reads among them (x86-64: rdtsc 0f 31, rdtscp 0f 01 f9). Other
 * signals are passed on. Prints "steps N ticks T", exit 0; 2 on a
 * failure to trace; 77 off x86-64.
 * Usage: tickstep PROGRAM [ARGS...] (the environment is passed on, with
 * LD_PRELOAD from TICKSTEP_PRELOAD: the tracer itself runs without it) */
#include <stdlib.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
static int is_tick_read(pid_t pid)
{
	struct user_regs_struct regs;
	unsigned long word;

	if (ptrace(PTRACE_GETREGS, pid, 0, &regs) != 0)
		return 0;
	errno = 0;
	word = (unsigned long)ptrace(PTRACE_PEEKTEXT, pid, (void *)regs.rip, 0);
	if (errno)
		return 0;
	return (word & 0xffff) == 0x310f || (word & 0xffffff) == 0xf9010f;
}

int main(int argc, char **argv)
{
	unsigned long steps = 0, ticks = 0;
	int status, usr1 = 0;
	pid_t pid;

	if (argc < 2)
		return 2;
	if ((pid = fork()) == 0) {
		if (getenv("TICKSTEP_PRELOAD"))
			setenv("LD_PRELOAD", getenv("TICKSTEP_PRELOAD"), 1);
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		execv(argv[1], argv + 1);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))	/* the exec */
		return 2;
	ptrace(PTRACE_CONT, pid, 0, 0);
	while (waitpid(pid, &status, 0) == pid && WIFSTOPPED(status)) {
		int sig = WSTOPSIG(status), pass = sig;

		if (sig == SIGUSR1) {
			usr1++;
			pass = 0;
		} else if (sig == SIGTRAP && usr1 == 1) {
			pass = 0;	/* a step */
			steps++;
			ticks += is_tick_read(pid);
		}
		if (ptrace(usr1 == 1 ? PTRACE_SINGLESTEP : PTRACE_CONT, pid, 0, pass) != 0)
			return 2;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || usr1 != 2) {
		fprintf(stderr, "tickstep: status 0x%x, %d SIGUSR1 seen\n", status, usr1);
		return 2;
	}
	printf("steps %lu ticks %lu\n", steps, ticks);
	return 0;
}
#else
int main(void)
{
	return 77;
}
#endif
