package dialect

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/server"
)

// echo is a processor function that skips its arguments and answers with
// a string naming its dialect.
type echo struct{ d Dialect }

func (e echo) Process(ctx context.Context, seq int32, in, out thrift.TProtocol) (bool, thrift.TException) {
	if err := in.Skip(ctx, thrift.STRUCT); err != nil {
		return false, thrift.WrapTException(err)
	}
	in.ReadMessageEnd(ctx)
	out.WriteMessageBegin(ctx, "reply", thrift.REPLY, seq)
	out.WriteStructBegin(ctx, "result")
	out.WriteFieldBegin(ctx, "success", thrift.STRING, 0)
	out.WriteString(ctx, e.d.String())
	out.WriteFieldEnd(ctx)
	out.WriteFieldStop(ctx)
	out.WriteStructEnd(ctx)
	out.WriteMessageEnd(ctx)
	out.Flush(ctx)
	return true, nil
}

// fakeProcessor answers every method of one interface with echo.
func fakeProcessor(d Dialect, names map[string]bool) func() thrift.TProcessor {
	return func() thrift.TProcessor {
		p := mapProcessor{}
		for name := range names {
			p[name] = echo{d}
		}
		return p
	}
}

// mapProcessor is a processor that the server dispatches through its map.
type mapProcessor map[string]thrift.TProcessorFunction

func (p mapProcessor) Process(context.Context, thrift.TProtocol, thrift.TProtocol) (bool, thrift.TException) {
	panic("the server dispatches through ProcessorMap")
}
func (p mapProcessor) ProcessorMap() map[string]thrift.TProcessorFunction { return p }
func (p mapProcessor) AddToProcessorMap(name string, fn thrift.TProcessorFunction) {
	p[name] = fn
}

func startRouter(t *testing.T, def Default) string {
	t.Helper()
	r := &Router{V06: fakeProcessor(V06, names06), V19: fakeProcessor(V19, names19), Default: def}
	srv := server.New(server.Options{}, r.NewProcessor)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	return l.Addr().String()
}

type client struct {
	t      *testing.T
	nc     net.Conn
	br     *bufio.Reader
	framed bool
}

func dial(t *testing.T, addr string, framed bool) *client {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	return &client{t: t, nc: nc, br: bufio.NewReader(nc), framed: framed}
}

// call sends method with args and returns the dialect that answered.
func (c *client) call(method string, args thrift.TStruct) string {
	c.t.Helper()
	buf := thrift.NewTMemoryBuffer()
	p := thrift.NewTBinaryProtocolConf(buf, nil)
	ctx := context.Background()
	p.WriteMessageBegin(ctx, method, thrift.CALL, 1)
	args.Write(ctx, p)
	p.WriteMessageEnd(ctx)
	msg := buf.Bytes()
	if c.framed {
		msg = append(binary.BigEndian.AppendUint32(nil, uint32(len(msg))), msg...)
	}
	if _, err := c.nc.Write(msg); err != nil {
		c.t.Fatal(err)
	}
	var in thrift.TTransport = thrift.NewStreamTransportR(c.br)
	if c.framed {
		var hdr [4]byte
		if _, err := io.ReadFull(c.br, hdr[:]); err != nil {
			c.t.Fatal(err)
		}
	}
	rp := thrift.NewTBinaryProtocolConf(in, nil)
	name, typ, _, err := rp.ReadMessageBegin(ctx)
	if err != nil {
		c.t.Fatal(err)
	}
	if typ == thrift.EXCEPTION {
		x := thrift.NewTApplicationException(0, "")
		x.Read(ctx, rp)
		return "exception: " + x.Error()
	}
	if name != "reply" {
		c.t.Fatalf("reply named %q", name)
	}
	rp.ReadStructBegin(ctx)
	rp.ReadFieldBegin(ctx)
	s, err := rp.ReadString(ctx)
	if err != nil {
		c.t.Fatal(err)
	}
	rp.ReadFieldEnd(ctx)
	rp.ReadFieldBegin(ctx)
	rp.ReadStructEnd(ctx)
	rp.ReadMessageEnd(ctx)
	return s
}

