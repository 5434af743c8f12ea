package server

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

func sliceArgs(key string) *cassandra.CassandraGetSliceArgs {
	return &cassandra.CassandraGetSliceArgs{
		Keyspace:         "Keyspace1",
		Key:              key,
		ColumnParent:     &cassandra.ColumnParent{ColumnFamily: "Standard1"},
		Predicate:        &cassandra.SlicePredicate{ColumnNames: [][]byte{[]byte("a"), []byte("bc")}},
		ConsistencyLevel: cassandra.ConsistencyLevel_QUORUM,
	}
}

// checkSliceEcho checks the test handler's echo of sliceArgs(key).
func checkSliceEcho(t *testing.T, got []*cassandra.ColumnOrSuperColumn, key string) {
	t.Helper()
	want := []string{"Keyspace1=" + key, "cf=Standard1", "a=a", "bc=bc"}
	if len(got) != len(want) {
		t.Fatalf("got %d columns, want %d", len(got), len(want))
	}
	for i, c := range got {
		if s := string(c.Column.Name) + "=" + string(c.Column.Value); s != want[i] {
			t.Errorf("column %d = %q, want %q", i, s, want[i])
		}
	}
	if got[0].Column.Timestamp != int64(cassandra.ConsistencyLevel_QUORUM) {
		t.Errorf("consistency level echoed as %d", got[0].Column.Timestamp)
	}
}

// Every supported framing and protocol serves calls on one connection, and
// the processor (with its state) lives as long as the connection.
func TestGeneratedClients(t *testing.T) {
	for _, k := range clientKinds {
		t.Run(k.name, func(t *testing.T) {
			ts := startServer(t, Options{}, nil)
			client, trans, peer := dialClient(t, ts.addr, k)
			ctx := context.Background()

			v, err := client.DescribeVersion(ctx)
			if err != nil || v != "2.2.0" {
				t.Fatalf("describe_version = %q, %v", v, err)
			}
			cols, err := client.GetSlice(ctx, "Keyspace1", "row-ü", &cassandra.ColumnParent{ColumnFamily: "Standard1"},
				sliceArgs("").Predicate, cassandra.ConsistencyLevel_QUORUM)
			if err != nil {
				t.Fatal(err)
			}
			checkSliceEcho(t, cols, "row-ü")

			err = client.Login(ctx, "Keyspace1", &cassandra.AuthenticationRequest{Credentials: map[string]string{"username": "bad"}})
			var authn *cassandra.AuthenticationException
			if !errors.As(err, &authn) || authn.Why != "bad user" {
				t.Fatalf("login: got %v, want AuthenticationException", err)
			}

			const n = 100
			for i := 1; i <= n; i++ {
				name, err := client.DescribeClusterName(ctx)
				if want := fmt.Sprintf("calls=%d", i); err != nil || name != want {
					t.Fatalf("call %d: got %q, %v; want %q", i, name, err, want)
				}
			}
			if got := ts.Stats().Requests; got != n+3 {
				t.Errorf("Stats().Requests = %d, want %d", got, n+3)
			}

			trans.Close()
			ts.logs.waitRecord(t, map[string]string{
				"msg": "connection closed", "peer": peer, "reason": "client closed",
				"framing": k.name, "requests": fmt.Sprint(n + 3), "level": "DEBUG",
			})
		})
	}
}

