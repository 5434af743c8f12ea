package server

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// readerConn is a net.Conn whose reads come from a buffer, for decoding
// benchmarks without a socket.
type readerConn struct {
	net.Conn
	r *bytes.Reader
}

func (c *readerConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// BenchmarkDecodeBatchMutate decodes an unframed batch_mutate of 100 rows
// of 10 columns through the connection's input protocol, as the server
// does before every call: the cost of the length checks and of the record
// of open structs and containers kept for draining (drain.go).
func BenchmarkDecodeBatchMutate(b *testing.B) {
	rows := map[string]map[string][]*cassandra.Mutation{}
	for r := range 100 {
		var ms []*cassandra.Mutation
		for c := range 10 {
			ms = append(ms, &cassandra.Mutation{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{
				Column: &cassandra.Column{Name: []byte(fmt.Sprint("col", c)), Value: bytes.Repeat([]byte{'v'}, 32), Timestamp: 1}}})
		}
		rows[fmt.Sprint("row", r)] = map[string][]*cassandra.Mutation{"Standard1": ms}
	}
	args := &cassandra.CassandraBatchMutateArgs{Keyspace: "Keyspace1", MutationMap: rows, ConsistencyLevel: cassandra.ConsistencyLevel_ONE}
	msg := encodeCall(b, clientKind{}, "batch_mutate", 1, args)
	conn := &readerConn{r: bytes.NewReader(msg)}
	t := newTransport(conn, 16<<20)
	cfg := &thrift.TConfiguration{MaxMessageSize: 16 << 20}
	in := &checkedProtocol{TProtocol: thrift.NewTBinaryProtocolConf(t, cfg), t: t, maxMessage: 16 << 20}
	ctx := context.Background()
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		conn.r.Reset(msg)
		if err := t.startRequest(); err != nil {
			b.Fatal(err)
		}
		if _, _, _, err := in.ReadMessageBegin(ctx); err != nil {
			b.Fatal(err)
		}
		var got cassandra.CassandraBatchMutateArgs
		if err := got.Read(ctx, in); err != nil {
			b.Fatal(err)
		}
		if len(got.MutationMap) != 100 {
			b.Fatalf("%d rows", len(got.MutationMap))
		}
	}
}
