/* The fork child must report its own work only. "outer", open in the
 * parent, is left open by the child: it ends with the child, unreported. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmcshim.h>

static void run(const char *what, int n)
{
	for (int i = 0; i < n; i++) {
		if (what[0] == 'p') {
			PMCSHIM_BEGIN("parent_work");
			PMCSHIM_END("parent_work");
		} else {
			PMCSHIM_BEGIN("child_work");
			PMCSHIM_END("child_work");
		}
	}
}

int main(void)
{
	int status = 0;
	pid_t pid;

	PMCSHIM_BEGIN("outer");
	run("parent", 3);
	PMCSHIM_BEGIN("across_fork");
	pid = fork();
	if (pid == 0) {
		run("child", 5);
		PMCSHIM_END("across_fork");
		return 0;
	}
	waitpid(pid, &status, 0);
	PMCSHIM_END("across_fork");
	run("parent", 2);
	printf("child pid %d exit %d\n", (int)pid, WEXITSTATUS(status));
	PMCSHIM_END("outer");
	return 0;
}
