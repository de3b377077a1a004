/* The report file, format version 2 (docs/report-format.md): the one
 * definition of its layout, shared by the shim (which writes it through a
 * shared mapping while the program runs) and the reader in tools/.
 *
 * A file is a fixed header followed by records. Every integer is
 * little-endian; every record is 8-byte aligned and starts with struct
 * rf_record. Records are appended, never moved; the shim updates a few
 * fields in place (site sums, error counts, thread totals, the header's
 * state), each with a protocol that lets a reader running at the same time
 * see whole values:
 *   - tail: the shim fills a record's rf_record header, then stores tail
 *     past it (release). A reader stops at tail (acquire).
 *   - rf_record.done: 0 until the body is written, then 1 (release). A
 *     reader skips records that are not done: a process killed while
 *     writing one leaves it so, and every record after it is still read.
 *   - site sums: a sequence count (odd while the owning thread updates).
 *   - thread totals and the header's end fields: written before `state`
 *     (release), read after it (acquire).
 */
#ifndef PMCSHIM_REPORTFILE_H
#define PMCSHIM_REPORTFILE_H

#include <stddef.h>
#include <stdint.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the report file is little-endian; this target is not"
#endif

#define RF_MAGIC "PMCSHIM"		/* 8 bytes with its NUL */
#define RF_VERSION 2
#define RF_HEADER_SIZE 4096
#define RF_MAX_SIZE (UINT64_C(1) << 32)	/* a file never grows past 4 GiB */
#define RF_EVENTS_MAX 8
#define RF_FRAMES_MAX 65		/* call site + 64 frames above it */

/* How the process ended, as far as the shim could tell. */
enum rf_state {
	RF_RUNNING = 1,		/* or ended without a word: killed, crashed */
	RF_EXITED = 2,		/* exit() or return from main */
	RF_EXECED = 3,		/* replaced by exec*(); exec_target says by what */
	RF_QUICK_EXIT = 4,	/* _exit() / _Exit() */
};

enum rf_flag {
	RF_FORKED = 1,		/* a fork() child: counts start at the fork */
	RF_FULL = 2,		/* the file reached its size limit */
	RF_SERIALIZED = 4,	/* counter reads had ordering barriers */
	RF_CUT = 8,		/* cut short while the process ran: see cut_size */
	RF_TREE = 16,		/* sites name their parent site (rf_site.parent) */
	/* PMCSHIM_FUNCTIONS=sampled: the sites of function regions
	 * (RF_FROM_FUNCTIONS) count their calls exactly, and v[0] holds ns
	 * of CPU time from task-clock samples (incl: the samples taken while
	 * the site was open, excl: while it was innermost), not wall ticks;
	 * no min or max, no event's value. */
	RF_FN_SAMPLED = 32,
	/* A whole-machine report (pmcshim --system): RF_SYS_* records, no
	 * threads or sites. A bit well apart from the others. */
	RF_SYSTEM = 1u << 16,
};

/* What the shim could not record, counted in the header. */
enum rf_drop {
	RF_DROP_FULL,		/* a record did not fit in the file */
	RF_DROP_BUSY,		/* a marker met the shim busy on its thread (signal handler) */
	RF_DROP_EARLY,		/* a marker before the shim was set up */
	RF_DROP_NAMES,		/* a marker with a new name past the names limit */
	RF_DROP_IDS,		/* a marker with an id no region() call returned */
	RF_DROP_FUNCTIONS,	/* an instrumented function past the functions' limit */
	RF_DROP_KINDS = 8
};

