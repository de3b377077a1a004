# make install / make uninstall, with PREFIX (default /usr/local) and
# DESTDIR (a staging root, for packaging):
#   PREFIX/bin/pmcshim, PREFIX/bin/pmcshim-report
#   PREFIX/lib/pmcshim/libpmcshim.so     (the launcher looks for it in ../lib/pmcshim)
#   PREFIX/include/pmcshim.h, PREFIX/lib/pkgconfig/pmcshim.pc
#   PREFIX/share/pmcshim/metrics/*.def (derived metrics; the tools look in
#                                   ../share/pmcshim/metrics)
#   PREFIX/share/man/man1/pmcshim.1, pmcshim-report.1, man3/pmcshim.3

PREFIX  ?= /usr/local
DESTDIR ?=
VERSION := $(shell sed -n 's/^\#define PMCSHIM_VERSION "\(.*\)"$$/\1/p' include/pmcshim.h)
INSTALL ?= install

I_BIN := $(DESTDIR)$(PREFIX)/bin
I_SHIM := $(DESTDIR)$(PREFIX)/lib/pmcshim
I_INC := $(DESTDIR)$(PREFIX)/include
I_PC := $(DESTDIR)$(PREFIX)/lib/pkgconfig
I_MAN := $(DESTDIR)$(PREFIX)/share/man
I_METRICS := $(DESTDIR)$(PREFIX)/share/pmcshim/metrics
METRICS := $(notdir $(wildcard metrics/*.def))
MAN_PAGES := man1/pmcshim.1 man1/pmcshim-report.1 man3/pmcshim.3
INSTALLED := $(I_BIN)/pmcshim $(I_BIN)/pmcshim-report $(I_SHIM)/libpmcshim.so \
	$(I_INC)/pmcshim.h $(I_PC)/pmcshim.pc $(MAN_PAGES:%=$(I_MAN)/%) $(METRICS:%=$(I_METRICS)/%)

# Pages and .pc carry the version (and the prefix) from their templates.
$(B)/man/man1/%: docs/man/% include/pmcshim.h
	mkdir -p $(@D)
	sed 's/@VERSION@/$(VERSION)/g' $< > $@

$(B)/man/man3/%: docs/man/% include/pmcshim.h
	mkdir -p $(@D)
	sed 's/@VERSION@/$(VERSION)/g' $< > $@

$(B)/pmcshim.pc: pmcshim.pc.in include/pmcshim.h FORCE
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's/@VERSION@/$(VERSION)/g' $< > $@

install: $(B)/libpmcshim.so $(B)/pmcshim $(B)/pmcshim-report $(B)/pmcshim.pc \
		$(MAN_PAGES:%=$(B)/man/%)
	$(INSTALL) -d $(I_BIN) $(I_SHIM) $(I_INC) $(I_PC) $(I_MAN)/man1 $(I_MAN)/man3 $(I_METRICS)
	$(INSTALL) -m 755 $(B)/pmcshim $(B)/pmcshim-report $(I_BIN)
	$(INSTALL) -m 755 $(B)/libpmcshim.so $(I_SHIM)
	$(INSTALL) -m 644 include/pmcshim.h $(I_INC)
	$(INSTALL) -m 644 $(B)/pmcshim.pc $(I_PC)
	$(INSTALL) -m 644 $(B)/man/man1/pmcshim.1 $(B)/man/man1/pmcshim-report.1 $(I_MAN)/man1
	$(INSTALL) -m 644 $(B)/man/man3/pmcshim.3 $(I_MAN)/man3
	$(INSTALL) -m 644 $(METRICS:%=metrics/%) $(I_METRICS)

# Removes what install made, and the shim's own directory; shared
# directories (bin, include, ...) stay.
uninstall:
	rm -f $(INSTALLED)
	-rmdir $(I_SHIM) $(I_METRICS) $(dir $(I_METRICS)) 2>/dev/null

FORCE:
.PHONY: install uninstall FORCE

EXTRA_SUITES += install=sh+tests/install/run.sh
