package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// A request that trickles in slower than RequestTimeout is cut off; a
// handler slower than RequestTimeout is not.
func TestRequestTimeout(t *testing.T) {
	const timeout = 200 * time.Millisecond
	ts := startServer(t, Options{RequestTimeout: timeout, IdleTimeout: 5 * time.Second}, &hooks{sleep: 2 * timeout})

	c := dialRaw(t, ts.addr)
	msg := encodeCall(t, clientKinds[0], "describe_version", 1, &cassandra.CassandraDescribeVersionArgs{})
	start := time.Now()
	go func() {
		for _, b := range msg[:len(msg)-1] {
			if _, err := c.Write([]byte{b}); err != nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	c.expectClosed(t, 3*time.Second)
	if took := time.Since(start); took < timeout || took > timeout+time.Second {
		t.Errorf("slow request cut off after %v, want about %v", took, timeout)
	}
	ts.logs.waitRecord(t, map[string]string{
		"peer": c.LocalAddr().String(), "reason": "request timeout", "level": "WARN",
	})

	client, _, _ := dialClient(t, ts.addr, clientKinds[1])
	if v, err := client.GetStringProperty(context.Background(), "slow"); err != nil || v != "done" {
		t.Fatalf("slow handler: %q, %v", v, err)
	}
}

// A connection with no request for IdleTimeout is closed; one that keeps
// calling is not.
func TestIdleTimeout(t *testing.T) {
	// Long enough that a loaded machine does not make a busy connection
	// look idle between two calls.
	const idle = time.Second
	ts := startServer(t, Options{IdleTimeout: idle}, nil)
	client, _, peer := dialClient(t, ts.addr, clientKinds[0])
	ctx := context.Background()
	for range 10 {
		if _, err := client.DescribeVersion(ctx); err != nil {
			t.Fatalf("busy connection closed: %v", err)
		}
		time.Sleep(idle / 6)
	}
	start := time.Now()
	ts.logs.waitRecord(t, map[string]string{"peer": peer, "reason": "idle timeout", "level": "DEBUG"})
	if took := time.Since(start); took > idle+3*time.Second {
		t.Errorf("idle connection closed after %v", took)
	}
	if _, err := client.DescribeVersion(ctx); err == nil {
		t.Fatal("idle connection still served")
	}
	if f := ts.Stats().Failed; f != 0 {
		t.Errorf("idle timeout counted as a failure (%d)", f)
	}
}

// Connections beyond MaxConnections are closed at once and logged; room
// frees up when a connection ends.
func TestMaxConnections(t *testing.T) {
	ts := startServer(t, Options{MaxConnections: 2}, nil)
	ctx := context.Background()
	c1, t1, _ := dialClient(t, ts.addr, clientKinds[0])
	c2, _, _ := dialClient(t, ts.addr, clientKinds[1])
	for _, c := range []*cassandra.CassandraClient{c1, c2} {
		if _, err := c.DescribeVersion(ctx); err != nil {
			t.Fatal(err)
		}
	}
	extra := dialRaw(t, ts.addr)
	extra.expectClosed(t, time.Second)
	ts.logs.waitRecord(t, map[string]string{
		"msg": "connection refused: too many open connections", "level": "WARN",
		"peer": extra.LocalAddr().String(), "limit": "2",
	})
	if st := ts.Stats(); st.Refused != 1 || st.Open != 2 || st.Accepted != 3 {
		t.Errorf("Stats() = %+v", st)
	}

	t1.Close()
	waitFor(t, "a connection to end", func() bool { return ts.Stats().Open == 1 })
	c3, _, _ := dialClient(t, ts.addr, clientKinds[2])
	if _, err := c3.DescribeVersion(ctx); err != nil {
		t.Fatalf("connection after one closed: %v", err)
	}
}

// Many connections of every kind at once, each with its own processor.
func TestConcurrentConnections(t *testing.T) {
	ts := startServer(t, Options{}, nil)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := clientKinds[i%len(clientKinds)]
			client, _, _ := dialClient(t, ts.addr, k)
			ctx := context.Background()
			for j := 1; j <= 30; j++ {
				name, err := client.DescribeClusterName(ctx)
				if want := fmt.Sprintf("calls=%d", j); err != nil || name != want {
					t.Errorf("%s: got %q, %v; want %q", k.name, name, err, want)
					return
				}
				key := fmt.Sprintf("c%d-%d", i, j)
				a := sliceArgs(key)
				cols, err := client.GetSlice(ctx, a.Keyspace, a.Key, a.ColumnParent, a.Predicate, a.ConsistencyLevel)
				if err != nil {
					t.Error(err)
					return
				}
				if got := string(cols[0].Column.Value); got != key {
					t.Errorf("echo %q, want %q", got, key)
				}
			}
		}()
	}
	wg.Wait()
}

