/* The report file: made once (O_EXCL, 0600, never through a symlink, never
 * a device: outpath.c names and creates it), mapped shared over a reserved range so it can grow without
 * moving, and grown with fallocate so a full disk is an error we see
 * rather than a SIGBUS in the application. Its descriptor is kept, high
 * and watched (fds.h), and grows the file: never its name, which a chdir,
 * a privilege drop, a rename or an unlink takes from us. A file cut short
 * under us (truncated by someone else) is mended in the SIGBUS handler
 * (sigbus.h): its size put back, its header written again, what was lost
 * said once and recorded in it. */
#include "mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PMCSHIM_API_ONLY	/* PMCSHIM_VERSION; not the header's load-time look-up */
#include "../../include/pmcshim.h"
#include "base/arch.h"
#include "base/clock.h"
#include "base/cold.h"
#include "base/fds.h"
#include "base/log.h"
#include "outpath.h"
#include "sigbus.h"
#include "base/text.h"

#define FIRST_SIZE (64 * 1024)
#define PAGE_MAX (64 * 1024)	/* arm64's largest */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char *base;		/* the reserved range */
static uint64_t reserved;		/* its length */
static uint64_t file_size;		/* bytes of the file (under lock; atomic) */
static uint64_t tail_now;		/* the header's tail, kept here too (atomic) */
static int file_fd = -1;		/* kept: grows and mends the file */
static dev_t file_dev;
static ino_t file_ino;
static char path[PATH_MAX];
static const struct config *config;	/* for a fork child's own file */
/* The header as made (and as a fork child's): what a cut into it loses. */
static struct rf_header shadow;
static uint64_t page_size = 4096;	/* (sysconf is not async-signal-safe) */
static int in_memory;			/* cut too often: the range is anonymous
					 * memory, written to the file at the end */

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

	/* (another thread may be appending: the records up to the tail it
	 * published, as a reader sees them) */
	if (!h || rf_open_mem(h, __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE), &f, why,
			      sizeof(why)) != 0)
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

/* --- growing -------------------------------------------------------------- */

/* One reservation holds the file's range and, below it, the log of what
 * a cut must put back (log_append), growing down from the file's first
 * byte. The first pages of both then share their page tables, which a
 * range of its own allocates anew at its first touch: about 50 us each on
 * a VM, at every start. The file begins mid-way into a 2 MiB block (the
 * span of a page table), so that they do share them. */
#define BLOCK (UINT64_C(2) << 20)

static unsigned char *log_top;		/* the file's first byte: the log ends there */
static uint64_t log_cap;		/* the log's bytes, below log_top */

/* Reserve address space for the biggest file we allow (or what the
 * process limits leave), mapping the file over all of it. A record is
 * 24 bytes at least, and its entry in the log 16 bytes more than what it
 * saves of it: twice the file's range is room enough for the log. */
static int map_reserved(int fd)
{
	for (uint64_t len = RF_MAX_SIZE; len >= FIRST_SIZE * 16; len /= 4) {
		uint64_t total = 2 * len + BLOCK + len;
		unsigned char *r = mmap(NULL, total, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		unsigned char *at;

		if (r == MAP_FAILED)
			continue;
		at = r + 2 * len;
		at += (BLOCK + BLOCK / 2 - (uintptr_t)at % BLOCK) % BLOCK;
		if (mmap(at, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE,
			 fd, 0) == MAP_FAILED) {
			munmap(r, total);
			return -1;
		}
		base = log_top = at;
		reserved = len;
		log_cap = (uint64_t)(at - r);
		return 0;
	}
	return -1;
}

/* Whether fd is the file we made. */
static int is_ours(int fd)
{
	struct stat st;

	return fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == file_dev && st.st_ino == file_ino;
}

/* The kept descriptor while it is still the file's: the application may
 * close it or put something else on its number (fds.h watches libc's
 * calls; fstat tells for a raw syscall). -1 when not: that number is no
 * longer ours, to read, write or close. Async-signal-safe. */
static int kept_fd(void)
{
	int fd = file_fd;

	return fd >= 0 && !fds_lost(fd) && is_ours(fd) ? fd : -1;
}

/* Reopen by name (the kept descriptor taken from us): the file must be
 * the one we made. -1 with errno; ESTALE: the name is another file's now.
 * Async-signal-safe. */
static int reopen(void)
{
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0 && !is_ours(fd)) {
		close(fd);
		return errno = ESTALE, -1;
	}
	return fd;
}

