/* A stand-in MPI library: what the local-scope test needs of one. */
int PMPI_Init(int *argc, char ***argv) { (void)argc; (void)argv; return 0; }
int MPI_Init(int *argc, char ***argv) { return PMPI_Init(argc, argv); }