// Shutdown closes idle connections at once, lets a call in progress finish
// and deliver its reply, and then Serve returns ErrServerClosed.
func TestShutdownWaitsForCallInProgress(t *testing.T) {
	h := &hooks{entered: make(chan string, 1), release: make(chan struct{})}
	logs := &logSink{}
	s := New(Options{Logger: slogFor(logs)}, newTestProcessor(h))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()
	addr := l.Addr().String()

	busy, _, _ := dialClient(t, addr, clientKinds[0])
	idle := dialRaw(t, addr)
	idle.send(t, encodeCall(t, clientKinds[1], "describe_version", 1, &cassandra.CassandraDescribeVersionArgs{}))
	idle.readReply(t, clientKinds[1], &cassandra.CassandraDescribeVersionResult{})

	type result struct {
		v   string
		err error
	}
	call := make(chan result, 1)
	go func() {
		v, err := busy.GetStringProperty(context.Background(), "slow")
		call <- result{v, err}
	}()
	<-h.entered

	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		shut <- s.Shutdown(ctx)
	}()
	idle.expectClosed(t, 2*time.Second)
	select {
	case <-shut:
		t.Fatal("Shutdown returned while a call was in progress")
	case <-time.After(50 * time.Millisecond):
	}
	close(h.release)
	if r := <-call; r.err != nil || r.v != "done" {
		t.Fatalf("call in progress: %q, %v", r.v, r.err)
	}
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if err := <-served; !errors.Is(err, ErrServerClosed) {
		t.Fatalf("Serve returned %v", err)
	}
	if _, err := busy.DescribeVersion(context.Background()); err == nil {
		t.Error("connection still served after Shutdown")
	}
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Error("still accepting after Shutdown")
	}
	if st := s.Stats(); st.Open != 0 {
		t.Errorf("Stats().Open = %d after Shutdown", st.Open)
	}
	if err := s.Serve(l); !errors.Is(err, ErrServerClosed) {
		t.Errorf("Serve after Shutdown returned %v", err)
	}
}

// When Shutdown's context ends first, the remaining connections are closed
// and their processors' context is cancelled.
func TestShutdownDeadline(t *testing.T) {
	h := &hooks{entered: make(chan string, 1), release: make(chan struct{}), canceled: make(chan struct{}, 1)}
	s := New(Options{Logger: slogFor(&logSink{})}, newTestProcessor(h))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()
	client, _, _ := dialClient(t, l.Addr().String(), clientKinds[0])
	call := make(chan error, 1)
	go func() {
		_, err := client.GetStringProperty(context.Background(), "slow")
		call <- err
	}()
	<-h.entered

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := s.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown returned %v, want DeadlineExceeded", err)
	}
	select {
	case <-h.canceled:
	case <-time.After(2 * time.Second):
		t.Fatal("processor context not cancelled")
	}
	if err := <-call; err == nil {
		t.Fatal("call got a reply from a force-closed connection")
	}
	<-served
	waitFor(t, "connections to end", func() bool { return s.Stats().Open == 0 })
}

// Every connection goroutine ends with its connection.
func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		s := New(Options{Logger: slogFor(&logSink{}), IdleTimeout: time.Second}, newTestProcessor(&hooks{}))
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		served := make(chan error, 1)
		go func() { served <- s.Serve(l) }()
		for _, k := range clientKinds {
			client, trans, _ := dialClient(t, l.Addr().String(), k)
			if _, err := client.DescribeVersion(context.Background()); err != nil {
				t.Fatal(err)
			}
			trans.Close()
		}
		bad := dialRaw(t, l.Addr().String())
		bad.send(t, []byte{0x7f, 0xff, 0xff, 0xff, 0x80, 0x01})
		bad.expectClosed(t, time.Second)
		bad.Close()
		waitFor(t, "connections to end", func() bool { return s.Stats().Open == 0 })
		if err := s.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		<-served
	}()
	deadline := time.Now().Add(time.Minute)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// An empty frame, which Hector and Astyanax send just before closing a
// connection, is passed over: the connection goes on serving, and its end
// is logged as an ordinary close, not as a malformed request.
func TestEmptyFrameIsAGoodbye(t *testing.T) {
	ts := startServer(t, Options{}, nil)
	k := clientKind{framed: true}
	c := dialRaw(t, ts.addr)
	c.send(t, encodeCall(t, k, "describe_version", 1, &cassandra.CassandraDescribeVersionArgs{}))
	var res cassandra.CassandraDescribeVersionResult
	if r := c.readReply(t, k, &res); r.seq != 1 || res.GetSuccess() != "2.2.0" {
		t.Fatalf("seq %d %q", r.seq, res.GetSuccess())
	}
	c.send(t, []byte{0, 0, 0, 0})
	c.send(t, encodeCall(t, k, "describe_version", 2, &cassandra.CassandraDescribeVersionArgs{}))
	if r := c.readReply(t, k, &res); r.seq != 2 || res.GetSuccess() != "2.2.0" {
		t.Fatalf("after an empty frame: seq %d %q", r.seq, res.GetSuccess())
	}
	c.send(t, []byte{0, 0, 0, 0})
	c.Close()
	rec := ts.logs.waitRecord(t, map[string]string{"msg": "connection closed"})
	if rec["reason"] != "client closed" || rec["level"] != "DEBUG" {
		t.Fatalf("close logged as %v", rec)
	}
}

// A connection that sends nothing but the empty frame (a pool's connection
// closed unused) ends as an ordinary close too, and a connection that
// starts with one goes on to serve the requests that follow.
func TestEmptyFrameOnAnUnusedConnection(t *testing.T) {
	ts := startServer(t, Options{}, nil)
	c := dialRaw(t, ts.addr)
	c.send(t, []byte{0, 0, 0, 0})
	c.Close()
	rec := ts.logs.waitRecord(t, map[string]string{"msg": "connection closed"})
	if rec["reason"] != "client closed" || rec["level"] != "DEBUG" {
		t.Fatalf("close logged as %v", rec)
	}
	for _, k := range clientKinds {
		if !k.framed {
			continue
		}
		c := dialRaw(t, ts.addr)
		c.send(t, cat([]byte{0, 0, 0, 0}, encodeCall(t, k, "describe_version", 1, &cassandra.CassandraDescribeVersionArgs{})))
		var res cassandra.CassandraDescribeVersionResult
		if r := c.readReply(t, k, &res); r.seq != 1 || res.GetSuccess() != "2.2.0" {
			t.Fatalf("%s after a leading empty frame: seq %d %q", k.name, r.seq, res.GetSuccess())
		}
	}
}
