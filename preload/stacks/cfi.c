/* The rules: .eh_frame_hdr's binary search table finds the FDE of an
 * address; the CIE's and then the FDE's call frame instructions run up to
 * the address (DWARF 5, section 6.4; the .eh_frame form: LSB Core,
 * "Exception Frames"). Only what a walk needs is kept: the CFA, the
 * return address's and FP's rules; other registers' rules are read past.
 *
 * The cache is an open-addressed table of (address, packed rule) slots,
 * written without a lock: a writer claims a slot by compare-and-swap of
 * its key to BUSY, writes the rule, then the key; a reader takes a rule
 * only when the key reads the same before and after it. A rule carries
 * the dlclose count it was read under (codemap_stamp): one read before
 * the latest dlclose is stale, its slot free to take again. */
#include "cfi.h"

#include <dlfcn.h>
#include <link.h>
#include <stddef.h>
#include <string.h>
#include <sys/auxv.h>

#include "codemap.h"
#include "base/cold.h"

/* DWARF register numbers. A return address without a rule: on x86-64
 * every CIE gives one (the call pushed it), so none means none; on arm64
 * it is in x30 (LR) until the prologue saves it, and CIEs say nothing. */
#if defined(__x86_64__)
enum { REG_SP = 7, REG_FP = 6, REG_RA = 16 };
#define RA_INITIAL UNDEF
#elif defined(__aarch64__)
enum { REG_SP = 31, REG_FP = 29, REG_RA = 30 };
#define RA_INITIAL SAME
#else
enum { REG_SP = -1, REG_FP = -1, REG_RA = -1 };
#define RA_INITIAL UNDEF
#endif

typedef int find_object_fn(void *addr, struct dl_find_object *result);
static find_object_fn *find_object;

static unsigned long parsed;

/* The dynamic linker's entry point: its start code, which calls the
 * objects' constructors (and so the shim's setup), has no unwind table
 * and is the outermost frame of what runs before main. */
static uintptr_t ld_entry;
#define LD_START_CODE 64	/* bytes of it, from the entry point */

int cfi_init(void)
{
	const ElfW(Ehdr) *ld = (const ElfW(Ehdr) *)getauxval(AT_BASE);

	if (ld && memcmp(ld->e_ident, ELFMAG, SELFMAG) == 0)
		ld_entry = (uintptr_t)ld + ld->e_entry;
	if (!find_object)
		*(void **)&find_object = dlsym(RTLD_DEFAULT, "_dl_find_object");
	return find_object ? 0 : -1;
}

unsigned long cfi_parsed(void)
{
	return __atomic_load_n(&parsed, __ATOMIC_RELAXED);
}

/* --- reading the tables ------------------------------------------------ */

/* Bytes [p, end) of a loaded object; a read past end sets bad, and reads
 * nothing more. */
struct rd {
	const uint8_t *p, *end;
	int bad;
};

static int have(struct rd *r, size_t n)
{
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = 1;
		return 0;
	}
	return 1;
}

static uint64_t u8(struct rd *r)
{
	return have(r, 1) ? *r->p++ : 0;
}

/* n bytes, little-endian as the tables are on both targets */
static uint64_t un(struct rd *r, size_t n)
{
	uint64_t v = 0;

	if (!have(r, n))
		return 0;
	memcpy(&v, r->p, n);
	r->p += n;
	return v;
}

