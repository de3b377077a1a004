/* A process tree for the launcher's tests: the root forks a child,
 * fork+execs itself, and runs itself through `sh -c`; each process marks
 * its own regions, so the merged table shows whether every report of the
 * run was found.
 *   tree [EXIT [SIGNAL]]   the tree, then exit with EXIT (default 0) or
 *                          die of SIGNAL (after the children are done)
 *   tree leaf              one leaf process
 *   tree fan N             N leaves, each forked and exec'd (a wide run) */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmcshim.h>

static void leaf(void)
{
	for (int i = 0; i < 2; i++) {
		PMCSHIM_BEGIN("leaf");
		PMCSHIM_END("leaf");
	}
}

static pid_t start(const char *self, int how)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	if (how == 0) {
		for (int i = 0; i < 3; i++) {
			PMCSHIM_BEGIN("forked");
			PMCSHIM_END("forked");
		}
		exit(0);
	}
	if (how == 1)
		execl(self, self, "leaf", (char *)NULL);
	else
		execl("/bin/sh", "sh", "-c", "\"$0\" leaf", self, (char *)NULL);
	_exit(99);
}

int main(int argc, char **argv)
{
	pid_t kids[3];
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (argc > 1 && strcmp(argv[1], "leaf") == 0) {
		leaf();
		return 0;
	}
	self[n > 0 ? n : 0] = '\0';
	if (argc > 2 && strcmp(argv[1], "fan") == 0) {
		for (int i = atoi(argv[2]); i > 0; i--)
			start(self, 1);
		while (wait(NULL) > 0)
			;
		return 0;
	}
	for (int how = 0; how < 3; how++)
		kids[how] = start(self, how);
	PMCSHIM_BEGIN("root");	/* after the forks: the children inherit no open region */
	for (int i = 0; i < 3; i++)
		waitpid(kids[i], NULL, 0);
	PMCSHIM_END("root");
	if (argc > 2)
		raise(atoi(argv[2]));
	return argc > 1 ? atoi(argv[1]) : 0;
}
