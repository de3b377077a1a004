# Regions with no source change (tests/sources/run.sh): a program built
# with -finstrument-functions, OpenMP programs built with gcc -fopenmp
# (libgomp) and with clang -fopenmp (libomp, OMPT), checked through
# pmcshim-report's CSV. The clang build needs clang and libomp-dev (test
# dependencies); without them its tests are skipped, and say so.
$(B)/tests/sources:
	mkdir -p $@

$(B)/tests/sources/funcs: tests/sources/funcs.c | $(B)/tests/sources
	$(CC) $(WARN) $(DEFS) -O1 -g -pthread -finstrument-functions -o $@ $<

# A function whose cost is cache misses (the exit hook's barrier).
$(B)/tests/sources/chase: tests/sources/chase.c | $(B)/tests/sources
	$(CC) $(WARN) $(DEFS) -O2 -g -finstrument-functions -o $@ $<

# Busy loops of known costs (the hooks' calibration).
$(B)/tests/sources/costs: tests/sources/costs.c | $(B)/tests/sources
	$(CC) $(WARN) $(DEFS) -O2 -g -finstrument-functions -o $@ $<

# Functions called in a window that tickstep single-steps, counting the
# tick reads (sampled hooks make none).
$(B)/tests/sources/notick: tests/sources/notick.c | $(B)/tests/sources
	$(CC) $(WARN) $(DEFS) -O1 -g -finstrument-functions -o $@ $<

# Calls counted, then SIGKILL (sampled hooks publish calls as they go).
$(B)/tests/sources/killed: tests/sources/killed.c | $(B)/tests/sources
	$(CC) $(WARN) $(DEFS) -O1 -g -finstrument-functions -o $@ $<

$(B)/tests/sources/tickstep: tests/sources/tickstep.c | $(B)/tests/sources
	$(CC) $(WARN) $(DEFS) -O1 -g -o $@ $<

# The same under TSan (with the TSan shim: the functions' table is read
# without a lock while threads add to it).
$(B)/tsan/sources/funcs: tests/sources/funcs.c
	mkdir -p $(@D)
	$(CC) $(WARN) $(DEFS) -O1 -g -pthread -finstrument-functions $(TSAN_FLAGS) -o $@ $<

$(B)/tests/sources/omp-gcc: tests/sources/omp.c | $(B)/tests/sources
	$(CC) $(WARN) $(DEFS) -O1 -g -fopenmp -o $@ $<

# 40,000 functions through the compiler's hooks, called by hand.
$(B)/tests/sources/manyfuncs: tests/sources/manyfuncs.c | $(B)/tests/sources
	$(CC) $(WARN) $(DEFS) -O1 -g -o $@ $<

# Parallel regions nested in each other (tests/sources/ompnest.c).
$(B)/tests/sources/ompnest-gcc: tests/sources/ompnest.c | $(B)/tests/sources
	$(CC) $(WARN) $(DEFS) -O1 -g -fopenmp -o $@ $<

# Cancelled parallel regions (run with OMP_CANCELLATION=true).
$(B)/tests/sources/omp-cancel: tests/sources/ompcancel.c | $(B)/tests/sources
	$(CC) $(WARN) $(DEFS) -O1 -g -fopenmp -o $@ $<

# An OpenMP library loaded with RTLD_LOCAL by a program without OpenMP.
$(B)/tests/sources/libomplib.so: tests/sources/omplib.c | $(B)/tests/sources
	$(CC) $(WARN) $(DEFS) -O1 -g -fopenmp -fPIC -shared -o $@ $<

$(B)/tests/sources/ompload: tests/sources/ompload.c | $(B)/tests/sources
	$(CC) $(WARN) $(DEFS) -O1 -g -o $@ $< -ldl

# A plugin unloaded and another built from the same source (alpha_*,
# beta_*: the same layout) loaded at its address.
$(B)/tests/sources/libreload-%.so: tests/sources/reloadlib.c include/pmcshim.h | $(B)/tests/sources
	$(CC) $(WARN) $(DEFS) -O1 -g -Iinclude -fPIC -shared -finstrument-functions -DP=$* -o $@ $< -ldl

