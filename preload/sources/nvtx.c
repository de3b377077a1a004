/* NVTX ranges as regions (source "nvtx"), through NVTX's injection
 * interface. Every library built with NVTX's headers (PyTorch, cuDNN-based
 * code, simulation codes) holds its own copy of the NVTX front end; at its
 * first NVTX call, that copy looks for a tool: a loaded object exporting
 * InitializeInjectionNvtx2 (the preloaded shim is one), else the library
 * NVTX_INJECTION64_PATH names (the launcher sets it to the shim where the
 * user has not). It calls InitializeInjectionNvtx2 with its export-table
 * getter; the tool asks for the callbacks table and, per module, writes
 * its own functions into the front end's function-pointer slots. Slots a
 * tool leaves empty become no-ops.
 *
 * What each call becomes:
 * - push/pop ranges (nvtxRangePush*, nvtxDomainRangePushEx and their
 *   pops): regions of the calling thread, nested as pushed;
 * - marks and start/end ranges (which may end on another thread and
 *   overlap): zero-length regions at the mark or the start: calls exact,
 *   no duration, never breaking the thread's nesting;
 * - a domain's ranges are named "DOMAIN:MESSAGE"; messages are ASCII,
 *   wide (turned into UTF-8) or registered strings.
 *
 * The protocol's numbers (module and callback ids, the export table ids,
 * the event attributes' layout) are NVTX v3's, from NVIDIA's public
 * headers (c/include/nvtx3/nvtxDetail/nvtxTypes.h, nvToolsExt.h); only
 * those used are declared here.
 *
 * With PMCSHIM_NVTX=0, or when NVTX_INJECTION64_PATH names another tool,
 * the shim hands the front end to that tool's InitializeInjectionNvtx2
 * (or declines: NVTX stays a no-op, as without a tool). */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "annot.h"
#include "base/text.h"
#include "lifecycle/hooks.h"
#include "lifecycle/shim.h"
#include "settings/config.h"

#define EXPORT __attribute__((visibility("default")))

/* --- NVTX v3's numbers ------------------------------------------------------ */

enum { ETID_CALLBACKS = 1 };
enum { MODULE_CORE = 1, MODULE_CORE2 = 5 };
enum {
	CORE_MarkEx = 1, CORE_MarkA, CORE_MarkW, CORE_RangeStartEx, CORE_RangeStartA,
	CORE_RangeStartW, CORE_RangeEnd, CORE_RangePushEx, CORE_RangePushA, CORE_RangePushW,
	CORE_RangePop,
};
enum {
	CORE2_DomainMarkEx = 1, CORE2_DomainRangeStartEx, CORE2_DomainRangeEnd,
	CORE2_DomainRangePushEx, CORE2_DomainRangePop, CORE2_DomainRegisterStringA = 10,
	CORE2_DomainRegisterStringW, CORE2_DomainCreateA, CORE2_DomainCreateW,
	CORE2_DomainDestroy,
};
enum { MESSAGE_ASCII = 1, MESSAGE_UNICODE = 2, MESSAGE_REGISTERED = 3 };

typedef void (*nvtx_fn)(void);
typedef const void *(*get_export_table_fn)(uint32_t id);

struct callbacks_table {
	size_t struct_size;
	int (*get_module_function_table)(int module, nvtx_fn ***table, unsigned *size);
};

/* Both live as long as the process, on a list (they are not lost). */
struct string_handle {
	struct string_handle *next;
	const char *text;		/* UTF-8, owned */
};

struct domain {
	struct domain *next;
	char name[64];
};

static struct string_handle *strings;
static struct domain *domains;

/* nvtxEventAttributes_v2 */
struct event_attributes {
	uint16_t version, size;
	uint32_t category;
	int32_t color_type;
	uint32_t color;
	int32_t payload_type, reserved0;
	uint64_t payload;
	int32_t message_type;
	union {
		const char *ascii;
		const wchar_t *unicode;
		const struct string_handle *registered;
	} message;
};

/* --- names ---------------------------------------------------------------- */

#define NAME_MAX_BYTES 256
#define PUSH_MAX 256			/* pushed ranges a thread keeps track of */

