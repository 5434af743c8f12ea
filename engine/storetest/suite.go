package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/engine"
)

// Run runs every contract test of engine.Store against the harness's
// backend, each as a subtest on a fresh store.
func Run(t *testing.T, h Harness) {
	tests := []struct {
		name string
		fn   func(*testing.T, Harness)
	}{
		{"Reconciliation", testReconciliation},
		{"RowTombstoneShadowsAndResurrects", testRowTombstoneShadowsAndResurrects},
		{"MinTimestampIsInvisible", testMinTimestampIsInvisible},
		{"LastRowDeletionInAMutationWins", testLastRowDeletionInAMutationWins},
		{"InsertAndDeleteInOneMutation", testInsertAndDeleteInOneMutation},
		{"Slices", testSlices},
		{"LongTypeOrder", testLongTypeOrder},
		{"LongestNames", testLongestNames},
		{"SuperColumns", testSuperColumns},
		{"RangeDeletions", testRangeDeletions},
		{"RangeGhostsAndBounds", testRangeGhostsAndBounds},
		{"RangeIsInTokenOrder", testRangeIsInTokenOrder},
		{"UnknownColumnFamilyWritesNothing", testUnknownColumnFamilyWritesNothing},
		{"GetManyAnswersAsGetDoes", testGetManyAnswersAsGetDoes},
		{"Splits", testSplits},
		{"ClosedStoreRefuses", testClosedStoreRefuses},
		{"StoreMatchesModel", testStoreMatchesModel},
		{"ManyMutationsMatchModel", testManyMutationsMatchModel},
		{"ClockedWritesMatchModel", testClockedWritesMatchModel},
		{"ExpiringColumns", testExpiringColumns},
		{"ExpiringColumnsInWideWrites", testExpiringColumnsInWideWrites},
		{"ExpiringMatchesModel", testExpiringMatchesModel},
	}
	// Each test opens stores of its own, so they run in parallel: on a
	// Cassandra node most of a test's time is spent waiting for it.
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, h)
		})
	}
}

func (h Harness) open(t *testing.T, part string) engine.Store {
	t.Helper()
	return h.Open(t, TestSchema(t, part))
}

// fresh is a store on the order-preserving partitioner, whose row order
// the tests can predict.
func (h Harness) fresh(t *testing.T) engine.Store { return h.open(t, "OrderPreservingPartitioner") }

func testReconciliation(t *testing.T, h Harness) {
	st := h.fresh(t)
	Apply(t, st, Put("Standard1", "k", "a", "old", 5))
	Apply(t, st, Put("Standard1", "k", "a", "older", 4))
	Expect(t, Get(t, st, "Standard1", "k", nil, All(10)), "a=old@5")
	Apply(t, st, Put("Standard1", "k", "a", "new", 6))
	Expect(t, Get(t, st, "Standard1", "k", nil, All(10)), "a=new@6")
	// Equal timestamps: the greater value wins, whatever the order.
	Apply(t, st, Put("Standard1", "k", "a", "abc", 6))
	Expect(t, Get(t, st, "Standard1", "k", nil, All(10)), "a=new@6")
	Apply(t, st, Put("Standard1", "k", "a", "zzz", 6))
	Expect(t, Get(t, st, "Standard1", "k", nil, All(10)), "a=zzz@6")
	// Equal timestamps: a tombstone beats a live value...
	Apply(t, st, Del("Standard1", "k", nil, []byte("a"), 6))
	Expect(t, Get(t, st, "Standard1", "k", nil, All(10)), "")
	// ...and a live value at the same timestamp does not resurrect it.
	Apply(t, st, Put("Standard1", "k", "a", "zzzz", 6))
	Expect(t, Get(t, st, "Standard1", "k", nil, All(10)), "")
	Apply(t, st, Put("Standard1", "k", "a", "back", 7))
	Expect(t, Get(t, st, "Standard1", "k", nil, All(10)), "a=back@7")
	// Values compare as unsigned bytes.
	Apply(t, st, Put("Standard1", "k", "b", "\x7f", 1), Put("Standard1", "k", "b", "\x80", 1))
	Expect(t, Get(t, st, "Standard1", "k", nil, engine.Predicate{Names: [][]byte{[]byte("b")}}), "b=\x80@1")
	// An empty value is a value.
	Apply(t, st, Put("Standard1", "k", "c", "", 1))
	Expect(t, Get(t, st, "Standard1", "k", nil, engine.Predicate{Names: [][]byte{[]byte("c")}}), "c=@1")
}

