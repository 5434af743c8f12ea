package ldbstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/comparator"
	"github.com/thriftd/thriftd/engine/partitioner"
	"github.com/thriftd/thriftd/schema"
)

var ctx = context.Background()

const ks = "Keyspace1"

func mustComparator(t testing.TB, name string) comparator.Comparator {
	t.Helper()
	c, err := comparator.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// testSchema has a Standard and a Super column family of each interesting
// comparator, under the given partitioner.
func testSchema(t testing.TB, part string) *schema.Schema {
	t.Helper()
	p, err := partitioner.Lookup(part)
	if err != nil {
		t.Fatal(err)
	}
	cfs := map[string]*schema.ColumnFamily{}
	add := func(name string, super bool, cmp, sub string) {
		cf := &schema.ColumnFamily{Keyspace: ks, Name: name, Super: super, Comparator: mustComparator(t, cmp)}
		if super {
			cf.SubComparator = mustComparator(t, sub)
		}
		cfs[name] = cf
	}
	add("Standard1", false, "BytesType", "")
	add("Standard2", false, "BytesType", "")
	add("StandardLong1", false, "LongType", "")
	add("Super1", true, "BytesType", "LongType")
	return &schema.Schema{ClusterName: "Test", Partitioner: p, Keyspaces: map[string]*schema.Keyspace{
		ks: {Name: ks, ReplicationFactor: 1, ColumnFamilies: cfs},
	}}
}

func open(t testing.TB, dir string, s *schema.Schema, o Options) *Store {
	t.Helper()
	if o.PurgeInterval == 0 {
		o.PurgeInterval = -1
	}
	st, err := Open(dir, s, o)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func newStore(t testing.TB) *Store {
	t.Helper()
	st := open(t, t.TempDir(), testSchema(t, "OrderPreservingPartitioner"), Options{})
	t.Cleanup(func() { st.Close() })
	return st
}

func put(cf, key, name, value string, ts int64) engine.RowMutation {
	return engine.RowMutation{Key: key, Mutations: []engine.Mutation{{ColumnFamily: cf, Name: []byte(name), Value: []byte(value), Timestamp: ts}}}
}

func putSub(cf, key, sc string, sub int64, value string, ts int64) engine.RowMutation {
	return engine.RowMutation{Key: key, Mutations: []engine.Mutation{{ColumnFamily: cf, SuperColumn: []byte(sc), Name: long(sub), Value: []byte(value), Timestamp: ts}}}
}

func del(cf, key string, sc, name []byte, ts int64) engine.RowMutation {
	return engine.RowMutation{Key: key, Mutations: []engine.Mutation{{ColumnFamily: cf, SuperColumn: sc, Name: name, Timestamp: ts, Delete: true}}}
}

func long(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

func apply(t testing.TB, st *Store, rows ...engine.RowMutation) {
	t.Helper()
	if err := st.Apply(ctx, ks, rows); err != nil {
		t.Fatal(err)
	}
}

func all(count int) engine.Predicate { return engine.Predicate{Count: count} }

// render prints a row compactly: "name=value@ts ..." or "sc{name=value@ts ...} ...".
func render(r engine.Row) string {
	var parts []string
	col := func(c engine.Column) string {
		name := string(c.Name)
		if len(c.Name) == 8 && !isPrintable(c.Name) {
			name = fmt.Sprint(int64(binary.BigEndian.Uint64(c.Name)))
		}
		return fmt.Sprintf("%s=%s@%d", name, c.Value, c.Timestamp)
	}
	for _, c := range r.Columns {
		parts = append(parts, col(c))
	}
	for _, sc := range r.SuperColumns {
		var subs []string
		for _, c := range sc.Columns {
			subs = append(subs, col(c))
		}
		parts = append(parts, fmt.Sprintf("%s{%s}", sc.Name, strings.Join(subs, " ")))
	}
	return strings.Join(parts, " ")
}

func isPrintable(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

func get(t testing.TB, st *Store, cf, key string, sc []byte, p engine.Predicate) string {
	t.Helper()
	r, err := st.Get(ctx, ks, key, engine.Query{ColumnFamily: cf, SuperColumn: sc, Predicate: p})
	if err != nil {
		t.Fatal(err)
	}
	return render(r)
}

func expect(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestReconciliation(t *testing.T) {
	st := newStore(t)
	apply(t, st, put("Standard1", "k", "a", "old", 5))
	apply(t, st, put("Standard1", "k", "a", "older", 4))
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "a=old@5")
	apply(t, st, put("Standard1", "k", "a", "new", 6))
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "a=new@6")
	// Equal timestamps: the greater value wins, whatever the order.
	apply(t, st, put("Standard1", "k", "a", "abc", 6))
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "a=new@6")
	apply(t, st, put("Standard1", "k", "a", "zzz", 6))
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "a=zzz@6")
	// Equal timestamps: a tombstone beats a live value...
	apply(t, st, del("Standard1", "k", nil, []byte("a"), 6))
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "")
	// ...and a live value at the same timestamp does not resurrect it.
	apply(t, st, put("Standard1", "k", "a", "zzzz", 6))
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "")
	apply(t, st, put("Standard1", "k", "a", "back", 7))
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "a=back@7")
}

