package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// args writes a call's arguments by hand, so that a case can leave out a
// required field the generated Go client would always send.
type args struct{ p thrift.TProtocol }

func (a args) str(id int16, v string) args {
	a.p.WriteFieldBegin(ctx, "", thrift.STRING, id)
	a.p.WriteString(ctx, v)
	a.p.WriteFieldEnd(ctx)
	return a
}

func (a args) i32(id int16, v int32) args {
	a.p.WriteFieldBegin(ctx, "", thrift.I32, id)
	a.p.WriteI32(ctx, v)
	a.p.WriteFieldEnd(ctx)
	return a
}

func (a args) i64(id int16, v int64) args {
	a.p.WriteFieldBegin(ctx, "", thrift.I64, id)
	a.p.WriteI64(ctx, v)
	a.p.WriteFieldEnd(ctx)
	return a
}

// st writes a struct field whose fields body writes.
func (a args) st(id int16, body func(args)) args {
	a.p.WriteFieldBegin(ctx, "", thrift.STRUCT, id)
	a.structValue(body)
	a.p.WriteFieldEnd(ctx)
	return a
}

func (a args) structValue(body func(args)) {
	a.p.WriteStructBegin(ctx, "")
	body(a)
	a.p.WriteFieldStop(ctx)
	a.p.WriteStructEnd(ctx)
}

// structs writes a list of structs.
func (a args) structs(id int16, bodies ...func(args)) args {
	a.p.WriteFieldBegin(ctx, "", thrift.LIST, id)
	a.structList(bodies...)
	a.p.WriteFieldEnd(ctx)
	return a
}

func (a args) structList(bodies ...func(args)) {
	a.p.WriteListBegin(ctx, thrift.STRUCT, len(bodies))
	for _, b := range bodies {
		a.structValue(b)
	}
	a.p.WriteListEnd(ctx)
}

func (a args) strs(id int16, vs ...string) args {
	a.p.WriteFieldBegin(ctx, "", thrift.LIST, id)
	a.p.WriteListBegin(ctx, thrift.STRING, len(vs))
	for _, v := range vs {
		a.p.WriteString(ctx, v)
	}
	a.p.WriteListEnd(ctx)
	a.p.WriteFieldEnd(ctx)
	return a
}

// entry is one key of a map and its value's writer.
type entry struct {
	key   string
	value func(args)
}

// strMap writes a map from strings to values of type vt.
func (a args) strMap(id int16, vt thrift.TType, entries ...entry) args {
	a.p.WriteFieldBegin(ctx, "", thrift.MAP, id)
	a.mapValue(vt, entries...)
	a.p.WriteFieldEnd(ctx)
	return a
}

func (a args) mapValue(vt thrift.TType, entries ...entry) {
	a.p.WriteMapBegin(ctx, thrift.STRING, vt, len(entries))
	for _, e := range entries {
		a.p.WriteString(ctx, e.key)
		e.value(a)
	}
	a.p.WriteMapEnd(ctx)
}

// Struct bodies used by the cases.
var (
	fullColumn   = func(a args) { a.str(1, "c").str(2, "v").i64(3, 1) }
	noValue      = func(a args) { a.str(1, "c").i64(3, 1) }
	noName       = func(a args) { a.str(2, "v").i64(3, 1) }
	parent       = func(a args) { a.str(3, "Standard1") }
	fullRange    = func(a args) { a.str(1, "").str(2, "").i32(4, 10) }
	fullPred     = func(a args) { a.st(2, fullRange) }
	fullKeyRange = func(a args) { a.str(1, "").str(2, "").i32(5, 10) }
	cosc         = func(col func(args)) func(args) { return func(a args) { a.st(1, col) } }
	coscList     = func(items ...func(args)) func(args) { return func(a args) { a.structList(items...) } }
	mutation     = func(body func(args)) func(args) { return body }
)