/* A LEB128 number, sign-extended when sign is set. */
static uint64_t leb(struct rd *r, int sign)
{
	uint64_t v = 0, b;
	unsigned shift = 0;

	do {
		b = u8(r);
		if (shift < 64)
			v |= (b & 0x7f) << shift;
		shift += 7;
	} while ((b & 0x80) && !r->bad);
	if (sign && shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return v;
}

static uint64_t uleb(struct rd *r)
{
	return leb(r, 0);
}

static int64_t sleb(struct rd *r)
{
	return (int64_t)leb(r, 1);
}

/* DW_EH_PE_* pointer encodings */
enum {
	PE_ABS = 0x00, PE_ULEB = 0x01, PE_U2 = 0x02, PE_U4 = 0x03, PE_U8 = 0x04,
	PE_SLEB = 0x09, PE_S2 = 0x0a, PE_S4 = 0x0b, PE_S8 = 0x0c,
	PE_PCREL = 0x10, PE_DATAREL = 0x30, PE_INDIRECT = 0x80, PE_OMIT = 0xff
};

/* A pointer in encoding enc; datarel relative to base. Indirect and
 * text- or function-relative forms are not used by the fields read here
 * and set bad. */
static uintptr_t pointer(struct rd *r, int enc, uintptr_t base)
{
	uintptr_t at = (uintptr_t)r->p, v;

	switch (enc & 0x0f) {
	case PE_ABS: v = (uintptr_t)un(r, sizeof(uintptr_t)); break;
	case PE_ULEB: v = (uintptr_t)uleb(r); break;
	case PE_U2: v = (uintptr_t)un(r, 2); break;
	case PE_U4: v = (uintptr_t)un(r, 4); break;
	case PE_U8: v = (uintptr_t)un(r, 8); break;
	case PE_SLEB: v = (uintptr_t)sleb(r); break;
	case PE_S2: v = (uintptr_t)(int16_t)un(r, 2); break;
	case PE_S4: v = (uintptr_t)(int32_t)un(r, 4); break;
	case PE_S8: v = (uintptr_t)(int64_t)un(r, 8); break;
	default: r->bad = 1; return 0;
	}
	switch (enc & 0x70) {
	case 0: break;
	case PE_PCREL: v += at; break;
	case PE_DATAREL: v += base; break;
	default: r->bad = 1; return 0;
	}
	if (enc & PE_INDIRECT)
		r->bad = 1;
	return v;
}

/* --- CIE and FDE ---------------------------------------------------------- */

struct cie {
	uint64_t code_align;
	int64_t data_align;
	int ra_reg;
	int fde_enc;		/* 'R' */
	int has_aug_data;	/* 'z' */
	int signal;		/* 'S' */
	struct rd insns;	/* the initial instructions */
};

/* The length field of a CIE or FDE at r; r then ends where it does. */
static int entry(struct rd *r)
{
	uint64_t len = un(r, 4);

	if (len == 0xffffffffu)
		len = un(r, 8);
	if (len == 0 || !have(r, (size_t)len))
		return -1;
	r->end = r->p + len;
	return 0;
}

static int read_cie(const uint8_t *at, const uint8_t *end, struct cie *c)
{
	struct rd r = { at, end, 0 };
	const char *aug;
	int version;

	memset(c, 0, sizeof(*c));
	c->fde_enc = PE_ABS;
	if (entry(&r) != 0 || un(&r, 4) != 0)	/* id 0: a CIE */
		return -1;
	version = (int)u8(&r);
	aug = (const char *)r.p;
	while (u8(&r) != 0 && !r.bad)
		;
	if (r.bad || (version != 1 && version != 3) || (aug[0] && aug[0] != 'z'))
		return -1;
	c->code_align = uleb(&r);
	c->data_align = sleb(&r);
	c->ra_reg = version == 1 ? (int)u8(&r) : (int)uleb(&r);
	if (aug[0] == 'z') {
		uint64_t len = uleb(&r);
		struct rd a = { r.p, r.p + len, !have(&r, (size_t)len) };

		c->has_aug_data = 1;
		for (const char *p = aug + 1; *p && !a.bad; p++) {
			if (*p == 'R')
				c->fde_enc = (int)u8(&a);
			else if (*p == 'L')
				u8(&a);
			else if (*p == 'P')
				pointer(&a, (int)u8(&a) & ~PE_INDIRECT, 0);
			else if (*p == 'S')
				c->signal = 1;
			else if (*p != 'B' && *p != 'G')
				return -1;	/* unknown: its data cannot be read past */
		}
		r.p += len;
	}
	c->insns = r;
	return r.bad ? -1 : 0;
}

/* --- the instructions -------------------------------------------------- */

enum how { SAME, UNDEF, OFFSET, OTHER };

struct regrule {
	enum how how;
	int64_t off;
};

struct row {
	int cfa_reg;
	int cfa_expr;
	int64_t cfa_off;
	struct regrule fp, ra;
};

#define STATES_MAX 8

struct machine {
	const struct cie *cie;
	const struct row *initial;	/* after the CIE's instructions */
	struct row row;
	struct row saved[STATES_MAX];
	int nsaved;
	uintptr_t loc, target;
};

static struct regrule *reg(struct row *row, int cie_ra, uint64_t r)
{
	if (r == REG_FP)
		return &row->fp;
	if (r == (uint64_t)cie_ra)
		return &row->ra;
	return NULL;	/* a register the walk does not need */
}

static void set(struct machine *m, uint64_t r, enum how how, int64_t off)
{
	struct regrule *rr = reg(&m->row, m->cie->ra_reg, r);

	if (rr)
		*rr = (struct regrule){ how, off };
}

/* Runs to the end of r or to the first row past the target: 1 when the
 * target is reached, 0 at the end, -1 for what cannot be followed. */
static int advance(struct machine *m, uint64_t delta)
{
	m->loc += delta * m->cie->code_align;
	return m->loc > m->target;
}

static int step(struct machine *m, struct rd *r)
{
	int op = (int)u8(r);
	uint64_t a, b;
	int64_t da = m->cie->data_align;
	struct regrule *rr;

	switch (op & 0xc0) {
	case 0x40: return advance(m, (uint64_t)(op & 0x3f));	/* advance_loc */
	case 0x80: set(m, (uint64_t)(op & 0x3f), OFFSET, (int64_t)uleb(r) * da); return 0;
	case 0xc0:	/* restore */
		rr = reg(&m->row, m->cie->ra_reg, (uint64_t)(op & 0x3f));
		if (rr)
			*rr = *reg((struct row *)m->initial, m->cie->ra_reg, (uint64_t)(op & 0x3f));
		return 0;
	}
	switch (op) {
	case 0x00: return 0;						/* nop */
	case 0x01:							/* set_loc */
		m->loc = pointer(r, m->cie->fde_enc, 0);
		return m->loc > m->target;
	case 0x02: return advance(m, un(r, 1));
	case 0x03: return advance(m, un(r, 2));
	case 0x04: return advance(m, un(r, 4));
	case 0x05: a = uleb(r); set(m, a, OFFSET, (int64_t)uleb(r) * da); return 0;
	case 0x06:							/* restore_extended */
		a = uleb(r);
		rr = reg(&m->row, m->cie->ra_reg, a);
		if (rr)
			*rr = *reg((struct row *)m->initial, m->cie->ra_reg, a);
		return 0;
	case 0x07: set(m, uleb(r), UNDEF, 0); return 0;
	case 0x08: set(m, uleb(r), SAME, 0); return 0;
	case 0x09: a = uleb(r); uleb(r); set(m, a, OTHER, 0); return 0;	/* register */
	case 0x0a:							/* remember_state */
		if (m->nsaved == STATES_MAX)
			return -1;
		m->saved[m->nsaved++] = m->row;
		return 0;
	case 0x0b:							/* restore_state */
		if (m->nsaved == 0)
			return -1;
		m->row = m->saved[--m->nsaved];
		return 0;
	case 0x0c:							/* def_cfa */
		m->row.cfa_reg = (int)uleb(r);
		m->row.cfa_off = (int64_t)uleb(r);
		m->row.cfa_expr = 0;
		return 0;
	case 0x0d: m->row.cfa_reg = (int)uleb(r); m->row.cfa_expr = 0; return 0;
	case 0x0e: m->row.cfa_off = (int64_t)uleb(r); return 0;
	case 0x0f:							/* def_cfa_expression */
		a = uleb(r);
		if (have(r, (size_t)a))
			r->p += a;
		m->row.cfa_expr = 1;
		return 0;
	case 0x10: case 0x16:				/* expression, val_expression */
		a = uleb(r);
		b = uleb(r);
		if (have(r, (size_t)b))
			r->p += b;
		set(m, a, OTHER, 0);
		return 0;
	case 0x11: a = uleb(r); set(m, a, OFFSET, sleb(r) * da); return 0;
	case 0x12:							/* def_cfa_sf */
		m->row.cfa_reg = (int)uleb(r);
		m->row.cfa_off = sleb(r) * da;
		m->row.cfa_expr = 0;
		return 0;
	case 0x13: m->row.cfa_off = sleb(r) * da; return 0;
	case 0x14: a = uleb(r); uleb(r); set(m, a, OTHER, 0); return 0;	/* val_offset */
	case 0x15: a = uleb(r); sleb(r); set(m, a, OTHER, 0); return 0;	/* _sf */
	case 0x2e: uleb(r); return 0;					/* GNU_args_size */
	case 0x2f: a = uleb(r); set(m, a, OFFSET, -(int64_t)uleb(r) * da); return 0;
#if defined(__aarch64__)
	/* AARCH64_negate_ra_state: the return address is signed (pac-ret)
	 * from here, or no longer; the walk strips every return address it
	 * reads (arch_strip_ra), signed or not */
	case 0x2d: return 0;
#endif
	default: return -1;	/* elsewhere 0x2d is SPARC's window_save */
	}
}

static int run(struct machine *m, struct rd *r)
{
	while (r->p < r->end && !r->bad) {
		int s = step(m, r);

		if (s != 0)
			return s;
	}
	return r->bad ? -1 : 0;
}

/* --- from an address to its rule ------------------------------------------ */

/* The FDE covering pc, through the binary search table in .eh_frame_hdr
 * (hdr, in an object mapped up to end). */
static const uint8_t *find_fde(const uint8_t *hdr, const uint8_t *end, uintptr_t pc)
{
	struct rd r = { hdr, end, 0 };
	size_t lo = 0, hi, n;
	const int32_t *tab;

	if (u8(&r) != 1)
		return NULL;
	int ptr_enc = (int)u8(&r), count_enc = (int)u8(&r), table_enc = (int)u8(&r);

	if (ptr_enc == PE_OMIT || count_enc == PE_OMIT || table_enc != (PE_DATAREL | PE_S4))
		return NULL;
	pointer(&r, ptr_enc, (uintptr_t)hdr);
	n = (size_t)pointer(&r, count_enc, (uintptr_t)hdr);
	if (r.bad || n == 0 || n > (size_t)(end - r.p) / 8)
		return NULL;
	tab = (const int32_t *)(const void *)r.p;
	/* the last entry whose start is at or below pc */
	hi = n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if ((uintptr_t)hdr + (intptr_t)tab[2 * mid] <= pc)
			lo = mid;
		else
			hi = mid;
	}
	if ((uintptr_t)hdr + (intptr_t)tab[2 * lo] > pc)
		return NULL;
	return hdr + tab[2 * lo + 1];
}