struct rf_header {
	char magic[8];			/* RF_MAGIC */
	uint32_t version;		/* RF_VERSION */
	uint32_t header_size;		/* RF_HEADER_SIZE: the first record */
	uint64_t tail;			/* end of the last record (release/acquire) */
	uint32_t state;			/* enum rf_state (release/acquire) */
	uint32_t flags;			/* enum rf_flag */
	uint64_t pid, ppid;
	uint64_t proc_start;		/* field 22 of /proc/PID/stat: tells a reused pid */
	char boot_id[40];		/* /proc/sys/kernel/random/boot_id */
	/* CLOCK_REALTIME, CLOCK_MONOTONIC and the tick counter, sampled
	 * together at start and at the end (end_*: once state is not
	 * RF_RUNNING). Ticks convert to ns with ticks_per_ns. */
	uint64_t start_real_ns, start_mono_ns, start_ticks;
	uint64_t end_real_ns, end_mono_ns, end_ticks;
	double ticks_per_ns;		/* 0 until the end; see rf_ticks_per_ns */
	uint32_t stack_depth;		/* frames above the call site */
	uint32_t nevents;		/* RF_EVENT records that follow */
	uint64_t dropped[RF_DROP_KINDS];	/* enum rf_drop; relaxed atomics */
	char clock_source[16];		/* "rdtsc", "cntvct", ... */
	char user_read[16];		/* how RF_SOURCE_USER reads: "rdpmc", "mrs" */
	char barrier[16];		/* RF_SERIALIZED: the barrier, "lfence", "isb" */
	char shim_version[32];
	char host[64];
	char executable[256];		/* the program's base name */
	char exec_target[256];		/* RF_EXECED: the path it exec'd */
	uint32_t argc;			/* arguments stored in argv (may be fewer than the program had) */
	uint32_t argv_truncated;	/* 1: more arguments or bytes than fit */
	char argv[2048];		/* argc NUL-terminated strings */
	/* MPI (preload/mpi.c), written once MPI_Init returns: rank and size
	 * in MPI_COMM_WORLD, valid when mpi_state has RF_MPI_INITIALIZED.
	 * A file from a shim before these fields has zeros here. */
	uint32_t mpi_state;		/* enum rf_mpi_state bits (relaxed) */
	uint32_t mpi_rank, mpi_size;
	uint32_t pad_mpi;
	char mpi_library[64];		/* the first line of MPI_Get_library_version */
	/* RF_CUT: the file was cut short under the running process (truncated
	 * by another one); the shim put its size back and went on recording.
	 * What lay past the cut is lost: the header, when it was cut into,
	 * is written again (its drop counts restart at 0); the records cut
	 * into are one filler record (type 0) of cut_lost bytes. */
	uint64_t cut_size;		/* the size it was last cut to */
	uint64_t cut_lost;		/* bytes of records lost, all cuts together */
	uint32_t cuts;			/* how many times it was cut */
	uint32_t cut_pad;
	/* The process ran this long before start_mono_ns (its exec, the
	 * loader, constructors before the shim's): at least the main thread's
	 * CPU time then, and at least the time since its start (field 22 of
	 * /proc/self/stat, clock ticks) less one tick. So the wall time counts
	 * from the same point as the CPU time and the totals. 0: unknown (a
	 * shim before it), or a fork child (it starts at the fork). */
	uint64_t before_wall_ns;
};

enum rf_mpi_state {
	RF_MPI_INITIALIZED = 1,		/* MPI_Init or MPI_Init_thread returned */
	RF_MPI_FINALIZED = 2,		/* MPI_Finalize called */
	RF_MPI_FINALIZED_TWICE = 4,	/* and called again */
};

enum rf_type {
	RF_EVENT = 1,
	RF_THREAD = 2,
	RF_NAME = 3,
	RF_STACK = 4,
	RF_MODULE = 5,
	RF_SITE = 6,
	RF_ERROR = 7,
	RF_ORIGIN = 8,
	RF_SAMPLES = 9,
	RF_TYPES,
	/* pmcshim --system (RF_SYSTEM files), numbered well apart from the
	 * region records: see "System reports" below. */
	RF_SYS_RUN = 64,
	RF_SYS_ENTITY = 65,
	RF_SYS_VALUES = 66,
	RF_SYS_INTERVAL = 67,
	RF_SYS_END = 68,
};

struct rf_record {
	uint32_t size;			/* bytes, this header included; a multiple of 8 */
	uint16_t type;			/* enum rf_type */
	uint16_t done;			/* 1 once the body is complete (release/acquire) */
};

/* Where an event's values come from. */
enum rf_source {
	RF_SOURCE_UNAVAILABLE = 0,
	RF_SOURCE_READ = 1,		/* read() of the group */
	RF_SOURCE_USER = 2,		/* rdpmc / mrs through the perf mmap page */
};

