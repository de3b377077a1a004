/* MPI calls as regions, through the standard profiling interface (PMPI)
 * as mpiP uses it: the shim defines MPI_Send and the others; each begins
 * a region named after the call, calls the MPI library's PMPI_Send and
 * ends the region. Only an MPI program reaches them. Rank and size go into
 * the report header once MPI_Init returns.
 *
 * Built without MPI's headers: one shim
 * serves Open MPI, whose handles are pointers, and MPICH, whose handles
 * are ints.
 *
 * No wrapper looks into its arguments. Each takes as many integer-class
 * words as its C function has arguments and passes them on, in order, to
 * PMPI_<name>, found with dlsym(RTLD_NEXT) at its first call. Every
 * argument of the functions wrapped here is an integer, a pointer or a
 * handle (an int or a pointer), which the x86-64 and AArch64 calling
 * conventions pass in one integer register or one 8-byte stack slot: a
 * word forwarded unchanged reaches the callee as the caller made it,
 * stack-passed arguments (past the 6th on x86-64, the 8th on AArch64)
 * included. They return an int, except MPI_Wtime and MPI_Wtick (a double:
 * wrappers of their own). None is variadic (MPI_Pcontrol is: not
 * wrapped). tests/mpi/arity.sh checks the argument counts against both
 * implementations' headers.
 *
 * The region of a call is keyed by the application's call site, like a
 * marker's. A program that never calls MPI never reaches this file: setup
 * only reads PMCSHIM_MPI. */

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cold.h"
#include "base/log.h"
#include "report/mapfile.h"
#include "base/nextsym.h"
#include "lifecycle/hooks.h"
#include "lifecycle/shim.h"
#include "settings/config.h"

#define EXPORT __attribute__((visibility("default")))

/* What a wrapper returns when the MPI library has no PMPI_<name>:
 * MPI_ERR_OTHER of MPICH (15; Open MPI's is 16): an error either way. */
#define NO_LIBRARY 15

/* The world communicator of MPICH's ABI (MPICH, Intel MPI, MVAPICH). */
#define MPICH_COMM_WORLD 0x44000000

typedef uintptr_t word;

/* (its name, "MPI_Send", is an argument: a pointer here would make each
 * of the wrappers' 200 structs a relocation and 8 bytes of .data, pages
 * the dynamic linker writes at every start) */
struct call {
	void *next;			/* PMPI_Send, found at the first call */
	uint32_t id;			/* the region's name id, 0 until named */
};

static int enabled;			/* PMCSHIM_MPI */
static unsigned state;			/* enum rf_mpi_state */
static pid_t init_pid;			/* the process that called MPI_Init */
static int rank = -1;

/* PMCSHIM_MPI. Nothing else happens until the program calls MPI. */
static void mpi_setup(const struct config *c)
{
	enabled = c->mpi;
}

__attribute__((constructor)) static void mpi_register(void)
{
	static const struct shim_hooks hooks = { .setup = mpi_setup };

	hooks_register(&hooks);
}

/* The one place an MPI call's region is named (its source is "mpi"). */
static uint32_t mpi_region(const char *name)
{
	return shim_name(name, RF_FROM_MPI);
}

static void *pmpi(const char *name)
{
	char p[64];

	snprintf(p, sizeof(p), "P%s", name);
	return nextsym(RTLD_NEXT, p);
}

static __attribute__((noinline)) void *resolve(struct call *c, const char *name)
{
	void *fn = pmpi(name);

	if (fn)
		__atomic_store_n(&c->next, fn, __ATOMIC_RELEASE);
	else
		log_error("%s called, but the MPI library has no P%s: the call returns an "
			  "error", name, name);
	return fn;
}

static __attribute__((noinline)) uint32_t name_call(struct call *c, const char *name)
{
	uint32_t id = mpi_region(name);

	__atomic_store_n(&c->id, id, __ATOMIC_RELAXED);
	return id;
}

/* Before the call: *next is PMPI_<name> (NULL: none); begins the region.
 * Returns its id, 0 when not recorded. errno is the application's. */
