#!/usr/bin/env bash
# Records the JSON files of this directory: Cassandra 1.2.19's own
# sstable2json (org.apache.cassandra.tools.SSTableExport, from the jars
# test/cassandra/reference fetches) run on the sstables of the keyspace
# Dump12 that internal/transfertest/record12 loads into the reference node.
# Needs jcmd (openjdk-17-jdk-headless) to flush. Also writes schema.json (the keyspace as the node describes it) and
# expected.json (every live column as the node answers it through Thrift),
# which TestImportCassandra12Dump (cmd/thriftd-tool) compares an import
# of the dumps with.
#
# With the argument "counters" it records the keyspace Counters12 of
# counter families (record12 -counters) into counters/ instead, whose
# expected.json holds every counter's total.
#
#   sstablejson/testdata/1.2/record.sh [counters]     # from the repository's root
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=sstablejson/testdata/1.2
ks=Dump12
flags=()
if [ "${1:-}" = counters ]; then
	out=$out/counters
	ks=Counters12
	flags=(-counters)
fi
addr=$(test/cassandra/reference start 1.2 | tail -n 1)
run=${THRIFTD_REFERENCE_RUN:-/tmp/thriftd-reference}
node=$run/1.2-random
lib=${THRIFTD_REFERENCE_CACHE:-$HOME/.cache/thriftd}/cassandra-1.2.19-reference/lib
java=${THRIFTD_REFERENCE_JAVA:-/usr/lib/jvm/java-17-openjdk-amd64/bin/java}

mkdir -p "$out"
rm -f "$out"/*.json
go run ./internal/transfertest/record12 "${flags[@]}" -addr "$addr" -out "$out"

quiet=$(mktemp)
trap 'rm -f "$quiet" "$quiet.err"' EXIT
echo "log4j.rootLogger=OFF" >"$quiet"
opens=()
for m in java.io java.nio sun.nio.ch java.lang java.lang.reflect java.util java.util.concurrent \
	java.util.concurrent.atomic java.net java.math java.lang.ref java.util.concurrent.locks \
	java.nio.charset sun.nio.cs java.security java.text java.time jdk.internal.misc jdk.internal.ref; do
	opens+=("--add-opens=java.base/$m=ALL-UNNAMED")
done
# Flush the keyspace with 1.2's nodetool (NodeCmd) over JMX, which the
# node opens on loopback for the while (jcmd, from the JDK, starts its
# management agent), so that every write is in an sstable.
jcmd=$(dirname "$(readlink -f "$java")")/jcmd
jmx=17299
"$jcmd" "$(cat "$node/pid")" ManagementAgent.start jmxremote.port=$jmx jmxremote.host=127.0.0.1 \
	jmxremote.authenticate=false jmxremote.ssl=false jmxremote.rmi.port=$jmx >/dev/null
trap 'rm -f "$quiet" "$quiet.err"; "$jcmd" "$(cat "$node/pid")" ManagementAgent.stop >/dev/null' EXIT
# 1.2's NodeCmd writes the host in brackets, which Java 17 parses only in
# its legacy mode.
"$java" "${opens[@]}" -Xmx128m -Dcom.sun.jndi.rmiURLParsing=legacy "-Dlog4j.configuration=file://$quiet" \
	-cp "$node/conf:$lib/*" org.apache.cassandra.tools.NodeCmd -h 127.0.0.1 -p $jmx flush "$ks"
for data in "$node"/data/data/"$ks"/*/*-Data.db; do
	cf=$(basename "$(dirname "$data")")
	gen=$(basename "$data" | sed -E 's/.*-([0-9]+)-Data\.db/\1/')
	# The node may compact its schema tables under SSTableExport, which
	# reads them to learn the schema: try again.
	for try in 1 2 3 4 5 6; do
		TZ=UTC "$java" "${opens[@]}" -Xmx256m -Duser.timezone=UTC \
			"-Dcassandra.config=file://$node/conf/cassandra.yaml" "-Dlog4j.configuration=file://$quiet" \
			-cp "$node/conf:$lib/*" org.apache.cassandra.tools.SSTableExport "$data" >"$out/$cf-$gen.json" 2>"$quiet.err" && break
		[ "$try" = 6 ] && { cat "$quiet.err" >&2; exit 1; }
		sleep 2
	done
	echo "recorded $out/$cf-$gen.json"
done
go run ./internal/transfertest/record12 "${flags[@]}" -addr "$addr" -drop
