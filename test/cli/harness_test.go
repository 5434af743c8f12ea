// Package cli runs the thriftd-cli binary against a real thriftd: batch
// mode through -e, -f and standard input with its output and exit status
// checked, and the interactive shell through a real pseudo-terminal.
package cli

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/internal/testenv"
)

var thriftdBin, cliBin string

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	path, cleanup, err := testenv.Thriftd(true)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cleanup()
	thriftdBin = path
	cli, cleanupCLI, err := testenv.Binary("thriftd-cli", true)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cleanupCLI()
	cliBin = cli
	return m.Run()
}

// testConfig is Cassandra 0.6's test configuration: every comparator and
// both column family types, five keyspaces.
var testConfig = testenv.Fixture("storage-conf-0.6-test.xml")

// defaultConfig is the repository's default: Keyspace1 and system.
var defaultConfig = filepath.Join(testenv.RepoRoot(), "storage-conf.xml")

func start(t *testing.T, config string, extra ...string) *testenv.Node {
	t.Helper()
	n := testenv.NewNode(t, thriftdBin, config, extra...)
	n.Start()
	return n
}

// hostPort splits a node's address into --host and --port arguments.
func hostPort(t *testing.T, n *testenv.Node) []string {
	t.Helper()
	host, port, err := net.SplitHostPort(n.Addr)
	if err != nil {
		t.Fatal(err)
	}
	return []string{"--host", host, "--port", port}
}

// result is one run of thriftd-cli.
type result struct {
	stdout, stderr string
	code           int
}

// runCLI runs thriftd-cli to completion with args and stdin, with HOME in
// a temporary directory.
func runCLI(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(cliBin, args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errOut.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"panic", "goroutine ", "DATA RACE"} {
		if strings.Contains(r.stderr, bad) {
			t.Fatalf("thriftd-cli %q wrote %q:\n%s", args, bad, r.stderr)
		}
	}
	return r
}
