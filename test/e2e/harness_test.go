// Package e2e runs the real thriftd binary and talks to it over TCP with
// the Go client generated from cassandra.thrift.
package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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
)

func TestMain(m *testing.M) {
	repoRoot = testenv.RepoRoot()
	fixtures = filepath.Dir(testenv.Fixture("x"))
	bin, cleanup, err := testenv.Thriftd(true)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	thriftdBin = bin
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// node is one running thriftd process.
type node struct {
	t    testing.TB
	cmd  *exec.Cmd
	Addr string
	Data string
	args []string

	mu   sync.Mutex
	logs []string
	done chan struct{}
}

// fixture returns the path of a shared fixture file.
func fixture(name string) string { return filepath.Join(fixtures, name) }

// start runs thriftd on config with a fresh data directory (or the one in
// extra's -data) on a free loopback port.
func start(t testing.TB, config string, extra ...string) *node {
	t.Helper()
	n := &node{t: t, Data: t.TempDir()}
	n.args = append([]string{"-config", config, "-listen", "127.0.0.1:0", "-data", n.Data, "-log-format", "json", "-log-level", "debug"}, extra...)
	n.run()
	t.Cleanup(func() { n.Stop() })
	return n
}

func (n *node) run() {
	t := n.t
	t.Helper()
	n.cmd = exec.Command(thriftdBin, n.args...)
	n.cmd.Dir = t.TempDir()
	stderr, err := n.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	n.done = make(chan struct{})
	addr := make(chan string, 1)
	go func() {
		defer close(n.done)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			n.mu.Lock()
			n.logs = append(n.logs, line)
			n.mu.Unlock()
			var rec struct {
				Msg    string `json:"msg"`
				Listen string `json:"listen"`
			}
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "thriftd is serving" {
				addr <- rec.Listen
			}
		}
		io.Copy(io.Discard, stderr)
		n.cmd.Wait()
	}()
	select {
	case n.Addr = <-addr:
	case <-n.done:
		t.Fatalf("thriftd exited before serving:\n%s", n.Logs())
	case <-time.After(30 * time.Second):
		t.Fatalf("thriftd did not start within 30s:\n%s", n.Logs())
	}
}

// Logs returns what thriftd has logged so far.
func (n *node) Logs() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.logs, "\n")
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
		n.cmd.Process.Kill()
		<-n.done
		n.t.Errorf("thriftd did not stop within 30s of SIGTERM")
	}
	n.cmd = nil
}

// Restart stops thriftd cleanly and starts it again on the same data.
func (n *node) Restart() {
	n.Stop()
	n.run()
}

// client opens a connection, framed or not.
func (n *node) client(framed bool) *cassandra.CassandraClient {
	n.t.Helper()
	cfg := &thrift.TConfiguration{ConnectTimeout: 5 * time.Second, SocketTimeout: 30 * time.Second}
	var trans thrift.TTransport = thrift.NewTSocketConf(n.Addr, cfg)
	if framed {
		trans = thrift.NewTFramedTransportConf(trans, cfg)
	} else {
		trans = thrift.NewTBufferedTransport(trans, 8192)
	}
	if err := trans.Open(); err != nil {
		n.t.Fatal(err)
	}
	n.t.Cleanup(func() { trans.Close() })
	return cassandra.NewCassandraClientFactory(trans, thrift.NewTBinaryProtocolFactoryConf(cfg))
}

var ctx = context.Background()