var (
	describeKeyspaces = &cassandra.CassandraDescribeKeyspacesArgs{}
	getSlice06        = &cassandra.CassandraGetSliceArgs{Keyspace: "Keyspace1", Key: "k", ColumnParent: &cassandra.ColumnParent{ColumnFamily: "S"}, Predicate: &cassandra.SlicePredicate{}}
	getSlice19        = &cassandra19.CassandraGetSliceArgs{Key: []byte("k"), ColumnParent: &cassandra19.ColumnParent{ColumnFamily: "S"}, Predicate: &cassandra19.SlicePredicate{}}
	setKeyspace       = &cassandra19.CassandraSetKeyspaceArgs{Keyspace: "Keyspace1"}
	multiget06        = &cassandra.CassandraMultigetArgs{Keyspace: "Keyspace1", Keys: []string{"k"}, ColumnPath: &cassandra.ColumnPath{ColumnFamily: "S"}}
)

// A fresh connection's ambiguous call follows the transport; after that,
// the dialect the connection showed last.
func TestRouting(t *testing.T) {
	addr := startRouter(t, Default{})
	for _, c := range []struct {
		name   string
		framed bool
		calls  []string // method, then the dialect expected
		args   []thrift.TStruct
	}{
		{"unframed fresh", false, []string{"describe_keyspaces", "0.6"}, []thrift.TStruct{describeKeyspaces}},
		{"framed fresh", true, []string{"describe_keyspaces", "19.x"}, []thrift.TStruct{describeKeyspaces}},
		{"framed after a 0.6 call", true, []string{"get_slice", "0.6", "describe_keyspaces", "0.6"}, []thrift.TStruct{getSlice06, describeKeyspaces}},
		{"unframed after set_keyspace", false, []string{"set_keyspace", "19.x", "describe_keyspaces", "19.x"}, []thrift.TStruct{setKeyspace, describeKeyspaces}},
		{"switching on one connection", true, []string{"get_slice", "19.x", "multiget", "0.6", "describe_keyspaces", "0.6", "get_slice", "19.x", "describe_keyspaces", "19.x"},
			[]thrift.TStruct{getSlice19, multiget06, describeKeyspaces, getSlice19, describeKeyspaces}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := dial(t, addr, c.framed)
			for i, args := range c.args {
				method, want := c.calls[2*i], c.calls[2*i+1]
				if got := cl.call(method, args); got != want {
					t.Fatalf("call %d (%s): answered by %s, want %s", i, method, got, want)
				}
			}
		})
	}
}

func TestDefaultSettings(t *testing.T) {
	for _, c := range []struct {
		def    Default
		framed bool
		want   string
	}{
		{Default{FramedV06: true}, true, "0.6"},
		{Default{Fixed: V19}, false, "19.x"},
		{Default{Fixed: V06}, true, "0.6"},
	} {
		addr := startRouter(t, c.def)
		if got := dial(t, addr, c.framed).call("describe_version", &cassandra.CassandraDescribeVersionArgs{}); got != c.want {
			t.Errorf("%+v framed=%v: %s, want %s", c.def, c.framed, got, c.want)
		}
	}
}

// A method neither interface has gets UNKNOWN_METHOD and the connection
// goes on, framed or not.
func TestUnknownMethodKeepsConnection(t *testing.T) {
	addr := startRouter(t, Default{})
	for _, framed := range []bool{false, true} {
		cl := dial(t, addr, framed)
		if got := cl.call("no_such_method", describeKeyspaces); got != "exception: Invalid method name: 'no_such_method'" {
			t.Fatalf("framed=%v: %s", framed, got)
		}
		if got := cl.call("set_keyspace", setKeyspace); got != "19.x" {
			t.Fatalf("framed=%v after unknown method: %s", framed, got)
		}
	}
}

func TestParse(t *testing.T) {
	for s, want := range map[string]Dialect{"0.6": V06, "19.x": V19, "19": V19} {
		if d, ok := Parse(s); !ok || d != want {
			t.Errorf("Parse(%q) = %v, %v", s, d, ok)
		}
	}
	if _, ok := Parse("0.7"); ok {
		t.Error("Parse(0.7) accepted")
	}
}
