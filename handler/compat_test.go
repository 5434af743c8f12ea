package handler

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// wire builds the bytes of one call by hand, so tests can omit fields that
// generated clients always send.
type wire struct {
	buf *thrift.TMemoryBuffer
	p   thrift.TProtocol
}

// raw writes what the helpers below cannot, such as containers.
func (w *wire) raw(write func(p thrift.TProtocol)) *wire {
	write(w.p)
	return w
}

func wireCall(method string) *wire {
	buf := thrift.NewTMemoryBuffer()
	w := &wire{buf: buf, p: thrift.NewTBinaryProtocolConf(buf, nil)}
	w.p.WriteMessageBegin(context.Background(), method, thrift.CALL, 7)
	w.p.WriteStructBegin(context.Background(), "args")
	return w
}

func (w *wire) str(id int16, v string) *wire {
	w.p.WriteFieldBegin(context.Background(), "", thrift.STRING, id)
	w.p.WriteString(context.Background(), v)
	return w
}

func (w *wire) i32(id int16, v int32) *wire {
	w.p.WriteFieldBegin(context.Background(), "", thrift.I32, id)
	w.p.WriteI32(context.Background(), v)
	return w
}

func (w *wire) i64(id int16, v int64) *wire {
	w.p.WriteFieldBegin(context.Background(), "", thrift.I64, id)
	w.p.WriteI64(context.Background(), v)
	return w
}

func (w *wire) begin(id int16) *wire {
	w.p.WriteFieldBegin(context.Background(), "", thrift.STRUCT, id)
	return w
}

func (w *wire) end() *wire {
	w.p.WriteFieldStop(context.Background())
	return w
}

// run sends the call through the connection's processor and returns the
// reply's message type and its bytes for decoding.
func (w *wire) run(t *testing.T, e *testEnv, proc thrift.TProcessor) (thrift.TMessageType, thrift.TProtocol) {
	t.Helper()
	ctx := context.Background()
	w.p.WriteFieldStop(ctx)
	w.p.WriteMessageEnd(ctx)
	out := thrift.NewTMemoryBuffer()
	op := thrift.NewTBinaryProtocolConf(out, nil)
	name, _, seq, err := w.p.ReadMessageBegin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fn, ok := proc.ProcessorMap()[name]
	if !ok {
		t.Fatalf("no method %s", name)
	}
	fn.Process(ctx, seq, w.p, op)
	_, typ, rseq, err := op.ReadMessageBegin(ctx)
	if err != nil || rseq != 7 {
		t.Fatalf("reply: seq %d, %v", rseq, err)
	}
	if w.buf.Len() != 0 {
		t.Errorf("%d bytes of the call were left unread", w.buf.Len())
	}
	return typ, op
}

