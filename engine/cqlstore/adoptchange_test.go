package cqlstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// FollowAdopted serves the adopted keyspace as CQL changes it: a table
// created is served, one altered is served in its new shape, one dropped
// is an unknown column family. (Whether it reads the keyspace again with
// no change is not tested: the test node is shared, and any keyspace
// created on it changes its schema version.)
func TestFollowAdoptedOnTheCluster(t *testing.T) {
	s, ks := adoptKeyspace(t,
		`CREATE TABLE KS.first (key blob, column1 text, value blob, PRIMARY KEY (key, column1))`,
		`CREATE TABLE KS.gone (key blob, column1 text, value blob, PRIMARY KEY (key, column1))`,
	)
	st, ctx := openAdopting(t, ks)
	for _, stmt := range []string{
		`CREATE TABLE KS.late (key blob, column1 text, value counter, PRIMARY KEY (key, column1))`,
		`ALTER TABLE KS.first ADD owner text static`,
		`DROP TABLE KS.gone`,
	} {
		if err := s.Query(strings.ReplaceAll(stmt, "KS.", ks+".")).WithContext(ctx).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	// Until it is read again, the dropped table is still named, and the
	// cluster's refusal is an unknown column family.
	for _, err := range []error{
		func() error {
			_, err := st.Get(ctx, ks, "k", engine.Query{ColumnFamily: "gone", Predicate: engine.Predicate{Count: 10}})
			return err
		}(),
		st.Apply(ctx, ks, []engine.RowMutation{{Key: "k", Mutations: []engine.Mutation{{ColumnFamily: "gone", Name: []byte("a"), Value: []byte("b"), Timestamp: 1}}}}),
	} {
		var gone *engine.UnknownColumnFamilyError
		if !errors.As(err, &gone) || gone.Name != "gone" {
			t.Errorf("a call on the table dropped with CQL: %v", err)
		}
	}
	// Reads go on while the keyspace is read again.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 20 {
			st.Get(ctx, ks, "k", engine.Query{ColumnFamily: "first", Predicate: engine.Predicate{Count: 10}})
		}
	}()
	kss, changed, err := st.FollowAdopted(ctx)
	<-done
	if err != nil || !changed || len(kss) != 1 {
		t.Fatalf("follow after the changes: %d keyspaces, changed %v, %v", len(kss), changed, err)
	}
	cfs := kss[0].ColumnFamilies
	if cfs["gone"] != nil || cfs["late"] == nil || cfs["first"] == nil || len(cfs["first"].Columns) != 1 {
		t.Fatalf("served after the changes: %+v", cfs)
	}
	if fmt.Sprint(st.Adopted()[0].ColumnFamilies) != fmt.Sprint(cfs) {
		t.Errorf("Adopted is not what FollowAdopted returned")
	}
	if _, err := st.Get(ctx, ks, "k", engine.Query{ColumnFamily: "gone", Predicate: engine.Predicate{Count: 10}}); err == nil || !strings.Contains(err.Error(), "unknown column family") {
		t.Errorf("a read of the dropped table: %v", err)
	}
	if err := st.ApplyCounters(ctx, ks, []engine.CounterRow{{Key: "k", Mutations: []engine.CounterMutation{{ColumnFamily: "late", Name: []byte("n"), Delta: 2}}}}); err != nil {
		t.Errorf("a counter add to the new table: %v", err)
	}
	if err := st.Apply(ctx, ks, []engine.RowMutation{{Key: "k", Mutations: []engine.Mutation{{ColumnFamily: "first", Name: []byte("owner"), Value: []byte("ann"), Timestamp: 5}}}}); err != nil {
		t.Fatal(err)
	}
	var owner string
	if err := s.Query(`SELECT owner FROM ` + ks + `.first WHERE key = 0x6b LIMIT 1`).WithContext(ctx).Scan(&owner); err != nil || owner != "ann" {
		t.Errorf("the new static column holds %q (%v)", owner, err)
	}
}

