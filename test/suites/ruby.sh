#!/usr/bin/env bash
# The Ruby interop suite (test/ruby, minitest): the generated bindings and
# the client in clients/ruby against real thriftd processes, and the Ruby
# example. Uses Debian's ruby with ruby-thrift; thriftd is $THRIFTD_BIN,
# else built here.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/suites/lib/suite.bash
check ruby || exit 0
tests=(test/ruby/test_*.rb)
[ -z "$canary" ] || tests=("$(canary_ruby)")

ruby=/usr/bin/ruby
if ! "$ruby" -e 'require "thrift"; require "minitest"' 2>/dev/null; then
	echo "the Ruby suite needs Debian's ruby and ruby-thrift (apt-get install ruby ruby-thrift)" >&2
	exit 1
fi

if [ -z "${THRIFTD_BIN:-}" ] && [ -z "$canary" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	go build -o "$tmp/thriftd" ./cmd/thriftd
	export THRIFTD_BIN="$tmp/thriftd"
fi

"$ruby" -e 'ARGV.each { |f| require File.expand_path(f) }' "${tests[@]}"
