package ldbstore

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
	"github.com/thriftd/thriftd/schema"
)

// BenchmarkIndexedQuery is what a get_indexed_slices of one EQ costs the
// store over 100,000 rows of which 1% match: the index's candidates and
// the rows' reads (what handler19 does on this store), beside the scan
// and filter it falls back on while an index is being built.
//
//	go test -run '^$' -bench IndexedQuery ./engine/ldbstore
func BenchmarkIndexedQuery(b *testing.B) {
	const rows = 100000
	s := storetest.TestSchema(b, "RandomPartitioner")
	s.Keyspaces[storetest.Keyspace].ColumnFamilies["Standard1"].Columns = []schema.ColumnDef{
		{Name: []byte("state"), Index: &schema.IndexDef{Type: schema.IndexKeys, Name: "Standard1_state_idx"}},
	}
	st := open(b, b.TempDir(), s, Options{})
	defer st.Close()
	batch := make([]engine.RowMutation, 0, 1000)
	for i := 0; i < rows; i++ {
		v := fmt.Sprintf("v%02d", i%97)
		if i%100 == 0 {
			v = "match"
		}
		key := fmt.Sprintf("row%06d", i)
		batch = append(batch, engine.RowMutation{Key: key, Mutations: []engine.Mutation{
			{ColumnFamily: "Standard1", Name: []byte("state"), Value: []byte(v), Timestamp: 1},
			{ColumnFamily: "Standard1", Name: []byte("other"), Value: []byte("x"), Timestamp: 1},
		}})
		if len(batch) == cap(batch) {
			if err := st.Apply(ctx, storetest.Keyspace, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	for deadline := time.Now().Add(time.Minute); ; {
		if _, ready, _ := st.IndexedKeys(ctx, storetest.Keyspace, "Standard1", []byte("state"), nil, engine.TokenRange{}, 1); ready {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("index not ready")
		}
		time.Sleep(10 * time.Millisecond)
	}
	names := engine.Query{ColumnFamily: "Standard1", Predicate: engine.Predicate{Names: [][]byte{[]byte("state")}, Count: 1}}
	all := engine.Query{ColumnFamily: "Standard1", Predicate: storetest.All(100)}
	want := rows / 100
	b.Run("index", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			keys, _, err := st.IndexedKeys(ctx, storetest.Keyspace, "Standard1", []byte("state"), []byte("match"), engine.TokenRange{StartInclusive: true}, rows)
			if err != nil {
				b.Fatal(err)
			}
			got, err := st.GetMany(ctx, storetest.Keyspace, keys, all)
			if err != nil {
				b.Fatal(err)
			}
			if len(got) != want {
				b.Fatalf("%d rows, want %d", len(got), want)
			}
		}
	})
	b.Run("scan", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			got, err := st.Range(ctx, storetest.Keyspace, engine.TokenRange{StartInclusive: true}, names, rows)
			if err != nil {
				b.Fatal(err)
			}
			var keys []string
			for _, r := range got {
				if len(r.Columns) == 1 && bytes.Equal(r.Columns[0].Value, []byte("match")) {
					keys = append(keys, r.Key)
				}
			}
			if rows, err := st.GetMany(ctx, storetest.Keyspace, keys, all); err != nil || len(rows) != want {
				b.Fatalf("%d rows, %v; want %d", len(rows), err, want)
			}
		}
	})
}