/* Why the file could not grow, for the one message. */
COLD char mapfile_why_not[PATH_MAX + 200];

/* The descriptor to grow through: the kept one; after the application
 * took it, the file reopened by name and kept anew. -1 with mapfile_why_not. */
static int growth_fd(void)
{
	int lost = file_fd, fd;

	if (kept_fd() >= 0)
		return file_fd;
	if (lost >= 0)
		fds_disown(lost);
	file_fd = -1;
	if ((fd = reopen()) < 0) {
		snprintf(mapfile_why_not, sizeof(mapfile_why_not), "the application closed or replaced its "
			 "descriptor %d, and reopening %s failed: %s", lost, path,
			 errno == ESTALE ? "that name is another file now" : strerror(errno));
		return -1;
	}
	file_fd = fds_move_high(fd);
	fds_own(file_fd);
	return file_fd;
}

static int grow(uint64_t need)
{
	uint64_t size = file_size;
	int fd, rc;

	while (size < need)
		size *= 2;
	if (size > reserved)
		size = reserved;
	if (size < need) {
		snprintf(mapfile_why_not, sizeof(mapfile_why_not), "its size limit, %llu bytes",
			 (unsigned long long)reserved);
		return -1;
	}
	if (__atomic_load_n(&in_memory, __ATOMIC_ACQUIRE)) { /* (sized at the end) */
		__atomic_store_n(&file_size, size, __ATOMIC_RELAXED);
		return 0;
	}
	if ((fd = growth_fd()) < 0)
		return -1;
	if ((rc = outpath_allocate(fd, size)) != 0) {
		snprintf(mapfile_why_not, sizeof(mapfile_why_not), "%s", strerror(rc));
		return -1;
	}
	__atomic_store_n(&file_size, size, __ATOMIC_RELAXED);
	return 0;
}

/* --- what a cut must put back ---------------------------------------------- */

/* Every record as it was published, in file order: all of it for those
 * written once (events, names, stacks, modules), the keys of a thread, a
 * site or an error (what their values belong to). A cut puts back the part
 * of each that lay past it: every record is there again, and counting
 * goes on in place (the values counted before the cut are what is lost).
 * In anonymous memory, a fraction of the file's size (a site's keys are
 * 24 of its 72 bytes or more); a log that would pass its reserve stops,
 * and a cut then loses what it does not hold.
 *
 * The log grows down from log_top: each entry, then right below it the
 * bytes it saved; the next entry below those. */
struct kept {
	uint64_t off;			/* of the record in the file */
	uint32_t len;			/* bytes saved, from the record's first */
	uint32_t saved;			/* 0: its rf_record only (not published yet) */
};

static uint64_t nkept, log_used;	/* (appended under lock) */
static int log_full;
/* The entry of the record this thread appended last: its publish. */
static __thread struct kept *last_kept;

static uint32_t kept_len(uint16_t type, uint32_t size)
{
	if (type == RF_THREAD) /* (its calibration and name are lost with it) */
		return offsetof(struct rf_thread, state);
	if (type == RF_SITE)
		return offsetof(struct rf_site, seq);
	if (type == RF_ERROR)
		return offsetof(struct rf_error, count);
	return size;
}

static struct rf_record *saved_of(const struct kept *k)
{
	return (struct rf_record *)(void *)((unsigned char *)k - rf_align(k->len));
}

static struct kept *kept_first(void)
{
	return (struct kept *)(void *)log_top - 1;
}

static struct kept *kept_next(const struct kept *k)
{
	return (struct kept *)(void *)saved_of(k) - 1;
}

/* Under lock: the entry of a new record, its rf_record saved. */
static void log_append(const struct rf_record *r, uint64_t off)
{
	uint32_t len = kept_len(r->type, r->size);
	uint64_t need = sizeof(struct kept) + rf_align(len);
	struct kept *k;

	last_kept = NULL;
	if (log_full || log_used + need > log_cap) {
		log_full = 1;
		return;
	}
	k = (struct kept *)(void *)(log_top - log_used) - 1;
	*k = (struct kept){ off, len, 0 };
	memcpy(saved_of(k), r, sizeof(*r));
	log_used += need;
	__atomic_store_n(&nkept, nkept + 1, __ATOMIC_RELEASE);
	last_kept = k;
}