$(B)/tests/sources/reload: tests/sources/reload.c | $(B)/tests/sources
	$(CC) $(WARN) $(DEFS) -O1 -g -o $@ $< -ldl

# A function called before and after an unrelated plugin's dlclose (-O0:
# at -O1 the old fault's nodes happened to publish in the order that hid
# it).
$(B)/tests/sources/unload: tests/sources/unload.c | $(B)/tests/sources
	$(CC) $(WARN) $(DEFS) -O0 -g -finstrument-functions -o $@ $< -ldl

# A function whose time is system calls (sampled hooks: the kernel's time).
$(B)/tests/sources/sysfn: tests/sources/sysfn.c | $(B)/tests/sources
	$(CC) $(WARN) $(DEFS) -O1 -g -finstrument-functions -o $@ $<

# (a host build only: clang and libomp are the host's)
HAVE_CLANG_OMP := $(if $(CROSS),,$(shell echo 'int main(void){return 0;}' | \
	$(CLANG) -fopenmp -x c - -o /dev/null 2>/dev/null && echo 1))

$(B)/tests/sources/omp-clang: tests/sources/omp.c | $(B)/tests/sources
	$(CLANG) $(WARN) $(DEFS) -O1 -g -fopenmp -o $@ $<

$(B)/tests/sources/ompnest-clang: tests/sources/ompnest.c | $(B)/tests/sources
	$(CLANG) $(WARN) $(DEFS) -O1 -g -fopenmp -o $@ $<

TEST_BINS += $(B)/tests/sources/funcs $(B)/tests/sources/costs $(B)/tests/sources/chase $(B)/tests/sources/notick $(B)/tests/sources/killed $(B)/tests/sources/unload $(B)/tests/sources/sysfn $(B)/tests/sources/tickstep $(B)/tests/sources/omp-gcc $(B)/tests/sources/omp-cancel \
	$(B)/tests/sources/manyfuncs $(B)/tests/sources/ompnest-gcc \
	$(B)/pmcshim-report \
	$(B)/tests/sources/libomplib.so $(B)/tests/sources/ompload \
	$(B)/tests/sources/reload $(B)/tests/sources/libreload-alpha.so \
	$(B)/tests/sources/libreload-beta.so \
	$(if $(CROSS),,$(B)/tsan/sources/funcs $(B)/tsan/libpmcshim.so $(B)/asan/libpmcshim.so) \
	$(if $(HAVE_CLANG_OMP),$(B)/tests/sources/omp-clang $(B)/tests/sources/ompnest-clang)
EXTRA_SUITES += sources=sh+tests/sources/run.sh

# Functions left by longjmp, never returning (tests/sources/jumps.c), and
# the same under TSan.
$(B)/tests/sources/jumps: tests/sources/jumps.c | $(B)/tests/sources
	$(CC) $(WARN) $(DEFS) -O1 -g -finstrument-functions -o $@ $<

$(B)/tsan/sources/jumps: tests/sources/jumps.c
	mkdir -p $(@D)
	$(CC) $(WARN) $(DEFS) -O1 -g -pthread -finstrument-functions $(TSAN_FLAGS) -o $@ $<

TEST_BINS += $(B)/tests/sources/jumps $(if $(CROSS),,$(B)/tsan/sources/jumps)

# Functions inlined into each other (their hooks in their callers' frames).
$(B)/tests/sources/inlined: tests/sources/inlined.c | $(B)/tests/sources
	$(CC) $(WARN) $(DEFS) -O3 -g -finstrument-functions -o $@ $<

TEST_BINS += $(B)/tests/sources/inlined

# Functions left by C++ exceptions that unwind without the exit hooks
# (clang++; a host build only, skipped without clang++).
HAVE_CLANGXX := $(if $(CROSS),,$(shell echo 'int main(){return 0;}' | \
	$(CLANG)++ -x c++ - -o /dev/null 2>/dev/null && echo 1))

$(B)/tests/sources/exceptions: tests/sources/exceptions.cpp | $(B)/tests/sources
	$(CLANG)++ -std=c++11 -Wall -Wextra -Werror -O1 -g -finstrument-functions -o $@ $<

TEST_BINS += $(if $(HAVE_CLANGXX),$(B)/tests/sources/exceptions)
