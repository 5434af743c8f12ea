package server

import (
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
