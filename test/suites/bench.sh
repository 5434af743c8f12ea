#!/usr/bin/env bash
# The benchmark in its short mode: a few seconds that prove test/bench,
# thriftd-stress and the no-op servers work end to end, and that the 19.x
# shapes ran against the real Cassandra 1.2.19 node (started by
# thriftd-bench through test/cassandra/reference), thriftd's 19.x and 0.6
# paths and the 19.x no-op server. Its figures are not checked; benchmarks
# are not timed tests.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/suites/lib/suite.bash
check bench || exit 0
out=$(mktemp)
prof=$(mktemp -d)
trap 'rm -rf "$out" "$prof"' EXIT
if [ -n "$canary" ]; then
	# A report without its figures must fail the checks below.
	echo "THRIFTD CANARY $canary: a report without figures" >"$out"
else
	./test/bench -short -rate 50,get_indexed_slices=20 -profile "$prof" >"$out"
	./test/bench -short -load-columns 20000 >>"$out"
	./test/bench -short -transfer-columns 20000 >>"$out"
fi
cat "$out"
for want in '| insert (1 column) | 32 |' '| get_range_slices (100 rows × 10 columns) | 32 |' '| get_range_slices (100 rows × 5 of 100 columns) | 32 |' 'stock-library ceiling ops/s' 'wide row: 20000 columns' 'read back: 200 rows, 20000 columns' '| copy |' 'thriftd-tool info (GET /v1/info) during'; do
	grep -qF "$want" "$out" || { echo "bench.sh: the short benchmark did not report: $want" >&2; exit 1; }
done
# Every 19.x shape has a figure in each of the four columns.
compare=$(sed -n '/^## The 19.x shapes beside Cassandra/,$p' "$out")
grep -qF '| shape | conns | real 1.2.19 ops/s (p99 ms) | thriftd 19.x ops/s (p99 ms) | thriftd 0.6 ops/s (p99 ms) | no-op 19.x ops/s (p99 ms) |' <<<"$compare" ||
	{ echo "bench.sh: the short benchmark printed no 19.x table with its four columns" >&2; exit 1; }
fig='[0-9]+ \([0-9.]+\) \|'
for shape in 'insert \(1 column\)' 'get_slice \(10 of 100 columns\)' 'multiget_slice \(10 keys × 10 columns\)' \
	'batch_mutate \(100 columns\)' 'get_range_slices \(100 rows × 5 of 100 columns\)' 'get_paged_slice \(500 columns: 5 rows × 100\)'; do
	grep -qE "^\| $shape \| 32 \| $fig $fig $fig $fig" <<<"$compare" ||
		{ echo "bench.sh: the short benchmark printed no 19.x row with four figures for: $shape" >&2; exit 1; }
done
# Each shape measured at a fixed rate too (-rate), on every column that
# makes it (0.6 none of the counters and the index).
grep -qF '| shape | conns | fixed rate | real 1.2.19 max calls/s | real 1.2.19 CPU µs/call at the rate | thriftd 19.x max calls/s |' <<<"$compare" ||
	{ echo "bench.sh: the short benchmark printed no fixed-rate table" >&2; exit 1; }
rate='([0-9]+|—) \| ([0-9]+( \+ [0-9]+)*|—)( \(reached [0-9]+/s\))? \|'
for shape in 'insert \(1 column\) \| 32 \| 50/s' 'get_slice \(10 of 100 columns\) \| 32 \| 50/s' 'add \(one hot counter\) \| 32 \| 50/s' 'get_indexed_slices \(EQ.* \| 32 \| 20/s'; do
	grep -qE "^\| $shape \| $rate $rate $rate $rate\$" <<<"$compare" ||
		{ echo "bench.sh: the short benchmark printed no fixed-rate row for: $shape" >&2; exit 1; }
done
# -profile: thriftd's CPU profile and the real node's Flight Recorder
# window of a figure, at its maximum and at its rate.
for f in get-slice-19-32.pprof get-slice-19-32-at-50.pprof get-slice-real-1.2.19-32-*.jfr get-indexed-slices-real-1.2.19-32-at-20-*.jfr; do
	compgen -G "$prof/$f" >/dev/null ||
		{ echo "bench.sh: -profile wrote no $f: $(ls "$prof" | head -20 | tr '\n' ' ')" >&2; exit 1; }
done
# Shapes 0.6 cannot make have figures in the three other columns.
for shape in 'add \(one hot counter\)' 'get_indexed_slices \(EQ on a KEYS index: the 1% of rows that match, 2 columns each\)'; do
	grep -qE "^\| $shape \| 32 \| $fig $fig — \| $fig" <<<"$compare" ||
		{ echo "bench.sh: the short benchmark printed no 19.x row with three figures for: $shape" >&2; exit 1; }
done
