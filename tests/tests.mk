# Tests: unit tests (C), integration tests (real programs under LD_PRELOAD),
# and the integration tests again with the shim built under ASan+UBSan and
# under TSan. `make test` runs them all through tests/run.sh.

TEST_CFLAGS := $(WARN) $(DEFS) -O1 -g -pthread -Ipreload
UNIT_TESTS  := selfread events regions fpwalk cfi
UNIT_BINS   := $(UNIT_TESTS:%=$(B)/tests/test_%)
APP_NAMES   := threads behaviour unbalanced backtrace forks exits lazy ends fdapp mallocmark \
	namelimit plugins unloads dlshim badids moves
APP_BINS    := $(APP_NAMES:%=$(B)/tests/apps/%) $(B)/tests/apps/cxx \
	$(B)/tests/apps/plugin-a.so $(B)/tests/apps/plugin-b.so
# -rdynamic: dladdr() can then name the apps' functions in stacks.
APP_FLAGS   := $(WARN) $(DEFS) -O1 -g -Iinclude -pthread -rdynamic

SHIM_OBJS = $(SHIM_SRC:preload/%.c=$(B)/shim/%.o)

$(B)/tests/apps:
	mkdir -p $@

# Unit tests link the modules, not the entry points (constructor,
# interposed pthread_create, the MPI wrappers, the compiler's and OpenMP's
# hooks).
UNIT_OBJS = $(filter-out $(B)/shim/lifecycle/% $(B)/shim/sources/%,$(SHIM_OBJS))

$(B)/tests/test_%: tests/test_%.c tests/harness.h $(UNIT_OBJS) | $(B)/tests/apps
	$(CC) $(TEST_CFLAGS) -o $@ $< $(UNIT_OBJS) -ldl -lm

$(B)/tests/test_integration: tests/test_integration.c tests/runapp.c tests/runapp.h \
		tests/harness.h | $(B)/tests/apps
	$(CC) $(TEST_CFLAGS) -o $@ tests/test_integration.c tests/runapp.c -ljansson

# Lifecycle: how processes end, live reads, descriptors (reads files with
# the report file's own code).
$(B)/tests/test_lifecycle: tests/test_lifecycle.c tests/runapp.c tests/runapp.h \
		tests/harness.h preload/format/reportfile.c preload/format/reportfile.h | $(B)/tests/apps
	$(CC) $(TEST_CFLAGS) -o $@ tests/test_lifecycle.c tests/runapp.c preload/format/reportfile.c \
	  -ljansson

$(B)/tests/apps/%: tests/apps/%.c include/pmcshim.h | $(B)/tests/apps
	$(CC) $(APP_FLAGS) -o $@ $< -ldl

# The plugins app's two plugins: one source, a name each.
$(B)/tests/apps/plugin-%.so: tests/apps/plugin.c include/pmcshim.h | $(B)/tests/apps
	$(CC) $(APP_FLAGS) -fPIC -shared -DPLUGIN_NAME='"plugin-$(if $(filter a,$*),alpha,bravo)"' \
	  -o $@ $<

# The stack-method test's application, with and without frame pointers.
$(B)/tests/apps/fpchain-fp: tests/apps/fpchain.c include/pmcshim.h | $(B)/tests/apps
	$(CC) $(APP_FLAGS) -O2 -fno-omit-frame-pointer -o $@ $< -ldl

$(B)/tests/apps/fpchain-nofp: tests/apps/fpchain.c include/pmcshim.h | $(B)/tests/apps
	$(CC) $(APP_FLAGS) -O2 -fomit-frame-pointer -o $@ $< -ldl

# The differential tests' applications: code mixing frames with and
# without frame records (mixed.c) and C++ with exceptions (throws.cpp), at
# -O0, -O2 and -O3, with (-fp) and without frame pointers: mixed-O2-fp
# is mixed.c at -O2 -fno-omit-frame-pointer.
STACK_OPT = -$(firstword $(subst -, ,$*)) \
	$(if $(findstring -fp,$*),-fno-omit-frame-pointer,-fomit-frame-pointer)
