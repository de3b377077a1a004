# The pmcshim launcher: runs a command under the shim and prints the merged
# table (tools/launcher/). It shares the shim's event
# parsing, counter opening and variable checks (the same objects), so its
# notice, its --list-events and its checks say what the shim will do.
#   make                 builds $(B)/pmcshim
#   make test            also runs tests/launcher/run.sh and tests/validate/run.sh

LAUNCH_SRC := tools/launcher/pmcshim.c tools/launcher/launch_paths.c tools/launcher/launch_run.c tools/launcher/launch_events.c \
	tools/launcher/launch_job.c tools/launcher/launch_metrics.c tools/launcher/launch_why.c tools/launcher/launch_count.c tools/common/metrics_def.c tools/common/badopt.c
LAUNCH_SRC += tools/launcher/launch_check.c tools/launcher/launch_system.c tools/launcher/launch_sysfile.c \
	tools/launcher/launch_sysproc.c
LAUNCH_OBJ := $(LAUNCH_SRC:tools/%.c=$(B)/launcher/%.o)
LAUNCH_SHIM_OBJ := $(B)/shim/counters/events.o $(B)/shim/counters/counters.o $(B)/shim/base/fds.o \
	$(B)/shim/counters/pfm.o $(B)/shim/base/suggest.o $(B)/shim/settings/config.o $(B)/shim/base/log.o \
	$(B)/shim/settings/funcspec.o $(B)/shim/format/reportfile.o

$(B)/launcher:
	mkdir -p $@

$(B)/launcher/%.o: tools/%.c tools/launcher/launch.h tools/launcher/system.h tools/common/badopt.h tools/common/metrics_def.h $(SHIM_HDR) | $(B)/launcher
	@mkdir -p $(@D)
	$(CC) $(WARN) $(DEFS) $(CFLAGS) $(DEPFLAGS) -Ipreload -Itools -Iinclude -c $< -o $@

$(B)/pmcshim: $(LAUNCH_OBJ) $(LAUNCH_SHIM_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ -ldl

all: $(B)/pmcshim

# --- tests ------------------------------------------------------------------
$(B)/tests/launcher:
	mkdir -p $@

$(B)/tests/launcher/%: tests/launcher/%.c | $(B)/tests/launcher
	$(CC) $(APP_FLAGS) -o $@ $< -ldl

LAUNCH_TEST_APPS := tree alarm
TEST_BINS += $(B)/pmcshim $(LAUNCH_TEST_APPS:%=$(B)/tests/launcher/%)
EXTRA_SUITES += launcher=sh+tests/launcher/run.sh
# every variable and option with a bad value (both commands and the shim)
EXTRA_SUITES += validate=sh+tests/validate/run.sh
# derived metrics and repeated runs, reader and launcher (tests/metrics/run.sh)
EXTRA_SUITES += metrics=sh+tests/metrics/run.sh

# totals that survive every ending and count from exec (tests/totals/run.sh)
$(B)/tests/totals/work: tests/totals/work.c include/pmcshim.h
	@mkdir -p $(@D)
	$(CC) $(APP_FLAGS) -o $@ $< -ldl
TEST_BINS += $(B)/tests/totals/work
EXTRA_SUITES += totals=sh+tests/totals/run.sh
