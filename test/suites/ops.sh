#!/usr/bin/env bash
# What an operator deploys thriftd with (test/deploy, docs/operations.md):
# the container image of deploy/Containerfile built and run with podman
# (a client writes, the container stops on SIGTERM, a new one reads the
# data back from the volume), the systemd unit under systemd-analyze
# verify, the Prometheus rules under promtool, the Grafana dashboard, and
# the admin endpoint's status page in headless Chromium. Installs podman,
# runc, prometheus (promtool), chromium and systemd when missing. The check
# that every metric of the dashboard and the rules is exported, on both
# stores, runs with go test in test/ops.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/suites/lib/suite.bash
check ops || exit 0

need=()
command -v podman >/dev/null || need+=(podman)
# crun, podman's default, refuses hosts with cgroups v1 or hybrid; runc
# runs there (test/deploy picks it on such a host).
command -v runc >/dev/null || need+=(runc)
command -v promtool >/dev/null || need+=(prometheus)
command -v chromium >/dev/null || need+=(chromium)
command -v systemd-analyze >/dev/null || need+=(systemd)
if [ ${#need[@]} -gt 0 ]; then
	echo "installing ${need[*]}"
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq
	# policy-rc.d keeps the prometheus package's service from starting.
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

t=$SECONDS
go vet -tags deploy ./test/deploy
# shellcheck disable=SC2046 # the packages are words
go test -tags deploy -count=1 -timeout 30m -v $(canary_go_packages ./test/deploy) 2>&1 |
	grep --line-buffered -E '^(=== RUN|--- |\s+\S+_test.go:|PASS|FAIL|ok)'
echo "test/deploy took $((SECONDS - t)) s"
