// Package reliability runs the real thriftd binary and checks what survives:
// SIGKILL in the middle of writes, hostile bytes on the socket, invalid
// data, many connections, damaged or full storage and a changed schema.
//
// The default run is short enough for CI. THRIFTD_LONG=1 runs the longer
// versions (more kill cycles, more connections, longer loads). THRIFTD_BIN
// names a prebuilt binary; otherwise TestMain builds one.
package reliability

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/internal/testenv"
)

var (
	thriftdBin string
	// longRun selects the longer versions of the tests.
	longRun = os.Getenv("THRIFTD_LONG") != ""
)

func TestMain(m *testing.M) {
	// Built without the race detector: these tests measure the process
	// (memory, timing of kills), which the detector distorts.
	testenv.Main(m, false, &thriftdBin)
}

// fixture returns the path of a shared fixture file.
func fixture(name string) string { return testenv.Fixture(name) }

const (
	testConf    = "storage-conf-0.6-test.xml"    // batch commit log, COPP
	defaultConf = "storage-conf-0.6-default.xml" // periodic commit log, RandomPartitioner
)

// node is a thriftd process of these tests.
type node = testenv.Node

// client is a connection to one.
type client = testenv.Client

// newNode prepares a thriftd on config (a path) with a fresh data
// directory; Start runs it.
func newNode(t testing.TB, config string, extra ...string) *node {
	return testenv.NewNode(t, thriftdBin, config, extra...)
}

// startNode is newNode then Start.
func startNode(t testing.TB, config string, extra ...string) *node {
	t.Helper()
	n := newNode(t, config, extra...)
	n.Start()
	return n
}

func dial(addr string, framed bool, timeout time.Duration) (*client, error) {
	return testenv.Dial(addr, framed, timeout)
}

var ctx = context.Background()

// writeConfig writes a variant of a fixture (the fixture itself is never
// changed): each pair of edits replaces an exact substring, which must be
// present.
func writeConfig(t testing.TB, name string, edits ...string) string {
	t.Helper()
	b, err := os.ReadFile(fixture(name))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for i := 0; i+1 < len(edits); i += 2 {
		if !strings.Contains(s, edits[i]) {
			t.Fatalf("%s does not contain %q", name, edits[i])
		}
		s = strings.Replace(s, edits[i], edits[i+1], 1)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
