#!/usr/bin/env bash
# Hadoop's own reader and writer of Cassandra 2.1.21 (org.apache.cassandra.hadoop:
# ColumnFamilyInputFormat, ColumnFamilyRecordReader, ColumnFamilyOutputFormat)
# in map-only jobs in Hadoop 1.0.3's local mode (test/hadoop, built with
# Maven), against the real Cassandra 2.1.21, thriftd on LevelDB and thriftd
# on the Cassandra store: splits that cover the ring with no gap or overlap,
# token-restricted and wrapping ranges, wide-row mode across split
# boundaries, an index filter, super and counter families, and write-back
# through the output format. One JVM runs every job against one server.
#
#   test/suites/hadoop.sh                      2.1.21 when test/run-all started it
#                                              ($THRIFTD_REFERENCE_21), then thriftd
#                                              on LevelDB and on Cassandra
#   test/suites/hadoop.sh --store leveldb      thriftd on LevelDB only
#   test/suites/hadoop.sh --store cassandra    thriftd on the Cassandra store only
#   test/suites/hadoop.sh --reference          the real Cassandra 2.1.21 only
#                                              (test/cassandra/reference start 2.1)
#   test/suites/hadoop.sh --against HOST:PORT  a running server (framed, RandomPartitioner)
#
# thriftd is $THRIFTD_BIN when set, else built here. The Cassandra store
# runs on test/cassandra/cluster's "random" node (started, reused or
# restarted). The Maven repository is kept in $THRIFTD_HADOOP_M2 (default
# ~/.cache/thriftd/hadoop-m2): a second run builds offline. Installs
# Debian's openjdk-17-jdk-headless and maven when missing. Exits non-zero
# when a check fails; the program's last line is "hadoop: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/suites/lib/suite.bash
# The one check, hadoop: in a canary run (test/suites/lib/suite.bash) the
# jobs' runner runs a class that fails instead of the jobs, through the
# same run_jobs and the same exit.
check hadoop || exit 0

usage() {
	sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

against= stores="leveldb cassandra" reference=${THRIFTD_REFERENCE_21:+yes} stores_given=
while [ $# -gt 0 ]; do
	case $1 in
	--against) [ $# -ge 2 ] || usage; against=$2; stores= reference=; shift 2 ;;
	--store) [ $# -ge 2 ] || usage; stores=$2; reference= stores_given=yes; shift 2 ;;
	--reference) reference=yes; stores= stores_given=yes; shift ;;
	-h | --help) usage ;;
	*) usage ;;
	esac
done
for s in $stores; do
	case $s in leveldb | cassandra) ;; *) usage ;; esac
done

