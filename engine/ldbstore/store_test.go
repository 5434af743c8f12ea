package ldbstore

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

var ctx = context.Background()

const ks = storetest.Keyspace

// TestConformance runs the engine.Store conformance suite on LevelDB.
// Each test's stores share a clock of their own that only Wait moves, so
// expiring columns expire without the test sleeping.
func TestConformance(t *testing.T) {
	var clocks sync.Map // *testing.T → *testClock
	clock := func(t *testing.T) *testClock {
		c, _ := clocks.LoadOrStore(t, newTestClock())
		return c.(*testClock)
	}
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T, s *schema.Schema) engine.Store {
			st := open(t, t.TempDir(), s, Options{Now: clock(t).Now})
			t.Cleanup(func() { st.Close() })
			return st
		},
		AtomicCalls: true,
		Wait:        func(t *testing.T, d time.Duration) { clock(t).Advance(d) },
		Now:         func(t *testing.T) time.Time { return clock(t).Now() },
	})
}

// testClock is an injectable clock that moves only when told to.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func newTestClock() *testClock { return &testClock{now: time.Unix(1_700_000_000, 0)} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// The suite's many-mutation model test writes rows of at least 16
// mutations, so it covers the prefetched write path only while
// prefetchMin is at most that.
func TestSuiteCoversPrefetch(t *testing.T) {
	if prefetchMin > 16 {
		t.Fatalf("prefetchMin is %d; raise the mutation count of storetest's testManyMutationsMatchModel", prefetchMin)
	}
}

func mustComparator(t testing.TB, name string) marshal.Comparator {
	t.Helper()
	c, err := marshal.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func testSchema(t testing.TB, part string) *schema.Schema { return storetest.TestSchema(t, part) }

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

// newStore is a fresh store on the test schema under
// OrderPreservingPartitioner, closed when the test ends.
func newStore(t testing.TB) *Store {
	t.Helper()
	st := open(t, t.TempDir(), testSchema(t, "OrderPreservingPartitioner"), Options{})
	t.Cleanup(func() { st.Close() })
	return st
}

var (
	put    = storetest.Put
	putSub = storetest.PutSub
	del    = storetest.Del
	render = storetest.Render
	expect = storetest.Expect
	all    = storetest.All
	long   = storetest.Long
)

func apply(t testing.TB, st *Store, rows ...engine.RowMutation) {
	t.Helper()
	storetest.Apply(t, st, rows...)
}

func get(t testing.TB, st *Store, cf, key string, sc []byte, p engine.Predicate) string {
	t.Helper()
	return storetest.Get(t, st, cf, key, sc, p)
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
		rows, err := st.Range(ctx, ks, engine.TokenRange{StartInclusive: true}, engine.Query{ColumnFamily: "Standard1", Predicate: all(10)}, 100)
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
