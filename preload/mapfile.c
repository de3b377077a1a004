/* The report file: made once (O_EXCL, 0600, never through a symlink, never
 * a device), mapped shared over a reserved range so it can grow without
 * moving, and grown with fallocate so a full disk is an error we see
 * rather than a SIGBUS in the application. The descriptor is closed at
 * once; growing reopens the file by name and checks it is still ours. */
#include "mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../include/pmcshim.h"
#include "arch.h"
#include "clock.h"
#include "log.h"

#define FIRST_SIZE (64 * 1024)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char *base;		/* the reserved range */
static uint64_t reserved;		/* its length */
static uint64_t file_size;		/* bytes of the file (under lock) */
static dev_t file_dev;
static ino_t file_ino;
static char path[PATH_MAX];
static const struct config *config;	/* for a fork child's own file */

static struct rf_header *header(void)
{
	return (struct rf_header *)base;
}

struct rf_header *mapfile_header(void)
{
	return base ? header() : NULL;
}

struct rf_record *mapfile_find(int (*match)(const struct rf_record *r, const void *arg),
			       const void *arg)
{
	struct rf_header *h = mapfile_header();
	struct rf_file f;
	char why[64];
	uint64_t off = 0;
	const struct rf_record *r;
	int bad;

	if (!h || rf_open_mem(h, h->tail, &f, why, sizeof(why)) != 0)
		return NULL;
	while ((r = rf_next(&f, &off, &bad)))
		if (match(r, arg))
			return (struct rf_record *)r;
	return NULL;
}

const char *mapfile_path(void)
{
	return path;
}

/* --- where the file goes ------------------------------------------------ */

/* Name for attempt k: the path itself, then "stem.k.ext" (or "path.k"). */
static void candidate(const char *want, int k, char *out, size_t len)
{
	const char *dot = strrchr(want, '.');
	const char *slash = strrchr(want, '/');

	if (k == 0)
		snprintf(out, len, "%s", want);
	else if (dot && (!slash || dot > slash + 1))
		snprintf(out, len, "%.*s.%d%s", (int)(dot - want), want, k, dot);
	else
		snprintf(out, len, "%s.%d", want, k);
}

static int under_dev(const char *p)
{
	return strncmp(p, "/dev/", 5) == 0 || strcmp(p, "/dev") == 0;
}

/* Create the first free candidate of want; never follows a symlink,
 * never replaces anything, never makes a file in /dev. */
static int create_excl(const char *want)
{
	struct stat st;

	/* ENODEV / ENOTSUP: open_output names them "a device", "not a
	 * regular file" */
	if (under_dev(want))
		return errno = ENODEV, -1;
	if (stat(want, &st) == 0 && !S_ISREG(st.st_mode))
		return errno = S_ISDIR(st.st_mode) ? EISDIR : ENOTSUP, -1;
	for (int k = 0; k < 100; k++) {
		int fd;

		candidate(want, k, path, sizeof(path));
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -1;
	}
	return errno = EEXIST, -1;
}

/* The configured output, expanded; a directory gets the default name. */
static int expand(const struct config *cfg, const char *exe, char *out, size_t len)
{
	char host[256] = "", dir[PATH_MAX];
	const char *pattern = cfg->output;
	struct stat st;
	size_t n = strlen(pattern);

	gethostname(host, sizeof(host) - 1);
	if (n && (pattern[n - 1] == '/' || (stat(pattern, &st) == 0 && S_ISDIR(st.st_mode)))) {
		if (snprintf(dir, sizeof(dir), "%s%s%s", pattern,
			     pattern[n - 1] == '/' ? "" : "/",
			     config_default_output(cfg)) >= (int)sizeof(dir))
			return errno = ENAMETOOLONG, -1;
		pattern = dir;
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

static int open_output(const struct config *cfg, const char *exe)
{
	char want[PATH_MAX], fallback[PATH_MAX];
	const char *tmpdir = getenv("TMPDIR");
	int fd, err;

	if (expand(cfg, exe, want, sizeof(want)) == 0 && (fd = create_excl(want)) >= 0)
		return fd;
	err = errno;
	if (!tmpdir || tmpdir[0] != '/' || under_dev(tmpdir))
		tmpdir = "/tmp";
	snprintf(fallback, sizeof(fallback), "%s/pmcshim-%s-%d.pmc", tmpdir, exe, (int)getpid());
	fd = create_excl(fallback);
	if (fd >= 0)
		log_error("cannot write the report to %s (%s); writing %s instead",
			  cfg->output, reason(err), path);
	else
		log_error("cannot write the report to %s (%s) nor to %s (%s); "
			  "this run is not recorded", cfg->output, reason(err),
			  fallback, reason(errno));
	return fd;
}

/* --- growing -------------------------------------------------------------- */

/* Reserve address space for the biggest file we allow (or what the
 * process limits leave), mapping the file over all of it. */
static int map_reserved(int fd)
{
	for (uint64_t len = RF_MAX_SIZE; len >= FIRST_SIZE * 16; len /= 4) {
		void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_NORESERVE, fd, 0);
		if (p != MAP_FAILED) {
			base = p;
			reserved = len;
			return 0;
		}
	}
	return -1;
}

static int allocate(int fd, uint64_t size)
{
	int rc = posix_fallocate(fd, 0, (off_t)size);

	/* file systems without fallocate: a sparse file, as ftruncate makes */
	if (rc == EOPNOTSUPP || rc == EINVAL)
		rc = ftruncate(fd, (off_t)size) == 0 ? 0 : errno;
	return rc;
}

/* Reopen by name: the application may have closed or reused any number
 * we kept. The file must be the one we made. */
static int reopen(void)
{
	struct stat st;
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || st.st_dev != file_dev || st.st_ino != file_ino) {
		close(fd);
		return -1;
	}
	return fd;
}