MIXED_BINS := $(foreach o,O0 O2 O3,$(B)/tests/apps/mixed-$(o) $(B)/tests/apps/mixed-$(o)-fp \
	$(B)/tests/apps/throws-$(o)) $(B)/tests/apps/throws-O2-fp

$(B)/tests/apps/mixed-%: tests/apps/mixed.c include/pmcshim.h | $(B)/tests/apps
	$(CC) $(APP_FLAGS) $(STACK_OPT) -o $@ $< -ldl

$(B)/tests/apps/throws-%: tests/apps/throws.cpp include/pmcshim.h | $(B)/tests/apps
	$(CXX) -std=c++11 -Wall -Wextra -Werror -g -Iinclude -rdynamic $(STACK_OPT) -o $@ $< -ldl

$(B)/tests/test_stack_methods: tests/test_stack_methods.c tests/runapp.c tests/runapp.h \
		tests/stackrows.c tests/stackrows.h \
		tests/harness.h | $(B)/tests/apps
	$(CC) $(TEST_CFLAGS) -o $@ tests/test_stack_methods.c tests/runapp.c tests/stackrows.c \
	  -ljansson

$(B)/tests/apps/cxx: tests/apps/cxx.cpp include/pmcshim.h | $(B)/tests/apps
	$(CXX) -std=c++11 -Wall -Wextra -Werror -O1 -g -Iinclude -rdynamic -o $@ $< -ldl

# --- sanitizer builds -------------------------------------------------------
ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# frame pointers: the shim's stack walk needs its own frames to chain
TSAN_FLAGS := -fsanitize=thread -fno-omit-frame-pointer

$(B)/asan/libpmcshim.so: $(SHIM_SRC) $(SHIM_HDR)
	mkdir -p $(@D)
	$(CC) $(WARN) $(DEFS) -Ipreload -O1 -g -fPIC -fvisibility=hidden -ftls-model=initial-exec \
	  -pthread $(ASAN_FLAGS) -shared -o $@ $(SHIM_SRC) $(SHIM_LIBS)

$(B)/tsan/libpmcshim.so: $(SHIM_SRC) $(SHIM_HDR)
	mkdir -p $(@D)
	$(CC) $(WARN) $(DEFS) -Ipreload -O1 -g -fPIC -fvisibility=hidden -ftls-model=initial-exec \
	  -pthread $(TSAN_FLAGS) -shared -o $@ $(SHIM_SRC) $(SHIM_LIBS)

# TSan needs the applications instrumented too.
$(B)/tsan/apps/%: tests/apps/%.c include/pmcshim.h
	mkdir -p $(@D)
	$(CC) $(APP_FLAGS) $(TSAN_FLAGS) -o $@ $< -ldl

TSAN_APPS := threads exits forks ends unloads fdapp dlshim moves unbalanced

$(B)/tsan/apps/hammer: tests/apps/hammer.c preload/format/reportfile.c preload/format/reportfile.h include/pmcshim.h
	mkdir -p $(@D)
	$(CC) $(APP_FLAGS) $(TSAN_FLAGS) -Ipreload -o $@ tests/apps/hammer.c preload/format/reportfile.c -ldl
TEST_BINS := $(UNIT_BINS) $(B)/tests/test_integration $(B)/tests/test_lifecycle $(APP_BINS) \
	$(B)/tests/apps/hammer $(B)/rfdump
ifeq ($(CROSS),)
TEST_BINS += $(B)/asan/libpmcshim.so $(B)/tsan/libpmcshim.so $(TSAN_APPS:%=$(B)/tsan/apps/%) \
	$(B)/tsan/apps/hammer

# Frame-pointer stacks against libunwind's; again with the ASan+UBSan
# shim, whose walk then runs instrumented.
TEST_BINS += $(B)/tests/test_stack_methods $(B)/tests/apps/fpchain-fp $(B)/tests/apps/fpchain-nofp \
	$(MIXED_BINS)
