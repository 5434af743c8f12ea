package ldbstore

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thriftd/thriftd/engine"
)

// copyDir copies the regular files of src into a new directory, as the
// documented restore (cp -a) does.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		in, err := os.Open(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dst, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		in.Close()
		out.Close()
	}
	return dst
}

// TestSnapshotUnderWrites takes snapshots while a writer writes rows one
// after another and LevelDB flushes and compacts (a tiny memtable makes it
// do so constantly). Opened from a copy, each snapshot holds a prefix of
// the rows: every row acknowledged before Snapshot was called, none
// begun after it returned, each row whole.
func TestSnapshotUnderWrites(t *testing.T) {
	dir := t.TempDir()
	s := testSchema(t, "OrderPreservingPartitioner")
	st := open(t, dir, s, Options{WriteBufferSize: 64 << 10})
	defer st.Close()

	var acked atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		value := strings.Repeat("v", 500)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			row := engine.RowMutation{Key: fmt.Sprintf("row%07d", i), Mutations: []engine.Mutation{
				{ColumnFamily: "Standard1", Name: []byte("a"), Value: []byte(value), Timestamp: 1},
				{ColumnFamily: "Standard2", Name: []byte("b"), Value: []byte(value), Timestamp: 1},
			}}
			if err := st.Apply(ctx, ks, []engine.RowMutation{row}); err != nil {
				t.Errorf("write %d: %v", i, err)
				return
			}
			acked.Store(int64(i + 1))
		}
	}()

	type taken struct {
		name          string
		before, after int64
	}
	var snaps []taken
	for i := range 4 {
		for acked.Load() < int64(200*(i+1)) {
			time.Sleep(time.Millisecond) // let the writer write
		}
		before := acked.Load()
		name := fmt.Sprint("s", i)
		info, err := st.Snapshot(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, taken{name, before, acked.Load() + 1})
		t.Logf("snapshot %s: %d files, %d bytes, calls paused %v", name, info.Files, info.Bytes, info.Paused)
	}
	close(stop)
	wg.Wait()

	for _, sn := range snaps {
		copy := copyDir(t, filepath.Join(dir, SnapshotDir, sn.name))
		restored := open(t, copy, s, Options{})
		n := int64(0)
		for ; ; n++ {
			key := fmt.Sprintf("row%07d", n)
			a, err := restored.Get(ctx, ks, key, engine.Query{ColumnFamily: "Standard1", Predicate: all(10)})
			if err != nil {
				t.Fatal(err)
			}
			b, err := restored.Get(ctx, ks, key, engine.Query{ColumnFamily: "Standard2", Predicate: all(10)})
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Columns) != len(b.Columns) {
				t.Errorf("snapshot %s: %s is half there", sn.name, key)
			}
			if len(a.Columns) == 0 {
				break
			}
		}
		if n < sn.before || n > sn.after {
			t.Errorf("snapshot %s holds rows 0..%d; want at least the %d acknowledged before it and at most the %d begun before it returned", sn.name, n, sn.before, sn.after)
		}
		// Nothing after the prefix either.
		rows, err := restored.Range(ctx, ks, engine.TokenRange{}, engine.Query{ColumnFamily: "Standard1", Predicate: all(1)}, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(rows)) != n {
			t.Errorf("snapshot %s: %d rows in all, a prefix of %d", sn.name, len(rows), n)
		}
		restored.Close()
	}
}