// The old unversioned binary header is read, framed and unframed; the
// reply header is always versioned, and later messages on the connection
// may use either header.
func TestUnversionedHeader(t *testing.T) {
	for _, framed := range []bool{false, true} {
		k := clientKind{framed: framed}
		t.Run(fmt.Sprint("framed=", framed), func(t *testing.T) {
			ts := startServer(t, Options{}, nil)
			c := dialRaw(t, ts.addr)
			wrap := func(b []byte) []byte {
				if framed {
					return frame(b)
				}
				return b
			}

			c.send(t, wrap(cat(unversionedHeader("describe_version", 7), []byte{thrift.STOP})))
			var vres cassandra.CassandraDescribeVersionResult
			r := c.readReply(t, k, &vres)
			// 0x80 0x01 version, 0x00, type REPLY (2).
			if !bytes.Equal(r.header, []byte{0x80, 0x01, 0x00, 0x02}) {
				t.Errorf("reply header % x, want 80 01 00 02", r.header)
			}
			if r.name != "describe_version" || r.seq != 7 || vres.GetSuccess() != "2.2.0" {
				t.Errorf("got %s seq %d %q", r.name, r.seq, vres.GetSuccess())
			}

			args := encodeStruct(t, sliceArgs("k1"))
			c.send(t, wrap(cat(unversionedHeader("get_slice", 8), args)))
			var sres cassandra.CassandraGetSliceResult
			if r := c.readReply(t, k, &sres); r.name != "get_slice" || r.seq != 8 {
				t.Fatalf("got %s seq %d", r.name, r.seq)
			}
			checkSliceEcho(t, sres.GetSuccess(), "k1")

			c.send(t, wrap(cat(strictHeader("get_slice", 9), args)))
			sres = cassandra.CassandraGetSliceResult{}
			if r := c.readReply(t, k, &sres); r.seq != 9 {
				t.Fatalf("got seq %d", r.seq)
			}
			checkSliceEcho(t, sres.GetSuccess(), "k1")

			c.Close()
			want := "unframed binary (unversioned header)"
			if framed {
				want = "framed binary (unversioned header)"
			}
			ts.logs.waitRecord(t, map[string]string{"msg": "connection closed", "framing": want, "requests": "3"})
		})
	}
}

// Requests sent back to back before any reply is read are answered in order.
func TestPipelinedRequests(t *testing.T) {
	for _, k := range clientKinds {
		t.Run(k.name, func(t *testing.T) {
			ts := startServer(t, Options{}, nil)
			c := dialRaw(t, ts.addr)
			var all []byte
			for seq := int32(1); seq <= 5; seq++ {
				all = append(all, encodeCall(t, k, "get_slice", seq, sliceArgs(fmt.Sprint("key", seq)))...)
			}
			c.send(t, all)
			for seq := int32(1); seq <= 5; seq++ {
				var res cassandra.CassandraGetSliceResult
				r := c.readReply(t, k, &res)
				if r.seq != seq || r.typ != thrift.REPLY {
					t.Fatalf("reply %d: seq %d type %d", seq, r.seq, r.typ)
				}
				checkSliceEcho(t, res.GetSuccess(), fmt.Sprint("key", seq))
			}
		})
	}
}

// An unknown method gets 0.6's UNKNOWN_METHOD exception, its arguments are
// skipped, and the connection goes on.
func TestUnknownMethod(t *testing.T) {
	for _, k := range clientKinds {
		t.Run(k.name, func(t *testing.T) {
			ts := startServer(t, Options{}, nil)
			c := dialRaw(t, ts.addr)
			c.send(t, encodeCall(t, k, "no_such_method", 3, sliceArgs("x")))
			r := c.readReply(t, k, nil)
			if r.typ != thrift.EXCEPTION || r.name != "no_such_method" || r.seq != 3 {
				t.Fatalf("got type %d name %q seq %d", r.typ, r.name, r.seq)
			}
			if r.appErr.TypeId() != thrift.UNKNOWN_METHOD || r.appErr.Error() != "Invalid method name: 'no_such_method'" {
				t.Fatalf("got exception %d %q", r.appErr.TypeId(), r.appErr.Error())
			}

			c.send(t, encodeCall(t, k, "describe_version", 4, &cassandra.CassandraDescribeVersionArgs{}))
			var res cassandra.CassandraDescribeVersionResult
			if r := c.readReply(t, k, &res); r.seq != 4 || res.GetSuccess() != "2.2.0" {
				t.Fatalf("after unknown method: seq %d %q", r.seq, res.GetSuccess())
			}
		})
	}
}

