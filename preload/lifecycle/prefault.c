/* A start runs code in nearly every 64 KiB of the shim's text and reads
 * its read-only data; the kernel maps file pages at a fault 64 KiB at a
 * time (fault-around), so that is a page fault for each, several at every
 * start, about 10 us each on a VM. One MADV_POPULATE_READ per segment
 * maps them in a call. The segments are found from the ELF header the
 * linker places in the first one. Linux 5.14 and later; elsewhere the
 * call fails and the faults happen as before. */
#include <link.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

/* (an array of unknown size: the program headers follow the header) */
extern const unsigned char __ehdr_start[] __attribute__((visibility("hidden")));

/* Before the shim's other constructors (the header's look-up of the
 * markers in calibrate.c runs code in two more pieces), beside them. */
__attribute__((constructor(101), section(".text.startup"))) static void prefault(void)
{
	const ElfW(Ehdr) *eh = (const void *)__ehdr_start;
	const ElfW(Phdr) *ph = (const void *)(__ehdr_start + eh->e_phoff);
	uintptr_t page = getauxval(AT_PAGESZ) ? getauxval(AT_PAGESZ) : 4096, bias = 0;

	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0)
			bias = (uintptr_t)__ehdr_start - ph[i].p_vaddr;
	for (int i = 0; i < eh->e_phnum; i++) {
		uintptr_t from = (bias + ph[i].p_vaddr) & ~(page - 1);

		/* (not the headers' segment: the dynamic linker read it all) */
		if (ph[i].p_type == PT_LOAD && !(ph[i].p_flags & PF_W) && ph[i].p_offset)
			madvise((void *)from, bias + ph[i].p_vaddr + ph[i].p_memsz - from,
				MADV_POPULATE_READ);
	}
}