ASAN_RT = $(shell $(CC) -print-file-name=libasan.so)
EXTRA_SUITES += stacks=$(B)/tests/test_stack_methods
EXTRA_SUITES += stacks-asan=env+PMCSHIM_TEST_SUITE=stacks-asan+PMCSHIM_TEST_SHIM=$(B)/asan/libpmcshim.so+PMCSHIM_TEST_PRELOAD_FIRST=$(ASAN_RT)+ASAN_OPTIONS=detect_leaks=1:exitcode=86+UBSAN_OPTIONS=halt_on_error=1:exitcode=87+$(B)/tests/test_stack_methods
# MPI (tests/mpi/run.sh): Open MPI and MPICH, each built and run there.
EXTRA_SUITES += mpi=sh+tests/mpi/run.sh
endif


# rfdump: the records of a report file, one per line (for the tests and
# for looking at a file below the reader).
$(B)/rfdump: tests/rfdump.c preload/format/reportfile.c preload/format/reportfile.h
	$(CC) $(TEST_CFLAGS) -o $@ tests/rfdump.c preload/format/reportfile.c

# --- benchmark (not part of the tests) ----------------------------------------
# Built with frame pointers, and (-nofp) as most code is, without: at
# depth 8 both walk the unwind tables on x86-64; a run forces libunwind.
$(B)/bench-markers: tests/bench/markers.c include/pmcshim.h
	$(CC) $(WARN) $(DEFS) -O2 -g -fno-omit-frame-pointer -Iinclude -o $@ $< -ldl

# A function call under -finstrument-functions against a call of a
# function with a marker pair, at the same depth.
$(B)/bench-functions: tests/bench/functions.c include/pmcshim.h
	$(CC) $(WARN) $(DEFS) -O2 -g -fno-omit-frame-pointer -finstrument-functions -Iinclude \
	  -o $@ $< -ldl

$(B)/bench-markers-nofp: tests/bench/markers.c include/pmcshim.h
	$(CC) $(WARN) $(DEFS) -O2 -g -fomit-frame-pointer -Iinclude -o $@ $< -ldl

# The markers' cost (part of `make bench`; docs/figures/bench-markers.txt).
bench-markers: all $(B)/bench-markers $(B)/bench-markers-nofp $(B)/bench-functions
	@rm -rf $(B)/tmp/bench && mkdir -p $(B)/tmp/bench
	@echo "== marker cost (this machine: $$(nproc) cores; counters: PMCSHIM_EVENTS=$${PMCSHIM_EVENTS-unset: the machine's defaults})"
	@$(B)/bench-markers
	@echo; PMCSHIM_QUIET=1 PMCSHIM_OUTPUT=$(B)/tmp/bench/ PMCSHIM_STACK_DEPTH=0 \
	  LD_PRELOAD=$(CURDIR)/$(B)/libpmcshim.so $(B)/bench-markers 2>/dev/null
	@echo; echo "built with -fno-omit-frame-pointer:"; \
	  PMCSHIM_QUIET=1 PMCSHIM_OUTPUT=$(B)/tmp/bench/ PMCSHIM_STACK_DEPTH=8 \
	  LD_PRELOAD=$(CURDIR)/$(B)/libpmcshim.so $(B)/bench-markers 2>/dev/null
	@echo; echo "built without frame pointers (plain -O2):"; \
	  PMCSHIM_QUIET=1 PMCSHIM_OUTPUT=$(B)/tmp/bench/ PMCSHIM_STACK_DEPTH=8 \
	  LD_PRELOAD=$(CURDIR)/$(B)/libpmcshim.so $(B)/bench-markers-nofp 2>/dev/null
	@echo; echo "built without frame pointers, PMCSHIM_STACK_METHOD=unwind (libunwind):"; \
	  PMCSHIM_QUIET=1 PMCSHIM_OUTPUT=$(B)/tmp/bench/ PMCSHIM_STACK_DEPTH=8 \
	  PMCSHIM_STACK_METHOD=unwind \
	  LD_PRELOAD=$(CURDIR)/$(B)/libpmcshim.so $(B)/bench-markers-nofp 2>/dev/null
	@echo; echo "built with -fno-omit-frame-pointer, PMCSHIM_STACK_METHOD=fp (the frame-pointer walk):"; \
	  PMCSHIM_QUIET=1 PMCSHIM_OUTPUT=$(B)/tmp/bench/ PMCSHIM_STACK_DEPTH=8 \
	  PMCSHIM_STACK_METHOD=fp \
	  LD_PRELOAD=$(CURDIR)/$(B)/libpmcshim.so $(B)/bench-markers 2>/dev/null
	@echo; echo "PMCSHIM_SERIALIZE=1 (a barrier before and after each marker's reads):"; \
	  PMCSHIM_QUIET=1 PMCSHIM_OUTPUT=$(B)/tmp/bench/ PMCSHIM_STACK_DEPTH=0 PMCSHIM_SERIALIZE=1 \
	  LD_PRELOAD=$(CURDIR)/$(B)/libpmcshim.so $(B)/bench-markers 2>/dev/null
	@echo; echo "== -finstrument-functions: cost per instrumented call against a marker pair"
	@for cfg in PMCSHIM_STACK_DEPTH=0 PMCSHIM_STACK_DEPTH=8 \
	    "PMCSHIM_STACK_DEPTH=0 PMCSHIM_FUNCTIONS=main"; do echo; echo "$$cfg:"; \
	  env $$cfg PMCSHIM_QUIET=1 PMCSHIM_OUTPUT=$(B)/tmp/bench/ \
	    LD_PRELOAD=$(CURDIR)/$(B)/libpmcshim.so $(B)/bench-functions 2>/dev/null; done
	@rm -rf $(B)/tmp/bench

