#include "report.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "json.h"
#include "log.h"
#include "modules.h"
#include "names.h"
#include "stacks.h"
#include "threads.h"

/* --- content -------------------------------------------------------- */

struct emit {
	struct json *j;
	const struct report_info *ri;
};

static void write_process(struct json *j, const struct report_info *ri)
{
	char host[256] = "";

	gethostname(host, sizeof(host) - 1);
	json_object(j, "process");
	json_i64(j, "pid", getpid());
	json_i64(j, "ppid", getppid());
	json_str(j, "host", host);
	json_str(j, "executable", ri->exe_name);
	json_array(j, "argv");
	for (int i = 0; i < ri->argc && ri->argv && ri->argv[i]; i++)
		json_str(j, NULL, ri->argv[i]);
	json_end(j);
	json_bool(j, "forked", ri->forked);
	json_u64(j, "start_ns", clock_start_real_ns());
	json_u64(j, "end_ns", clock_real_ns());
	json_u64(j, "wall_ns", clock_mono_ns() - clock_start_mono_ns());
	json_end(j);
}

static void write_events(struct json *j, const struct report_info *ri)
{
	const struct event_list *ev = &ri->cfg->events;

	json_array(j, "events");
	for (int i = 0; i < ev->n; i++) {
		json_object(j, NULL);
		json_str(j, "name", ev->ev[i].name);
		json_u64(j, "type", ev->ev[i].type);
		json_hex(j, "config", ev->ev[i].config);
		json_bool(j, "exclude_kernel", ev->ev[i].exclude_kernel);
		json_str(j, "source", counters_source_name(ri->status[i].source));
		if (ri->status[i].source == SOURCE_UNAVAILABLE)
			json_str(j, "reason", ri->status[i].reason);
		json_end(j);
	}
	json_end(j);
}

static void write_total(struct json *j, const struct thread_state *t, int i)
{
	uint64_t v = t->totals[i], en = t->enabled[i], run = t->running[i];

	json_object_compact(j, NULL);
	if (!(t->open_mask & (1u << i)) || t->lost) {
		json_null(j, "value");
		json_str(j, "status", t->lost ? "lost" : "unavailable");
		json_end(j);
		return;
	}
	if (run == 0)
		json_null(j, "value");
	else
		json_u64(j, "value", v);
	json_u64(j, "enabled_ns", en);
	json_u64(j, "running_ns", run);
	if (run == 0) {
		json_str(j, "status", "not counted");
	} else if (run < en) {
		json_str(j, "status", "multiplexed");
		json_u64(j, "scaled", (uint64_t)((double)v * (double)en / (double)run));
	} else {
		json_str(j, "status", "counted");
	}
	json_end(j);
}

static void write_stat(struct json *j, const char *key, const struct site *s,
		       int i, int ticks)
{
	uint64_t v[4] = { regions_load(&s->incl[i]), regions_load(&s->excl[i]),
			  regions_load(&s->min[i]), regions_load(&s->max[i]) };
	static const char *const names[4] = { "incl", "excl", "min", "max" };

	json_object_compact(j, key);
	for (int k = 0; k < 4; k++)
		json_u64(j, names[k], ticks ? clock_ticks_to_ns(v[k]) : v[k]);
	json_end(j);
}

static void write_site(struct json *j, const struct thread_state *t,
		       const struct site *s)
{
	json_object(j, NULL);
	json_str(j, "region", names_get(s->region));
	json_u64(j, "stack", s->stack);
	json_u64(j, "calls", regions_load(&s->calls));
	write_stat(j, "wall_ns", s, 0, 1);
	json_array(j, "events");
	for (int i = 0; i < t->ctr.n; i++) {
		/* sites hold values for open events only, in event order */
		int k = __builtin_popcount(t->open_mask & ((1u << i) - 1));
		if ((t->open_mask & (1u << i)) && !t->lost)
			write_stat(j, NULL, s, 1 + k, 0);
		else
			json_null(j, NULL);
	}
	json_end(j);
	json_end(j);
}

