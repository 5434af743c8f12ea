package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// hooks steers the test handler from a test. The zero value makes every
// call return at once.
type hooks struct {
	entered  chan string   // receives the property of each "slow" call as it starts
	release  chan struct{} // a "slow" call waits for it (or its context) when not nil
	sleep    time.Duration // a "slow" call sleeps this long when release is nil
	noPanics bool          // turns the "panic" property into an ordinary answer (for fuzzing)
	canceled chan struct{} // receives when a waiting "slow" call sees its context end
}

// testHandler is a stand-in for the Cassandra service: just enough behaviour
// to see requests arrive intact and replies leave intact. One instance
// serves one connection, like the real per-connection processor.
type testHandler struct {
	h     *hooks
	calls int
}

func newTestProcessor(h *hooks) NewProcessor {
	return func(net.Conn) thrift.TProcessor {
		return cassandra.NewCassandraProcessor(&testHandler{h: h})
	}
}

func (t *testHandler) DescribeVersion(context.Context) (string, error) { return "2.2.0", nil }

// DescribeClusterName counts the calls made on this connection, which shows
// that the processor lives as long as its connection.
func (t *testHandler) DescribeClusterName(context.Context) (string, error) {
	t.calls++
	return fmt.Sprintf("calls=%d", t.calls), nil
}

// GetSlice echoes its arguments as columns.
func (t *testHandler) GetSlice(_ context.Context, keyspace, key string, parent *cassandra.ColumnParent, pred *cassandra.SlicePredicate, cl cassandra.ConsistencyLevel) ([]*cassandra.ColumnOrSuperColumn, error) {
	out := []*cassandra.ColumnOrSuperColumn{
		{Column: &cassandra.Column{Name: []byte(keyspace), Value: []byte(key), Timestamp: int64(cl)}},
		{Column: &cassandra.Column{Name: []byte("cf"), Value: []byte(parent.ColumnFamily)}},
	}
	if pred != nil {
		for _, n := range pred.ColumnNames {
			out = append(out, &cassandra.ColumnOrSuperColumn{Column: &cassandra.Column{Name: n, Value: n}})
		}
	}
	return out, nil
}

func (t *testHandler) Login(_ context.Context, keyspace string, auth *cassandra.AuthenticationRequest) error {
	if auth.Credentials["username"] == "bad" {
		return &cassandra.AuthenticationException{Why: "bad user"}
	}
	return nil
}

// GetStringProperty misbehaves on request: "error" returns an undeclared
// error, "panic" panics, "abandon" abandons the request, "slow" takes its
// time; anything else is echoed.
func (t *testHandler) GetStringProperty(ctx context.Context, property string) (string, error) {
	switch property {
	case "error":
		return "", errors.New("something broke")
	case "panic":
		if !t.h.noPanics {
			panic("handler exploded")
		}
	case "abandon":
		return "", thrift.ErrAbandonRequest
	case "slow":
		if t.h.entered != nil {
			t.h.entered <- property
		}
		if t.h.release != nil {
			select {
			case <-t.h.release:
			case <-ctx.Done():
				if t.h.canceled != nil {
					t.h.canceled <- struct{}{}
				}
				return "", ctx.Err()
			}
		} else {
			time.Sleep(t.h.sleep)
		}
		return "done", nil
	}
	return property, nil
}

func (t *testHandler) Get(context.Context, string, string, *cassandra.ColumnPath, cassandra.ConsistencyLevel) (*cassandra.ColumnOrSuperColumn, error) {
	return nil, &cassandra.NotFoundException{}
}

func (t *testHandler) Multiget(context.Context, string, []string, *cassandra.ColumnPath, cassandra.ConsistencyLevel) (map[string]*cassandra.ColumnOrSuperColumn, error) {
	return nil, nil
}

func (t *testHandler) MultigetSlice(context.Context, string, []string, *cassandra.ColumnParent, *cassandra.SlicePredicate, cassandra.ConsistencyLevel) (map[string][]*cassandra.ColumnOrSuperColumn, error) {
	return nil, nil
}

func (t *testHandler) GetCount(context.Context, string, string, *cassandra.ColumnParent, cassandra.ConsistencyLevel) (int32, error) {
	return 0, nil
}

func (t *testHandler) GetRangeSlice(context.Context, string, *cassandra.ColumnParent, *cassandra.SlicePredicate, string, string, int32, cassandra.ConsistencyLevel) ([]*cassandra.KeySlice, error) {
	return nil, nil
}

