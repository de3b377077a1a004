/* Unwind rules read from the tables (cfi.c), on a function written with
 * its call frame information by hand (x86-64; arm64 below, run in the
 * guest): the CFA from SP and from FP, FP saved and restored, remember/restore_state, a CFA expression, a
 * signal frame, an undefined return address, offsets too large to keep;
 * and the cache: a rule is read once, and again after a dlclose. */
#include <stdint.h>

#include "../preload/stacks/cfi.h"
#include "../preload/stacks/codemap.h"
#include "harness.h"

#if defined(__x86_64__) || defined(__aarch64__)
/* The row at label L (cfi_rule(ra) looks up ra - 1). */
static struct cfi_rule at(const char *label)
{
	return cfi_rule((uintptr_t)label + 1);
}

#endif

#if defined(__x86_64__)
/* Each label sits on an instruction where the rows change; cfi_rule(ra)
 * looks up ra - 1, so the row at label L is cfi_rule(L + 1). */
__asm__(".text\n"
	".globl cfi_t_entry, cfi_t_pushed, cfi_t_framed, cfi_t_popped, cfi_t_restored\n"
	".globl cfi_t_expr, cfi_t_big, cfi_t_far, cfi_t_outermost, cfi_t_signal, cfi_t_none\n"
	".globl cfi_t_bottom\n"
	"cfi_t_fn:\n"
	".cfi_startproc\n"
	"cfi_t_entry: nop\n"
	"push %rbp\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %rbp, -16\n"
	"cfi_t_pushed: mov %rsp, %rbp\n"
	".cfi_def_cfa_register %rbp\n"
	"cfi_t_framed: nop\n"
	".cfi_remember_state\n"
	"pop %rbp\n"
	".cfi_def_cfa %rsp, 8\n"
	".cfi_restore %rbp\n"
	"cfi_t_popped: nop\n"
	".cfi_restore_state\n"
	"cfi_t_restored: nop\n"
	".cfi_escape 0x0f, 0x03, 0x77, 0x08, 0x06\n"	/* def_cfa_expression */
	"cfi_t_expr: nop\n"
	".cfi_def_cfa %rsp, 0x123458\n"
	"cfi_t_big: nop\n"
	".cfi_offset %rbp, -4096\n"
	"cfi_t_far: nop\n"
	".cfi_def_cfa %rsp, 5024\n"
	".cfi_offset %rbp, -5024\n"
	".cfi_offset %rip, -5016\n"
	"cfi_t_bottom: nop\n"
	".cfi_def_cfa %rsp, 16\n"
	".cfi_undefined %rip\n"
	"cfi_t_outermost: nop\n"
	"ret\n"
	".cfi_endproc\n"
	"cfi_t_sigfn:\n"
	".cfi_startproc\n"
	".cfi_signal_frame\n"
	"cfi_t_signal: nop\n"
	"ret\n"
	".cfi_endproc\n"
	"cfi_t_none: nop\n"	/* no FDE */
	"ret\n");

extern char cfi_t_entry[], cfi_t_pushed[], cfi_t_framed[], cfi_t_popped[], cfi_t_restored[];
extern char cfi_t_expr[], cfi_t_big[], cfi_t_far[], cfi_t_outermost[], cfi_t_signal[];
extern char cfi_t_none[], cfi_t_bottom[];

#define STEP(r, fp, off, saved, fpoff)                                                  \
	((r).kind == CFI_STEP && (r).cfa_fp == (fp) && (r).cfa_off == (off) &&          \
	 (r).ra_off == -8 && (r).fp_saved == (saved) && (!(saved) || (r).fp_off == (fpoff)))

static void test_rules(void)
{
	struct cfi_rule r;

	CHECK(cfi_init() == 0, "no _dl_find_object");
	r = at(cfi_t_entry);
	CHECK(STEP(r, 0, 8, 0, 0), "entry: kind %d fp %d off %ld", r.kind, r.cfa_fp, r.cfa_off);
	r = at(cfi_t_pushed);
	CHECK(STEP(r, 0, 16, 1, -16), "pushed: kind %d off %ld saved %d", r.kind, r.cfa_off,
	      r.fp_saved);
	r = at(cfi_t_framed);
	CHECK(STEP(r, 1, 16, 1, -16), "framed: kind %d fp %d", r.kind, r.cfa_fp);
	r = at(cfi_t_popped);
	CHECK(STEP(r, 0, 8, 0, 0), "popped: kind %d fp %d saved %d", r.kind, r.cfa_fp,
	      r.fp_saved);
	r = at(cfi_t_restored);
	CHECK(STEP(r, 1, 16, 1, -16), "restored: kind %d fp %d", r.kind, r.cfa_fp);
	CHECK(at(cfi_t_expr).kind == CFI_UNKNOWN, "a CFA expression");
	r = at(cfi_t_big);
	CHECK(STEP(r, 0, 0x123458, 1, -16), "a large frame: kind %d off %ld", r.kind, r.cfa_off);
	CHECK(at(cfi_t_far).kind == CFI_UNKNOWN, "FP saved too far to keep");
	/* arm64's frame record at the bottom of a large frame: kept from SP */
	r = at(cfi_t_bottom);
	CHECK(r.kind == CFI_STEP && !r.cfa_fp && r.cfa_off == 5024 && r.ra_off == -5016 &&
	      r.fp_saved && r.fp_off == -5024, "record at the bottom: kind %d off %ld ra %d fp %d",
	      r.kind, r.cfa_off, r.ra_off, r.fp_off);
	CHECK(at(cfi_t_outermost).kind == CFI_OUTERMOST, "undefined return address");
	CHECK(at(cfi_t_signal).kind == CFI_UNKNOWN, "a signal frame");
	CHECK(at(cfi_t_none).kind == CFI_UNKNOWN, "no FDE");
	CHECK(cfi_rule(0x1000).kind == CFI_UNKNOWN, "in no object");
}

