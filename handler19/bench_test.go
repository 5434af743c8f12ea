package handler19

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/catalog"
	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/ldbstore"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// The cost of one call inside thriftd, without the network: its
// arguments decoded from bytes, the call made through the connection's
// processor (metrics included), and its reply encoded, on LevelDB and on
// a store that answers at once with rows of the same shape (the service's
// own share of the call).
//
//	go test -run XXX -bench Call -benchmem ./handler19

// benchRows are the rows the reads find, 100 columns each.
const benchRows = 200

// benchShape is one call of the benchmark: its method and arguments.
type benchShape struct {
	name, method string
	args         thrift.TStruct
}

func benchShapes() []benchShape {
	one := func() cassandra19.ConsistencyLevel { return cassandra19.ConsistencyLevel_ONE }
	parent := &cassandra19.ColumnParent{ColumnFamily: "C"}
	first := func(n int32) *cassandra19.SlicePredicate {
		return &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: n}}
	}
	keys := make([][]byte, 10)
	for i := range keys {
		keys[i] = []byte(benchKey(i * 7))
	}
	ts := int64(1)
	cols := make([]*cassandra19.Mutation, 100)
	for i := range cols {
		cols[i] = &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{
			Column: &cassandra19.Column{Name: []byte(benchColumn(i)), Value: make([]byte, 32), Timestamp: &ts}}}
	}
	return []benchShape{
		{"get_slice", "get_slice", &cassandra19.CassandraGetSliceArgs{Key: []byte(benchKey(3)), ColumnParent: parent, Predicate: first(10), ConsistencyLevel: one()}},
		{"multiget_slice", "multiget_slice", &cassandra19.CassandraMultigetSliceArgs{Keys: keys, ColumnParent: parent, Predicate: first(10), ConsistencyLevel: one()}},
		{"get_range_slices", "get_range_slices", &cassandra19.CassandraGetRangeSlicesArgs{ColumnParent: parent, Predicate: first(5),
			Range: &cassandra19.KeyRange{StartToken: thrift.StringPtr("0"), EndToken: thrift.StringPtr("0"), Count: 100}, ConsistencyLevel: one()}},
		{"insert", "insert", &cassandra19.CassandraInsertArgs{Key: []byte(benchKey(5)), ColumnParent: &cassandra19.ColumnParent{ColumnFamily: "W"},
			Column: &cassandra19.Column{Name: []byte("c"), Value: make([]byte, 32), Timestamp: &ts}, ConsistencyLevel: one()}},
		{"batch_mutate", "batch_mutate", &cassandra19.CassandraBatchMutateArgs{MutationMap: map[string]map[string][]*cassandra19.Mutation{
			benchKey(6): {"W": cols}}, ConsistencyLevel: one()}},
		{"add", "add", &cassandra19.CassandraAddArgs{Key: []byte(benchKey(7)), ColumnParent: &cassandra19.ColumnParent{ColumnFamily: "N"},
			Column: &cassandra19.CounterColumn{Name: []byte("c"), Value: 1}, ConsistencyLevel: one()}},
	}
}

func benchKey(i int) string    { return fmt.Sprintf("key%06d", i) }
func benchColumn(i int) string { return fmt.Sprintf("col%03d", i) }

// benchService is a service on st (LevelDB when nil) with keyspace K:
// C (BytesType) holding benchRows rows of 100 columns, W (UTF8Type) for
// writes and N for counters.
func benchService(b *testing.B, stub bool) *Service {
	ctx := context.Background()
	p, err := dht.Lookup("Murmur3Partitioner")
	if err != nil {
		b.Fatal(err)
	}
	s := &schema.Schema{ClusterName: "Test", Partitioner: p, Keyspaces: map[string]*schema.Keyspace{}}
	ldb, err := ldbstore.Open(b.TempDir(), s, ldbstore.Options{PurgeInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ldb.Close() })
	cat, err := catalog.New(ctx, ldb, &catalog.Start{Schema: s}, catalog.Options{ParseType: marshal.Parse})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(cat.Close)
	var st engine.Store = ldb
	if stub {
		st = newStubStore()
	}
	svc := New(Options{Schema: cat.Current, Store: st, Changer: cat, ParseType: marshal.Parse})
	c := svc.Connection()
	ks := &cassandra19.KsDef{Name: "K", StrategyClass: "SimpleStrategy", DurableWrites: true,
		StrategyOptions: map[string]string{"replication_factor": "1"}, CfDefs: []*cassandra19.CfDef{}}
	if _, err := c.SystemAddKeyspace(ctx, ks); err != nil {
		b.Fatal(err)
	}
	if err := c.SetKeyspace(ctx, "K"); err != nil {
		b.Fatal(err)
	}
	for _, cf := range []*cassandra19.CfDef{
		{Keyspace: "K", Name: "C", ComparatorType: "BytesType"},
		{Keyspace: "K", Name: "W", ComparatorType: "UTF8Type"},
		{Keyspace: "K", Name: "N", ComparatorType: "BytesType", DefaultValidationClass: thrift.StringPtr("CounterColumnType")},
	} {
		def := cassandra19.NewCfDef()
		def.Keyspace, def.Name, def.ComparatorType, def.DefaultValidationClass = cf.Keyspace, cf.Name, cf.ComparatorType, cf.DefaultValidationClass
		if _, err := c.SystemAddColumnFamily(ctx, def); err != nil {
			b.Fatal(err)
		}
	}
	if !stub {
		ts := int64(1)
		for r := range benchRows {
			var ms []*cassandra19.Mutation
			for i := range 100 {
				ms = append(ms, &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{
					Column: &cassandra19.Column{Name: []byte(benchColumn(i)), Value: make([]byte, 32), Timestamp: &ts}}})
			}
			if err := c.BatchMutate(ctx, map[string]map[string][]*cassandra19.Mutation{benchKey(r): {"C": ms}}, cassandra19.ConsistencyLevel_ONE); err != nil {
				b.Fatal(err)
			}
		}
	}
	return svc
}

