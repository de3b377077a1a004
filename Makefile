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

SHIM_SRC := $(wildcard preload/*.c)
SHIM_HDR := $(wildcard preload/*.h) include/pmcshim.h
SHIM_CFLAGS := $(WARN) $(DEFS) $(CFLAGS) -fPIC -fvisibility=hidden \
               -ftls-model=initial-exec -pthread
# libunwind is dlopen()ed (RTLD_LOCAL), never linked: see preload/stacks.c.
# -z now: no lazy symbol binding inside a measured region's first call.
SHIM_LIBS := -ldl -pthread -Wl,-z,now

APP_CFLAGS := $(WARN) $(DEFS) $(CFLAGS) -Iinclude -pthread

.PHONY: all test demo bench deps clean check-deps
all: check-deps $(B)/libpmcshim.so $(B)/pmcshim-report $(B)/demo

# --- dependencies ---------------------------------------------------------
DEB_DEPS := libunwind-dev uthash-dev libjansson-dev libdw-dev libelf-dev clang libclang-rt-14-dev libpfm4-dev
check-deps:
	@missing=""; for h in libunwind.h uthash.h jansson.h elfutils/libdwfl.h perfmon/pfmlib_perf_event.h; do \
	  echo "#include <$$h>" | $(CC) -E -x c - >/dev/null 2>&1 || missing="$$missing $$h"; done; \
	if [ -n "$$missing" ]; then echo "missing headers:$$missing -- run 'make deps'" \
	  "(or: apt-get install $(DEB_DEPS))"; exit 1; fi

deps:
	@if [ "$$(id -u)" = 0 ]; then apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEB_DEPS) libunwind8 gcc make; \
	else echo "run as root, or: sudo apt-get install $(DEB_DEPS)"; fi

# --- shim -----------------------------------------------------------------
$(B)/shim/%.o: preload/%.c $(SHIM_HDR) | $(B)/shim
	$(CC) $(SHIM_CFLAGS) -c $< -o $@

$(B)/libpmcshim.so: $(SHIM_SRC:preload/%.c=$(B)/shim/%.o) Makefile
	$(CC) -shared -o $@ $(filter %.o,$^) $(SHIM_LIBS)

$(B)/shim:
	mkdir -p $@

# --- tools and example ----------------------------------------------------
# The reader's rules: tools/tools.mk.

$(B)/demo: examples/demo.c include/pmcshim.h | $(B)/shim
	$(CC) $(APP_CFLAGS) -o $@ $< -ldl

demo: all
	@cd $(B) && rm -f pmcshim-demo-*.json && \
	  LD_PRELOAD=$(CURDIR)/$(B)/libpmcshim.so ./demo && \
	  ./pmcshim-report pmcshim-demo-*.json

clean:
	rm -rf $(B)

include tests/tests.mk
include tools/tools.mk
include tools/launcher.mk
include install.mk
include tests/scopes/scopes.mk
include tests/table/table.mk
-include tests/symbolize/symbolize.mk
include tests/vm/vm.mk

# Defined after every include: each adds to TEST_BINS (what `make test`
# builds) and to EXTRA_SUITES ("label=command+arg", run by tests/run.sh).
test: all $(TEST_BINS)
	@CC="$(CC)" B="$(B)" UNIT_TESTS="$(UNIT_TESTS)" EXTRA_SUITES="$(EXTRA_SUITES)" \
	  sh tests/run.sh

# Build every test without running it (e.g. with CROSS=...).
build-tests: all $(TEST_BINS)

.PHONY: test build-tests