func appException(t *testing.T, typ thrift.TMessageType, p thrift.TProtocol) thrift.TApplicationException {
	t.Helper()
	if typ != thrift.EXCEPTION {
		t.Fatalf("reply type %d, want EXCEPTION", typ)
	}
	x := thrift.NewTApplicationException(0, "")
	if err := x.Read(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return x
}

func TestOmittedDefaultsAreSupplied(t *testing.T) {
	e := newEnv(t)
	proc := e.svc.Processor()
	must(t, e.c.Insert(e.ctx, "Keyspace1", "k", path("Standard1", nil, []byte("a")), []byte("v"), 5, cassandra.ConsistencyLevel_ONE))

	// get_slice with no consistency_level and a SliceRange with neither
	// reversed nor count: 0.6 used ONE, false and 100.
	w := wireCall("get_slice").str(1, "Keyspace1").str(2, "k").begin(3).str(3, "Standard1").end().
		begin(4).begin(2).str(1, "").str(2, "").end().end()
	typ, p := w.run(t, e, proc)
	if typ != thrift.REPLY {
		t.Fatalf("get_slice: reply type %d: %v", typ, appException(t, typ, p))
	}
	res := cassandra.CassandraGetSliceResult{}
	must(t, res.Read(context.Background(), p))
	if coscString(res.Success) != `["a"="v"@5]` {
		t.Errorf("get_slice = %s", coscString(res.Success))
	}

	// insert with no timestamp: 0.6 wrote timestamp 0.
	w = wireCall("insert").str(1, "Keyspace1").str(2, "k2").begin(3).str(3, "Standard1").str(5, "b").end().str(4, "v")
	if typ, p := w.run(t, e, proc); typ != thrift.REPLY {
		t.Fatalf("insert: %v", appException(t, typ, p))
	}
	got, err := e.c.Get(e.ctx, "Keyspace1", "k2", path("Standard1", nil, []byte("b")), cassandra.ConsistencyLevel_ONE)
	must(t, err)
	if got.Column.Timestamp != 0 {
		t.Errorf("timestamp = %d, want 0", got.Column.Timestamp)
	}

	// get_range_slice with only keyspace, parent and predicate: keys ""
	// to "", 100 rows.
	w = wireCall("get_range_slice").str(1, "Keyspace1").begin(2).str(3, "Standard1").end().
		begin(3).begin(2).str(1, "").str(2, "").end().end()
	typ, p = w.run(t, e, proc)
	if typ != thrift.REPLY {
		t.Fatalf("get_range_slice: %v", appException(t, typ, p))
	}
	rr := cassandra.CassandraGetRangeSliceResult{}
	must(t, rr.Read(context.Background(), p))
	if len(rr.Success) != 2 {
		t.Errorf("get_range_slice returned %d rows, want 2", len(rr.Success))
	}

	// A KeyRange without count: 100.
	w = wireCall("get_range_slices").str(1, "Keyspace1").begin(2).str(3, "Standard1").end().
		begin(3).begin(2).str(1, "").str(2, "").end().end().begin(4).str(1, "").str(2, "").end()
	if typ, p := w.run(t, e, proc); typ != thrift.REPLY {
		t.Fatalf("get_range_slices: %v", appException(t, typ, p))
	}
}

func TestMissingRequiredFieldsAreProtocolErrors(t *testing.T) {
	e := newEnv(t)
	proc := e.svc.Processor()
	for _, tc := range []struct {
		name string
		w    *wire
		want string
	}{
		{"missing argument", wireCall("get_slice").str(1, "Keyspace1").str(2, "k").begin(3).str(3, "Standard1").end(),
			"Required field 'predicate' was not present! Struct: get_slice_args"},
		{"first missing in declaration order", wireCall("get").i32(4, 1),
			"Required field 'keyspace' was not present! Struct: get_args"},
		// The rest of the call is read all the same, so that the next
		// call on the connection is found where the client put it.
		{"missing in a nested struct", wireCall("get").str(1, "Keyspace1").str(2, "k").begin(3).str(5, "c").end().i32(4, 1),
			"Required field 'column_family' was not present! Struct: ColumnPath"},
		{"missing in a struct in a list in a map", wireCall("batch_insert").str(1, "Keyspace1").str(2, "k").raw(func(p thrift.TProtocol) {
			ctx := context.Background()
			column := func(name, value string) {
				p.WriteStructBegin(ctx, "ColumnOrSuperColumn")
				p.WriteFieldBegin(ctx, "", thrift.STRUCT, 1)
				p.WriteStructBegin(ctx, "Column")
				p.WriteFieldBegin(ctx, "", thrift.STRING, 1)
				p.WriteString(ctx, name)
				if value != "" {
					p.WriteFieldBegin(ctx, "", thrift.STRING, 2)
					p.WriteString(ctx, value)
				}
				p.WriteFieldBegin(ctx, "", thrift.I64, 3)
				p.WriteI64(ctx, 1)
				p.WriteFieldStop(ctx)
				p.WriteFieldStop(ctx)
			}
			p.WriteFieldBegin(ctx, "", thrift.MAP, 3)
			p.WriteMapBegin(ctx, thrift.STRING, thrift.LIST, 2)
			p.WriteString(ctx, "Standard1")
			p.WriteListBegin(ctx, thrift.STRUCT, 3)
			column("a", "v")
			column("b", "") // no value
			column("c", "v")
			p.WriteString(ctx, "Standard2")
			p.WriteListBegin(ctx, thrift.STRUCT, 1)
			column("d", "v")
		}).i32(4, 1),
			"Required field 'value' was not present! Struct: Column"},
		{"unknown consistency level", wireCall("get").str(1, "Keyspace1").str(2, "k").begin(3).str(3, "Standard1").str(5, "c").end().i32(4, 42),
			"Required field 'consistency_level' was not present! Struct: get_args"},
		{"wrong wire type counts as missing", wireCall("describe_ring").i32(1, 5),
			"Required field 'keyspace' was not present! Struct: describe_ring_args"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			typ, p := tc.w.run(t, e, proc)
			x := appException(t, typ, p)
			if x.TypeId() != thrift.PROTOCOL_ERROR || x.Error() != tc.want {
				t.Errorf("got %d %q\nwant PROTOCOL_ERROR %q", x.TypeId(), x.Error(), tc.want)
			}
		})
	}
}

func TestUnknownConsistencyLevelInRemoveIsInvalid(t *testing.T) {
	e := newEnv(t)
	w := wireCall("remove").str(1, "Keyspace1").str(2, "k").begin(3).str(3, "Standard1").end().i64(4, 1).i32(5, 42)
	typ, p := w.run(t, e, e.svc.Processor())
	if typ != thrift.REPLY {
		t.Fatalf("remove: %v", appException(t, typ, p))
	}
	res := cassandra.CassandraRemoveResult{}
	must(t, res.Read(context.Background(), p))
	var ire *cassandra.InvalidRequestException
	if !errors.As(error(res.Ire), &ire) || res.Ire == nil {
		t.Fatalf("remove with consistency level 42: %+v", res)
	}
}

// argBytes returns the encoding of an arguments struct written by body.
func argBytes(body func(p thrift.TProtocol)) []byte {
	buf := thrift.NewTMemoryBuffer()
	p := thrift.NewTBinaryProtocolConf(buf, nil)
	p.WriteStructBegin(context.Background(), "args")
	body(p)
	p.WriteFieldStop(context.Background())
	return buf.Bytes()
}

