# pmcshim: make | make test | make demo | make bench | make deps
#          make CROSS=aarch64-linux-gnu-   (everything for arm64, in build/aarch64-linux-gnu)
#          make test-vm                     (the hardware suite in an arm64 QEMU guest)
CC      ?= cc
CXX     ?= c++
CFLAGS  ?= -O2 -g
# -Werror for the project's own builds (a git checkout: development, CI,
# tests), not for `make install` nor a copy without .git, where a newer
# compiler's new warning must not stop a user's build. WERROR=0/1 decides.
ifneq ($(filter install,$(MAKECMDGOALS)),)
WERROR  ?= 0
endif
WERROR  ?= $(if $(wildcard .git),1,0)
WARN    := -std=c11 -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror)
DEFS    := -D_GNU_SOURCE
B       := build
OBJCOPY ?= objcopy
CROSS   ?=
ifneq ($(CROSS),)
CC      := $(CROSS)gcc
CXX     := $(CROSS)g++
OBJCOPY := $(CROSS)objcopy
B       := build/$(patsubst %-,%,$(CROSS))
endif

# preload/<role>/<concept>.c, one object each in $(B)/shim/<role>/ (the
# roles and their allowed directions: docs/design.md, "Layout").
SHIM_SRC := $(wildcard preload/*/*.c)
SHIM_HDR := $(wildcard preload/*/*.h) include/pmcshim.h
# Header dependencies, tracked by the compiler (the .d files beside the objects).
DEPFLAGS := -MMD -MP
SHIM_CFLAGS := $(WARN) $(DEFS) $(CFLAGS) $(DEPFLAGS) -Ipreload -fPIC -fvisibility=hidden -fno-omit-frame-pointer \
               -ftls-model=initial-exec -pthread
# libunwind is dlopen()ed (RTLD_LOCAL), never linked: see preload/stacks/stacks.c.
# -z now: no lazy symbol binding inside a measured region's first call.
# -z nodelete: once loaded, never unmapped; a host that dlopens and
# dlcloses the shim still has threads whose exit runs the shim's pthread
# key destructor, and a process end that runs its destructor.
SHIM_LIBS := -ldl -pthread -Wl,-z,now -Wl,-z,nodelete

APP_CFLAGS := $(WARN) $(DEFS) $(CFLAGS) -Iinclude -pthread

.PHONY: all test demo bench deps clean check-deps print-test-deps
all: $(B)/.deps-ok $(B)/libpmcshim.so $(B)/pmcshim-report $(B)/demo

# --- dependencies ---------------------------------------------------------
# Checked by package (tools/build/deps.sh) once, then remembered in a stamp until
# this Makefile changes. `make demo` and `make test` run as root install
# what is missing, saying what; otherwise the build stops with the one
# apt-get line to run. `make check-deps` checks again; `make deps` installs
# everything, the tests' packages too.
# The build (make, make demo, make install): a C compiler and elfutils for
# the reader's symbols; libunwind (loaded at run time, the stacks) comes
# with its -dev package. libpfm4-dev is optional: without its headers the
# shim is built without native event names (preload/counters/nopfm/pfm.c).
BUILD_DEB_DEPS := gcc make libc6-dev libunwind-dev libdw-dev libelf-dev uthash-dev
# make test alone: C++, the JSON reader of the C suites, the fuzzer (clang),
# native names, the man and pkg-config checks, the arm64 guest (QEMU, the
# cross compiler and libc, the arm64 architecture), Python and Fortran
# markers, MPI and OpenMP runtimes, Chromium and perf for the suites that
# run them. Suites' makefiles may add theirs (TEST_DEB_DEPS +=).
TEST_DEB_DEPS += g++ libjansson-dev clang libclang-rt-14-dev libpfm4-dev libpfm4 pkg-config man-db \
	qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross cpio python3 gfortran \
	libopenmpi-dev openmpi-bin libmpich-dev mpich libomp-dev chromium nodejs linux-perf
DEPS_INSTALL := $(if $(filter demo test,$(MAKECMDGOALS)),--install)

$(B)/.deps-ok: Makefile tools/build/deps.sh
	@mkdir -p $(@D)
	@sh tools/build/deps.sh $(DEPS_INSTALL) $(BUILD_DEB_DEPS) && touch $@

# After the build's check, never beside it: two apt-get runs at once fail
# on each other's lock (make -j test on a fresh machine).
$(B)/.test-deps-ok: Makefile tools/build/deps.sh | $(B)/.deps-ok
	@mkdir -p $(@D)
	@sh tools/build/deps.sh $(DEPS_INSTALL) --arm64 $(TEST_DEB_DEPS) && touch $@

check-deps:
	@sh tools/build/deps.sh $(BUILD_DEB_DEPS) && echo "deps: all installed"

