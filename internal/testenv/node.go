package testenv

import (
	"bufio"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// Node is one thriftd process and the data directory it serves.
type Node struct {
	t      testing.TB
	bin    string
	config string
	// Data is the data directory it serves.
	Data  string
	extra []string
	exact []string // the whole command line, for NewNodeArgs
	// store is the store's flags: none on LevelDB, -cassandra and a
	// prefix of the node's own on the Cassandra backend.
	store []string

	cmd *exec.Cmd
	// Addr is where it listens, once started.
	Addr string
	done chan struct{}

	mu   sync.Mutex
	logs []map[string]any
	raw  []string
}

// NewNode prepares the thriftd binary bin on config (a path) with a fresh
// data directory, on a free loopback port, logging JSON at debug level;
// Start runs it. The test stops it when it ends.
//
// On the Cassandra backend (THRIFTD_TEST_BACKEND=cassandra) the node stores
// its data in the test cluster for config's partitioner (see Cassandra)
// under a CQL keyspace prefix of its own, which plays the part of the data
// directory: a restart finds the data again, another node starts empty.
// A test listed in test/cassandra/leveldb-only is skipped there, with the
// reason the list gives.
func NewNode(t testing.TB, bin, config string, extra ...string) *Node {
	n := &Node{t: t, bin: bin, config: config, Data: filepath.Join(t.TempDir(), "data"), extra: extra}
	if Backend() == CassandraBackend {
		SkipLevelDBOnly(t)
		n.store = cassandraFlags(t, config)
	}
	t.Cleanup(func() { n.Stop() })
	return n
}

// ServeStoreOf makes n serve the data other serves, for a restart on
// another configuration: other's data directory, or on the Cassandra
// backend its keyspace prefix in the same cluster. other must be stopped.
func (n *Node) ServeStoreOf(other *Node) {
	n.Data = other.Data
	if n.store != nil {
		n.store = append([]string(nil), other.store...)
	}
}

// NewNodeArgs prepares the thriftd binary bin to run with exactly args,
// for tests of the command line and configuration files themselves: no
// configuration, address or data directory is added, and Data is "". The
// arguments must make thriftd log JSON (Start reads the log) at info level
// or below.
func NewNodeArgs(t testing.TB, bin string, args ...string) *Node {
	n := &Node{t: t, bin: bin, exact: args}
	t.Cleanup(func() { n.Stop() })
	return n
}

// Args is the command line thriftd runs with, extra arguments last. When
// thriftd stores in Cassandra (-cassandra), its keyspace prefix stands for
// the data directory and every -data is left out: thriftd refuses both.
func (n *Node) Args(extra ...string) []string {
	if n.exact != nil {
		return append(append([]string(nil), n.exact...), extra...)
	}
	// -api 0.6: the suites that use Node are 0.6 clients, framed as well as
	// unframed, as against a 0.6 server configured with
	// ThriftFramedTransport. A 19.x test passes -api auto or 19.x in extra,
	// which comes later and wins.
	a := []string{"-config", n.config, "-listen", "127.0.0.1:0", "-data", n.Data, "-log-format", "json", "-log-level", "debug", "-admin", "127.0.0.1:0", "-api", "0.6"}
	a = append(a, n.store...)
	a = append(a, n.extra...)
	a = append(a, extra...)
	if !slices.Contains(a, "-cassandra") {
		return a
	}
	out := a[:0:0]
	for i := 0; i < len(a); i++ {
		if a[i] == "-data" && i+1 < len(a) {
			i++
			continue
		}
		out = append(out, a[i])
	}
	return out
}

// Start runs thriftd and waits until it serves; it fails the test if the
// process exits first.
func (n *Node) Start() {
	n.t.Helper()
	if err := n.TryStart(); err != nil {
		n.t.Fatalf("%v\n%s", err, n.Logs())
	}
}

// startTimeout bounds a start. On the Cassandra store a first start
// creates the configuration's keyspaces and tables, which took 60 s on
// three nodes of a machine at a load average of 50.
const startTimeout = 3 * time.Minute

// TryStart runs thriftd and waits until it serves or exits.
func (n *Node) TryStart() error {
	n.mu.Lock()
	n.logs, n.raw = nil, nil
	n.mu.Unlock()
	n.cmd = exec.Command(n.bin, n.Args()...)
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
	case <-time.After(startTimeout):
		n.Kill()
		return fmt.Errorf("thriftd did not start within %v", startTimeout)
	}
}

// Logs returns what thriftd has logged since it last started.
func (n *Node) Logs() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.raw, "\n")
}