// protocolErrorCases are calls with a required field missing at every
// nesting level where one can be, each followed by more arguments, so that
// the whole rest of the request has to be read before the next call.
var protocolErrorCases = []struct {
	name   string
	method string
	write  func(args)
	want   string
}{
	{"Column in ColumnOrSuperColumn in batch_insert", "batch_insert", func(a args) {
		a.str(1, ks1).str(2, "k").strMap(3, thrift.LIST,
			entry{"Standard1", coscList(cosc(fullColumn), cosc(noValue), cosc(fullColumn))},
			entry{"Standard2", coscList(cosc(fullColumn))}).i32(4, 1)
	}, "Required field 'value' was not present! Struct: Column"},
	{"SuperColumn without columns", "batch_insert", func(a args) {
		a.str(1, ks1).str(2, "k").strMap(3, thrift.LIST,
			entry{"Super1", coscList(func(a args) { a.st(2, func(a args) { a.str(1, "sc") }) }, cosc(fullColumn))}).i32(4, 1)
	}, "Required field 'columns' was not present! Struct: SuperColumn"},
	{"Column in a SuperColumn's columns", "batch_insert", func(a args) {
		a.str(1, ks1).str(2, "k").strMap(3, thrift.LIST,
			entry{"Super1", coscList(func(a args) {
				a.st(2, func(a args) { a.str(1, "sc").structs(2, fullColumn, noName, fullColumn) })
			})},
			entry{"Standard1", coscList(cosc(fullColumn))}).i32(4, 1)
	}, "Required field 'name' was not present! Struct: Column"},
	{"Mutation, ColumnOrSuperColumn, Column in batch_mutate", "batch_mutate", func(a args) {
		a.str(1, ks1).strMap(2, thrift.MAP,
			entry{"k1", func(a args) {
				a.mapValue(thrift.LIST,
					entry{"Standard1", coscList(mutation(func(a args) { a.st(1, cosc(fullColumn)) }), mutation(func(a args) { a.st(1, cosc(noValue)) }))},
					entry{"Standard2", coscList(mutation(func(a args) { a.st(1, cosc(fullColumn)) }))})
			}},
			entry{"k2", func(a args) {
				a.mapValue(thrift.LIST, entry{"Standard1", coscList(mutation(func(a args) { a.st(1, cosc(fullColumn)) }))})
			}}).i32(3, 1)
	}, "Required field 'value' was not present! Struct: Column"},
	{"Deletion's predicate in batch_mutate", "batch_mutate", func(a args) {
		a.str(1, ks1).strMap(2, thrift.MAP,
			entry{"k1", func(a args) {
				a.mapValue(thrift.LIST, entry{"Standard1", coscList(
					mutation(func(a args) {
						a.st(2, func(a args) { a.i64(1, 5).st(3, func(a args) { a.st(2, func(a args) { a.str(2, "").i32(4, 3) }) }) })
					}),
					mutation(func(a args) { a.st(1, cosc(fullColumn)) }))})
			}}).i32(3, 1)
	}, "Required field 'start' was not present! Struct: SliceRange"},
	{"SliceRange of get_slice", "get_slice", func(a args) {
		a.str(1, ks1).str(2, "k").st(3, parent).st(4, func(a args) { a.st(2, func(a args) { a.str(1, "").i32(4, 3) }) }).i32(5, 1)
	}, "Required field 'finish' was not present! Struct: SliceRange"},
	{"SliceRange before a KeyRange", "get_range_slices", func(a args) {
		a.str(1, ks1).st(2, parent).st(3, func(a args) { a.st(2, func(a args) { a.str(2, "") }) }).st(4, fullKeyRange).i32(5, 1)
	}, "Required field 'start' was not present! Struct: SliceRange"},
	{"ColumnParent of get_range_slices", "get_range_slices", func(a args) {
		a.str(1, ks1).st(2, func(a args) { a.str(4, "sc") }).st(3, func(a args) { a.strs(1, "a", "b") }).st(4, fullKeyRange).i32(5, 1)
	}, "Required field 'column_family' was not present! Struct: ColumnParent"},
	{"ColumnParent of multiget_slice", "multiget_slice", func(a args) {
		a.str(1, ks1).strs(2, "k1", "k2").st(3, func(a args) {}).st(4, fullPred).i32(5, 1)
	}, "Required field 'column_family' was not present! Struct: ColumnParent"},
	{"ColumnPath of get", "get", func(a args) {
		a.str(1, ks1).str(2, "k").st(3, func(a args) { a.str(5, "c") }).i32(4, 1)
	}, "Required field 'column_family' was not present! Struct: ColumnPath"},
	{"ColumnPath of insert", "insert", func(a args) {
		a.str(1, ks1).str(2, "k").st(3, func(a args) { a.str(5, "c") }).str(4, "v").i64(5, 1).i32(6, 1)
	}, "Required field 'column_family' was not present! Struct: ColumnPath"},
	{"AuthenticationRequest of login", "login", func(a args) {
		a.str(1, ks1).st(2, func(a args) { a.str(9, "unknown field") })
	}, "Required field 'credentials' was not present! Struct: AuthenticationRequest"},
}

