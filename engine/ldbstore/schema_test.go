package ldbstore

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
	"github.com/thriftd/thriftd/schema"
)

// TestSchemaConformance runs the SchemaStore and Truncater suite on
// LevelDB.
func TestSchemaConformance(t *testing.T) {
	storetest.RunSchema(t, reopeningHarness())
}

// reopeningHarness opens each store in a directory of its own and
// reopens it on the same directory. Its tests run in parallel.
func reopeningHarness() storetest.Harness {
	var dirs sync.Map // engine.Store -> its directory
	return storetest.Harness{
		Open: func(t *testing.T, s *schema.Schema) engine.Store {
			dir := t.TempDir()
			st := open(t, dir, s, Options{})
			dirs.Store(st, dir)
			t.Cleanup(func() { st.Close() })
			return st
		},
		Reopen: func(t *testing.T, old engine.Store, s *schema.Schema) engine.Store {
			dir, _ := dirs.Load(old)
			if err := old.Close(); err != nil {
				t.Fatal(err)
			}
			st := open(t, dir.(string), s, Options{})
			dirs.Store(st, dir)
			t.Cleanup(func() { st.Close() })
			return st
		},
		AtomicCalls: true,
	}
}

// A dropped family's data is deleted from LevelDB, not only hidden, and
// its id is never given to another family, even after a restart.
func TestDroppedDataIsDeletedAndIDsNotReused(t *testing.T) {
	dir := t.TempDir()
	s := storetest.TestSchema(t, "OrderPreservingPartitioner")
	st := open(t, dir, s, Options{})
	var rows []engine.RowMutation
	for i := 0; i < 3*deleteBatch/2; i++ {
		rows = append(rows, storetest.Put("Standard2", fmt.Sprintf("k%05d", i), "a", "v", 1))
	}
	if err := st.Apply(ctx, ks, rows); err != nil {
		t.Fatal(err)
	}
	id := idOf(t, st, "Standard2")
	if n := countKeys(t, st, cfPrefix(id)); n < len(rows) {
		t.Fatalf("%d keys stored under id %d, want at least %d", n, id, len(rows))
	}
	heads := headRow(nil, cfPrefix(id))
	if n := countKeys(t, st, heads); n != len(rows) {
		t.Fatalf("%d row head keys stored under id %d, want a marker for each of %d rows", n, id, len(rows))
	}
	next := storetest.Clone(s, "v2")
	delete(next.Keyspaces[ks].ColumnFamilies, "Standard2")
	if err := st.ChangeSchema(ctx, next, []byte("x")); err != nil {
		t.Fatal(err)
	}
	waitDropped(t, st)
	if n := countKeys(t, st, cfPrefix(id)); n != 0 {
		t.Fatalf("%d keys left under the dropped id %d", n, id)
	}
	if n := countKeys(t, st, heads); n != 0 {
		t.Fatalf("%d row head keys left under the dropped id %d", n, id)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = open(t, dir, s, Options{}) // the file names Standard2 again
	defer st.Close()
	if got := idOf(t, st, "Standard2"); got <= id {
		t.Fatalf("Standard2 came back under id %d, not after the dropped %d", got, id)
	}
}

func idOf(t *testing.T, st *Store, cf string) uint32 {
	t.Helper()
	st.mu.RLock()
	defer st.mu.RUnlock()
	f := st.cfs[cfName{ks, cf}]
	if f == nil {
		t.Fatalf("no column family %s", cf)
	}
	return uint32(f.prefix[1])<<24 | uint32(f.prefix[2])<<16 | uint32(f.prefix[3])<<8 | uint32(f.prefix[4])
}

func waitDropped(t *testing.T, st *Store) {
	t.Helper()
	for i := 0; i < 1000; i++ {
		stored, err := st.readStored()
		if err != nil {
			t.Fatal(err)
		}
		if len(stored.Dropped) == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("dropped data was not deleted in time")
}

// Schema changes and truncations while calls run: no call fails on a
// family that is not being changed, and the race detector finds nothing.
func TestSchemaChangesWhileCallsRun(t *testing.T) {
	s := storetest.TestSchema(t, "OrderPreservingPartitioner")
	st := open(t, t.TempDir(), s, Options{})
	defer st.Close()
	stop := make(chan struct{})
	errs := make(chan error, 4)
	for w := 0; w < 2; w++ {
		go func(w int) {
			for i := 0; ; i++ {
				select {
				case <-stop:
					errs <- nil
					return
				default:
				}
				key := fmt.Sprintf("w%d-%d", w, i%50)
				if err := st.Apply(ctx, ks, []engine.RowMutation{storetest.Put("Standard1", key, "c", "v", int64(i))}); err != nil {
					errs <- err
					return
				}
				if _, err := st.Get(ctx, ks, key, engine.Query{ColumnFamily: "Standard1", Predicate: storetest.All(10)}); err != nil {
					errs <- err
					return
				}
				if _, err := st.Splits(ctx, "", "", engine.TokenRange{StartInclusive: true}, 10); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	for i := 0; i < 30; i++ {
		next := storetest.Clone(s, fmt.Sprintf("v%d", i))
		if i%2 == 0 {
			next.Keyspaces[ks].ColumnFamilies["Extra"] = &schema.ColumnFamily{Keyspace: ks, Name: "Extra", Comparator: mustComparator(t, "BytesType")}
		}
		if err := st.ChangeSchema(ctx, next, []byte(next.Version)); err != nil {
			t.Fatal(err)
		}
		if err := st.Truncate(ctx, ks, "Standard2"); err != nil {
			t.Fatal(err)
		}
		if err := st.Compact(ctx, ks, ""); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	for w := 0; w < 2; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
