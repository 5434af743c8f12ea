package ldbstore

import (
	"fmt"
	"sync"
	"testing"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
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

// BenchmarkCounterAddHot: parallel adds to one counter, all queued on
// its row's stripe.
func BenchmarkCounterAddHot(b *testing.B) {
	st := newStore(b)
	b.SetParallelism(16) // 32 callers on 2 CPUs, as 32 connections would be
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
	b.SetParallelism(16)
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

// A truncated counter family starts again from zero.
func TestCountersAfterTruncate(t *testing.T) {
	st := newStore(t)
	applyCounters(t, st, addTo("Standard1", "k", nil, []byte("a"), 5))
	if err := st.Truncate(ctx, ks, "Standard1"); err != nil {
		t.Fatal(err)
	}
	if got := totals(t, st, "Standard1", "k", nil); len(got) != 0 {
		t.Fatalf("after truncate: %v", got)
	}
	applyCounters(t, st, addTo("Standard1", "k", nil, []byte("a"), 1))
	if got := totals(t, st, "Standard1", "k", nil); got["a"] != 1 {
		t.Fatalf("an add after truncate: %v; want a=1", got)
	}
}

// The writes queued in one stripe are merged in queue order: a removal
// between two adds of one counter leaves the later add alone, and a row
// whose stored counter cannot be read fails its own callers but not the
// other rows of the batch.
func TestCounterBatchMerge(t *testing.T) {
	st := newStore(t)
	applyCounters(t, st, addTo("Standard1", "k", nil, []byte("a"), 100), addTo("Standard1", "k", nil, []byte("b"), 1))
	// A value no counter write makes: only a plain write, which the
	// handler refuses in a counter family, could store it.
	if err := st.Apply(ctx, ks, []engine.RowMutation{{Key: "bad", Mutations: []engine.Mutation{{ColumnFamily: "Standard1", Name: []byte("a"), Value: []byte("xyz"), Timestamp: 1}}}}); err != nil {
		t.Fatal(err)
	}
	write := func(r engine.CounterRow) *counterWrite {
		return &counterWrite{keyspace: ks, row: r, done: make(chan struct{})}
	}
	batch := []*counterWrite{
		write(addTo("Standard1", "k", nil, []byte("a"), 5)),
		write(addTo("Standard1", "bad", nil, []byte("a"), 1)),
		write(engine.CounterRow{Key: "k", Mutations: []engine.CounterMutation{{ColumnFamily: "Standard1", Name: []byte("a"), Delete: true}}}),
		write(addTo("Standard1", "k", nil, []byte("a"), 2)),
		write(addTo("Standard1", "k", nil, []byte("b"), 10)),
		write(addTo("Standard1", "other", nil, []byte("c"), 7)),
		write(addTo("Standard1", "k", nil, []byte("b"), 10)),
	}
	st.applyCounterBatch(ctx, &st.counters.stripes[0], batch)
	for i, w := range batch {
		select {
		case <-w.done:
		default:
			t.Fatalf("write %d is not done", i)
		}
		if (w.err != nil) != (w.row.Key == "bad") {
			t.Errorf("write %d to row %q: error %v", i, w.row.Key, w.err)
		}
	}
	if got := totals(t, st, "Standard1", "k", nil); got["a"] != 2 || got["b"] != 21 || len(got) != 2 {
		t.Errorf("row k: %v; want a=2 (removed, then 2 added) b=21", got)
	}
	if got := totals(t, st, "Standard1", "other", nil); got["c"] != 7 {
		t.Errorf("row other: %v; want c=7", got)
	}
}

// Callers of many rows, some sharing a stripe, with removals between
// their adds: every acknowledged add since a row's last removal is
// counted exactly once.
func TestConcurrentAddsAcrossRows(t *testing.T) {
	st := newStore(t)
	const writers, adds, rows = 32, 100, 600 // more rows than stripes
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range adds {
				// Each writer adds to a row of its own and to one of
				// every writer's.
				own := addTo("Standard1", fmt.Sprintf("w%d", w), nil, []byte("n"), 1)
				shared := addTo("Standard1", fmt.Sprintf("r%d", (w*adds+i)%rows), nil, []byte("n"), 1)
				if err := st.ApplyCounters(ctx, ks, []engine.CounterRow{own, shared}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	var sum int64
	for r := range rows {
		sum += totals(t, st, "Standard1", fmt.Sprintf("r%d", r), nil)["n"]
	}
	if sum != writers*adds {
		t.Errorf("shared rows add up to %d, want %d", sum, writers*adds)
	}
	for w := range writers {
		if n := totals(t, st, "Standard1", fmt.Sprintf("w%d", w), nil)["n"]; n != adds {
			t.Errorf("row w%d = %d, want %d", w, n, adds)
		}
	}
}

// BenchmarkCounterAddHotBatchSync: parallel adds to one counter with
// CommitLogSync batch, where every write waits for its fsync: adds queued
// while one batch syncs share the next batch's fsync.
func BenchmarkCounterAddHotBatchSync(b *testing.B) {
	st := open(b, b.TempDir(), testSchema(b, "OrderPreservingPartitioner"), Options{Sync: Batch})
	b.Cleanup(func() { st.Close() })
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := st.ApplyCounters(ctx, ks, []engine.CounterRow{addTo("Standard1", "hot", nil, []byte("n"), 1)}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// The counter cache knows the totals it wrote, and forgets them when
// anything but ApplyCounters changes a family it holds: a plain write, a
// truncation, a family dropped and created again.
func TestCounterCacheFollowsOtherChanges(t *testing.T) {
	s := testSchema(t, "OrderPreservingPartitioner")
	st := open(t, t.TempDir(), s, Options{})
	defer st.Close()
	applyCounters(t, st, addTo("Standard1", "k", nil, []byte("a"), 5), addTo("Standard1", "k", nil, []byte("b"), 7))
	if f, err := st.family(ks, "Standard1"); err != nil || !f.countersCached.Load() {
		t.Fatalf("the family of a cached counter is not marked (%v)", err)
	}
	// A write that does not go through ApplyCounters (a tool's) sets a.
	if err := st.Apply(ctx, ks, []engine.RowMutation{{Key: "k", Mutations: []engine.Mutation{
		{ColumnFamily: "Standard1", Name: []byte("a"), Value: engine.EncodeCounter(100), Timestamp: st.counters.counterClock()}}}}); err != nil {
		t.Fatal(err)
	}
	applyCounters(t, st, addTo("Standard1", "k", nil, []byte("a"), 1))
	if got := totals(t, st, "Standard1", "k", nil); got["a"] != 101 || got["b"] != 7 {
		t.Fatalf("an add after a plain write: %v; want a=101 b=7", got)
	}
	// A removal of the whole row, then an add: the other counter stays
	// removed.
	applyCounters(t, st, engine.CounterRow{Key: "k", Mutations: []engine.CounterMutation{{ColumnFamily: "Standard1", Delete: true}}})
	applyCounters(t, st, addTo("Standard1", "k", nil, []byte("a"), 2))
	if got := totals(t, st, "Standard1", "k", nil); got["a"] != 2 || len(got) != 1 {
		t.Fatalf("an add after the row's removal: %v; want a=2 alone", got)
	}
	// The family dropped and created again starts empty.
	applyCounters(t, st, addTo("Standard2", "k", nil, []byte("c"), 40))
	dropped := storetest.Clone(s, "v2")
	delete(dropped.Keyspaces[ks].ColumnFamilies, "Standard2")
	if err := st.ChangeSchema(ctx, dropped, []byte("v2")); err != nil {
		t.Fatal(err)
	}
	if err := st.ChangeSchema(ctx, storetest.Clone(s, "v3"), []byte("v3")); err != nil {
		t.Fatal(err)
	}
	applyCounters(t, st, addTo("Standard2", "k", nil, []byte("c"), 2))
	if got := totals(t, st, "Standard2", "k", nil); got["c"] != 2 {
		t.Fatalf("an add to a family dropped and created again: %v; want c=2", got)
	}
}

// BenchmarkCounterAddCached: adds to 2,000 counters in 2,000 rows, every
// total in the cache after the first round, as a server's counters are
// once warm.
func BenchmarkCounterAddCached(b *testing.B) {
	st := newStore(b)
	for i := range 2000 {
		applyCounters(b, st, addTo("Standard1", fmt.Sprintf("row%d", i), nil, []byte("n"), 1))
	}
	b.ResetTimer()
	for i := range b.N {
		if err := st.ApplyCounters(ctx, ks, []engine.CounterRow{addTo("Standard1", fmt.Sprintf("row%d", i%2000), nil, []byte("n"), 1)}); err != nil {
			b.Fatal(err)
		}
	}
}
