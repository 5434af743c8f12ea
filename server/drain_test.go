package server

import (
	"context"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// handWritten is arguments written field by field, so that a test can send
// what no generated client would.
type handWritten func(ctx context.Context, p thrift.TProtocol)

func (h handWritten) Write(ctx context.Context, p thrift.TProtocol) error {
	p.WriteStructBegin(ctx, "args")
	h(ctx, p)
	p.WriteFieldStop(ctx)
	return p.WriteStructEnd(ctx)
}

func (h handWritten) Read(context.Context, thrift.TProtocol) error { panic("not read") }

func strField(ctx context.Context, p thrift.TProtocol, id int16, s string) {
	p.WriteFieldBegin(ctx, "", thrift.STRING, id)
	p.WriteString(ctx, s)
	p.WriteFieldEnd(ctx)
}

// The generated decoder stops at a nested struct that lacks a required
// field, leaving the rest of the arguments unread: the fields after it, and
// the entries after it in every list and map around it. The connection
// reads them before the next request, so an unframed connection stays in
// step; each kind of client gets the exception and then its next call
// answered.
func TestNestedDecodeErrorKeepsStreamInStep(t *testing.T) {
	// get_slice whose column_parent has no column_family, followed by a
	// predicate of two names and a consistency level.
	getSlice := handWritten(func(ctx context.Context, p thrift.TProtocol) {
		strField(ctx, p, 1, "Keyspace1")
		strField(ctx, p, 2, "k")
		p.WriteFieldBegin(ctx, "", thrift.STRUCT, 3)
		p.WriteStructBegin(ctx, "ColumnParent")
		strField(ctx, p, 4, "sc")
		p.WriteFieldStop(ctx)
		p.WriteStructEnd(ctx)
		p.WriteFieldEnd(ctx)
		p.WriteFieldBegin(ctx, "", thrift.STRUCT, 4)
		p.WriteStructBegin(ctx, "SlicePredicate")
		p.WriteFieldBegin(ctx, "", thrift.LIST, 1)
		p.WriteListBegin(ctx, thrift.STRING, 2)
		p.WriteString(ctx, "a")
		p.WriteString(ctx, "b")
		p.WriteListEnd(ctx)
		p.WriteFieldEnd(ctx)
		p.WriteFieldStop(ctx)
		p.WriteStructEnd(ctx)
		p.WriteFieldEnd(ctx)
		p.WriteFieldBegin(ctx, "", thrift.I32, 5)
		p.WriteI32(ctx, 1)
		p.WriteFieldEnd(ctx)
	})
	// batch_mutate whose first row's first mutation holds a Column without
	// a name, followed by a second mutation, a second column family and a
	// second row.
	batch := handWritten(func(ctx context.Context, p thrift.TProtocol) {
		writeMutation := func(named bool) {
			p.WriteStructBegin(ctx, "Mutation")
			p.WriteFieldBegin(ctx, "", thrift.STRUCT, 1)
			p.WriteStructBegin(ctx, "ColumnOrSuperColumn")
			p.WriteFieldBegin(ctx, "", thrift.STRUCT, 1)
			p.WriteStructBegin(ctx, "Column")
			if named {
				strField(ctx, p, 1, "c")
			}
			strField(ctx, p, 2, "v")
			p.WriteFieldBegin(ctx, "", thrift.I64, 3)
			p.WriteI64(ctx, 1)
			p.WriteFieldEnd(ctx)
			p.WriteFieldStop(ctx)
			p.WriteStructEnd(ctx)
			p.WriteFieldEnd(ctx)
			p.WriteFieldStop(ctx)
			p.WriteStructEnd(ctx)
			p.WriteFieldEnd(ctx)
			p.WriteFieldStop(ctx)
			p.WriteStructEnd(ctx)
		}
		row := func(bad bool) {
			p.WriteMapBegin(ctx, thrift.STRING, thrift.LIST, 2)
			for _, cf := range []string{"Standard1", "Standard2"} {
				p.WriteString(ctx, cf)
				p.WriteListBegin(ctx, thrift.STRUCT, 2)
				writeMutation(!bad)
				writeMutation(true)
				p.WriteListEnd(ctx)
			}
			p.WriteMapEnd(ctx)
		}
		strField(ctx, p, 1, "Keyspace1")
		p.WriteFieldBegin(ctx, "", thrift.MAP, 2)
		p.WriteMapBegin(ctx, thrift.STRING, thrift.MAP, 2)
		p.WriteString(ctx, "row1")
		row(true)
		p.WriteString(ctx, "row2")
		row(false)
		p.WriteMapEnd(ctx)
		p.WriteFieldEnd(ctx)
		p.WriteFieldBegin(ctx, "", thrift.I32, 3)
		p.WriteI32(ctx, 1)
		p.WriteFieldEnd(ctx)
	})
	for _, call := range []struct {
		name string
		args thrift.TStruct
	}{{"get_slice", getSlice}, {"batch_mutate", batch}} {
		for _, k := range clientKinds {
			t.Run(call.name+"/"+k.name, func(t *testing.T) {
				ts := startServer(t, Options{}, nil)
				c := dialRaw(t, ts.addr)
				// The bad call and the next one leave together, so the
				// server finds the second right behind the first.
				c.send(t, cat(encodeCall(t, k, call.name, 5, call.args),
					encodeCall(t, k, "describe_version", 6, &cassandra.CassandraDescribeVersionArgs{})))
				r := c.readReply(t, k, nil)
				if r.typ != thrift.EXCEPTION || r.seq != 5 || r.appErr.TypeId() != thrift.PROTOCOL_ERROR {
					t.Fatalf("bad call: type %d seq %d exception %v", r.typ, r.seq, r.appErr)
				}
				var res cassandra.CassandraDescribeVersionResult
				if r := c.readReply(t, k, &res); r.typ != thrift.REPLY || r.seq != 6 || res.GetSuccess() != "2.2.0" {
					t.Fatalf("next call: type %d seq %d %q", r.typ, r.seq, res.GetSuccess())
				}
			})
		}
	}
}
