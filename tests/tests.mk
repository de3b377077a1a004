# Tests: unit tests (C), integration tests (real programs under LD_PRELOAD),
# and the integration tests again with the shim built under ASan+UBSan and
# under TSan. `make test` runs them all through tests/run.sh.

TEST_CFLAGS := $(WARN) $(DEFS) -O1 -g -pthread
UNIT_TESTS  := selfread events json regions
UNIT_BINS   := $(UNIT_TESTS:%=$(B)/tests/test_%)
APP_NAMES   := threads behaviour unbalanced backtrace forks exits lazy
APP_BINS    := $(APP_NAMES:%=$(B)/tests/apps/%) $(B)/tests/apps/cxx
# -rdynamic: dladdr() can then name the apps' functions in stacks.
APP_FLAGS   := $(WARN) $(DEFS) -O1 -g -Iinclude -pthread -rdynamic

SHIM_OBJS = $(SHIM_SRC:preload/%.c=$(B)/shim/%.o)

$(B)/tests/apps:
	mkdir -p $@

# Unit tests link the modules, not the entry points (constructor,
# interposed pthread_create).
UNIT_OBJS = $(filter-out $(B)/shim/shim.o $(B)/shim/threads.o $(B)/shim/fork.o \
	$(B)/shim/report.o,$(SHIM_OBJS))

$(B)/tests/test_%: tests/test_%.c tests/harness.h $(UNIT_OBJS) | $(B)/tests/apps
	$(CC) $(TEST_CFLAGS) -o $@ $< $(UNIT_OBJS) -ldl -lm

$(B)/tests/test_integration: tests/test_integration.c tests/runapp.c tests/runapp.h \
		tests/harness.h | $(B)/tests/apps
	$(CC) $(TEST_CFLAGS) -o $@ tests/test_integration.c tests/runapp.c -ljansson

$(B)/tests/apps/%: tests/apps/%.c include/pmcshim.h | $(B)/tests/apps
	$(CC) $(APP_FLAGS) -o $@ $< -ldl

# The stack-method test's application, with and without frame pointers.
$(B)/tests/apps/fpchain-fp: tests/apps/fpchain.c include/pmcshim.h | $(B)/tests/apps
	$(CC) $(APP_FLAGS) -O2 -fno-omit-frame-pointer -o $@ $< -ldl

$(B)/tests/apps/fpchain-nofp: tests/apps/fpchain.c include/pmcshim.h | $(B)/tests/apps
	$(CC) $(APP_FLAGS) -O2 -fomit-frame-pointer -o $@ $< -ldl

$(B)/tests/test_stack_methods: tests/test_stack_methods.c tests/runapp.c tests/runapp.h \
		tests/harness.h | $(B)/tests/apps
	$(CC) $(TEST_CFLAGS) -o $@ tests/test_stack_methods.c tests/runapp.c -ljansson

$(B)/tests/apps/cxx: tests/apps/cxx.cpp include/pmcshim.h | $(B)/tests/apps
	$(CXX) -std=c++11 -Wall -Wextra -Werror -O1 -g -Iinclude -rdynamic -o $@ $< -ldl

# --- sanitizer builds -------------------------------------------------------
ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# frame pointers: the shim's stack walk needs its own frames to chain
TSAN_FLAGS := -fsanitize=thread -fno-omit-frame-pointer

$(B)/asan/libpmcshim.so: $(SHIM_SRC) $(SHIM_HDR)
	mkdir -p $(@D)
	$(CC) $(WARN) $(DEFS) -O1 -g -fPIC -fvisibility=hidden -ftls-model=initial-exec \
	  -pthread $(ASAN_FLAGS) -shared -o $@ $(SHIM_SRC) $(SHIM_LIBS)

$(B)/tsan/libpmcshim.so: $(SHIM_SRC) $(SHIM_HDR)
	mkdir -p $(@D)
	$(CC) $(WARN) $(DEFS) -O1 -g -fPIC -fvisibility=hidden -ftls-model=initial-exec \
	  -pthread $(TSAN_FLAGS) -shared -o $@ $(SHIM_SRC) $(SHIM_LIBS)