func (t *testHandler) GetRangeSlices(context.Context, string, *cassandra.ColumnParent, *cassandra.SlicePredicate, *cassandra.KeyRange, cassandra.ConsistencyLevel) ([]*cassandra.KeySlice, error) {
	return nil, nil
}

func (t *testHandler) Insert(context.Context, string, string, *cassandra.ColumnPath, []byte, int64, cassandra.ConsistencyLevel) error {
	return nil
}

func (t *testHandler) BatchInsert(context.Context, string, string, map[string][]*cassandra.ColumnOrSuperColumn, cassandra.ConsistencyLevel) error {
	return nil
}

func (t *testHandler) Remove(context.Context, string, string, *cassandra.ColumnPath, int64, cassandra.ConsistencyLevel) error {
	return nil
}

func (t *testHandler) BatchMutate(context.Context, string, map[string]map[string][]*cassandra.Mutation, cassandra.ConsistencyLevel) error {
	return nil
}

func (t *testHandler) GetStringListProperty(context.Context, string) ([]string, error) {
	return nil, nil
}

func (t *testHandler) DescribeKeyspaces(context.Context) ([]string, error) { return nil, nil }

func (t *testHandler) DescribeRing(context.Context, string) ([]*cassandra.TokenRange, error) {
	return nil, nil
}

func (t *testHandler) DescribePartitioner(context.Context) (string, error) { return "", nil }

func (t *testHandler) DescribeKeyspace(context.Context, string) (map[string]map[string]string, error) {
	return nil, nil
}

func (t *testHandler) DescribeSplits(context.Context, string, string, int32) ([]string, error) {
	return nil, nil
}

// logSink collects a server's JSON log lines for inspection.
type logSink struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logSink) records() []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(l.buf.String(), "\n") {
		if line == "" {
			continue
		}
		// Numbers stay as written, so a size compares as "2147483647".
		d := json.NewDecoder(strings.NewReader(line))
		d.UseNumber()
		var m map[string]any
		if err := d.Decode(&m); err == nil {
			out = append(out, m)
		}
	}
	return out
}

// waitRecord waits for a log record whose string attributes include all of
// want, and returns it.
func (l *logSink) waitRecord(t *testing.T, want map[string]string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		for _, r := range l.records() {
			if matches(r, want) {
				return r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no log record with %v; have:\n%s", want, l.dump())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func matches(r map[string]any, want map[string]string) bool {
	for k, v := range want {
		if fmt.Sprint(r[k]) != v {
			return false
		}
	}
	return true
}

func (l *logSink) dump() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func slogFor(l *logSink) *slog.Logger {
	return slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// testServer is a Server listening on a loopback port for one test.
type testServer struct {
	*Server
	addr   string
	logs   *logSink
	served chan error
}

func startServer(t *testing.T, opts Options, h *hooks) *testServer {
	t.Helper()
	if h == nil {
		h = &hooks{}
	}
	logs := &logSink{}
	opts.Logger = slogFor(logs)
	s := New(opts, newTestProcessor(h))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{Server: s, addr: l.Addr().String(), logs: logs, served: make(chan error, 1)}
	go func() { ts.served <- s.Serve(l) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-ts.served; !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
	})
	return ts
}

// clientKind is a way a generated client can talk to the server.
type clientKind struct {
	name    string
	framed  bool
	compact bool
}

var clientKinds = []clientKind{
	{"unframed binary", false, false},
	{"framed binary", true, false},
	{"unframed compact", false, true},
	{"framed compact", true, true},
}

var clientConf = &thrift.TConfiguration{MaxMessageSize: 64 << 20}

func (k clientKind) protocolFactory() thrift.TProtocolFactory {
	if k.compact {
		return thrift.NewTCompactProtocolFactoryConf(clientConf)
	}
	return thrift.NewTBinaryProtocolFactoryConf(clientConf)
}

func (k clientKind) transport(t thrift.TTransport) thrift.TTransport {
	if k.framed {
		return thrift.NewTFramedTransportConf(t, clientConf)
	}
	return thrift.NewTBufferedTransport(t, 8192)
}

// dialClient connects a generated client of the given kind; it is closed
// when the test ends. It also returns the client's local address, which is
// the peer the server logs.
func dialClient(t *testing.T, addr string, k clientKind) (*cassandra.CassandraClient, thrift.TTransport, string) {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	sock := thrift.NewTSocketFromConnConf(nc, clientConf)
	trans := k.transport(sock)
	t.Cleanup(func() { trans.Close() })
	return cassandra.NewCassandraClientFactory(trans, k.protocolFactory()), trans, nc.LocalAddr().String()
}

// encodeCall encodes a call the way the generated client does.
func encodeCall(t testing.TB, k clientKind, name string, seq int32, args thrift.TStruct) []byte {
	t.Helper()
	buf := thrift.NewTMemoryBuffer()
	trans := thrift.TTransport(buf)
	if k.framed {
		trans = thrift.NewTFramedTransportConf(buf, clientConf)
	}
	prot := k.protocolFactory().GetProtocol(trans)
	if err := thrift.NewTStandardClient(prot, prot).Send(context.Background(), prot, seq, name, args); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// encodeStruct is the binary encoding of s alone.
func encodeStruct(t testing.TB, s thrift.TStruct) []byte {
	t.Helper()
	buf := thrift.NewTMemoryBuffer()
	if err := s.Write(context.Background(), thrift.NewTBinaryProtocolConf(buf, clientConf)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// strictHeader is a versioned binary CALL header, built by hand.
func strictHeader(name string, seq int32) []byte {
	b := binary.BigEndian.AppendUint32(nil, 0x80010000|uint32(thrift.CALL))
	b = binary.BigEndian.AppendUint32(b, uint32(len(name)))
	b = append(b, name...)
	return binary.BigEndian.AppendUint32(b, uint32(seq))
}

// unversionedHeader is the old binary CALL header: name length, name, type
// byte, sequence id.
func unversionedHeader(name string, seq int32) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(name)))
	b = append(b, name...)
	b = append(b, byte(thrift.CALL))
	return binary.BigEndian.AppendUint32(b, uint32(seq))
}

func frame(msg []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(msg))), msg...)
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// rawConn is a plain TCP connection for sending hand-made bytes.
type rawConn struct {
	net.Conn
	br *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	return &rawConn{Conn: nc, br: bufio.NewReader(nc)}
}