static int enabled;			/* PMCSHIM_NVTX */

static void nvtx_thread_finish(struct thread_state *t);

static void nvtx_setup(const struct config *c)
{
	enabled = c->nvtx;
}

__attribute__((constructor)) static void nvtx_register(void)
{
	static const struct shim_hooks hooks = { .setup = nvtx_setup,
						 .thread_finish = nvtx_thread_finish };

	hooks_register(&hooks);
}

/* Wide text as UTF-8 into out (len bytes, cut at a whole character). */
static void from_wide(char *out, size_t len, const wchar_t *w)
{
	size_t n = 0;

	for (; w && *w; w++) {
		uint32_t c = (uint32_t)*w;
		unsigned char b[4];
		size_t k = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;

		if (c > 0x10ffff || (c >= 0xd800 && c < 0xe000))
			c = 0xfffd, k = 3;
		if (n + k >= len)
			break;
		b[0] = k == 1 ? (unsigned char)c : (unsigned char)((0xf00 >> k) | (c >> (6 * (k - 1))));
		for (size_t i = 1; i < k; i++)
			b[i] = (unsigned char)(0x80 | ((c >> (6 * (k - 1 - i))) & 0x3f));
		memcpy(out + n, b, k);
		n += k;
	}
	out[n] = '\0';
}

/* The region name of a message in domain d (NULL: the default domain). */
static const char *name_of(char *buf, const struct domain *d, const char *ascii,
			   const wchar_t *wide)
{
	char w[NAME_MAX_BYTES];
	const char *text = ascii ? ascii : w;
	size_t n;

	if (!ascii)
		from_wide(w, sizeof(w), wide);
	if (!d)
		return wide ? strcpy(buf, w) : ascii;
	n = text_put(buf, 0, NAME_MAX_BYTES, d->name);
	n = text_put(buf, n, NAME_MAX_BYTES, ":");
	n = text_put(buf, n, NAME_MAX_BYTES, text);
	buf[n < NAME_MAX_BYTES ? n : NAME_MAX_BYTES - 1] = '\0';
	return buf;
}

static const char *name_of_attr(char *buf, const struct domain *d,
				const struct event_attributes *a)
{
	if (!a)
		return name_of(buf, d, "(no attributes)", NULL);
	switch (a->message_type) {
	case MESSAGE_ASCII: return name_of(buf, d, a->message.ascii ? a->message.ascii : "", NULL);
	case MESSAGE_UNICODE: return name_of(buf, d, NULL, a->message.unicode);
	case MESSAGE_REGISTERED:
		return name_of(buf, d, a->message.registered ? a->message.registered->text : "",
			       NULL);
	default: return name_of(buf, d, "(no message)", NULL);
	}
}

/* --- push/pop: the thread's regions --------------------------------------- */

/* What the thread pushed (region id and domain), innermost last; pushes
 * past PUSH_MAX (or with no memory for the array) are counted, and their
 * pops are only counted. The array is made at the thread's first push
 * and freed as it ends (static TLS is scarce: a pointer is not). */
struct pushed {
	uint32_t id;
	const struct domain *domain;
};
static __thread struct pushed *pushed;
static __thread int depth;

static void nvtx_thread_finish(struct thread_state *t)
{
	(void)t;
	free(pushed);
	pushed = NULL;
	depth = 0;
}

static int push(const char *name, const struct domain *d, uintptr_t caller)
{
	int level = depth;

	if (!pushed && !depth)
		pushed = calloc(PUSH_MAX, sizeof(*pushed));
	if (pushed && depth < PUSH_MAX) {
		pushed[depth].id = annot_id(name, RF_FROM_NVTX);
		pushed[depth].domain = d;
		if (pushed[depth].id)
			annot_begin(name, RF_FROM_NVTX, caller);
	}
	depth++;
	return level;
}

/* The innermost range the thread pushed in domain d ends (another
 * domain's on top: it is not this pop's, and nothing ends). */
