# Tests: unit tests (C), integration tests (real programs under LD_PRELOAD),
# and the integration tests again with the shim built under ASan+UBSan and
# under TSan. `make test` runs them all through tests/run.sh.

TEST_CFLAGS := $(WARN) $(DEFS) -O1 -g -pthread
UNIT_TESTS  := selfread events regions
UNIT_BINS   := $(UNIT_TESTS:%=$(B)/tests/test_%)
APP_NAMES   := threads behaviour unbalanced backtrace forks exits lazy ends fdapp mallocmark
APP_BINS    := $(APP_NAMES:%=$(B)/tests/apps/%) $(B)/tests/apps/cxx
# -rdynamic: dladdr() can then name the apps' functions in stacks.
APP_FLAGS   := $(WARN) $(DEFS) -O1 -g -Iinclude -pthread -rdynamic

SHIM_OBJS = $(SHIM_SRC:preload/%.c=$(B)/shim/%.o)

$(B)/tests/apps:
	mkdir -p $@

# Unit tests link the modules, not the entry points (constructor,
# interposed pthread_create).
UNIT_OBJS = $(filter-out $(B)/shim/shim.o $(B)/shim/threads.o $(B)/shim/fork.o $(B)/shim/calibrate.o \
	$(B)/shim/ending.o,$(SHIM_OBJS))

$(B)/tests/test_%: tests/test_%.c tests/harness.h $(UNIT_OBJS) | $(B)/tests/apps
	$(CC) $(TEST_CFLAGS) -o $@ $< $(UNIT_OBJS) -ldl -lm

$(B)/tests/test_integration: tests/test_integration.c tests/runapp.c tests/runapp.h \
		tests/harness.h | $(B)/tests/apps
	$(CC) $(TEST_CFLAGS) -o $@ tests/test_integration.c tests/runapp.c -ljansson

# Lifecycle: how processes end, live reads, descriptors (reads files with
# the report file's own code).
$(B)/tests/test_lifecycle: tests/test_lifecycle.c tests/runapp.c tests/runapp.h \
		tests/harness.h preload/reportfile.c preload/reportfile.h | $(B)/tests/apps
	$(CC) $(TEST_CFLAGS) -o $@ tests/test_lifecycle.c tests/runapp.c preload/reportfile.c \
	  -ljansson

$(B)/tests/apps/%: tests/apps/%.c include/pmcshim.h | $(B)/tests/apps
	$(CC) $(APP_FLAGS) -o $@ $< -ldl

$(B)/tests/apps/cxx: tests/apps/cxx.cpp include/pmcshim.h | $(B)/tests/apps
	$(CXX) -std=c++11 -Wall -Wextra -Werror -O1 -g -Iinclude -rdynamic -o $@ $< -ldl

# --- sanitizer builds -------------------------------------------------------
ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
TSAN_FLAGS := -fsanitize=thread

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

TSAN_APPS := threads exits forks ends

$(B)/tsan/apps/hammer: tests/apps/hammer.c preload/reportfile.c preload/reportfile.h include/pmcshim.h
	mkdir -p $(@D)
	$(CC) $(APP_FLAGS) $(TSAN_FLAGS) -o $@ tests/apps/hammer.c preload/reportfile.c -ldl
TEST_BINS := $(UNIT_BINS) $(B)/tests/test_integration $(B)/tests/test_lifecycle $(APP_BINS) \
	$(B)/tests/apps/hammer $(B)/rfdump
ifeq ($(CROSS),)
TEST_BINS += $(B)/asan/libpmcshim.so $(B)/tsan/libpmcshim.so $(TSAN_APPS:%=$(B)/tsan/apps/%) \
	$(B)/tsan/apps/hammer
endif


# rfdump: the records of a report file, one per line (for the tests and
# for looking at a file below the reader).
$(B)/rfdump: tests/rfdump.c preload/reportfile.c preload/reportfile.h
	$(CC) $(TEST_CFLAGS) -o $@ tests/rfdump.c preload/reportfile.c

# --- benchmark (not part of the tests) ----------------------------------------
$(B)/bench-markers: tests/bench/markers.c include/pmcshim.h
	$(CC) $(WARN) $(DEFS) -O2 -g -Iinclude -o $@ $< -ldl

bench: all $(B)/bench-markers
	@rm -rf $(B)/tmp/bench && mkdir -p $(B)/tmp/bench
	@echo "== marker cost (this machine: $$(nproc) cores; counters: PMCSHIM_EVENTS=$${PMCSHIM_EVENTS-instructions,cycles})"
	@$(B)/bench-markers
	@echo; PMCSHIM_QUIET=1 PMCSHIM_OUTPUT=$(B)/tmp/bench/ PMCSHIM_STACK_DEPTH=0 \
	  LD_PRELOAD=$(CURDIR)/$(B)/libpmcshim.so $(B)/bench-markers 2>/dev/null
	@echo; PMCSHIM_QUIET=1 PMCSHIM_OUTPUT=$(B)/tmp/bench/ PMCSHIM_STACK_DEPTH=8 \
	  LD_PRELOAD=$(CURDIR)/$(B)/libpmcshim.so $(B)/bench-markers 2>/dev/null
	@echo; echo "PMCSHIM_SERIALIZE=1 (a barrier before and after each marker's reads):"; \
	  PMCSHIM_QUIET=1 PMCSHIM_OUTPUT=$(B)/tmp/bench/ PMCSHIM_STACK_DEPTH=0 PMCSHIM_SERIALIZE=1 \
	  LD_PRELOAD=$(CURDIR)/$(B)/libpmcshim.so $(B)/bench-markers 2>/dev/null
	@rm -rf $(B)/tmp/bench

.PHONY: bench

# hammer reads its own report file while its threads write it.
$(B)/tests/apps/hammer: tests/apps/hammer.c preload/reportfile.c preload/reportfile.h \
		include/pmcshim.h | $(B)/tests/apps
	$(CC) $(APP_FLAGS) -o $@ tests/apps/hammer.c preload/reportfile.c -ldl

# early: a library constructor marks before the shim's constructor runs.
$(B)/tests/apps/libearly.so: tests/apps/libearly.c include/pmcshim.h | $(B)/tests/apps
	$(CC) $(APP_FLAGS) -fPIC -shared -o $@ $< -ldl

$(B)/tests/apps/early: tests/apps/early.c $(B)/tests/apps/libearly.so | $(B)/tests/apps
	$(CC) $(APP_FLAGS) -o $@ $< -L$(B)/tests/apps -learly -Wl,-rpath,'$$ORIGIN' -ldl

TEST_BINS += $(B)/tests/apps/early
