/* Where the report file goes, and its making: the configured output
 * expanded (a pattern, or a directory for the default name), created
 * once under the first free numbered name, $TMPDIR the fallback. Apart
 * from mapfile.c, which maps, grows and mends the file once made. */
#ifndef PMCSHIM_OUTPATH_H
#define PMCSHIM_OUTPATH_H

#include <stddef.h>
#include <stdint.h>

#include "settings/config.h"

/* Create the report file (O_EXCL, 0600, never through a symlink, never a
 * device) with its first `size` bytes allocated, falling back to $TMPDIR
 * with one line. Its name goes in name[len] (PATH_MAX bytes; scratch
 * before). The descriptor, or -1 (said why) with errno. */
int outpath_open(const struct config *cfg, const char *exe, uint64_t size, char *name,
		 size_t len);
/* size bytes of fd's file allocated (a sparse size where the file system
 * has no fallocate), as made and as grown: 0, or an errno. */
int outpath_allocate(int fd, uint64_t size);

#endif
