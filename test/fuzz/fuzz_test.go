// Package fuzz fuzzes the argument decoding of every method of the 0.6
// interface, end to end in one process: the fuzzer's bytes are the
// arguments of a call, framed and sent through the connection layer
// (package server) to the Thrift service (package handler) on a LevelDB
// store (package ldbstore), configured by Cassandra 0.6's own test
// configuration.
//
// Each target checks that the call is answered (with a result, a declared
// exception or a TApplicationException) or its connection closed, within
// seconds, and that nothing is logged at ERROR: an internal error or a
// panic on any input is a bug.
//
// The seed corpus in testdata/fuzz holds every method's calls as the
// generated client encodes them (rewrite it with
// `go test ./test/fuzz -run TestWriteFuzzSeeds -write-fuzz-seeds`). Fuzz one
// method with, for example:
//
//	go test ./test/fuzz -run '^$' -fuzz '^FuzzBatchMutate$' -fuzztime 1m
package fuzz

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/config"
	"github.com/thriftd/thriftd/engine/ldbstore"
	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/handler"
	"github.com/thriftd/thriftd/internal/testenv"
	"github.com/thriftd/thriftd/schema"
	"github.com/thriftd/thriftd/server"
)

func FuzzLogin(f *testing.F)                 { fuzzMethod(f, "login") }
func FuzzGet(f *testing.F)                   { fuzzMethod(f, "get") }
func FuzzGetSlice(f *testing.F)              { fuzzMethod(f, "get_slice") }
func FuzzMultiget(f *testing.F)              { fuzzMethod(f, "multiget") }
func FuzzMultigetSlice(f *testing.F)         { fuzzMethod(f, "multiget_slice") }
func FuzzGetCount(f *testing.F)              { fuzzMethod(f, "get_count") }
func FuzzGetRangeSlice(f *testing.F)         { fuzzMethod(f, "get_range_slice") }
func FuzzGetRangeSlices(f *testing.F)        { fuzzMethod(f, "get_range_slices") }
func FuzzInsert(f *testing.F)                { fuzzMethod(f, "insert") }
func FuzzBatchInsert(f *testing.F)           { fuzzMethod(f, "batch_insert") }
func FuzzRemove(f *testing.F)                { fuzzMethod(f, "remove") }
func FuzzBatchMutate(f *testing.F)           { fuzzMethod(f, "batch_mutate") }
func FuzzGetStringProperty(f *testing.F)     { fuzzMethod(f, "get_string_property") }
func FuzzGetStringListProperty(f *testing.F) { fuzzMethod(f, "get_string_list_property") }
func FuzzDescribeKeyspaces(f *testing.F)     { fuzzMethod(f, "describe_keyspaces") }
func FuzzDescribeClusterName(f *testing.F)   { fuzzMethod(f, "describe_cluster_name") }
func FuzzDescribeVersion(f *testing.F)       { fuzzMethod(f, "describe_version") }
func FuzzDescribeRing(f *testing.F)          { fuzzMethod(f, "describe_ring") }
func FuzzDescribePartitioner(f *testing.F)   { fuzzMethod(f, "describe_partitioner") }
func FuzzDescribeKeyspace(f *testing.F)      { fuzzMethod(f, "describe_keyspace") }
func FuzzDescribeSplits(f *testing.F)        { fuzzMethod(f, "describe_splits") }

// maxMessage is the connection layer's limit here: small, so that lengths
// near it are within the fuzzer's reach.
const maxMessage = 1 << 20

// fuzzMethod fuzzes the arguments of one method.
func fuzzMethod(f *testing.F, method string) {
	for _, args := range seeds[method] {
		f.Add(encodeArgs(f, args))
	}
	env := newEnv(f)
	f.Fuzz(func(t *testing.T, args []byte) {
		env.call(t, method, args)
	})
}

// env is one server, service and store, shared by every input of a fuzzing
// process.
type env struct {
	conns  chan net.Conn
	errors *errorLog
}

func newEnv(f *testing.F) *env {
	path := testenv.Fixture("storage-conf-0.6-test.xml")
	cfg, err := config.Load(path)
	if err != nil {
		f.Fatal(err)
	}
	s, err := schema.FromConfig(cfg)
	if err != nil {
		f.Fatal(err)
	}
	errs := &errorLog{}
	log := slog.New(errs)
	store, err := ldbstore.Open(f.TempDir(), s, ldbstore.Options{Sync: ldbstore.Periodic, PurgeInterval: -1, Logger: log})
	if err != nil {
		f.Fatal(err)
	}
	svc := handler.New(handler.Options{Schema: s, Store: store, Config: cfg, NodeAddress: "127.0.0.1", NodeToken: store.Token(), Logger: log})
	srv := server.New(server.Options{MaxMessageSize: maxMessage, RequestTimeout: 5 * time.Second, Logger: log},
		func(net.Conn) thrift.TProcessor { return cassandra.NewCassandraProcessor(svc.Connection()) })
	e := &env{conns: make(chan net.Conn), errors: errs}
	l := &chanListener{conns: e.conns, closed: make(chan struct{})}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	f.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		<-served
		store.Close()
	})
	return e
}

