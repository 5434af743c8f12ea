package server

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// binariesArgs is an argument struct of binaries, fields 1, 2, ... in order.
type binariesArgs [][]byte

func (a binariesArgs) Write(ctx context.Context, p thrift.TProtocol) error {
	p.WriteStructBegin(ctx, "args")
	for i, b := range a {
		p.WriteFieldBegin(ctx, "b", thrift.STRING, int16(i+1))
		p.WriteBinary(ctx, b)
		p.WriteFieldEnd(ctx)
	}
	p.WriteFieldStop(ctx)
	return p.WriteStructEnd(ctx)
}

func (a binariesArgs) Read(context.Context, thrift.TProtocol) error { return nil }

// readBinaries decodes the first n binaries of a binariesArgs call with
// read, through a connection's input protocol.
func readBinaries(t *testing.T, k clientKind, msg []byte, n int, read func(*checkedProtocol) ([]byte, error)) ([][]byte, error) {
	t.Helper()
	conn := &readerConn{r: bytes.NewReader(msg)}
	tr := newTransport(conn, 16<<20)
	in := &checkedProtocol{TProtocol: k.protocolFactory().GetProtocol(tr), t: tr, maxMessage: 16 << 20, compact: k.compact}
	ctx := context.Background()
	if err := tr.startRequest(); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := in.ReadMessageBegin(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := in.ReadStructBegin(ctx); err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for range n {
		if _, _, _, err := in.ReadFieldBegin(ctx); err != nil {
			return out, err
		}
		b, err := read(in)
		if err != nil {
			return out, err
		}
		out = append(out, b)
	}
	return out, nil
}

// TestAppendBinaryReadsAsReadBinary checks that AppendBinary reads the
// bytes ReadBinary reads, appended after what the buffer held, for bodies
// the server reads itself and bodies it leaves to the library (large ones
// not yet buffered, and every one of the compact protocol), and that a
// truncated body fails both.
func TestAppendBinaryReadsAsReadBinary(t *testing.T) {
	ctx := context.Background()
	args := binariesArgs{nil, []byte("a"), bytes.Repeat([]byte("x"), smallBody), bytes.Repeat([]byte("y"), 3*smallBody), bytes.Repeat([]byte("z"), 100_000), []byte("tail")}
	for _, k := range []clientKind{clientKinds[0], clientKinds[2]} {
		msg := encodeCall(t, k, "m", 1, args)
		for _, cut := range []int{len(msg), len(msg) - 10, len(msg) - 100_010} {
			t.Run(fmt.Sprintf("%s/%d bytes", k.name, cut), func(t *testing.T) {
				want, werr := readBinaries(t, k, msg[:cut], len(args), func(in *checkedProtocol) ([]byte, error) { return in.ReadBinary(ctx) })
				var buf []byte
				got, gerr := readBinaries(t, k, msg[:cut], len(args), func(in *checkedProtocol) ([]byte, error) {
					buf = append(buf, '|')
					n := len(buf)
					var err error
					buf, err = in.AppendBinary(ctx, buf)
					if err != nil {
						return nil, err
					}
					return buf[n:], nil
				})
				if (werr == nil) != (gerr == nil) {
					t.Fatalf("ReadBinary error %v, AppendBinary error %v", werr, gerr)
				}
				if len(got) != len(want) {
					t.Fatalf("AppendBinary read %d binaries, ReadBinary %d", len(got), len(want))
				}
				for i := range want {
					if !bytes.Equal(got[i], want[i]) {
						t.Errorf("binary %d: AppendBinary read %d bytes %.20q, ReadBinary %d bytes %.20q", i, len(got[i]), got[i], len(want[i]), want[i])
					}
				}
				if werr == nil && cut == len(msg) && len(got) != len(args) {
					t.Fatalf("read %d of %d binaries", len(got), len(args))
				}
			})
		}
	}
}

// TestBufferedReadsDecodeAsLibrary decodes calls, whole and cut short,
// through a connection's input protocol, whose field headers and numbers
// are read from the buffer when they have arrived, and through the
// library's binary protocol alone, and checks the two agree.
func TestBufferedReadsDecodeAsLibrary(t *testing.T) {
	ctx := context.Background()
	var muts []*cassandra.Mutation
	for c := range 50 {
		muts = append(muts, &cassandra.Mutation{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{
			Column: &cassandra.Column{Name: []byte(fmt.Sprint("c", c)), Value: bytes.Repeat([]byte{'v'}, c), Timestamp: int64(c) << 40}}})
	}
	muts = append(muts, &cassandra.Mutation{Deletion: &cassandra.Deletion{Timestamp: -7, Predicate: &cassandra.SlicePredicate{
		SliceRange: &cassandra.SliceRange{Start: []byte{}, Finish: []byte{}, Count: -3}}}})
	args := &cassandra.CassandraBatchMutateArgs{Keyspace: "Keyspace1", ConsistencyLevel: cassandra.ConsistencyLevel_ALL,
		MutationMap: map[string]map[string][]*cassandra.Mutation{"row": {"Standard1": muts}}}
	msg := encodeCall(t, clientKinds[0], "batch_mutate", 1, args)
	for cut := len(msg); cut > len(msg)-300; cut-- {
		var want cassandra.CassandraBatchMutateArgs
		lib := thrift.NewTBinaryProtocolConf(thrift.NewStreamTransportR(bytes.NewReader(msg[:cut])), nil)
		if _, _, _, err := lib.ReadMessageBegin(ctx); err != nil {
			t.Fatal(err)
		}
		werr := want.Read(ctx, lib)

		conn := &readerConn{r: bytes.NewReader(msg[:cut])}
		tr := newTransport(conn, 16<<20)
		in := &checkedProtocol{TProtocol: thrift.NewTBinaryProtocolConf(tr, nil), t: tr, maxMessage: 16 << 20}
		if err := tr.startRequest(); err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := in.ReadMessageBegin(ctx); err != nil {
			t.Fatal(err)
		}
		var got cassandra.CassandraBatchMutateArgs
		gerr := got.Read(ctx, in)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%d of %d bytes: error %v, the library's %v", cut, len(msg), gerr, werr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%d of %d bytes: decoded differently from the library", cut, len(msg))
		}
		if cut == len(msg) && werr != nil {
			t.Fatal(werr)
		}
	}
}