/* The row at pc, from the FDE at fde (in an object mapped from start to
 * end); -1 when there is none or it cannot be read. */
static int row_at(const uint8_t *fde, const uint8_t *start, const uint8_t *end, uintptr_t pc,
		  struct row *out, int *signal)
{
	struct rd r = { fde, end, 0 };
	struct machine m;
	struct row initial;
	struct cie cie;
	const uint8_t *id_at;
	uintptr_t begin, range;
	int32_t cie_off;

	if (fde < start || fde >= end || entry(&r) != 0)
		return -1;
	id_at = r.p;
	cie_off = (int32_t)un(&r, 4);
	if (cie_off == 0 || id_at - cie_off < start ||
	    read_cie(id_at - cie_off, end, &cie) != 0)
		return -1;
	begin = pointer(&r, cie.fde_enc, 0);
	range = pointer(&r, cie.fde_enc & 0x0f, 0);
	if (r.bad || pc < begin || pc - begin >= range)
		return -1;
	if (cie.has_aug_data) {
		uint64_t len = uleb(&r);

		if (!have(&r, (size_t)len))
			return -1;
		r.p += len;
	}
	memset(&m, 0, sizeof(m));
	m.cie = &cie;
	m.initial = &initial;
	m.row.ra.how = RA_INITIAL;	/* until the CIE says */
	m.target = pc;
	m.loc = begin;
	initial = m.row;
	if (run(&m, &cie.insns) != 0)
		return -1;
	initial = m.row;
	m.nsaved = 0;
	m.loc = begin;
	if (run(&m, &r) < 0)
		return -1;
	*out = m.row;
	*signal = cie.signal;
	return 0;
}

