package testenv

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// ReferenceScript is the path of test/cassandra/reference, which fetches,
// starts and stops the real Cassandra 1.2.19 and 2.1.21 nodes the 19.x API
// is compared with, and the 3.11.19 node a move off Cassandra 3.11 starts
// from.
func ReferenceScript() string {
	return filepath.Join(RepoRoot(), "test", "cassandra", "reference")
}

// references caches the addresses of the reference nodes this process
// started, by "VERSION PARTITIONER".
var references = struct {
	sync.Mutex
	addrs map[string]string
}{addrs: map[string]string{}}

// Reference returns the Thrift address ("127.0.0.1:19160") of a running
// real Cassandra node of version ("1.2", "2.1" or "3.11") with partitioner
// ("random" or "byteordered"). For 1.2 on RandomPartitioner it comes from
// $THRIFTD_REFERENCE_12 when set (test/run-all starts that node and exports
// it), for 2.1 from $THRIFTD_REFERENCE_21, for 3.11 from
// $THRIFTD_REFERENCE_311, for the auth nodes 2.1-auth and 3.11-auth from
// $THRIFTD_REFERENCE_21_AUTH and $THRIFTD_REFERENCE_311_AUTH; otherwise the script's start runs under a file
// lock, reusing a node already running. It fails the test, never skips,
// when no node can be had.
func Reference(t testing.TB, version, partitioner string) string {
	t.Helper()
	if partitioner == "random" {
		env := strings.ToUpper(strings.ReplaceAll(strings.ReplaceAll(version, ".", ""), "-", "_"))
		if a := os.Getenv("THRIFTD_REFERENCE_" + env); a != "" {
			return a
		}
	}
	key := version + " " + partitioner
	references.Lock()
	defer references.Unlock()
	if a, ok := references.addrs[key]; ok {
		return a
	}
	a, err := startReference(version, partitioner)
	if err != nil {
		t.Fatalf("cannot start the reference Cassandra %s node (%s): %v", version, partitioner, err)
	}
	references.addrs[key] = a
	return a
}

// startReference runs the script's start while holding a lock file of
// the run directory, so that test packages running in parallel start the
// node once.
func startReference(version, partitioner string) (string, error) {
	run := os.Getenv("THRIFTD_REFERENCE_RUN")
	if run == "" {
		run = "/tmp/thriftd-reference"
	}
	if err := os.MkdirAll(run, 0o755); err != nil {
		return "", err
	}
	lock, err := os.OpenFile(filepath.Join(run, "testenv-"+version+"-"+partitioner+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("lock %s: %w", lock.Name(), err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	// A first start fetches the jars (about 15 MB) and boots the JVM.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, ReferenceScript(), "start", version, "--partitioner", partitioner)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s start %s: %v\n%s%s", ReferenceScript(), version, err, stdout.String(), stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	addr := lines[len(lines)-1]
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		return "", fmt.Errorf("%s start %s printed no address:\n%s%s", ReferenceScript(), version, stdout.String(), stderr.String())
	}
	return addr, nil
}

// ReferenceCQL returns the CQL (native protocol) address of the running
// real Cassandra 3.11 node with partitioner, starting it as Reference does
// when needed. Only the 3.11 nodes serve CQL, on fixed ports.
func ReferenceCQL(t testing.TB, version, partitioner string) string {
	t.Helper()
	Reference(t, version, partitioner)
	out, err := exec.Command(ReferenceScript(), "native", version, "--partitioner", partitioner).Output()
	if err != nil {
		t.Fatalf("%s native %s: %v", ReferenceScript(), version, err)
	}
	return strings.TrimSpace(string(out))
}