struct rf_event {
	struct rf_record r;
	uint32_t index;			/* position in the configured list */
	uint32_t type;			/* perf_event_attr.type */
	uint64_t config;
	uint32_t exclude_kernel;	/* 1: counted in user space only */
	uint32_t source;		/* enum rf_source, as the first thread found it */
	char name[48];
	char reason[200];		/* why unavailable, or empty */
	/* Records of RF_EVENT_SIZE_V0 bytes (shims before it) end here. */
	char mode_note[200];		/* why user space only though the kernel was asked, or empty */
	/* Records of RF_EVENT_SIZE_V1 bytes end here. 1: counted per thread
	 * only (rf_thread.thread_mask, the totals), never per region: no site
	 * holds a value of it. An event read only through read() (task-clock)
	 * is so by default, and always for the function hooks. */
	uint32_t per_thread;
	uint32_t pad;
};

#define RF_EVENT_SIZE_V0 280		/* rf_event without mode_note */
#define RF_EVENT_SIZE_V1 480		/* rf_event without per_thread */

/* Whether event record e is counted per thread only (a record before the
 * field: no). */
static inline int rf_event_per_thread(const struct rf_event *e)
{
	return e->r.size >= RF_EVENT_SIZE_V1 + sizeof(e->per_thread) && e->per_thread;
}

enum rf_thread_state {
	RF_T_RUNNING = 1,
	RF_T_EXITED = 2,		/* totals final */
	RF_T_SNAPSHOT = 3,		/* still running when the process ended: totals as of then */
};

enum rf_total_status {
	RF_TOTAL_NONE = 0,		/* no totals (thread running, or ended by a raw exit) */
	RF_TOTAL_OK = 1,
	RF_TOTAL_LOST = 2,		/* the counter's descriptor was lost (see lost_reason) */
};

struct rf_thread {
	struct rf_record r;
	uint32_t index;			/* 0, 1, ... in order of setup */
	uint32_t tid;
	uint32_t is_main, lazy;		/* lazy: set up at its first marker */
	uint32_t nvalues;		/* values per site: wall + open events */
	uint32_t open_mask;		/* bit e: event e is open in this thread */
	uint32_t coverage;		/* 1: events multiplexed, sites keep enabled/running */
	/* Bit e: event e is open in this thread and counted per thread only
	 * (rf_event.per_thread): its totals, no site value. 0 in a file from
	 * a shim before it (this was padding). */
	uint32_t thread_mask;
	uint64_t start_mono_ns;
	/* Written when the thread ends (or at process end), before state. */
	uint32_t state;			/* enum rf_thread_state (release/acquire) */
	uint32_t total_status;		/* enum rf_total_status */
	uint64_t end_mono_ns;
	uint64_t cpu_ns;		/* UINT64_MAX: unknown */
	uint64_t totals[RF_EVENTS_MAX], enabled[RF_EVENTS_MAX], running[RF_EVENTS_MAX];
	/* The markers' own cost, per value (wall ticks, then each open event
	 * as in the sites), measured at setup; calib_calls 0: not measured.
	 * in: what an empty region reports per call (the tail of its begin,
	 * the head of its end); child: what one child pair adds to its
	 * parent's exclusive value beyond that. Written before the record is
	 * published. */
	uint64_t calib_calls;
	uint64_t calib_in[RF_EVENTS_MAX + 1], calib_child[RF_EVENTS_MAX + 1];
	char name[16];
	char lost_reason[64];
	/* Records of RF_THREAD_SIZE_V0 bytes (shims before them) end here.
	 * The thread's CPU clock (CLOCK_THREAD_CPUTIME_ID, ns since the task
	 * began: for a main thread across exec) when the shim began with it
	 * (the main thread: as the shim's setup started, so its exec and
	 * loading are before; another thread: at its setup) and at its setup
	 * (cpu_ns counts from there). Written before the record is published;
	 * UINT64_MAX: unknown. */
	uint64_t begin_cpu_ns, setup_cpu_ns;
	/* Records of RF_THREAD_SIZE_V1 bytes end here. The function hooks'
	 * own cost (-finstrument-functions: a path of its own, calibrated
	 * through it), as calib_* is the markers', for the regions of that
	 * source (RF_FROM_FUNCTIONS); calib_fn_calls 0: not measured. Written
	 * at the first function met, or before the record is published. */
	uint64_t calib_fn_calls;
	uint64_t calib_fn_in[RF_EVENTS_MAX + 1], calib_fn_child[RF_EVENTS_MAX + 1];
	/* Records of RF_THREAD_SIZE_V2 bytes end here. The thread's page
	 * faults (minor + major, getrusage RUSAGE_THREAD: since the task began,
	 * for a main thread across exec) just before its counters opened,
	 * and when its totals were stored (at its end; UINT64_MAX for a
	 * thread snapshot by another). The reader adds what came before the
	 * counters to the page-fault totals, as perf stat counts from exec.
	 * UINT64_MAX: unknown. */
	uint64_t begin_faults, end_faults;
	/* Records of RF_THREAD_SIZE_V3 bytes end here. The thread's running
	 * counts, published as it goes (at the first region end, at any
	 * depth, a millisecond or more after the last), so that a process killed
	 * outright still tells its threads' totals as of then: live[k] is
	 * the k-th open event's count since its counters opened (by position
	 * among open events, as in the sites; the shim's calibration not
	 * taken out), at wall tick live_ticks. live_seq: 0 never published,
	 * odd while the thread writes (release/acquire). */
	uint32_t live_seq;
	uint32_t live_pad;
	uint64_t live_ticks;
	uint64_t live[RF_EVENTS_MAX];
};