// fuzzMethods are the methods FuzzRefusedArgumentsAreReadToTheirEnd calls.
var fuzzMethods = []string{"batch_insert", "batch_mutate", "get_slice", "get_range_slices", "multiget_slice", "insert", "login", "get"}

// FuzzRefusedArgumentsAreReadToTheirEnd checks that whenever a call is
// refused for a missing required field, exactly its arguments have been
// read: as many bytes as skipping them as one struct takes, so that the
// next call on the connection starts where the client put it.
func FuzzRefusedArgumentsAreReadToTheirEnd(f *testing.F) {
	ctx := context.Background()
	str := func(p thrift.TProtocol, id int16, v string) {
		p.WriteFieldBegin(ctx, "", thrift.STRING, id)
		p.WriteString(ctx, v)
	}
	column := func(p thrift.TProtocol, value bool) {
		p.WriteStructBegin(ctx, "")
		str(p, 1, "c")
		if value {
			str(p, 2, "v")
		}
		p.WriteFieldStop(ctx)
	}
	f.Add(uint8(0), argBytes(func(p thrift.TProtocol) {
		str(p, 1, "Keyspace1")
		str(p, 2, "k")
		p.WriteFieldBegin(ctx, "", thrift.MAP, 3)
		p.WriteMapBegin(ctx, thrift.STRING, thrift.LIST, 2)
		for i, cf := range []string{"Standard1", "Standard2"} {
			p.WriteString(ctx, cf)
			p.WriteListBegin(ctx, thrift.STRUCT, 2)
			for j := range 2 {
				p.WriteStructBegin(ctx, "")
				p.WriteFieldBegin(ctx, "", thrift.STRUCT, 1)
				column(p, i+j != 1)
				p.WriteFieldStop(ctx)
			}
		}
		p.WriteFieldBegin(ctx, "", thrift.I32, 4)
		p.WriteI32(ctx, 1)
	}))
	f.Add(uint8(1), argBytes(func(p thrift.TProtocol) {
		str(p, 1, "Keyspace1")
		p.WriteFieldBegin(ctx, "", thrift.MAP, 2)
		p.WriteMapBegin(ctx, thrift.STRING, thrift.MAP, 1)
		p.WriteString(ctx, "k")
		p.WriteMapBegin(ctx, thrift.STRING, thrift.LIST, 1)
		p.WriteString(ctx, "Standard1")
		p.WriteListBegin(ctx, thrift.STRUCT, 2)
		for _, value := range []bool{false, true} {
			p.WriteStructBegin(ctx, "")
			p.WriteFieldBegin(ctx, "", thrift.STRUCT, 1)
			p.WriteStructBegin(ctx, "")
			p.WriteFieldBegin(ctx, "", thrift.STRUCT, 1)
			column(p, value)
			p.WriteFieldStop(ctx)
			p.WriteFieldStop(ctx)
		}
		p.WriteFieldBegin(ctx, "", thrift.I32, 3)
		p.WriteI32(ctx, 1)
	}))
	f.Add(uint8(2), argBytes(func(p thrift.TProtocol) {
		str(p, 1, "Keyspace1")
		str(p, 2, "k")
		p.WriteFieldBegin(ctx, "", thrift.STRUCT, 3)
		str(p, 3, "Standard1")
		p.WriteFieldStop(ctx)
		p.WriteFieldBegin(ctx, "", thrift.STRUCT, 4)
		p.WriteFieldBegin(ctx, "", thrift.STRUCT, 2)
		str(p, 1, "")
		p.WriteFieldStop(ctx)
		p.WriteFieldStop(ctx)
		p.WriteFieldBegin(ctx, "", thrift.I32, 5)
		p.WriteI32(ctx, 1)
	}))
	e := newEnv(f)
	proc := e.svc.Processor()
	cfg := &thrift.TConfiguration{MaxMessageSize: 1 << 16}
	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		method := fuzzMethods[int(which)%len(fuzzMethods)]
		skip := thrift.NewTMemoryBuffer()
		skip.Write(args)
		if thrift.SkipDefaultDepth(ctx, thrift.NewTBinaryProtocolConf(skip, cfg), thrift.STRUCT) != nil {
			return // not one struct: the connection is closed, not kept
		}
		end := len(args) - skip.Len()

		in := thrift.NewTMemoryBuffer()
		in.Write(args)
		out := thrift.NewTMemoryBuffer()
		op := thrift.NewTBinaryProtocolConf(out, cfg)
		proc.ProcessorMap()[method].Process(ctx, 7, thrift.NewTBinaryProtocolConf(in, cfg), op)
		_, typ, _, err := op.ReadMessageBegin(ctx)
		if err != nil || typ != thrift.EXCEPTION {
			return
		}
		x := thrift.NewTApplicationException(0, "")
		if x.Read(ctx, op) != nil || x.TypeId() != thrift.PROTOCOL_ERROR || !strings.HasPrefix(x.Error(), "Required field") {
			return
		}
		if read := len(args) - in.Len(); read != end {
			t.Fatalf("%s refused with %q after reading %d bytes of arguments %d long", method, x.Error(), read, end)
		}
	})
}