static struct cfi_rule rule_of(const struct row *row, int signal)
{
	struct cfi_rule u = { .kind = CFI_UNKNOWN };

	if (signal || row->cfa_expr || (row->cfa_reg != REG_SP && row->cfa_reg != REG_FP))
		return u;
	if (row->ra.how == UNDEF)
		return (struct cfi_rule){ .kind = CFI_OUTERMOST };
	if (row->ra.how == SAME)
		return (struct cfi_rule){ .kind = CFI_LINK };
	if (row->ra.how != OFFSET || (row->fp.how != SAME && row->fp.how != OFFSET))
		return u;
	return (struct cfi_rule){
		.kind = CFI_STEP,
		.cfa_fp = row->cfa_reg == REG_FP,
		.fp_saved = row->fp.how == OFFSET,
		.cfa_off = (long)row->cfa_off,
		.ra_off = (int)row->ra.off,
		.fp_off = (int)row->fp.off,
	};
}

static struct cfi_rule parse(uintptr_t ra)
{
	struct cfi_rule u = { .kind = CFI_UNKNOWN };
	struct dl_find_object obj;
	const uint8_t *fde, *start, *end;
	struct row row;
	int signal;

	__atomic_add_fetch(&parsed, 1, __ATOMIC_RELAXED);
	/* the tables are read in place: not while a dlclose may unmap them
	 * (that walk goes to libunwind; the next one reads them) */
	if (codemap_unloading())
		return u;
	if (REG_SP < 0 || !find_object || find_object((void *)(ra - 1), &obj) != 0 ||
	    !obj.dlfo_eh_frame)
		return u;
	start = obj.dlfo_map_start;
	end = obj.dlfo_map_end;
	fde = find_fde(obj.dlfo_eh_frame, end, ra - 1);
	if (!fde || row_at(fde, start, end, ra - 1, &row, &signal) != 0) {
		if (ld_entry && ra - ld_entry < LD_START_CODE)
			return (struct cfi_rule){ .kind = CFI_OUTERMOST };
		return u;
	}
	return rule_of(&row, signal);
}