#define RF_THREAD_SIZE_V0 496		/* rf_thread without begin_cpu_ns, setup_cpu_ns */
#define RF_THREAD_SIZE_V1 512		/* rf_thread without calib_fn_* */
#define RF_THREAD_SIZE_V2 664		/* rf_thread without begin_faults, end_faults */
#define RF_THREAD_SIZE_V3 680		/* rf_thread without live_* */

struct rf_name {
	struct rf_record r;
	uint32_t id;			/* 1, 2, ...: what sites and errors refer to */
	uint32_t len;			/* bytes of text, without the NUL */
	char text[];			/* NUL-terminated */
};

/* Where a region comes from: a name without an RF_ORIGIN record is a
 * marker's. */
enum rf_from {
	RF_FROM_MARKERS = 0,		/* PMCSHIM_BEGIN/END and the name forms */
	RF_FROM_FUNCTIONS = 1,		/* -finstrument-functions */
	RF_FROM_OPENMP = 2,		/* libgomp entry points, OMPT */
	RF_FROM_MPI = 3,		/* the PMPI interface */
	RF_FROM_LIKWID = 4,		/* LIKWID's marker API */
	RF_FROM_PAPI = 5,		/* PAPI's high-level API */
	RF_FROM_NVTX = 6,		/* NVTX ranges (the injection interface) */
	RF_FROM_KINDS
};

/* What region name `id` is: its source and, for a region keyed by an
 * address (a function, an OpenMP outlined function), the address, which
 * the reader names from the module symbols. The name's text is then
 * "PREFIX0xADDR": what a reader without symbols shows; one with symbols
 * shows its first `prefix` bytes followed by the symbol's name. Appended
 * just before its RF_NAME record. */
enum rf_addr_kind {
	RF_ADDR_ENTRY = 0,		/* a function's entry (or a variable): the
					 * symbol that holds it, "solve._omp_fn.0" */
	RF_ADDR_CALL = 1,		/* a return address: named as a stack frame
					 * is, "solve (solve.c:31)" */
};

struct rf_origin {
	struct rf_record r;
	uint32_t id;			/* rf_name.id */
	uint32_t source;		/* enum rf_from */
	uint64_t addr;			/* 0: the region is its name */
	uint32_t prefix;		/* with addr: bytes of text before the address */
	uint32_t addr_kind;		/* enum rf_addr_kind */
	/* Records of RF_ORIGIN_SIZE_V0 bytes (shims before it) end here.
	 * With addr: the load generation of the module that held it
	 * (rf_module.gen), so that an address a module reloaded in its
	 * place reuses names the right one; rf_origin_gen reads it. */
	uint32_t gen;
	uint32_t pad;
};

#define RF_ORIGIN_SIZE_V0 32		/* rf_origin without gen */

static inline uint32_t rf_origin_gen(const struct rf_origin *o)
{
	return o->r.size >= sizeof(*o) ? o->gen : 0;
}

enum rf_stack_method {
	RF_STACK_CALLER = 0,		/* the call site alone (depth 0) */
	RF_STACK_FP = 1,		/* frame-pointer walk */
	RF_STACK_UNWIND = 2,		/* libunwind */
	RF_STACK_TABLES = 3,		/* the binary's unwind tables, read by the shim */
};