static int grow(uint64_t need)
{
	uint64_t size = file_size;
	int fd, rc;

	while (size < need)
		size *= 2;
	if (size > reserved)
		size = reserved;
	if (size < need || (fd = reopen()) < 0)
		return -1;
	rc = allocate(fd, size);
	close(fd);
	if (rc != 0)
		return -1;
	file_size = size;
	return 0;
}

/* --- records ------------------------------------------------------------- */

void mapfile_drop(enum rf_drop kind)
{
	if (base)
		__atomic_add_fetch(&header()->dropped[kind], 1, __ATOMIC_RELAXED);
}

void *mapfile_append(uint16_t type, size_t size)
{
	struct rf_header *h = mapfile_header();
	struct rf_record *r = NULL;
	uint32_t len = rf_align(size);
	uint64_t at;

	if (!h)
		return NULL;
	pthread_mutex_lock(&lock);
	at = h->tail;
	if (at + len <= file_size || grow(at + len) == 0) {
		r = (struct rf_record *)(base + at);
		r->size = len;
		r->type = type;
		__atomic_store_n(&h->tail, at + len, __ATOMIC_RELEASE);
	} else if (!(h->flags & RF_FULL)) {
		h->flags |= RF_FULL;
		log_error("report file %s cannot grow past %llu bytes; "
			  "new regions and stacks are counted as dropped", path,
			  (unsigned long long)file_size);
	}
	pthread_mutex_unlock(&lock);
	if (!r)
		mapfile_drop(RF_DROP_FULL);
	return r;
}

void mapfile_publish(void *record)
{
	struct rf_record *r = record;

	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
}

/* --- the header ------------------------------------------------------------ */

/* Set up before our constructor (a marker in an earlier library's
 * constructor): the arguments from /proc, already NUL-separated. */
static void set_argv_from_proc(struct rf_header *h)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, h->argv, sizeof(h->argv)) : -1;
	char extra;

	if (fd < 0)
		return;
	if (n == (ssize_t)sizeof(h->argv) && read(fd, &extra, 1) == 1)
		h->argv_truncated = 1;
	close(fd);
	while (n > 0 && h->argv[n - 1] != '\0')
		h->argv[--n] = '\0';	/* drop a cut last argument */
	for (ssize_t i = 0; i < n; i++)
		h->argc += h->argv[i] == '\0';
}

static void set_argv(struct rf_header *h, int argc, char **argv)
{
	size_t used = 0;

	if (!argv) {
		set_argv_from_proc(h);
		return;
	}
	for (int i = 0; i < argc && argv && argv[i]; i++) {
		size_t n = strlen(argv[i]) + 1;
		if (used + n > sizeof(h->argv)) {
			h->argv_truncated = 1;
			break;
		}
		memcpy(h->argv + used, argv[i], n);
		used += n;
		h->argc++;
	}
}

/* Into a fixed-size field, cut to fit, always terminated. */
static void copy(char *dst, size_t len, const char *src)
{
	size_t n = src ? strnlen(src, len - 1) : 0;

	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
}

/* Who and when: set at creation, and again in a fork child. */
static void set_identity(struct rf_header *h)
{
	char host[256] = "";

	gethostname(host, sizeof(host) - 1);
	copy(h->host, sizeof(h->host), host);
	h->pid = (uint64_t)getpid();
	h->ppid = (uint64_t)getppid();
	if (rf_proc_start(h->pid, &h->proc_start) != 0)
		h->proc_start = 0;
	rf_boot_id(h->boot_id, sizeof(h->boot_id));
	h->start_real_ns = clock_start_real_ns();
	h->start_mono_ns = clock_start_mono_ns();
	h->start_ticks = clock_start_ticks();
}