// Arguments that decode but lack a required field get a PROTOCOL_ERROR
// exception; the stream is still in step, so the connection stays open, as
// in Cassandra 0.6.
func TestMissingRequiredFieldKeepsConnection(t *testing.T) {
	for _, framed := range []bool{false, true} {
		k := clientKind{framed: framed}
		t.Run(fmt.Sprint("framed=", framed), func(t *testing.T) {
			ts := startServer(t, Options{}, nil)
			c := dialRaw(t, ts.addr)
			// get_slice args with only field 2 (key): keyspace is missing.
			args := []byte{thrift.STRING, 0, 2, 0, 0, 0, 1, 'k', thrift.STOP}
			msg := cat(strictHeader("get_slice", 11), args)
			if framed {
				msg = frame(msg)
			}
			c.send(t, msg)
			r := c.readReply(t, k, nil)
			if r.typ != thrift.EXCEPTION || r.seq != 11 || r.appErr.TypeId() != thrift.PROTOCOL_ERROR {
				t.Fatalf("got type %d seq %d exception %v", r.typ, r.seq, r.appErr)
			}
			if !strings.Contains(r.appErr.Error(), "Keyspace") {
				t.Errorf("exception %q does not name the missing field", r.appErr.Error())
			}

			c.send(t, encodeCall(t, k, "describe_version", 12, &cassandra.CassandraDescribeVersionArgs{}))
			var res cassandra.CassandraDescribeVersionResult
			if r := c.readReply(t, k, &res); r.seq != 12 || res.GetSuccess() != "2.2.0" {
				t.Fatalf("after protocol error: seq %d %q", r.seq, res.GetSuccess())
			}
		})
	}
}

// An undeclared handler error becomes INTERNAL_ERROR and the connection
// goes on; a panic becomes INTERNAL_ERROR, is logged with its stack, and
// closes that connection only; an abandoned request closes the connection.
func TestHandlerFailures(t *testing.T) {
	ts := startServer(t, Options{}, nil)
	ctx := context.Background()
	bystander, _, _ := dialClient(t, ts.addr, clientKinds[0])
	if _, err := bystander.DescribeVersion(ctx); err != nil {
		t.Fatal(err)
	}

	for _, k := range clientKinds {
		t.Run(k.name, func(t *testing.T) {
			client, _, peer := dialClient(t, ts.addr, k)
			_, err := client.GetStringProperty(ctx, "error")
			var ae thrift.TApplicationException
			if !errors.As(err, &ae) || ae.TypeId() != thrift.INTERNAL_ERROR {
				t.Fatalf("error property: got %v, want INTERNAL_ERROR", err)
			}
			if v, err := client.GetStringProperty(ctx, "still-open"); err != nil || v != "still-open" {
				t.Fatalf("after handler error: %q, %v", v, err)
			}

			_, err = client.GetStringProperty(ctx, "panic")
			if !errors.As(err, &ae) || ae.TypeId() != thrift.INTERNAL_ERROR ||
				ae.Error() != "Internal error processing get_string_property" {
				t.Fatalf("panic: got %v, want INTERNAL_ERROR reply", err)
			}
			if _, err := client.DescribeVersion(ctx); err == nil {
				t.Fatal("connection still served after a panic")
			}
			rec := ts.logs.waitRecord(t, map[string]string{
				"msg": "connection closed", "peer": peer, "reason": "panic", "level": "ERROR",
				"method": "get_string_property",
			})
			if stack := fmt.Sprint(rec["stack"]); !strings.Contains(stack, "GetStringProperty") {
				t.Errorf("logged stack does not show the handler:\n%s", stack)
			}
		})
	}

	client, _, peer := dialClient(t, ts.addr, clientKinds[0])
	if _, err := client.GetStringProperty(ctx, "abandon"); err == nil {
		t.Fatal("abandoned request got a reply")
	}
	ts.logs.waitRecord(t, map[string]string{"peer": peer, "reason": "request abandoned"})

	if v, err := bystander.DescribeVersion(ctx); err != nil || v != "2.2.0" {
		t.Fatalf("other connection affected: %q, %v", v, err)
	}
	if got := ts.Stats().Failed; got != uint64(len(clientKinds)) {
		t.Errorf("Stats().Failed = %d, want %d (one per panic)", got, len(clientKinds))
	}
}

