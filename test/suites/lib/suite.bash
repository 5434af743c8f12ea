# Sourced by every script of test/suites (and by test/run-all): the canary
# hook that proves a suite's failure fails the run, and the timing of its
# phases.
#
# The canary. A suite wraps each of its checks (a runner: pytest, go test,
# minitest, a Java program, a benchmark's asserts) in `if check NAME; then
# ... fi`, NAME unique in the whole run (a store's rerun adds @cassandra).
# With THRIFTD_TEST_CANARY unset, every check runs. With
#   THRIFTD_TEST_CANARY=list   a suite prints "canary: NAME" for each of its
#                              checks and runs none of them;
#   THRIFTD_TEST_CANARY=NAME   it runs only the check NAME, and that check
#                              runs only an injected test that fails with
#                              "THRIFTD CANARY NAME" (canary_python,
#                              canary_go_packages, ... below make it).
# test/run-all's self-check runs every listed check in its canary mode
# through the same wiring as a real run and fails unless each run exits
# non-zero, shows the canary's failure and names the suite. A new suite
# script needs one line before its (first) runner:
#   check mysuite || exit 0
# (or `if check mysuite; then ... fi` around each runner when it has
# several), and in canary mode runs its runner on the injected test.

canary=${THRIFTD_TEST_CANARY:-}

# check NAME: whether the check NAME is to run (see above).
check() {
	case $canary in
	"") return 0 ;;
	list)
		echo "canary: $1"
		return 1
		;;
	"$1") return 0 ;;
	*) return 1 ;;
	esac
}

# canary_dir: the directory of the injected tests: $THRIFTD_CANARY_DIR
# (test/run-all's, removed when it exits), else a new temporary directory
# (a canary run by hand leaves it behind in $TMPDIR).
canary_tmp=
if [ -n "$canary" ] && [ "$canary" != list ]; then
	canary_tmp=${THRIFTD_CANARY_DIR:-$(mktemp -d)}
	mkdir -p "$canary_tmp"
fi
canary_dir() {
	echo "$canary_tmp"
}

# canary_python: the path of a pytest file whose one test fails, naming the
# check (Python 2 and 3).
canary_python() {
	local f
	f=$(canary_dir)/test_canary_${canary//[^A-Za-z0-9]/_}.py
	printf 'def test_canary():\n    assert False, "THRIFTD CANARY %s"\n' "$canary" >"$f"
	echo "$f"
}

# canary_ruby: the path of a minitest file whose one test fails.
canary_ruby() {
	local f
	f=$(canary_dir)/test_canary.rb
	cat >"$f" <<EOF
require 'minitest/autorun'
class CanaryTest < Minitest::Test
  def test_canary
    flunk "THRIFTD CANARY $canary"
  end
end
EOF
	echo "$f"
}

# canary_go_overlay PKGDIR KIND: the -overlay file of go test that adds a
# failing test (KIND test) or fuzz target (KIND fuzz) to the package in
# PKGDIR (relative to the repository), without touching the tree.
canary_go_overlay() {
	local dir=$1 kind=$2 d name src
	d=$(canary_dir)
	name=$(go list -f '{{.Name}}' "./$dir")
	if [ "$kind" = fuzz ]; then
		src="package ${name}_test

import \"testing\"

func FuzzCanary(f *testing.F) {
	f.Add([]byte(\"x\"))
	f.Fuzz(func(t *testing.T, b []byte) { t.Fatal(\"THRIFTD CANARY $canary\") })
}
"
	else
		src="package ${name}_test

import \"testing\"

func TestCanary(t *testing.T) { t.Fatal(\"THRIFTD CANARY $canary\") }
"
	fi
	printf '%s' "$src" >"$d/canary_test.go"
	printf '{"Replace":{"%s":"%s"}}\n' "$PWD/$dir/zz_canary_test.go" "$d/canary_test.go" >"$d/overlay.json"
	echo "$d/overlay.json"
}

# canary_go_packages PKG...: the packages of a go test command, or in a
# canary run the canary test alone: "-overlay FILE -run ^TestCanary$
# ./marshal" (go test takes the last -run; marshal is quick to build).
canary_go_packages() {
	if [ -z "$canary" ]; then
		printf '%s\n' "$@"
		return
	fi
	printf '%s\n' -overlay "$(canary_go_overlay marshal test)" -run '^TestCanary$' ./marshal
}

# phase NAME SECONDS: records a phase's time, and when it started (in
# seconds from $THRIFTD_RUN_EPOCH, the run's start), in $THRIFTD_PHASES
# (both set by test/run-all), which prints them as a table when it ends.
# Phases of lanes that run at once overlap.
phase() {
	[ -n "${THRIFTD_PHASES:-}" ] && [ -z "$canary" ] || return 0
	printf '%s\t%s\t%s\n' "$1" "$2" $((EPOCHSECONDS - ${THRIFTD_RUN_EPOCH:-$EPOCHSECONDS} - $2)) >>"$THRIFTD_PHASES"
}

# The reference runs. A client suite runs against the real Cassandra
# 1.2.19 first to prove its own expectations; that proof holds as long as
# the suite's files and the reference are what they were. reference_key
# NAME PATH... is a key of the files under the paths (their contents) and
# of the reference's version; reference_passed KEY says whether a run with
# that key passed on this machine before (a file under
# ~/.cache/thriftd/reference-passes); reference_pass KEY records a pass.
# THRIFTD_REFERENCE_ALWAYS=1 runs the reference runs whatever is cached.
reference_passes=${THRIFTD_REFERENCE_PASSES:-$HOME/.cache/thriftd/reference-passes}
reference_key() {
	local name=$1
	shift
	printf '%s-%s\n' "$name" "$({
		echo "Cassandra 1.2.19"
		find "$@" -type f ! -name '*.pyc' ! -path '*/__pycache__/*' ! -path '*/target/*' -print0 |
			sort -z | xargs -0 sha256sum
	} | sha256sum | cut -c1-16)"
}
reference_passed() {
	[ "${THRIFTD_REFERENCE_ALWAYS:-}" != 1 ] && [ -e "$reference_passes/$1" ]
}
reference_pass() {
	mkdir -p "$reference_passes"
	date -u +%FT%TZ >"$reference_passes/$1"
}

# The test clients' JVMs (the Java programs, Hadoop's jobs, Maven) run the
# client JIT alone and the serial collector: they live for seconds to
# minutes, and C2's compiles and G1's threads cost more than they save.
# The Java programs on LevelDB so spent 27 s of CPU, against 52 s.
client_jvm=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC)
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }${client_jvm[*]}"