// TestProtocolErrorKeepsConnectionInStep sends each case on a connection,
// expects 0.6's PROTOCOL_ERROR, then calls on the same connection again:
// the reply must come at once, not after the request timeout, and be right.
func TestProtocolErrorKeepsConnectionInStep(t *testing.T) {
	n := start(t, fixture("storage-conf-0.6-test.xml"), "-request-timeout", "20s")
	must(t, n.client(false).Insert(ctx, ks1, "here", path("Standard1", nil, []byte("c")), []byte("v"), 1, one))
	for _, conn := range []struct {
		name            string
		framed, compact bool
	}{{"unframed", false, false}, {"framed", true, false}, {"unframed compact", false, true}} {
		t.Run(conn.name, func(t *testing.T) {
			cfg := &thrift.TConfiguration{ConnectTimeout: 5 * time.Second, SocketTimeout: 10 * time.Second}
			var trans thrift.TTransport = thrift.NewTSocketConf(n.Addr, cfg)
			if conn.framed {
				trans = thrift.NewTFramedTransportConf(trans, cfg)
			} else {
				trans = thrift.NewTBufferedTransport(trans, 8192)
			}
			must(t, trans.Open())
			defer trans.Close()
			var p thrift.TProtocol = thrift.NewTBinaryProtocolConf(trans, cfg)
			if conn.compact {
				p = thrift.NewTCompactProtocolConf(trans, cfg)
			}
			c := cassandra.NewCassandraClient(thrift.NewTStandardClient(p, p))
			for i, tc := range protocolErrorCases {
				seq := int32(1000 + i)
				must(t, p.WriteMessageBegin(ctx, tc.method, thrift.CALL, seq))
				args{p}.structValue(tc.write)
				must(t, p.WriteMessageEnd(ctx))
				must(t, p.Flush(ctx))
				name, typ, rseq, err := p.ReadMessageBegin(ctx)
				if err != nil {
					t.Fatalf("%s: no reply: %v", tc.name, err)
				}
				x := thrift.NewTApplicationException(0, "")
				must(t, x.Read(ctx, p))
				must(t, p.ReadMessageEnd(ctx))
				if name != tc.method || typ != thrift.EXCEPTION || rseq != seq || x.TypeId() != thrift.PROTOCOL_ERROR || x.Error() != tc.want {
					t.Fatalf("%s: reply %s %d seq %d: %d %q\nwant EXCEPTION PROTOCOL_ERROR %q", tc.name, name, typ, rseq, x.TypeId(), x.Error(), tc.want)
				}

				// The same connection answers the next calls at once.
				began := time.Now()
				callCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
				v, err := c.DescribeVersion(callCtx)
				if err != nil || v != "2.2.0" {
					cancel()
					t.Fatalf("%s: describe_version on the same connection afterwards = %q, %v", tc.name, v, err)
				}
				got, err := c.Get(callCtx, ks1, "here", path("Standard1", nil, []byte("c")), one)
				cancel()
				if err != nil || string(got.Column.Value) != "v" {
					t.Fatalf("%s: get on the same connection afterwards = %+v, %v", tc.name, got, err)
				}
				if took := time.Since(began); took > 2*time.Second {
					t.Errorf("%s: the calls after the PROTOCOL_ERROR took %v", tc.name, took)
				}
			}
		})
	}
	// Nothing the refused calls carried was written.
	rs, err := n.client(true).GetSlice(ctx, ks1, "k", &cassandra.ColumnParent{ColumnFamily: "Standard1"}, all(), one)
	must(t, err)
	if len(rs) != 0 {
		t.Errorf("row k holds %s after calls that were all refused", names(rs))
	}
}
