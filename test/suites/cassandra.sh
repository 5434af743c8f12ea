#!/usr/bin/env bash
# The Cassandra backend: the Go end-to-end tests (test/e2e, test/e2e19),
# the differential tests of the 19.x API (test/diff19), the TLS tests of
# thriftd-tool and of thriftd's storage-conf.xml, the Python interop
# suites (0.6 and 19.x), the pycassa suite and the 19.x Ruby suite again, with
# THRIFTD_TEST_BACKEND=cassandra, on real
# Cassandra 5.0.9 nodes (test/cassandra/cluster: murmur3, random,
# byteordered) and the CQL benchmark in its short mode. The multi-node
# tests on the three-node ring3 are test/suites/cluster.sh. Nodes already
# running are reused; their contact points come from
# THRIFTD_CASSANDRA_<NAME> when test/run-all exported them.
# The nodes are left running: test/run-all stops them when it exits, else
# run test/cassandra/cluster stop-all.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/suites/lib/suite.bash

# A package's time limit: test/run-all exports it (30m).
timeout=${THRIFTD_GO_TEST_TIMEOUT:-30m}
cluster=test/cassandra/cluster
t0=$SECONDS
if [ -z "$canary" ]; then
	for name in murmur3 random byteordered; do
		var=THRIFTD_CASSANDRA_${name^^}
		[ -n "${!var:-}" ] || export "$var=$($cluster start "$name")"
	done
	echo "cassandra.sh: single nodes ready after $((SECONDS - t0)) s"
fi

if check go@cassandra; then
	t=$SECONDS
	# shellcheck disable=SC2046 # the packages are words
	THRIFTD_TEST_BACKEND=cassandra go test -race -count=1 -timeout "$timeout" \
		$(canary_go_packages ./test/e2e ./test/e2e19 ./test/diff19)
	echo "cassandra.sh: test/e2e, test/e2e19 and test/diff19 on Cassandra took $((SECONDS - t)) s"
	phase "cassandra: go test e2e, e2e19, diff19" $((SECONDS - t))
fi

# TLS on the Thrift port with thriftd on the Cassandra store: thriftd-tool's
# export, import and copy over TLS, and the TLS ports of a storage-conf.xml
# (test/python19/test_tls19.py and test/suites/java.sh cover the clients).
if check tls@cassandra; then
	t=$SECONDS
	# shellcheck disable=SC2046 # the packages are words
	THRIFTD_TEST_BACKEND=cassandra go test -race -count=1 -timeout "$timeout" \
		-run '^(TestTransferOverTLS|TestTLSFromStorageConf)$' $(canary_go_packages ./cmd/thriftd-tool ./cmd/thriftd)
	echo "cassandra.sh: the TLS tests of thriftd-tool and thriftd on Cassandra took $((SECONDS - t)) s"
	phase "cassandra: TLS tests" $((SECONDS - t))
fi

# Each suite runs its own checks (python@cassandra, ...): in a canary run
# all but the named one return at once.
for suite in python python19 pycassa ruby19; do
	t=$SECONDS
	THRIFTD_TEST_BACKEND=cassandra bash "test/suites/$suite.sh"
	[ -n "$canary" ] || echo "cassandra.sh: the $suite suite on Cassandra took $((SECONDS - t)) s"
	phase "cassandra: $suite" $((SECONDS - t))
done

# The CQL benchmark in its short mode: seconds that prove it works end to
# end; its figures are not checked.
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
if check bench@cassandra; then
	t=$SECONDS
	if [ -n "$canary" ]; then
		# A report without its figures must fail the check below.
		echo "THRIFTD CANARY $canary: a report without figures" >"$bin/bench.md"
	else
		go build -o "$bin/" ./cmd/thriftd ./cmd/thriftd-stress ./cmd/thriftd-bench
		"$bin/thriftd-bench" -thriftd "$bin/thriftd" -stress "$bin/thriftd-stress" -config storage-conf.xml \
			-cassandra "$THRIFTD_CASSANDRA_RANDOM" -short -conns 32 >"$bin/bench.md"
	fi
	cat "$bin/bench.md"
	grep -qF '| get_range_slices (100 rows × 10 columns) | 32 |' "$bin/bench.md" ||
		{ echo "cassandra.sh: the CQL benchmark did not report get_range_slices" >&2; exit 1; }
	echo "cassandra.sh: the short CQL benchmark took $((SECONDS - t)) s"
	phase "cassandra: short CQL benchmark" $((SECONDS - t))
fi

# The 19.x comparison's column of thriftd on the Cassandra store, short:
# every 19.x shape has a figure in it, beside thriftd on LevelDB and the
# direct CQL client replaying the requests thriftd's store sent for it
# (its statement recorder), each also at a fixed rate (-rate).
if check compare@cassandra; then
	t=$SECONDS
	if [ -n "$canary" ]; then
		# A report without its figures must fail the checks below.
		echo "THRIFTD CANARY $canary: a report without figures" >"$bin/compare.md"
	else
		[ -x "$bin/thriftd-bench" ] || go build -o "$bin/" ./cmd/thriftd ./cmd/thriftd-stress ./cmd/thriftd-bench
		"$bin/thriftd-bench" -thriftd "$bin/thriftd" -stress "$bin/thriftd-stress" -config storage-conf.xml \
			-ceilings=false -compare 19,cql,direct -rate 50 -reference off -cassandra-store "$THRIFTD_CASSANDRA_MURMUR3" -short >"$bin/compare.md"
	fi
	cat "$bin/compare.md"
	grep -qF '| shape | conns | thriftd 19.x ops/s (p99 ms) | thriftd on C* 5 ops/s (p99 ms) | direct CQL ops/s (p99 ms) |' "$bin/compare.md" ||
		{ echo "cassandra.sh: the short comparison printed no table with the Cassandra store's and the direct client's columns" >&2; exit 1; }
	fig='[0-9]+ \([0-9.]+\) \|'
	cpu='[0-9]+(\+[0-9]+)*'
	rate='[0-9]+ \| [0-9]+( \+ [0-9]+)*( \(reached [0-9]+/s\))? \|'
	ratio='([0-9.]+|—) \|'
	for shape in insert get_slice multiget_slice batch_mutate get_range_slices get_paged_slice add get_indexed_slices; do
		grep -qE "^\| $shape \(.*\) \| 32 \| $fig $fig $fig $cpu / $cpu / $cpu \|" "$bin/compare.md" ||
			{ echo "cassandra.sh: the short comparison printed no row with the three figures and CPU for: $shape" >&2; exit 1; }
		grep -qE "^\| $shape \(.*\) \| 32 \| 50/s \| $rate $rate $rate\$" "$bin/compare.md" ||
			{ echo "cassandra.sh: the short comparison printed no fixed-rate row with three columns for: $shape" >&2; exit 1; }
		grep -qE "^\| $shape \(.*\) \| 32 \| [0-9.]+ \| $ratio $ratio 50/s \| $ratio $ratio\$" "$bin/compare.md" ||
			{ echo "cassandra.sh: the short comparison printed no row of thriftd beside the direct client for: $shape" >&2; exit 1; }
		grep -qE "^- $shape \(.*\) \([0-9]+ calls recorded\): thriftd [0-9.]+ requests per call" "$bin/compare.md" ||
			{ echo "cassandra.sh: the short comparison listed no recorded requests for: $shape" >&2; exit 1; }
	done
	echo "cassandra.sh: the short comparison with the Cassandra store took $((SECONDS - t)) s"
	phase "cassandra: short comparison" $((SECONDS - t))
fi
echo "cassandra.sh: the whole suite took $((SECONDS - t0)) s"
