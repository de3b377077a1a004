#include "ending.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/clock.h"
#include "regions/names.h"
#include "report/mapfile.h"
#include "threads.h"

#define EXPORT __attribute__((visibility("default")))
#define ARGS_MAX 4096		/* execl* arguments we pass on */

static void (*on_end)(void), (*on_resume)(void);
static int ended;

void ending_install(void (*end)(void), void (*resume)(void))
{
	on_end = end;
	on_resume = resume;
}

/* The file is this process's own: not in a vfork() child, which shares
 * the parent's memory (and must leave the parent's file alone). */
static int own_process(void)
{
	const struct rf_header *h = mapfile_header();

	return on_end && h && h->pid == (uint64_t)getpid();
}

static void end_process(uint32_t state, const char *target)
{
	int saved = errno;

	if (!own_process() || __atomic_exchange_n(&ended, 1, __ATOMIC_ACQ_REL))
		return;
	on_end();
	threads_end_process(state != RF_EXECED);
	/* (a process that named a region has tick-based values to convert) */
	clock_calibrate(names_issued_count() != 0);
	mapfile_finish(state, target);
	errno = saved;
}

/* An exec that returned failed: the process goes on recording. */
static void resume_process(void)
{
	int saved = errno;

	if (!own_process() || !__atomic_exchange_n(&ended, 0, __ATOMIC_ACQ_REL))
		return;
	mapfile_unfinish();
	threads_resume();
	on_resume();
	errno = saved;
}

__attribute__((destructor)) static void at_exit(void)
{
	end_process(RF_EXITED, NULL);
}

static void *next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

/* --- _exit ----------------------------------------------------------------- */

static __attribute__((noreturn)) void quick_exit_with(const char *name, int status)
{
	void (*real)(int) __attribute__((noreturn));

	end_process(RF_QUICK_EXIT, NULL);
	*(void **)&real = next(name);
	if (real)
		real(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

EXPORT void _exit(int status)
{
	quick_exit_with("_exit", status);
}

EXPORT void _Exit(int status)
{
	quick_exit_with("_Exit", status);
}

/* --- exec -------------------------------------------------------------------- */

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);

/* The libc function `name` (with an environment), the file recorded as
 * exec'd first; back to recording if it returns (it failed). */
static int exec3(const char *name, const char *file, char *const argv[], char *const envp[])
{
	execve_fn real;
	int rc;

	*(void **)&real = next(name);
	end_process(RF_EXECED, file);
	rc = real ? real(file, argv, envp) : (errno = ENOSYS, -1);
	resume_process();
	return rc;
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return exec3("execve", path, argv, envp);
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return exec3("execvpe", file, argv, envp);
}

static int exec2(const char *name, const char *file, char *const argv[])
{
	execv_fn real;
	int rc;

	*(void **)&real = next(name);
	end_process(RF_EXECED, file);
	rc = real ? real(file, argv) : (errno = ENOSYS, -1);
	resume_process();
	return rc;
}

EXPORT int execv(const char *path, char *const argv[])
{
	return exec2("execv", path, argv);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	return exec2("execvp", file, argv);
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	int (*real)(int, char *const[], char *const[]);
	int rc;

	*(void **)&real = next("fexecve");
	end_process(RF_EXECED, "(fexecve)");
	rc = real ? real(fd, argv, envp) : (errno = ENOSYS, -1);
	resume_process();
	return rc;
}

/* execl, execlp, execle: gather the list, then the vector forms above. */
enum list_form { LIST_PATH, LIST_SEARCH, LIST_ENV };

static int exec_list(enum list_form form, const char *file, const char *arg0, va_list ap)
{
	char *argv[ARGS_MAX + 1];
	char **envp = NULL;
	int n = 0;

	argv[n++] = (char *)arg0;
	while (arg0 && n < ARGS_MAX && (argv[n] = va_arg(ap, char *)) != NULL)
		n++;
	if (n == ARGS_MAX)
		return errno = E2BIG, -1;
	argv[n] = NULL;
	if (form == LIST_ENV)
		envp = va_arg(ap, char **);
	if (form == LIST_SEARCH)
		return execvp(file, argv);
	return form == LIST_ENV ? execve(file, argv, envp) : execv(file, argv);
}

EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	int rc;

	va_start(ap, arg);
	rc = exec_list(LIST_PATH, path, arg, ap);
	va_end(ap);
	return rc;
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	int rc;

	va_start(ap, arg);
	rc = exec_list(LIST_SEARCH, file, arg, ap);
	va_end(ap);
	return rc;
}

EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	int rc;

	va_start(ap, arg);
	rc = exec_list(LIST_ENV, path, arg, ap);
	va_end(ap);
	return rc;
}