/* Published: its bytes saved, done. */
static void log_publish(const struct rf_record *r)
{
	struct kept *k = last_kept;

	if (!k || base + k->off != (const unsigned char *)r)
		return;	/* (not in the log: it was full) */
	memcpy(saved_of(k), r, k->len);
	saved_of(k)->done = 1;
	__atomic_store_n(&k->saved, 1, __ATOMIC_RELEASE);
	last_kept = NULL;
}

/* The entry of the record at off, or NULL (a walk: mapfile_hide's one
 * caller hides one record per process). */
static struct kept *log_find(uint64_t off)
{
	uint64_t n = __atomic_load_n(&nkept, __ATOMIC_ACQUIRE);
	struct kept *k = kept_first();

	for (uint64_t i = 0; i < n && k->off <= off; i++, k = kept_next(k))
		if (k->off == off)
			return k;
	return NULL;
}

void mapfile_hide(struct rf_record *r)
{
	struct kept *k = base ? log_find((uint64_t)((unsigned char *)r - base)) : NULL;

	__atomic_store_n(&r->done, 0, __ATOMIC_RELEASE);
	if (k)
		saved_of(k)->done = 0;
}

/* Bytes a cut took, stored back where other threads may be reading or
 * writing them: what they see is what was there before the cut, or the
 * zeros it left, so no race of the program's. TSan, which cannot see the
 * cut (another process's), is not told of these stores; volatile, so the
 * loop never becomes a memcpy call it intercepts. Repairs are rare. */
__attribute__((no_sanitize_thread)) static void put(void *to, const void *from, size_t n)
{
	volatile unsigned char *t = to;
	const unsigned char *f = from;

	while (n--)
		*t++ = *f++;
}

/* A site whose values the cut zeroed: a min of 0 would stay 0. (One
 * with calls since, kept in the page the cut went into, keeps its.) Its
 * thread reads and writes them unsynchronised: not told to TSan (put). */
