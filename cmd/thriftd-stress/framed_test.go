package main

import (
	"context"
	"encoding/binary"
	"net"
	"reflect"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// pipeTransport is one end of a net.Pipe as a thrift transport.
type pipeTransport struct{ net.Conn }

func (pipeTransport) Open() error                   { return nil }
func (pipeTransport) IsOpen() bool                  { return true }
func (pipeTransport) Flush(context.Context) error   { return nil }
func (pipeTransport) RemainingBytes() uint64        { return ^uint64(0) }
func (p pipeTransport) Close() error                { return p.Conn.Close() }
func (p pipeTransport) Write(b []byte) (int, error) { return p.Conn.Write(b) }

// frame encodes v with the library's own binary protocol, framed.
func frame(t *testing.T, v thrift.TStruct) []byte {
	t.Helper()
	buf := thrift.NewTMemoryBuffer()
	if err := v.Write(context.Background(), thrift.NewTBinaryProtocolConf(buf, nil)); err != nil {
		t.Fatal(err)
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(buf.Len()))
	return append(out, buf.Bytes()...)
}

// What the library wrote, the client's transport and protocol read back
// the same, frame after frame on one connection; a length beyond the
// frame is refused.
func TestFramedClientReadsWhatTheLibraryWrites(t *testing.T) {
	ts := int64(7)
	ttl := int32(9)
	want := &cassandra19.KeySlice{Key: []byte("0042"), Columns: []*cassandra19.ColumnOrSuperColumn{
		{Column: &cassandra19.Column{Name: []byte("C0"), Value: []byte("value"), Timestamp: &ts}},
		{Column: &cassandra19.Column{Name: []byte{}, Value: make([]byte, 3000), Timestamp: &ts, TTL: &ttl}},
	}}
	server, client := net.Pipe()
	defer server.Close()
	bad := binary.BigEndian.AppendUint32(nil, 7)
	bad = append(bad, byte(thrift.STRING), 0, 1, 0, 0, 0, 100) // key of 100 bytes in a 7-byte frame
	go func() {
		for range 2 {
			server.Write(frame(t, want))
		}
		server.Write(bad)
	}()
	tr := newFramedClient(pipeTransport{client}, 1<<20)
	p := newExactProtocol(tr, &thrift.TConfiguration{})
	for i := range 2 {
		got := &cassandra19.KeySlice{}
		if err := got.Read(context.Background(), p); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("frame %d: read %+v, want %+v", i, got, want)
		}
	}
	if err := (&cassandra19.KeySlice{}).Read(context.Background(), p); err == nil {
		t.Fatal("a length beyond the frame was read")
	}
}

// A request goes out as one frame: its length, then what was written.
func TestFramedClientWritesOneFrame(t *testing.T) {
	server, client := net.Pipe()
	defer server.Close()
	tr := newFramedClient(pipeTransport{client}, 1<<20)
	got := make(chan []byte)
	go func() {
		b := make([]byte, 64)
		n, _ := server.Read(b)
		got <- b[:n]
	}()
	tr.Write([]byte("abc"))
	tr.WriteByte('d')
	tr.WriteString("ef")
	if err := tr.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if b := <-got; string(b) != "\x00\x00\x00\x06abcdef" {
		t.Fatalf("sent %q", b)
	}
}
