/* The per-thread "inside the shim" flag (guard.h): defined apart from
 * its users so that the regions code and its unit tests link without the
 * thread setup. */
#include "guard.h"

__thread int guard_depth;
