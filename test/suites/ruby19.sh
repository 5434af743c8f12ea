#!/usr/bin/env bash
# The 19.x Ruby suite (test/ruby19, minitest): the generated 19.x bindings
# (clients/ruby/lib/cassandra_thrift19) used as the Ruby cassandra gem's
# 1.x releases use them, against the real thriftd serving the 19.x API.
# The gem itself is not used: it is not packaged by Debian, and RubyGems is
# not among the registries the tests may reach. Uses Debian's ruby with
# ruby-thrift; thriftd is $THRIFTD_BIN, else built here.
# THRIFTD_TEST_BACKEND=cassandra runs it on the Cassandra store (the node
# $THRIFTD_CASSANDRA_RANDOM; test/suites/cassandra.sh does);
# THRIFTD19_TARGET=host:port runs it against another 19.x server instead,
# such as the real Cassandra 1.2.19 of test/cassandra/reference.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/suites/lib/suite.bash
name=ruby19
[ "${THRIFTD_TEST_BACKEND:-leveldb}" = leveldb ] || name=ruby19@cassandra
check "$name" || exit 0
tests=(test/ruby19/test_*.rb)
# The canary fails against thriftd, not the reference node.
[ -z "$canary" ] || { tests=("$(canary_ruby)"); unset THRIFTD_REFERENCE_12; }

ruby=/usr/bin/ruby
if ! "$ruby" -e 'require "thrift"; require "minitest"' 2>/dev/null; then
	echo "the Ruby 19.x suite needs Debian's ruby and ruby-thrift (apt-get install ruby ruby-thrift)" >&2
	exit 1
fi

if [ -z "${THRIFTD_BIN:-}" ] && [ -z "$canary" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	go build -o "$tmp/thriftd" ./cmd/thriftd
	export THRIFTD_BIN="$tmp/thriftd"
fi

# When test/run-all has started the reference node ($THRIFTD_REFERENCE_12),
# the suite runs against it first, so that a failure on thriftd is known
# not to be the suite's own expectation (once, not again on the Cassandra
# store).
# It is skipped when the same suite passed against 1.2.19 on this machine
# before (reference_key in test/suites/lib/suite.bash).
key=$(reference_key ruby19 test/ruby19 test/ruby/helper.rb clients/ruby/lib)
if [ -n "${THRIFTD_REFERENCE_12:-}" ] && [ -z "${THRIFTD19_TARGET:-}" ] && [ "${THRIFTD_TEST_BACKEND:-leveldb}" = leveldb ] &&
	reference_passed "$key"; then
	echo "against Cassandra 1.2.19: passed before with these files ($reference_passes/$key); not run again"
elif [ -n "${THRIFTD_REFERENCE_12:-}" ] && [ -z "${THRIFTD19_TARGET:-}" ] && [ "${THRIFTD_TEST_BACKEND:-leveldb}" = leveldb ]; then
	# A start reuses the node test/run-all started.
	addr=$(test/cassandra/reference start 1.2 | tail -n 1)
	echo "against Cassandra 1.2.19 at $addr"
	THRIFTD19_TARGET=$addr "$ruby" -e 'ARGV.each { |f| require File.expand_path(f) }' "${tests[@]}"
	reference_pass "$key"
	echo "against thriftd"
fi
"$ruby" -e 'ARGV.each { |f| require File.expand_path(f) }' "${tests[@]}"