/* pc[nframes], one word past the frames, is the stack's load
 * generation: the newest rf_module.gen of the modules its frames were
 * in, so that the reader names each frame after the module loaded there
 * then (rf_stack_gen). A record from a shim before it has no such word:
 * generation 0. */
struct rf_stack {
	struct rf_record r;
	uint32_t id;			/* 0, 1, ... */
	uint16_t nframes;		/* innermost (the call site) first */
	uint16_t method;		/* enum rf_stack_method */
	uint64_t pc[];
};

static inline uint32_t rf_stack_gen(const struct rf_stack *s)
{
	return s->r.size >= sizeof(*s) + ((size_t)s->nframes + 1) * sizeof(s->pc[0]) ?
		       (uint32_t)s->pc[s->nframes] : 0;
}

struct rf_module {
	struct rf_record r;
	uint32_t id;			/* 0, 1, ... */
	/* Load generation: the loader's count of objects unloaded
	 * (dl_iterate_phdr's dlpi_subs) when the shim found it loaded. A module unloaded and another
	 * mapped in its range has a record of a later generation; an address
	 * belongs to the newest one holding it whose gen is not past the
	 * address's own (rf_stack_gen, rf_origin_gen). 0 in a file from a
	 * shim before it (this was padding). */
	uint32_t gen;
	uint64_t base;			/* load bias */
	uint64_t lo, hi;		/* mapped range of its PT_LOAD segments */
	char build_id[132];		/* hex, empty when it has none */
	char path[];			/* NUL-terminated */
};

/* One value of a site: wall ticks ([0]) or an event's count. min is
 * UINT64_MAX until the first call. enabled and running: ns the event was
 * enabled and on a counter during the calls, kept only by threads whose
 * events are multiplexed (rf_thread.coverage); else 0. */
struct rf_stat {
	uint64_t incl, excl, min, max;
	uint64_t enabled, running;
};

/* The accumulator of one region at one call-site stack in one thread.
 * Only the owning thread writes it, inside seq (odd while writing). */
struct rf_site {
	struct rf_record r;
	uint32_t thread;		/* rf_thread.index */
	uint32_t region;		/* rf_name.id */
	uint32_t stack;			/* rf_stack.id */
	uint32_t nvalues;
	uint32_t seq;
	/* With RF_TREE: the offset in the file of the site of the region that
	 * was open at each begin (same thread, an earlier record), 0 for an
	 * outermost region. Without RF_TREE (an older shim): 0, no tree. */
	uint32_t parent;
	uint64_t calls;
	uint64_t child_calls;		/* pairs closed directly inside its calls */
	struct rf_stat v[];		/* nvalues */
};

enum rf_error_kind {
	RF_ERR_END_MISMATCH = 0,	/* end of a region that is open but not innermost */
	RF_ERR_END_UNOPENED = 1,	/* end of a region not open */
	RF_ERR_OPEN_AT_EXIT = 2,	/* still open when its thread ended */
	RF_ERR_REENTRANT = 3,		/* marker while the shim was busy on the thread */
	RF_ERR_TOO_DEEP = 4,		/* nesting deeper than the shim keeps */
	/* Calls closed by resynchronisation, their end not seen: an end of a
	 * region open below them (`open`: that region), or a function's hook
	 * met with the stack already past them (longjmp, an exception that
	 * unwound without the exit hook; `open`: 0). Measured, their values
	 * ending there. Readers before it show "kind-5". */
	RF_ERR_RESYNC = 5,
	RF_ERR_KINDS
};

struct rf_error {
	struct rf_record r;
	uint32_t thread;
	uint32_t kind;			/* enum rf_error_kind */
	uint32_t region;		/* rf_name.id, 0: none */
	uint32_t open;			/* innermost open region for a mismatch, else 0 */
	uint64_t count;			/* relaxed atomic */
};

/* Sampling (PMCSHIM_SAMPLE): one record per thread, made at its setup,
 * a fixed table of the distinct stacks its samples met, each with its
 * count, filled by the thread's own signal handler (the only writer).
 * A slot is claimed by storing its stack and region, then its count
 * (release); a reader skips slots whose count (acquire) is 0. */