static int pop(const struct domain *d)
{
	int saved = errno;

	if (depth == 0)
		return -1;
	if (pushed && depth <= PUSH_MAX && pushed[depth - 1].domain != d)
		return -1;
	depth--;
	if (pushed && depth < PUSH_MAX && pushed[depth].id)
		shim_end_at(pushed[depth].id);
	errno = saved;
	return depth;
}

/* A mark, or the start of a start/end range: a zero-length region. */
static void point(const char *name, uintptr_t caller)
{
	if (annot_begin(name, RF_FROM_NVTX, caller) == 0)
		annot_end(name, RF_FROM_NVTX);
}

static uint64_t next_range = 1;

static uint64_t start_range(const char *name, uintptr_t caller)
{
	point(name, caller);
	return __atomic_fetch_add(&next_range, 1, __ATOMIC_RELAXED);
}

#define CALLER ((uintptr_t)__builtin_return_address(0))

static void mark_ex(const struct event_attributes *a)
{
	char b[NAME_MAX_BYTES];

	point(name_of_attr(b, NULL, a), CALLER);
}

static void mark_a(const char *m)
{
	point(m ? m : "", CALLER);
}

static void mark_w(const wchar_t *m)
{
	char b[NAME_MAX_BYTES];

	point(name_of(b, NULL, NULL, m), CALLER);
}

static uint64_t range_start_ex(const struct event_attributes *a)
{
	char b[NAME_MAX_BYTES];

	return start_range(name_of_attr(b, NULL, a), CALLER);
}

static uint64_t range_start_a(const char *m)
{
	return start_range(m ? m : "", CALLER);
}

static uint64_t range_start_w(const wchar_t *m)
{
	char b[NAME_MAX_BYTES];

	return start_range(name_of(b, NULL, NULL, m), CALLER);
}

static void range_end(uint64_t id)
{
	(void)id;	/* counted at its start */
}

static int range_push_ex(const struct event_attributes *a)
{
	char b[NAME_MAX_BYTES];

	return push(name_of_attr(b, NULL, a), NULL, CALLER);
}

static int range_push_a(const char *m)
{
	return push(m ? m : "", NULL, CALLER);
}

static int range_push_w(const wchar_t *m)
{
	char b[NAME_MAX_BYTES];

	return push(name_of(b, NULL, NULL, m), NULL, CALLER);
}

static int range_pop(void)
{
	return pop(NULL);
}

/* --- domains and registered strings --------------------------------------- */

static void domain_mark_ex(struct domain *d, const struct event_attributes *a)
{
	char b[NAME_MAX_BYTES];

	point(name_of_attr(b, d, a), CALLER);
}

static uint64_t domain_range_start_ex(struct domain *d, const struct event_attributes *a)
{
	char b[NAME_MAX_BYTES];

	return start_range(name_of_attr(b, d, a), CALLER);
}

static void domain_range_end(struct domain *d, uint64_t id)
{
	(void)d, (void)id;
}

static int domain_range_push_ex(struct domain *d, const struct event_attributes *a)
{
	char b[NAME_MAX_BYTES];

	return push(name_of_attr(b, d, a), d, CALLER);
}

static int domain_range_pop(struct domain *d)
{
	return pop(d);
}

/* Handles live as long as the process (the front end may keep using one
 * after the domain is destroyed): small, made once each, kept on a list. */
static struct string_handle *register_text(const char *text)
{
	struct string_handle *h = calloc(1, sizeof(*h));

	if (h && !(h->text = strdup(text ? text : "")))
		free(h), h = NULL;
	if (h) {
		h->next = __atomic_load_n(&strings, __ATOMIC_RELAXED);
		while (!__atomic_compare_exchange_n(&strings, &h->next, h, 1, __ATOMIC_RELEASE,
						    __ATOMIC_RELAXED))
			;
	}
	return h;
}

static struct string_handle *register_string_a(struct domain *d, const char *s)
{
	(void)d;
	return register_text(s);
}

static struct string_handle *register_string_w(struct domain *d, const wchar_t *s)
{
	char b[NAME_MAX_BYTES];

	(void)d;
	from_wide(b, sizeof(b), s);
	return register_text(b);
}

