# Scoped regions (PMCSHIM_SCOPE, pmcshim::scope): test programs run
# through the launcher, their merged tables checked (tests/scopes/run.sh).
$(B)/tests/scopes:
	mkdir -p $@

$(B)/tests/scopes/scopes: tests/scopes/scopes.c include/pmcshim.h | $(B)/tests/scopes
	$(CC) $(APP_FLAGS) -o $@ $< -ldl

$(B)/tests/scopes/scopes_cxx: tests/scopes/scopes_cxx.cpp include/pmcshim.h | $(B)/tests/scopes
	$(CXX) -std=c++11 -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) -O1 -g -Iinclude \
	  -o $@ $< -ldl

# The header must also compile as C++98 and as strict C99.
$(B)/tests/scopes/cxx98.o: tests/scopes/scopes_cxx98.cpp include/pmcshim.h | $(B)/tests/scopes
	$(CXX) -std=c++98 -Wall -Wextra -Werror -Iinclude -c -o $@ $<

TEST_BINS += $(B)/tests/scopes/scopes $(B)/tests/scopes/scopes_cxx $(B)/tests/scopes/cxx98.o \
	$(B)/pmcshim
EXTRA_SUITES += scopes=sh+tests/scopes/run.sh
