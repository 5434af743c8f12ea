package cqlstore

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
	"github.com/thriftd/thriftd/internal/testenv"
	"github.com/thriftd/thriftd/schema"
)

// TestRequestTimeoutIsTimedOut provokes the request timeout on a real
// node: a request bounded by a microsecond is answered TimedOut, as 0.6
// answered a coordinator that gave up waiting.
func TestRequestTimeoutIsTimedOut(t *testing.T) {
	s := storetest.TestSchema(t, "RandomPartitioner")
	st, _ := openFresh(t, s, 864000)
	st.opts.Cluster.Timeout = time.Microsecond
	err := st.Apply(ctx, storetest.Keyspace, []engine.RowMutation{storetest.Put("Standard1", "k", "a", "v", 1)})
	if !errors.Is(err, engine.ErrTimedOut) {
		t.Errorf("write: %v, want TimedOut", err)
	}
	_, err = st.Get(ctx, storetest.Keyspace, "k", engine.Query{ColumnFamily: "Standard1", Predicate: storetest.All(1)})
	if !errors.Is(err, engine.ErrTimedOut) {
		t.Errorf("read: %v, want TimedOut", err)
	}
}

// cutProxy forwards TCP connections to a node, and can stop forwarding
// (the node falls silent) and cut every connection at once (the node is
// killed).
type cutProxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	conns  []net.Conn
	silent bool
	// slow delays each answer of the node by this much (a busy node).
	slow time.Duration
	wg   sync.WaitGroup
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.kill)
	return p
}

func (p *cutProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		n, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, n)
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(n, c, false)
		go p.pipe(c, n, true)
	}
}

// pipe copies src to dst; requests (toNode) are dropped while silent.
func (p *cutProxy) pipe(dst, src net.Conn, toNode bool) {
	defer p.wg.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			drop := toNode && p.silent
			slow := p.slow
			p.mu.Unlock()
			if !toNode && slow > 0 {
				time.Sleep(slow)
			}
			if !drop {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					return
				}
			}
		}
		if err != nil {
			if err != io.EOF {
				dst.Close()
			}
			return
		}
	}
}

func (p *cutProxy) silence() {
	p.mu.Lock()
	p.silent = true
	p.mu.Unlock()
}

// resume forwards requests again.
func (p *cutProxy) resume() {
	p.mu.Lock()
	p.silent = false
	p.mu.Unlock()
}

// cut closes every open connection but keeps accepting new ones.
func (p *cutProxy) cut() {
	p.mu.Lock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
	p.mu.Unlock()
}

// kill refuses new connections and closes every open one.
func (p *cutProxy) kill() {
	p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
	p.mu.Unlock()
	p.wg.Wait()
}

// TestNodeLossIsTimedOutThenUnavailable reaches a real node through a
// proxy, then kills the proxy while a write and a read wait for their
// answers: both are in doubt (TimedOut, as 0.6 answered when a replica
// died mid-request), and the requests after it, with no node left to
// send to, are known not applied (Unavailable).
// openThroughProxy opens a store of s on a real node, reached only
// through a cutProxy, with a request timeout of timeout; the prefix is
// dropped, directly, when t ends.
func openThroughProxy(t *testing.T, s *schema.Schema, timeout time.Duration) (*Store, *cutProxy) {
	t.Helper()
	node := strings.Split(testenv.Cassandra(t, s.Partitioner.Name()), ",")[0]
	p := newCutProxy(t, node)
	direct := Cluster{Hosts: []string{node}, Timeout: timeout}
	through := direct
	through.Hosts = []string{p.ln.Addr().String()}
	proxyIP, proxyPort := p.ln.Addr().(*net.TCPAddr).IP, p.ln.Addr().(*net.TCPAddr).Port
	through.translate = gocql.AddressTranslatorFunc(func(net.IP, int) (net.IP, int) { return proxyIP, proxyPort })

	o := Options{Cluster: through, Prefix: testenv.CassandraPrefix(t), GCGraceSeconds: 864000}
	openCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	st, err := Open(openCtx, s, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		st.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := DropPrefix(ctx, direct, o.Prefix); err != nil {
			t.Errorf("drop prefix %s: %v", o.Prefix, err)
		}
	})
	return st, p
}

