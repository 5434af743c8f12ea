package config

import (
	"os"
	"testing"

	"github.com/thriftd/thriftd/internal/testenv"
)

// fixture returns the path of a file in test/fixtures.
func fixture(t testing.TB, name string) string { return testenv.Fixture(name) }

func readFixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(fixture(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