JAVA_HOME=${THRIFTD_JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
M2=${THRIFTD_HADOOP_M2:-$HOME/.cache/thriftd/hadoop-m2}
export JAVA_HOME
t0=$SECONDS

# ---- tools ----------------------------------------------------------------

need=()
[ -x "$JAVA_HOME/bin/javac" ] || need+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null || need+=(maven)
if [ ${#need[@]} -gt 0 ]; then
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	echo "hadoop: installing ${need[*]}" >&2
	$sudo apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >&2
fi
[ -x "$JAVA_HOME/bin/javac" ] || { echo "hadoop: no JDK 17 at $JAVA_HOME" >&2; exit 1; }

tmp=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

# ---- build ----------------------------------------------------------------

# Offline first: with the repository cached nothing needs the network.
build() {
	mvn -B -q "$@" -Dmaven.repo.local="$M2" -f test/hadoop/pom.xml compile \
		dependency:build-classpath -Dmdep.outputFile=target/classpath.txt >"$tmp/mvn.log" 2>&1
}
t=$SECONDS
if [ -n "$canary" ]; then
	: # the canary's class needs no build
elif ! build -o && ! build; then
	tail -n 40 "$tmp/mvn.log" >&2
	echo "hadoop: the Maven build of test/hadoop failed" >&2
	exit 1
fi
echo "hadoop: built test/hadoop in $((SECONDS - t)) s"

failed=()

# run_jobs ADDR LABEL runs every job against ADDR in one JVM. Hadoop 1.0.3
# and cassandra-all 2.1.21 reach into java.base by reflection.
run_jobs() {
	local addr=$1 label=$2 t=$SECONDS
	echo
	echo "== Hadoop jobs against $label ($addr)"
	if [ -n "$canary" ]; then
		printf 'public class Canary { public static void main(String[] a) { System.out.println("THRIFTD CANARY %s"); System.exit(1); } }\n' \
			"$canary" >"$tmp/Canary.java"
		"$JAVA_HOME/bin/java" "$tmp/Canary.java" "$addr" || failed+=("$label")
	elif ! "$JAVA_HOME/bin/java" "${client_jvm[@]}" -Xmx512m \
		--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED \
		--add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED \
		--add-opens=java.base/java.math=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED \
		-Djava.util.logging.config.file="$PWD/test/hadoop/logging.properties" \
		-Dlogback.configurationFile="$PWD/test/hadoop/logback.xml" \
		-cp "test/hadoop/target/classes:$(<test/hadoop/target/classpath.txt)" \
		thriftd.hadooptest.HadoopJobs "$addr"; then
		failed+=("$label")
	fi
	echo "hadoop: the jobs against $label took $((SECONDS - t)) s"
}

# ---- thriftd --------------------------------------------------------------

# start_thriftd LABEL FLAGS... starts thriftd and sets ADDR to where it listens.
start_thriftd() {
	local label=$1 log="$tmp/thriftd-$1.log" i
	shift
	mkdir -p "$tmp/$label"
	: >"$log"
	(cd "$tmp/$label" && exec "$bin" -config "$OLDPWD/test/hadoop/storage-conf.xml" -listen 127.0.0.1:0 \
		-admin off -log-format json -api 19.x "$@") 2>"$log" &
	pids+=($!)
	ADDR=
	for ((i = 0; i < 300; i++)); do
		ADDR=$(sed -n 's/.*"msg":"thriftd is serving","listen":"\([^"]*\)".*/\1/p' "$log" | head -n 1)
		[ -n "$ADDR" ] && return 0
		kill -0 "${pids[-1]}" 2>/dev/null || break
		sleep 0.1
	done
	cat "$log" >&2
	echo "hadoop: thriftd ($label) did not start" >&2
	exit 1
}

# stop_thriftd LABEL stops the last thriftd started; the jobs must leave no
# warning or error in its log.
stop_thriftd() {
	local pid=${pids[-1]} log="$tmp/thriftd-$1.log" bad
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	unset 'pids[-1]'
	bad=$(grep -E '"level":"(WARN|ERROR)"' "$log" || true)
	if [ -n "$bad" ]; then
		printf '%s\n' "$bad" | tail -n 30 >&2
		echo "hadoop: thriftd ($1) logged $(printf '%s\n' "$bad" | wc -l) warnings or errors while serving the jobs" >&2
		failed+=("thriftd's log on $1")
	fi
}

if [ -n "$canary" ]; then
	against=canary stores= reference=
fi
if [ -n "$against" ]; then
	run_jobs "$against" "the server given"
fi
if [ -n "$reference" ]; then
	# A start reuses the node test/run-all started.
	t=$SECONDS
	addr=$(test/cassandra/reference start 2.1 | tail -n 1)
	echo "hadoop: Cassandra 2.1.21 at $addr ready after $((SECONDS - t)) s"
	run_jobs "$addr" "Cassandra 2.1.21"
fi
if [ -n "$stores" ]; then
	bin=${THRIFTD_BIN:-}
	if [ -z "$bin" ]; then
		go build -o "$tmp/thriftd" ./cmd/thriftd
		bin=$tmp/thriftd
	fi
fi
for store in $stores; do
	if [ "$store" = leveldb ]; then
		start_thriftd leveldb -data "$tmp/leveldb/data"
		run_jobs "$ADDR" "thriftd on LevelDB"
		stop_thriftd leveldb
	else
		t=$SECONDS
		points=$(test/cassandra/cluster start random | tail -n 1)
		echo "hadoop: Cassandra node random at $points ready after $((SECONDS - t)) s"
		prefix=h$(od -An -N5 -tx1 /dev/urandom | tr -d ' \n')_
		start_thriftd cassandra -cassandra "$points" -cassandra-prefix "$prefix"
		run_jobs "$ADDR" "thriftd on Cassandra"
		stop_thriftd cassandra
		if [ "${THRIFTD_CASSANDRA_KEEP_KEYSPACES:-}" != 1 ]; then
			"$bin" -config test/hadoop/storage-conf.xml -cassandra "$points" -cassandra-prefix "$prefix" \
				-cassandra-drop >/dev/null 2>&1 || echo "hadoop: dropping the keyspaces of $prefix failed" >&2
		fi
	fi
done

echo
if [ ${#failed[@]} -gt 0 ]; then
	echo "hadoop: FAILED: ${failed[*]} (after $((SECONDS - t0)) s)" >&2
	exit 1
fi
echo "hadoop: every job passed in $((SECONDS - t0)) s"
