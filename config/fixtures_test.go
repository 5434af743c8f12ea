package config

import (
	"os"
	"path/filepath"
	"testing"
)

// repoRoot is the directory holding go.mod, found by walking up from the
// package directory so tests do not depend on where they are run from.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

// fixture returns the path of a file in the shared fixtures directory,
// which sits beside the repository.
func fixture(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(repoRoot(t), "..", "shared", "fixtures", name)
}

func readFixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(fixture(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
