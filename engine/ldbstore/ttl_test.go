package ldbstore

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/syndtr/goleveldb/leveldb"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
)

// An expiring column is live through the second before its expiry and
// gone from that second on; reads report the TTL as written and the
// expiry second.
func TestExpiryIsToTheSecond(t *testing.T) {
	clock := newTestClock()
	st := open(t, t.TempDir(), testSchema(t, "OrderPreservingPartitioner"), Options{Now: clock.Now})
	defer st.Close()
	clock.Advance(700 * time.Millisecond) // written at 1_700_000_000.7
	apply(t, st, storetest.PutTTL("Standard1", "k", "c", "v", 1, 5))
	apply(t, st, storetest.PutSubTTL("Super1", "k", "sc", 1, "v", 1, 5))
	row, err := st.Get(ctx, ks, "k", engine.Query{ColumnFamily: "Standard1", Predicate: all(10)})
	if err != nil {
		t.Fatal(err)
	}
	if len(row.Columns) != 1 || row.Columns[0].TTL != 5 || row.Columns[0].ExpiresAt != 1_700_000_005 {
		t.Fatalf("read %+v; want TTL 5, ExpiresAt 1700000005", row.Columns)
	}
	sup, err := st.Get(ctx, ks, "k", engine.Query{ColumnFamily: "Super1", Predicate: all(10)})
	if err != nil {
		t.Fatal(err)
	}
	if len(sup.SuperColumns) != 1 || sup.SuperColumns[0].Columns[0].TTL != 5 || sup.SuperColumns[0].Columns[0].ExpiresAt != 1_700_000_005 {
		t.Fatalf("read %+v; want TTL 5, ExpiresAt 1700000005", sup.SuperColumns)
	}
	clock.Advance(4*time.Second + 299*time.Millisecond) // 1_700_000_004.999
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "c=v@1")
	clock.Advance(time.Millisecond) // 1_700_000_005
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "")
	expect(t, get(t, st, "Super1", "k", nil, all(10)), "")
}

// An expired column is kept as a tombstone until GCGrace after its expiry,
// its row a range ghost; then Purge removes it, and the row with it.
func TestPurgeRemovesExpiredColumns(t *testing.T) {
	clock := newTestClock()
	st := open(t, t.TempDir(), testSchema(t, "OrderPreservingPartitioner"), Options{GCGrace: time.Hour, Now: clock.Now})
	defer st.Close()
	apply(t, st,
		storetest.PutTTL("Standard1", "gone", "c", "v", 1, 60),
		storetest.PutTTL("Standard1", "live", "c", "v", 1, 60),
		put("Standard1", "live", "kept", "v", 1),
		storetest.PutSubTTL("Super1", "gone", "sc", 1, "v", 1, 60),
	)
	rows := func(cf string) int {
		t.Helper()
		r, err := st.Range(ctx, ks, engine.TokenRange{StartInclusive: true}, engine.Query{ColumnFamily: cf, Predicate: all(10)}, 100)
		if err != nil {
			t.Fatal(err)
		}
		return len(r)
	}
	// Expired, but within GCGrace of its expiry: a tombstone.
	clock.Advance(60*time.Second + time.Hour - time.Second)
	if n, err := st.Purge(ctx); err != nil || n != 0 {
		t.Fatalf("purge within GCGrace removed %d, %v", n, err)
	}
	if rows("Standard1") != 2 || rows("Super1") != 1 {
		t.Fatalf("within GCGrace: %d and %d rows, want 2 (a ghost) and 1 (a ghost)", rows("Standard1"), rows("Super1"))
	}
	apply(t, st, put("Standard1", "gone", "c", "older", 0))
	expect(t, get(t, st, "Standard1", "gone", nil, all(10)), "")
	clock.Advance(2 * time.Second)
	n, err := st.Purge(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("purge removed %d entries, want the 3 expired columns", n)
	}
	if rows("Standard1") != 1 || rows("Super1") != 0 {
		t.Errorf("after purge: %d and %d rows, want 1 and 0", rows("Standard1"), rows("Super1"))
	}
	expect(t, get(t, st, "Standard1", "live", nil, all(10)), "kept=v@1")
	// Nothing is left in the purge index.
	if n, err := st.Purge(ctx); err != nil || n != 0 {
		t.Errorf("second purge removed %d, %v", n, err)
	}
}

// Cells written before expiring columns existed (no expiry in the cell)
// read as columns that never expire, and take part in reconciliation.
func TestCellsWithoutExpiryStillRead(t *testing.T) {
	dir := t.TempDir()
	s := testSchema(t, "OrderPreservingPartitioner")
	st := open(t, dir, s, Options{})
	f, err := st.family(ks, "Standard1")
	if err != nil {
		t.Fatal(err)
	}
	row := st.part.RowKey(append([]byte(nil), f.prefix...), "k")
	key := f.def.Comparator.Encode(join(row, markNames), []byte("c"))
	// flags(1) timestamp(8) value: the cell format before TTLs.
	old := binary.BigEndian.AppendUint64([]byte{0}, 7)
	old = append(old, "old"...)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	// A directory of that time has no timestamp bound either.
	db, err := leveldb.OpenFile(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Put(key, old, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.Delete(metaNewest, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	st = open(t, dir, s, Options{})
	defer st.Close()
	r, err := st.Get(ctx, ks, "k", engine.Query{ColumnFamily: "Standard1", Predicate: all(10)})
	if err != nil {
		t.Fatal(err)
	}
	if render(r) != "c=old@7" || r.Columns[0].TTL != 0 || r.Columns[0].ExpiresAt != 0 {
		t.Fatalf("old cell reads %+v", r.Columns)
	}
	apply(t, st, put("Standard1", "k", "c", "older", 6))
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "c=old@7")
	apply(t, st, storetest.PutTTL("Standard1", "k", "c", "new", 8, 100))
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "c=new@8")
}
