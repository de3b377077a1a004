#!/bin/sh
# make bench-python: tests/bench/python_markers.py without the shim, then
# under it (default settings), the module from python/.
B=${B:-build}
py=$(command -v "${PYTHON:-python3}") || { echo "bench-python: no python3: skipped"; exit 0; }
py=$("$py" -c 'import sys; print(sys.executable)')
out=$B/tmp/bench-python
export PYTHONDONTWRITEBYTECODE=1	# no byte code written into the sources
rm -rf "$out" && mkdir -p "$out"
echo "== Python marker cost per pair"
PYTHONPATH=$PWD/python "$py" tests/bench/python_markers.py
echo
PYTHONPATH=$PWD/python PMCSHIM_QUIET=1 PMCSHIM_OUTPUT=$out/ LD_PRELOAD=$PWD/$B/libpmcshim.so \
	"$py" tests/bench/python_markers.py
rm -rf "$out"
