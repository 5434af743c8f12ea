package cqlstore

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
)

// TestRangeDeletionLayouts: in every layout a 19.x Standard family may
// have (a typed column1, a DESC one, a blob of encoded names, the
// composite shape), a range deletion deletes exactly what a forward slice
// of the same bounds reads, and keeps shadowing writes at or before it.
// A composite family with a ReversedType component refuses it.
func TestRangeDeletionLayouts(t *testing.T) {
	base := storetest.TestSchema(t, "RandomPartitioner")
	st, _ := openFresh(t, base, 864000)
	next := with19(base, "R",
		family12(t, "Text", "UTF8Type"),
		family12(t, "Rev", "LongType(reversed=true)"),
		family12(t, "Comp", "CompositeType(UTF8Type,LongType)"),
		family12(t, "CompDate", "CompositeType(UTF8Type,DateType)"),
		family12(t, "CompDesc", "CompositeType(UTF8Type,ReversedType(LongType))"))
	change(t, st, next, "1")
	ctx := context.Background()
	L := storetest.Long
	comp := func(eoc byte, s string, n ...int64) []byte {
		parts := [][]byte{[]byte(s)}
		for _, v := range n {
			parts = append(parts, L(v))
		}
		return compositeName(eoc, parts...)
	}
	read := func(cf, key string, p engine.Predicate) []string {
		t.Helper()
		row, err := st.Get(ctx, "R", key, engine.Query{ColumnFamily: cf, Predicate: p})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range row.Columns {
			out = append(out, string(c.Value))
		}
		return out
	}
	type rng struct{ start, finish []byte }
	cases := []struct {
		cf     string
		names  [][]byte
		ranges []rng
	}{
		{"Text", [][]byte{[]byte("a"), []byte("b"), []byte("c"), []byte("d")},
			[]rng{{[]byte("b"), []byte("c")}, {nil, []byte("b")}, {[]byte("c"), nil}, {nil, nil}}},
		{"Rev", [][]byte{L(-2), L(0), L(3), L(9)},
			[]rng{{L(3), L(0)}, {nil, L(3)}, {L(0), nil}, {L(9), L(9)}}},
		{"Comp", [][]byte{comp(0, "a"), comp(0, "a", -1), comp(0, "a", 1), comp(0, "b", 0), comp(0, "c", 7)},
			[]rng{{comp(0, "a"), comp(1, "a")}, {comp(0, "a"), comp(0, "a")}, {comp(1, "a"), nil}, {comp(0, "a", 1), comp(0, "b")},
				{comp(0xff, "b"), comp(0, "b", 0)}, {nil, comp(0xff, "b")}, {comp(0, "a", -1), comp(0, "a", 1)}}},
		{"CompDate", [][]byte{comp(0, "a", 1), comp(0, "a", 2), comp(0, "b", 1)},
			[]rng{{comp(0, "a"), comp(1, "a")}, {comp(0, "a", 2), nil}}},
	}
	for _, tc := range cases {
		for i, r := range tc.ranges {
			key := tc.cf + string(rune('a'+i))
			for _, n := range tc.names {
				apply(t, st, "R", engine.RowMutation{Key: key, Mutations: []engine.Mutation{{ColumnFamily: tc.cf, Name: n, Value: []byte(hexName(n)), Timestamp: 10}}})
			}
			before := read(tc.cf, key, storetest.All(100))
			gone := map[string]bool{}
			for _, v := range read(tc.cf, key, engine.Predicate{Start: r.start, Finish: r.finish, Count: 100}) {
				gone[v] = true
			}
			var want []string
			for _, v := range before {
				if !gone[v] {
					want = append(want, v)
				}
			}
			apply(t, st, "R", engine.RowMutation{Key: key, Mutations: []engine.Mutation{{ColumnFamily: tc.cf, Timestamp: 20, Delete: true,
				Range: &engine.NameRange{Start: r.start, Finish: r.finish}}}})
			if got := read(tc.cf, key, storetest.All(100)); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s, range %x to %x: left %v, want %v", tc.cf, r.start, r.finish, got, want)
			}
			// Writes at or before the deletion stay hidden.
			for _, n := range tc.names {
				apply(t, st, "R", engine.RowMutation{Key: key, Mutations: []engine.Mutation{{ColumnFamily: tc.cf, Name: n, Value: []byte(hexName(n)), Timestamp: 15}}})
			}
			if got := read(tc.cf, key, storetest.All(100)); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s, range %x to %x, after older writes: left %v, want %v", tc.cf, r.start, r.finish, got, want)
			}
		}
	}
	err := st.Apply(ctx, "R", []engine.RowMutation{{Key: "k", Mutations: []engine.Mutation{{ColumnFamily: "CompDesc", Timestamp: 20, Delete: true,
		Range: &engine.NameRange{Start: comp(0, "a")}}}}})
	var refused *engine.RefusedError
	if !errors.As(err, &refused) || !strings.Contains(err.Error(), "ReversedType component") {
		t.Errorf("range deletion in CompDesc: %v, want it refused", err)
	}
}

func hexName(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}