static void fill_header(const struct mapfile_process *p)
{
	struct rf_header *h = header();

	h->version = RF_VERSION;
	h->header_size = RF_HEADER_SIZE;
	h->tail = RF_HEADER_SIZE;
	h->state = RF_RUNNING;
	h->stack_depth = (uint32_t)p->stack_depth;
	h->flags = RF_TREE;	/* sites.c records each site's parent */
	set_identity(h);
	copy(h->clock_source, sizeof(h->clock_source), ARCH_TICKS_NAME);
	copy(h->user_read, sizeof(h->user_read), ARCH_USER_READ_NAME);
	if (p->serialize) {
		h->flags |= RF_SERIALIZED;
		copy(h->barrier, sizeof(h->barrier), ARCH_BARRIER_NAME);
	}
	copy(h->shim_version, sizeof(h->shim_version), PMCSHIM_VERSION);
	copy(h->executable, sizeof(h->executable), p->exe_name);
	set_argv(h, p->argc, p->argv);
	/* last: a reader that sees the magic sees the rest */
	rf_fence(__ATOMIC_RELEASE);
	memcpy(h->magic, RF_MAGIC, sizeof(h->magic));
}

int mapfile_create(const struct config *cfg, const struct mapfile_process *p)
{
	struct stat st;
	int fd;

	if (getauxval(AT_SECURE)) {
		log_error("set-user-ID or set-group-ID program: writing no report "
			  "(PMCSHIM_OUTPUT is not trusted here)");
		return -1;
	}
	config = cfg;
	fd = open_output(cfg, p->exe_name);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || allocate(fd, FIRST_SIZE) != 0 || map_reserved(fd) != 0) {
		log_error("cannot set up the report file %s (%s); this run is not recorded",
			  path, strerror(errno));
		close(fd);
		unlink(path);
		path[0] = '\0';
		return -1;
	}
	close(fd);
	file_dev = st.st_dev;
	file_ino = st.st_ino;
	file_size = FIRST_SIZE;
	fill_header(p);
	return 0;
}

/* --- the end --------------------------------------------------------------- */

void mapfile_finish(uint32_t state, const char *target)
{
	struct rf_header *h = mapfile_header();

	if (!h)
		return;
	clock_calibrate();
	if (target)
		copy(h->exec_target, sizeof(h->exec_target), target);
	h->end_real_ns = clock_real_ns();
	h->end_mono_ns = clock_mono_ns();
	h->end_ticks = arch_ticks();
	h->ticks_per_ns = clock_ticks_per_ns();
	__atomic_store_n(&h->state, state, __ATOMIC_RELEASE);
}

void mapfile_unfinish(void)
{
	struct rf_header *h = mapfile_header();

	if (h)
		__atomic_store_n(&h->state, RF_RUNNING, __ATOMIC_RELEASE);
}

/* --- fork ------------------------------------------------------------------ */

/* The tail when fork() was called: the parent goes on appending to its
 * file (the child still maps it until it has its own), and none of that
 * is the child's. */
static uint64_t fork_tail;

void mapfile_lock(void)
{
	pthread_mutex_lock(&lock);
	if (base)
		fork_tail = header()->tail;
}

void mapfile_unlock(void)
{
	pthread_mutex_unlock(&lock);
}

/* Copy the parent's records into a new file and map it where the parent's
 * was. Returns -1 (the child then writes nothing) when that fails. */
/* Write len bytes at from; 0, or -1. */
static int write_all(int fd, const void *from, uint64_t len)
{
	const unsigned char *p = from;

	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n <= 0)
			return -1;
		p += n, len -= (uint64_t)n;
	}
	return 0;
}

static int copy_to_new_file(const char *exe)
{
	uint64_t tail = fork_tail, size = FIRST_SIZE;
	unsigned char head[RF_HEADER_SIZE];
	struct stat st;
	int fd;

	fd = open_output(config, exe);
	if (fd < 0)
		return -1;
	while (size < tail)
		size *= 2;
	/* the header as it was at the fork (the parent's runs on) */
	memcpy(head, base, sizeof(head));
	((struct rf_header *)(void *)head)->tail = tail;
	if (write_all(fd, head, sizeof(head)) != 0 ||
	    write_all(fd, base + sizeof(head), tail - sizeof(head)) != 0 || fstat(fd, &st) != 0 || allocate(fd, size) != 0 ||
	    mmap(base, reserved, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE,
		 fd, 0) == MAP_FAILED) {
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	file_dev = st.st_dev;
	file_ino = st.st_ino;
	file_size = size;
	return 0;
}

int mapfile_after_fork_child(void (*fn)(struct rf_record *r, void *arg), void *arg)
{
	struct rf_header *h = mapfile_header();
	char exe[sizeof(h->executable)];
	struct rf_file f;
	char why[128];
	uint64_t off = 0;
	int bad;

	pthread_mutex_init(&lock, NULL);
	if (!h)
		return -1;
	memcpy(exe, h->executable, sizeof(exe));
	if (copy_to_new_file(exe) != 0) {
		/* never write into the parent's file */
		munmap(base, reserved);
		base = NULL;
		path[0] = '\0';
		log_error("fork child %d: cannot make its own report file; not recorded",
			  (int)getpid());
		return -1;
	}
	set_identity(h);
	h->flags |= RF_FORKED;
	memset(h->dropped, 0, sizeof(h->dropped));
	if (rf_open_mem(base, h->tail, &f, why, sizeof(why)) == 0)
		for (const struct rf_record *r; (r = rf_next(&f, &off, &bad));)
			fn((struct rf_record *)r, arg);
	return 0;
}