// A compact table created with CQL keeps its own column names after DROP
// COMPACT STORAGE (k, ts, v); one of clustering columns alone has an
// EmptyType value (3.11 adds it). Both are served with the Thrift view 2.1
// gave: comparator from the clustering types, validator from the value.
func TestAdoptedRenamedColumns(t *testing.T) {
	s, ks := adoptKeyspace(t,
		`CREATE TABLE KS.events (k text, ts bigint, v bigint, PRIMARY KEY (k, ts)) WITH CLUSTERING ORDER BY (ts DESC)`,
		`CREATE TABLE KS.pairs (k text, a text, b int, v text, PRIMARY KEY (k, a, b))`,
		`INSERT INTO KS.events (k, ts, v) VALUES ('e', 1, 10) USING TIMESTAMP 100`,
		`INSERT INTO KS.events (k, ts, v) VALUES ('e', 2, 20) USING TIMESTAMP 200`,
		`INSERT INTO KS.pairs (k, a, b, v) VALUES ('p', 'x', 1, 'one') USING TIMESTAMP 300`,
	)
	st, ctx := openAdopting(t, ks)
	adopted := st.Adopted()
	if len(adopted) != 1 || adopted[0].ColumnFamilies["events"] == nil || adopted[0].ColumnFamilies["pairs"] == nil {
		t.Fatalf("adopted: %+v", adopted)
	}
	if n := adopted[0].ColumnFamilies["events"].Comparator.Name(); n != "org.apache.cassandra.db.marshal.ReversedType(org.apache.cassandra.db.marshal.LongType)" {
		t.Errorf("events comparator %s", n)
	}
	be := func(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }
	if err := st.Apply(ctx, ks, []engine.RowMutation{{Key: "e", Mutations: []engine.Mutation{
		{ColumnFamily: "events", Name: be(3), Value: be(30), Timestamp: 300},
		{ColumnFamily: "events", Name: be(1), Delete: true, Timestamp: 400},
	}}}); err != nil {
		t.Fatal(err)
	}
	row, err := st.Get(ctx, ks, "e", engine.Query{ColumnFamily: "events", Predicate: engine.Predicate{Count: 10}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range row.Columns {
		got = append(got, fmt.Sprintf("%d=%d@%d", binary.BigEndian.Uint64(c.Name), binary.BigEndian.Uint64(c.Value), c.Timestamp))
	}
	if strings.Join(got, " ") != "3=30@300 2=20@200" {
		t.Errorf("events through the store: %q", got)
	}
	n, err := st.Count(ctx, ks, "e", "events", nil)
	if err != nil || n != 2 {
		t.Errorf("count of events: %d, %v", n, err)
	}
	var v int64
	if err := s.Query(`SELECT v FROM ` + ks + `.events WHERE k = 'e' AND ts = 3`).Scan(&v); err != nil || v != 30 {
		t.Errorf("CQL reads the store's write as %d, %v", v, err)
	}
	// A range of rows, a compare-and-set and a range deletion name the
	// table's own columns too.
	rows, err := st.Range(ctx, ks, engine.TokenRange{}, engine.Query{ColumnFamily: "events", Predicate: engine.Predicate{Count: 10}}, 10)
	if err != nil || len(rows) != 1 || rows[0].Key != "e" || len(rows[0].Columns) != 2 {
		t.Errorf("range of events: %+v, %v", rows, err)
	}
	applied, _, err := st.CompareAndSet(ctx, ks, "e", engine.CAS{ColumnFamily: "events",
		Expected: []engine.Column{{Name: be(3), Value: be(30)}}, Updates: []engine.Mutation{{ColumnFamily: "events", Name: be(3), Value: be(33)}}})
	if err != nil || !applied {
		t.Errorf("cas on events: %v, %v", applied, err)
	}
	if err := st.Apply(ctx, ks, []engine.RowMutation{{Key: "e", Mutations: []engine.Mutation{
		{ColumnFamily: "events", Delete: true, Range: &engine.NameRange{Start: be(2), Finish: be(2)}, Timestamp: 600},
	}}}); err != nil {
		t.Fatal(err)
	}
	row, err = st.Get(ctx, ks, "e", engine.Query{ColumnFamily: "events", Predicate: engine.Predicate{Count: 10}})
	got = got[:0]
	for _, c := range row.Columns {
		got = append(got, fmt.Sprintf("%d=%d", binary.BigEndian.Uint64(c.Name), binary.BigEndian.Uint64(c.Value)))
	}
	if err != nil || strings.Join(got, " ") != "3=33" {
		t.Errorf("events after the cas and the range deletion: %q, %v", got, err)
	}
	comp := []byte("\x00\x01y\x00\x00\x04\x00\x00\x00\x02\x00")
	if err := st.Apply(ctx, ks, []engine.RowMutation{{Key: "p", Mutations: []engine.Mutation{
		{ColumnFamily: "pairs", Name: comp, Value: []byte("two"), Timestamp: 500},
	}}}); err != nil {
		t.Fatal(err)
	}
	row, err = st.Get(ctx, ks, "p", engine.Query{ColumnFamily: "pairs", Predicate: engine.Predicate{Count: 10}})
	if err != nil {
		t.Fatal(err)
	}
	if len(row.Columns) != 2 || string(row.Columns[0].Value) != "one" || string(row.Columns[1].Value) != "two" {
		t.Errorf("pairs through the store: %+v", row.Columns)
	}
}

// A family of an adopted table of its own column names builds its
// statements from them when it is built: none names the Thrift columns.
func TestAdoptedFamilyStatementsNameTheTablesColumns(t *testing.T) {
	def := &schema.ColumnFamily{Name: "events", Comparator: marshal.LongType{}, DefaultValidator: marshal.LongType{}}
	f := adoptedFamily(def, AdoptedTable{Keyspace: "ks", Name: "events", Shape: ShapeDynamic, Family: def, Key: "k", Clustering: []string{"ts"}, Value: "value"})
	if want := (columnNames{key: `"k"`, column1: `"ts"`, value: "value"}); f.col != want {
		t.Errorf("columns %+v, want %+v", f.col, want)
	}
	if want := `INSERT INTO "ks"."events" ("k", "ts", value) VALUES (?, ?, ?) USING TIMESTAMP ?`; f.cql.insert != want {
		t.Errorf("insert %s, want %s", f.cql.insert, want)
	}
	if want := `DELETE FROM "ks"."events" USING TIMESTAMP ? WHERE "k" = ? AND "ts" = ?`; f.cql.deleteColumn != want {
		t.Errorf("delete %s, want %s", f.cql.deleteColumn, want)
	}
	sel := selectText(f, selectMany|selectReversed|selectLimit|selectShape(clauseStart))
	if want := `SELECT "k", "ts", value, writetime(value), ttl(value) FROM "ks"."events" WHERE "k" IN ? AND "ts" >= ? ORDER BY "ts" DESC PER PARTITION LIMIT ?`; sel != want {
		t.Errorf("select %s, want %s", sel, want)
	}
	plain := adoptedFamily(def, AdoptedTable{Keyspace: "ks", Name: "events", Shape: ShapeDynamic, Family: def, Key: "key", Clustering: []string{"column1"}, Value: "value"})
	if plain.col != thriftColumns || plain.cql != newFamilyCQL(`"ks"."events"`, thriftColumns) {
		t.Errorf("a table of the Thrift names: %+v", plain.col)
	}
}
