package handler19

import (
	"bytes"
	"context"
	"io"
	"reflect"
	"slices"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// appendingProtocol gives a protocol the server's AppendBinary, so that
// both of mutationDecoder's ways of reading a binary are tested.
type appendingProtocol struct{ thrift.TProtocol }

func (p appendingProtocol) AppendBinary(ctx context.Context, dst []byte) ([]byte, error) {
	b, err := p.ReadBinary(ctx)
	return append(dst, b...), err
}

// exactProtocol reads binaries from r into buffers of their exact size, as
// the server's input protocol does, so that a benchmark weighs the
// decoders rather than the library's buffer growth.
type exactProtocol struct {
	thrift.TProtocol
	r io.Reader
}

func (p exactProtocol) ReadBinary(ctx context.Context) ([]byte, error) {
	return p.AppendBinary(ctx, nil)
}

func (p exactProtocol) AppendBinary(ctx context.Context, dst []byte) ([]byte, error) {
	n, err := p.ReadI32(ctx)
	if err != nil {
		return dst, err
	}
	dst = slices.Grow(dst, int(n))
	_, err = io.ReadFull(p.r, dst[len(dst):len(dst)+int(n)])
	return dst[:len(dst)+int(n)], err
}

func ptr[T any](v T) *T { return &v }

// encodeBatchMutateArgs encodes args as a client sends them.
func encodeBatchMutateArgs(t testing.TB, args *cassandra19.CassandraBatchMutateArgs) []byte {
	t.Helper()
	buf := thrift.NewTMemoryBuffer()
	if err := args.Write(context.Background(), thrift.NewTBinaryProtocolConf(buf, nil)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sampleBatchMutateArgs() *cassandra19.CassandraBatchMutateArgs {
	col := func(name, value string, ts int64) *cassandra19.Mutation {
		return &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{Column: &cassandra19.Column{Name: []byte(name), Value: []byte(value), Timestamp: ptr(ts)}}}
	}
	var wide []*cassandra19.Mutation
	for i := range 100 {
		wide = append(wide, col(string(rune('a'+i%26))+"col", string(bytes.Repeat([]byte{'v'}, 32)), int64(i)))
	}
	return &cassandra19.CassandraBatchMutateArgs{
		ConsistencyLevel: cassandra19.ConsistencyLevel_QUORUM,
		MutationMap: map[string]map[string][]*cassandra19.Mutation{
			"row1": {"Standard1": wide},
			"row2": {
				"Standard2": {
					col("n", "", 5),
					{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{Column: &cassandra19.Column{Name: []byte("ttl"), Value: []byte("v"), Timestamp: ptr(int64(6)), TTL: ptr(int32(60))}}},
					{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{Column: &cassandra19.Column{Name: []byte("unset")}}},
					{Deletion: &cassandra19.Deletion{Timestamp: ptr(int64(7)), Predicate: &cassandra19.SlicePredicate{ColumnNames: [][]byte{[]byte("x")}}}},
				},
				"Super1": {
					{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{SuperColumn: &cassandra19.SuperColumn{Name: []byte("sc"), Columns: []*cassandra19.Column{{Name: []byte("sub"), Value: []byte("v"), Timestamp: ptr(int64(8))}}}}},
				},
				"Counter1": {
					{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{CounterColumn: &cassandra19.CounterColumn{Name: []byte("c"), Value: 3}}},
					{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{CounterSuperColumn: &cassandra19.CounterSuperColumn{Name: []byte("csc"), Columns: []*cassandra19.CounterColumn{{Name: []byte("c"), Value: 4}}}}},
				},
			},
			"row3": {},
		},
	}
}

// checkDecodersAgree decodes data with the generated code and with
// mutationDecoder, with and without AppendBinary, and fails unless all
// three return the same arguments and the same error.
func checkDecodersAgree(t *testing.T, data []byte) {
	ctx := context.Background()
	// As the server does, refuse a count that the message cannot hold.
	cfg := &thrift.TConfiguration{MaxMessageSize: int32(max(len(data), 1))}
	var want cassandra19.CassandraBatchMutateArgs
	werr := want.Read(ctx, thrift.NewTBinaryProtocolConf(thrift.NewStreamTransportR(bytes.NewReader(data)), cfg))
	for _, appending := range []bool{false, true} {
		var in thrift.TProtocol = thrift.NewTBinaryProtocolConf(thrift.NewStreamTransportR(bytes.NewReader(data)), cfg)
		if appending {
			in = appendingProtocol{in}
		}
		var got cassandra19.CassandraBatchMutateArgs
		gerr := newMutationDecoder(in).readArgs(ctx, &got)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("appending %v: error %v, the generated decoder's %v", appending, gerr, werr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("appending %v: decoded %+v, the generated decoder %+v", appending, got, want)
		}
	}
}

func TestMutationDecoderAgreesWithGenerated(t *testing.T) {
	data := encodeBatchMutateArgs(t, sampleBatchMutateArgs())
	checkDecodersAgree(t, data)
	// Every truncation fails both the same way.
	for n := range len(data) {
		checkDecodersAgree(t, data[:n])
	}
	// A missing consistency level, and fields of the wrong type.
	noCL := sampleBatchMutateArgs()
	checkDecodersAgree(t, bytes.TrimSuffix(encodeBatchMutateArgs(t, noCL), []byte{0x08, 0, 2, 0, 0, 0, 2, 0}))
}

func FuzzMutationDecoder(f *testing.F) {
	f.Add(encodeBatchMutateArgs(f, sampleBatchMutateArgs()))
	f.Add(encodeBatchMutateArgs(f, &cassandra19.CassandraBatchMutateArgs{MutationMap: map[string]map[string][]*cassandra19.Mutation{"k": {"cf": {{}}}}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		checkDecodersAgree(t, data)
	})
}

// BenchmarkDecodeBatchMutate decodes a batch_mutate of one row of 100
// columns, the benchmark's shape, with the generated decoder and with
// mutationDecoder.
//
//	go test -run '^$' -bench DecodeBatchMutate ./handler19
func BenchmarkDecodeBatchMutate(b *testing.B) {
	var ms []*cassandra19.Mutation
	for i := range 100 {
		ms = append(ms, &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{Column: &cassandra19.Column{
			Name: []byte("C" + string(rune('0'+i%10))), Value: bytes.Repeat([]byte{'v'}, 32), Timestamp: ptr(int64(i))}}})
	}
	data := encodeBatchMutateArgs(b, &cassandra19.CassandraBatchMutateArgs{
		MutationMap: map[string]map[string][]*cassandra19.Mutation{"0000001": {"Standard2": ms}}, ConsistencyLevel: cassandra19.ConsistencyLevel_ONE})
	ctx := context.Background()
	buf := thrift.NewTMemoryBuffer()
	in := exactProtocol{thrift.NewTBinaryProtocolConf(buf, nil), buf}
	b.Run("generated", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			buf.Write(data)
			var args cassandra19.CassandraBatchMutateArgs
			if err := args.Read(ctx, in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("by hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			buf.Write(data)
			var args cassandra19.CassandraBatchMutateArgs
			if err := newMutationDecoder(in).readArgs(ctx, &args); err != nil {
				b.Fatal(err)
			}
		}
	})
}