/* --- the cache -------------------------------------------------------- */

/* A rule in one word: kind (2 bits), cfa_fp, fp_saved, the dlclose count
 * (16 bits), ra_off / 8 and fp_off / 8 (8 bits each, signed), whether
 * those two are kept from the CFA's base register rather than from the
 * CFA (1 bit), cfa_off (27 bits, signed). From the CFA fits x86-64, where
 * the return address is just below it; from the base register fits
 * arm64, where the frame record is at the bottom of the frame (stp x29,
 * x30, [sp, -N]!: at CFA - N). A rule that fits neither way is kept as
 * CFI_UNKNOWN. */
#define EPOCH(v) (((v) >> 4) & 0xffff)

static int fits(long v, int bits)
{
	return v >= -(1L << (bits - 1)) && v < (1L << (bits - 1));
}

static int fits_slot(long off)
{
	return off % 8 == 0 && fits(off / 8, 8);
}

static uint64_t pack(struct cfi_rule r, unsigned long stamp)
{
	uint64_t v = (uint64_t)r.kind | (uint64_t)(stamp & 0xffff) << 4;
	long ra = r.ra_off, fp = r.fp_saved ? r.fp_off : 0, base = 0;

	if (r.kind != CFI_STEP)
		return v;
	if (!fits_slot(ra) || !fits_slot(fp)) {
		ra += r.cfa_off;
		fp += r.fp_saved ? r.cfa_off : 0;
		base = 1;
	}
	if (!fits_slot(ra) || !fits_slot(fp) || !fits(r.cfa_off, 27))
		return CFI_UNKNOWN | (uint64_t)(stamp & 0xffff) << 4;
	return v | (uint64_t)r.cfa_fp << 2 | (uint64_t)r.fp_saved << 3 |
	       (uint64_t)(uint8_t)(ra / 8) << 20 | (uint64_t)(uint8_t)(fp / 8) << 28 |
	       (uint64_t)base << 36 | (uint64_t)(r.cfa_off & ((1L << 27) - 1)) << 37;
}