static inline uint32_t call_begin(struct call *c, const char *name, uintptr_t caller,
				  void **next)
{
	int saved = errno;
	uint32_t id = 0;

	if (!(*next = __atomic_load_n(&c->next, __ATOMIC_ACQUIRE)))
		*next = resolve(c, name);
	if (enabled && *next) {
		id = __atomic_load_n(&c->id, __ATOMIC_RELAXED);
		if (!id)
			id = name_call(c, name);
		if (id)
			shim_begin_at(id, caller);
	}
	errno = saved;
	return id;
}

static inline void call_end(uint32_t id)
{
	int saved = errno;

	if (id)
		shim_end_at(id);
	errno = saved;
}

/* --- the process as MPI sees it --------------------------------------- */

static void set_state(unsigned bit)
{
	struct rf_header *h = mapfile_header();

	__atomic_or_fetch(&state, bit, __ATOMIC_RELAXED);
	if (h)
		__atomic_or_fetch(&h->mpi_state, bit, __ATOMIC_RELAXED);
}

/* The first line of the library's version, up to a comma, blanks made
 * single spaces: "Open MPI v4.1.4", "MPICH Version: 4.0.2". */
COLD char mpi_version_text[8192];	/* MPICH's MPI_MAX_LIBRARY_VERSION_STRING */

static void library_name(char *out, size_t len)
{
	char *text = mpi_version_text;
	int (*fn)(word, word);
	int n = 0;
	size_t k = 0;

	*(void **)&fn = pmpi("MPI_Get_library_version");
	if (!fn || fn((word)text, (word)&n) != 0)
		text[0] = '\0';
	text[sizeof(mpi_version_text) - 1] = '\0';
	for (const char *p = text; *p && *p != '\n' && *p != ',' && k + 1 < len; p++) {
		int blank = *p == ' ' || *p == '\t';

		if (!blank || (k && out[k - 1] != ' '))
			out[k++] = blank ? ' ' : *p;
	}
	out[k] = '\0';
}

/* MPI_COMM_WORLD as this library's ABI has it; 0 when not known. */
static word world(const char *library)
{
	void *ompi = dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world");

	if (ompi)
		return (word)ompi;
	if (strstr(library, "MPICH") || strstr(library, "Intel") || strstr(library, "MVAPICH"))
		return MPICH_COMM_WORLD;
	return 0;
}

static void check_finalized(void)
{
	if (getpid() == init_pid && !(__atomic_load_n(&state, __ATOMIC_RELAXED) & RF_MPI_FINALIZED))
		log_error("MPI rank %d ended without calling MPI_Finalize", rank);
}

/* A rank's fork() child is not a rank: its copy of the file says so.
 * (Registered after the shim's own fork handler, which runs first in the
 * child and gives it its file.) */
static void forked_child(void)
{
	struct rf_header *h = mapfile_header();

	__atomic_store_n(&state, 0, __ATOMIC_RELAXED);
	if (h) {
		__atomic_store_n(&h->mpi_state, 0, __ATOMIC_RELAXED);
		h->mpi_rank = h->mpi_size = 0;
	}
}

/* MPI_Init or MPI_Init_thread returned MPI_SUCCESS. */
static void started(void)
{
	struct rf_header *h = mapfile_header();
	int (*comm)(word, word);
	int r = -1, size = 0, saved = errno;
	char library[sizeof(h->mpi_library)];
	word w;

	if (!enabled)
		return;
	library_name(library, sizeof(library));
	if ((w = world(library))) {
		*(void **)&comm = pmpi("MPI_Comm_rank");
		if (comm && comm(w, (word)&r) == 0 && (*(void **)&comm = pmpi("MPI_Comm_size")))
			comm(w, (word)&size);
	}
	if (r < 0 || size <= 0)
		log_notice("the MPI rank is not recorded: %s's MPI_COMM_WORLD is not known to "
			   "the shim", *library ? library : "this MPI library");
	rank = r;
	init_pid = getpid();
	if (h) {
		memcpy(h->mpi_library, library, sizeof(library));
		h->mpi_rank = r < 0 ? 0 : (uint32_t)r;
		h->mpi_size = size < 0 ? 0 : (uint32_t)size;
	}
	set_state(RF_MPI_INITIALIZED);
	atexit(check_finalized);
	pthread_atfork(NULL, NULL, forked_child);
	errno = saved;
}