func (c *rawConn) send(t *testing.T, b []byte) {
	t.Helper()
	if _, err := c.Write(b); err != nil {
		t.Fatal(err)
	}
}

// reply is one decoded message from the server.
type reply struct {
	header []byte // the first 4 bytes of the message (after any frame length)
	name   string
	typ    thrift.TMessageType
	seq    int32
	appErr thrift.TApplicationException // set for EXCEPTION messages
}

// readReply reads one message in the given kind's encoding, decoding its
// body into result unless it is an EXCEPTION.
func (c *rawConn) readReply(t *testing.T, k clientKind, result thrift.TStruct) reply {
	t.Helper()
	br := c.br
	if k.framed {
		hdr := make([]byte, 4)
		if _, err := io.ReadFull(c.br, hdr); err != nil {
			t.Fatalf("reading frame header: %v", err)
		}
		body := make([]byte, binary.BigEndian.Uint32(hdr))
		if _, err := io.ReadFull(c.br, body); err != nil {
			t.Fatalf("reading frame: %v", err)
		}
		br = bufio.NewReader(bytes.NewReader(body))
	}
	head, err := br.Peek(4)
	if err != nil {
		t.Fatalf("reading reply: %v", err)
	}
	rep := reply{header: append([]byte(nil), head...)}
	trans := thrift.NewStreamTransportR(br)
	var prot thrift.TProtocol
	if k.compact {
		prot = thrift.NewTCompactProtocolConf(trans, clientConf)
	} else {
		prot = thrift.NewTBinaryProtocolConf(trans, &thrift.TConfiguration{TBinaryStrictRead: thrift.BoolPtr(true)})
	}
	ctx := context.Background()
	rep.name, rep.typ, rep.seq, err = prot.ReadMessageBegin(ctx)
	if err != nil {
		t.Fatalf("reading reply header: %v", err)
	}
	if rep.typ == thrift.EXCEPTION {
		rep.appErr = thrift.NewTApplicationException(0, "")
		if err := rep.appErr.Read(ctx, prot); err != nil {
			t.Fatalf("reading exception: %v", err)
		}
	} else if err := result.Read(ctx, prot); err != nil {
		t.Fatalf("reading result: %v", err)
	}
	return rep
}

// expectClosed reads until the server closes the connection and returns
// what arrived before. It fails if the connection is still open after
// within.
func (c *rawConn) expectClosed(t *testing.T, within time.Duration) []byte {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(within))
	data, err := io.ReadAll(c.br)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("connection still open after %v (read %d bytes)", within, len(data))
	}
	return data
}

// waitFor polls cond until it holds or the time is up.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