deps:
	@sh tools/build/deps.sh --install --arm64 $(BUILD_DEB_DEPS) $(TEST_DEB_DEPS)

# What only the tests need, one a line (tests/install tells the build's
# check these are missing).
print-test-deps:
	@printf '%s\n' $(TEST_DEB_DEPS)

# --- shim -----------------------------------------------------------------
$(B)/shim/%.o: preload/%.c $(SHIM_HDR) | $(B)/shim
	@mkdir -p $(@D)
	$(CC) $(SHIM_CFLAGS) -c $< -o $@

$(B)/libpmcshim.so: $(SHIM_SRC:preload/%.c=$(B)/shim/%.o) Makefile
	$(CC) -shared -o $@ $(filter %.o,$^) $(SHIM_LIBS)

$(B)/shim:
	mkdir -p $@

# Native names need libpfm4's headers, the build's one optional package;
# without them the stand-in says so when a native name is asked for. The
# choice (pfm or nopfm) is looked at again at every build, after the
# dependency checks, and kept in a stamp that changes only when it does:
# headers that appear later (make demo, then make test, which installs
# them) or go away rebuild pfm.o.
PFM_CHOICE := $(B)/shim/pfm-choice
$(PFM_CHOICE): FORCE | $(B)/shim $(B)/.deps-ok $(if $(filter test,$(MAKECMDGOALS)),$(B)/.test-deps-ok)
	@c=nopfm; printf '\043include <perfmon/pfmlib_perf_event.h>\n' | \
	  $(CC) -E -x c - >/dev/null 2>&1 && c=pfm; \
	  [ "$$(cat $@ 2>/dev/null)" = "$$c" ] || echo "$$c" >$@

$(B)/shim/counters/pfm.o: preload/counters/pfm.c preload/counters/nopfm/pfm.c $(SHIM_HDR) $(PFM_CHOICE)
	@mkdir -p $(@D)
	@src=preload/counters/pfm.c; [ "$$(cat $(PFM_CHOICE))" = pfm ] || src=preload/counters/nopfm/pfm.c; \
	  echo "$(CC) $(SHIM_CFLAGS) -c $$src -o $@"; \
	  $(CC) $(SHIM_CFLAGS) -c $$src -o $@

.PHONY: FORCE
FORCE:

# --- tools and example ----------------------------------------------------
# The reader's rules: tools/reader/reader.mk.

$(B)/demo: examples/demo.c include/pmcshim.h | $(B)/shim
	$(CC) $(APP_CFLAGS) -o $@ $< -ldl

# Through the launcher: one notice, the table without columns that cannot
# count here; the run directory is left in $(B).
demo: all $(B)/pmcshim
	@cd $(B) && ./pmcshim ./demo

clean:
	rm -rf $(B)

include tests/tests.mk
include tools/reader/reader.mk
include tools/launcher/launcher.mk
include install.mk
include tests/scopes/scopes.mk
include tests/table/table.mk
include tests/system/system.mk
include tests/python/python.mk
include tests/fortran/fortran.mk
include tests/docs/docs.mk
include tests/layout/layout.mk
include tests/readme/readme.mk
include tests/sources/sources.mk
include tests/sample/sample.mk
include tests/annot/annot.mk
-include tests/symbolize/symbolize.mk
include tests/names/names.mk
include tests/vm/vm.mk
include tests/defaults/defaults.mk

# Every object waits for the dependency check (order only: a parallel build
# must not compile before missing packages are installed); the .d files
# add each object's headers.
# `make test` installs the tests' packages first (libpfm4-dev among them).
$(SHIM_SRC:preload/%.c=$(B)/shim/%.o) $(READER_OBJ) $(LAUNCH_OBJ): | $(B)/.deps-ok \
	$(if $(filter test,$(MAKECMDGOALS)),$(B)/.test-deps-ok)
-include $(wildcard $(B)/shim/*/*.d $(B)/tools/*/*.d $(B)/tools/*/*/*.d $(B)/launcher/*/*.d)

# Defined after every include: each adds to TEST_BINS (what `make test`
# builds) and to EXTRA_SUITES ("label=command+arg", run by tests/run.sh).
# (the build's own outputs, which some suites list, excepted: make install
# must not wait for the tests' packages)
$(filter-out $(B)/libpmcshim.so $(B)/pmcshim $(B)/pmcshim-report $(B)/demo,$(TEST_BINS)): \
	| $(B)/.test-deps-ok
test: all $(TEST_BINS)
	@CC="$(CC)" B="$(B)" UNIT_TESTS="$(UNIT_TESTS)" EXTRA_SUITES="$(EXTRA_SUITES)" \
	  sh tests/run.sh

# Build every test without running it (e.g. with CROSS=...).
build-tests: all $(TEST_BINS)

.PHONY: test build-tests