func TestNodeLossIsTimedOutThenUnavailable(t *testing.T) {
	s := storetest.TestSchema(t, "RandomPartitioner")
	st, p := openThroughProxy(t, s, 20*time.Second)
	// Both statements are prepared before the node falls silent, so
	// that the requests below are in flight, not waiting to prepare.
	storetest.Apply(t, st, storetest.Put("Standard1", "k", "a", "v", 1))
	storetest.Expect(t, storetest.Get(t, st, "Standard1", "k", nil, storetest.All(10)), "a=v@1")

	p.silence()
	errs := make(chan error, 2)
	go func() {
		errs <- st.Apply(ctx, storetest.Keyspace, []engine.RowMutation{storetest.Put("Standard1", "k", "b", "v", 2)})
	}()
	go func() {
		_, err := st.Get(ctx, storetest.Keyspace, "k", engine.Query{ColumnFamily: "Standard1", Predicate: storetest.All(10)})
		errs <- err
	}()
	time.Sleep(500 * time.Millisecond) // both requests are sent and unanswered
	p.kill()
	for range 2 {
		select {
		case err := <-errs:
			if !errors.Is(err, engine.ErrTimedOut) {
				t.Errorf("request in flight when the node died: %v, want TimedOut", err)
			}
		case <-time.After(15 * time.Second):
			t.Fatal("a request in flight when the node died did not return")
		}
	}

	deadline := time.Now().Add(time.Minute)
	for {
		err := st.Apply(ctx, storetest.Keyspace, []engine.RowMutation{storetest.Put("Standard1", "k", "c", "v", 3)})
		if errors.Is(err, engine.ErrUnavailable) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("write with the node gone: %v, want Unavailable", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	_, err := st.Get(ctx, storetest.Keyspace, "k", engine.Query{ColumnFamily: "Standard1", Predicate: storetest.All(10)})
	if !errors.Is(err, engine.ErrUnavailable) {
		t.Errorf("read with the node gone: %v, want Unavailable", err)
	}
}

// TestBusyNodeIsTimedOutNotUnavailable reaches a real node through a
// proxy that then closes the driver's connections and accepts new ones
// without answering them, as a node too busy to finish a handshake in
// time: a write the driver cannot send is sent again while the node
// accepts connections and answered TimedOut at the request timeout, not
// Unavailable (a live Cassandra node is never unavailable to itself); once
// the node answers again, writes succeed.
func TestBusyNodeIsTimedOutNotUnavailable(t *testing.T) {
	s := storetest.TestSchema(t, "RandomPartitioner")
	st, p := openThroughProxy(t, s, 3*time.Second)
	storetest.Apply(t, st, storetest.Put("Standard1", "k", "a", "v", 1))

	p.silence()
	p.cut()
	for i := 0; i < 3; i++ {
		err := st.Apply(ctx, storetest.Keyspace, []engine.RowMutation{storetest.Put("Standard1", "k", "b", "v", 2)})
		if !errors.Is(err, engine.ErrTimedOut) || errors.Is(err, engine.ErrUnavailable) {
			t.Fatalf("write %d to the busy node: %v, want TimedOut", i, err)
		}
	}
	// A schema change made while the node is busy waits for it and
	// succeeds once it answers.
	next := storetest.Clone(s, "v2")
	next.Keyspaces[storetest.Keyspace].ColumnFamilies["Standard1"].Columns = []schema.ColumnDef{
		{Name: []byte("state"), Index: &schema.IndexDef{Type: schema.IndexKeys, Name: "Standard1_state_idx"}}}
	changed := make(chan error, 1)
	go func() { changed <- st.ChangeSchema(ctx, next, []byte("v2")) }()
	time.Sleep(2 * time.Second)
	p.resume()
	select {
	case err := <-changed:
		if err != nil {
			t.Fatalf("schema change while the node was busy: %v", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the schema change made while the node was busy did not return")
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		err := st.Apply(ctx, storetest.Keyspace, []engine.RowMutation{storetest.Put("Standard1", "k", "c", "v", 3)})
		if err == nil {
			break
		}
		if errors.Is(err, engine.ErrUnavailable) || time.Now().After(deadline) {
			t.Fatalf("write once the node answers again: %v", err)
		}
	}
	storetest.Expect(t, storetest.Get(t, st, "Standard1", "k", nil, storetest.All(10)), "a=v@1 c=v@3") // the writes that timed out were never sent
}
