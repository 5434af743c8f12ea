#!/usr/bin/env bash
# The 19.x Python suite (test/python19, pytest): the generated 19.x
# bindings (clients/python/cassandra19) used as pycassa 1.x uses them,
# against the real thriftd serving the 19.x API. Uses Debian's
# /usr/bin/python3 with python3-thrift and python3-pytest; thriftd is
# $THRIFTD_BIN, else built here. THRIFTD_TEST_BACKEND=cassandra runs it on
# the Cassandra store (test/suites/cassandra.sh does);
# THRIFTD19_TARGET=host:port runs it against another 19.x server instead,
# such as the real Cassandra 1.2.19 of test/cassandra/reference.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/suites/lib/suite.bash
name=python19
[ "${THRIFTD_TEST_BACKEND:-leveldb}" = leveldb ] || name=python19@cassandra
check "$name" || exit 0
tests=(test/python19)
# The canary fails against thriftd, not the reference node.
[ -z "$canary" ] || { tests=("$(canary_python)"); unset THRIFTD_REFERENCE_12; }

python=/usr/bin/python3
if ! "$python" -c 'import thrift, pytest' 2>/dev/null; then
	echo "the Python 19.x suite needs Debian's python3-thrift and python3-pytest (apt-get install python3-thrift python3-pytest)" >&2
	exit 1
fi

if ! command -v openssl >/dev/null; then
	# test_tls19.py makes its certificates at run time.
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	echo "python19: installing openssl" >&2
	$sudo apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq openssl >&2
fi

if [ -z "${THRIFTD_BIN:-}" ] && [ -z "$canary" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	go build -o "$tmp/thriftd" ./cmd/thriftd
	export THRIFTD_BIN="$tmp/thriftd"
fi

export PYTHONDONTWRITEBYTECODE=1
# When test/run-all has started the reference node ($THRIFTD_REFERENCE_12),
# the suite runs against it first, so that a failure on thriftd is known
# not to be the suite's own expectation (once, not again on the Cassandra
# store).
# It is skipped when the same suite passed against 1.2.19 on this machine
# before (reference_key in test/suites/lib/suite.bash).
key=$(reference_key python19 test/python19 test/python/support.py clients/python/cassandra19)
if [ -n "${THRIFTD_REFERENCE_12:-}" ] && [ -z "${THRIFTD19_TARGET:-}" ] && [ "${THRIFTD_TEST_BACKEND:-leveldb}" = leveldb ] &&
	[ $# -eq 0 ] && reference_passed "$key"; then
	echo "against Cassandra 1.2.19: passed before with these files ($reference_passes/$key); not run again"
elif [ -n "${THRIFTD_REFERENCE_12:-}" ] && [ -z "${THRIFTD19_TARGET:-}" ] && [ "${THRIFTD_TEST_BACKEND:-leveldb}" = leveldb ]; then
	# A start reuses the node test/run-all started.
	addr=$(test/cassandra/reference start 1.2 | tail -n 1)
	echo "against Cassandra 1.2.19 at $addr"
	# The transport and TLS tests are about thriftd's own rules and start
	# thriftd.
	THRIFTD19_TARGET=$addr "$python" -m pytest -p no:cacheprovider -q -ra test/python19 \
		--ignore=test/python19/test_transport19.py --ignore=test/python19/test_tls19.py "$@"
	[ $# -gt 0 ] || reference_pass "$key"
	echo "against thriftd"
fi
"$python" -m pytest -p no:cacheprovider -q -ra "${tests[@]}" "$@"