// Records returns the log records matching every key and value of want.
func (n *Node) Records(want map[string]string) []map[string]any {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []map[string]any
	for _, r := range n.logs {
		ok := true
		for k, v := range want {
			if LogValue(r[k]) != v {
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

// LogValue renders a decoded JSON value as it was written: numbers
// without an exponent.
func LogValue(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// WaitLog waits up to d for a log record matching want.
func (n *Node) WaitLog(t testing.TB, d time.Duration, want map[string]string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		if rs := n.Records(want); len(rs) > 0 {
			return rs[len(rs)-1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no log record %v within %v; log:\n%s", want, d, n.Tail(40))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Tail is the last lines of what thriftd logged.
func (n *Node) Tail(lines int) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	r := n.raw
	if len(r) > lines {
		r = r[len(r)-lines:]
	}
	return strings.Join(r, "\n")
}

// Stop shuts thriftd down with SIGTERM and waits for it.
func (n *Node) Stop() {
	if n.cmd == nil || n.cmd.Process == nil {
		return
	}
	n.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-n.done:
	case <-time.After(30 * time.Second):
		n.Kill()
		n.t.Errorf("thriftd did not stop within 30s of SIGTERM")
	}
	n.cmd = nil
}

// Kill ends thriftd with SIGKILL: no shutdown code runs.
func (n *Node) Kill() {
	if n.cmd == nil || n.cmd.Process == nil {
		return
	}
	n.cmd.Process.Kill()
	<-n.done
	n.cmd = nil
}

// Pid is the process id of the running thriftd.
func (n *Node) Pid() int { return n.cmd.Process.Pid }

// Status returns a field of /proc/<pid>/status in its unit (kB for memory).
func (n *Node) Status(field string) int64 {
	n.t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", n.Pid()))
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
	n.t.Fatalf("/proc/%d/status has no %s", n.Pid(), field)
	return 0
}

// FDs counts thriftd's open file descriptors.
func (n *Node) FDs() int {
	n.t.Helper()
	es, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", n.Pid()))
	if err != nil {
		n.t.Fatal(err)
	}
	return len(es)
}

// Sockets counts thriftd's open sockets (the listener and connections),
// leaving out the files LevelDB opens and closes as it flushes and compacts.
func (n *Node) Sockets() int {
	n.t.Helper()
	dir := fmt.Sprintf("/proc/%d/fd", n.Pid())
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

// Run runs thriftd to completion with extra arguments (and the node's
// configuration and data directory) and returns its exit error and output.
func (n *Node) Run(extra ...string) (string, error) {
	cmd := exec.Command(n.bin, n.Args(extra...)...)
	cmd.Dir = n.t.TempDir()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Client is a connection with the generated client, framed or not.
type Client struct {
	*cassandra.CassandraClient
	trans thrift.TTransport
}

// Dial connects to addr; timeout bounds each call.
func Dial(addr string, framed bool, timeout time.Duration) (*Client, error) {
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
	return &Client{cassandra.NewCassandraClientFactory(trans, thrift.NewTBinaryProtocolFactoryConf(cfg)), trans}, nil
}

// Client opens a connection that the test closes when it ends.
func (n *Node) Client(framed bool) *Client {
	n.t.Helper()
	c, err := Dial(n.Addr, framed, 30*time.Second)
	if err != nil {
		n.t.Fatal(err)
	}
	n.t.Cleanup(func() { c.Close() })
	return c
}

// Close closes the connection.
func (c *Client) Close() error { return c.trans.Close() }

// Client19 is a connection to a 19.x server (thriftd, or a real Cassandra
// 0.7-2.1): the client generated from cassandra19.thrift, and the 0.6 one
// over the same connection, for tests of both APIs on one port.
type Client19 struct {
	*cassandra19.CassandraClient
	V06   *cassandra.CassandraClient
	trans thrift.TTransport
}

// Dial19 connects to addr as 19.x clients do: framed unless framed is
// false, strict binary protocol; timeout bounds each call.
func Dial19(addr string, framed bool, timeout time.Duration) (*Client19, error) {
	return Dial19TLS(addr, nil, framed, timeout)
}

// Dial19TLS is Dial19 over TLS with config, or in plain Thrift when config
// is nil.
func Dial19TLS(addr string, config *tls.Config, framed bool, timeout time.Duration) (*Client19, error) {
	cfg := &thrift.TConfiguration{ConnectTimeout: 5 * time.Second, SocketTimeout: timeout, TLSConfig: config}
	var trans thrift.TTransport
	if config != nil {
		trans = thrift.NewTSSLSocketConf(addr, cfg)
	} else {
		trans = thrift.NewTSocketConf(addr, cfg)
	}
	if framed {
		trans = thrift.NewTFramedTransportConf(trans, cfg)
	} else {
		trans = thrift.NewTBufferedTransport(trans, 8192)
	}
	if err := trans.Open(); err != nil {
		return nil, err
	}
	pf := thrift.NewTBinaryProtocolFactoryConf(cfg)
	in, out := pf.GetProtocol(trans), pf.GetProtocol(trans)
	return &Client19{
		CassandraClient: cassandra19.NewCassandraClientProtocol(trans, in, out),
		V06:             cassandra.NewCassandraClientProtocol(trans, in, out),
		trans:           trans,
	}, nil
}

// Client19 opens a 19.x connection, closed when the test ends.
func (n *Node) Client19(framed bool) *Client19 {
	n.t.Helper()
	c, err := Dial19(n.Addr, framed, 30*time.Second)
	if err != nil {
		n.t.Fatal(err)
	}
	n.t.Cleanup(func() { c.Close() })
	return c
}

// Close closes the connection.
func (c *Client19) Close() error { return c.trans.Close() }

// FreePort returns a loopback port nothing listens on at the moment, for
// a configuration file that must name its port before thriftd starts.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
