package cqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
)

// An expiring column is live with the seconds it has left, then gone from
// every read, while its row stays in range reads as a ghost until
// gc_grace_seconds after it expired.
func TestExpiringColumns(t *testing.T) {
	s := storetest.TestSchema(t, "org.apache.cassandra.dht.RandomPartitioner")
	st, _ := openFresh(t, s, 864000)
	ctx := context.Background()
	now := time.Now().UnixMicro()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// The seconds left are read from columns that cannot expire before the
	// read, however slow the machine; the expiry is tested with TTLs of 1
	// s, waited for.
	must(st.Apply(ctx, storetest.Keyspace, []engine.RowMutation{
		{Key: "k", Mutations: []engine.Mutation{
			{ColumnFamily: "Standard1", Name: []byte("long"), Value: []byte("v"), Timestamp: now, TTL: 3600},
		}},
		{Key: "super", Mutations: []engine.Mutation{{ColumnFamily: "Super1", SuperColumn: []byte("sc"), Name: []byte("c"), Value: []byte("v"), Timestamp: now, TTL: 3600}}},
	}))
	all := engine.Predicate{Count: 100}
	row, err := st.Get(ctx, storetest.Keyspace, "k", engine.Query{ColumnFamily: "Standard1", Predicate: all})
	must(err)
	if len(row.Columns) != 1 {
		t.Fatalf("before expiry: %+v", row.Columns)
	}
	for _, c := range row.Columns {
		if c.TTL <= 0 || c.ExpiresAt <= time.Now().Unix() {
			t.Errorf("column %s: TTL %d, expires at %d", c.Name, c.TTL, c.ExpiresAt)
		}
	}
	sup, err := st.Get(ctx, storetest.Keyspace, "super", engine.Query{ColumnFamily: "Super1", Predicate: all})
	must(err)
	if len(sup.SuperColumns) != 1 || sup.SuperColumns[0].Columns[0].TTL <= 3590 {
		t.Fatalf("expiring subcolumn: %+v", sup.SuperColumns)
	}

	now = time.Now().UnixMicro()
	must(st.Apply(ctx, storetest.Keyspace, []engine.RowMutation{
		{Key: "k", Mutations: []engine.Mutation{
			{ColumnFamily: "Standard1", Name: []byte("short"), Value: []byte("v"), Timestamp: now, TTL: 1},
		}},
		{Key: "gone", Mutations: []engine.Mutation{{ColumnFamily: "Standard1", Name: []byte("c"), Value: []byte("v"), Timestamp: now, TTL: 1}}},
	}))
	// Both TTLs of 1 s are waited for: the short column gone from its row,
	// and the row whose only column expired a ghost of range reads.
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		row, err = st.Get(ctx, storetest.Keyspace, "k", engine.Query{ColumnFamily: "Standard1", Predicate: all})
		must(err)
		rows, err := st.Range(ctx, storetest.Keyspace, engine.TokenRange{}, engine.Query{ColumnFamily: "Standard1", Predicate: all}, 10)
		must(err)
		ghost := false
		for _, r := range rows {
			if r.Key == "gone" {
				ghost = len(r.Columns) == 0
			}
		}
		expired := len(row.Columns) == 1 && string(row.Columns[0].Name) == "long"
		if expired && ghost {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("2 minutes after TTLs of 1 s: row k %+v (want long alone); range %+v (want gone, a ghost)", row.Columns, rows)
		}
	}
	// The short column's expiry means a second has passed since the long
	// one was written, so CQL's ttl(value), the seconds left, is below
	// 3600: a slice and a read by name answer the TTL as written
	// (written_ttl), as 1.2 did.
	byName, err := st.Get(ctx, storetest.Keyspace, "k", engine.Query{ColumnFamily: "Standard1", Predicate: engine.Predicate{Names: [][]byte{[]byte("long")}}})
	must(err)
	for _, r := range []engine.Row{row, byName} {
		if len(r.Columns) != 1 || r.Columns[0].TTL != 3600 {
			t.Errorf("row k, after a second: %+v, want long with the TTL it was written with, 3600", r.Columns)
		}
	}
}