// stubStore answers every read at once with rows of 100-byte... columns
// of the benchmark's shape, and takes every write.
type stubStore struct {
	engine.Store
	rows []engine.Row
}

func newStubStore() *stubStore {
	s := &stubStore{}
	for r := range 100 {
		row := engine.Row{Key: benchKey(r)}
		for i := range 10 {
			row.Columns = append(row.Columns, engine.Column{Name: []byte(benchColumn(i)), Value: make([]byte, 32), Timestamp: 1})
		}
		s.rows = append(s.rows, row)
	}
	return s
}

func (s *stubStore) Get(context.Context, string, string, engine.Query) (engine.Row, error) {
	return s.rows[0], nil
}

func (s *stubStore) GetMany(_ context.Context, _ string, keys []string, _ engine.Query) ([]engine.Row, error) {
	return s.rows[:len(keys)], nil
}

func (s *stubStore) Range(_ context.Context, _ string, _ engine.TokenRange, _ engine.Query, maxRows int) ([]engine.Row, error) {
	return s.rows[:min(maxRows, len(s.rows))], nil
}

func (s *stubStore) Apply(context.Context, string, []engine.RowMutation) error { return nil }

func (s *stubStore) ApplyCounters(context.Context, string, []engine.CounterRow) error { return nil }

func BenchmarkCall(b *testing.B) {
	// As cmd/thriftd: no connectivity check per call (package server).
	defer func(d time.Duration) { thrift.ServerConnectivityCheckInterval = d }(thrift.ServerConnectivityCheckInterval)
	thrift.ServerConnectivityCheckInterval = 0
	for _, stub := range []bool{false, true} {
		store := "leveldb"
		if stub {
			store = "stub"
		}
		svc := benchService(b, stub)
		for _, sh := range benchShapes() {
			b.Run(sh.name+"/"+store, func(b *testing.B) {
				ctx := context.Background()
				call := thrift.NewTMemoryBuffer()
				w := thrift.NewTBinaryProtocolConf(call, nil)
				w.WriteMessageBegin(ctx, sh.method, thrift.CALL, 1)
				if err := sh.args.Write(ctx, w); err != nil {
					b.Fatal(err)
				}
				w.WriteMessageEnd(ctx)
				w.Flush(ctx)
				msg := append([]byte(nil), call.Bytes()...)
				in := thrift.NewTMemoryBuffer()
				out := thrift.NewTMemoryBuffer()
				inp := thrift.NewTBinaryProtocolConf(in, nil)
				outp := thrift.NewTBinaryProtocolConf(out, nil)
				p := svc.Processor()
				conn := p.(interface {
					ProcessorMap() map[string]thrift.TProcessorFunction
				})
				// set_keyspace on this processor's connection.
				setKeyspace(b, p, "K")
				b.ReportAllocs()
				cpu0 := cpuTime()
				for b.Loop() {
					in.Reset()
					in.Write(msg)
					out.Reset()
					name, _, seq, err := inp.ReadMessageBegin(ctx)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := conn.ProcessorMap()[name].Process(ctx, seq, inp, outp); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
				if _, typ, _, _ := outp.ReadMessageBegin(ctx); typ != thrift.REPLY {
					b.Fatalf("%s answered message type %d", sh.method, typ)
				}
			})
		}
	}
}

// setKeyspace makes a set_keyspace call through p.
func setKeyspace(b *testing.B, p thrift.TProcessor, ks string) {
	ctx := context.Background()
	in := thrift.NewTMemoryBuffer()
	w := thrift.NewTBinaryProtocolConf(in, nil)
	w.WriteMessageBegin(ctx, "set_keyspace", thrift.CALL, 1)
	(&cassandra19.CassandraSetKeyspaceArgs{Keyspace: ks}).Write(ctx, w)
	w.WriteMessageEnd(ctx)
	w.Flush(ctx)
	out := thrift.NewTBinaryProtocolConf(thrift.NewTMemoryBuffer(), nil)
	if _, err := p.Process(ctx, w, out); err != nil {
		b.Fatal(err)
	}
}

// cpuTime is the CPU time the process has used, which a busy machine
// does not inflate as it does the time each call takes.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