// call sends one framed call with args as its arguments and checks the
// outcome.
func (e *env) call(t *testing.T, method string, args []byte) {
	client, srvEnd := net.Pipe()
	defer client.Close()
	e.conns <- srvEnd
	client.SetDeadline(time.Now().Add(20 * time.Second))

	msg := thrift.NewTMemoryBuffer()
	p := thrift.NewTBinaryProtocolConf(msg, nil)
	p.WriteMessageBegin(context.Background(), method, thrift.CALL, 7)
	req := append(msg.Bytes(), args...)
	framed := append(be32(len(req)), req...)

	writeErr := make(chan error, 1)
	go func() {
		_, err := client.Write(framed)
		writeErr <- err
	}()
	trans := thrift.NewTFramedTransportConf(thrift.NewStreamTransportR(client), &thrift.TConfiguration{MaxMessageSize: 64 << 20})
	in := thrift.NewTBinaryProtocolConf(trans, &thrift.TConfiguration{MaxMessageSize: 64 << 20})
	ctx := context.Background()
	name, typ, seq, err := in.ReadMessageBegin(ctx)
	switch {
	case err != nil:
		// The server closed the connection: the arguments could not be
		// located in the stream. A timeout is a hang.
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatalf("%s: no reply and no close within 20s", method)
		}
	case name != method || seq != 7:
		t.Fatalf("reply to %s #7 is for %s #%d", method, name, seq)
	case typ == thrift.EXCEPTION:
		x := thrift.NewTApplicationException(0, "")
		if err := x.Read(ctx, in); err != nil {
			t.Fatalf("%s: unreadable TApplicationException: %v", method, err)
		}
	case typ == thrift.REPLY:
		result := results[method]()
		if err := result.Read(ctx, in); err != nil {
			t.Fatalf("%s: unreadable result: %v", method, err)
		}
	default:
		t.Fatalf("%s: reply of message type %d", method, typ)
	}
	client.Close()
	<-writeErr
	if msg := e.errors.take(); msg != "" {
		t.Fatalf("%s: logged at ERROR: %s", method, msg)
	}
}

func be32(n int) []byte { return []byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)} }

// chanListener is a net.Listener that accepts the connections sent to it.
type chanListener struct {
	conns  chan net.Conn
	once   sync.Once
	closed chan struct{}
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *chanListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *chanListener) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

// errorLog is a slog.Handler that keeps the first ERROR record until taken.
type errorLog struct {
	mu    sync.Mutex
	first string
}

func (h *errorLog) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelError }

func (h *errorLog) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.first == "" {
		h.first = r.Message
		r.Attrs(func(a slog.Attr) bool {
			h.first += fmt.Sprintf(" %s=%v", a.Key, a.Value)
			return true
		})
	}
	return nil
}

func (h *errorLog) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *errorLog) WithGroup(string) slog.Handler      { return h }

func (h *errorLog) take() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.first
	h.first = ""
	return s
}

// encodeArgs is the binary encoding of an argument struct, as the
// generated client writes it after the message header.
func encodeArgs(t testing.TB, args thrift.TStruct) []byte {
	buf := thrift.NewTMemoryBuffer()
	if err := args.Write(context.Background(), thrift.NewTBinaryProtocolConf(buf, nil)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

var writeSeeds = flag.Bool("write-fuzz-seeds", false, "rewrite testdata/fuzz from the seeds in seeds.go")

// TestWriteFuzzSeeds writes the seed corpus when asked to. The corpus is
// checked in so that `go test` runs every seed of every target, and so
// that inputs the fuzzer finds can be added beside them.
func TestWriteFuzzSeeds(t *testing.T) {
	if !*writeSeeds {
		t.Skip("run with -write-fuzz-seeds to rewrite the corpus")
	}
	for method, list := range seeds {
		dir := filepath.Join("testdata", "fuzz", targetName(method))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, args := range list {
			content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", encodeArgs(t, args))
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("client-%d", i)), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestEveryMethodFuzzed: every method of the processor has seeds, a result
// type and a target, and the checked-in corpus matches the seeds.
func TestEveryMethodFuzzed(t *testing.T) {
	proc := cassandra.NewCassandraProcessor(nil)
	for method := range proc.ProcessorMap() {
		if len(seeds[method]) == 0 || results[method] == nil {
			t.Errorf("method %s has no seeds or no result type", method)
			continue
		}
		for i, args := range seeds[method] {
			path := filepath.Join("testdata", "fuzz", targetName(method), fmt.Sprintf("client-%d", i))
			got, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("%v (regenerate with -write-fuzz-seeds)", err)
				continue
			}
			if want := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", encodeArgs(t, args)); string(got) != want {
				t.Errorf("%s is stale (regenerate with -write-fuzz-seeds)", path)
			}
		}
	}
	if len(seeds) != len(proc.ProcessorMap()) {
		t.Errorf("%d methods have seeds, the processor has %d", len(seeds), len(proc.ProcessorMap()))
	}
}

// targetName is the fuzz target of a method: get_range_slices ->
// FuzzGetRangeSlices.
func targetName(method string) string {
	out := []byte("Fuzz")
	up := true
	for i := 0; i < len(method); i++ {
		c := method[i]
		switch {
		case c == '_':
			up = true
			continue
		case up && c >= 'a' && c <= 'z':
			c -= 'a' - 'A'
		}
		up = false
		out = append(out, c)
	}
	return string(out)
}