enum rf_sample_drop {
	RF_SAMPLE_FULL = 0,		/* the table had no slot for a new stack */
	RF_SAMPLE_BUSY = 1,		/* the shim was busy on the thread (a marker) */
	RF_SAMPLE_PARTIAL = 2,		/* stored, but the walk stopped short of the stack's end */
	RF_SAMPLE_UNREAD = 3,		/* stored, but the thread's counters could not be read:
					 * what they counted since its last sample is in no slot */
	RF_SAMPLE_DROPS = 4
};

struct rf_samples {
	struct rf_record r;
	uint32_t thread;		/* rf_thread.index */
	uint32_t nslots;
	uint32_t depth;			/* pc words per slot */
	uint32_t slot_size;		/* bytes per slot: rf_sample_slot + depth words */
	uint32_t event_type;		/* the sampling event (perf_event_attr) */
	uint32_t stopped;		/* 1: the application set a handler for the
					 * shim's signal, and sampling stopped */
	uint64_t event_config;
	uint64_t period;		/* events per sample; ns for task-clock */
	uint64_t taken;			/* samples stored in the slots (relaxed) */
	uint64_t dropped[RF_SAMPLE_DROPS];	/* enum rf_sample_drop (relaxed) */
	char event_name[16];		/* "task-clock", "cycles" */
	/* nslots slots of slot_size bytes follow */
};

struct rf_sample_slot {
	uint64_t count;			/* 0: empty (release/acquire) */
	uint32_t region;		/* rf_name.id of the innermost open region, 0: none */
	uint16_t nframes;		/* pc[0]: where the thread was interrupted, then
					 * the return addresses above it */
	uint16_t pad;
	uint64_t pc[];
};

static inline const struct rf_sample_slot *rf_sample_slot(const struct rf_samples *s, uint32_t i)
{
	return (const struct rf_sample_slot *)((const char *)(s + 1) + (size_t)i * s->slot_size);
}

/* The counter values of a slot: where the table has room for them
 * (slot_size beyond the stack's words; tables of shims before them have
 * none), nvalues words after the depth pc words. The k-th is the thread's
 * k-th open event (by position among open events, as in the sites:
 * rf_thread.open_mask), summed over the slot's samples: at each sample,
 * what the event counted since the thread's previous sample (as perf
 * record -e '{cycles,instructions}:S'). Only where every open event reads
 * from user space (rdpmc, mrs) and none is multiplexed; else nvalues 0. */
static inline uint32_t rf_sample_nvalues(const struct rf_samples *s)
{
	uint64_t extra = s->slot_size - sizeof(struct rf_sample_slot) - (uint64_t)s->depth * 8;

	return extra / 8 > RF_EVENTS_MAX ? RF_EVENTS_MAX : (uint32_t)(extra / 8);
}

static inline const uint64_t *rf_sample_values(const struct rf_samples *s,
					       const struct rf_sample_slot *slot)
{
	return slot->pc + s->depth;
}

/* Whether the record holds its table whole (a reader checks before it
 * looks at a slot). */
static inline int rf_samples_ok(const struct rf_samples *s)
{
	return s->r.size >= sizeof(*s) && s->slot_size >= sizeof(struct rf_sample_slot) +
	       (uint64_t)s->depth * 8 && s->slot_size % 8 == 0 &&
	       (uint64_t)s->nslots * s->slot_size <= s->r.size - sizeof(*s);
}

/* --- system reports (RF_SYSTEM: pmcshim --system) -------------------
 * The header's nevents RF_EVENT records say what is counted; then one
 * RF_SYS_RUN, and as the run goes: an RF_SYS_ENTITY for each CPU and
 * each process followed, every interval an RF_SYS_VALUES for each entity
 * whose values moved, then the interval's RF_SYS_INTERVAL (it closes the
 * interval), and an RF_SYS_END when a process ends or a CPU goes or
 * comes. Times are CLOCK_BOOTTIME ns (comparable with /proc/PID/stat's
 * start times). Every record is appended once, never changed. */
enum rf_sys_scope {
	RF_SCOPE_CPU = 0,
	RF_SCOPE_PROCESS = 1,
};

enum rf_sys_run_flag {
	RF_SYS_CPU_WIDE = 1,		/* per-CPU counters (privileged) */
	RF_SYS_OWN_ONLY = 2,		/* unprivileged: the user's own processes */
};

