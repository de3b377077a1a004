# The man pages against the code (tests/docs/run.sh): every variable the
# shim and the commands read, every option of each command, documented.
EXTRA_SUITES += docs=sh+tests/docs/run.sh
