#!/bin/sh
# Regenerates tests/reader/sample.json: runs the bundled demo under the shim
# (2 software events, stacks 2 frames deep) and normalizes the report with
# normalize.jq. The golden outputs must then be regenerated too:
#   sh tests/reader/make-sample.sh && sh tests/reader/run.sh --update
set -e
cd "$(dirname "$0")/../.."
make -s build/libpmcshim.so build/demo
dir=$(mktemp -d)
(cd "$dir" && PMCSHIM_EVENTS=task-clock,page-faults PMCSHIM_STACK_DEPTH=2 \
	LD_PRELOAD="$OLDPWD/build/libpmcshim.so" "$OLDPWD/build/demo" >/dev/null)
jq -f tests/reader/normalize.jq "$dir"/pmcshim-demo-*.json > tests/reader/sample.json
rm -r "$dir"
echo "wrote tests/reader/sample.json"
