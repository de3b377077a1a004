# The hardware suite in an arm64 QEMU guest (tests/vm/run.sh). It is part
# of `make test` on the host build; `make test-vm` runs it alone.
ifeq ($(CROSS),)
$(B)/tests/vm_check: tests/vm/check.c tests/runapp.c tests/runapp.h tests/harness.h \
		tests/stackrows.c tests/stackrows.h \
		preload/format/reportfile.c preload/format/reportfile.h | $(B)/tests/apps
	$(CC) $(TEST_CFLAGS) -o $@ tests/vm/check.c tests/runapp.c tests/stackrows.c preload/format/reportfile.c -ljansson -lm

TEST_BINS += $(B)/tests/vm_check
EXTRA_SUITES += vm=sh+tests/vm/run.sh

test-vm: all $(B)/tests/vm_check
	@B=$(B) sh tests/vm/run.sh

.PHONY: test-vm
endif
