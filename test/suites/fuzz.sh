#!/usr/bin/env bash
# Runs every Go fuzz target of the repository briefly (FUZZTIME each,
# default 10000x: ten thousand inputs): the connection layer (server), the
# argument decoding of every method end to end (test/fuzz), and the
# decoders of configuration,
# comparators, partitioners and keys. `go test ./...` already runs each
# target's seed corpus; this explores beyond it. New failing inputs are
# written to the package's testdata/fuzz directory: check them in with the
# fix. A longer run of one target:
#   go test ./test/fuzz -run '^$' -fuzz '^FuzzBatchMutate$' -fuzztime 10m
#
# The budget is a count, not a duration: with a duration, Go 1.26's fuzz
# coordinator can fail a target with a bare "context deadline exceeded" as
# the time runs out on a busy machine (go.dev/issue/75804, fixed in Go
# 1.27), which would make CI fail on nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/suites/lib/suite.bash
check fuzz || exit 0

fuzztime=${FUZZTIME:-10000x}
packages=$(git grep -l '^func Fuzz' -- '*_test.go' | xargs -n1 dirname | sort -u)
overlay=() targets='^Fuzz'
if [ -n "$canary" ]; then
	# One failing target alone, added to marshal by go's -overlay.
	packages=marshal
	overlay=(-overlay "$(canary_go_overlay marshal fuzz)")
	targets='^FuzzCanary$'
fi
for pkg in $packages; do
	for target in $(go test "${overlay[@]}" -list "$targets" "./$pkg" | grep '^Fuzz'); do
		echo "fuzz ./$pkg $target ($fuzztime)"
		go test "${overlay[@]}" "./$pkg" -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" -parallel 2 >/tmp/fuzz.$$.log 2>&1 || {
			cat /tmp/fuzz.$$.log
			rm -f /tmp/fuzz.$$.log
			exit 1
		}
	done
done
rm -f /tmp/fuzz.$$.log
