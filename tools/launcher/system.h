/* pmcshim --system's pieces (launch_system*.c): the report file it
 * writes, and the counters of CPUs and processes it follows. */
#ifndef PMCSHIM_LAUNCH_SYSTEM_H
#define PMCSHIM_LAUNCH_SYSTEM_H

#include <stdint.h>
#include <sys/types.h>

#include "counters/events.h"
#include "format/reportfile.h"

/* launch_sysfile.c: the system report, appended through a shared mapping
 * (a record is whole once published: nothing is lost if the launcher is
 * killed). */
struct sysfile {
	int fd;
	unsigned char *base;		/* SYSFILE_RESERVE bytes of address space */
	uint64_t size;			/* the file's size now */
	uint64_t cap;			/* its bound: SYSFILE_RESERVE, less in a test */
	uint64_t tail;
	struct rf_header *h;
};

/* Make path and write its header and the events' records (reason[i]: why
 * event i cannot count, "" when it can). 0, or -1 after one line. */
int sysfile_create(struct sysfile *f, const char *path, const struct event_list *ev,
		   char reason[][200], int argc, char **argv);
/* A zeroed record of size bytes, not yet done; NULL when the file is full
 * (counted in the header). */
void *sysfile_append(struct sysfile *f, uint16_t type, size_t size);
void sysfile_publish(struct sysfile *f, void *rec);
/* The run is over: end times and state. */
void sysfile_finish(struct sysfile *f);

/* CLOCK_BOOTTIME in ns. */
uint64_t sys_now_ns(void);

/* launch_sysproc.c: one entity (a CPU or a process) and its counters. */
struct sysent {
	uint32_t index;			/* rf_sys_entity.index */
	int scope;			/* enum rf_sys_scope */
	uint64_t id;			/* CPU or pid */
	uint64_t proc_start;		/* field 22 of /proc/PID/stat */
	int alive;			/* counting (a process not yet ended, a CPU online) */
	int refused;			/* a process no counter could follow: not tried again */
	int seen;			/* found by the last scan */
	int nfd;			/* nevents per task followed */
	int *fd;			/* -1 where an event did not open */
	uint64_t last[EVENTS_MAX];	/* the totals last written */
	uint64_t last_busy;		/* busy ns last written */
	uint64_t cpu_ns;		/* a process's CPU time at the last scan */
};

struct systate {
	struct sysfile file;
	struct event_list ev;
	int cpu_wide;			/* per-CPU counters allowed */
	int own_only;			/* the user's own processes only */
	uid_t uid;
	uint32_t interval;		/* the interval being counted */
	struct sysent *ent;		/* the CPUs and the processes alive or refused now */
	uint32_t nent, cent;
	uint32_t nindex;		/* entity records written (the next one's index) */
	uint32_t followed, unfollowed;	/* processes, this interval */
	uint64_t unfollowed_total;	/* processes never followed, the whole run */
	uint64_t followed_sum;		/* followed, summed over the intervals */
	uint64_t nended;		/* processes that ended during the run */
	int fd_budget;			/* descriptors left for counters */
	int user_only[EVENTS_MAX];	/* kernel mode refused: user space only */
};

/* Open ev's events on one CPU (pid -1) into e; 0, or -1 (none opened). */
int sys_open_cpu(struct systate *s, struct sysent *e);
/* Follow process pid (each of its threads, and the threads it starts):
 * 0, or -1 when not one counter opened (counted as unfollowed unless it
 * ended first). */
int sys_open_process(struct systate *s, struct sysent *e);
void sys_close(struct sysent *e);
/* Whether event i opens on cpu (CPU-wide): 0, or its errno. */
int sys_try(struct systate *s, int i, int cpu);
/* Totals of e's counters now (scaled where multiplexed) into v. */
void sys_read(const struct systate *s, const struct sysent *e, uint64_t *v);
/* A new entity's slot in s->ent (NULL when out of memory), then its record
 * in the file (and its index) once it is followed. */
struct sysent *sys_slot(struct systate *s, int scope, uint64_t id);
void sys_record(struct systate *s, struct sysent *e, uint64_t start_ns, const char *command);
/* Rescan /proc: new processes followed, ended ones closed with their
 * last values; end_ns: the interval's end. */
void sys_scan(struct systate *s, uint64_t end_ns);
/* Write e's values for the interval when they moved; busy: ns of CPU
 * time now (UINT64_MAX unknown). */
void sys_write_values(struct systate *s, struct sysent *e, uint64_t busy);

#endif
