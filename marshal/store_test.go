package marshal_test

import (
	"context"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/ldbstore"
	"github.com/thriftd/thriftd/engine/storetest"
	"github.com/thriftd/thriftd/marshal"
)

func compositeName(eoc byte, parts ...[]byte) []byte {
	var b []byte
	for i, p := range parts {
		b = binary.BigEndian.AppendUint16(b, uint16(len(p)))
		b = append(b, p...)
		if i == len(parts)-1 {
			b = append(b, eoc)
		} else {
			b = append(b, 0)
		}
	}
	return b
}

func long(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

// TestStoreSlicesComposite stores names of a 1.2 composite type in the
// LevelDB store, which orders them by their encodings alone, and slices
// them with bounds whose last end-of-component byte is -1 and 1, as
// Hector and pycassa build them: the slice is the names of one prefix, in
// the composite's order (its second component reversed).
func TestStoreSlicesComposite(t *testing.T) {
	c, err := marshal.Parse("CompositeType(UTF8Type,LongType(reversed=true))")
	if err != nil {
		t.Fatal(err)
	}
	s := storetest.TestSchema(t, "OrderPreservingPartitioner")
	ks := s.Keyspaces[storetest.Keyspace]
	cf := *ks.ColumnFamilies["Standard1"]
	cf.Name, cf.Comparator = "Composite", c
	ks.ColumnFamilies[cf.Name] = &cf
	st, err := ldbstore.Open(t.TempDir(), s, ldbstore.Options{PurgeInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	var muts []engine.Mutation
	for _, u := range []string{"a", "b", "c"} {
		for _, v := range []int64{-5, 0, 7} {
			muts = append(muts, engine.Mutation{ColumnFamily: cf.Name, Name: compositeName(0, []byte(u), long(v)), Value: []byte("x"), Timestamp: 1})
		}
	}
	if err := st.Apply(ctx, storetest.Keyspace, []engine.RowMutation{{Key: "k", Mutations: muts}}); err != nil {
		t.Fatal(err)
	}
	before, after := compositeName(0xFF, []byte("b")), compositeName(1, []byte("b"))
	want := [][]byte{compositeName(0, []byte("b"), long(7)), compositeName(0, []byte("b"), long(0)), compositeName(0, []byte("b"), long(-5))}
	for _, reversed := range []bool{false, true} {
		p := engine.Predicate{Start: before, Finish: after, Count: 100}
		w := slices.Clone(want)
		if reversed {
			p.Start, p.Finish, p.Reversed = after, before, true
			slices.Reverse(w)
		}
		row, err := st.Get(ctx, storetest.Keyspace, "k", engine.Query{ColumnFamily: cf.Name, Predicate: p})
		if err != nil {
			t.Fatal(err)
		}
		var got [][]byte
		for _, col := range row.Columns {
			got = append(got, col.Name)
		}
		if !slices.EqualFunc(got, w, slices.Equal) {
			t.Errorf("reversed %v: slice %x to %x = %x, want %x", reversed, p.Start, p.Finish, got, w)
		}
	}
}