func TestRowTombstoneShadowsAndResurrects(t *testing.T) {
	st := newStore(t)
	apply(t, st, put("Standard1", "k", "a", "1", 1), put("Standard1", "k", "b", "1", 3))
	apply(t, st, del("Standard1", "k", nil, nil, 2))
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "b=1@3")
	apply(t, st, put("Standard1", "k", "a", "2", 2))
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "b=1@3")
	apply(t, st, put("Standard1", "k", "a", "3", 3))
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "a=3@3 b=1@3")
	// An older row deletion does not lower the tombstone.
	apply(t, st, del("Standard1", "k", nil, nil, 1))
	apply(t, st, put("Standard1", "k", "c", "x", 2))
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "a=3@3 b=1@3")
	// The deletion applies to that column family only.
	apply(t, st, put("Standard2", "k", "a", "other", 1))
	expect(t, get(t, st, "Standard2", "k", nil, all(10)), "a=other@1")
}

func TestMinTimestampIsInvisible(t *testing.T) {
	st := newStore(t)
	apply(t, st, put("Standard1", "k", "a", "v", minTimestamp), put("Standard1", "k", "b", "v", minTimestamp+1))
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), fmt.Sprintf("b=v@%d", int64(minTimestamp+1)))
}

func TestLastRowDeletionInAMutationWins(t *testing.T) {
	st := newStore(t)
	apply(t, st, put("Standard1", "k", "a", "v", 7))
	apply(t, st, engine.RowMutation{Key: "k", Mutations: []engine.Mutation{
		{ColumnFamily: "Standard1", Timestamp: 10, Delete: true},
		{ColumnFamily: "Standard1", Timestamp: 5, Delete: true},
	}})
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "a=v@7")
}

func TestInsertAndDeleteInOneMutation(t *testing.T) {
	st := newStore(t)
	// Order does not matter: the deletion, at the same timestamp, wins.
	apply(t, st, engine.RowMutation{Key: "k", Mutations: []engine.Mutation{
		{ColumnFamily: "Standard1", Name: []byte("a"), Value: []byte("v"), Timestamp: 5},
		{ColumnFamily: "Standard1", Timestamp: 5, Delete: true},
		{ColumnFamily: "Standard1", Name: []byte("b"), Value: []byte("v"), Timestamp: 6},
	}})
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "b=v@6")
}

