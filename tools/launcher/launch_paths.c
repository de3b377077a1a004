/* Where the launcher finds the shim and the reader: relative to its own
 * executable, never a path fixed at build time, so a build tree, an
 * installed prefix and a DESTDIR copy moved elsewhere all work. */
#include "launch.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The directory of /proc/self/exe (symlinks to the launcher resolved). */
static int exe_dir(char *out, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", out, len - 1);
	char *slash;

	if (n <= 0)
		return -1;
	out[n] = '\0';
	slash = strrchr(out, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	return 0;
}

/* The first of dir/candidates[i] that exists, into out. */
static int first_existing(const char *dir, const char *const *candidates,
			  char *out, size_t len)
{
	for (int i = 0; candidates[i]; i++) {
		if ((size_t)snprintf(out, len, "%s/%s", dir, candidates[i]) >= len)
			continue;
		if (access(out, R_OK) == 0)
			return 0;
	}
	return -1;
}

int launch_find_tools(struct launch *l)
{
	/* build tree: build/pmcshim next to build/libpmcshim.so;
	 * installed: PREFIX/bin/pmcshim and PREFIX/lib/pmcshim/libpmcshim.so */
	static const char *const shims[] = { "libpmcshim.so", "../lib/pmcshim/libpmcshim.so",
					     "../lib64/pmcshim/libpmcshim.so", NULL };
	static const char *const readers[] = { "pmcshim-report", NULL };
	char dir[PATH_MAX];

	if (exe_dir(dir, sizeof(dir)) != 0) {
		fprintf(stderr, LAUNCHER ": cannot read /proc/self/exe: %s\n", strerror(errno));
		return -1;
	}
	if (first_existing(dir, shims, l->shim, sizeof(l->shim)) != 0) {
		fprintf(stderr, LAUNCHER ": libpmcshim.so is neither in %s nor in "
			"%s/../lib/pmcshim (an incomplete install?)\n", dir, dir);
		return -1;
	}
	if (first_existing(dir, readers, l->reader, sizeof(l->reader)) != 0) {
		fprintf(stderr, LAUNCHER ": pmcshim-report is not in %s "
			"(an incomplete install?)\n", dir);
		return -1;
	}
	return 0;
}

/* pmcshim-COMMAND-YYYYmmdd-HHMMSS, then -2, -3... if taken. */
static int make_default_dir(struct launch *l, char *out, size_t len)
{
	const char *cmd = strrchr(l->argv[0], '/') ? strrchr(l->argv[0], '/') + 1 : l->argv[0];
	char stamp[32];
	time_t now = time(NULL);

	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
	for (int i = 1; i < 1000; i++) {
		char suffix[16] = "";

		if (i > 1)
			snprintf(suffix, sizeof(suffix), "-%d", i);
		if ((size_t)snprintf(out, len, "pmcshim-%.64s-%s%s", *cmd ? cmd : "run",
				     stamp, suffix) >= len)
			return -1;
		if (mkdir(out, 0777) == 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	fprintf(stderr, LAUNCHER ": cannot make a run directory %s: %s\n", out, strerror(errno));
	return -1;
}

static int dir_is_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int empty = 1;

	if (!d)
		return 0;
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	closedir(d);
	return empty;
}

/* The missing directories above dir, mode 0700 (private: the run's
 * reports name its commands and arguments); 0, or -1 with errno. */
static int make_parents(const char *dir)
{
	char path[PATH_MAX];
	size_t n = strlen(dir);

	if (n == 0)
		return 0;
	if (n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(path, dir, n + 1);
	while (n > 1 && path[n - 1] == '/')	/* "a/b/c/": c is not a parent */
		path[--n] = '\0';
	for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0700) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return 0;
}

/* -o DIR: made if missing; an existing one must be empty, or the run's
 * reports would be merged with older ones. */
static int use_given_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0777) == 0)
		return 0;
	if (errno == ENOENT && make_parents(dir) == 0 && mkdir(dir, 0777) == 0)
		return 0;
	if (errno != EEXIST || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, LAUNCHER ": -o %s: %s\n", dir,
			errno == EEXIST ? "exists and is not a directory" : strerror(errno));
		return -1;
	}
	if (!dir_is_empty(dir)) {
		fprintf(stderr, LAUNCHER ": -o %s: the directory is not empty; give a new or "
			"empty one, so this run's reports are not merged with others\n", dir);
		return -1;
	}
	if (access(dir, W_OK | X_OK) != 0) {	/* the processes could not write there */
		fprintf(stderr, LAUNCHER ": -o %s: cannot be written in (%s)\n", dir,
			strerror(errno));
		return -1;
	}
	return 0;
}

int launch_make_dir(struct launch *l)
{
	char rel[PATH_MAX];

	if (l->outdir) {
		if (use_given_dir(l->outdir) != 0)
			return -1;
		snprintf(rel, sizeof(rel), "%s", l->outdir);
	} else if (make_default_dir(l, rel, sizeof(rel)) != 0) {
		return -1;
	}
	/* Absolute: the processes of the run may change directory. */
	if (!realpath(rel, l->dir)) {
		fprintf(stderr, LAUNCHER ": %s: %s\n", rel, strerror(errno));
		return -1;
	}
	return 0;
}
