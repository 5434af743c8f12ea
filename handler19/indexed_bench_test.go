package handler19

import (
	"context"
	"strconv"
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

// BenchmarkIndexedSlices is get_indexed_slices on LevelDB with
// thriftd-bench's shape: 100,000 rows of 5 columns of 32 bytes and an
// indexed column "idx" holding one of 100 values, each row's value its
// number modulo 100; one EQ on it, count 1,000 (every matching row),
// the first 2 columns of each, after the rows are flushed. Reported with the process's CPU per call,
// which a busy machine does not inflate.
//
//	go test -run '^$' -bench IndexedSlices -benchmem ./handler19
func BenchmarkIndexedSlices(b *testing.B) {
	const rows, values = 100_000, 100
	ctx := context.Background()
	p, err := dht.Lookup("RandomPartitioner")
	if err != nil {
		b.Fatal(err)
	}
	s := &schema.Schema{ClusterName: "Test", Partitioner: p, Keyspaces: map[string]*schema.Keyspace{}}
	ldb, err := ldbstore.Open(b.TempDir(), s, ldbstore.Options{PurgeInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer ldb.Close()
	cat, err := catalog.New(ctx, ldb, &catalog.Start{Schema: s}, catalog.Options{ParseType: marshal.Parse})
	if err != nil {
		b.Fatal(err)
	}
	defer cat.Close()
	svc := New(Options{Schema: cat.Current, Store: ldb, Changer: cat, ParseType: marshal.Parse})
	c := svc.Connection()
	ks := &cassandra19.KsDef{Name: "K", StrategyClass: "SimpleStrategy", DurableWrites: true,
		StrategyOptions: map[string]string{"replication_factor": "1"}, CfDefs: []*cassandra19.CfDef{}}
	if _, err := c.SystemAddKeyspace(ctx, ks); err != nil {
		b.Fatal(err)
	}
	if err := c.SetKeyspace(ctx, "K"); err != nil {
		b.Fatal(err)
	}
	def := cassandra19.NewCfDef()
	def.Keyspace, def.Name, def.ComparatorType = "K", "Indexed", "BytesType"
	keys := cassandra19.IndexType_KEYS
	def.ColumnMetadata = []*cassandra19.ColumnDef{{Name: []byte("idx"), ValidationClass: "BytesType",
		IndexType: &keys, IndexName: thrift.StringPtr("Indexed_idx")}}
	if _, err := c.SystemAddColumnFamily(ctx, def); err != nil {
		b.Fatal(err)
	}
	value := make([]byte, 32)
	batch := make([]engine.RowMutation, 0, 1000)
	for r := range rows {
		ms := make([]engine.Mutation, 0, 6)
		for i := range 5 {
			ms = append(ms, engine.Mutation{ColumnFamily: "Indexed", Name: []byte("C" + strconv.Itoa(i)), Value: value, Timestamp: 1})
		}
		ms = append(ms, engine.Mutation{ColumnFamily: "Indexed", Name: []byte("idx"), Value: []byte("v" + strconv.Itoa(r%values)), Timestamp: 1})
		batch = append(batch, engine.RowMutation{Key: strconv.Itoa(r), Mutations: ms})
		if len(batch) == cap(batch) {
			if err := ldb.Apply(ctx, "K", batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	// As after nodetool flush: the rows in tables, not the memtable,
	// whose seeks cost several times a table's.
	if err := ldb.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	parent := &cassandra19.ColumnParent{ColumnFamily: "Indexed"}
	pred := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 2}}
	call := func(v int) []*cassandra19.KeySlice {
		clause := &cassandra19.IndexClause{Expressions: []*cassandra19.IndexExpression{
			{ColumnName: []byte("idx"), Op: cassandra19.IndexOperator_EQ, Value: []byte("v" + strconv.Itoa(v))}},
			StartKey: []byte{}, Count: rows / values}
		r, err := c.GetIndexedSlices(ctx, parent, clause, pred, cassandra19.ConsistencyLevel_ONE)
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
	// The index covers the rows once its build, begun when the family
	// was declared empty, has recorded itself done.
	for len(call(0)) == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	b.ReportAllocs()
	cpu0 := cpuTime()
	v := 0
	for b.Loop() {
		r := call(v % values)
		if len(r) != rows/values || len(r[0].Columns) != 2 {
			b.Fatalf("%d rows of %d columns, want %d of 2", len(r), len(r[0].Columns), rows/values)
		}
		v++
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}