func TestSlices(t *testing.T) {
	st := newStore(t)
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		apply(t, st, put("Standard1", "k", n, n, 1))
	}
	apply(t, st, del("Standard1", "k", nil, []byte("c"), 2))
	for _, tc := range []struct {
		p    engine.Predicate
		want string
	}{
		{engine.Predicate{Count: 100}, "a=a@1 b=b@1 d=d@1 e=e@1"},
		{engine.Predicate{Count: 2}, "a=a@1 b=b@1"},
		{engine.Predicate{Count: 0}, ""},
		{engine.Predicate{Start: []byte("b"), Count: 2}, "b=b@1 d=d@1"},
		{engine.Predicate{Start: []byte("bb"), Finish: []byte("d"), Count: 10}, "d=d@1"},
		{engine.Predicate{Finish: []byte("b"), Count: 10}, "a=a@1 b=b@1"},
		{engine.Predicate{Reversed: true, Count: 2}, "e=e@1 d=d@1"},
		{engine.Predicate{Start: []byte("d"), Reversed: true, Count: 10}, "d=d@1 b=b@1 a=a@1"},
		{engine.Predicate{Start: []byte("cc"), Finish: []byte("b"), Reversed: true, Count: 10}, "b=b@1"},
		{engine.Predicate{Start: []byte("zz"), Reversed: true, Count: 1}, "e=e@1"},
		{engine.Predicate{Start: []byte("0"), Reversed: true, Count: 1}, ""},
		{engine.Predicate{Names: [][]byte{[]byte("e"), []byte("a"), []byte("c"), []byte("x"), []byte("a")}}, "a=a@1 e=e@1"},
		{engine.Predicate{Names: [][]byte{}}, ""},
	} {
		expect(t, get(t, st, "Standard1", "k", nil, tc.p), tc.want)
	}
	expect(t, get(t, st, "Standard1", "missing", nil, all(10)), "")
	// Rows next to each other do not bleed into one another.
	apply(t, st, put("Standard1", "j", "z", "z", 1), put("Standard1", "l", "0", "0", 1))
	expect(t, get(t, st, "Standard1", "k", nil, engine.Predicate{Reversed: true, Count: 1}), "e=e@1")
	expect(t, get(t, st, "Standard1", "k", nil, engine.Predicate{Count: 100}), "a=a@1 b=b@1 d=d@1 e=e@1")
	n, err := st.Count(ctx, ks, "k", "Standard1", nil)
	if err != nil || n != 4 {
		t.Errorf("Count = %d, %v; want 4", n, err)
	}
}

func TestLongTypeOrder(t *testing.T) {
	st := newStore(t)
	for _, v := range []int64{5, -1, 1 << 40, -1 << 40, 0} {
		apply(t, st, engine.RowMutation{Key: "k", Mutations: []engine.Mutation{{ColumnFamily: "StandardLong1", Name: long(v), Value: []byte("v"), Timestamp: 1}}})
	}
	expect(t, get(t, st, "StandardLong1", "k", nil, all(10)), "-1099511627776=v@1 -1=v@1 0=v@1 5=v@1 1099511627776=v@1")
}

func TestSuperColumns(t *testing.T) {
	st := newStore(t)
	apply(t, st, putSub("Super1", "k", "sc1", 4, "v4", 1))
	apply(t, st, putSub("Super1", "k", "sc2", 5, "v5", 1), putSub("Super1", "k", "sc2", 6, "v6", 1), putSub("Super1", "k", "sc2", -1, "vm", 3))
	apply(t, st, putSub("Super1", "k", "sc3", 7, "v7", 1))
	expect(t, get(t, st, "Super1", "k", nil, all(10)), "sc1{4=v4@1} sc2{-1=vm@3 5=v5@1 6=v6@1} sc3{7=v7@1}")
	// Reversed: the list of super columns is reversed, never their subcolumns.
	expect(t, get(t, st, "Super1", "k", nil, engine.Predicate{Reversed: true, Count: 2}), "sc3{7=v7@1} sc2{-1=vm@3 5=v5@1 6=v6@1}")
	expect(t, get(t, st, "Super1", "k", nil, engine.Predicate{Start: []byte("sc2"), Reversed: true, Count: 5}), "sc2{-1=vm@3 5=v5@1 6=v6@1} sc1{4=v4@1}")
	expect(t, get(t, st, "Super1", "k", nil, engine.Predicate{Start: []byte("sc2"), Finish: []byte("sc2"), Count: 5}), "sc2{-1=vm@3 5=v5@1 6=v6@1}")
	expect(t, get(t, st, "Super1", "k", nil, engine.Predicate{Names: [][]byte{[]byte("sc3"), []byte("nope"), []byte("sc1")}}), "sc1{4=v4@1} sc3{7=v7@1}")
	expect(t, get(t, st, "Super1", "k", []byte("sc2"), engine.Predicate{Start: long(0), Count: 10}), "5=v5@1 6=v6@1")
	expect(t, get(t, st, "Super1", "k", []byte("sc2"), engine.Predicate{Reversed: true, Count: 2}), "6=v6@1 5=v5@1")
	expect(t, get(t, st, "Super1", "k", []byte("nope"), all(10)), "")

	// A super column tombstone shadows the subcolumns written at or before it.
	apply(t, st, del("Super1", "k", []byte("sc2"), nil, 2))
	expect(t, get(t, st, "Super1", "k", nil, all(10)), "sc1{4=v4@1} sc2{-1=vm@3} sc3{7=v7@1}")
	// A subcolumn deletion.
	apply(t, st, del("Super1", "k", []byte("sc2"), long(-1), 3))
	expect(t, get(t, st, "Super1", "k", nil, all(10)), "sc1{4=v4@1} sc3{7=v7@1}")
	// Super columns with nothing live do not use up the count.
	expect(t, get(t, st, "Super1", "k", nil, all(2)), "sc1{4=v4@1} sc3{7=v7@1}")
	n, err := st.Count(ctx, ks, "k", "Super1", nil)
	if err != nil || n != 2 {
		t.Errorf("Count = %d, %v; want 2", n, err)
	}
	// A row deletion shadows subcolumns too.
	apply(t, st, del("Super1", "k", nil, nil, 1))
	expect(t, get(t, st, "Super1", "k", nil, all(10)), "")
	apply(t, st, putSub("Super1", "k", "sc1", 9, "again", 2))
	expect(t, get(t, st, "Super1", "k", nil, all(10)), "sc1{9=again@2}")
}

