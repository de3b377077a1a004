/* The process's report file (reportfile.h), written through a shared
 * mapping from the constructor on: whatever ends the process, the file
 * holds every record and every site sum stored before the end. */
#ifndef PMCSHIM_MAPFILE_H
#define PMCSHIM_MAPFILE_H

#include <stddef.h>
#include <stdint.h>

#include "settings/config.h"
#include "format/reportfile.h"

struct mapfile_process {
	const char *exe_name;
	int argc;
	char **argv;
	int stack_depth;
	int serialize;
};

/* Create and map the file named by the configured output (a pattern, or
 * a directory to put the default name in), falling back to $TMPDIR with
 * one line. Returns 0, or -1 (said why) when no file could be made. */
int mapfile_create(const struct config *cfg, const struct mapfile_process *p);
/* The mapped header, or NULL when there is no file. */
struct rf_header *mapfile_header(void);
/* The path of the file ("" when none). */
const char *mapfile_path(void);
/* The first complete record of the file that match accepts, or NULL. */
struct rf_record *mapfile_find(int (*match)(const struct rf_record *r, const void *arg),
			       const void *arg);

/* A new record of `size` bytes (rounded up to 8), zeroed apart from its
 * rf_record, not yet done; NULL (and a RF_DROP_FULL count) when the file
 * cannot grow. Takes the append lock: call with the guard held. */
void *mapfile_append(uint16_t type, size_t size);
/* Mark a record from mapfile_append complete. */
void mapfile_publish(void *record);
/* Take a published record out of the report (readers skip it). */
void mapfile_hide(struct rf_record *r);
/* Count something the shim could not record. Async-signal-safe. */
void mapfile_drop(enum rf_drop kind);

/* The process ends (state RF_EXITED, RF_QUICK_EXIT, RF_EXECED with
 * target): store the end sample (with the tick rate clock_calibrate
 * fixed just before), then the state. Takes no lock. */
void mapfile_finish(uint32_t state, const char *target);
/* exec failed: the process goes on. */
void mapfile_unfinish(void);

/* fork(): the child gets its own file, a copy of the parent's records
 * mapped at the same address, so every pointer into it stays valid;
 * fn(record, arg) then sees each record to reset or hide it. */
void mapfile_lock(void);
void mapfile_unlock(void);
int mapfile_after_fork_child(void (*fn)(struct rf_record *r, void *arg), void *arg);

#endif
