#!/usr/bin/env bash
# The pycassa suite (test/pycassa, pytest under Python 2.7): the real
# pycassa 1.11.2 library from PyPI, pool, SystemManager, ColumnFamily,
# ColumnFamilyMap, against thriftd serving the 19.x API on LevelDB or,
# with THRIFTD_TEST_BACKEND=cassandra (test/suites/cassandra.sh sets it),
# on the Cassandra store in front of test/cassandra/cluster's "random"
# node ($THRIFTD_CASSANDRA_RANDOM, else started or reused).
#
# When test/run-all has started the reference node ($THRIFTD_REFERENCE_12),
# the suite runs against the real Cassandra 1.2.19 first (once, not again
# on the Cassandra store), so that a failure on thriftd is known not to be
# the suite's own expectation. THRIFTD_PYCASSA_TARGET=host:port runs it
# against that server only. thriftd is $THRIFTD_BIN when set, else built
# here. Arguments are passed to pytest.
#
# pycassa 1.11.2 runs on Python 2 only: the interpreter is
# $THRIFTD_PYTHON27, default pyenv's ~/.pyenv/versions/2.7.18/bin/python,
# built with `pyenv install 2.7.18` when missing and pyenv is there. The
# packages of test/pycassa/requirements.txt go into a virtualenv cached in
# $THRIFTD_PYCASSA_VENV (default ~/.cache/thriftd/pycassa-py2.7.18), made
# again when that file changes; a second run needs no network.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/suites/lib/suite.bash
t0=$SECONDS
backend=${THRIFTD_TEST_BACKEND:-leveldb}
case $backend in leveldb | cassandra) ;; *)
	echo "pycassa: THRIFTD_TEST_BACKEND=$backend: want leveldb or cassandra" >&2
	exit 1
	;;
esac
name=pycassa
[ "$backend" = leveldb ] || name=pycassa@cassandra
check "$name" || exit 0

# ---- Python 2.7 and the packages ------------------------------------------

pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
py27=${THRIFTD_PYTHON27:-$pyenv_root/versions/2.7.18/bin/python}
if [ ! -x "$py27" ] && [ -z "${THRIFTD_PYTHON27:-}" ]; then
	pyenv=$(command -v pyenv || true)
	[ -n "$pyenv" ] || [ ! -x "$pyenv_root/bin/pyenv" ] || pyenv=$pyenv_root/bin/pyenv
	if [ -n "$pyenv" ]; then
		echo "pycassa: building Python 2.7.18 with $pyenv install 2.7.18" >&2
		PYENV_ROOT=$pyenv_root "$pyenv" install -s 2.7.18 >&2
	fi
fi
if [ ! -x "$py27" ]; then
	echo "pycassa: the suite needs Python 2.7 (pycassa 1.11.2 runs on Python 2 only) at $py27;" \
		"install pyenv and run 'pyenv install 2.7.18', or point THRIFTD_PYTHON27 at a python2.7" >&2
	exit 1
fi

venv=${THRIFTD_PYCASSA_VENV:-$HOME/.cache/thriftd/pycassa-py2.7.18}
want="$(cat test/pycassa/requirements.txt)
$("$py27" -V 2>&1) at $py27"
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9
if [ "$(cat "$venv/.complete" 2>/dev/null || true)" != "$want" ]; then
	echo "pycassa: making the Python 2.7 virtualenv $venv (PyPI)"
	t=$SECONDS
	rm -rf "$venv"
	mkdir -p "$venv"
	export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_PYTHON_VERSION_WARNING=1
	# Python 2.7 has no venv module: virtualenv 20.15.1, the last that
	# runs on it, is installed beside the environment and makes it.
	if ! { "$py27" -m pip install -q --target "$venv/bootstrap" virtualenv==20.15.1 &&
		PYTHONPATH=$venv/bootstrap "$py27" -m virtualenv -q "$venv/env" &&
		"$venv/env/bin/pip" install -q -r test/pycassa/requirements.txt; } >"$venv.log" 2>&1; then
		cat "$venv.log" >&2
		echo "pycassa: making the virtualenv failed" >&2
		exit 1
	fi
	printf '%s' "$want" >"$venv/.complete"
	echo "pycassa: virtualenv ready in $((SECONDS - t)) s"
fi
flock -u 9
exec 9>&-
python=$venv/env/bin/python
export PYTHONDONTWRITEBYTECODE=1

