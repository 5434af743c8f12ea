// Package reliability runs the real thriftd binary and checks what survives:
// SIGKILL in the middle of writes, hostile bytes on the socket, invalid
// data, many connections, damaged or full storage and a changed schema.
//
// The default run is short enough for CI. THRIFTD_LONG=1 runs the longer
// versions (more kill cycles, more connections, longer loads). THRIFTD_BIN
// names a prebuilt binary; otherwise TestMain builds one.
package reliability

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/internal/testenv"
)

var (
	thriftdBin string
	repoRoot   string
	fixtures   string
	// longRun selects the longer versions of the tests.
	longRun = os.Getenv("THRIFTD_LONG") != ""
)

func TestMain(m *testing.M) {
	repoRoot = testenv.RepoRoot()
	fixtures = filepath.Dir(testenv.Fixture("x"))
	// Built without the race detector: these tests measure the process
	// (memory, timing of kills), which the detector distorts.
	bin, cleanup, err := testenv.Thriftd(false)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	thriftdBin = bin
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// fixture returns the path of a shared fixture file.
func fixture(name string) string { return filepath.Join(fixtures, name) }

const (
	testConf    = "storage-conf-0.6-test.xml"    // batch commit log, COPP
	defaultConf = "storage-conf-0.6-default.xml" // periodic commit log, RandomPartitioner
)

// node is one thriftd process and the data directory it serves.
type node struct {
	t      testing.TB
	config string
	Data   string
	extra  []string

	cmd  *exec.Cmd
	Addr string
	done chan struct{}

	mu   sync.Mutex
	logs []map[string]any
	raw  []string
}

// newNode prepares a thriftd on config (a path) with a fresh data
// directory; start runs it.
func newNode(t testing.TB, config string, extra ...string) *node {
	n := &node{t: t, config: config, Data: filepath.Join(t.TempDir(), "data"), extra: extra}
	t.Cleanup(func() { n.Stop() })
	return n
}

// startNode is newNode then start.
func startNode(t testing.TB, config string, extra ...string) *node {
	t.Helper()
	n := newNode(t, config, extra...)
	n.start()
	return n
}

func (n *node) args(extra ...string) []string {
	a := []string{"-config", n.config, "-listen", "127.0.0.1:0", "-data", n.Data, "-log-format", "json", "-log-level", "debug"}
	a = append(a, n.extra...)
	return append(a, extra...)
}

// start runs thriftd and waits until it serves; it fails the test if the
// process exits first.
func (n *node) start() {
	n.t.Helper()
	if err := n.tryStart(); err != nil {
		n.t.Fatalf("%v\n%s", err, n.Logs())
	}
}

// tryStart runs thriftd and waits until it serves or exits.
func (n *node) tryStart() error {
	n.mu.Lock()
	n.logs, n.raw = nil, nil
	n.mu.Unlock()
	n.cmd = exec.Command(thriftdBin, n.args()...)
	n.cmd.Dir = n.t.TempDir()
	stderr, err := n.cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := n.cmd.Start(); err != nil {
		return err
	}
	n.done = make(chan struct{})
	addr := make(chan string, 1)
	go func() {
		defer close(n.done)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			var rec map[string]any
			json.Unmarshal([]byte(line), &rec)
			n.mu.Lock()
			n.raw = append(n.raw, line)
			if rec != nil {
				n.logs = append(n.logs, rec)
			}
			n.mu.Unlock()
			if rec["msg"] == "thriftd is serving" {
				addr <- fmt.Sprint(rec["listen"])
			}
		}
		io.Copy(io.Discard, stderr)
		n.cmd.Wait()
	}()
	select {
	case n.Addr = <-addr:
		return nil
	case <-n.done:
		n.cmd = nil
		return fmt.Errorf("thriftd exited before serving")
	case <-time.After(60 * time.Second):
		n.kill()
		return fmt.Errorf("thriftd did not start within 60s")
	}
}

// Logs returns what thriftd has logged since it last started.
func (n *node) Logs() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.raw, "\n")
}