static struct domain *domain_create_a(const char *name)
{
	struct domain *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	text_copy(d->name, sizeof(d->name), name ? name : "");
	d->next = __atomic_load_n(&domains, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&domains, &d->next, d, 1, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED))
		;
	return d;
}

static struct domain *domain_create_w(const wchar_t *name)
{
	char b[NAME_MAX_BYTES];

	from_wide(b, sizeof(b), name);
	return domain_create_a(b);
}

static void domain_destroy(struct domain *d)
{
	(void)d;	/* kept: ranges of it may still be open */
}

/* --- the injection entry point ---------------------------------------------- */

struct slot_fill {
	int id;
	nvtx_fn fn;
};

#define FN(f) ((nvtx_fn)(void (*)(void))(f))

static const struct slot_fill core[] = {
	{ CORE_MarkEx, FN(mark_ex) }, { CORE_MarkA, FN(mark_a) }, { CORE_MarkW, FN(mark_w) },
	{ CORE_RangeStartEx, FN(range_start_ex) }, { CORE_RangeStartA, FN(range_start_a) },
	{ CORE_RangeStartW, FN(range_start_w) }, { CORE_RangeEnd, FN(range_end) },
	{ CORE_RangePushEx, FN(range_push_ex) }, { CORE_RangePushA, FN(range_push_a) },
	{ CORE_RangePushW, FN(range_push_w) }, { CORE_RangePop, FN(range_pop) },
};

static const struct slot_fill core2[] = {
	{ CORE2_DomainMarkEx, FN(domain_mark_ex) },
	{ CORE2_DomainRangeStartEx, FN(domain_range_start_ex) },
	{ CORE2_DomainRangeEnd, FN(domain_range_end) },
	{ CORE2_DomainRangePushEx, FN(domain_range_push_ex) },
	{ CORE2_DomainRangePop, FN(domain_range_pop) },
	{ CORE2_DomainRegisterStringA, FN(register_string_a) },
	{ CORE2_DomainRegisterStringW, FN(register_string_w) },
	{ CORE2_DomainCreateA, FN(domain_create_a) },
	{ CORE2_DomainCreateW, FN(domain_create_w) },
	{ CORE2_DomainDestroy, FN(domain_destroy) },
};

/* Writes fills into the front end's slots of module; 0 when it has none. */
static int fill(const struct callbacks_table *cb, int module, const struct slot_fill *f,
		size_t n)
{
	nvtx_fn **table = NULL;
	unsigned size = 0;

	if (!cb->get_module_function_table(module, &table, &size) || !table)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned)f[i].id < size && table[f[i].id])
			*table[f[i].id] = f[i].fn;
	return 1;
}

/* The tool NVTX_INJECTION64_PATH names when it is not the shim (a shim
 * exports pmcshim_api): its entry point, or NULL. */
static int (*other_tool(void))(get_export_table_fn)
{
	const char *path = getenv("NVTX_INJECTION64_PATH");
	int (*init)(get_export_table_fn) = NULL;
	void *h;

	if (!path || !*path || !(h = dlopen(path, RTLD_LAZY)))
		return NULL;
	if (!dlsym(h, "pmcshim_api"))
		*(void **)&init = dlsym(h, "InitializeInjectionNvtx2");
	return init;
}

/* Called once by each NVTX front end in the process (each library built
 * with NVTX's headers has one), with that front end's export tables.
 * Non-zero: the front end's slots are ours. */
EXPORT int InitializeInjectionNvtx2(get_export_table_fn get_export_table)
{
	const struct callbacks_table *cb;
	int (*other)(get_export_table_fn) = other_tool();

	if (other)		/* the user chose another tool */
		return other(get_export_table);
	if (!__atomic_load_n(&enabled, __ATOMIC_RELAXED) || !get_export_table)
		return 0;
	cb = get_export_table(ETID_CALLBACKS);
	if (!cb || cb->struct_size < sizeof(*cb) || !cb->get_module_function_table)
		return 0;
	if (!fill(cb, MODULE_CORE, core, sizeof(core) / sizeof(core[0])))
		return 0;
	fill(cb, MODULE_CORE2, core2, sizeof(core2) / sizeof(core2[0]));
	return 1;
}
