// Package testenv locates what tests share: the repository, the fixture
// configurations in test/fixtures, and a thriftd binary for whole-process tests.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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

// Thriftd returns the thriftd binary for whole-process tests: $THRIFTD_BIN
// when set, else one built into a temporary directory, with the race
// detector if race is true. cleanup removes what was built.
func Thriftd(race bool) (path string, cleanup func(), err error) {
	if bin := os.Getenv("THRIFTD_BIN"); bin != "" {
		return bin, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "thriftd-test")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, "thriftd")
	args := []string{"build", "-o", path}
	if race {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "./cmd/thriftd")...)
	build.Dir = RepoRoot()
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("building thriftd: %w", err)
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
