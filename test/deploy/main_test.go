//go:build deploy

// Package deploy tests what an operator deploys thriftd with
// (docs/operations.md): the container image of deploy/Containerfile run by
// podman, the systemd unit checked by systemd-analyze, the Prometheus rules
// loaded by promtool, and the admin endpoint's status page in headless
// Chromium. It needs those programs, which test/suites/ops.sh installs, and
// so builds only with -tags deploy: test/suites/ops.sh runs it.
package deploy

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/internal/testenv"
)

var thriftdBin string

func TestMain(m *testing.M) { testenv.Main(m, false, &thriftdBin) }

// command runs name with args and returns its combined output, failing the
// test with it when the command fails.
func command(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := run(name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

func run(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = testenv.RepoRoot()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// need fails the test when a program the suite installs is missing.
func need(t *testing.T, prog, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(prog)
	if err != nil {
		t.Fatalf("%s is missing: test/suites/ops.sh installs it (apt-get install %s)", prog, pkg)
	}
	return p
}

func readRepo(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(testenv.RepoRoot() + "/" + path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var execCommand = exec.CommandContext

func ctx() context.Context { return context.Background() }

// repoCmd prepares a command run in the repository.
func repoCmd(name string, args ...string) *exec.Cmd {
	cmd := execCommand(context.Background(), name, args...)
	cmd.Dir = testenv.RepoRoot()
	return cmd
}