#define FRAMED cfi_t_framed
#define FRAMED_OK(r) STEP(r, 1, 16, 1, -16)
#elif defined(__aarch64__)
/* arm64 (run in the guest, tests/vm): no rule for x30 until the prologue
 * saves it (CFI_LINK), pac-ret's negate_ra_state read past, the frame
 * record at the bottom of a large frame (offsets from SP and from x29),
 * the record restored, x30 undefined. Each label's row is at(label). */
__asm__(".text\n"
	".globl cfi_a_entry, cfi_a_signed, cfi_a_saved, cfi_a_framed, cfi_a_restored\n"
	".globl cfi_a_outermost\n"
	"cfi_a_fn:\n"
	".cfi_startproc\n"
	"cfi_a_entry: nop\n"
	".cfi_negate_ra_state\n"
	"cfi_a_signed: nop\n"
	".cfi_def_cfa_offset 5024\n"
	".cfi_offset 29, -5024\n"
	".cfi_offset 30, -5016\n"
	"cfi_a_saved: nop\n"
	".cfi_def_cfa_register 29\n"
	"cfi_a_framed: nop\n"
	".cfi_restore 30\n"
	".cfi_restore 29\n"
	".cfi_def_cfa 31, 0\n"
	".cfi_negate_ra_state\n"
	"cfi_a_restored: nop\n"
	".cfi_undefined 30\n"
	"cfi_a_outermost: nop\n"
	"ret\n"
	".cfi_endproc\n");

extern char cfi_a_entry[], cfi_a_signed[], cfi_a_saved[], cfi_a_framed[], cfi_a_restored[];
extern char cfi_a_outermost[];

/* The frame record at CFA - 5024, from SP or from x29 */
#define RECORD(r, fp)                                                                   \
	((r).kind == CFI_STEP && (r).cfa_fp == (fp) && (r).cfa_off == 5024 &&           \
	 (r).ra_off == -5016 && (r).fp_saved && (r).fp_off == -5024)

static void test_rules(void)
{
	struct cfi_rule r;

	CHECK(cfi_init() == 0, "no _dl_find_object");
	CHECK(at(cfi_a_entry).kind == CFI_LINK, "entry: kind %d", at(cfi_a_entry).kind);
	CHECK(at(cfi_a_signed).kind == CFI_LINK, "signed: kind %d", at(cfi_a_signed).kind);
	r = at(cfi_a_saved);
	CHECK(RECORD(r, 0), "saved: kind %d fp %d off %ld ra %d fp %d", r.kind, r.cfa_fp,
	      r.cfa_off, r.ra_off, r.fp_off);
	r = at(cfi_a_framed);
	CHECK(RECORD(r, 1), "framed: kind %d fp %d off %ld ra %d fp %d", r.kind, r.cfa_fp,
	      r.cfa_off, r.ra_off, r.fp_off);
	CHECK(at(cfi_a_restored).kind == CFI_LINK, "restored: kind %d", at(cfi_a_restored).kind);
	CHECK(at(cfi_a_outermost).kind == CFI_OUTERMOST, "undefined x30");
	CHECK(cfi_rule(0x1000).kind == CFI_UNKNOWN, "in no object");
}

#define FRAMED cfi_a_framed
#define FRAMED_OK(r) RECORD(r, 1)
#endif

#ifdef FRAMED
/* Read once; after a dlclose (the count codemap keeps), read again. */
static void test_cache(void)
{
	unsigned long n;

	at(FRAMED);
	n = cfi_parsed();
	CHECK(FRAMED_OK(at(FRAMED)) && cfi_parsed() == n, "read again: %lu", cfi_parsed() - n);
	__atomic_add_fetch(&codemap_unload_count, 2, __ATOMIC_SEQ_CST);
	CHECK(FRAMED_OK(at(FRAMED)) && cfi_parsed() == n + 1, "after a dlclose: %lu reads",
	      cfi_parsed() - n);
	CHECK(FRAMED_OK(at(FRAMED)) && cfi_parsed() == n + 1, "then kept");
}
#else
static void test_rules(void)
{
	SKIP("the call frame information is written for x86-64 and arm64");
}

static void test_cache(void)
{
	SKIP("the call frame information is written for x86-64 and arm64");
}
#endif

int main(void)
{
	RUN(test_rules);
	RUN(test_cache);
	return t_done("cfi");
}
