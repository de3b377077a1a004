/* See self.h. */
#include "self.h"

#include <link.h>

static uintptr_t self_lo, self_hi;	/* 0, 0: not found yet */

static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t self = (uintptr_t)data;
	uintptr_t lo = UINTPTR_MAX, hi = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;
		if (start < lo)
			lo = start;
		if (start + ph->p_memsz > hi)
			hi = start + ph->p_memsz;
	}
	if (self < lo || self >= hi)
		return 0;
	__atomic_store_n(&self_lo, lo, __ATOMIC_RELAXED);
	__atomic_store_n(&self_hi, hi, __ATOMIC_RELEASE);
	return 1;
}

void self_range(uintptr_t *lo, uintptr_t *hi)
{
	if (!__atomic_load_n(&self_hi, __ATOMIC_ACQUIRE))
		dl_iterate_phdr(find_self, (void *)(uintptr_t)&self_range);
	*lo = __atomic_load_n(&self_lo, __ATOMIC_RELAXED);
	*hi = __atomic_load_n(&self_hi, __ATOMIC_RELAXED);
}

int self_holds(uintptr_t pc)
{
	return pc < __atomic_load_n(&self_hi, __ATOMIC_ACQUIRE) &&
	       pc >= __atomic_load_n(&self_lo, __ATOMIC_RELAXED);
}
