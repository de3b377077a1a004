# make install / make uninstall, with PREFIX (default /usr/local) and
# DESTDIR (a staging root, for packaging):
#   PREFIX/bin/pmcshim, PREFIX/bin/pmcshim-report
#   PREFIX/lib/pmcshim/libpmcshim.so     (the launcher looks for it in ../lib/pmcshim)
#   PREFIX/include/pmcshim.h, pmcshim.f90 (the Fortran module's source),
#   PREFIX/lib/pkgconfig/pmcshim.pc
#   PYDIR/pmcshim.py: the directory under PREFIX/lib that python3
#     (PYTHON, else /usr/bin/python3) already searches, e.g.
#     /usr/local/lib/python3.11/dist-packages on Debian; else
#     PREFIX/lib/python3/dist-packages, which PYTHONPATH must then name
#     (pkg-config --variable=pythondir pmcshim says which); PYDIR=... sets it
#   PREFIX/share/pmcshim/metrics/*.def (derived metrics; the tools look in
#                                   ../share/pmcshim/metrics)
#   PREFIX/share/man/man1/pmcshim.1, pmcshim-report.1, man3/pmcshim.3

PREFIX  ?= /usr/local
DESTDIR ?=
VERSION := $(shell sed -n 's/^\#define PMCSHIM_VERSION "\(.*\)"$$/\1/p' include/pmcshim.h)
INSTALL ?= install
PYTHON  ?= python3

# Asked of python3 once, and only by the rules that install (python3 is
# not needed to build: without it, the fallback). When PYTHON searches no
# directory under PREFIX (a pyenv or venv python), the system's python3
# is asked: a directory that one searches beats one that none does.
PYDIR_OF = $(shell $(1) -c 'import sys; p = "$(PREFIX)/lib/python"; \
	print(next((d for d in sys.path if d.startswith(p) and d.endswith("-packages")), ""))' \
	2>/dev/null)
PYDIR_ASK = $(or $(call PYDIR_OF,$(PYTHON)),$(call PYDIR_OF,/usr/bin/python3))
PYDIR = $(eval PYDIR := $$(or $$(PYDIR_ASK),$$(PREFIX)/lib/python3/dist-packages))$(PYDIR)

I_BIN := $(DESTDIR)$(PREFIX)/bin
I_SHIM := $(DESTDIR)$(PREFIX)/lib/pmcshim
I_INC := $(DESTDIR)$(PREFIX)/include
I_PC := $(DESTDIR)$(PREFIX)/lib/pkgconfig
I_MAN := $(DESTDIR)$(PREFIX)/share/man
I_PY = $(DESTDIR)$(PYDIR)
I_METRICS := $(DESTDIR)$(PREFIX)/share/pmcshim/metrics
METRICS := $(notdir $(wildcard metrics/*.def))
MAN_PAGES := man1/pmcshim.1 man1/pmcshim-report.1 man3/pmcshim.3
INSTALLED := $(I_BIN)/pmcshim $(I_BIN)/pmcshim-report $(I_SHIM)/libpmcshim.so \
	$(I_INC)/pmcshim.h $(I_INC)/pmcshim.f90 $(I_PC)/pmcshim.pc $(MAN_PAGES:%=$(I_MAN)/%) \
	$(I_PY)/pmcshim.py $(I_PY)/__pycache__/pmcshim.*.pyc \
	$(METRICS:%=$(I_METRICS)/%)

# Pages and .pc carry the version (and the prefix) from their templates.
$(B)/man/man1/%: docs/man/% include/pmcshim.h
	mkdir -p $(@D)
	sed 's/@VERSION@/$(VERSION)/g' $< > $@

$(B)/man/man3/%: docs/man/% include/pmcshim.h
	mkdir -p $(@D)
	sed 's/@VERSION@/$(VERSION)/g' $< > $@

$(B)/pmcshim.pc: pmcshim.pc.in include/pmcshim.h FORCE
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's/@VERSION@/$(VERSION)/g' -e 's|@PYDIR@|$(PYDIR)|g' $< > $@

install: $(B)/libpmcshim.so $(B)/pmcshim $(B)/pmcshim-report $(B)/pmcshim.pc \
		$(MAN_PAGES:%=$(B)/man/%)
	$(INSTALL) -d $(I_BIN) $(I_SHIM) $(I_INC) $(I_PC) $(I_MAN)/man1 $(I_MAN)/man3 $(I_PY) $(I_METRICS)
	$(INSTALL) -m 755 $(B)/pmcshim $(B)/pmcshim-report $(I_BIN)
	$(INSTALL) -m 755 $(B)/libpmcshim.so $(I_SHIM)
	$(INSTALL) -m 644 include/pmcshim.h include/pmcshim.f90 $(I_INC)
	$(INSTALL) -m 644 python/pmcshim.py $(I_PY)
	$(INSTALL) -m 644 $(B)/pmcshim.pc $(I_PC)
	$(INSTALL) -m 644 $(B)/man/man1/pmcshim.1 $(B)/man/man1/pmcshim-report.1 $(I_MAN)/man1
	$(INSTALL) -m 644 $(B)/man/man3/pmcshim.3 $(I_MAN)/man3
	$(INSTALL) -m 644 $(METRICS:%=metrics/%) $(I_METRICS)
	@[ -n "$(DESTDIR)" ] || $(PYTHON) -c 'import sys; sys.exit("$(PYDIR)" not in sys.path)' \
	  2>/dev/null || echo "make install: $(PYTHON) does not search $(PYDIR): to import \
	pmcshim there, set PYTHONPATH=$(PYDIR)"

# Removes what install made, and the shim's own directory (and the byte
# code's, when empty); shared directories (bin, include, ...) stay.
uninstall:
	rm -f $(INSTALLED)
	-rmdir $(I_SHIM) $(I_PY)/__pycache__ $(I_METRICS) $(dir $(I_METRICS)) 2>/dev/null

FORCE:
.PHONY: install uninstall FORCE

EXTRA_SUITES += install=sh+tests/install/run.sh