func TestRangeGhostsAndBounds(t *testing.T) {
	st := newStore(t)
	p := st.part
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		apply(t, st, put("Standard1", k, "x", k, 1))
	}
	apply(t, st, put("Standard2", "zz", "x", "other family", 1))
	apply(t, st, del("Standard1", "b", nil, nil, 2))
	keys := func(b engine.Bounds, max int) string {
		rows, err := st.Range(ctx, ks, b, engine.Query{ColumnFamily: "Standard1", Predicate: all(10)}, max)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.Key+":"+render(r))
		}
		return strings.Join(out, " ")
	}
	expect(t, keys(engine.Bounds{StartInclusive: true}, 100), "a:x=a@1 b: c:x=c@1 d:x=d@1 e:x=e@1")
	expect(t, keys(engine.Bounds{Start: p.Token("b"), StartInclusive: true, End: p.Token("d")}, 100), "b: c:x=c@1 d:x=d@1")
	expect(t, keys(engine.Bounds{Start: p.Token("b"), End: p.Token("d")}, 100), "c:x=c@1 d:x=d@1")
	expect(t, keys(engine.Bounds{Start: p.Token("c")}, 100), "d:x=d@1 e:x=e@1")
	expect(t, keys(engine.Bounds{StartInclusive: true}, 2), "a:x=a@1 b:")
	expect(t, keys(engine.Bounds{Start: p.Token("bb"), StartInclusive: true, End: p.Token("bc")}, 100), "")
}

func TestRandomPartitionerRangeIsInTokenOrder(t *testing.T) {
	st := open(t, t.TempDir(), testSchema(t, "RandomPartitioner"), Options{})
	defer st.Close()
	var keys []string
	for i := 0; i < 50; i++ {
		k := fmt.Sprintf("key%d", i)
		keys = append(keys, k)
		apply(t, st, put("Standard1", k, "c", "v", 1))
	}
	rows, err := st.Range(ctx, ks, engine.Bounds{StartInclusive: true}, engine.Query{ColumnFamily: "Standard1", Predicate: all(1)}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(keys) {
		t.Fatalf("got %d rows, want %d", len(rows), len(keys))
	}
	for i := 1; i < len(rows); i++ {
		if bytes.Compare(st.part.Token(rows[i-1].Key), st.part.Token(rows[i].Key)) >= 0 {
			t.Fatalf("rows %q and %q are not in token order", rows[i-1].Key, rows[i].Key)
		}
	}
	for _, r := range rows {
		if render(r) != "c=v@1" {
			t.Fatalf("row %s = %q", r.Key, render(r))
		}
	}
}

func TestDataSurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	s := testSchema(t, "RandomPartitioner")
	st := open(t, dir, s, Options{Sync: Batch})
	apply(t, st, put("Standard1", "k", "a", "v", 1), putSub("Super1", "k", "sc", 1, "s", 1))
	apply(t, st, del("Standard1", "gone", nil, nil, 1))
	tok := st.Token()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = open(t, dir, s, Options{})
	defer st.Close()
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "a=v@1")
	expect(t, get(t, st, "Super1", "k", nil, all(10)), "sc{1=s@1}")
	if !bytes.Equal(st.Token(), tok) {
		t.Errorf("node token changed across restarts")
	}
}