// A frame length beyond the limit closes the connection at once, before any
// of the frame is read, and leaves other connections alone.
func TestOversizeFrame(t *testing.T) {
	tests := []struct {
		name   string
		header []byte
		size   string
	}{
		{"2 GB", []byte{0x7f, 0xff, 0xff, 0xf0, 0x80, 0x01, 0x00, 0x01}, "2147483632"},
		{"just over the limit", []byte{0x00, 0x10, 0x00, 0x01, 0x80, 0x01, 0x00, 0x01}, "1048577"},
		{"negative", []byte{0x80, 0x00, 0x00, 0x10, 0x80, 0x01, 0x00, 0x01}, "-2147483632"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, Options{MaxMessageSize: 1 << 20}, nil)
			other, _, _ := dialClient(t, ts.addr, clientKinds[1])
			if _, err := other.DescribeVersion(context.Background()); err != nil {
				t.Fatal(err)
			}
			c := dialRaw(t, ts.addr)
			c.send(t, tt.header)
			if got := c.expectClosed(t, time.Second); len(got) != 0 {
				t.Errorf("server sent % x", got)
			}
			ts.logs.waitRecord(t, map[string]string{
				"msg": "connection closed", "peer": c.LocalAddr().String(), "level": "WARN",
				"reason": "size limit exceeded", "what": "frame", "size": tt.size,
			})
			if _, err := other.DescribeVersion(context.Background()); err != nil {
				t.Fatalf("other connection affected: %v", err)
			}
		})
	}
}

// listField is a field header for a list of elem with a claimed count.
func listField(id int16, elem thrift.TType, count int32) []byte {
	b := []byte{thrift.LIST, byte(id >> 8), byte(id)}
	b = append(b, byte(elem))
	return binary.BigEndian.AppendUint32(b, uint32(count))
}

// mapField is a field header for a map with a claimed count.
func mapField(id int16, k, v thrift.TType, count int32) []byte {
	b := []byte{thrift.MAP, byte(id >> 8), byte(id), byte(k), byte(v)}
	return binary.BigEndian.AppendUint32(b, uint32(count))
}