func testRowTombstoneShadowsAndResurrects(t *testing.T, h Harness) {
	st := h.fresh(t)
	Apply(t, st, Put("Standard1", "k", "a", "1", 1), Put("Standard1", "k", "b", "1", 3))
	Apply(t, st, Del("Standard1", "k", nil, nil, 2))
	Expect(t, Get(t, st, "Standard1", "k", nil, All(10)), "b=1@3")
	Apply(t, st, Put("Standard1", "k", "a", "2", 2))
	Expect(t, Get(t, st, "Standard1", "k", nil, All(10)), "b=1@3")
	Apply(t, st, Put("Standard1", "k", "a", "3", 3))
	Expect(t, Get(t, st, "Standard1", "k", nil, All(10)), "a=3@3 b=1@3")
	// An older row deletion does not lower the tombstone.
	Apply(t, st, Del("Standard1", "k", nil, nil, 1))
	Apply(t, st, Put("Standard1", "k", "c", "x", 2))
	Expect(t, Get(t, st, "Standard1", "k", nil, All(10)), "a=3@3 b=1@3")
	// The deletion applies to that column family only.
	Apply(t, st, Put("Standard2", "k", "a", "other", 1))
	Expect(t, Get(t, st, "Standard2", "k", nil, All(10)), "a=other@1")
}

func testMinTimestampIsInvisible(t *testing.T, h Harness) {
	st := h.fresh(t)
	Apply(t, st, Put("Standard1", "k", "a", "v", math.MinInt64), Put("Standard1", "k", "b", "v", math.MinInt64+1))
	Expect(t, Get(t, st, "Standard1", "k", nil, All(10)), fmt.Sprintf("b=v@%d", int64(math.MinInt64+1)))
}

func testLastRowDeletionInAMutationWins(t *testing.T, h Harness) {
	st := h.fresh(t)
	Apply(t, st, Put("Standard1", "k", "a", "v", 7))
	Apply(t, st, engine.RowMutation{Key: "k", Mutations: []engine.Mutation{
		{ColumnFamily: "Standard1", Timestamp: 10, Delete: true},
		{ColumnFamily: "Standard1", Timestamp: 5, Delete: true},
	}})
	Expect(t, Get(t, st, "Standard1", "k", nil, All(10)), "a=v@7")
}

func testInsertAndDeleteInOneMutation(t *testing.T, h Harness) {
	st := h.fresh(t)
	// Order does not matter: the deletion, at the same timestamp, wins.
	Apply(t, st, engine.RowMutation{Key: "k", Mutations: []engine.Mutation{
		{ColumnFamily: "Standard1", Name: []byte("a"), Value: []byte("v"), Timestamp: 5},
		{ColumnFamily: "Standard1", Timestamp: 5, Delete: true},
		{ColumnFamily: "Standard1", Name: []byte("b"), Value: []byte("v"), Timestamp: 6},
	}})
	Expect(t, Get(t, st, "Standard1", "k", nil, All(10)), "b=v@6")
	// One row mutation across column families.
	Apply(t, st, engine.RowMutation{Key: "k", Mutations: []engine.Mutation{
		{ColumnFamily: "Standard1", Name: []byte("c"), Value: []byte("v"), Timestamp: 7},
		{ColumnFamily: "Standard2", Name: []byte("c"), Value: []byte("w"), Timestamp: 7},
		{ColumnFamily: "Super1", SuperColumn: []byte("sc"), Name: Long(1), Value: []byte("x"), Timestamp: 7},
	}})
	Expect(t, Get(t, st, "Standard1", "k", nil, All(10)), "b=v@6 c=v@7")
	Expect(t, Get(t, st, "Standard2", "k", nil, All(10)), "c=w@7")
	Expect(t, Get(t, st, "Super1", "k", nil, All(10)), "sc{1=x@7}")
}

