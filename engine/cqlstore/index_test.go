package cqlstore

import (
	"errors"
	"testing"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
	"github.com/thriftd/thriftd/schema"
)

// TestIndexConformance runs the engine.Indexer suite on a real node: the
// store's indexes are Cassandra's own.
func TestIndexConformance(t *testing.T) {
	storetest.RunIndexes(t, storetest.Harness{
		Open: func(t *testing.T, s *schema.Schema) engine.Store {
			st, _ := openFresh(t, s, 864000)
			return st
		},
		Reopen: func(t *testing.T, st engine.Store, s *schema.Schema) engine.Store {
			o := st.(*Store).opts
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			return openAnother(t, s, o)
		},
	})
}

// A family with a KEYS index keeps Cassandra's index on every value of its
// table, which holds values shorter than 65,535 bytes: a longer one, in any
// column, is refused as a RefusedError (the client's
// InvalidRequestException) and not written; a family without an index
// takes it.
func TestIndexedFamilyValueLimit(t *testing.T) {
	s := storetest.TestSchema(t, "org.apache.cassandra.dht.RandomPartitioner")
	st, _ := openFresh(t, s, 864000)
	next := storetest.Clone(s, "v2")
	next.Keyspaces[storetest.Keyspace].ColumnFamilies["Standard1"].Columns = []schema.ColumnDef{
		{Name: []byte("state"), Index: &schema.IndexDef{Type: schema.IndexKeys, Name: "Standard1_state_idx"}}}
	if err := st.ChangeSchema(ctx, next, []byte("v2")); err != nil {
		t.Fatal(err)
	}
	write := func(cf, name string, size int) error {
		return st.Apply(ctx, storetest.Keyspace, []engine.RowMutation{{Key: "k", Mutations: []engine.Mutation{
			{ColumnFamily: cf, Name: []byte(name), Value: make([]byte, size), Timestamp: 1}}}})
	}
	for _, name := range []string{"state", "other"} {
		if err := write("Standard1", name, 65534); err != nil {
			t.Errorf("%s: 65,534 bytes: %v", name, err)
		}
		var refused *engine.RefusedError
		if err := write("Standard1", name+"-long", 65535); !errors.As(err, &refused) {
			t.Errorf("%s: 65,535 bytes: %v, want a RefusedError", name, err)
		}
	}
	if err := write("Standard2", "other", 70000); err != nil {
		t.Errorf("a family without an index: %v", err)
	}
	row, err := st.Get(ctx, storetest.Keyspace, "k", engine.Query{ColumnFamily: "Standard1", Predicate: engine.Predicate{Count: 10}})
	if err != nil || len(row.Columns) != 2 {
		t.Errorf("after the writes: %d columns, %v; want the two that fit", len(row.Columns), err)
	}
}