func TestSnapshotNames(t *testing.T) {
	st := newStore(t)
	apply(t, st, put("Standard1", "k", "c", "v", 1))
	for _, bad := range []string{".hidden", "-x", "a/b", "..", strings.Repeat("x", 129)} {
		if _, err := st.Snapshot(ctx, bad); err == nil {
			t.Errorf("snapshot %q was taken", bad)
		}
	}
	info, err := st.Snapshot(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Name) != 13 || !filepath.IsAbs(info.Dir) || info.Files < 3 {
		t.Errorf("unnamed snapshot: %+v", info)
	}
	if _, err := st.Snapshot(ctx, "one"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Snapshot(ctx, "one"); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("a second snapshot one: %v", err)
	}
	list, err := st.Snapshots()
	if err != nil || len(list) != 2 {
		t.Fatalf("snapshots: %v %+v", err, list)
	}
	if removed, err := st.ClearSnapshot("one"); err != nil || len(removed) != 1 {
		t.Errorf("clear one: %v %v", removed, err)
	}
	if _, err := st.ClearSnapshot("one"); err == nil {
		t.Error("clearing a removed snapshot succeeded")
	}
	if removed, err := st.ClearSnapshot(""); err != nil || len(removed) != 1 || removed[0] != info.Name {
		t.Errorf("clear all: %v %v", removed, err)
	}
	// The store is untouched.
	r, err := st.Get(ctx, ks, "k", engine.Query{ColumnFamily: "Standard1", Predicate: all(10)})
	if err != nil || render(r) != "c=v@1" {
		t.Errorf("after the snapshots: %q %v", render(r), err)
	}
	st.Close()
	if _, err := st.Snapshot(ctx, "late"); err == nil {
		t.Error("a closed store took a snapshot")
	}
}

func TestFlushCompactStats(t *testing.T) {
	st := newStore(t)
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		v := make([]byte, 1000) // incompressible, so the sizes are predictable
		for j := range v {
			v[j] = byte(rnd.Uint32())
		}
		apply(t, st, put("Standard1", fmt.Sprint("k", i), "c", string(v), 1))
	}
	before, err := st.StoreStats()
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := st.StoreStats()
	if err != nil {
		t.Fatal(err)
	}
	if after.Tables <= before.Tables || after.LiveBytes < 200*1000/2 {
		t.Errorf("flush: tables %d -> %d, live bytes %d", before.Tables, after.Tables, after.LiveBytes)
	}
	one, err := st.FamilyStats(ks, "Standard1")
	if err != nil {
		t.Fatal(err)
	}
	two, err := st.FamilyStats(ks, "Standard2")
	if err != nil {
		t.Fatal(err)
	}
	if one.LiveBytes < 200*1000/2 || two.LiveBytes >= one.LiveBytes/10 || one.Tables != after.Tables {
		t.Errorf("family stats: Standard1 %+v, Standard2 %+v", one, two)
	}
	for _, c := range []struct{ ks, cf string }{{"", ""}, {ks, ""}, {ks, "Standard1"}} {
		if err := st.Compact(ctx, c.ks, c.cf); err != nil {
			t.Errorf("compact %q %q: %v", c.ks, c.cf, err)
		}
	}
	if err := st.Compact(ctx, "Nope", ""); err == nil {
		t.Error("compacting an unknown keyspace succeeded")
	}
	if err := st.Compact(ctx, ks, "Nope"); err == nil {
		t.Error("compacting an unknown column family succeeded")
	}
	r, err := st.Get(ctx, ks, "k7", engine.Query{ColumnFamily: "Standard1", Predicate: all(10)})
	if err != nil || len(r.Columns) != 1 {
		t.Errorf("after compaction: %q %v", render(r), err)
	}
}

// TestSnapshotDuringCompaction takes snapshots while full compactions
// run: neither waits for the other, and each snapshot opens whole.
func TestSnapshotDuringCompaction(t *testing.T) {
	dir := t.TempDir()
	s := testSchema(t, "OrderPreservingPartitioner")
	st := open(t, dir, s, Options{WriteBufferSize: 64 << 10})
	defer st.Close()
	for i := range 1000 {
		apply(t, st, put("Standard1", fmt.Sprintf("k%05d", i), "c", strings.Repeat("v", 200), 1))
	}
	done := make(chan error, 1)
	go func() {
		for range 3 {
			if err := st.Compact(ctx, "", ""); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for i := range 3 {
		name := fmt.Sprint("c", i)
		if _, err := st.Snapshot(ctx, name); err != nil {
			t.Fatal(err)
		}
		restored := open(t, copyDir(t, filepath.Join(dir, SnapshotDir, name)), s, Options{})
		rows, err := restored.Range(ctx, ks, engine.TokenRange{}, engine.Query{ColumnFamily: "Standard1", Predicate: all(1)}, 1<<30)
		restored.Close()
		if err != nil || len(rows) != 1000 {
			t.Fatalf("snapshot %s: %d rows, %v", name, len(rows), err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
