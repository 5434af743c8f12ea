#!/usr/bin/env bash
# The Java client programs (test/java: Hector 1.1-4 and Astyanax 1.56.49,
# built with Maven, and JanusGraph 0.5.3's own tests of its cassandrathrift
# storage backend) against thriftd on LevelDB and on the Cassandra store,
# or against another 19.x server (the real Cassandra 1.2.19 proves the
# programs themselves).
#
# JanusGraph runs 74 tests of its tests jar (ThriftStoreTest,
# ThriftLockStoreTest, ThriftMultiWriteStoreTest, ThriftIDAuthorityTest,
# ThriftLogTest and the two store manager tests, less the slow and
# timing-bound ones JanusGraphProgram.EXCLUDED names); 7 skip themselves on
# a RandomPartitioner ring. Measured: 67 passed, 0 failed, on Cassandra
# 1.2.19, on thriftd on LevelDB and on the Cassandra store
# (docs/testing-cassandra.md has the figures and times).
#
#   test/suites/java.sh                      thriftd on LevelDB, then on Cassandra
#   test/suites/java.sh --store leveldb      thriftd on LevelDB only, plain
#                                            and over TLS
#   test/suites/java.sh --store cassandra    thriftd on the Cassandra store only,
#                                            plain and over TLS
#   test/suites/java.sh --reference          the real Cassandra 1.2.19
#                                            (test/cassandra/reference start 1.2)
#   test/suites/java.sh --against HOST:PORT  a running server (framed, RandomPartitioner)
#
# When test/run-all has started the reference node ($THRIFTD_REFERENCE_12),
# the Hector and Astyanax programs run against it first, so that a failure
# on thriftd is known not to be the programs' own (JanusGraph's tests, a few
# minutes per server, only with --reference). thriftd is $THRIFTD_BIN when set, else built
# here. The Cassandra store runs on test/cassandra/cluster's "random" node
# (started, reused or restarted). The Maven repository is kept in
# $THRIFTD_JAVA_M2 (default ~/.cache/thriftd/java-m2): a second run builds
# offline. Installs Debian's
# openjdk-17-jdk-headless and maven when missing. Exits non-zero when a
# check fails; each program's last line is "NAME: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/../.."

usage() {
	sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

against= stores="leveldb cassandra"
while [ $# -gt 0 ]; do
	case $1 in
	--against) [ $# -ge 2 ] || usage; against=$2; shift 2 ;;
	--store) [ $# -ge 2 ] || usage; stores=$2; shift 2 ;;
	--reference) against=reference; shift ;;
	-h | --help) usage ;;
	*) usage ;;
	esac
done
for s in $stores; do
	case $s in leveldb | cassandra) ;; *) usage ;; esac