static void finalizing(void)
{
	if (enabled && (__atomic_load_n(&state, __ATOMIC_RELAXED) & RF_MPI_FINALIZED)) {
		log_error("MPI_Finalize called again by rank %d: passed on to the MPI library",
			  rank);
		set_state(RF_MPI_FINALIZED_TWICE);
	}
}

static void finalized(void)
{
	if (enabled)
		set_state(RF_MPI_FINALIZED);
}

/* --- the wrappers ------------------------------------------------------- */

#define P0 void
#define P1 word w1
#define P2 P1, word w2
#define P3 P2, word w3
#define P4 P3, word w4
#define P5 P4, word w5
#define P6 P5, word w6
#define P7 P6, word w7
#define P8 P7, word w8
#define P9 P8, word w9
#define P10 P9, word w10
#define P11 P10, word w11
#define P12 P11, word w12
#define A0
#define A1 w1
#define A2 A1, w2
#define A3 A2, w3
#define A4 A3, w4
#define A5 A4, w5
#define A6 A5, w6
#define A7 A6, w7
#define A8 A7, w8
#define A9 A8, w9
#define A10 A9, w10
#define A11 A10, w11
#define A12 A11, w12

/* before and after: statements run outside the region, before the call
 * and after it (rc: its result). */
#define WRAP_WITH(fn, n, before, after)                                           \
	EXPORT int fn(P##n)                                                       \
	{                                                                         \
		static struct call c;                                             \
		int (*next)(P##n);                                                \
		uint32_t id;                                                      \
		int rc;                                                           \
                                                                                  \
		before;                                                           \
		id = call_begin(&c, #fn, (uintptr_t)__builtin_return_address(0), \
				(void **)&next);                                  \
		if (!next)                                                        \
			return NO_LIBRARY;                                        \
		rc = next(A##n);                                                  \
		call_end(id);                                                     \
		after;                                                            \
		return rc;                                                        \
	}
#define WRAP(fn, n) WRAP_WITH(fn, n, (void)0, (void)0)

#define WRAP_DOUBLE(fn)                                                           \
	EXPORT double fn(void)                                                    \
	{                                                                         \
		static struct call c;                                             \
		double (*next)(void);                                             \
		uint32_t id = call_begin(&c, #fn, (uintptr_t)__builtin_return_address(0), \
					 (void **)&next);                         \
		double v;                                                         \
                                                                                  \
		if (!next)                                                        \
			return 0;                                                 \
		v = next();                                                       \
		call_end(id);                                                     \
		return v;                                                         \
	}

/* Prototypes: every wrapper is exported on purpose (-Wmissing-prototypes
 * would ask for a header, which would be MPI's). */
#define PROTO(fn, n) EXPORT int fn(P##n);

/* The calls, with their number of arguments (MPI 3.1 C bindings). */
#define MPI_CALLS(X)                                                              \
	/* process */                                                             \
	X(MPI_Initialized, 1) X(MPI_Finalized, 1) X(MPI_Abort, 2)                 \
	X(MPI_Query_thread, 1) X(MPI_Is_thread_main, 1)                           \
	X(MPI_Get_processor_name, 2) X(MPI_Get_version, 2)                        \
	X(MPI_Get_library_version, 2)                                             \
	/* point to point */                                                      \
	X(MPI_Send, 6) X(MPI_Bsend, 6) X(MPI_Ssend, 6) X(MPI_Rsend, 6)            \
	X(MPI_Recv, 7) X(MPI_Isend, 7) X(MPI_Ibsend, 7) X(MPI_Issend, 7)          \
	X(MPI_Irsend, 7) X(MPI_Irecv, 7)                                          \
	X(MPI_Send_init, 7) X(MPI_Bsend_init, 7) X(MPI_Ssend_init, 7)             \
	X(MPI_Rsend_init, 7) X(MPI_Recv_init, 7) X(MPI_Start, 1) X(MPI_Startall, 2) \
	X(MPI_Sendrecv, 12) X(MPI_Sendrecv_replace, 9)                            \
	X(MPI_Probe, 4) X(MPI_Iprobe, 5) X(MPI_Mprobe, 5) X(MPI_Improbe, 6)       \
	X(MPI_Mrecv, 5) X(MPI_Imrecv, 5) X(MPI_Get_count, 3) X(MPI_Get_elements, 3) \
	X(MPI_Buffer_attach, 2) X(MPI_Buffer_detach, 2)                           \
	/* completion */                                                          \
	X(MPI_Wait, 2) X(MPI_Waitall, 3) X(MPI_Waitany, 4) X(MPI_Waitsome, 5)     \
	X(MPI_Test, 3) X(MPI_Testall, 4) X(MPI_Testany, 5) X(MPI_Testsome, 5)     \
	X(MPI_Request_free, 1) X(MPI_Request_get_status, 3) X(MPI_Cancel, 1)      \
	X(MPI_Test_cancelled, 2)                                                  \
	/* collectives */                                                         \
	X(MPI_Barrier, 1) X(MPI_Bcast, 5) X(MPI_Reduce, 7) X(MPI_Allreduce, 6)    \
	X(MPI_Gather, 8) X(MPI_Gatherv, 9) X(MPI_Scatter, 8) X(MPI_Scatterv, 9)   \
	X(MPI_Allgather, 7) X(MPI_Allgatherv, 8) X(MPI_Alltoall, 7)               \
	X(MPI_Alltoallv, 9) X(MPI_Alltoallw, 9) X(MPI_Reduce_scatter, 6)          \
	X(MPI_Reduce_scatter_block, 6) X(MPI_Scan, 6) X(MPI_Exscan, 6)            \
	X(MPI_Reduce_local, 5)                                                    \
	X(MPI_Ibarrier, 2) X(MPI_Ibcast, 6) X(MPI_Ireduce, 8) X(MPI_Iallreduce, 7) \
	X(MPI_Igather, 9) X(MPI_Igatherv, 10) X(MPI_Iscatter, 9)                  \
	X(MPI_Iscatterv, 10) X(MPI_Iallgather, 8) X(MPI_Iallgatherv, 9)           \
	X(MPI_Ialltoall, 8) X(MPI_Ialltoallv, 10) X(MPI_Ialltoallw, 10)           \
	X(MPI_Ireduce_scatter, 7) X(MPI_Ireduce_scatter_block, 7) X(MPI_Iscan, 7) \
	X(MPI_Iexscan, 7)                                                         \
	/* communicators and groups */                                            \
	X(MPI_Comm_size, 2) X(MPI_Comm_rank, 2) X(MPI_Comm_dup, 2)                \
	X(MPI_Comm_idup, 3) X(MPI_Comm_dup_with_info, 3) X(MPI_Comm_split, 4)     \
	X(MPI_Comm_split_type, 5) X(MPI_Comm_create, 3) X(MPI_Comm_create_group, 4) \
	X(MPI_Comm_free, 1) X(MPI_Comm_disconnect, 1) X(MPI_Comm_group, 2)        \
	X(MPI_Comm_compare, 3) X(MPI_Comm_set_name, 2) X(MPI_Comm_get_name, 3)    \
	X(MPI_Comm_remote_size, 2) X(MPI_Comm_test_inter, 2)                      \
	X(MPI_Comm_set_errhandler, 2) X(MPI_Comm_get_errhandler, 2)               \
	X(MPI_Comm_create_keyval, 4) X(MPI_Comm_free_keyval, 1)                   \
	X(MPI_Comm_set_attr, 3) X(MPI_Comm_get_attr, 4) X(MPI_Comm_delete_attr, 2) \
	X(MPI_Intercomm_create, 6) X(MPI_Intercomm_merge, 3)                      \
	X(MPI_Group_size, 2) X(MPI_Group_rank, 2) X(MPI_Group_incl, 4)            \
	X(MPI_Group_excl, 4) X(MPI_Group_range_incl, 4) X(MPI_Group_free, 1)      \
	X(MPI_Group_translate_ranks, 5) X(MPI_Group_union, 3)                     \
	X(MPI_Group_intersection, 3) X(MPI_Group_difference, 3)                   \
	X(MPI_Group_compare, 3)                                                   \
	/* topologies */                                                          \
	X(MPI_Cart_create, 6) X(MPI_Cart_coords, 4) X(MPI_Cart_rank, 3)           \
	X(MPI_Cart_shift, 5) X(MPI_Cart_sub, 3) X(MPI_Cart_get, 5)                \
	X(MPI_Cartdim_get, 2) X(MPI_Dims_create, 3) X(MPI_Topo_test, 2)           \
	X(MPI_Graph_create, 6) X(MPI_Dist_graph_create_adjacent, 10)              \
	/* datatypes, ops, memory, info, errors */                                \
	X(MPI_Type_contiguous, 3) X(MPI_Type_vector, 5) X(MPI_Type_create_hvector, 5) \
	X(MPI_Type_indexed, 5) X(MPI_Type_create_hindexed, 5)                     \
	X(MPI_Type_create_indexed_block, 5) X(MPI_Type_create_struct, 5)          \
	X(MPI_Type_create_subarray, 7) X(MPI_Type_create_resized, 4)              \
	X(MPI_Type_commit, 1) X(MPI_Type_free, 1) X(MPI_Type_size, 2)             \
	X(MPI_Type_get_extent, 3) X(MPI_Type_get_true_extent, 3) X(MPI_Type_dup, 2) \
	X(MPI_Pack, 7) X(MPI_Unpack, 7) X(MPI_Pack_size, 4)                       \
	X(MPI_Op_create, 3) X(MPI_Op_free, 1) X(MPI_Get_address, 2)               \
	X(MPI_Alloc_mem, 3) X(MPI_Free_mem, 1)                                    \
	X(MPI_Info_create, 1) X(MPI_Info_set, 3) X(MPI_Info_get, 5)               \
	X(MPI_Info_free, 1) X(MPI_Info_dup, 2)                                    \
	X(MPI_Error_string, 3) X(MPI_Error_class, 2)                              \
	/* one-sided */                                                           \
	X(MPI_Win_create, 6) X(MPI_Win_allocate, 6) X(MPI_Win_allocate_shared, 6) \
	X(MPI_Win_create_dynamic, 3) X(MPI_Win_free, 1) X(MPI_Win_fence, 2)       \
	X(MPI_Win_lock, 4) X(MPI_Win_unlock, 2) X(MPI_Win_lock_all, 2)            \
	X(MPI_Win_unlock_all, 1) X(MPI_Win_flush, 2) X(MPI_Win_flush_all, 1)      \
	X(MPI_Win_flush_local, 2) X(MPI_Win_sync, 1) X(MPI_Win_post, 3)           \
	X(MPI_Win_start, 3) X(MPI_Win_complete, 1) X(MPI_Win_wait, 1)             \
	X(MPI_Put, 8) X(MPI_Get, 8) X(MPI_Accumulate, 9) X(MPI_Get_accumulate, 12) \
	X(MPI_Fetch_and_op, 7) X(MPI_Compare_and_swap, 7) X(MPI_Rput, 9)          \
	X(MPI_Rget, 9)                                                            \
	/* I/O */                                                                 \
	X(MPI_File_open, 5) X(MPI_File_close, 1) X(MPI_File_delete, 2)            \
	X(MPI_File_set_view, 6) X(MPI_File_seek, 3) X(MPI_File_get_size, 2)       \
	X(MPI_File_set_size, 2) X(MPI_File_sync, 1)                               \
	X(MPI_File_read, 5) X(MPI_File_write, 5) X(MPI_File_read_all, 5)          \
	X(MPI_File_write_all, 5) X(MPI_File_read_at, 6) X(MPI_File_write_at, 6)   \
	X(MPI_File_read_at_all, 6) X(MPI_File_write_at_all, 6)

MPI_CALLS(PROTO)
PROTO(MPI_Init, 2)
PROTO(MPI_Init_thread, 4)
PROTO(MPI_Finalize, 0)
EXPORT double MPI_Wtime(void);
EXPORT double MPI_Wtick(void);

MPI_CALLS(WRAP)
WRAP_WITH(MPI_Init, 2, (void)0, if (rc == 0) started())
WRAP_WITH(MPI_Init_thread, 4, (void)0, if (rc == 0) started())
WRAP_WITH(MPI_Finalize, 0, finalizing(), finalized())
WRAP_DOUBLE(MPI_Wtime)
WRAP_DOUBLE(MPI_Wtick)
