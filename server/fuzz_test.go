package server

import (
	"bytes"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// fakeConn is a net.Conn whose input is a fixed byte string followed by end
// of file and whose output is counted and dropped.
type fakeConn struct {
	in      *bytes.Reader
	written int
	closed  bool
}

func (c *fakeConn) Read(p []byte) (int, error)  { return c.in.Read(p) }
func (c *fakeConn) Write(p []byte) (int, error) { c.written += len(p); return len(p), nil }
func (c *fakeConn) Close() error                { c.closed = true; return nil }
func (c *fakeConn) LocalAddr() net.Addr         { return fakeAddr{} }
func (c *fakeConn) RemoteAddr() net.Addr        { return fakeAddr{} }

func (c *fakeConn) SetDeadline(time.Time) error      { return nil }
func (c *fakeConn) SetReadDeadline(time.Time) error  { return nil }
func (c *fakeConn) SetWriteDeadline(time.Time) error { return nil }

type fakeAddr struct{}

func (fakeAddr) Network() string { return "fake" }
func (fakeAddr) String() string  { return "fuzz:1" }

const fuzzMaxMessage = 64 << 10

// FuzzConnection feeds arbitrary bytes to one connection's handling and
// checks that it ends, closes the connection, logs no error (the test
// handler never panics here, so an error means a bug in this package), and
// allocates in proportion to its input rather than to lengths it claims.
func FuzzConnection(f *testing.F) {
	// A few inputs the captured corpus in testdata lacks.
	f.Add(cat(unversionedHeader("describe_version", 1), []byte{thrift.STOP}))
	f.Add(frame(cat(unversionedHeader("get_slice", 2), []byte{thrift.STOP})))
	f.Add([]byte("GET / HTTP/1.1\r\n\r\n"))
	f.Add(cat(strictHeader("multiget_slice", 1), listField(2, thrift.STRING, 1<<20)))

	f.Fuzz(func(t *testing.T, data []byte) {
		logs := &logSink{}
		s := New(Options{MaxMessageSize: fuzzMaxMessage, Logger: slogFor(logs)},
			newTestProcessor(&hooks{noPanics: true}))
		nc := &fakeConn{in: bytes.NewReader(data)}
		c, err := s.track(nc, nil)
		if err != nil {
			t.Fatal(err)
		}

		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.serve()
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("connection handling did not end")
		}
		runtime.ReadMemStats(&after)

		if !nc.closed {
			t.Error("connection not closed")
		}
		if st := s.Stats(); st.Open != 0 {
			t.Errorf("Stats().Open = %d", st.Open)
		}
		for _, r := range logs.records() {
			if r["level"] == "ERROR" {
				t.Fatalf("error logged: %v", r)
			}
		}
		// Fixed per-connection buffers, plus generously 2 KiB per input byte
		// for decoding and replies.
		if alloc, limit := after.TotalAlloc-before.TotalAlloc, uint64(4<<20+2048*len(data)); alloc > limit {
			t.Errorf("allocated %d bytes for %d bytes of input (limit %d)", alloc, len(data), limit)
		}
	})
}

var writeFuzzSeeds = flag.Bool("write-fuzz-seeds", false, "rewrite testdata/fuzz/FuzzConnection from the generated client's encodings")

// fuzzSeeds are requests as the generated client sends them, in every
// framing and protocol. Maps have one entry each, so the encoding does not
// depend on map iteration order.
func fuzzSeeds(t testing.TB) map[string][]byte {
	mutations := map[string]map[string][]*cassandra.Mutation{
		"row1": {"Standard1": {
			{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{Column: &cassandra.Column{Name: []byte("c"), Value: []byte("v"), Timestamp: 1}}},
			{Deletion: &cassandra.Deletion{Timestamp: 2, Predicate: &cassandra.SlicePredicate{ColumnNames: [][]byte{[]byte("d")}}}},
		}},
	}
	calls := []struct {
		name string
		args thrift.TStruct
	}{
		{"describe_version", &cassandra.CassandraDescribeVersionArgs{}},
		{"get_slice", sliceArgs("key")},
		{"batch_mutate", &cassandra.CassandraBatchMutateArgs{Keyspace: "Keyspace1", MutationMap: mutations, ConsistencyLevel: cassandra.ConsistencyLevel_ONE}},
		{"login", &cassandra.CassandraLoginArgs{Keyspace: "Keyspace1", AuthRequest: &cassandra.AuthenticationRequest{Credentials: map[string]string{"username": "u"}}}},
		{"multiget_slice", &cassandra.CassandraMultigetSliceArgs{Keyspace: "Keyspace1", Keys: []string{"a", "b"}, ColumnParent: &cassandra.ColumnParent{ColumnFamily: "Standard1"}, Predicate: &cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 10}}, ConsistencyLevel: 1}},
		{"no_such_method", &cassandra.CassandraDescribeVersionArgs{}},
	}
	seeds := map[string][]byte{}
	for _, k := range clientKinds {
		kind := map[bool]string{false: "unframed", true: "framed"}[k.framed] + map[bool]string{false: "-binary", true: "-compact"}[k.compact]
		var all []byte
		for i, c := range calls {
			b := encodeCall(t, k, c.name, int32(i+1), c.args)
			seeds[kind+"-"+c.name] = b
			all = append(all, b...)
		}
		seeds[kind+"-sequence"] = all
	}
	return seeds
}

// TestWriteFuzzSeeds regenerates the seed corpus when asked to:
//
//	go test ./server -run TestWriteFuzzSeeds -write-fuzz-seeds
func TestWriteFuzzSeeds(t *testing.T) {
	if !*writeFuzzSeeds {
		t.Skip("run with -write-fuzz-seeds to rewrite the corpus")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzConnection")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range fuzzSeeds(t) {
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
		if err := os.WriteFile(filepath.Join(dir, "client-"+name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The committed corpus holds the generated client's current encodings, so
// the seeds still exercise real requests.
func TestFuzzSeedsCurrent(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzConnection")
	for name, b := range fuzzSeeds(t) {
		got, err := os.ReadFile(filepath.Join(dir, "client-"+name))
		if err != nil {
			t.Fatalf("%v (regenerate with -write-fuzz-seeds)", err)
		}
		if want := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b); string(got) != want {
			t.Errorf("seed %s is stale (regenerate with -write-fuzz-seeds)", name)
		}
	}
}