static void write_thread(struct thread_state *t, void *ctx)
{
	struct json *j = ((struct emit *)ctx)->j;

	json_object(j, NULL);
	json_i64(j, "tid", t->tid);
	json_str(j, "name", t->name);
	json_bool(j, "main", t->is_main);
	json_str(j, "state", t->finished ? "exited" : "running");
	json_str(j, "setup", t->lazy ? "lazy" : "start");
	json_u64(j, "wall_ns", t->end_mono - t->start_mono);
	json_u64(j, "cpu_ns", t->cpu_ns);
	json_array(j, "totals");
	for (int i = 0; i < t->ctr.n; i++)
		write_total(j, t, i);
	json_end(j);
	json_array(j, "regions");
	for (const struct site *s = t->rs.list; s; s = s->next)
		if (regions_load(&s->calls))
			write_site(j, t, s);
	json_end(j);
	json_end(j);
}

static void write_errors_of(struct thread_state *t, void *ctx)
{
	struct json *j = ((struct emit *)ctx)->j;

	for (const struct region_error_rec *e = t->rs.errors; e; e = e->next) {
		json_object(j, NULL);
		json_str(j, "kind", regions_error_name(e->kind));
		json_i64(j, "tid", t->tid);
		json_str(j, "region", e->region ? names_get(e->region) : "");
		if (e->kind == ERR_END_MISMATCH)
			json_str(j, "open", names_get(e->open));
		json_u64(j, "count", e->count);
		json_end(j);
	}
}

static void write_frame(struct json *j, uintptr_t pc, const struct module *m, int nm)
{
	int k = modules_find(m, nm, pc);
	Dl_info info;

	json_object_compact(j, NULL);
	json_hex(j, "addr", pc);
	json_i64(j, "module", k);
	if (k >= 0)
		json_hex(j, "offset", pc - m[k].base);
	if (dladdr((void *)(pc - 1), &info) && info.dli_sname) {
		char sym[512];
		snprintf(sym, sizeof(sym), "%s+0x%lx", info.dli_sname,
			 (unsigned long)(pc - (uintptr_t)info.dli_saddr));
		json_str(j, "symbol", sym);
	}
	json_end(j);
}

static void write_stacks_and_modules(struct json *j)
{
	struct module *m = NULL;
	int nm = modules_collect(&m);

	json_array(j, "stacks");
	stacks_lock();
	for (uint32_t id = 0; id < stacks_count(); id++) {
		const uintptr_t *pcs;
		int n = stacks_get(id, &pcs);
		json_object(j, NULL);
		json_u64(j, "id", id);
		json_array(j, "frames");
		for (int i = 0; i < n; i++)
			write_frame(j, pcs[i], m, nm);
		json_end(j);
		json_end(j);
	}
	stacks_unlock();
	json_end(j);

	json_array(j, "modules");
	for (int i = 0; i < nm; i++) {
		json_object(j, NULL);
		json_i64(j, "id", i);
		json_str(j, "path", m[i].path);
		json_str(j, "build_id", m[i].build_id);
		json_hex(j, "base", m[i].base);
		json_end(j);
	}
	json_end(j);
	free(m);
}

void report_emit(FILE *f, const struct report_info *ri)
{
	struct json j;
	struct emit e = { &j, ri };

	json_init(&j, f);
	json_object(&j, NULL);
	json_str(&j, "format", REPORT_FORMAT);
	json_u64(&j, "version", REPORT_VERSION);
	write_process(&j, ri);
	json_object(&j, "clock");
	json_str(&j, "source", ARCH_TICKS_NAME);
	json_double(&j, "ticks_per_us", clock_ticks_per_ns() * 1000.0);
	json_end(&j);
	json_u64(&j, "stack_depth", (uint64_t)ri->cfg->stack_depth);
	write_events(&j, ri);
	threads_snapshot_running();
	json_array(&j, "threads");
	threads_for_each(write_thread, &e);
	json_end(&j);
	write_stacks_and_modules(&j);
	json_array(&j, "errors");
	threads_for_each(write_errors_of, &e);
	json_end(&j);
	json_end(&j);
	fputc('\n', f);
}

