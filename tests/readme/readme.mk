# The README's commands in a new user's order (tests/readme/run.sh): make
# demo without libpfm4's headers, then the build with them.
EXTRA_SUITES += readme=sh+tests/readme/run.sh
