package ldbstore

import (
	"testing"
	"time"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
)

// A range deletion lives in its row's (or super column's) tombstone until
// GCGrace after it was written: Purge then removes it with the columns
// it shadows, and keeps the range deletions written later.
func TestPurgeOfRangeDeletions(t *testing.T) {
	clock := newTestClock()
	st := open(t, t.TempDir(), testSchema(t, "OrderPreservingPartitioner"), Options{GCGrace: time.Hour, Now: clock.Now})
	defer st.Close()
	for _, n := range []string{"a", "b", "c", "d"} {
		apply(t, st, put("Standard1", "k", n, "v", 1), put("Standard1", "gone", n, "v", 1))
	}
	apply(t, st, storetest.PutSub("Super1", "s", "x", 1, "v", 1), storetest.PutSub("Super1", "s", "x", 2, "v", 1), storetest.PutSub("Super1", "s", "y", 1, "v", 1))
	apply(t, st,
		storetest.DelRange("Standard1", "k", nil, []byte("a"), []byte("b"), 2),
		storetest.DelRange("Standard1", "gone", nil, nil, nil, 2),
		storetest.DelRange("Super1", "s", []byte("x"), storetest.Long(2), nil, 2),
		storetest.DelRange("Super1", "s", nil, []byte("y"), nil, 2))
	clock.Advance(30 * time.Minute)
	apply(t, st, storetest.DelRange("Standard1", "k", nil, []byte("d"), nil, 3))
	rows := func() string {
		t.Helper()
		r, err := st.Range(ctx, ks, engine.TokenRange{StartInclusive: true}, engine.Query{ColumnFamily: "Standard1", Predicate: all(10)}, 100)
		if err != nil {
			t.Fatal(err)
		}
		out := ""
		for _, row := range r {
			out += row.Key + ":" + storetest.Render(row) + " "
		}
		return out
	}
	expect(t, rows(), "gone: k:c=v@1 ")
	clock.Advance(31 * time.Minute)
	n, err := st.Purge(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// gone: its 4 columns and its tombstone; k: a, b and d (shadowed by
	// the later range, which its tombstone is written back with); s:
	// subcolumn 2 of x, the super column y, and the tombstones of x and
	// of the row.
	if n != 12 {
		t.Errorf("purge removed %d entries, want 12", n)
	}
	expect(t, rows(), "k:c=v@1 ")
	expect(t, get(t, st, "Super1", "s", nil, all(10)), "x{1=v@1}")
	// Purged: an older write is no longer shadowed. The later range still is.
	apply(t, st, put("Standard1", "k", "a", "old", 1), put("Standard1", "k", "d", "old", 1))
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "a=old@1 c=v@1")
	clock.Advance(time.Hour)
	if _, err := st.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	apply(t, st, put("Standard1", "k", "d", "old", 1))
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "a=old@1 c=v@1 d=old@1")
}

// Range scans answer rows from their heads; a range deletion moves the
// row's marker, so the next scan does not take the old head for current.
func TestRangeDeletionStalesHeads(t *testing.T) {
	st := open(t, t.TempDir(), testSchema(t, "OrderPreservingPartitioner"), Options{})
	defer st.Close()
	for _, n := range []string{"a", "b", "c"} {
		apply(t, st, put("Standard1", "k", n, "v", 1))
	}
	scan := func() string {
		t.Helper()
		r, err := st.Range(ctx, ks, engine.TokenRange{StartInclusive: true}, engine.Query{ColumnFamily: "Standard1", Predicate: all(10)}, 100)
		if err != nil {
			t.Fatal(err)
		}
		out := ""
		for _, row := range r {
			out += row.Key + ":" + storetest.Render(row) + " "
		}
		return out
	}
	expect(t, scan(), "k:a=v@1 b=v@1 c=v@1 ")
	expect(t, scan(), "k:a=v@1 b=v@1 c=v@1 ")
	apply(t, st, storetest.DelRange("Standard1", "k", nil, []byte("b"), nil, 2))
	expect(t, scan(), "k:a=v@1 ")
	expect(t, scan(), "k:a=v@1 ")
}

// Range deletions survive a restart, and so does the newest timestamp
// they carry (writes after the restart reconcile against them).
func TestRangeDeletionSurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	s := testSchema(t, "OrderPreservingPartitioner")
	st := open(t, dir, s, Options{})
	apply(t, st, put("Standard1", "k", "a", "v", 1), put("Standard1", "k", "b", "v", 1))
	apply(t, st, storetest.DelRange("Standard1", "k", nil, []byte("b"), nil, 1<<40))
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = open(t, dir, s, Options{})
	defer st.Close()
	apply(t, st, put("Standard1", "k", "b", "v", 1<<40-1), put("Standard1", "k", "c", "v", 1<<40+1))
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "a=v@1 c=v@1099511627777")
}