func testSlices(t *testing.T, h Harness) {
	st := h.fresh(t)
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		Apply(t, st, Put("Standard1", "k", n, n, 1))
	}
	Apply(t, st, Del("Standard1", "k", nil, []byte("c"), 2))
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
		Expect(t, Get(t, st, "Standard1", "k", nil, tc.p), tc.want)
	}
	Expect(t, Get(t, st, "Standard1", "missing", nil, All(10)), "")
	// Rows next to each other do not bleed into one another.
	Apply(t, st, Put("Standard1", "j", "z", "z", 1), Put("Standard1", "l", "0", "0", 1))
	Expect(t, Get(t, st, "Standard1", "k", nil, engine.Predicate{Reversed: true, Count: 1}), "e=e@1")
	Expect(t, Get(t, st, "Standard1", "k", nil, engine.Predicate{Count: 100}), "a=a@1 b=b@1 d=d@1 e=e@1")
	n, err := st.Count(ctx, Keyspace, "k", "Standard1", nil)
	if err != nil || n != 4 {
		t.Errorf("Count = %d, %v; want 4", n, err)
	}
	if n, err := st.Count(ctx, Keyspace, "missing", "Standard1", nil); err != nil || n != 0 {
		t.Errorf("Count of a missing row = %d, %v; want 0", n, err)
	}
}

func testLongTypeOrder(t *testing.T, h Harness) {
	st := h.fresh(t)
	for _, v := range []int64{5, -1, 1 << 40, -1 << 40, 0} {
		Apply(t, st, engine.RowMutation{Key: "k", Mutations: []engine.Mutation{{ColumnFamily: "StandardLong1", Name: Long(v), Value: []byte("v"), Timestamp: 1}}})
	}
	Expect(t, Get(t, st, "StandardLong1", "k", nil, All(10)), "-1099511627776=v@1 -1=v@1 0=v@1 5=v@1 1099511627776=v@1")
	Expect(t, Get(t, st, "StandardLong1", "k", nil, engine.Predicate{Start: Long(0), Finish: Long(-1), Reversed: true, Count: 10}), "0=v@1 -1=v@1")
}

// Column names and keys may be as long as 0.6 allowed: 65,535 bytes. A super
// column name and a subcolumn name are checked at half that together,
// since Cassandra limits their sum (docs/cassandra.md, Differences).
func testLongestNames(t *testing.T, h Harness) {
	st := h.fresh(t)
	long := strings.Repeat("x", 1<<16-1)
	Apply(t, st, Put("Standard1", "k", long, "v", 1))
	sc := strings.Repeat("s", 1<<15)
	Apply(t, st, engine.RowMutation{Key: "k", Mutations: []engine.Mutation{{ColumnFamily: "Super1", SuperColumn: []byte(sc), Name: Long(1), Value: []byte("v"), Timestamp: 1}}})
	r, err := st.Get(ctx, Keyspace, "k", engine.Query{ColumnFamily: "Standard1", Predicate: engine.Predicate{Names: [][]byte{[]byte(long)}}})
	if err != nil || len(r.Columns) != 1 || string(r.Columns[0].Name) != long {
		t.Errorf("longest column name: %d columns, %v", len(r.Columns), err)
	}
	r, err = st.Get(ctx, Keyspace, "k", engine.Query{ColumnFamily: "Super1", Predicate: All(10)})
	if err != nil || len(r.SuperColumns) != 1 || string(r.SuperColumns[0].Name) != sc {
		t.Errorf("longest super column name: %d super columns, %v", len(r.SuperColumns), err)
	}
	// So may keys (under the order-preserving partitioner of fresh).
	longKey := strings.Repeat("k", 1<<16-1)
	Apply(t, st, Put("Standard1", longKey, "c", "v", 1))
	Expect(t, Get(t, st, "Standard1", longKey, nil, All(1)), "c=v@1")
	rows, err := st.Range(ctx, Keyspace, engine.TokenRange{Start: TestSchema(t, "OrderPreservingPartitioner").Partitioner.Token("k"), End: nil}, engine.Query{ColumnFamily: "Standard1", Predicate: All(1)}, 10)
	if err != nil || len(rows) != 1 || rows[0].Key != longKey {
		t.Errorf("range over the longest key: %d rows, %v", len(rows), err)
	}
}

