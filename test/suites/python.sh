#!/usr/bin/env bash
# The Python interop suite (test/python, pytest): the raw Thrift bindings
# and the client in clients/python against real thriftd processes, and the
# Python example. Uses Debian's /usr/bin/python3 with python3-thrift and
# python3-pytest; thriftd is $THRIFTD_BIN, else built here.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/suites/lib/suite.bash
name=python
[ "${THRIFTD_TEST_BACKEND:-leveldb}" = leveldb ] || name=python@cassandra
check "$name" || exit 0
tests=(test/python)
[ -z "$canary" ] || tests=("$(canary_python)")

python=/usr/bin/python3
if ! "$python" -c 'import thrift, pytest' 2>/dev/null; then
	echo "the Python suite needs Debian's python3-thrift and python3-pytest (apt-get install python3-thrift python3-pytest)" >&2
	exit 1
fi

if [ -z "${THRIFTD_BIN:-}" ] && [ -z "$canary" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	go build -o "$tmp/thriftd" ./cmd/thriftd
	export THRIFTD_BIN="$tmp/thriftd"
fi

export PYTHONDONTWRITEBYTECODE=1
"$python" -m pytest -p no:cacheprovider -q -ra "${tests[@]}" "$@"
