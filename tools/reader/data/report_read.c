/* Reading a report file into memory of the reader's own, cut from
 * report_load.c along the line between getting the bytes and parsing
 * them: a live process's file snapshotted from its mapping, a finished
 * one read whole, a file cut short while we read it (SIGBUS) taken as far
 * as it goes, a version-1 JSON file named as such. report_load.c then
 * loads the copy, which nothing changes under it. */
#include "report_read.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report_snapshot.h"

/* Version 1 was JSON: say so rather than "not a report". */
static void say_if_json(const char *path, char *why, size_t whylen)
{
	char head[256] = "";
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(head, 1, sizeof(head) - 1, f) : 0;

	if (f)
		fclose(f);
	head[n] = '\0';
	if (head[strspn(head, " \t\r\n")] == '{' && strstr(head, "\"pmcshim-report\""))
		snprintf(why, whylen, "a version-1 JSON report: this reader reads the version-2 "
			 "binary file (an older pmcshim-report reads this one)");
}

/* ---- reading the file ----------------------------------------------------- */

/* A file that shrinks while we read it faults (SIGBUS) past its new end.
 * The pages of the mapping we read become zero pages from the first one
 * that faults, and what we copied is cut there: the loader reads what is
 * there and says the file shrank. Any other SIGBUS ends the reader as it
 * would have. */
static const unsigned char *guard_lo, *guard_hi;
static uint64_t guard_cut;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	const unsigned char *a = si->si_addr;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), at;

	(void)uc;
	if (si->si_code > 0 && a >= guard_lo && a < guard_hi) {
		at = (uint64_t)(a - guard_lo) / page * page;
		if (mmap((void *)(guard_lo + at), (size_t)(guard_hi - guard_lo - at), PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
			if (at < guard_cut)
				guard_cut = at;
			return;
		}
	}
	signal(sig, SIG_DFL);	/* the access runs again and ends us */
}

static void guard(const void *base, size_t len)
{
	struct sigaction a = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO };

	guard_lo = base, guard_hi = guard_lo + len, guard_cut = UINT64_MAX;
	sigemptyset(&a.sa_mask);
	sigaction(SIGBUS, &a, NULL);
}

/* Where the file was cut while guarded (UINT64_MAX: nowhere). */
static uint64_t unguard(void)
{
	signal(SIGBUS, SIG_DFL);
	guard_lo = guard_hi = NULL;
	return guard_cut;
}

/* From this size on a copy goes in huge pages. Below it, a copy rounded up
 * to a whole 2 MiB page (and faulted in whole) would cost far more than the
 * file: a job's 10,000 rank files of 64 KiB each would take 20 GB. */
#define COPY_HUGE_MIN (16u << 20)

/* Memory for a copy of len bytes: in huge pages where the kernel gives
 * them (a 200 MB file in 4 KiB pages costs more in faults than its read),
 * for a small file as much as it holds (*mapped 0: malloc'ed). */
static unsigned char *copy_pages(size_t len, size_t *mapped)
{
	size_t huge = 2u << 20, want = (len + huge - 1) / huge * huge + huge;
	unsigned char *p;
	size_t head;

	if (len < COPY_HUGE_MIN)
		return *mapped = 0, xmalloc(len);
	p = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return *mapped = 0, xmalloc(len);
	head = (huge - (uintptr_t)p % huge) % huge;
	if (head)
		munmap(p, head);
	munmap(p + head + (want - huge), huge - head);
	madvise(p + head, want - huge, MADV_HUGEPAGE);
#ifdef MADV_POPULATE_WRITE
	/* faulted in at once, not a page at a time as the read fills it */
	madvise(p + head, want - huge, MADV_POPULATE_WRITE);
#endif
	*mapped = want - huge;
	return p + head;
}

/* A finished file, read (never faults): *n short of len when it shrank. */
static unsigned char *read_whole(int fd, size_t len, size_t *n, size_t *mapped)
{
	unsigned char *buf = copy_pages(len, mapped);
	ssize_t got = 0;

	for (*n = 0; *n < len; *n += (size_t)got) {
		got = pread(fd, buf + *n, len - *n, (off_t)*n);
		if (got < 0 && errno == EINTR)
			got = 0;
		else if (got <= 0)
			break;
	}
	return buf;
}

/* The file's bytes, ours to keep: a live process's file snapshotted from
 * the mapping (it changes as we read), a finished one read. Either way
 * nothing changes under the loader, and a file cut meanwhile is read as
 * far as it goes. */
static bool take_copy(struct report *r, const void *map, size_t len, int fd, char *why,
		      size_t whylen)
{
	struct rf_file f;
	struct stat st;
	enum rf_liveness live;
	size_t n;
	uint64_t cut, tail = 0;

	guard(map, len);
	if (rf_open_mem(map, len, &f, why, whylen) != 0) {
		unguard();
		return false;
	}
	/* RF_UNKNOWN (no boot id to tell) may be running too: a snapshot then */
	live = rf_state(f.h) == RF_RUNNING ? rf_liveness(f.h) : RF_GONE;
	r->live = live == RF_LIVE, r->unsure = live == RF_UNKNOWN;
	if (live != RF_GONE) {
		tail = __atomic_load_n(&f.h->tail, __ATOMIC_ACQUIRE);
		madvise((void *)map, len, MADV_WILLNEED);	/* (a hint) */
		r->snapshot = report_snapshot(&f, &n);
	} else {
		r->snapshot = read_whole(fd, len, &n, &r->snapshot_mapped);
	}
	cut = unguard();
	if (fstat(fd, &st) == 0 && (uint64_t)st.st_size < cut)
		cut = (uint64_t)st.st_size;
	if (live == RF_GONE && n < cut) /* (a snapshot is as long as the tail) */
		cut = n;
	if (cut < len) {
		r->shrank = true, r->size_was = len, r->size_now = cut;
		n = n < cut ? n : (size_t)cut;
	}
	/* a snapshot ends at the tail we could read; a tail past the end
	 * of a file that did not grow to it is records missing */
	if (live != RF_GONE && tail > n && (r->shrank || (uint64_t)st.st_size < tail))
		((struct rf_header *)(void *)r->snapshot)->tail = tail;
	if (rf_open_mem(r->snapshot, n, &r->file, why, whylen) != 0) {
		if (r->shrank)
			snprintf(why, whylen, "the file shrank to %zu bytes while being read: "
				 "shorter than its header", n);
		return false;
	}
	return true;
}

/* (report_read.h) */
bool report_read_file(struct report *r, const char *path, char *why, size_t whylen)
{
	const void *map;
	size_t len;
	int fd;
	bool ok;

	if (rf_map(path, &map, &len, &fd, why, whylen) != 0)
		return false;
	ok = take_copy(r, map, len, fd, why, whylen);
	munmap((void *)map, len);
	close(fd);
	if (!ok && strstr(why, "not a pmcshim report file"))
		say_if_json(path, why, whylen);
	return ok;
}
