/* A module linked with the MPI library, dlopen()ed RTLD_LOCAL by host.c
 * (as Python loads an MPI binding). */
int MPI_Init(int *argc, char ***argv);
int plugin_run(void) { return MPI_Init(0, 0); }