func testSuperColumns(t *testing.T, h Harness) {
	st := h.fresh(t)
	Apply(t, st, PutSub("Super1", "k", "sc1", 4, "v4", 1))
	Apply(t, st, PutSub("Super1", "k", "sc2", 5, "v5", 1), PutSub("Super1", "k", "sc2", 6, "v6", 1), PutSub("Super1", "k", "sc2", -1, "vm", 3))
	Apply(t, st, PutSub("Super1", "k", "sc3", 7, "v7", 1))
	Expect(t, Get(t, st, "Super1", "k", nil, All(10)), "sc1{4=v4@1} sc2{-1=vm@3 5=v5@1 6=v6@1} sc3{7=v7@1}")
	// Reversed: the list of super columns is reversed, never their subcolumns.
	Expect(t, Get(t, st, "Super1", "k", nil, engine.Predicate{Reversed: true, Count: 2}), "sc3{7=v7@1} sc2{-1=vm@3 5=v5@1 6=v6@1}")
	Expect(t, Get(t, st, "Super1", "k", nil, engine.Predicate{Start: []byte("sc2"), Reversed: true, Count: 5}), "sc2{-1=vm@3 5=v5@1 6=v6@1} sc1{4=v4@1}")
	Expect(t, Get(t, st, "Super1", "k", nil, engine.Predicate{Start: []byte("sc2"), Finish: []byte("sc2"), Count: 5}), "sc2{-1=vm@3 5=v5@1 6=v6@1}")
	Expect(t, Get(t, st, "Super1", "k", nil, engine.Predicate{Names: [][]byte{[]byte("sc3"), []byte("nope"), []byte("sc1")}}), "sc1{4=v4@1} sc3{7=v7@1}")
	Expect(t, Get(t, st, "Super1", "k", []byte("sc2"), engine.Predicate{Start: Long(0), Count: 10}), "5=v5@1 6=v6@1")
	Expect(t, Get(t, st, "Super1", "k", []byte("sc2"), engine.Predicate{Reversed: true, Count: 2}), "6=v6@1 5=v5@1")
	Expect(t, Get(t, st, "Super1", "k", []byte("nope"), All(10)), "")
	if n, err := st.Count(ctx, Keyspace, "k", "Super1", []byte("sc2")); err != nil || n != 3 {
		t.Errorf("Count of sc2 = %d, %v; want 3", n, err)
	}

	// A super column tombstone shadows the subcolumns written at or before it.
	Apply(t, st, Del("Super1", "k", []byte("sc2"), nil, 2))
	Expect(t, Get(t, st, "Super1", "k", nil, All(10)), "sc1{4=v4@1} sc2{-1=vm@3} sc3{7=v7@1}")
	// A subcolumn deletion.
	Apply(t, st, Del("Super1", "k", []byte("sc2"), Long(-1), 3))
	Expect(t, Get(t, st, "Super1", "k", nil, All(10)), "sc1{4=v4@1} sc3{7=v7@1}")
	// Super columns with nothing live do not use up the count.
	Expect(t, Get(t, st, "Super1", "k", nil, All(2)), "sc1{4=v4@1} sc3{7=v7@1}")
	n, err := st.Count(ctx, Keyspace, "k", "Super1", nil)
	if err != nil || n != 2 {
		t.Errorf("Count = %d, %v; want 2", n, err)
	}
	// A row deletion shadows subcolumns too.
	Apply(t, st, Del("Super1", "k", nil, nil, 1))
	Expect(t, Get(t, st, "Super1", "k", nil, All(10)), "")
	Apply(t, st, PutSub("Super1", "k", "sc1", 9, "again", 2))
	Expect(t, Get(t, st, "Super1", "k", nil, All(10)), "sc1{9=again@2}")
}