// records returns the log records matching every key and value of want.
func (n *node) records(want map[string]string) []map[string]any {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []map[string]any
	for _, r := range n.logs {
		ok := true
		for k, v := range want {
			if logValue(r[k]) != v {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, r)
		}
	}
	return out
}

// logValue renders a decoded JSON value as it was written: numbers
// without an exponent.
func logValue(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// waitLog waits up to d for a log record matching want.
func (n *node) waitLog(t testing.TB, d time.Duration, want map[string]string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		if rs := n.records(want); len(rs) > 0 {
			return rs[len(rs)-1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no log record %v within %v; log:\n%s", want, d, n.tail(40))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (n *node) tail(lines int) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	r := n.raw
	if len(r) > lines {
		r = r[len(r)-lines:]
	}
	return strings.Join(r, "\n")
}

// Stop shuts thriftd down with SIGTERM and waits for it.
func (n *node) Stop() {
	if n.cmd == nil || n.cmd.Process == nil {
		return
	}
	n.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-n.done:
	case <-time.After(30 * time.Second):
		n.kill()
		n.t.Errorf("thriftd did not stop within 30s of SIGTERM")
	}
	n.cmd = nil
}

// kill ends thriftd with SIGKILL: no shutdown code runs.
func (n *node) kill() {
	if n.cmd == nil || n.cmd.Process == nil {
		return
	}
	n.cmd.Process.Kill()
	<-n.done
	n.cmd = nil
}

func (n *node) pid() int { return n.cmd.Process.Pid }

// status returns a field of /proc/<pid>/status in its unit (kB for memory).
func (n *node) status(field string) int64 {
	n.t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", n.pid()))
	if err != nil {
		n.t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(v)
			x, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				n.t.Fatal(err)
			}
			return x
		}
	}
	n.t.Fatalf("/proc/%d/status has no %s", n.pid(), field)
	return 0
}

// fds counts thriftd's open file descriptors.
func (n *node) fds() int {
	n.t.Helper()
	es, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", n.pid()))
	if err != nil {
		n.t.Fatal(err)
	}
	return len(es)
}

// sockets counts thriftd's open sockets (the listener and connections),
// leaving out the files LevelDB opens and closes as it flushes and compacts.
func (n *node) sockets() int {
	n.t.Helper()
	dir := fmt.Sprintf("/proc/%d/fd", n.pid())
	es, err := os.ReadDir(dir)
	if err != nil {
		n.t.Fatal(err)
	}
	count := 0
	for _, e := range es {
		if target, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && strings.HasPrefix(target, "socket:") {
			count++
		}
	}
	return count
}

// run runs thriftd to completion with extra arguments (and the node's
// configuration and data directory) and returns its exit error and output.
func (n *node) run(extra ...string) (string, error) {
	cmd := exec.Command(thriftdBin, n.args(extra...)...)
	cmd.Dir = n.t.TempDir()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// client is a connection with the generated client, framed or not.
type client struct {
	*cassandra.CassandraClient
	trans thrift.TTransport
}

func dial(addr string, framed bool, timeout time.Duration) (*client, error) {
	cfg := &thrift.TConfiguration{ConnectTimeout: 5 * time.Second, SocketTimeout: timeout}
	var trans thrift.TTransport = thrift.NewTSocketConf(addr, cfg)
	if framed {
		trans = thrift.NewTFramedTransportConf(trans, cfg)
	} else {
		trans = thrift.NewTBufferedTransport(trans, 8192)
	}
	if err := trans.Open(); err != nil {
		return nil, err
	}
	return &client{cassandra.NewCassandraClientFactory(trans, thrift.NewTBinaryProtocolFactoryConf(cfg)), trans}, nil
}

// client opens a connection that the test closes when it ends.
func (n *node) client(framed bool) *client {
	n.t.Helper()
	c, err := dial(n.Addr, framed, 30*time.Second)
	if err != nil {
		n.t.Fatal(err)
	}
	n.t.Cleanup(func() { c.Close() })
	return c
}

func (c *client) Close() error { return c.trans.Close() }

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
