// Package testenv locates what tests share: the repository, the fixture
// configurations in test/fixtures, and a thriftd binary for whole-process tests.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// RepoRoot is the directory holding go.mod.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Fixture is the path of a file in the repository's test/fixtures: legacy
// storage-conf.xml files and the authenticator's property files.
func Fixture(name string) string {
	return filepath.Join(RepoRoot(), "test", "fixtures", name)
}

// Thriftd returns the thriftd binary for whole-process tests (see Binary).
func Thriftd(race bool) (path string, cleanup func(), err error) {
	return Binary("thriftd", race)
}

// Binary returns the binary of ./cmd/NAME (thriftd, thriftd-tool,
// thriftd-cli) for whole-process tests. With race, it is
// $THRIFTD_RACE_BIN, $THRIFTD_TOOL_RACE_BIN or $THRIFTD_CLI_RACE_BIN when
// set (test/run-all builds them once, before go test), else the plain
// binary's variable ($THRIFTD_BIN, $THRIFTD_TOOL_BIN, $THRIFTD_CLI_BIN)
// when set, else one built into a temporary directory, with the race
// detector if race is true. cleanup removes what was built.
func Binary(name string, race bool) (path string, cleanup func(), err error) {
	v := "THRIFTD"
	if short, ok := strings.CutPrefix(name, "thriftd-"); ok {
		v += "_" + strings.ToUpper(short)
	}
	if race {
		if bin := os.Getenv(v + "_RACE_BIN"); bin != "" {
			return bin, func() {}, nil
		}
	}
	if bin := os.Getenv(v + "_BIN"); bin != "" {
		return bin, func() {}, nil
	}
	dir, err := os.MkdirTemp("", name+"-test")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, name)
	args := []string{"build", "-o", path}
	if race {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "./cmd/"+name)...)
	build.Dir = RepoRoot()
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("building %s: %w", name, err)
	}
	return path, cleanup, nil
}

// Main runs a whole-process test package: it finds or builds thriftd (see
// Thriftd), stores its path in *bin, runs the tests, drops the Cassandra
// keyspaces its nodes used (on the Cassandra backend) and exits.
func Main(m *testing.M, race bool, bin *string) {
	path, cleanup, err := Thriftd(race)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*bin = path
	code := m.Run()
	cleanup()
	if err := dropPrefixes(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}