tests=(test/pycassa)
[ -z "$canary" ] || tests=("$(canary_python)")

# run LABEL ADDR [PYTEST ARGS...] runs the suite against ADDR; its status
# is pytest's (a function's status is its last command's: not the echo's).
run() {
	local label=$1 addr=$2 t=$SECONDS status=0
	shift 2
	echo "pycassa: against $label ($addr)"
	THRIFTD_PYCASSA_TARGET=$addr "$python" -m pytest -p no:cacheprovider -q -ra "${tests[@]}" "$@" || status=$?
	echo "pycassa: against $label took $((SECONDS - t)) s (pytest's status $status)"
	return "$status"
}

if [ -n "${THRIFTD_PYCASSA_TARGET:-}" ]; then
	run "the server given" "$THRIFTD_PYCASSA_TARGET" "$@"
	exit
fi

# The reference run is skipped when the same suite passed against 1.2.19
# on this machine before (reference_key in test/suites/lib/suite.bash).
key=$(reference_key pycassa test/pycassa)
if [ -n "${THRIFTD_REFERENCE_12:-}" ] && [ "$backend" = leveldb ] && [ -z "$canary" ] && [ $# -eq 0 ] && reference_passed "$key"; then
	echo "pycassa: against Cassandra 1.2.19: passed before with these files ($reference_passes/$key); not run again"
elif [ -n "${THRIFTD_REFERENCE_12:-}" ] && [ "$backend" = leveldb ] && [ -z "$canary" ]; then
	# A start reuses the node test/run-all started; the suite drops its
	# keyspace there when it ends.
	addr=$(test/cassandra/reference start 1.2 | tail -n 1)
	run "Cassandra 1.2.19" "$addr" "$@"
	[ $# -gt 0 ] || reference_pass "$key"
fi

# ---- thriftd --------------------------------------------------------------

tmp=$(mktemp -d)
pid=
cleanup() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
bin=${THRIFTD_BIN:-}
if [ -z "$bin" ]; then
	go build -o "$tmp/thriftd" ./cmd/thriftd
	bin=$tmp/thriftd
fi

flags=(-data "$tmp/data")
# The canary runs through the same thriftd start and status as the suite,
# on LevelDB: its test talks to no server.
if [ "$backend" = cassandra ] && [ -z "$canary" ]; then
	points=${THRIFTD_CASSANDRA_RANDOM:-$(test/cassandra/cluster start random | tail -n 1)}
	prefix=t$(od -An -N5 -tx1 /dev/urandom | tr -d ' \n')_
	flags=(-cassandra "$points" -cassandra-prefix "$prefix")
fi
log=$tmp/thriftd.log
: >"$log"
(cd "$tmp" && exec "$bin" -config "$OLDPWD/test/pycassa/storage-conf.xml" -listen 127.0.0.1:0 \
	-admin off -log-format json -api auto "${flags[@]}") 2>"$log" &
pid=$!
addr=
for ((i = 0; i < 300; i++)); do
	addr=$(sed -n 's/.*"msg":"thriftd is serving","listen":"\([^"]*\)".*/\1/p' "$log" | head -n 1)
	[ -n "$addr" ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
if [ -z "$addr" ]; then
	cat "$log" >&2
	echo "pycassa: thriftd did not start" >&2
	exit 1
fi

# thriftd's data is thrown away: the suite need not drop its keyspace.
status=0
THRIFTD_PYCASSA_KEEP_KEYSPACE=1 run "thriftd on $backend" "$addr" "$@" || status=$?
kill "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
pid=
# The whole session must leave no warning or error in thriftd's log.
bad=$(grep -E '"level":"(WARN|ERROR)"' "$log" || true)
if [ -n "$bad" ]; then
	printf '%s\n' "$bad" | tail -n 30 >&2
	echo "pycassa: thriftd logged $(printf '%s\n' "$bad" | wc -l) warnings or errors while serving the suite" >&2
	status=1
fi
if [ "$backend" = cassandra ] && [ -z "$canary" ] && [ "${THRIFTD_CASSANDRA_KEEP_KEYSPACES:-}" != 1 ]; then
	"$bin" -config test/pycassa/storage-conf.xml -cassandra "$points" -cassandra-prefix "$prefix" \
		-cassandra-drop >/dev/null 2>&1 || echo "pycassa: dropping the keyspaces of $prefix failed" >&2
fi
echo "pycassa: done in $((SECONDS - t0)) s"
exit "$status"
