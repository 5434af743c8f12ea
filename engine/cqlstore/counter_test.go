package cqlstore

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
	"github.com/thriftd/thriftd/marshal"
)

// counterTotals renders a row of counters as name=total, super columns as
// sc{name=total ...}.
func counterTotals(t *testing.T, row engine.Row) string {
	t.Helper()
	cols := func(cs []engine.Column) string {
		s := ""
		for i, c := range cs {
			v, err := engine.DecodeCounter(c.Value)
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 {
				s += " "
			}
			s += fmt.Sprintf("%s=%d", c.Name, v)
		}
		return s
	}
	if row.SuperColumns != nil {
		s := ""
		for i, sc := range row.SuperColumns {
			if i > 0 {
				s += " "
			}
			s += fmt.Sprintf("%s{%s}", sc.Name, cols(sc.Columns))
		}
		return s
	}
	return cols(row.Columns)
}

// TestCounterTables: counter families are CQL counter tables; adds,
// removals and every read of the store, and 32 writers adding to the same
// counters end at the exact sum.
func TestCounterTables(t *testing.T) {
	base := storetest.TestSchema(t, "RandomPartitioner")
	st, o := openFresh(t, base, 864000)
	counter, err := marshal.Parse("CounterColumnType")
	if err != nil {
		t.Fatal(err)
	}
	hits := dynamic(t, "Hits", "UTF8Type", "UTF8Type", "BytesType")
	hits.DefaultValidator = counter
	sup := dynamic(t, "SupHits", "BytesType", "UTF8Type", "BytesType")
	sup.DefaultValidator = counter
	sup.Super, sup.SubComparator = true, cmp(t, "UTF8Type")
	change(t, st, with19(base, "C", hits, sup), "1")
	ks := keyspaceName(o.Prefix, "C")
	for table, want := range map[string]string{
		"Hits":    "column1 text clustering asc, key text partition_key, value counter regular",
		"SupHits": "column1 blob clustering asc, key blob partition_key, super_column blob clustering asc, value counter regular",
	} {
		if got := columnTypes(t, st.session, ks, table); got != want {
			t.Errorf("%s: columns\n %s\nwant\n %s", table, got, want)
		}
	}
	ctx := context.Background()
	add := func(cf, key string, sc []byte, name string, d int64) engine.CounterMutation {
		return engine.CounterMutation{ColumnFamily: cf, SuperColumn: sc, Name: []byte(name), Delta: d}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(st.ApplyCounters(ctx, "C", []engine.CounterRow{
		{Key: "k1", Mutations: []engine.CounterMutation{add("Hits", "k1", nil, "a", 5), add("Hits", "k1", nil, "a", -2), add("Hits", "k1", nil, "b", 7)}},
		{Key: "k2", Mutations: []engine.CounterMutation{add("Hits", "k2", nil, "a", 1), add("SupHits", "k2", []byte("x"), "s", 3), add("SupHits", "k2", []byte("y"), "s", 4)}},
	}))
	get := func(key string, q engine.Query) string {
		t.Helper()
		row, err := st.Get(ctx, "C", key, q)
		must(err)
		return counterTotals(t, row)
	}
	all := engine.Predicate{Count: 100}
	var rows []engine.Row
	for _, c := range []struct {
		got, want string
	}{
		{get("k1", engine.Query{ColumnFamily: "Hits", Predicate: all}), "a=3 b=7"},
		{get("k1", engine.Query{ColumnFamily: "Hits", Predicate: engine.Predicate{Count: 1, Reversed: true}}), "b=7"},
		{get("k1", engine.Query{ColumnFamily: "Hits", Predicate: engine.Predicate{Names: [][]byte{[]byte("b"), []byte("zz")}, Count: 2}}), "b=7"},
		{get("k2", engine.Query{ColumnFamily: "SupHits", Predicate: all}), "x{s=3} y{s=4}"},
		{get("k2", engine.Query{ColumnFamily: "SupHits", Predicate: engine.Predicate{Count: 1, Reversed: true}}), "y{s=4}"},
		{get("k2", engine.Query{ColumnFamily: "SupHits", SuperColumn: []byte("x"), Predicate: all}), "s=3"},
	} {
		if c.got != c.want {
			t.Errorf("read %q, want %q", c.got, c.want)
		}
	}
	rows, err = st.Range(ctx, "C", engine.TokenRange{StartInclusive: true}, engine.Query{ColumnFamily: "Hits", Predicate: all}, 10)
	must(err)
	byKey := map[string]string{}
	for _, r := range rows {
		byKey[r.Key] = counterTotals(t, r)
	}
	if byKey["k1"] != "a=3 b=7" || byKey["k2"] != "a=1" || len(byKey) != 2 {
		t.Errorf("range read %v", byKey)
	}
	n, err := st.Count(ctx, "C", "k1", "Hits", nil)
	must(err)
	if n != 2 {
		t.Errorf("count %d, want 2", n)
	}

	must(st.ApplyCounters(ctx, "C", []engine.CounterRow{
		{Key: "k1", Mutations: []engine.CounterMutation{{ColumnFamily: "Hits", Name: []byte("a"), Delete: true}}},
		{Key: "k2", Mutations: []engine.CounterMutation{{ColumnFamily: "SupHits", SuperColumn: []byte("x"), Delete: true}}},
	}))
	if got := get("k1", engine.Query{ColumnFamily: "Hits", Predicate: all}); got != "b=7" {
		t.Errorf("after removing a: %q", got)
	}
	if got := get("k2", engine.Query{ColumnFamily: "SupHits", Predicate: all}); got != "y{s=4}" {
		t.Errorf("after removing super column x: %q", got)
	}

	const writers, adds = 32, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range adds {
				if err := st.ApplyCounters(ctx, "C", []engine.CounterRow{{Key: "hot", Mutations: []engine.CounterMutation{
					add("Hits", "hot", nil, "sum", int64(w+1)), add("Hits", "hot", nil, "adds", 1)}}}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	want := fmt.Sprintf("adds=%d sum=%d", writers*adds, adds*writers*(writers+1)/2)
	got := get("hot", engine.Query{ColumnFamily: "Hits", Predicate: all})
	if got != want {
		t.Errorf("after %d concurrent adds: %s, want %s", writers*adds*2, got, want)
	}
	t.Logf("%d adds acknowledged from %d writers; totals %s (expected %s)", writers*adds*2, writers, got, want)
}
