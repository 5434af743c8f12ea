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

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/server"
)

// noop is the RPC ceiling: a cassandra.Cassandra that stores nothing and
// answers every data call at once with prebuilt results of the shape the
// request asks for (as many columns as the predicate's count, as many rows
// as the range's count). Served by package server with thriftd's own
// options, it measures what the Thrift library, the framing layer and the
// sockets cost on their own.
//
// Methods the benchmark does not call are left to the embedded nil
// interface; calling one is a bug of the benchmark and panics, which the
// server turns into an internal error.
type noop struct {
	cassandra.Cassandra
	columns []*cassandra.Column

	mu   sync.Mutex
	rows map[[2]int][]*cassandra.KeySlice // by row count and column count
}

const noopMaxColumns = 1000

func newNoop(valueSize int) *noop {
	n := &noop{rows: map[[2]int][]*cassandra.KeySlice{}}
	value := make([]byte, valueSize)
	for i := range value {
		value[i] = 'v'
	}
	for i := range noopMaxColumns {
		n.columns = append(n.columns, &cassandra.Column{Name: []byte("C" + strconv.Itoa(i)), Value: value, Timestamp: 1})
	}
	sort.Slice(n.columns, func(i, j int) bool { return string(n.columns[i].Name) < string(n.columns[j].Name) })
	return n
}

func (n *noop) slice(pred *cassandra.SlicePredicate) []*cassandra.ColumnOrSuperColumn {
	count := len(n.columns)
	if pred != nil && pred.SliceRange != nil {
		count = min(count, int(max(pred.SliceRange.Count, 0)))
	} else if pred != nil {
		count = min(count, len(pred.ColumnNames))
	}
	out := make([]*cassandra.ColumnOrSuperColumn, count)
	for i := range out {
		out[i] = &cassandra.ColumnOrSuperColumn{Column: n.columns[i]}
	}
	return out
}

func (n *noop) Login(context.Context, string, *cassandra.AuthenticationRequest) error { return nil }

func (n *noop) Insert(context.Context, string, string, *cassandra.ColumnPath, []byte, int64, cassandra.ConsistencyLevel) error {
	return nil
}

func (n *noop) BatchInsert(context.Context, string, string, map[string][]*cassandra.ColumnOrSuperColumn, cassandra.ConsistencyLevel) error {
	return nil
}

func (n *noop) BatchMutate(context.Context, string, map[string]map[string][]*cassandra.Mutation, cassandra.ConsistencyLevel) error {
	return nil
}

func (n *noop) GetSlice(_ context.Context, _, _ string, _ *cassandra.ColumnParent, pred *cassandra.SlicePredicate, _ cassandra.ConsistencyLevel) ([]*cassandra.ColumnOrSuperColumn, error) {
	return n.slice(pred), nil
}

func (n *noop) MultigetSlice(_ context.Context, _ string, keys []string, _ *cassandra.ColumnParent, pred *cassandra.SlicePredicate, _ cassandra.ConsistencyLevel) (map[string][]*cassandra.ColumnOrSuperColumn, error) {
	out := make(map[string][]*cassandra.ColumnOrSuperColumn, len(keys))
	for _, k := range keys {
		out[k] = n.slice(pred)
	}
	return out, nil
}

func (n *noop) GetRangeSlices(_ context.Context, _ string, _ *cassandra.ColumnParent, pred *cassandra.SlicePredicate, kr *cassandra.KeyRange, _ cassandra.ConsistencyLevel) ([]*cassandra.KeySlice, error) {
	cols := len(n.slice(pred))
	rows := min(int(max(kr.Count, 0)), 10000)
	n.mu.Lock()
	defer n.mu.Unlock()
	if r, ok := n.rows[[2]int{rows, cols}]; ok {
		return r, nil
	}
	out := make([]*cassandra.KeySlice, rows)
	for i := range out {
		out[i] = &cassandra.KeySlice{Key: fmt.Sprintf("%08d", i), Columns: n.slice(pred)}
	}
	n.rows[[2]int{rows, cols}] = out
	return out, nil
}

// serveNoop runs the no-op server on addr until the process is killed and
// prints the address it listens on as the first line of standard output.
func serveNoop(addr string, valueSize int) error {
	// As in cmd/thriftd: the server watches its connections itself.
	thrift.ServerConnectivityCheckInterval = 0
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	h := newNoop(valueSize)
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	// thriftd's defaults, so that the same per-request deadlines are set.
	opts := server.Options{MaxConnections: 4096, RequestTimeout: 30 * time.Second, Logger: log}
	srv := server.New(opts, func(net.Conn) thrift.TProcessor {
		return cassandra.NewCassandraProcessor(h)
	})
	fmt.Println(l.Addr().String())
	return srv.Serve(l)
}

// serveStock runs the stock-library ceiling on addr until the process is
// killed, printing the address it listens on as the first line of standard
// output: the same no-op handler behind the Thrift library's own server as
// a 2010 deployment would have built it (the generated processor,
// TSimpleServer, TBufferedTransport and the binary protocol, unframed),
// with the library's defaults left as they are. Nothing of package server
// is used, so it measures what a plain Go Thrift server costs.
func serveStock(addr string, valueSize int) error {
	sock, err := thrift.NewTServerSocket(addr)
	if err != nil {
		return err
	}
	if err := sock.Listen(); err != nil {
		return err
	}
	srv := thrift.NewTSimpleServer4(cassandra.NewCassandraProcessor(newNoop(valueSize)), sock,
		thrift.NewTBufferedTransportFactory(8192), thrift.NewTBinaryProtocolFactoryConf(nil))
	fmt.Println(sock.Addr().String())
	return srv.Serve()
}
