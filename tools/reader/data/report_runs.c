#include "report_runs.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/reportfile.h"
#include "report_util.h"

/* Room for the arrays of a runs being built. */
struct caps {
	size_t path, part;
};

static void add(struct runs *r, struct caps *cap, char *path, uint32_t part)
{
	r->path = grow(r->path, &cap->path, r->n + 1, sizeof(*r->path));
	r->part = grow(r->part, &cap->part, r->n + 1, sizeof(*r->part));
	r->path[r->n] = path;
	r->part[r->n++] = part;
}

/* A report, or the launcher's count of the whole run (.totals.PID). */
static int is_report(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	if (!strncmp(e->d_name, ".totals.", 8))
		return 1;
	return e->d_name[0] != '.' && n > 4 && !strcmp(e->d_name + n - 4, ".pmc");
}

/* dir's reports, in name order. */
static int add_dir(struct runs *r, struct caps *cap, const char *dir, uint32_t part)
{
	struct dirent **ent;
	int k = scandir(dir, &ent, is_report, alphasort);

	if (k <= 0) {
		if (k < 0)
			fprintf(stderr, PROG ": %s: %s\n", dir, strerror(errno));
		else
			fprintf(stderr, PROG ": %s: no report (*.pmc) in this directory\n", dir);
		if (k == 0)
			free(ent);
		return -1;
	}
	for (int i = 0; i < k; i++) {
		char *p;

		if (asprintf(&p, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/",
			     ent[i]->d_name) < 0)
			oom();
		add(r, cap, p, part);
		free(ent[i]);
	}
	free(ent);
	return 0;
}

int runs_expand(struct runs *r, char *const *args, size_t nargs)
{
	struct caps cap = { 0, 0 };
	struct stat st;

	memset(r, 0, sizeof(*r));
	r->nparts = nargs;
	for (size_t i = 0; i < nargs; i++) {
		char *p;

		if (stat(args[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			r->any_dir = true;
			if (add_dir(r, &cap, args[i], (uint32_t)i) == 0)
				continue;
			runs_free(r);
			return -1;
		}
		if (!(p = strdup(args[i])))
			oom();
		add(r, &cap, p, (uint32_t)i);	/* the loader says what is wrong with it */
	}
	return 0;
}

void runs_free(struct runs *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->path[i]);
	free(r->path), free(r->part);
	memset(r, 0, sizeof(*r));
}

int runs_take_jobs(struct runs *r, struct rf_job **jobs, size_t *njobs)
{
	size_t kept = 0;
	char why[200];

	for (size_t i = 0; i < r->n; i++) {
		struct rf_job j;
		int rc = rf_job_read(r->path[i], &j, why, sizeof(why));

		if (rc < 0) {
			say_bad(r->path[i], why);
			return -1;
		}
		if (rc == 0) {
			r->part[kept] = r->part[i];
			r->path[kept++] = r->path[i];
			continue;
		}
		free(r->path[i]);
		*jobs = xrealloc(*jobs, (*njobs + 1) * sizeof(**jobs));
		(*jobs)[(*njobs)++] = j;
	}
	r->n = kept;
	return 0;
}