done
. test/suites/lib/suite.bash
# The checks: java (thriftd on LevelDB) and java@cassandra. A canary run
# builds nothing and starts no server: its one program fails (run_programs).
if [ -z "$against" ]; then
	run_stores=()
	for s in $stores; do
		n=java
		[ "$s" = leveldb ] || n=java@cassandra
		! check "$n" || run_stores+=("$s")
	done
	[ ${#run_stores[@]} -gt 0 ] || exit 0
	stores=${run_stores[*]}
elif [ -n "$canary" ]; then
	exit 0
fi

JAVA_HOME=${THRIFTD_JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
M2=${THRIFTD_JAVA_M2:-$HOME/.cache/thriftd/java-m2}
export JAVA_HOME
t0=$SECONDS

# ---- tools ----------------------------------------------------------------

need=()
[ -x "$JAVA_HOME/bin/javac" ] || need+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null || need+=(maven)
if [ ${#need[@]} -gt 0 ]; then
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	echo "java: installing ${need[*]}" >&2
	$sudo apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >&2
fi
[ -x "$JAVA_HOME/bin/javac" ] || { echo "java: no JDK 17 at $JAVA_HOME" >&2; exit 1; }

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
	mvn -B -q "$@" -Dmaven.repo.local="$M2" -f test/java/pom.xml compile \
		dependency:build-classpath -Dmdep.outputFile=target/classpath.txt >"$tmp/mvn.log" 2>&1
}
t=$SECONDS
if [ -n "$canary" ]; then
	:
elif ! build -o && ! build; then
	tail -n 40 "$tmp/mvn.log" >&2
	echo "java: the Maven build of test/java failed" >&2
	exit 1
fi
echo "java: built test/java in $((SECONDS - t)) s"

programs=(hector:thriftd.javatest.hector.HectorProgram astyanax:thriftd.javatest.astyanax.AstyanaxProgram
	janusgraph:thriftd.javatest.janusgraph.JanusGraphProgram)
failed=()

# JanusGraph's Thrift backend loads cassandra-all 2.2, whose jamm measures
# RandomPartitioner's tokens by reflection into java.base.
declare -A java_flags=(
	[janusgraph]="--add-opens=java.base/java.math=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED
		--add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED
		--add-opens=java.base/java.util.concurrent=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED"
)

# run_programs ADDR LABEL [JAVA FLAGS...] runs every program against ADDR.
run_programs() {
	local addr=$1 label=$2 entry module class t
	shift 2
	for entry in "${programs[@]}"; do
		module=${entry%%:*} class=${entry#*:}
		echo
		echo "== $module against $label ($addr)"
		t=$SECONDS
		if [ "$module" = canary ]; then
			printf 'public class Canary { public static void main(String[] a) { System.out.println("THRIFTD CANARY %s"); System.exit(1); } }\n' \
				"$canary" >"$tmp/Canary.java"
			"$JAVA_HOME/bin/java" "$tmp/Canary.java" "$addr" || failed+=("$module on $label")
		# shellcheck disable=SC2086 # the flags are words
		elif ! "$JAVA_HOME/bin/java" "${client_jvm[@]}" "$@" ${java_flags[$module]:-} \
			-cp "test/java/$module/target/classes:$(<"test/java/$module/target/classpath.txt")" \
			"$class" "$addr"; then
			failed+=("$module on $label")
		fi
		echo "java: $module on $label took $((SECONDS - t)) s"
	done
}

# ---- thriftd --------------------------------------------------------------

# start_thriftd LABEL FLAGS... starts thriftd and sets ADDR to where it listens.
start_thriftd() {
	local label=$1 log="$tmp/thriftd-$1.log" i
	shift
	mkdir -p "$tmp/$label"
	# Created here, not by the background start's redirection, which may
	# come after the first look at it below.
	: >"$log"
	# The working directory holds the paths storage-conf.xml names.
	(cd "$tmp/$label" && exec "$bin" -config "$OLDPWD/test/java/storage-conf.xml" -listen 127.0.0.1:0 \
		-admin off -log-format json -api auto "$@") 2>"$log" &
	pids+=($!)
	ADDR=
	for ((i = 0; i < 300; i++)); do
		ADDR=$(sed -n 's/.*"msg":"thriftd is serving","listen":"\([^"]*\)".*/\1/p' "$log" | head -n 1)
		[ -n "$ADDR" ] && return 0
		kill -0 "${pids[-1]}" 2>/dev/null || break
		sleep 0.1
	done
	cat "$log" >&2
	echo "java: thriftd ($label) did not start" >&2
	exit 1
}

# stop_thriftd LABEL stops the last thriftd started. The programs' whole
# session must leave no warning or error in its log: the empty frame both
# libraries send before closing a connection is a goodbye, not a fault.
stop_thriftd() {
	local pid=${pids[-1]} log="$tmp/thriftd-$1.log" bad
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	unset 'pids[-1]'
	bad=$(grep -E '"level":"(WARN|ERROR)"' "$log" || true)
	if [ -n "$bad" ]; then
		printf '%s\n' "$bad" | tail -n 30 >&2
		echo "java: thriftd ($1) logged $(printf '%s\n' "$bad" | wc -l) warnings or errors while serving the programs" >&2
		failed+=("thriftd's log on $1")
	fi
}

# run_tls STORE FLAGS... runs the programs over TLS on the Thrift port of a
# thriftd on STORE (leveldb or cassandra, FLAGS saying where it stores), set
# up as a Cassandra 3.11 operator's would be: a JKS keystore made by keytool,
# converted to PKCS12 by the keytool command of docs/security.md, and
# client_encryption_options copied into thriftd.yaml. Hector takes its
# TLS settings from the system properties ssl.truststore,
# ssl.truststore.password, ssl.store.type and ssl.protocol; the Astyanax
# program reads the same into an SSLConnectionContext, whose default
# cipher suites (TLS_RSA_WITH_AES_128_CBC_SHA, ..._256_...) need an RSA key
# and the server to list them. Neither library presents client
# certificates (test/python19/test_tls19.py checks those).
run_tls() {
	local store=$1 d="$tmp/tls-certs" kt="$JAVA_HOME/bin/keytool" pw=cassandra
	shift
	if [ ! -e "$d/thriftd.yaml" ]; then
		mkdir -p "$d"
		{
			"$kt" -genkeypair -alias thriftd -keyalg RSA -keysize 2048 -dname CN=localhost \
				-ext san=dns:localhost,ip:127.0.0.1 -validity 2 -storetype JKS -keystore "$d/keystore.jks" \
				-storepass $pw -keypass $pw
			"$kt" -importkeystore -srckeystore "$d/keystore.jks" -srcstoretype JKS -destkeystore "$d/keystore.p12" \
				-deststoretype PKCS12 -srcstorepass $pw -deststorepass $pw -noprompt
			"$kt" -exportcert -alias thriftd -keystore "$d/keystore.p12" -storepass $pw -file "$d/thriftd.crt"
			"$kt" -importcert -noprompt -alias thriftd -file "$d/thriftd.crt" -storetype PKCS12 \
				-keystore "$d/truststore.p12" -storepass $pw
		} >"$tmp/keytool.log" 2>&1 || { cat "$tmp/keytool.log" >&2; echo "java: keytool failed" >&2; exit 1; }
		cat >"$d/thriftd.yaml" <<EOF
storage_conf: $PWD/test/java/storage-conf.xml
client_encryption_options:
  enabled: true
  keystore: keystore.p12
  keystore_password: $pw
  store_type: PKCS12
  protocol: TLS
  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_RSA_WITH_AES_128_CBC_SHA, TLS_RSA_WITH_AES_256_CBC_SHA]
EOF
	fi
	start_thriftd "tls-$store" -config "$d/thriftd.yaml" "$@"
	# Hector and Astyanax only: JanusGraph 0.5.3's Thrift backend takes
	# its TLS settings from its own configuration, not these properties.
	local all=("${programs[@]}")
	programs=("${all[@]:0:2}")
	run_programs "$ADDR" "thriftd on $store over TLS" -Dssl.truststore="$d/truststore.p12" -Dssl.truststore.password=$pw \
		-Dssl.store.type=PKCS12 -Dssl.protocol=TLS
	programs=("${all[@]}")
	stop_thriftd "tls-$store"
}

if [ "$against" = reference ]; then
	t=$SECONDS
	addr=$(test/cassandra/reference start 1.2 | tail -n 1)
	echo "java: Cassandra 1.2.19 at $addr ready after $((SECONDS - t)) s"
	run_programs "$addr" "Cassandra 1.2.19"
elif [ -n "$against" ]; then
	run_programs "$against" "the server given"
else
	if [ -n "$canary" ]; then
		programs=(canary:Canary)
		run_programs none "thriftd on $stores"
		stores=
	fi
	# The reference run is skipped when the same programs passed against
	# 1.2.19 on this machine before (reference_key in
	# test/suites/lib/suite.bash).
	key=$(reference_key java test/java)
	if [ -n "${THRIFTD_REFERENCE_12:-}" ] && [ -z "$canary" ] && reference_passed "$key"; then
		echo "java: Hector and Astyanax against Cassandra 1.2.19: passed before with these files ($reference_passes/$key); not run again"
	elif [ -n "${THRIFTD_REFERENCE_12:-}" ] && [ -z "$canary" ]; then
		# A start reuses the node test/run-all started. JanusGraph's
		# tests take minutes per server, so here they run on thriftd
		# only; --reference runs them against 1.2.19 (67 passed).
		addr=$(test/cassandra/reference start 1.2 | tail -n 1)
		all=("${programs[@]}")
		programs=("${all[@]:0:2}")
		run_programs "$addr" "Cassandra 1.2.19"
		programs=("${all[@]}")
		[ ${#failed[@]} -gt 0 ] || reference_pass "$key"
	fi
	bin=${THRIFTD_BIN:-}
	if [ -z "$bin" ] && [ -n "$stores" ]; then
		go build -o "$tmp/thriftd" ./cmd/thriftd
		bin=$tmp/thriftd
	fi
	for store in $stores; do
		if [ "$store" = leveldb ]; then
			start_thriftd leveldb -data "$tmp/leveldb/data"
			run_programs "$ADDR" "thriftd on LevelDB"
			stop_thriftd leveldb
			run_tls leveldb -data "$tmp/leveldb-tls/data"
		else
			# A start reuses the running node, or restarts one that an
			# earlier suite stopped.
			t=$SECONDS
			points=$(test/cassandra/cluster start random | tail -n 1)
			echo "java: Cassandra node random at $points ready after $((SECONDS - t)) s"
			prefix=t$(od -An -N5 -tx1 /dev/urandom | tr -d ' \n')_
			start_thriftd cassandra -cassandra "$points" -cassandra-prefix "$prefix"
			run_programs "$ADDR" "thriftd on Cassandra"
			stop_thriftd cassandra
			# Over TLS, under a keyspace prefix of its own: the programs
			# expect to start from an empty cluster.
			tls_prefix=${prefix}tls_
			run_tls cassandra -cassandra "$points" -cassandra-prefix "$tls_prefix"
			if [ "${THRIFTD_CASSANDRA_KEEP_KEYSPACES:-}" != 1 ]; then
				for p in "$prefix" "$tls_prefix"; do
					"$bin" -config test/java/storage-conf.xml -cassandra "$points" -cassandra-prefix "$p" \
						-cassandra-drop >/dev/null 2>&1 || echo "java: dropping the keyspaces of $p failed" >&2
				done
			fi
		fi
	done
fi

echo
if [ ${#failed[@]} -gt 0 ]; then
	echo "java: FAILED: ${failed[*]} (after $((SECONDS - t0)) s)" >&2
	exit 1
fi
echo "java: every program passed in $((SECONDS - t0)) s"