struct rf_sys_run {
	struct rf_record r;
	uint32_t flags;			/* enum rf_sys_run_flag */
	uint32_t interval_ms;
	uint64_t start_ns;		/* the run's start */
	uint32_t ncpus;			/* CPUs configured on the machine */
	uint32_t uid;			/* RF_SYS_OWN_ONLY: whose */
};

struct rf_sys_entity {
	struct rf_record r;
	uint32_t index;			/* 0, 1, ...: what values and ends name */
	uint32_t scope;			/* enum rf_sys_scope */
	uint64_t id;			/* the CPU number, or the pid */
	uint64_t start_ns;		/* the process's start; a CPU's: when followed */
	uint64_t seen_ns;		/* when counting began */
	char command[64];		/* /proc/PID/comm; "" for a CPU */
};

/* What the entity counted in interval `interval`: deltas, by event.
 * busy_ns: the CPU's busy time (/proc/stat: all but idle and iowait) or
 * the process's CPU time (utime + stime) in the interval; UINT64_MAX when
 * unknown. */
struct rf_sys_values {
	struct rf_record r;
	uint32_t interval;
	uint32_t entity;
	uint32_t nvalues;
	uint32_t pad;
	uint64_t busy_ns;
	uint64_t v[];
};

struct rf_sys_interval {
	struct rf_record r;
	uint32_t index;			/* 0, 1, ... */
	uint32_t cpus_online;
	uint64_t start_ns, end_ns;
	uint32_t followed;		/* processes counted in it */
	uint32_t unfollowed;		/* seen, but no counter could open (fds, rights) */
};

enum rf_sys_end_kind {
	RF_END_EXITED = 1,		/* the process ended: its values are final */
	RF_END_OFFLINE = 2,		/* the CPU went offline */
	RF_END_ONLINE = 3,		/* the CPU came back */
};

struct rf_sys_end {
	struct rf_record r;
	uint32_t entity;
	uint32_t kind;			/* enum rf_sys_end_kind */
	uint64_t at_ns;
};

static inline uint32_t rf_align(size_t n)
{
	return (uint32_t)((n + 7) & ~(size_t)7);
}

static inline size_t rf_site_size(uint32_t nvalues)
{
	return sizeof(struct rf_site) + nvalues * sizeof(struct rf_stat);
}

/* TSan cannot model fences. Its builds run on x86-64 only, where the
 * hardware already keeps these stores (and loads) in order: a compiler
 * barrier is all they need there. */
#if defined(__SANITIZE_THREAD__) && defined(__x86_64__)
#define rf_fence(order) __atomic_signal_fence(order)
#else
#define rf_fence(order) __atomic_thread_fence(order)
#endif

/* --- writing a site (the owning thread) ------------------------------ */

static inline uint32_t rf_site_write_begin(struct rf_site *s)
{
	uint32_t seq = s->seq + 1;

	__atomic_store_n(&s->seq, seq, __ATOMIC_RELAXED);
	rf_fence(__ATOMIC_RELEASE);
	return seq;
}

/* seq: what rf_site_write_begin returned. */
static inline void rf_site_write_end(struct rf_site *s, uint32_t seq)
{
	__atomic_store_n(&s->seq, seq + 1, __ATOMIC_RELEASE);
}

/* --- the launcher's totals ------------------------------------------ */

/* What the launcher (tools/launcher) counted for the whole command, as
 * perf stat does: one counter per event opened on the command's process
 * before its exec (inherit: every thread and child process it starts,
 * enable_on_exec: from the exec), read after the command ended, however it
 * ended. Written once, whole, into the run directory (".totals.PID", PID
 * the launcher's), next to the processes' reports; the reader takes it
 * among its files by its magic. */
#define RF_JOB_MAGIC "PMCSJOB"		/* 8 bytes with its NUL */
#define RF_JOB_VERSION 1

enum rf_job_status {
	RF_JOB_UNAVAILABLE = 0,		/* could not open: see reason */
	RF_JOB_COUNTED = 1,
};

struct rf_job_event {
	char name[48];			/* as in the command's -e list */
	uint32_t status;		/* enum rf_job_status */
	uint32_t pad;
	uint64_t value, enabled, running;	/* ns enabled and on a counter */
	char reason[64];
};

