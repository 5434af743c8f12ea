#!/usr/bin/env bash
# The benchmark in its short mode: a few seconds that prove test/bench,
# thriftd-stress and the no-op server work end to end. Its figures are not
# checked; benchmarks are not timed tests.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp)
trap 'rm -f "$out"' EXIT
./test/bench -short >"$out"
./test/bench -short -load-columns 20000 >>"$out"
./test/bench -short -transfer-columns 20000 >>"$out"
cat "$out"
for want in '| insert (1 column) | 32 |' '| get_range_slices (100 rows × 10 columns) | 32 |' '| get_range_slices (100 rows × 5 of 100 columns) | 32 |' 'stock-library ceiling ops/s' 'wide row: 20000 columns' 'read back: 200 rows, 20000 columns' '| copy |' 'thriftd-tool info (GET /v1/info) during'; do
	grep -qF "$want" "$out" || { echo "bench.sh: the short benchmark did not report: $want" >&2; exit 1; }
done
