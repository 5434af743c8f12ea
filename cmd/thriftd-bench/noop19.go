package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/server"
)

// noop19 is the 19.x RPC ceiling: a cassandra19.Cassandra that stores
// nothing and answers the calls of the 19.x shapes at once with prebuilt
// results of the requested shape, as noop does for 0.6. It is also the
// ceiling of the 19.x load generator itself: what thriftd-stress -api 19
// reaches when the server costs nothing.
//
// Methods the benchmark does not call are left to the embedded nil
// interface; calling one panics, which the server turns into an internal
// error.
type noop19 struct {
	cassandra19.Cassandra
	columns []*cassandra19.Column

	mu   sync.Mutex
	rows map[[2]int][]*cassandra19.KeySlice // by row count and column count
}

func newNoop19(valueSize int) *noop19 {
	n := &noop19{rows: map[[2]int][]*cassandra19.KeySlice{}}
	value := make([]byte, valueSize)
	for i := range value {
		value[i] = 'v'
	}
	ts := int64(1)
	for i := range noopMaxColumns {
		n.columns = append(n.columns, &cassandra19.Column{Name: []byte("C" + strconv.Itoa(i)), Value: value, Timestamp: &ts})
	}
	sort.Slice(n.columns, func(i, j int) bool { return string(n.columns[i].Name) < string(n.columns[j].Name) })
	return n
}

func (n *noop19) slice(count int) []*cassandra19.ColumnOrSuperColumn {
	out := make([]*cassandra19.ColumnOrSuperColumn, min(count, len(n.columns)))
	for i := range out {
		out[i] = &cassandra19.ColumnOrSuperColumn{Column: n.columns[i]}
	}
	return out
}

func predicateCount(pred *cassandra19.SlicePredicate) int {
	switch {
	case pred == nil:
		return 0
	case pred.SliceRange != nil:
		return int(max(pred.SliceRange.Count, 0))
	}
	return len(pred.ColumnNames)
}

// keySlices are rows rows of cols columns each, built once per shape.
func (n *noop19) keySlices(rows, cols int) []*cassandra19.KeySlice {
	rows = min(rows, 10000)
	n.mu.Lock()
	defer n.mu.Unlock()
	if r, ok := n.rows[[2]int{rows, cols}]; ok {
		return r
	}
	out := make([]*cassandra19.KeySlice, rows)
	for i := range out {
		out[i] = &cassandra19.KeySlice{Key: fmt.Appendf(nil, "%08d", i), Columns: n.slice(cols)}
	}
	n.rows[[2]int{rows, cols}] = out
	return out
}

func (n *noop19) Login(context.Context, *cassandra19.AuthenticationRequest) error { return nil }
func (n *noop19) SetKeyspace(context.Context, string) error                       { return nil }

// DescribeKeyspace answers that the benchmark's keyspace exists, so that
// the benchmark does not try to create it.
func (n *noop19) DescribeKeyspace(_ context.Context, ks string) (*cassandra19.KsDef, error) {
	return &cassandra19.KsDef{Name: ks, StrategyClass: "org.apache.cassandra.locator.SimpleStrategy", CfDefs: []*cassandra19.CfDef{}}, nil
}

func (n *noop19) Insert(context.Context, []byte, *cassandra19.ColumnParent, *cassandra19.Column, cassandra19.ConsistencyLevel) error {
	return nil
}

func (n *noop19) BatchMutate(context.Context, map[string]map[string][]*cassandra19.Mutation, cassandra19.ConsistencyLevel) error {
	return nil
}

func (n *noop19) GetSlice(_ context.Context, _ []byte, _ *cassandra19.ColumnParent, pred *cassandra19.SlicePredicate, _ cassandra19.ConsistencyLevel) ([]*cassandra19.ColumnOrSuperColumn, error) {
	return n.slice(predicateCount(pred)), nil
}

func (n *noop19) MultigetSlice(_ context.Context, keys [][]byte, _ *cassandra19.ColumnParent, pred *cassandra19.SlicePredicate, _ cassandra19.ConsistencyLevel) (map[string][]*cassandra19.ColumnOrSuperColumn, error) {
	out := make(map[string][]*cassandra19.ColumnOrSuperColumn, len(keys))
	for _, k := range keys {
		out[string(k)] = n.slice(predicateCount(pred))
	}
	return out, nil
}

func (n *noop19) GetRangeSlices(_ context.Context, _ *cassandra19.ColumnParent, pred *cassandra19.SlicePredicate, kr *cassandra19.KeyRange, _ cassandra19.ConsistencyLevel) ([]*cassandra19.KeySlice, error) {
	return n.keySlices(int(max(kr.Count, 0)), predicateCount(pred)), nil
}

// GetPagedSlice answers range.count columns as whole rows of 100.
func (n *noop19) GetPagedSlice(_ context.Context, _ string, kr *cassandra19.KeyRange, _ []byte, _ cassandra19.ConsistencyLevel) ([]*cassandra19.KeySlice, error) {
	return n.keySlices((int(max(kr.Count, 0))+99)/100, 100), nil
}

// serveNoop19 runs the 19.x no-op server on addr until the process is
// killed, printing the address it listens on as the first line of
// standard output; served by package server as serveNoop is.
func serveNoop19(addr string, valueSize int) error {
	thrift.ServerConnectivityCheckInterval = 0
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	h := newNoop19(valueSize)
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	opts := server.Options{MaxConnections: 4096, RequestTimeout: 30 * time.Second, Logger: log}
	srv := server.New(opts, func(net.Conn) thrift.TProcessor {
		return cassandra19.NewCassandraProcessor(h)
	})
	fmt.Println(l.Addr().String())
	return srv.Serve(l)
}

// Add answers the counter shapes' calls.
func (n *noop19) Add(context.Context, []byte, *cassandra19.ColumnParent, *cassandra19.CounterColumn, cassandra19.ConsistencyLevel) error {
	return nil
}

// GetIndexedSlices answers the index shape's calls: clause.count rows.
func (n *noop19) GetIndexedSlices(_ context.Context, _ *cassandra19.ColumnParent, clause *cassandra19.IndexClause, pred *cassandra19.SlicePredicate, _ cassandra19.ConsistencyLevel) ([]*cassandra19.KeySlice, error) {
	return n.keySlices(int(max(clause.Count, 0)), predicateCount(pred)), nil
}