# The function hooks on a Lua-like program against gprof and uftrace
# (tests/bench/functions.sh): the program built plainly, with
# -finstrument-functions and with -pg.
$(B)/bench-interp: tests/bench/interp.c
	$(CC) $(WARN) $(DEFS) -O2 -g -o $@ $<

$(B)/bench-interp-fi: tests/bench/interp.c
	$(CC) $(WARN) $(DEFS) -O2 -g -finstrument-functions -o $@ $<

$(B)/bench-interp-pg: tests/bench/interp.c
	$(CC) $(WARN) $(DEFS) -O2 -g -pg -o $@ $<

bench-functions: all $(B)/bench-interp $(B)/bench-interp-fi $(B)/bench-interp-pg
	@B=$(B) sh tests/bench/functions.sh

# The same on Lua 5.4 from Debian's source (LUA_SRC, else apt-get source),
# with perf record's top functions beside pmcshim's. Not part of `bench`.
bench-lua: all
	@B=$(B) sh tests/bench/lua.sh

# Memory per marking thread: 1000 live threads, without the shim, then
# under it at depth 0, at depth 8 (the unwind tables) built with and
# without frame pointers, and at depth 8 with libunwind.
$(B)/bench-threads-rss: tests/bench/threads_rss.c include/pmcshim.h
	$(CC) $(WARN) $(DEFS) -O2 -g -fno-omit-frame-pointer -Iinclude -pthread -o $@ $< -ldl

$(B)/bench-threads-rss-nofp: tests/bench/threads_rss.c include/pmcshim.h
	$(CC) $(WARN) $(DEFS) -O2 -g -fomit-frame-pointer -Iinclude -pthread -o $@ $< -ldl

bench-threads: all $(B)/bench-threads-rss $(B)/bench-threads-rss-nofp
	@mkdir -p $(B)/tmp/bench
	@echo "== memory per marking thread (RSS, 1000 live threads)"
	@printf '%-50s ' "without the shim"; $(B)/bench-threads-rss 1000
	@for cfg in PMCSHIM_STACK_DEPTH=0 PMCSHIM_STACK_DEPTH=8 \
	    "PMCSHIM_STACK_DEPTH=8 PMCSHIM_STACK_METHOD=unwind"; do \
	  printf '%-50s ' "$$cfg"; env $$cfg PMCSHIM_QUIET=1 PMCSHIM_OUTPUT=$(B)/tmp/bench/ \
	    LD_PRELOAD=$(CURDIR)/$(B)/libpmcshim.so $(B)/bench-threads-rss 1000 2>/dev/null; done
	@printf '%-50s ' "PMCSHIM_STACK_DEPTH=8, no frame pointers"; \
	  PMCSHIM_STACK_DEPTH=8 PMCSHIM_QUIET=1 PMCSHIM_OUTPUT=$(B)/tmp/bench/ \
	  LD_PRELOAD=$(CURDIR)/$(B)/libpmcshim.so $(B)/bench-threads-rss-nofp 1000 2>/dev/null
	@rm -rf $(B)/tmp/bench

