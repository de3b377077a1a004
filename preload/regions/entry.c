/* The words every marker reads first (entry.h). */
#include "entry.h"

__thread struct shim_tls shim_tls;
struct entry_cold entry_cold;