func TestSecondOpenIsRefused(t *testing.T) {
	dir := t.TempDir()
	s := testSchema(t, "RandomPartitioner")
	st := open(t, dir, s, Options{})
	defer st.Close()
	_, err := Open(dir, s, Options{})
	if err == nil || !strings.Contains(err.Error(), "in use by another process") {
		t.Fatalf("second Open: %v", err)
	}
}

func TestSchemaDrift(t *testing.T) {
	dir := t.TempDir()
	st := open(t, dir, testSchema(t, "RandomPartitioner"), Options{})
	st.Close()

	s := testSchema(t, "RandomPartitioner")
	s.Keyspaces[ks].ColumnFamilies["Standard1"].Comparator = mustComparator(t, "UTF8Type")
	_, err := Open(dir, s, Options{})
	if err == nil || !strings.Contains(err.Error(), "Keyspace1.Standard1 was CompareWith org.apache.cassandra.db.marshal.BytesType and is now org.apache.cassandra.db.marshal.UTF8Type") {
		t.Errorf("comparator change: %v", err)
	}
	s = testSchema(t, "RandomPartitioner")
	s.Keyspaces[ks].ColumnFamilies["Super1"].SubComparator = mustComparator(t, "BytesType")
	if _, err = Open(dir, s, Options{}); err == nil || !strings.Contains(err.Error(), "Keyspace1.Super1 was CompareSubcolumnsWith org.apache.cassandra.db.marshal.LongType") {
		t.Errorf("subcomparator change: %v", err)
	}
	s = testSchema(t, "RandomPartitioner")
	s.Keyspaces[ks].ColumnFamilies["Standard2"].Super = true
	s.Keyspaces[ks].ColumnFamilies["Standard2"].SubComparator = mustComparator(t, "BytesType")
	if _, err = Open(dir, s, Options{}); err == nil || !strings.Contains(err.Error(), "Keyspace1.Standard2 was ColumnType Standard and is now Super") {
		t.Errorf("type change: %v", err)
	}
	if _, err = Open(dir, testSchema(t, "OrderPreservingPartitioner"), Options{}); err == nil ||
		!strings.Contains(err.Error(), "placed by org.apache.cassandra.dht.RandomPartitioner, but the configuration's Partitioner is org.apache.cassandra.dht.OrderPreservingPartitioner") {
		t.Errorf("partitioner change: %v", err)
	}
	// Adding and dropping column families is fine.
	s = testSchema(t, "RandomPartitioner")
	delete(s.Keyspaces[ks].ColumnFamilies, "Standard2")
	s.Keyspaces[ks].ColumnFamilies["New1"] = &schema.ColumnFamily{Keyspace: ks, Name: "New1", Comparator: mustComparator(t, "AsciiType")}
	st = open(t, dir, s, Options{})
	apply(t, st, put("New1", "k", "a", "v", 1))
	expect(t, get(t, st, "New1", "k", nil, all(10)), "a=v@1")
	st.Close()
}