// Container counts that no data backs are refused before the generated
// code can preallocate for them.
func TestHugeContainerCounts(t *testing.T) {
	// multiget_slice: field 2 is keys, a list<string>.
	ksField := []byte{thrift.STRING, 0, 1, 0, 0, 0, 2, 'k', 's'}
	tests := []struct {
		name      string
		max       int64
		framed    bool
		msg       []byte
		what      string
		size      string
		reason    string
		hangsOpen bool // the client keeps its side open: the server must not wait for data
	}{
		{
			name: "unframed list of 2^31-1", max: 0,
			msg:  cat(strictHeader("multiget_slice", 1), ksField, listField(2, thrift.STRING, 1<<31-1)),
			what: "", size: "", reason: "size limit exceeded", hangsOpen: true,
		},
		{
			name: "framed list larger than its frame", max: 0, framed: true,
			msg:  cat(strictHeader("multiget_slice", 1), ksField, listField(2, thrift.STRING, 1_000_000), []byte{thrift.STOP}),
			what: "list", size: "1000000", reason: "size limit exceeded",
		},
		{
			name: "unframed list beyond the message size", max: 1 << 20,
			msg:  cat(strictHeader("multiget_slice", 1), ksField, listField(2, thrift.STRING, 1_000_000)),
			what: "list", size: "1000000", reason: "size limit exceeded", hangsOpen: true,
		},
		{
			name: "framed map larger than its frame", max: 0, framed: true,
			msg:  cat(strictHeader("batch_mutate", 1), ksField, mapField(2, thrift.STRING, thrift.MAP, 1_000_000), []byte{thrift.STOP}),
			what: "map", size: "1000000", reason: "size limit exceeded",
		},
		{
			// Within every size bound, but the elements never come: the
			// server waits for them instead of allocating, until the client
			// gives up.
			name: "unframed list whose data does not arrive", max: 0,
			msg:    cat(strictHeader("multiget_slice", 1), ksField, listField(2, thrift.STRING, 2_000_000)),
			reason: "truncated request",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, Options{MaxMessageSize: tt.max}, nil)
			c := dialRaw(t, ts.addr)
			msg := tt.msg
			if tt.framed {
				msg = frame(msg)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			c.send(t, msg)
			if !tt.hangsOpen {
				c.Conn.(*net.TCPConn).CloseWrite()
			}
			got := c.expectClosed(t, 2*time.Second)
			want := map[string]string{"peer": c.LocalAddr().String(), "reason": tt.reason}
			if tt.what != "" {
				want["what"], want["size"] = tt.what, tt.size
			}
			rec := ts.logs.waitRecord(t, want)
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
				t.Errorf("allocated %d bytes for a %d-byte request", alloc, len(msg))
			}
			if tt.what != "" && !strings.Contains(string(got), tt.size) {
				// The generated processor answers undecodable arguments with
				// PROTOCOL_ERROR before the connection closes.
				t.Errorf("reply %q does not mention the size; log: %v", got, rec)
			}
		})
	}
}

// String and binary lengths beyond the limit close the connection without
// waiting for the bytes.
func TestHugeStringLengths(t *testing.T) {
	strField := func(length int32) []byte {
		return binary.BigEndian.AppendUint32([]byte{thrift.STRING, 0, 1}, uint32(length))
	}
	tests := []struct {
		name string
		msg  []byte
		size string
	}{
		{"string of 2^31-1", cat(strictHeader("describe_keyspace", 1), strField(1<<31-1)), "2147483647"},
		{"negative string", cat(strictHeader("describe_keyspace", 1), strField(-5)), "-5"},
		{"method name of 2^31-1", binary.BigEndian.AppendUint32(strictHeader("", 1)[:4], 1<<31-1), "2147483647"},
		{"unversioned method name", []byte{0x00, 0x7f, 0xff, 0xff, 'g', 'e', 't'}, "8388607"},
		{"an HTTP request", []byte("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"), "1195725856"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, Options{MaxMessageSize: 1 << 20}, nil)
			c := dialRaw(t, ts.addr)
			c.send(t, tt.msg)
			c.expectClosed(t, time.Second)
			rec := ts.logs.waitRecord(t, map[string]string{
				"peer": c.LocalAddr().String(), "reason": "size limit exceeded", "level": "WARN",
			})
			if !strings.Contains(fmt.Sprint(rec["size"], " ", rec["err"]), tt.size) {
				t.Errorf("log does not name the size %s: %v", tt.size, rec)
			}
		})
	}
}

// An unframed request may not exceed the message size in total, even when
// each of its parts is within it.
func TestUnframedRequestSizeLimit(t *testing.T) {
	ts := startServer(t, Options{MaxMessageSize: 1000}, nil)
	c := dialRaw(t, ts.addr)
	args := &cassandra.CassandraGetSliceArgs{
		Keyspace: strings.Repeat("k", 600), Key: strings.Repeat("r", 600),
		ColumnParent: &cassandra.ColumnParent{ColumnFamily: "Standard1"},
		Predicate:    &cassandra.SlicePredicate{ColumnNames: [][]byte{}},
	}
	c.send(t, encodeCall(t, clientKinds[0], "get_slice", 1, args))
	c.expectClosed(t, time.Second)
	ts.logs.waitRecord(t, map[string]string{
		"peer": c.LocalAddr().String(), "reason": "size limit exceeded", "what": "request", "limit": "1000",
	})

	// The same limit leaves room for a request just under it.
	client, _, _ := dialClient(t, ts.addr, clientKinds[0])
	args.Keyspace, args.Key = strings.Repeat("k", 400), strings.Repeat("r", 400)
	if _, err := client.GetSlice(context.Background(), args.Keyspace, args.Key, args.ColumnParent, args.Predicate, 1); err != nil {
		t.Fatal(err)
	}
}