# Distinct run-time names: 125k to 1M, each size in a fresh process,
# without the shim and under it (default settings). Not part of `bench`:
# it takes about a minute.
$(B)/bench-names: tests/bench/names.c include/pmcshim.h
	$(CC) $(WARN) $(DEFS) -O2 -g -fno-omit-frame-pointer -Iinclude -o $@ $< -ldl

bench-names: all $(B)/bench-names
	@rm -rf $(B)/tmp/bench-names && mkdir -p $(B)/tmp/bench-names
	@echo "== distinct run-time names (this machine: $$(nproc) cores; PMCSHIM_STACK_DEPTH=$${PMCSHIM_STACK_DEPTH-8})"
	@PMCSHIM_QUIET=1 PMCSHIM_OUTPUT=$(B)/tmp/bench-names/ \
	  $(B)/bench-names $(CURDIR)/$(B)/libpmcshim.so
	@rm -rf $(B)/tmp/bench-names

# What the descriptor check costs each read() (counters.c: still_ours),
# against the read alone.
$(B)/bench-fdcheck: tests/bench/fdcheck.c
	$(CC) $(WARN) $(DEFS) -O2 -g -o $@ $<

bench-fdcheck: $(B)/bench-fdcheck
	@echo "== the counter descriptor's check on the read() path (this machine: $$(nproc) cores)"
	@$(B)/bench-fdcheck


# What the shim adds to a process that does nothing (/bin/true) and to a
# thread that starts, marks once at depth 8 and ends, each against the
# same without the shim in the same run.
$(B)/bench-starts: tests/bench/starts.c include/pmcshim.h
	$(CC) $(WARN) $(DEFS) -O2 -g -Iinclude -pthread -o $@ $< -ldl

bench-starts: all $(B)/bench-starts
	@rm -rf $(B)/tmp/bench-starts && mkdir -p $(B)/tmp/bench-starts
	@echo "== starting processes and threads (default settings: depth 8, PMCSHIM_EVENTS=$${PMCSHIM_EVENTS-unset: the machine's defaults})"
	@PMCSHIM_QUIET=1 PMCSHIM_OUTPUT=$(B)/tmp/bench-starts/ \
	  $(B)/bench-starts $(CURDIR)/$(B)/libpmcshim.so
	@rm -rf $(B)/tmp/bench-starts

bench: bench-markers bench-threads bench-starts bench-fdcheck

.PHONY: bench bench-markers bench-functions bench-lua bench-threads bench-names bench-starts bench-fdcheck

# hammer reads its own report file while its threads write it.
$(B)/tests/apps/hammer: tests/apps/hammer.c preload/format/reportfile.c preload/format/reportfile.h \
		include/pmcshim.h | $(B)/tests/apps
	$(CC) $(APP_FLAGS) -Ipreload -o $@ tests/apps/hammer.c preload/format/reportfile.c -ldl

# early: a library constructor marks before the shim's constructor runs.
$(B)/tests/apps/libearly.so: tests/apps/libearly.c include/pmcshim.h | $(B)/tests/apps
	$(CC) $(APP_FLAGS) -fPIC -shared -o $@ $< -ldl

$(B)/tests/apps/early: tests/apps/early.c $(B)/tests/apps/libearly.so | $(B)/tests/apps
	$(CC) $(APP_FLAGS) -o $@ $< -L$(B)/tests/apps -learly -Wl,-rpath,'$$ORIGIN' -ldl

TEST_BINS += $(B)/tests/apps/early