static struct cfi_rule unpack(uint64_t v)
{
	long cfa_off = (long)((int64_t)v >> 37), base = (v >> 36) & 1 ? cfa_off : 0;
	int fp_saved = (int)(v >> 3) & 1;

	return (struct cfi_rule){
		.kind = (enum cfi_kind)(v & 3),
		.cfa_fp = (int)(v >> 2) & 1,
		.fp_saved = fp_saved,
		.ra_off = (int)((int8_t)(v >> 20) * 8 - base),
		.fp_off = fp_saved ? (int)((int8_t)(v >> 28) * 8 - base) : 0,
		.cfa_off = cfa_off,
	};
}

#define SLOTS 8192	/* 128 kB of zero pages, touched as rules are kept */
#define PROBES 16
#define BUSY ((uintptr_t)1)	/* never a return address into a module */

struct slot {
	uintptr_t key;
	uint64_t val;
};

COLD struct slot cfi_cache[SLOTS];

/* Nearby addresses get nearby slots: a process's first rules (the
 * calibration's, a stack's frames in one module) then touch few of the
 * table's pages, each a page fault the first time. Two return addresses
 * are at least a call instruction apart. */
static size_t home(uintptr_t ra)
{
	return (size_t)(ra >> 2) & (SLOTS - 1);
}

/* Keep v for ra in a free slot or one whose rule is stale; a full
 * neighbourhood keeps nothing (the rule is read again next time). */
static void keep(uintptr_t ra, uint64_t v, unsigned long epoch)
{
	for (size_t i = 0, h = home(ra); i < PROBES; i++) {
		struct slot *s = &cfi_cache[(h + i) & (SLOTS - 1)];
		uintptr_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);

		if (k == BUSY || (k && EPOCH(__atomic_load_n(&s->val, __ATOMIC_ACQUIRE)) == epoch))
			continue;
		if (!__atomic_compare_exchange_n(&s->key, &k, BUSY, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_RELAXED))
			continue;
		__atomic_store_n(&s->val, v, __ATOMIC_RELEASE);
		__atomic_store_n(&s->key, ra, __ATOMIC_RELEASE);
		return;
	}
}

struct cfi_rule cfi_rule(uintptr_t ra)
{
	unsigned long stamp = codemap_stamp(), epoch = stamp & 0xffff;
	uint64_t v;

	for (size_t i = 0, h = home(ra); i < PROBES; i++) {
		struct slot *s = &cfi_cache[(h + i) & (SLOTS - 1)];
		uintptr_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);

		if (k == 0)
			break;
		if (k != ra)
			continue;
		v = __atomic_load_n(&s->val, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&s->key, __ATOMIC_RELAXED) == ra && EPOCH(v) == epoch)
			return unpack(v);
	}
	v = pack(parse(ra), stamp);
	if (codemap_stamp() != stamp)	/* a dlclose began meanwhile: not kept */
		return (struct cfi_rule){ .kind = CFI_UNKNOWN };
	keep(ra, v, epoch);
	return unpack(v);
}
