package storetest

import (
	"strings"
	"testing"

	"github.com/thriftd/thriftd/engine"
)

// DelRange is a RowMutation deleting the names from start to finish
// (inclusive, empty is open) at ts: columns, super columns (sc nil in a
// Super column family) or subcolumns of sc.
func DelRange(cf, key string, sc, start, finish []byte, ts int64) engine.RowMutation {
	return engine.RowMutation{Key: key, Mutations: []engine.Mutation{{ColumnFamily: cf, SuperColumn: sc, Timestamp: ts, Delete: true,
		Range: &engine.NameRange{Start: start, Finish: finish}}}}
}

func testRangeDeletions(t *testing.T, h Harness) {
	st := h.fresh(t)
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		Apply(t, st, Put("Standard1", "k", n, "v", 10))
	}
	Apply(t, st, DelRange("Standard1", "k", nil, []byte("b"), []byte("d"), 20))
	Expect(t, Get(t, st, "Standard1", "k", nil, All(10)), "a=v@10 e=v@10")
	Expect(t, Get(t, st, "Standard1", "k", nil, engine.Predicate{Reversed: true, Count: 2}), "e=v@10 a=v@10")
	Expect(t, Get(t, st, "Standard1", "k", nil, engine.Predicate{Names: [][]byte{[]byte("a"), []byte("c")}}), "a=v@10")
	// Slices count live columns only.
	Expect(t, Get(t, st, "Standard1", "k", nil, engine.Predicate{Start: []byte("b"), Count: 1}), "e=v@10")
	if n, err := st.Count(ctx, Keyspace, "k", "Standard1", nil); err != nil || n != 2 {
		t.Errorf("Count = %d, %v; want 2", n, err)
	}
	// A later write comes back; one at or before the deletion stays hidden.
	Apply(t, st, Put("Standard1", "k", "c", "new", 21), Put("Standard1", "k", "b", "old", 20), Put("Standard1", "k", "bb", "old", 5))
	Expect(t, Get(t, st, "Standard1", "k", nil, All(10)), "a=v@10 c=new@21 e=v@10")
	// Open bounds, and a row deletion between range deletions.
	Apply(t, st, DelRange("Standard1", "k", nil, nil, []byte("a"), 30))
	Apply(t, st, DelRange("Standard1", "k", nil, []byte("d"), nil, 30))
	Expect(t, Get(t, st, "Standard1", "k", nil, All(10)), "c=new@21")
	Apply(t, st, Del("Standard1", "k", nil, nil, 25))
	Apply(t, st, Put("Standard1", "k", "a", "x", 28), Put("Standard1", "k", "c", "x", 28), Put("Standard1", "k", "e", "x", 31))
	Expect(t, Get(t, st, "Standard1", "k", nil, All(10)), "c=x@28 e=x@31")
	// A range deletion in the same mutation as writes shadows those at or
	// before it, whatever the order.
	Apply(t, st, engine.RowMutation{Key: "m", Mutations: []engine.Mutation{
		{ColumnFamily: "Standard1", Name: []byte("b"), Value: []byte("v"), Timestamp: 5},
		{ColumnFamily: "Standard1", Timestamp: 5, Delete: true, Range: &engine.NameRange{Start: []byte("a"), Finish: []byte("c")}},
		{ColumnFamily: "Standard1", Name: []byte("c"), Value: []byte("v"), Timestamp: 6},
		{ColumnFamily: "Standard1", Name: []byte("d"), Value: []byte("v"), Timestamp: 5},
	}})
	Expect(t, Get(t, st, "Standard1", "m", nil, All(10)), "c=v@6 d=v@5")
	// Other rows and families are untouched.
	Apply(t, st, Put("Standard2", "k", "c", "v", 1), Put("Standard1", "n", "c", "v", 1))
	Expect(t, Get(t, st, "Standard2", "k", nil, All(10)), "c=v@1")
	Expect(t, Get(t, st, "Standard1", "n", nil, All(10)), "c=v@1")

	// LongType names: the range is in the comparator's order.
	for _, v := range []int64{-5, -1, 0, 3, 9} {
		Apply(t, st, engine.RowMutation{Key: "l", Mutations: []engine.Mutation{{ColumnFamily: "StandardLong1", Name: Long(v), Value: []byte("v"), Timestamp: 1}}})
	}
	Apply(t, st, DelRange("StandardLong1", "l", nil, Long(-1), Long(3), 2))
	if got := Get(t, st, "StandardLong1", "l", nil, All(10)); got != "-5=v@1 9=v@1" {
		t.Errorf("LongType range deletion: got %q", got)
	}

	// Super columns: a range of whole super columns, then a range of one
	// super column's subcolumns.
	for _, sc := range []string{"a", "b", "c", "d"} {
		for _, sub := range []int64{1, 2, 3} {
			Apply(t, st, PutSub("Super1", "s", sc, sub, "v", 10))
		}
	}
	Apply(t, st, DelRange("Super1", "s", nil, []byte("b"), []byte("c"), 20))
	Expect(t, Get(t, st, "Super1", "s", nil, All(10)), "a{1=v@10 2=v@10 3=v@10} d{1=v@10 2=v@10 3=v@10}")
	Expect(t, Get(t, st, "Super1", "s", []byte("b"), All(10)), "")
	Apply(t, st, DelRange("Super1", "s", []byte("d"), Long(2), nil, 20))
	Expect(t, Get(t, st, "Super1", "s", nil, All(10)), "a{1=v@10 2=v@10 3=v@10} d{1=v@10}")
	Expect(t, Get(t, st, "Super1", "s", []byte("d"), engine.Predicate{Reversed: true, Count: 5}), "1=v@10")
	Expect(t, Get(t, st, "Super1", "s", nil, engine.Predicate{Names: [][]byte{[]byte("c"), []byte("d")}}), "d{1=v@10}")
	if n, err := st.Count(ctx, Keyspace, "s", "Super1", nil); err != nil || n != 2 {
		t.Errorf("Count of super columns = %d, %v; want 2", n, err)
	}
	if n, err := st.Count(ctx, Keyspace, "s", "Super1", []byte("d")); err != nil || n != 1 {
		t.Errorf("Count of d = %d, %v; want 1", n, err)
	}
	Apply(t, st, PutSub("Super1", "s", "c", 9, "new", 21), PutSub("Super1", "s", "c", 8, "old", 19), PutSub("Super1", "s", "d", 3, "new", 21))
	Expect(t, Get(t, st, "Super1", "s", nil, All(10)), "a{1=v@10 2=v@10 3=v@10} c{9=new@21} d{1=v@10 3=new@21}")
	// A super column deletion later than the range of its subcolumns.
	Apply(t, st, Del("Super1", "s", []byte("d"), nil, 22))
	Apply(t, st, PutSub("Super1", "s", "d", 2, "again", 23))
	Expect(t, Get(t, st, "Super1", "s", []byte("d"), All(10)), "2=again@23")

	// Range scans see the deletions; a row whose columns are all deleted
	// by a range is still listed (a range ghost).
	Apply(t, st, Put("Standard1", "z", "a", "v", 1))
	Apply(t, st, DelRange("Standard1", "z", nil, nil, nil, 2))
	rows, err := st.Range(ctx, Keyspace, engine.TokenRange{StartInclusive: true}, engine.Query{ColumnFamily: "Standard1", Predicate: All(10)}, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, r.Key+":"+Render(r))
	}
	Expect(t, strings.Join(out, " "), "k:c=x@28 e=x@31 m:c=v@6 d=v@5 n:c=v@1 z:")
	many, err := st.GetMany(ctx, Keyspace, []string{"z", "k"}, engine.Query{ColumnFamily: "Standard1", Predicate: All(10)})
	if err != nil {
		t.Fatal(err)
	}
	if Render(many[0]) != "" || Render(many[1]) != "c=x@28 e=x@31" {
		t.Errorf("GetMany = %q, %q", Render(many[0]), Render(many[1]))
	}
}
