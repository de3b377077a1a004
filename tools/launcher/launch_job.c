/* An MPI job's launchers: `mpirun -np 4 pmcshim ./app` starts one launcher
 * per rank. They agree on one run directory without talking to each other,
 * from what the MPI launcher put in their environment: the job's identity
 * names the directory (and claims an -o DIR for the job), and the rank
 * says who prints. Every launcher runs its rank; when its command is done
 * it leaves a mark in the directory and says nothing. Rank 0's launcher
 * waits for the marks of every other rank (JOB_WAIT_S at most, or until
 * it is told to stop), then prints the one table of the whole job.
 *
 * The directory holds, besides the reports, .pmcshim-job (the job that
 * owns it: a directory owned by another job is refused, as a non-empty
 * one is outside a job) and the marks .pmcshim-done.RANK (removed once
 * read). Names starting with '.' are not reports. */
#include "launch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "settings/config.h"

#define JOB_FILE ".pmcshim-job"
#define DONE_FILE ".pmcshim-done"
#define JOB_WAIT_S 60
#define PATHBUF (PATH_MAX + 32)	/* the directory and one of the names above */

/* The job's identity: Open MPI's job id, the PMIx namespace, Slurm's job
 * and step; MPICH's Hydra tells none, so its ranks on one node are known
 * by the proxy that started them all (their common parent). */
static void job_key(char *out, size_t len)
{
	const char *v;

	if ((v = getenv("OMPI_MCA_ess_base_jobid")) && *v)
		snprintf(out, len, "job%s", v);
	else if ((v = getenv("PMIX_NAMESPACE")) && *v)
		snprintf(out, len, "job%s", v);
	else if ((v = getenv("SLURM_JOB_ID")) && *v)
		snprintf(out, len, "job%s.%s", v,
			 getenv("SLURM_STEP_ID") ? getenv("SLURM_STEP_ID") : "0");
	else
		snprintf(out, len, "job-ppid%ld", (long)getppid());
	/* a file name's worth of plain characters */
	for (char *c = out; *c; c++)
		if (!(*c == '-' || *c == '.' || *c == '_' || (*c >= '0' && *c <= '9') ||
		      (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')))
			*c = '_';
}

void launch_job_detect(struct launch *l)
{
	long rank, size;

	l->rank = -1;
	if (config_mpi_rank(&rank, &size) != 0 || size < 1 || rank >= size)
		return;
	l->rank = (int)rank, l->size = (int)size;
	job_key(l->job, sizeof(l->job));
}

/* The job that owns dir, into out ("" when none). */
static void owner(const char *dir, char *out, size_t len)
{
	char path[PATHBUF];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "%s/" JOB_FILE, dir);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, out, len - 1);
		close(fd);
	}
	out[n > 0 ? n : 0] = '\0';
}

/* Nothing in dir but dot files (another launcher's claim in the making). */
static int only_dot_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int only = 1;

	if (!d)
		return 0;
	while (only && (e = readdir(d)))
		only = e->d_name[0] == '.';
	closedir(d);
	return only;
}

/* Write the job's name whole, then link it into place: the first
 * launcher's link wins, and every reader sees a complete name. */
static int write_claim(const char *dir, const char *job)
{
	char tmp[PATHBUF], path[PATHBUF];
	int fd, rc, err;

	snprintf(tmp, sizeof(tmp), "%s/" JOB_FILE ".%ld", dir, (long)getpid());
	snprintf(path, sizeof(path), "%s/" JOB_FILE, dir);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	rc = write(fd, job, strlen(job)) == (ssize_t)strlen(job) ? 0 : -1;
	close(fd);
	if (rc == 0)
		rc = link(tmp, path);
	err = errno;
	unlink(tmp);
	errno = err;
	return rc == 0 || errno == EEXIST ? 0 : -1;
}

/* dir is this job's: made, found empty and claimed, or claimed already
 * by another rank of the job. */
static int claim(const char *dir, const char *job, const char *shown)
{
	char who[256];

	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, LAUNCHER ": %s: %s\n", shown, strerror(errno));
		return -1;
	}
	owner(dir, who, sizeof(who));
	/* not empty: maybe another rank claimed it and wrote since */
	if (!*who && !only_dot_files(dir))
		owner(dir, who, sizeof(who));
	if (!*who && only_dot_files(dir) && write_claim(dir, job) != 0) {
		fprintf(stderr, LAUNCHER ": %s: %s\n", shown, strerror(errno));
		return -1;
	}
	if (!*who)
		owner(dir, who, sizeof(who));
	if (!strcmp(who, job))
		return 0;
	fprintf(stderr, LAUNCHER ": %s: %s; give a new or empty one, so this run's reports "
		"are not merged with others\n", shown,
		*who ? "the directory belongs to another MPI job" : "the directory is not empty");
	return -1;
}

int launch_job_dir(struct launch *l)
{
	const char *cmd = strrchr(l->argv[0], '/') ? strrchr(l->argv[0], '/') + 1 : l->argv[0];
	char rel[PATH_MAX];

	if (l->outdir)
		snprintf(rel, sizeof(rel), "%s", l->outdir);
	else if ((size_t)snprintf(rel, sizeof(rel), "pmcshim-%.64s-%s", *cmd ? cmd : "run",
				  l->job) >= sizeof(rel))
		return -1;
	if (claim(rel, l->job, l->outdir ? l->outdir : rel) != 0)
		return -1;
	if (!realpath(rel, l->dir)) {
		fprintf(stderr, LAUNCHER ": %s: %s\n", rel, strerror(errno));
		return -1;
	}
	return 0;
}

static void done_path(const struct launch *l, int rank, char *out, size_t len)
{
	snprintf(out, len, "%s/" DONE_FILE ".%d", l->dir, rank);
}

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/* Rank 0: every other rank's mark, JOB_WAIT_S at most; the number still
 * missing. SIGTERM or SIGHUP (the job is being ended) stops the wait. */
static int wait_for_ranks(const struct launch *l)
{
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	time_t until = time(NULL) + JOB_WAIT_S;
	struct sigaction sa;
	char path[PATHBUF];
	int r = 1;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	for (; r < l->size && !stop; ) {
		done_path(l, r, path, sizeof(path));
		if (access(path, F_OK) == 0)
			r++;
		else if (time(NULL) < until)
			nanosleep(&nap, NULL);
		else
			break;
	}
	for (int k = 1; k < l->size; k++) {
		done_path(l, k, path, sizeof(path));
		unlink(path);
	}
	return l->size - r;
}

void launch_job_end(const struct launch *l)
{
	char path[PATHBUF];
	int fd, missing;

	if (l->rank != 0) {
		done_path(l, l->rank, path, sizeof(path));
		if ((fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) >= 0)
			close(fd);
		return;
	}
	missing = wait_for_ranks(l);
	if (missing)
		fprintf(stderr, LAUNCHER ": %d of %d ranks had not finished after %d s: their "
			"reports are shown as they stand\n", missing, l->size, JOB_WAIT_S);
	launch_show_reports(l);
}
