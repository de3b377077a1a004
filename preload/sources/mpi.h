/* MPI calls as regions, through the standard profiling interface (PMPI)
 * as mpiP uses it: the shim defines MPI_Send and the others; each begins
 * a region named after the call, calls the MPI library's PMPI_Send and
 * ends the region. Only an MPI program reaches them. Rank and size go into
 * the report header once MPI_Init returns. */
#ifndef PMCSHIM_MPI_H
#define PMCSHIM_MPI_H

#include "settings/config.h"

/* Setup: PMCSHIM_MPI. Nothing else happens until the program calls MPI. */
void mpi_configure(const struct config *c);

#endif
