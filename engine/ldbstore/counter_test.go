package ldbstore

import (
	"fmt"
	"sync"
	"testing"

	"github.com/thriftd/thriftd/engine"
)

func addTo(cf, key string, sc []byte, name []byte, delta int64) engine.CounterRow {
	return engine.CounterRow{Key: key, Mutations: []engine.CounterMutation{{ColumnFamily: cf, SuperColumn: sc, Name: name, Delta: delta}}}
}

func applyCounters(t testing.TB, st *Store, rows ...engine.CounterRow) {
	t.Helper()
	if err := st.ApplyCounters(ctx, ks, rows); err != nil {
		t.Fatal(err)
	}
}

// totals reads every counter of a row (of one super column, when sc is
// set) as name=total.
func totals(t testing.TB, st *Store, cf, key string, sc []byte) map[string]int64 {
	t.Helper()
	row, err := st.Get(ctx, ks, key, engine.Query{ColumnFamily: cf, SuperColumn: sc, Predicate: all(1000)})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, c := range row.Columns {
		v, err := engine.DecodeCounter(c.Value)
		if err != nil {
			t.Fatal(err)
		}
		out[string(c.Name)] = v
	}
	return out
}

func TestCountersAddUp(t *testing.T) {
	st := newStore(t)
	applyCounters(t, st, addTo("Standard1", "k", nil, []byte("a"), 5))
	applyCounters(t, st, addTo("Standard1", "k", nil, []byte("a"), -7), addTo("Standard1", "k", nil, []byte("b"), 1))
	// Several adds to one counter in one row are all counted.
	applyCounters(t, st, engine.CounterRow{Key: "k", Mutations: []engine.CounterMutation{
		{ColumnFamily: "Standard1", Name: []byte("b"), Delta: 10},
		{ColumnFamily: "Standard1", Name: []byte("b"), Delta: 100},
	}})
	got := totals(t, st, "Standard1", "k", nil)
	if got["a"] != -2 || got["b"] != 111 || len(got) != 2 {
		t.Fatalf("totals %v; want a=-2 b=111", got)
	}
	applyCounters(t, st, addTo("Super1", "k", []byte("sc"), long(1), 3), addTo("Super1", "k", []byte("sc"), long(1), 4))
	sup := totals(t, st, "Super1", "k", []byte("sc"))
	if sup[string(long(1))] != 7 {
		t.Fatalf("subcounter %v; want 7", sup)
	}
}

// A removed counter reads as absent, and an add after the removal starts
// it again from zero, even within the same call.
func TestCounterRemovalThenAdd(t *testing.T) {
	st := newStore(t)
	applyCounters(t, st, addTo("Standard1", "k", nil, []byte("a"), 5), addTo("Standard1", "k", nil, []byte("b"), 6))
	applyCounters(t, st, engine.CounterRow{Key: "k", Mutations: []engine.CounterMutation{{ColumnFamily: "Standard1", Name: []byte("a"), Delete: true}}})
	if got := totals(t, st, "Standard1", "k", nil); len(got) != 1 || got["b"] != 6 {
		t.Fatalf("after removing a: %v", got)
	}
	applyCounters(t, st, addTo("Standard1", "k", nil, []byte("a"), 2))
	if got := totals(t, st, "Standard1", "k", nil); got["a"] != 2 {
		t.Fatalf("an add after the removal: %v; want a=2", got)
	}
	applyCounters(t, st, engine.CounterRow{Key: "k", Mutations: []engine.CounterMutation{
		{ColumnFamily: "Standard1", Name: []byte("b"), Delta: 1},
		{ColumnFamily: "Standard1", Delete: true},
		{ColumnFamily: "Standard1", Name: []byte("b"), Delta: 9},
	}})
	if got := totals(t, st, "Standard1", "k", nil); len(got) != 1 || got["b"] != 9 {
		t.Fatalf("add, row removal, add in one call: %v; want b=9 alone", got)
	}
	applyCounters(t, st, addTo("Super1", "k", []byte("x"), long(1), 1), addTo("Super1", "k", []byte("y"), long(1), 1))
	applyCounters(t, st, engine.CounterRow{Key: "k", Mutations: []engine.CounterMutation{{ColumnFamily: "Super1", SuperColumn: []byte("x"), Delete: true}}})
	if got := totals(t, st, "Super1", "k", []byte("x")); len(got) != 0 {
		t.Fatalf("removed super column x: %v", got)
	}
	if got := totals(t, st, "Super1", "k", []byte("y")); got[string(long(1))] != 1 {
		t.Fatalf("super column y: %v", got)
	}
}

// 32 writers adding to the same counters end at the exact sum.
func TestConcurrentAddsAreExact(t *testing.T) {
	st := newStore(t)
	const writers, adds = 32, 200
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range adds {
				row := addTo("Standard1", "hot", nil, []byte("c"), int64(w+1))
				row.Mutations = append(row.Mutations, engine.CounterMutation{ColumnFamily: "Standard1", Name: []byte(fmt.Sprintf("c%d", i%4)), Delta: 1})
				if err := st.ApplyCounters(ctx, ks, []engine.CounterRow{row}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	got := totals(t, st, "Standard1", "hot", nil)
	want := int64(adds * writers * (writers + 1) / 2)
	if got["c"] != want {
		t.Errorf("hot counter = %d, want %d", got["c"], want)
	}
	for i := range 4 {
		if n := got[fmt.Sprintf("c%d", i)]; n != writers*adds/4 {
			t.Errorf("c%d = %d, want %d", i, n, writers*adds/4)
		}
	}
	t.Logf("%d adds acknowledged; hot counter %d (expected %d)", writers*adds*2, got["c"], want)
}

func TestCountersSurviveReopen(t *testing.T) {
	dir := t.TempDir()
	s := testSchema(t, "RandomPartitioner")
	st := open(t, dir, s, Options{})
	applyCounters(t, st, addTo("Standard1", "k", nil, []byte("a"), 41))
	applyCounters(t, st, addTo("Standard1", "k", nil, []byte("a"), 1))
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = open(t, dir, s, Options{})
	defer st.Close()
	if got := totals(t, st, "Standard1", "k", nil); got["a"] != 42 {
		t.Fatalf("after reopen: %v; want a=42", got)
	}
	applyCounters(t, st, addTo("Standard1", "k", nil, []byte("a"), 1))
	if got := totals(t, st, "Standard1", "k", nil); got["a"] != 43 {
		t.Fatalf("an add after reopen: %v; want a=43", got)
	}
}

// BenchmarkCounterAddHot: parallel adds to one counter, all waiting on
// its row's lock.
func BenchmarkCounterAddHot(b *testing.B) {
	st := newStore(b)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := st.ApplyCounters(ctx, ks, []engine.CounterRow{addTo("Standard1", "hot", nil, []byte("n"), 1)}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkCounterAddMany: parallel adds spread over 10,000 counters in
// 1,000 rows.
func BenchmarkCounterAddMany(b *testing.B) {
	st := newStore(b)
	var next sync.Mutex
	i := 0
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			next.Lock()
			i++
			n := i
			next.Unlock()
			row := addTo("Standard1", fmt.Sprintf("row%d", n%1000), nil, []byte(fmt.Sprintf("c%d", n%10)), 1)
			if err := st.ApplyCounters(ctx, ks, []engine.CounterRow{row}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
