#!/usr/bin/env bash
# The multi-node tests (test/cluster) on test/cassandra/cluster's three-node
# ring3 (Cassandra 5.0.9, Murmur3Partitioner, 127.0.0.1-3): replication,
# consistency levels, a node killed under QUORUM load and restarted, schema
# agreement. ring3 is started (or reused when $THRIFTD_CASSANDRA_RING3 names
# it) and stopped at the end, its data kept for the next start; the single
# nodes are left as they are: three more JVMs of 1 GiB heap each fit beside
# them on a 24 GiB machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/suites/lib/suite.bash

check cluster || exit 0
# A package's time limit: test/run-all exports it (30m).
timeout=${THRIFTD_GO_TEST_TIMEOUT:-30m}
if [ -n "$canary" ]; then
	# shellcheck disable=SC2046 # the packages are words
	go test -race -count=1 -v -timeout 20m $(canary_go_packages ./test/cluster)
	exit
fi
cluster=test/cassandra/cluster
t=$SECONDS
started=
if [ -z "${THRIFTD_CASSANDRA_RING3:-}" ]; then
	THRIFTD_CASSANDRA_RING3=$($cluster start ring3 | tail -n 1)
	started=1
fi
export THRIFTD_CASSANDRA_RING3
echo "cluster.sh: ring3 ready after $((SECONDS - t)) s"
phase "cluster: start ring3" $((SECONDS - t))
t=$SECONDS
# -v prints the figures of the kill test (acked, failed, timed out, lost).
status=0
go test -race -count=1 -v -timeout "$timeout" ./test/cluster || status=$?
echo "cluster.sh: test/cluster took $((SECONDS - t)) s (status $status)"
phase "cluster: test/cluster on ring3" $((SECONDS - t))
[ -z "$started" ] || $cluster stop ring3
exit "$status"