func testRangeGhostsAndBounds(t *testing.T, h Harness) {
	s := TestSchema(t, "OrderPreservingPartitioner")
	st := h.Open(t, s)
	p := s.Partitioner
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		Apply(t, st, Put("Standard1", k, "x", k, 1))
	}
	Apply(t, st, Put("Standard2", "zz", "x", "other family", 1))
	Apply(t, st, Del("Standard1", "b", nil, nil, 2))
	// A row that only ever held a deletion is a ghost too.
	Apply(t, st, Del("Standard1", "f", nil, []byte("x"), 2))
	keys := func(b engine.TokenRange, max int) string {
		rows, err := st.Range(ctx, Keyspace, b, engine.Query{ColumnFamily: "Standard1", Predicate: All(10)}, max)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.Key+":"+Render(r))
		}
		return strings.Join(out, " ")
	}
	Expect(t, keys(engine.TokenRange{StartInclusive: true}, 100), "a:x=a@1 b: c:x=c@1 d:x=d@1 e:x=e@1 f:")
	Expect(t, keys(engine.TokenRange{Start: p.Token("b"), StartInclusive: true, End: p.Token("d")}, 100), "b: c:x=c@1 d:x=d@1")
	Expect(t, keys(engine.TokenRange{Start: p.Token("b"), End: p.Token("d")}, 100), "c:x=c@1 d:x=d@1")
	Expect(t, keys(engine.TokenRange{Start: p.Token("c")}, 100), "d:x=d@1 e:x=e@1 f:")
	Expect(t, keys(engine.TokenRange{StartInclusive: true}, 2), "a:x=a@1 b:")
	Expect(t, keys(engine.TokenRange{Start: p.Token("bb"), StartInclusive: true, End: p.Token("bc")}, 100), "")
	// A Super column family's rows, read at the subcolumn level.
	Apply(t, st, PutSub("Super1", "s1", "sc", 1, "v", 1), PutSub("Super1", "s2", "other", 1, "v", 1))
	rows, err := st.Range(ctx, Keyspace, engine.TokenRange{StartInclusive: true}, engine.Query{ColumnFamily: "Super1", SuperColumn: []byte("sc"), Predicate: All(10)}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || Render(rows[0]) != "1=v@1" || rows[1].Key != "s2" || Render(rows[1]) != "" {
		t.Errorf("super range = %+v", rows)
	}
}

