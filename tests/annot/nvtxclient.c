/* An NVTX front end as NVTX v3's headers build one into every library that
 * uses them, reduced to what the test needs: function-pointer slots that
 * start at an "init" function; at the first call, the tool is looked for
 * (a loaded object's InitializeInjectionNvtx2, else the library that
 * NVTX_INJECTION64_PATH names, dlopen()ed), called with this front end's
 * export-table getter, and the slots it left empty become no-ops. The
 * numbers (module, callback and table ids, the attributes' layout) are
 * NVTX's public ones (nvtxTypes.h, nvToolsExt.h).
 *
 * Usage: nvtxclient [env]: "env" skips the loaded-object look-up (the
 * NVTX_INJECTION64_PATH way only). Then it pushes, pops, starts, ends,
 * marks, in a domain too, with registered strings, and prints what the
 * tool's initialisation returned and whether every pop matched. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

typedef void (*fn_t)(void);
typedef const void *(*get_table_t)(uint32_t);

struct attributes {
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
		const void *registered;
	} message;
};

/* The slots: CORE ids 1..15 (16 is the end), CORE2 ids 1..15. */
#define CORE_SIZE 16
#define CORE2_SIZE 16
static fn_t core_fn[CORE_SIZE], core2_fn[CORE2_SIZE];
static fn_t *core_table[CORE_SIZE + 1], *core2_table[CORE2_SIZE + 1];
static int init_result = -1, use_loaded = 1;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int get_module_table(int module, fn_t ***table, unsigned *size)
{
	if (module == 1)
		*table = core_table, *size = CORE_SIZE;
	else if (module == 5)
		*table = core2_table, *size = CORE2_SIZE;
	else
		return 0;
	return 1;
}

static const struct {
	size_t size;
	int (*get)(int, fn_t ***, unsigned *);
} callbacks = { sizeof(callbacks), get_module_table };

static const void *get_export_table(uint32_t id)
{
	return id == 1 ? (const void *)&callbacks : NULL;
}

static void init(void)
{
	int (*tool)(get_table_t) = NULL;
	const char *path = getenv("NVTX_INJECTION64_PATH");
	void *h;

	for (int i = 1; i < CORE_SIZE; i++)
		core_table[i] = &core_fn[i];
	for (int i = 1; i < CORE2_SIZE; i++)
		core2_table[i] = &core2_fn[i];
	if (use_loaded)
		*(void **)&tool = dlsym(RTLD_DEFAULT, "InitializeInjectionNvtx2");
	if (!tool && path && (h = dlopen(path, RTLD_LAZY)))
		*(void **)&tool = dlsym(h, "InitializeInjectionNvtx2");
	init_result = tool ? tool(get_export_table) : -1;
	if (init_result <= 0) /* no tool: every call a no-op */
		memset(core_fn, 0, sizeof(core_fn)), memset(core2_fn, 0, sizeof(core2_fn));
}

/* The front end's calls: through the slot, 0 when empty. */
#define SLOT(table, i) (pthread_once(&once, init), table[i])

static int push_a(const char *m)
{
	fn_t f = SLOT(core_fn, 9);
	return f ? ((int (*)(const char *))f)(m) : -1;
}

static int push_w(const wchar_t *m)
{
	fn_t f = SLOT(core_fn, 10);
	return f ? ((int (*)(const wchar_t *))f)(m) : -1;
}

static int push_ex(const struct attributes *a)
{
	fn_t f = SLOT(core_fn, 8);
	return f ? ((int (*)(const struct attributes *))f)(a) : -1;
}

static int pop(void)
{
	fn_t f = SLOT(core_fn, 11);
	return f ? ((int (*)(void))f)() : -1;
}

static uint64_t start_a(const char *m)
{
	fn_t f = SLOT(core_fn, 5);
	return f ? ((uint64_t (*)(const char *))f)(m) : 0;
}

static void end(uint64_t id)
{
	fn_t f = SLOT(core_fn, 7);
	if (f)
		((void (*)(uint64_t))f)(id);
}

static void mark_a(const char *m)
{
	fn_t f = SLOT(core_fn, 2);
	if (f)
		((void (*)(const char *))f)(m);
}

static void *domain_create(const char *name)
{
	fn_t f = SLOT(core2_fn, 12);
	return f ? ((void *(*)(const char *))f)(name) : NULL;
}

static const void *register_string(void *d, const char *s)
{
	fn_t f = SLOT(core2_fn, 10);
	return f ? ((const void *(*)(void *, const char *))f)(d, s) : NULL;
}

static int domain_push(void *d, const struct attributes *a)
{
	fn_t f = SLOT(core2_fn, 4);
	return f ? ((int (*)(void *, const struct attributes *))f)(d, a) : -1;
}

static int domain_pop(void *d)
{
	fn_t f = SLOT(core2_fn, 5);
	return f ? ((int (*)(void *))f)(d) : -1;
}

static void domain_mark(void *d, const struct attributes *a)
{
	fn_t f = SLOT(core2_fn, 1);
	if (f)
		((void (*)(void *, const struct attributes *))f)(d, a);
}

static volatile double sink;

static void work(void)
{
	for (int i = 0; i < 2000; i++)
		sink += i;
}

static uint64_t ranges[30];

/* start/end ranges ended on another thread than the one that started them */
static void *ender(void *arg)
{
	(void)arg;
	for (int i = 0; i < 30; i++)
		end(ranges[i]);
	return NULL;
}

int main(int argc, char **argv)
{
	struct attributes a = { .version = 2, .size = sizeof(a), .message_type = 1 };
	int bad = 0;
	pthread_t t;
	void *dom;
	const void *reg;

	use_loaded = !(argc > 1 && !strcmp(argv[1], "env"));
	for (int i = 0; i < 100; i++) {
		bad += push_a("step") != 0;
		work();
		if (i % 2 == 0) {
			bad += push_a("inner") != 1;
			work();
			bad += pop() != 1;
		}
		bad += pop() != 0;
	}
	for (int i = 0; i < 10; i++)
		push_w(L"wide\u00e9"), work(), pop();
	a.message.ascii = "ex";
	for (int i = 0; i < 20; i++)
		push_ex(&a), work(), pop();
	for (int i = 0; i < 30; i++)
		ranges[i] = start_a("io");
	pthread_create(&t, NULL, ender, NULL);
	pthread_join(t, NULL);
	for (int i = 0; i < 5; i++)
		mark_a("tick");
	dom = domain_create("dom");
	reg = register_string(dom, "reg");
	a.message_type = 3, a.message.registered = reg;
	for (int i = 0; i < 40; i++)
		domain_push(dom, &a), work(), domain_pop(dom);
	a.message_type = 1, a.message.ascii = "x";
	for (int i = 0; i < 7; i++)
		domain_push(dom, &a), work(), domain_pop(dom);
	a.message.ascii = "m";
	for (int i = 0; i < 3; i++)
		domain_mark(dom, &a);
	printf("nvtx: tool init %d, %d pushes or pops at the wrong level\n", init_result,
	       init_result > 0 ? bad : 0);
	return 0;
}