struct rf_job {
	char magic[8];			/* RF_JOB_MAGIC */
	uint32_t version;		/* RF_JOB_VERSION */
	uint32_t size;			/* sizeof(struct rf_job) as written */
	uint64_t pid;			/* the command's process */
	uint64_t launcher_pid;
	int32_t rank;			/* in an MPI job, else -1 */
	int32_t exit_code;		/* exit status, or 128 + signal */
	int32_t signo;			/* the signal that ended it, or 0 */
	uint32_t nevents;
	/* From the release to exec to the end (the wait's return). */
	uint64_t start_real_ns, end_real_ns, wall_ns;
	/* The wait's rusage: the command and the children it waited for. */
	uint64_t cpu_ns;		/* user + system */
	uint64_t faults;		/* minor + major */
	char host[64];
	char command[256];		/* argv[0] */
	struct rf_job_event ev[RF_EVENTS_MAX];
};

/* --- reading (tools/, the shim's tests) ------------------------------ */

/* A file opened for reading: mapped read-only, checked. */
struct rf_file {
	const unsigned char *base;
	uint64_t size;			/* bytes mapped */
	uint64_t tail;			/* records lie in [header_size, tail) */
	const struct rf_header *h;
	int mapped;			/* rf_open mapped it: rf_close unmaps */
};

/* Reads a launcher's totals file (struct rf_job) whole and checks it. 1:
 * read; 0: not such a file (another magic); -1: such a file, damaged,
 * with a one-line reason. */
int rf_job_read(const char *path, struct rf_job *out, char *why, size_t whylen);

/* Maps path and checks its header. 0, or -1 with a one-line reason. */
int rf_open(const char *path, struct rf_file *f, char *why, size_t whylen);
/* Maps path read-only (a regular file, not empty), unchecked: *base and
 * *len, and its descriptor in *fd (unless fd is NULL: closed). 0, or -1
 * with a one-line reason. */
int rf_map(const char *path, const void **base, size_t *len, int *fd, char *why,
	   size_t whylen);
/* The same over memory the caller owns (tests, the fuzzer). */
int rf_open_mem(const void *buf, size_t len, struct rf_file *f, char *why, size_t whylen);
void rf_close(struct rf_file *f);

/* The record after *off (start with off = 0), skipping records not done.
 * NULL at the end. A malformed record ends the walk with *bad set. */
const struct rf_record *rf_next(const struct rf_file *f, uint64_t *off, int *bad);

/* A consistent copy of a site's calls and values (at most max values).
 * Returns 1, or 0 when the writer left it mid-update (its process died
 * inside a marker): out then holds the values as they are. */
int rf_site_read(const struct rf_site *s, uint64_t *calls, struct rf_stat *out, uint32_t max);
/* The same, with the site's child_calls. */
int rf_site_read_children(const struct rf_site *s, uint64_t *calls, uint64_t *child_calls,
			  struct rf_stat *out, uint32_t max);

/* What identifies a process across pid reuse and reboots (the header's
 * proc_start and boot_id): field 22 of /proc/PID/stat, -1 when the process
 * is gone or a zombie (ended, not yet reaped); the boot id, "" and -1 when
 * unknown. */
int rf_proc_start(uint64_t pid, uint64_t *start);
int rf_boot_id(char *out, size_t len);

/* How the process stands: its state, and for RF_RUNNING whether it still
 * runs (same boot, pid alive with the same start time). */
enum rf_liveness { RF_LIVE, RF_GONE, RF_UNKNOWN };
enum rf_liveness rf_liveness(const struct rf_header *h);

/* Ticks per ns: the shim's end calibration, or (same boot, still or no
 * longer running) the reader's own clocks against the start sample. 0
 * when neither is known. */
double rf_ticks_per_ns(const struct rf_header *h);

/* Field of the header, read with the protocol above. */
uint32_t rf_state(const struct rf_header *h);
uint32_t rf_thread_state(const struct rf_thread *t);

const char *rf_state_name(uint32_t state);
const char *rf_error_name(uint32_t kind);
const char *rf_source_name(const struct rf_header *h, uint32_t source);
const char *rf_stack_method_name(uint32_t method);
/* "markers", "functions", "openmp", "mpi"; NULL for an unknown source. */
const char *rf_from_name(uint32_t source);

#endif