__attribute__((no_sanitize_thread)) static void reset_mins(uint64_t off, uint64_t cut)
{
	struct rf_site *s = (struct rf_site *)(void *)(base + off);

	if (__atomic_load_n(&s->calls, __ATOMIC_RELAXED))
		return;
	for (uint32_t i = 0; i < s->nvalues && i <= RF_EVENTS_MAX; i++) {
		uint64_t zero = 0;

		if ((uint64_t)((unsigned char *)&s->v[i].min - base) >= cut)
			__atomic_compare_exchange_n(&s->v[i].min, &zero, UINT64_MAX, 0,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	}
}

/* A thread record whose state the cut zeroed: running, its CPU time
 * unknown, until it ends. (Not told to TSan either.) */
__attribute__((no_sanitize_thread)) static void reset_thread(uint64_t off)
{
	struct rf_thread *t = (struct rf_thread *)(void *)(base + off);
	uint32_t zero = 0;

	if (__atomic_compare_exchange_n(&t->state, &zero, RF_T_RUNNING, 0, __ATOMIC_RELAXED,
					__ATOMIC_RELAXED))
		t->cpu_ns = UINT64_MAX;
}

/* Put back what the log holds past cut; returns where the log's records
 * end (records past it, the log being full, it cannot put back). */
static uint64_t log_put_back(uint64_t cut)
{
	uint64_t n = __atomic_load_n(&nkept, __ATOMIC_ACQUIRE), end = RF_HEADER_SIZE;
	const struct kept *k = kept_first();

	for (uint64_t i = 0; i < n; i++, k = kept_next(k)) {
		const struct rf_record *saved = saved_of(k);
		uint64_t from = k->off > cut ? k->off : cut;
		uint32_t len = __atomic_load_n(&k->saved, __ATOMIC_ACQUIRE) ? k->len
									    : sizeof(*saved);

		if (k->off + len > from)
			put(base + from, (const unsigned char *)saved + (from - k->off),
			    k->off + len - from);
		if (saved->type == RF_SITE && k->len == len && k->off + saved->size > cut)
			reset_mins(k->off, cut);
		if (saved->type == RF_THREAD && k->len == len && k->off + saved->size > cut)
			reset_thread(k->off);
		end = k->off + saved->size;
	}
	return end;
}

/* A fork child hid records of its parent's other threads: so do the
 * saved ones. */
static void log_sync_done(void)
{
	struct kept *k = kept_first();

	for (uint64_t i = 0; i < nkept; i++, k = kept_next(k))
		if (!__atomic_load_n(&((struct rf_record *)(void *)(base + k->off))->done,
				     __ATOMIC_ACQUIRE))
			saved_of(k)->done = 0;
}

/* --- a file cut short under us ------------------------------------------- */

static int cut_said, lost_said;

static void say(const char *a, uint64_t cut, const char *b, uint64_t lost, const char *c)
{
	char m[PATH_MAX + 512];
	size_t n = text_put(m, 0, sizeof(m), "pmcshim: report file ");

	n = text_put(m, n, sizeof(m), path);
	n = text_put(m, n, sizeof(m), a);
	n = text_put_u64(m, n, sizeof(m), cut);
	n = text_put(m, n, sizeof(m), b);
	if (c) {
		n = text_put_u64(m, n, sizeof(m), lost);
		n = text_put(m, n, sizeof(m), c);
	}
	m[n++] = '\n';
	if (write(STDERR_FILENO, m, n) < 0) {
		/* nowhere left to say it */
	}
}

/* The file is its size again, cut bytes kept: the header, if cut into,
 * is written again (this process's: the shadow, the tail as it is); the
 * record the cut went into and all after it, up to the tail, are lost and
 * become one filler record, which readers skip. Records appended from now
 * on are whole. Other threads keep writing their records in place, under
 * the filler where theirs were lost. */
static void cut_repair(uint64_t cut)
{
	struct rf_header *h = header();
	uint64_t t = __atomic_load_n(&tail_now, __ATOMIC_ACQUIRE), at, lost;
	uint32_t flags;

	if (cut < sizeof(shadow)) {
		put((unsigned char *)h + cut, (unsigned char *)&shadow + cut,
		       sizeof(shadow) - cut);
		__atomic_store_n(&h->tail, t, __ATOMIC_RELEASE);
	}
	at = log_put_back(cut);
	/* what the log could not hold: whole records before the cut stay,
	 * the rest to the tail becomes one filler record, which readers skip */
	while (at + sizeof(struct rf_record) <= cut && at < t) {
		const struct rf_record *r = (const void *)(base + at);

		if (r->size < sizeof(*r) || r->size % 8 || r->size > cut - at || r->size > t - at)
			break;
		at += r->size;
	}
	if (at < t) { /* one store: a reader sees no half-written filler */
		struct rf_record f = { .size = (uint32_t)(t - at), .type = 0, .done = 0 };
		uint64_t word;

		memcpy(&word, &f, sizeof(word));
		__atomic_store_n((uint64_t *)(void *)(base + at), word, __ATOMIC_RELEASE);
	}
	lost = t > cut ? t - (cut > RF_HEADER_SIZE ? cut : RF_HEADER_SIZE) : 0;
	flags = __atomic_or_fetch(&h->flags, RF_CUT, __ATOMIC_RELAXED);
	shadow.flags = flags;
	shadow.cut_size = h->cut_size = cut;
	shadow.cut_lost = h->cut_lost += lost;
	shadow.cuts = ++h->cuts;
	if (!cut_said++)
		say(" was cut to ", cut, " bytes while the program ran (truncated by another "
		    "process?): what was counted in the ", lost, " bytes of records past that "
		    "is lost; its size and records are put back and counting goes on (the "
		    "report says so)");
}

/* The size back, allocated where the file system allows. What was
 * written past the cut in the page it went into (the one page past the
 * end that does not fault) is kept: growing the file zeroes it. */
COLD unsigned char mapfile_mend_page[PAGE_MAX];	/* (under mending) */

static int restore(int fd, uint64_t size, uint64_t cut)
{
	uint64_t n = cut % page_size ? page_size - cut % page_size : 0;
	int rc;

	put(mapfile_mend_page, base + cut, n);
	rc = fallocate(fd, 0, 0, (off_t)size) == 0 ? 0 : ftruncate(fd, (off_t)size);
	if (rc == 0)
		put(base + cut, mapfile_mend_page, n);
	return rc;
}

/* The page at a goes nowhere from now on: anonymous memory. */
static int forsake(unsigned char *a)
{
	unsigned char *page = base + (uint64_t)(a - base) / page_size * page_size;

	if (mmap(page, page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) == MAP_FAILED)
		return 0;
	if (!lost_said++)
		say(": a page of it can no longer be written (cut short with its descriptor "
		    "gone, a full file system, an I/O error); from offset ",
		    (uint64_t)(page - base), ", what is recorded there is lost", 0, NULL);
	return 1;
}

/* --- cut again and again ----------------------------------------------------- */

/* A file cut this many times is no longer mended: each cut costs a repair
 * of every record, and one cut after another must not hold the program
 * up. Its report is kept in memory from then on, and written to the file
 * when the process ends (in_memory). */
#define CUTS_MAX 16

/* Write len bytes at off through fd; 0, or -1. Async-signal-safe. */
static int pwrite_all(int fd, const unsigned char *from, uint64_t len, uint64_t off)
{
	while (len > 0) {
		ssize_t n = pwrite(fd, from, len, (off_t)off);

		if (n <= 0)
			return -1;
		from += n, len -= (uint64_t)n, off += (uint64_t)n;
	}
	return 0;
}

/* The range becomes anonymous memory holding what the file holds (read
 * through fd: a read never faults), then cut_repair'ed if the file was cut
 * again meanwhile. */
static void keep_in_memory(int fd)
{
	unsigned char *m = mmap(NULL, reserved, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uint64_t size = __atomic_load_n(&file_size, __ATOMIC_RELAXED), got = 0;
	ssize_t n;

	if (m == MAP_FAILED)
		return;
	while (got < size && (n = pread(fd, m + got, size - got, (off_t)got)) > 0)
		got += (uint64_t)n;
	if (mremap(m, reserved, reserved, MREMAP_MAYMOVE | MREMAP_FIXED, base) == MAP_FAILED) {
		munmap(m, reserved);
		return;
	}
	__atomic_store_n(&in_memory, 1, __ATOMIC_RELEASE);
	if (got < size)
		cut_repair(got);
	/* what other threads stored into the file during the copy is lost:
	 * counts, and what the log puts back (mapfile_append stores a new
	 * record's first bytes again once it is in the log) */
	log_put_back(RF_HEADER_SIZE);
	__atomic_store_n(&header()->tail, __atomic_load_n(&tail_now, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
	say(" was cut ", CUTS_MAX, " times while the program ran: from now on its report is "
	    "kept in memory and written to it when the program ends (if killed by SIGKILL, "
	    "it keeps what it held at the last cut)", 0, NULL);
}

/* (mapfile_finish) The report kept in memory, written to its file. */
static void write_back(void)
{
	int fd = kept_fd(), opened = fd < 0;

	if (opened)
		fd = reopen();
	if (fd >= 0 && pwrite_all(fd, base, __atomic_load_n(&header()->tail, __ATOMIC_ACQUIRE),
				  0) != 0)
		say(": writing its report at the end failed; it holds what it held at cut ",
		    CUTS_MAX, "", 0, NULL);
	if (opened && fd >= 0)
		close(fd);
}

/* --- the handler's side (sigbus.h) ---------------------------------------- */

/* The descriptor the repair goes through, and the lowest size the file
 * was cut to again meanwhile (UINT64_MAX: none): set by again(), which
 * runs in a handler nested in mend()'s, in the same thread. */
static volatile int mend_fd = -1;
static volatile uint64_t recut;
static volatile unsigned agains;

static int ours(const void *addr)
{
	const unsigned char *a = addr, *b = base;

	return b && a >= b && a < b + reserved;
}

/* Cut again while mend() repairs: the size back at once, so the repair
 * goes on (it is done again from the new cut when it ends); a page that
 * still faults, or one cut after another, becomes anonymous memory. */
static int again(void *addr)
{
	uint64_t size = __atomic_load_n(&file_size, __ATOMIC_RELAXED);
	int fd = mend_fd;
	struct stat st;

	if (++agains <= CUTS_MAX && fd >= 0 && fstat(fd, &st) == 0 &&
	    (uint64_t)st.st_size < size &&
	    (fallocate(fd, 0, 0, (off_t)size) == 0 || ftruncate(fd, (off_t)size) == 0)) {
		if ((uint64_t)st.st_size < recut)
			recut = (uint64_t)st.st_size;
		return 1;
	}
	return forsake(addr);
}

/* The file has its size and records back, from cut on, as often as it
 * was cut again meanwhile; past CUTS_MAX cuts, kept in memory. 0 when a
 * page had to be forsaken and could not be. */
static int repair(int fd, uint64_t size, uint64_t cut, unsigned char *a)
{
	for (;;) {
		recut = UINT64_MAX;
		if (restore(fd, size, cut) != 0)
			return forsake(a);
		cut_repair(cut);
		if (shadow.cuts >= CUTS_MAX) {
			keep_in_memory(fd);
			return 1;
		}
		if (recut == UINT64_MAX)
			return 1;
		cut = recut;
	}
}

/* A fault in our range. A file cut short gets its size back; a page that
 * still faults (no descriptor to mend it through, a full tmpfs, an I/O
 * error) becomes anonymous memory. Either way the access runs again and
 * succeeds: the application never dies of our file. */
static int mend(void *addr)
{
	uint64_t size = __atomic_load_n(&file_size, __ATOMIC_RELAXED);
	struct stat st;
	int fd = kept_fd(), opened = fd < 0, ok;

	if (opened)
		fd = reopen();
	mend_fd = fd;
	agains = 0;
	if (!__atomic_load_n(&in_memory, __ATOMIC_ACQUIRE) && fd >= 0 && fstat(fd, &st) == 0 &&
	    (uint64_t)st.st_size < size)
		ok = repair(fd, size, (uint64_t)st.st_size, addr);
	else
		ok = forsake(addr);
	mend_fd = -1;
	if (opened && fd >= 0)
		close(fd);
	return ok;
}

static const struct sigbus_mender mender = { ours, mend, again };

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
	at = tail_now;
	if (at + len <= file_size || grow(at + len) == 0) {
		r = (struct rf_record *)(base + at);
		r->size = len;
		r->type = type;
		shadow.nevents += type == RF_EVENT;
		log_append(r, at);
		/* again: stored before the log held it, it may have gone into a
		 * file that keep_in_memory was copying */
		r->size = len;
		r->type = type;
		/* then the tail that shows it: a thread walking the records
		 * (mapfile_find) reads its header only after these stores */
		__atomic_store_n(&tail_now, at + len, __ATOMIC_RELEASE);
		__atomic_store_n(&h->tail, at + len, __ATOMIC_RELEASE);
	} else if (!(__atomic_fetch_or(&h->flags, RF_FULL, __ATOMIC_RELAXED) & RF_FULL)) {
		log_error("report file %s cannot grow past %llu bytes (%s); "
			  "new regions and stacks are counted as dropped", path,
			  (unsigned long long)file_size, mapfile_why_not);
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
	log_publish(r);
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
	h->before_wall_ns = clock_start_before_ns(h->proc_start);
}

static void fill_header(const struct config *cfg, const struct mapfile_process *p)
{
	struct rf_header *h = header();

	h->version = RF_VERSION;
	h->header_size = RF_HEADER_SIZE;
	h->tail = RF_HEADER_SIZE;
	h->state = RF_RUNNING;
	h->stack_depth = (uint32_t)p->stack_depth;
	h->flags = RF_TREE;	/* sites.c records each site's parent */
	if (cfg->functions_sampled)	/* (regions/counted.h) */
		h->flags |= RF_FN_SAMPLED;
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
	fd = outpath_open(cfg, p->exe_name, FIRST_SIZE, path, sizeof(path));
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || map_reserved(fd) != 0) {
		log_error("cannot set up the report file %s (%s); this run is not recorded",
			  path, strerror(errno));
		close(fd);
		unlink(path);
		path[0] = '\0';
		return -1;
	}
	file_fd = fds_move_high(fd);
	fds_own(file_fd);
	file_dev = st.st_dev;
	file_ino = st.st_ino;
	file_size = FIRST_SIZE;
	tail_now = RF_HEADER_SIZE;
	fill_header(cfg, p);
	shadow = *header();
	if (sysconf(_SC_PAGESIZE) > 0 && sysconf(_SC_PAGESIZE) <= PAGE_MAX)
		page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	sigbus_install(&mender);
	return 0;
}

/* --- the end --------------------------------------------------------------- */

void mapfile_finish(uint32_t state, const char *target)
{
	struct rf_header *h = mapfile_header();

	if (!h)
		return;
	if (target)
		copy(h->exec_target, sizeof(h->exec_target), target);
	h->end_real_ns = clock_real_ns_sys();
	h->end_mono_ns = clock_mono_ns_sys();
	h->end_ticks = arch_ticks();
	h->ticks_per_ns = clock_ticks_per_ns();
	__atomic_store_n(&h->state, state, __ATOMIC_RELEASE);
	if (__atomic_load_n(&in_memory, __ATOMIC_ACQUIRE))
		write_back();
	if (state == RF_EXECED)
		sigbus_before_exec();
}

void mapfile_unfinish(void)
{
	struct rf_header *h = mapfile_header();

	if (!h)
		return;
	__atomic_store_n(&h->state, RF_RUNNING, __ATOMIC_RELEASE);
	sigbus_after_exec_failed();
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

/* The header as the child's: the parent's state, end and cut are the
 * parent's (a parent that _exits right after the fork has already marked
 * its own file ended when the child copies it). */
static void child_header(struct rf_header *h, uint64_t tail)
{
	h->tail = tail;
	h->state = RF_RUNNING;
	h->end_real_ns = h->end_mono_ns = h->end_ticks = 0;
	h->ticks_per_ns = 0;
	memset(h->exec_target, 0, sizeof(h->exec_target));
	h->flags &= ~(uint32_t)(RF_CUT | RF_FULL);
	h->cut_size = h->cut_lost = 0;
	h->cuts = 0;
}

/* The parent's descriptor, inherited: the child's file is its own. */
static void drop_parent_fd(void)
{
	if (kept_fd() >= 0)
		fds_close(file_fd);
	else if (file_fd >= 0)
		fds_disown(file_fd);
	file_fd = -1;
}

static int copy_to_new_file(const char *exe)
{
	uint64_t tail = fork_tail, size = FIRST_SIZE;
	unsigned char head[RF_HEADER_SIZE];
	struct stat st;
	int fd;

	fd = outpath_open(config, exe, FIRST_SIZE, path, sizeof(path));
	if (fd < 0)
		return -1;
	while (size < tail)
		size *= 2;
	/* the header as it was at the fork (the parent's runs on) */
	memcpy(head, base, sizeof(head));
	child_header((struct rf_header *)(void *)head, tail);
	if (write_all(fd, head, sizeof(head)) != 0 ||
	    write_all(fd, base + sizeof(head), tail - sizeof(head)) != 0 ||
	    fstat(fd, &st) != 0 || outpath_allocate(fd, size) != 0 ||
	    mmap(base, reserved, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE,
		 fd, 0) == MAP_FAILED) {
		close(fd);
		unlink(path);
		return -1;
	}
	drop_parent_fd();
	file_fd = fds_move_high(fd);
	fds_own(file_fd);
	file_dev = st.st_dev;
	file_ino = st.st_ino;
	file_size = size;
	tail_now = tail;
	in_memory = 0;
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
		base = NULL;
		munmap(h, reserved);
		drop_parent_fd();
		path[0] = '\0';
		log_error("fork child %d: cannot make its own report file; not recorded",
			  (int)getpid());
		return -1;
	}
	set_identity(h);
	h->flags |= RF_FORKED;
	memset(h->dropped, 0, sizeof(h->dropped));
	shadow = *h;
	if (rf_open_mem(base, h->tail, &f, why, sizeof(why)) == 0)
		for (const struct rf_record *r; (r = rf_next(&f, &off, &bad));)
			fn((struct rf_record *)r, arg);
	log_sync_done();
	return 0;
}
