# The stack symbolizer's tests: a target program (and a shared library it
# links) built -g -O0, copies of both stripped of debug info, and their
# debug info split into .debug files; the driver runs the target and
# symbolizes the call sites it reports. Included from the top Makefile.

SYMT        := $(B)/tests/symbolize
SYMT_CFLAGS := $(WARN) $(DEFS) -g -O0 -Wl,--build-id

$(SYMT):
	mkdir -p $@

$(SYMT)/libsymtarget.so: tests/symbolize/targetlib.c tests/symbolize/target.h | $(SYMT)
	$(CC) $(SYMT_CFLAGS) -fPIC -shared -o $@ $<

# $ORIGIN: the target finds its library wherever the build directory is.
$(SYMT)/target: tests/symbolize/target.c tests/symbolize/target.h $(SYMT)/libsymtarget.so
	$(CC) $(SYMT_CFLAGS) -o $@ $< -L$(SYMT) -lsymtarget -Wl,-rpath,'$$ORIGIN'

# Same code and build-id, no DWARF (.symtab stays), and the DWARF alone.
$(SYMT)/target-nodebug: $(SYMT)/target
	$(OBJCOPY) --strip-debug $< $@
$(SYMT)/target.debug: $(SYMT)/target
	$(OBJCOPY) --only-keep-debug $< $@
$(SYMT)/libsymtarget-nodebug.so: $(SYMT)/libsymtarget.so
	$(OBJCOPY) --strip-debug $< $@
$(SYMT)/libsymtarget.debug: $(SYMT)/libsymtarget.so
	$(OBJCOPY) --only-keep-debug $< $@

$(SYMT)/test_symbolize: tests/symbolize/test_symbolize.c tools/reader/data/symbolize.c \
		tools/reader/data/symbolize.h tools/reader/data/demangle.c tools/reader/data/demangle.h \
		tests/harness.h | $(SYMT)
	$(CC) $(WARN) $(DEFS) -O1 -g -Itools -Itests -o $@ tests/symbolize/test_symbolize.c \
	  tools/reader/data/symbolize.c tools/reader/data/demangle.c -ldw -lelf -l:libstdc++.so.6

TEST_BINS += $(SYMT)/test_symbolize $(SYMT)/target $(SYMT)/libsymtarget.so \
	$(SYMT)/target-nodebug $(SYMT)/target.debug \
	$(SYMT)/libsymtarget-nodebug.so $(SYMT)/libsymtarget.debug
EXTRA_SUITES += symbolize=$(SYMT)/test_symbolize
