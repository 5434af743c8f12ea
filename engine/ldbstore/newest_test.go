package ldbstore

import (
	"fmt"
	"testing"

	"github.com/thriftd/thriftd/engine"
)

// Writes stamped by a clock, single or a hundred to a row, never read the
// store; a tie or an out-of-order timestamp does, and reconciles.
func TestClockedWritesDoNotRead(t *testing.T) {
	st := newStore(t)
	ts := int64(1_700_000_000_000_000)
	for i := range 200 {
		ts++
		apply(t, st, put("Standard1", fmt.Sprint("k", i%7), "c", "v", ts))
	}
	var wide []engine.Mutation
	for i := range 100 {
		wide = append(wide, engine.Mutation{ColumnFamily: "Standard1", Name: []byte(fmt.Sprintf("c%03d", i)), Value: []byte("v"), Timestamp: ts + 1})
	}
	apply(t, st, engine.RowMutation{Key: "k1", Mutations: wide}, engine.RowMutation{Key: "k1", Mutations: []engine.Mutation{{ColumnFamily: "Standard1", Delete: true, Timestamp: ts + 2}}})
	if n := st.writeReads.Load(); n != 0 {
		t.Fatalf("clocked writes read the store %d times", n)
	}
	// A tie: the greater value wins, so the stored one must be read.
	apply(t, st, put("Standard1", "k0", "c", "a", ts-6), put("Standard1", "k0", "c", "b", ts-6))
	if st.writeReads.Load() == 0 {
		t.Fatal("a tie did not read the stored version")
	}
	expect(t, get(t, st, "Standard1", "k0", nil, all(10)), fmt.Sprintf("c=v@%d", ts-3))
	expect(t, get(t, st, "Standard1", "k1", nil, all(10)), "")
}

// The bound of stored timestamps survives a restart, clean or not, and a
// directory without one is scanned for it: an older write never replaces
// a newer stored version.
func TestTimestampBoundSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	s := testSchema(t, "OrderPreservingPartitioner")
	st := open(t, dir, s, Options{})
	apply(t, st, put("Standard1", "k", "c", "new", 100), del("Standard1", "d", nil, nil, 100))
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = open(t, dir, s, Options{})
	apply(t, st, put("Standard1", "k", "c", "old", 50), put("Standard1", "d", "c", "old", 50))
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "c=new@100")
	expect(t, get(t, st, "Standard1", "d", nil, all(10)), "")
	apply(t, st, put("Standard1", "k", "c", "newer", 1000))
	// A crash: the process ends without Close.
	st.db.Close()
	st.Close()
	st = open(t, dir, s, Options{})
	apply(t, st, put("Standard1", "k", "c", "old", 999))
	expect(t, get(t, st, "Standard1", "k", nil, all(10)), "c=newer@1000")
	if st.ceiling.Load() < 1000 {
		t.Errorf("bound after a crash is %d, below the stored 1000", st.ceiling.Load())
	}
	st.Close()
}