# TSan needs the applications instrumented too.
$(B)/tsan/apps/%: tests/apps/%.c include/pmcshim.h
	mkdir -p $(@D)
	$(CC) $(APP_FLAGS) $(TSAN_FLAGS) -o $@ $< -ldl

TSAN_APPS := threads exits forks
TEST_BINS := $(UNIT_BINS) $(B)/tests/test_integration $(APP_BINS)
ifeq ($(CROSS),)
TEST_BINS += $(B)/asan/libpmcshim.so $(B)/tsan/libpmcshim.so $(TSAN_APPS:%=$(B)/tsan/apps/%)

# Frame-pointer stacks against libunwind's; again with the ASan+UBSan
# shim, whose walk then runs instrumented.
TEST_BINS += $(B)/tests/test_stack_methods $(B)/tests/apps/fpchain-fp $(B)/tests/apps/fpchain-nofp
ASAN_RT = $(shell $(CC) -print-file-name=libasan.so)
EXTRA_SUITES += stacks=$(B)/tests/test_stack_methods
EXTRA_SUITES += stacks-asan=env+PMCSHIM_TEST_SUITE=stacks-asan+PMCSHIM_TEST_SHIM=$(B)/asan/libpmcshim.so+PMCSHIM_TEST_PRELOAD_FIRST=$(ASAN_RT)+ASAN_OPTIONS=detect_leaks=1:exitcode=86+UBSAN_OPTIONS=halt_on_error=1:exitcode=87+$(B)/tests/test_stack_methods
endif


# --- benchmark (not part of the tests) ----------------------------------------
# Built with frame pointers, as an application that wants cheap stacks is:
# depth 8 is then a frame-pointer walk; the last run forces libunwind.
$(B)/bench-markers: tests/bench/markers.c include/pmcshim.h
	$(CC) $(WARN) $(DEFS) -O2 -g -fno-omit-frame-pointer -Iinclude -o $@ $< -ldl

bench: all $(B)/bench-markers
	@echo "== marker cost (this machine: $$(nproc) cores; counters: PMCSHIM_EVENTS=$${PMCSHIM_EVENTS-instructions,cycles})"
	@$(B)/bench-markers
	@echo; PMCSHIM_QUIET=1 PMCSHIM_OUTPUT=/dev/null/x PMCSHIM_STACK_DEPTH=0 \
	  LD_PRELOAD=$(CURDIR)/$(B)/libpmcshim.so $(B)/bench-markers 2>/dev/null
	@echo; PMCSHIM_QUIET=1 PMCSHIM_OUTPUT=/dev/null/x PMCSHIM_STACK_DEPTH=8 \
	  LD_PRELOAD=$(CURDIR)/$(B)/libpmcshim.so $(B)/bench-markers 2>/dev/null
	@echo; PMCSHIM_QUIET=1 PMCSHIM_OUTPUT=/dev/null/x PMCSHIM_STACK_DEPTH=8 \
	  PMCSHIM_STACK_METHOD=unwind \
	  LD_PRELOAD=$(CURDIR)/$(B)/libpmcshim.so $(B)/bench-markers 2>/dev/null

# Memory per marking thread: 1000 live threads, without the shim, then
# under it at depth 0, at depth 8 (the walk) and at depth 8 with libunwind.
$(B)/bench-threads-rss: tests/bench/threads_rss.c include/pmcshim.h
	$(CC) $(WARN) $(DEFS) -O2 -g -fno-omit-frame-pointer -Iinclude -pthread -o $@ $< -ldl

bench-threads: all $(B)/bench-threads-rss
	@echo "== memory per marking thread (RSS, 1000 live threads)"
	@printf '%-50s ' "without the shim"; $(B)/bench-threads-rss 1000
	@for cfg in PMCSHIM_STACK_DEPTH=0 PMCSHIM_STACK_DEPTH=8 \
	    "PMCSHIM_STACK_DEPTH=8 PMCSHIM_STACK_METHOD=unwind"; do \
	  printf '%-50s ' "$$cfg"; env $$cfg PMCSHIM_QUIET=1 PMCSHIM_OUTPUT=/dev/null/x \
	    LD_PRELOAD=$(CURDIR)/$(B)/libpmcshim.so $(B)/bench-threads-rss 1000 2>/dev/null; done

bench: bench-threads

.PHONY: bench bench-threads