// A client that stops halfway through a request is logged and closed.
func TestTruncatedRequest(t *testing.T) {
	for _, k := range clientKinds {
		t.Run(k.name, func(t *testing.T) {
			ts := startServer(t, Options{}, nil)
			msg := encodeCall(t, k, "get_slice", 1, sliceArgs("key"))
			c := dialRaw(t, ts.addr)
			c.send(t, msg[:len(msg)-3])
			c.Conn.(*net.TCPConn).CloseWrite()
			c.expectClosed(t, 2*time.Second)
			ts.logs.waitRecord(t, map[string]string{
				"peer": c.LocalAddr().String(), "reason": "truncated request", "level": "INFO",
			})
		})
	}
}

// Garbage never crashes the server nor affects other connections; each
// connection sending it is closed.
func TestGarbage(t *testing.T) {
	ts := startServer(t, Options{MaxMessageSize: 1 << 16}, nil)
	ctx := context.Background()
	other, _, _ := dialClient(t, ts.addr, clientKinds[0])

	inputs := [][]byte{
		{0x80},
		{0x80, 0x01, 0x00},
		{0x80, 0x02, 0x00, 0x01, 0, 0, 0, 1, 'x', 0, 0, 0, 1, 0},                                // bad version
		{0x82, 0xff, 0x01, 0x01, 'x', 0},                                                        // bad compact version
		cat(strictHeader("get_slice", 1), []byte{0xee, 0, 1, 0}),                                // unknown field type
		cat(strictHeader("get_slice", 1), listField(9, 0x33, 3), []byte{1}),                     // unknown element type
		frame([]byte{0x80, 0x01, 0x00, 0x01}),                                                   // frame ends inside the header
		frame(cat(strictHeader("get_slice", 1), []byte{thrift.STRING, 0, 1, 0, 0, 0, 50, 'x'})), // string past the frame
		{0, 0, 0, 0, 0, 0},
	}
	rng := rand.New(rand.NewSource(1))
	for range 30 {
		b := make([]byte, 1+rng.Intn(300))
		rng.Read(b)
		inputs = append(inputs, b)
	}
	var wg sync.WaitGroup
	for i, in := range inputs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nc, err := net.Dial("tcp", ts.addr)
			if err != nil {
				t.Error(err)
				return
			}
			defer nc.Close()
			nc.Write(in)
			nc.(*net.TCPConn).CloseWrite()
			nc.SetReadDeadline(time.Now().Add(3 * time.Second))
			var buf [4096]byte
			for {
				if _, err := nc.Read(buf[:]); err != nil {
					var ne net.Error
					if errors.As(err, &ne) && ne.Timeout() {
						t.Errorf("input %d (% x): connection not closed", i, in[:min(len(in), 16)])
					}
					return
				}
			}
		}()
	}
	wg.Wait()
	if v, err := other.DescribeVersion(ctx); err != nil || v != "2.2.0" {
		t.Fatalf("other connection affected: %q, %v", v, err)
	}
	waitFor(t, "garbage connections to close", func() bool { return ts.Stats().Open == 1 })
	for _, r := range ts.logs.records() {
		if r["level"] == "ERROR" {
			t.Errorf("error logged for garbage input: %v", r)
		}
	}
}

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
