package ldbstore

import (
	"bytes"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
)

// dropRowHeads stages the deletion of every row head and of the head
// epoch in batch, as a store written before row heads had neither.
func dropRowHeads(t *testing.T, db *leveldb.DB, batch *leveldb.Batch) {
	t.Helper()
	deleteHeadKeys(t, db, batch, 1)
	batch.Delete(metaHeadEpoch)
}

// deleteHeadKeys stages the deletion of every nth key of the head region.
func deleteHeadKeys(t *testing.T, db *leveldb.DB, batch *leveldb.Batch, nth int) {
	t.Helper()
	it := db.NewIterator(util.BytesPrefix([]byte{prefixHead}), nil)
	defer it.Release()
	for i := 0; it.Next(); i++ {
		if i%nth == 0 {
			batch.Delete(bytes.Clone(it.Key()))
		}
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
}

// editClosed opens the closed store in dir as plain LevelDB and writes
// what edit stages in a batch.
func editClosed(t *testing.T, dir string, edit func(db *leveldb.DB, batch *leveldb.Batch)) {
	t.Helper()
	db, err := leveldb.OpenFile(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	batch := new(leveldb.Batch)
	edit(db, batch)
	if err := db.Write(batch, nil); err != nil {
		t.Fatal(err)
	}
}

// fixtureOptions are the options a fixture store is opened with.
func fixtureOptions() Options {
	return Options{Now: func() time.Time { return fixtureNow }, PurgeInterval: -1}
}

// writtenFixture writes the fixture rows into a new store of part, closes
// it, and returns its directory and what its scans answered.
func writtenFixture(t *testing.T, part string) (dir, scans string) {
	t.Helper()
	dir = t.TempDir()
	st := open(t, dir, testSchema(t, part), fixtureOptions())
	writeFixtureRows(t, st)
	scans = renderFixtureScans(t, st)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, scans
}

// narrowHeads makes heads hold at most n entries for the test, so that
// small rows exercise both complete and partial heads.
func narrowHeads(t *testing.T, n, size int) {
	oldN, oldSize := headEntries, headBytes
	headEntries, headBytes = n, size
	t.Cleanup(func() { headEntries, headBytes = oldN, oldSize })
}

func storedRowHeads(t *testing.T, st *Store) bool {
	t.Helper()
	stored, err := st.readStored()
	if err != nil {
		t.Fatal(err)
	}
	return stored.RowHeads
}

// countKeys counts the stored keys under p.
func countKeys(t *testing.T, st *Store, p []byte) int {
	t.Helper()
	it := st.db.NewIterator(util.BytesPrefix(p), nil)
	defer it.Release()
	n := 0
	for it.Next() {
		n++
	}
	return n
}

// A data directory written before row heads (testdata, written by the
// store as it was then) is upgraded in place on its first Open: every
// row gets a marker, and its scans answer what they answered before the
// upgrade, first by rebuilding each head, then from the heads.
func TestUpgradeHeadsOfEarlierLayout(t *testing.T) {
	for _, part := range fixturePartitioners {
		t.Run(part, func(t *testing.T) {
			fixture := filepath.Join("testdata", "layout-before-heads", part)
			want, err := os.ReadFile(filepath.Join(fixture, "scans.txt"))
			if err != nil {
				t.Fatal(err)
			}
			dir := copyDir(t, filepath.Join(fixture, "data"))
			opts := fixtureOptions()
			st := open(t, dir, testSchema(t, part), opts)
			if !storedRowHeads(t, st) {
				t.Fatal("the upgraded store does not record row heads")
			}
			rows := countRows(t, st)
			if markers := countKeys(t, st, []byte{prefixHead}); markers != rows || rows < 100 {
				t.Fatalf("%d row head markers for %d stored rows", markers, rows)
			}
			for pass := 0; pass < 2; pass++ {
				before := st.scanStats.fromHead.Load()
				rebuilt := st.scanStats.rebuilt.Load()
				if got := renderFixtureScans(t, st); got != string(want) {
					t.Fatalf("pass %d: scans differ from the earlier layout's:\n%s", pass, firstDiff(got, string(want)))
				}
				switch {
				case pass == 0 && st.scanStats.rebuilt.Load() == rebuilt:
					t.Fatal("the first scans rebuilt no head")
				case pass == 1 && (st.scanStats.rebuilt.Load() != rebuilt || st.scanStats.fromHead.Load() == before):
					t.Fatalf("the second scans rebuilt %d heads and answered %d rows from heads", st.scanStats.rebuilt.Load()-rebuilt, st.scanStats.fromHead.Load()-before)
				}
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			// Opened again, nothing is upgraded twice and the heads serve.
			st = open(t, dir, testSchema(t, part), opts)
			defer st.Close()
			if got := renderFixtureScans(t, st); got != string(want) {
				t.Fatalf("after a reopen: scans differ:\n%s", firstDiff(got, string(want)))
			}
			if n := st.scanStats.rebuilt.Load(); n != 0 {
				t.Fatalf("after a reopen the scans rebuilt %d heads", n)
			}
		})
	}
}

// countRows counts the rows of the data region, by a seek past each.
func countRows(t *testing.T, st *Store) int {
	t.Helper()
	it := st.db.NewIterator(util.BytesPrefix([]byte{prefixData}), nil)
	defer it.Release()
	n := 0
	for ok := it.First(); ok; {
		_, _, rest, err := st.part.DecodeRowKey(it.Key()[5:])
		if err != nil {
			t.Fatal(err)
		}
		n++
		ok = it.Seek(after(it.Key()[:len(it.Key())-len(rest)]))
	}
	return n
}

func firstDiff(got, want string) string {
	g, w := bytes.Split([]byte(got), []byte("\n")), bytes.Split([]byte(want), []byte("\n"))
	for i := range min(len(g), len(w)) {
		if !bytes.Equal(g[i], w[i]) {
			return fmt.Sprintf("line %d\n got  %s\n want %s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}

// An upgrade that a crash interrupted (markers written, the schema not
// yet marked) runs again at the next Open, and scans answer as before.
func TestUpgradeHeadsAgainAfterInterruption(t *testing.T) {
	part := "OrderPreservingPartitioner"
	fixture := filepath.Join("testdata", "layout-before-heads", part)
	want, err := os.ReadFile(filepath.Join(fixture, "scans.txt"))
	if err != nil {
		t.Fatal(err)
	}
	dir := copyDir(t, filepath.Join(fixture, "data"))
	st := open(t, dir, testSchema(t, part), fixtureOptions())
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	// Undo the schema's mark, and half of the markers.
	editClosed(t, dir, func(db *leveldb.DB, batch *leveldb.Batch) {
		if err := forgetRowHeads(db); err != nil {
			t.Fatal(err)
		}
		deleteHeadKeys(t, db, batch, 2)
	})
	st = open(t, dir, testSchema(t, part), fixtureOptions())
	defer st.Close()
	if !storedRowHeads(t, st) {
		t.Fatal("the upgrade did not run again")
	}
	if got := renderFixtureScans(t, st); got != string(want) {
		t.Fatalf("scans differ:\n%s", firstDiff(got, string(want)))
	}
}

// A store rewritten to look as it did before row heads (the downgrade the
// row key upgrade test uses) is upgraded too, with every partitioner.
func TestUpgradeHeadsOfDowngradedStore(t *testing.T) {
	for _, part := range []string{"OrderPreservingPartitioner", "RandomPartitioner", "Murmur3Partitioner", "ByteOrderedPartitioner"} {
		t.Run(part, func(t *testing.T) {
			dir, want := writtenFixture(t, part)
			editClosed(t, dir, func(db *leveldb.DB, batch *leveldb.Batch) {
				if err := forgetRowHeads(db); err != nil {
					t.Fatal(err)
				}
				dropRowHeads(t, db, batch)
			})
			st := open(t, dir, testSchema(t, part), fixtureOptions())
			defer st.Close()
			for pass := 0; pass < 2; pass++ {
				if got := renderFixtureScans(t, st); got != want {
					t.Fatalf("pass %d: scans differ:\n%s", pass, firstDiff(got, want))
				}
			}
		})
	}
}

// rangeOne reads key's row through a range scan of just its token.
func rangeOne(t *testing.T, st *Store, key string, q engine.Query) (engine.Row, bool) {
	t.Helper()
	tok := st.part.Token(key)
	rows, err := st.Range(ctx, ks, engine.TokenRange{Start: tok, End: tok, StartInclusive: true}, q, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		return engine.Row{}, false
	}
	return rows[0], true
}

// randomQuery is a slice or names predicate over Standard1 or Super1.
func randomQuery(rng *rand.Rand, names []string) engine.Query {
	pick := func(s []string) []byte { return []byte(s[rng.IntN(len(s))]) }
	if rng.IntN(4) == 0 {
		q := engine.Query{ColumnFamily: "Super1", Predicate: engine.Predicate{Count: 1 + rng.IntN(4), Reversed: rng.IntN(3) == 0}}
		if rng.IntN(2) == 0 {
			q.SuperColumn = []byte(fmt.Sprintf("sc%d", rng.IntN(3)))
		}
		return q
	}
	q := engine.Query{ColumnFamily: "Standard1"}
	switch rng.IntN(5) {
	case 0:
		q.Names = [][]byte{pick(names), pick(names), pick(names)}
	case 1:
		q.Count, q.Reversed = 1+rng.IntN(6), true
		if rng.IntN(2) == 0 {
			q.Start = pick(names)
		}
	case 2:
		q.Count, q.Start, q.Finish = 1+rng.IntN(6), pick(names), pick(names)
		if bytes.Compare(q.Start, q.Finish) > 0 {
			q.Start, q.Finish = q.Finish, q.Start
		}
	default:
		q.Count = 1 + rng.IntN(8)
	}
	return q
}

// Row heads never change an answer: after any mix of writes, deletions,
// expiring columns and purges, a range scan answers every row as a read
// of the data region does (Get), with heads narrowed so that rows of a
// few columns have partial heads.
func TestHeadsAnswerAsTheData(t *testing.T) {
	narrowHeads(t, 4, 200)
	clock := newTestClock()
	st := open(t, t.TempDir(), testSchema(t, "OrderPreservingPartitioner"), Options{Now: clock.Now, PurgeInterval: -1, GCGrace: time.Hour})
	defer st.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	keys := []string{"a", "b", "c", "d", "e"}
	var names []string
	for i := range 12 {
		names = append(names, fmt.Sprintf("n%02d", i))
	}
	ops := 4000
	if testing.Short() {
		ops = 800
	}
	for i := 0; i < ops; i++ {
		key := keys[rng.IntN(len(keys))]
		ts := int64(i)
		var muts []engine.Mutation
		for range 1 + rng.IntN(4) {
			m := engine.Mutation{ColumnFamily: "Standard1", Name: []byte(names[rng.IntN(len(names))]), Value: bytes.Repeat([]byte("x"), rng.IntN(80)), Timestamp: ts - int64(rng.IntN(3))}
			switch r := rng.IntN(12); {
			case r == 0:
				m = engine.Mutation{ColumnFamily: "Standard1", Timestamp: ts - 2, Delete: true}
			case r < 3:
				m.Delete, m.Value = true, nil
			case r < 5:
				m.TTL = int32(1 + rng.IntN(20))
			case r < 7:
				m = engine.Mutation{ColumnFamily: "Super1", SuperColumn: []byte(fmt.Sprintf("sc%d", rng.IntN(3))), Name: storetest.Long(int64(rng.IntN(4))), Value: []byte("s"), Timestamp: ts}
			}
			muts = append(muts, m)
		}
		if err := st.Apply(ctx, ks, []engine.RowMutation{{Key: key, Mutations: muts}}); err != nil {
			t.Fatal(err)
		}
		switch rng.IntN(50) {
		case 0:
			clock.Advance(time.Duration(1+rng.IntN(30)) * time.Second)
		case 1:
			clock.Advance(2 * time.Hour)
			if _, err := st.Purge(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for range 2 {
			q := randomQuery(rng, names)
			k := keys[rng.IntN(len(keys))]
			want, err := st.Get(ctx, ks, k, q)
			if err != nil {
				t.Fatal(err)
			}
			got, found := rangeOne(t, st, k, q)
			if !found && (len(want.Columns) > 0 || len(want.SuperColumns) > 0) {
				t.Fatalf("op %d: the scan found no row %q; a read finds %s", i, k, storetest.Render(want))
			}
			if g, w := storetest.Render(got), storetest.Render(want); g != w {
				t.Fatalf("op %d: row %q, %+v:\nscan %s\nread %s", i, k, q, g, w)
			}
		}
	}
	if st.scanStats.fromHead.Load() == 0 || st.scanStats.fromData.Load() == 0 || st.scanStats.rebuilt.Load() == 0 {
		t.Fatalf("the scans did not take every path: %d from heads, %d from the data beside a head, %d rebuilt",
			st.scanStats.fromHead.Load(), st.scanStats.fromData.Load(), st.scanStats.rebuilt.Load())
	}
}

// A purge that empties a row takes its head with it, and a scan skips it.
func TestPurgedRowLeavesNoHead(t *testing.T) {
	clock := newTestClock()
	st := open(t, t.TempDir(), testSchema(t, "OrderPreservingPartitioner"), Options{Now: clock.Now, PurgeInterval: -1, GCGrace: time.Hour})
	defer st.Close()
	storetest.Apply(t, st, storetest.Put("Standard1", "gone", "a", "1", 1), storetest.Put("Standard1", "kept", "a", "1", 1))
	storetest.Apply(t, st, engine.RowMutation{Key: "gone", Mutations: []engine.Mutation{{ColumnFamily: "Standard1", Timestamp: 2, Delete: true}}})
	all := engine.Query{ColumnFamily: "Standard1", Predicate: storetest.All(10)}
	rows, err := st.Range(ctx, ks, engine.TokenRange{StartInclusive: true}, all, 10)
	if err != nil || len(rows) != 2 {
		t.Fatalf("before the purge: %d rows (%v), want the ghost and the live row", len(rows), err)
	}
	clock.Advance(2 * time.Hour)
	if _, err := st.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err = st.Range(ctx, ks, engine.TokenRange{StartInclusive: true}, all, 10)
	if err != nil || len(rows) != 1 || rows[0].Key != "kept" {
		t.Fatalf("after the purge: %v (%v), want the live row alone", rows, err)
	}
	if n := countKeys(t, st, headRow(nil, st.cfs[cfName{ks, "Standard1"}].prefix)); n != 2 {
		t.Fatalf("%d head keys left, want the live row's marker and head", n)
	}
}

// Scans racing with writes never take a stale head for a current one:
// once the writers stop, every scan answers as a read does.
func TestHeadsUnderConcurrentWrites(t *testing.T) {
	narrowHeads(t, 6, 512)
	st := open(t, t.TempDir(), testSchema(t, "RandomPartitioner"), Options{PurgeInterval: -1})
	defer st.Close()
	const rows, writers = 40, 4
	q := engine.Query{ColumnFamily: "Standard1", Predicate: storetest.All(4)}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			for i := int64(1); ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprintf("r%02d", rng.IntN(rows))
				m := engine.Mutation{ColumnFamily: "Standard1", Name: []byte(fmt.Sprintf("c%02d", rng.IntN(10))), Value: []byte(fmt.Sprint(w, i)), Timestamp: i*writers + int64(w)}
				if rng.IntN(5) == 0 {
					m.Delete, m.Value = true, nil
				}
				if err := st.Apply(ctx, ks, []engine.RowMutation{{Key: key, Mutations: []engine.Mutation{m}}}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := st.Range(ctx, ks, engine.TokenRange{StartInclusive: true}, q, rows); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	time.Sleep(2 * time.Second)
	close(stop)
	wg.Wait()
	for pass := 0; pass < 2; pass++ {
		got, err := st.Range(ctx, ks, engine.TokenRange{StartInclusive: true}, q, rows)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range got {
			want, err := st.Get(ctx, ks, r.Key, q)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := storetest.Render(r), storetest.Render(want); g != w {
				t.Fatalf("pass %d: row %s: scan %s, read %s", pass, r.Key, g, w)
			}
		}
	}
	if st.scanStats.rebuilt.Load() < rows {
		t.Fatalf("only %d heads rebuilt while writes raced", st.scanStats.rebuilt.Load())
	}
}

// Markers lost to damage do not hide rows: after a repair every row gets
// its marker again, and so does a store whose schema record was lost.
func TestLostMarkersAreWrittenAgain(t *testing.T) {
	for _, lose := range []string{"markers", "markers and schema"} {
		t.Run(lose, func(t *testing.T) {
			part := "RandomPartitioner"
			dir, want := writtenFixture(t, part)
			editClosed(t, dir, func(db *leveldb.DB, batch *leveldb.Batch) {
				deleteHeadKeys(t, db, batch, 3)
				if lose == "markers and schema" {
					batch.Delete(metaSchema)
				}
			})
			if err := Repair(dir, slog.New(slog.DiscardHandler)); err != nil {
				t.Fatal(err)
			}
			st := open(t, dir, testSchema(t, part), fixtureOptions())
			defer st.Close()
			if got := renderFixtureScans(t, st); got != want {
				t.Fatalf("scans after the repair differ:\n%s", firstDiff(got, want))
			}
		})
	}
}

// markerOf reads key's marker version in Standard1, 0 when it has none.
func markerOf(t *testing.T, st *Store, key string) uint64 {
	t.Helper()
	row := st.part.RowKey(append([]byte(nil), st.cfs[cfName{ks, "Standard1"}].prefix...), key)
	v, err := st.db.Get(markerKey(row), nil)
	if err == leveldb.ErrNotFound {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	n, _ := headVersion(v)
	return n
}

// A write to a row whose head is stale already leaves its marker as it
// is; once a scan has published a head, the next write moves the marker
// on. A scan whose snapshot may miss a write that left the marker is
// refused publication, even after a later scan published.
func TestMarkerSkippedWhileHeadIsStale(t *testing.T) {
	st := open(t, t.TempDir(), testSchema(t, "OrderPreservingPartitioner"), Options{PurgeInterval: -1})
	defer st.Close()
	all := engine.Query{ColumnFamily: "Standard1", Predicate: storetest.All(10)}
	storetest.Apply(t, st, storetest.Put("Standard1", "k", "a", "1", 1))
	m1 := markerOf(t, st, "k")
	storetest.Apply(t, st, storetest.Put("Standard1", "k", "b", "2", 2))
	if m := markerOf(t, st, "k"); m != m1 {
		t.Fatalf("a write to a row with a stale head moved its marker from %d to %d", m1, m)
	}
	rangeOne(t, st, "k", all) // publishes a head for m1
	storetest.Apply(t, st, storetest.Put("Standard1", "k", "c", "3", 3))
	m2 := markerOf(t, st, "k")
	if m2 == m1 {
		t.Fatal("the write after a published head left the marker as it was")
	}
	if got, _ := rangeOne(t, st, "k", all); storetest.Render(got) != "a=1@1 b=2@2 c=3@3" {
		t.Fatalf("scan: %s", storetest.Render(got))
	}

	// Scan A reads its sequence number, then a write skips the marker;
	// scan B, later, may publish; A may not, before or after B.
	row := st.part.RowKey(append([]byte(nil), st.cfs[cfName{ks, "Standard1"}].prefix...), "k")
	s := st.stripe(ks, "k")
	storetest.Apply(t, st, storetest.Put("Standard1", "k", "d", "4", 4)) // moves the marker on
	seqA := st.heads.writeSeq.Load()
	storetest.Apply(t, st, storetest.Put("Standard1", "k", "e", "5", 5)) // skips it
	seqB := st.heads.writeSeq.Load()
	if seqB == seqA {
		t.Fatal("the second write did not skip the marker")
	}
	if st.mayPublish(s, row, seqA) {
		t.Fatal("a scan older than a skipped write may publish")
	}
	if !st.mayPublish(s, row, seqB) {
		t.Fatal("a scan newer than every skipped write may not publish")
	}
	if st.mayPublish(s, row, seqA) {
		t.Fatal("after a newer scan published, an older one may too")
	}
}

// With no row tracked, every write puts its marker, and scans still
// answer as the data.
func TestHeadsWithNoRowTracked(t *testing.T) {
	old := staleRowsPerStripe
	staleRowsPerStripe = 0
	t.Cleanup(func() { staleRowsPerStripe = old })
	t.Run("model", TestHeadsAnswerAsTheData)
	t.Run("concurrent", TestHeadsUnderConcurrentWrites)
}

// A row forgotten to keep a stripe's map small hands its latest skipped
// write to the stripe's mark: a scan older than it publishes no head of
// any row the stripe no longer tracks.
func TestForgottenRowsKeepTheirSkippedWrites(t *testing.T) {
	old := staleRowsPerStripe
	staleRowsPerStripe = 1
	t.Cleanup(func() { staleRowsPerStripe = old })
	st := &Store{}
	const s = 7
	r1, r2 := []byte("row one"), []byte("row two")
	st.noteMarked(s, string(r1))
	if st.skipMarker(s, r1) == nil || st.skipMarker(s, r2) != nil {
		t.Fatal("only the marked row may skip its marker")
	}
	st.skipMarker(s, r1).lastSkip = 5 // as a write that skipped does
	st.noteMarked(s, string(r2))      // forgets r1
	if st.skipMarker(s, r1) != nil {
		t.Fatal("a forgotten row skips its marker")
	}
	if st.mayPublish(s, r1, 4) {
		t.Fatal("a scan older than a forgotten row's skipped write may publish")
	}
	if !st.mayPublish(s, r1, 5) || !st.mayPublish(s, r2, 0) {
		t.Fatal("scans newer than every skipped write may not publish")
	}
	if st.skipMarker(s, r2) != nil {
		t.Fatal("a row with a published head skips its marker")
	}
}
