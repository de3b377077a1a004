/* Where the report file goes, cut from mapfile.c along the line between
 * naming and making the file and writing into it: the configured output
 * expanded, the file created once (O_EXCL, 0600, never through a symlink,
 * never a device) under the first free numbered name, $TMPDIR the
 * fallback. It touches no mapping and keeps no state: mapfile.c passes
 * the buffer the name goes in, and grows the file with outpath_allocate
 * as it was made. */
#include "outpath.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "base/log.h"
#include "base/text.h"

/* Name for attempt k: the path itself, then "stem.k.ext" (or "path.k"). */
static void candidate(const char *want, int k, char *out, size_t len)
{
	const char *dot = strrchr(want, '.');
	const char *slash = strrchr(want, '/');

	if (k == 0)
		text_copy(out, len, want);
	else if (dot && (!slash || dot > slash + 1))
		snprintf(out, len, "%.*s.%d%s", (int)(dot - want), want, k, dot);
	else
		snprintf(out, len, "%s.%d", want, k);
}

static int under_dev(const char *p)
{
	return strncmp(p, "/dev/", 5) == 0 || strcmp(p, "/dev") == 0;
}

/* A path under /dev names a device unless its directory is a tmpfs
 * mounted there of its own (/dev/shm): not /dev's own file system, which
 * is devtmpfs (or, in a container, a tmpfs holding device nodes). */
static __attribute__((noinline)) int device_dir(const char *p)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(p, '/');
	struct stat d, dev;
	struct statfs fs;

	if (!slash || slash == p || (size_t)(slash - p) >= sizeof(dir))
		return 1;
	memcpy(dir, p, (size_t)(slash - p));
	dir[slash - p] = '\0';
	return stat(dir, &d) != 0 || stat("/dev", &dev) != 0 || d.st_dev == dev.st_dev ||
	       statfs(dir, &fs) != 0 || fs.f_type != TMPFS_MAGIC;
}

/* (the buffer apart: a page of stack at every start, probed or not) */
static int device_path(const char *p)
{
	return under_dev(p) && device_dir(p);
}

int outpath_allocate(int fd, uint64_t size)
{
	int rc = posix_fallocate(fd, 0, (off_t)size);

	/* file systems without fallocate: a sparse file, as ftruncate makes */
	if (rc == EOPNOTSUPP || rc == EINVAL)
		rc = ftruncate(fd, (off_t)size) == 0 ? 0 : errno;
	return rc;
}

/* Create the first free candidate of want (its name in path), with its
 * first size bytes allocated; never follows a symlink, never replaces
 * anything, never makes a file in /dev. -1 with errno (a full disk:
 * ENOSPC). */
static int create_excl(const char *want, uint64_t size, char *path, size_t len)
{
	struct stat st;

	/* ENODEV / ENOTSUP: open_output names them "a device", "not a
	 * regular file" */
	if (device_path(want))
		return errno = ENODEV, -1;
	for (int k = 0; k < 100; k++) {
		int fd, rc;

		candidate(want, k, path, len);
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		/* want itself there: only a regular file gets a numbered name */
		if (fd < 0 && errno == EEXIST) {
			if (k == 0 && stat(want, &st) == 0 && !S_ISREG(st.st_mode))
				return errno = S_ISDIR(st.st_mode) ? EISDIR : ENOTSUP, -1;
			continue;
		}
		if (fd < 0)
			return -1;
		if ((rc = outpath_allocate(fd, size)) == 0)
			return fd;
		close(fd);
		unlink(path);
		return errno = rc, -1;
	}
	return errno = EEXIST, -1;
}

/* The configured output, expanded; a directory gets the default name.
 * (The directory's pattern is put in path, which create_excl fills
 * next: a page of stack less, a page fault less at every start.) */
static int expand(const struct config *cfg, const char *exe, char *out, size_t len,
		  char *path, size_t pathlen)
{
	char host[256] = "";
	const char *pattern = cfg->output;
	struct stat st;
	size_t n = strlen(pattern);

	gethostname(host, sizeof(host) - 1);
	if (n && (pattern[n - 1] == '/' || (stat(pattern, &st) == 0 && S_ISDIR(st.st_mode)))) {
		const char *name = config_default_output(cfg);
		const char *slash = pattern[n - 1] == '/' ? "" : "/";

		if (n + strlen(slash) + strlen(name) >= pathlen)
			return errno = ENAMETOOLONG, -1;
		n = text_put(path, text_put(path, 0, pathlen, pattern), pathlen, slash);
		path[text_put(path, n, pathlen, name)] = '\0';
		pattern = path;
	}
	if (config_expand_output(pattern, getpid(), host, exe, cfg->rank, out, len) != 0)
		return errno = ENAMETOOLONG, -1;
	return 0;
}

static const char *reason(int err)
{
	if (err == ENODEV)
		return "a device: the report is never written in /dev";
	if (err == ENOTSUP)
		return "not a regular file";
	return strerror(err);
}

static __attribute__((noinline)) int open_fallback(const struct config *cfg, const char *exe,
						   int err, uint64_t size, char *path, size_t len)
{
	char fallback[PATH_MAX];
	const char *tmpdir = getenv("TMPDIR");
	int fd;

	if (!tmpdir || tmpdir[0] != '/')
		tmpdir = "/tmp";
	snprintf(fallback, sizeof(fallback), "%s/pmcshim-%s-%d.pmc", tmpdir, exe, (int)getpid());
	if (device_path(fallback))
		snprintf(fallback, sizeof(fallback), "/tmp/pmcshim-%s-%d.pmc", exe, (int)getpid());
	fd = create_excl(fallback, size, path, len);
	if (fd >= 0)
		log_error("cannot write the report to %s (%s); writing %s instead",
			  cfg->output, reason(err), path);
	else
		log_error("cannot write the report to %s (%s) nor to %s (%s); "
			  "this run is not recorded", cfg->output, reason(err),
			  fallback, reason(errno));
	return fd;
}

/* The executable's name in a file name (%e, and the fallback's) is cut
 * to this many bytes: a program may be called by a 255-byte name, and
 * pmcshim-NAME-PID.pmc would then be longer than a file name can be. The
 * report's header keeps the whole name. */
#define EXE_IN_NAME 100

/* (the fallback's buffer apart: a page of stack at every start) */
int outpath_open(const struct config *cfg, const char *whole_exe, uint64_t size, char *name,
		 size_t len)
{
	char want[PATH_MAX], exe[EXE_IN_NAME + 1];
	int fd;

	text_copy(exe, sizeof(exe), whole_exe);

	if (expand(cfg, exe, want, sizeof(want), name, len) == 0 &&
	    (fd = create_excl(want, size, name, len)) >= 0)
		return fd;
	return open_fallback(cfg, exe, errno, size, name, len);
}