// Rows come back in the partitioner's token order, whatever the backend
// keeps them in.
func testRangeIsInTokenOrder(t *testing.T, h Harness) {
	for _, part := range []string{"RandomPartitioner", "Murmur3Partitioner", "ByteOrderedPartitioner", "OrderPreservingPartitioner", "CollatingOrderPreservingPartitioner"} {
		t.Run(part, func(t *testing.T) {
			s := TestSchema(t, part)
			st := h.Open(t, s)
			var keys []string
			var rows []engine.RowMutation
			for i := 0; i < 200; i++ {
				k := fmt.Sprintf("key%d", i)
				keys = append(keys, k)
				rows = append(rows, Put("Standard1", k, "c", "v", 1))
			}
			rows = append(rows, Put("Standard1", "\xff\x00binary", "c", "v", 1))
			keys = append(keys, "\xff\x00binary")
			Apply(t, st, rows...)
			got, err := st.Range(ctx, Keyspace, engine.TokenRange{StartInclusive: true}, engine.Query{ColumnFamily: "Standard1", Predicate: All(1)}, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(keys) {
				t.Fatalf("got %d rows, want %d", len(got), len(keys))
			}
			for i := 1; i < len(got); i++ {
				if bytes.Compare(s.Partitioner.Token(got[i-1].Key), s.Partitioner.Token(got[i].Key)) >= 0 {
					t.Fatalf("rows %q and %q are not in token order", got[i-1].Key, got[i].Key)
				}
			}
			for _, r := range got {
				if Render(r) != "c=v@1" {
					t.Fatalf("row %q = %q", r.Key, Render(r))
				}
			}
			// Paging by token, as clients do: start after the last token seen.
			var paged []string
			b := engine.TokenRange{StartInclusive: true}
			for {
				page, err := st.Range(ctx, Keyspace, b, engine.Query{ColumnFamily: "Standard1", Predicate: All(1)}, 7)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range page {
					paged = append(paged, r.Key)
				}
				if len(page) < 7 {
					break
				}
				b = engine.TokenRange{Start: s.Partitioner.Token(page[len(page)-1].Key)}
			}
			if len(paged) != len(got) {
				t.Fatalf("paging by token saw %d rows, want %d", len(paged), len(got))
			}
			for i := range paged {
				if paged[i] != got[i].Key {
					t.Fatalf("paged row %d is %q, want %q", i, paged[i], got[i].Key)
				}
			}
		})
	}
}

func testUnknownColumnFamilyWritesNothing(t *testing.T, h Harness) {
	st := h.fresh(t)
	err := st.Apply(ctx, Keyspace, []engine.RowMutation{Put("Standard1", "k1", "a", "v", 1), Put("NoSuchCF", "k2", "a", "v", 1)})
	if err == nil {
		t.Fatal("expected an error for an unknown column family")
	}
	Expect(t, Get(t, st, "Standard1", "k1", nil, All(10)), "")
	if !h.AtomicCalls {
		t.Logf("this backend applies each row of a call atomically, not the whole call (%s); an unknown column family is still refused before anything is written", h.Limits)
	}
}

func testGetManyAnswersAsGetDoes(t *testing.T, h Harness) {
	st := h.open(t, "RandomPartitioner")
	var rows []engine.RowMutation
	for i := 0; i < 30; i++ {
		k := fmt.Sprintf("k%d", i)
		rows = append(rows, Put("Standard1", k, "a", k, 1), Put("Standard1", k, "b", k, 2), PutSub("Super1", k, "sc", int64(i), k, 1))
	}
	Apply(t, st, rows...)
	keys := []string{"k7", "missing", "k3", "k29", "k7", "k0"}
	for _, q := range []engine.Query{
		{ColumnFamily: "Standard1", Predicate: All(10)},
		{ColumnFamily: "Standard1", Predicate: engine.Predicate{Reversed: true, Count: 1}},
		{ColumnFamily: "Standard1", Predicate: engine.Predicate{Names: [][]byte{[]byte("b")}}},
		{ColumnFamily: "Super1", Predicate: All(10)},
	} {
		got, err := st.GetMany(ctx, Keyspace, keys, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(keys) {
			t.Fatalf("%d rows for %d keys", len(got), len(keys))
		}
		for i, k := range keys {
			one, err := st.Get(ctx, Keyspace, k, q)
			if err != nil {
				t.Fatal(err)
			}
			if got[i].Key != k || Render(got[i]) != Render(one) {
				t.Errorf("%+v key %s: GetMany %q, Get %q", q.Predicate, k, Render(got[i]), Render(one))
			}
		}
	}
}

func testSplits(t *testing.T, h Harness) {
	s := TestSchema(t, "OrderPreservingPartitioner")
	st := h.Open(t, s)
	p := s.Partitioner
	var rows []engine.RowMutation
	for i := 0; i < 10; i++ {
		rows = append(rows, Put("Standard1", fmt.Sprintf("k%d", i), "c", "v", 1))
	}
	rows = append(rows, Put("Standard2", "k45", "c", "v", 1))
	Apply(t, st, rows...)
	render := func(ts []dht.Token) string {
		var out []string
		for _, t := range ts {
			out = append(out, p.TokenString(t))
		}
		return strings.Join(out, " ")
	}
	got, err := st.Splits(ctx, "", "", engine.TokenRange{StartInclusive: true}, 3)
	if err != nil {
		t.Fatal(err)
	}
	// Rows of every column family count: k0 k1 k2 | k3 k4 k45 | k5 k6 k7 | k8 k9.
	Expect(t, render(got), "k2 k45 k7")
	got, err = st.Splits(ctx, "", "", engine.TokenRange{Start: p.Token("k3"), End: p.Token("k8")}, 2)
	if err != nil {
		t.Fatal(err)
	}
	Expect(t, render(got), "k45 k6")
	// One family's rows only: k0 k1 k2 | k3 k4 k5 | k6 k7 k8 | k9.
	got, err = st.Splits(ctx, Keyspace, "Standard1", engine.TokenRange{StartInclusive: true}, 3)
	if err != nil {
		t.Fatal(err)
	}
	Expect(t, render(got), "k2 k5 k8")
	got, err = st.Splits(ctx, Keyspace, "Standard2", engine.TokenRange{StartInclusive: true}, 1)
	if err != nil {
		t.Fatal(err)
	}
	Expect(t, render(got), "") // its one row: nothing to cut
	got, err = st.Splits(ctx, "NoSuchKeyspace", "", engine.TokenRange{StartInclusive: true}, 1)
	if err != nil {
		t.Fatal(err)
	}
	Expect(t, render(got), "")
}

func testClosedStoreRefuses(t *testing.T, h Harness) {
	st := h.fresh(t)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, Keyspace, "k", engine.Query{ColumnFamily: "Standard1", Predicate: All(1)}); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("Get after Close: %v", err)
	}
	if err := st.Apply(ctx, Keyspace, []engine.RowMutation{Put("Standard1", "k", "a", "v", 1)}); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("Apply after Close: %v", err)
	}
	if err := st.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