func TestPurgeRemovesExpiredTombstonesAndGhosts(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	clock := func() time.Time { return now }
	st := open(t, t.TempDir(), testSchema(t, "OrderPreservingPartitioner"), Options{GCGrace: time.Hour, Now: clock})
	defer st.Close()
	apply(t, st, put("Standard1", "dead", "a", "v", 1), put("Standard1", "live", "a", "v", 1), put("Standard1", "live", "b", "v", 1))
	apply(t, st, del("Standard1", "dead", nil, nil, 2), del("Standard1", "live", nil, []byte("b"), 2))
	ghosts := func() int {
		rows, err := st.Range(ctx, ks, engine.Bounds{StartInclusive: true}, engine.Query{ColumnFamily: "Standard1", Predicate: all(10)}, 100)
		if err != nil {
			t.Fatal(err)
		}
		return len(rows)
	}
	if n, err := st.Purge(ctx); err != nil || n != 0 {
		t.Fatalf("early purge removed %d, %v", n, err)
	}
	if ghosts() != 2 {
		t.Fatalf("before purge: %d rows, want the ghost and the live row", ghosts())
	}
	now = now.Add(2 * time.Hour)
	n, err := st.Purge(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 { // the row tombstone, the column it shadowed, and b's tombstone
		t.Errorf("purge removed %d entries, want 3", n)
	}
	if ghosts() != 1 {
		t.Errorf("after purge: %d rows, want only the live row", ghosts())
	}
	expect(t, get(t, st, "Standard1", "live", nil, all(10)), "a=v@1")
	// A purged deletion no longer shadows an older write (as in 0.6).
	apply(t, st, put("Standard1", "dead", "a", "old", 1))
	expect(t, get(t, st, "Standard1", "dead", nil, all(10)), "a=old@1")
}

func TestApplyIsAtomicAcrossRows(t *testing.T) {
	st := newStore(t)
	err := st.Apply(ctx, ks, []engine.RowMutation{put("Standard1", "k1", "a", "v", 1), put("NoSuchCF", "k2", "a", "v", 1)})
	if err == nil {
		t.Fatal("expected an error for an unknown column family")
	}
	expect(t, get(t, st, "Standard1", "k1", nil, all(10)), "")
}

// A write older than a stored tombstone is kept on disk but never read, and
// Purge removes it with the tombstone, so it cannot come back to life.
func TestShadowedWritesNeverResurrect(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	st := open(t, t.TempDir(), testSchema(t, "OrderPreservingPartitioner"), Options{GCGrace: time.Hour, Now: func() time.Time { return now }})
	defer st.Close()
	apply(t, st, del("Standard1", "k", nil, nil, 10), del("Super1", "k", []byte("sc"), nil, 10))
	apply(t, st, put("Standard1", "k", "old", "v", 5), putSub("Super1", "k", "sc", 1, "v", 5))
	apply(t, st, put("Standard1", "k", "new", "v", 11))
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "new=v@11")
	expect(t, get(t, st, "Super1", "k", nil, all(10)), "")
	now = now.Add(2 * time.Hour)
	if _, err := st.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "new=v@11")
	expect(t, get(t, st, "Super1", "k", nil, all(10)), "")
}

func TestGetManyAnswersAsGetDoes(t *testing.T) {
	st := open(t, t.TempDir(), testSchema(t, "RandomPartitioner"), Options{})
	defer st.Close()
	for i := 0; i < 30; i++ {
		k := fmt.Sprintf("k%d", i)
		apply(t, st, put("Standard1", k, "a", k, 1), put("Standard1", k, "b", k, 2), putSub("Super1", k, "sc", int64(i), k, 1))
	}
	keys := []string{"k7", "missing", "k3", "k29", "k7", "k0"}
	for _, q := range []engine.Query{
		{ColumnFamily: "Standard1", Predicate: all(10)},
		{ColumnFamily: "Standard1", Predicate: engine.Predicate{Reversed: true, Count: 1}},
		{ColumnFamily: "Standard1", Predicate: engine.Predicate{Names: [][]byte{[]byte("b")}}},
		{ColumnFamily: "Super1", Predicate: all(10)},
	} {
		rows, err := st.GetMany(ctx, ks, keys, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != len(keys) {
			t.Fatalf("%d rows for %d keys", len(rows), len(keys))
		}
		for i, k := range keys {
			one, err := st.Get(ctx, ks, k, q)
			if err != nil {
				t.Fatal(err)
			}
			if rows[i].Key != k || render(rows[i]) != render(one) {
				t.Errorf("%+v key %s: GetMany %q, Get %q", q.Predicate, k, render(rows[i]), render(one))
			}
		}
	}
}