/* --- file ----------------------------------------------------------- */

/* Name for attempt k: the path itself, then "stem.k.json" (or "path.k"). */
static void candidate(const char *path, int k, char *out, size_t len)
{
	const char *dot = strrchr(path, '.');
	const char *slash = strrchr(path, '/');

	if (k == 0)
		snprintf(out, len, "%s", path);
	else if (dot && (!slash || dot > slash + 1))
		snprintf(out, len, "%.*s.%d%s", (int)(dot - path), path, k, dot);
	else
		snprintf(out, len, "%s.%d", path, k);
}

/* Move tmp to path without replacing anything there; another process's
 * report (or a symlink planted in its place) is never clobbered. */
static int publish(const char *tmp, const char *path, char *final, size_t len)
{
	for (int k = 0; k < 100; k++) {
		candidate(path, k, final, len);
		if (renameat2(AT_FDCWD, tmp, AT_FDCWD, final, RENAME_NOREPLACE) == 0)
			return 0;
		if (errno == EINVAL || errno == ENOSYS) {
			/* file system without RENAME_NOREPLACE */
			if (link(tmp, final) == 0)
				return unlink(tmp), 0;
		}
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

static int write_to(const char *path, const struct report_info *ri,
		    char *final, size_t len)
{
	char tmp[PATH_MAX + 16];
	mode_t mask = umask(0);
	FILE *f;
	int fd, err;

	umask(mask);
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return errno = ENAMETOOLONG, -1;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -1;
	fchmod(fd, 0666 & ~mask);
	f = fdopen(fd, "w");
	if (!f) {
		err = errno;
		close(fd);
		unlink(tmp);
		return errno = err, -1;
	}
	report_emit(f, ri);
	err = ferror(f) ? EIO : 0;
	if (fclose(f) != 0 && !err)
		err = errno;
	if (!err && publish(tmp, path, final, len) != 0)
		err = errno;
	if (err) {
		unlink(tmp);
		return errno = err, -1;
	}
	return 0;
}

int report_write(const struct report_info *ri)
{
	char host[256] = "", path[PATH_MAX], fallback[PATH_MAX], final[PATH_MAX + 16];
	const char *tmpdir = getenv("TMPDIR");
	int saved = errno, err;

	gethostname(host, sizeof(host) - 1);
	clock_calibrate();
	if (config_expand_output(ri->cfg->output, getpid(), host, ri->exe_name,
				 path, sizeof(path)) != 0) {
		snprintf(path, sizeof(path), "%s", ri->cfg->output);
		errno = ENAMETOOLONG;
		err = errno;
	} else if (write_to(path, ri, final, sizeof(final)) == 0) {
		if (strcmp(final, path) != 0)
			log_notice("%s already exists; report written to %s", path, final);
		errno = saved;
		return 0;
	} else {
		err = errno;
	}
	if (!tmpdir || tmpdir[0] != '/')
		tmpdir = "/tmp";
	snprintf(fallback, sizeof(fallback), "%s/pmcshim-%s-%d.json", tmpdir,
		 ri->exe_name, (int)getpid());
	if (write_to(fallback, ri, final, sizeof(final)) == 0)
		log_error("cannot write report to %s (%s); wrote %s instead",
			  path, strerror(err), final);
	else
		log_error("cannot write report to %s (%s) nor to %s (%s); "
			  "this run's measurements are lost", path, strerror(err),
			  fallback, strerror(errno));
	errno = saved;
	return -1;
}
