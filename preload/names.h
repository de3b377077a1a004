/* Region names, interned process-wide: each distinct name gets a small id
 * (from 1) that markers carry instead of the string. */
#ifndef PMCSHIM_NAMES_H
#define PMCSHIM_NAMES_H

#include <stdint.h>

#define NAMES_MAX_LEN 255	/* longer names are cut */

/* Returns the id (0 on allocation failure) and, if interned is not NULL,
 * the immortal stored copy of the name. Takes a lock. */
uint32_t names_intern(const char *name, const char **interned);

/* The name of an id, or "?"; takes the lock. */
const char *names_get(uint32_t id);

void names_lock(void);
void names_unlock(void);

#endif
