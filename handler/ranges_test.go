package handler

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra"
)

func TestRingRange(t *testing.T) {
	tok := func(s string) dht.Token { return dht.Token(s) }
	minTok := dht.Token{}
	tests := []struct {
		name        string
		left, right dht.Token
		want        []engine.TokenRange
	}{
		{"ordered", tok("b"), tok("d"), []engine.TokenRange{{Start: tok("b"), End: tok("d")}}},
		{"to the end of the ring", tok("b"), minTok, []engine.TokenRange{{Start: tok("b"), End: minTok}}},
		{"whole ring from the minimum", minTok, minTok, []engine.TokenRange{{Start: minTok, End: minTok}}},
		{"from the minimum", minTok, tok("c"), []engine.TokenRange{{Start: minTok, End: tok("c")}}},
		{"wrapping", tok("d"), tok("b"), []engine.TokenRange{{Start: tok("d")}, {Start: minTok, StartInclusive: true, End: tok("b")}}},
		{"whole ring after a token", tok("c"), tok("c"), []engine.TokenRange{{Start: tok("c")}, {Start: minTok, StartInclusive: true, End: tok("c")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := engine.RingRange(tt.left, tt.right)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("RingRange = %v, want %v", got, tt.want)
			}
		})
	}
}

// ringOrder sorts keys as the partitioner places them on the ring: by
// token, then by key. It is the order every range read must return.
func ringOrder(p dht.Partitioner, keys []string) []string {
	out := slices.Clone(keys)
	slices.SortFunc(out, func(a, b string) int {
		if c := bytes.Compare(p.Token(a), p.Token(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return out
}

func sliceKeys(ks []*cassandra.KeySlice) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.Key
	}
	return out
}

func (e *testEnv) ranges(t *testing.T, ks string, cp *cassandra.ColumnParent, pred *cassandra.SlicePredicate, kr *cassandra.KeyRange) []*cassandra.KeySlice {
	t.Helper()
	r, err := e.c.GetRangeSlices(e.ctx, ks, cp, pred, kr, one)
	if err != nil {
		t.Fatalf("get_range_slices: %v", err)
	}
	return r
}

func (e *testEnv) rangeSlice(t *testing.T, ks string, cp *cassandra.ColumnParent, pred *cassandra.SlicePredicate, start, finish string, count int32) []*cassandra.KeySlice {
	t.Helper()
	r, err := e.c.GetRangeSlice(e.ctx, ks, cp, pred, start, finish, count, one)
	if err != nil {
		t.Fatalf("get_range_slice: %v", err)
	}
	return r
}

func tokenRange(p dht.Partitioner, start, end dht.Token, count int32) *cassandra.KeyRange {
	s, f := p.TokenString(start), p.TokenString(end)
	return &cassandra.KeyRange{StartToken: &s, EndToken: &f, Count: count}
}

func TestEmptyRange(t *testing.T) {
	e := newEnv(t)
	if r := e.rangeSlice(t, ks1, parent("Standard1", nil), names("c1", "c1"), "", "", 1000); len(r) != 0 {
		t.Errorf("empty store: %v", sliceKeys(r))
	}
	e.insertSimple(t)
	// Rows that exist only in another column family are not returned.
	if r := e.rangeSlice(t, ks1, parent("Super1", nil), names("c1", "c1"), "", "", 1000); len(r) != 0 {
		t.Errorf("Super1: %v", sliceKeys(r))
	}
}

func TestRangeWithRemove(t *testing.T) {
	for _, whole := range []bool{false, true} {
		t.Run(fmt.Sprintf("whole row %v", whole), func(t *testing.T) {
			e := newEnv(t)
			e.insertSimple(t)
			if r := e.rangeSlice(t, ks1, parent("Standard1", nil), names("c1", "c1"), "key1", "", 1000); len(r) == 0 || r[0].Key != "key1" {
				t.Fatalf("before remove: %v", sliceKeys(r))
			}
			if whole {
				must(t, e.c.Remove(e.ctx, ks1, "key1", path("Standard1", nil, nil), 1, one))
			} else {
				must(t, e.c.Remove(e.ctx, ks1, "key1", path("Standard1", nil, b("c1")), 1, one))
				must(t, e.c.Remove(e.ctx, ks1, "key1", path("Standard1", nil, b("c2")), 1, one))
			}
			// The removed row is still listed, without columns: a range ghost.
			r := e.rangeSlice(t, ks1, parent("Standard1", nil), names("c1", "c2"), "", "", 1000)
			if len(r) != 1 || r[0].Key != "key1" || r[0].Columns == nil || len(r[0].Columns) != 0 {
				t.Errorf("after remove: %v", r)
			}
		})
	}
}

// collationKeys are the keys of test_range_collation and test_range_partial.
func collationKeys() []string {
	keys := []string{"-a", "-b", "a", "b"}
	for i := 0; i < 100; i++ {
		keys = append(keys, fmt.Sprint(i))
	}
	return keys
}

func TestRangeOrderAndPartialRanges(t *testing.T) {
	e := newEnv(t)
	p := e.svc.schema.Partitioner
	keys := collationKeys()
	for _, k := range keys {
		must(t, e.c.Insert(e.ctx, ks1, k, path("Standard1", nil, b(k)), b("v"), 0, one))
	}
	ordered := ringOrder(p, keys)
	pred := names("-a", "-a")
	if got := sliceKeys(e.rangeSlice(t, ks1, parent("Standard1", nil), pred, "", "", 1000)); !slices.Equal(got, ordered) {
		t.Errorf("whole range:\n got %v\nwant %v", got, ordered)
	}
	// between returns the keys whose tokens lie in [token(s), token(f)],
	// with f == "" meaning no bound, in ring order.
	between := func(s, f string, limit int) []string {
		var out []string
		for _, k := range ordered {
			if bytes.Compare(p.Token(k), p.Token(s)) >= 0 && (f == "" || bytes.Compare(p.Token(k), p.Token(f)) <= 0) {
				out = append(out, k)
			}
		}
		return out[:min(limit, len(out))]
	}
	for _, tt := range []struct {
		start, finish string
		count         int32
	}{
		{"a", "", 1000},
		{"", "15", 1000},
		{"50", "51", 1000},
		{"1", "", 10},
		{"50", "50", 1000},
	} {
		want := between(tt.start, tt.finish, int(tt.count))
		got := sliceKeys(e.rangeSlice(t, ks1, parent("Standard1", nil), pred, tt.start, tt.finish, tt.count))
		if !slices.Equal(got, want) {
			t.Errorf("[%q, %q] count %d:\n got %v\nwant %v", tt.start, tt.finish, tt.count, got, want)
		}
	}
	if got := sliceKeys(e.rangeSlice(t, ks1, parent("Standard1", nil), pred, "50", "50", 1000)); !slices.Equal(got, []string{"50"}) {
		t.Errorf("start == end key: %v, want just that row", got)
	}
}

func TestGetRangeSlice(t *testing.T) {
	e := newEnv(t)
	keys := []string{"key1", "key2", "key3", "key4", "key5"}
	for _, k := range keys {
		for _, c := range []string{"col1", "col2", "col3", "col4", "col5"} {
			must(t, e.c.Insert(e.ctx, ks1, k, path("Standard1", nil, b(c)), b("v-"+c), 0, one))
		}
	}
	p := e.svc.schema.Partitioner
	cp := parent("Standard1", nil)
	columnNames := func(ks *cassandra.KeySlice) string {
		var s []string
		for _, c := range ks.Columns {
			s = append(s, string(c.Column.Name))
		}
		return strings.Join(s, " ")
	}

	// Every key after the last one: nothing.
	if bytes.Compare(p.Token("key6"), p.Token("key5")) > 0 {
		if r := e.rangeSlice(t, ks1, cp, names("col1", "col3"), "key6", "", 1); len(r) != 0 {
			t.Errorf("after the last key: %v", sliceKeys(r))
		}
	}
	// A row with none of the names is returned without columns.
	r := e.rangeSlice(t, ks1, cp, names("a"), "key2", "", 1)
	if len(r) != 1 || len(r[0].Columns) != 0 {
		t.Errorf("no matching columns: %v", r)
	}

	r = e.rangeSlice(t, ks1, cp, names("col1", "col3"), "key2", "key4", 5)
	if len(r) != 3 || columnNames(r[0]) != "col1 col3" {
		t.Errorf("names: %v", r)
	}
	if r := e.rangeSlice(t, ks1, cp, names("col1", "col3"), "key2", "key4", 1); len(r) != 1 {
		t.Errorf("row count 1: %d rows", len(r))
	}

	r = e.rangeSlice(t, ks1, cp, sliceRange(b("col2"), b("col4"), false, 5), "key1", "key2", 5)
	if got := sliceKeys(r); !slices.Equal(got, ringOrder(p, []string{"key1", "key2"})) || columnNames(r[0]) != "col2 col3 col4" {
		t.Errorf("slice range: %v %v", got, r)
	}
	r = e.rangeSlice(t, ks1, cp, sliceRange(b("col2"), b("col4"), false, 2), "key1", "key2", 5)
	if columnNames(r[0]) != "col2 col3" {
		t.Errorf("column count: %v", r[0])
	}
	r = e.rangeSlice(t, ks1, cp, sliceRange(b("col4"), b("col2"), true, 5), "key1", "key2", 5)
	if columnNames(r[0]) != "col4 col3 col2" {
		t.Errorf("reversed: %v", r[0])
	}
	if r := e.rangeSlice(t, ks1, cp, sliceRange(b("col2"), b("col4"), false, 5), "key1", "key2", 1); len(r) != 1 {
		t.Errorf("row count: %d", len(r))
	}

	must(t, e.c.Remove(e.ctx, ks1, "key1", path("Standard1", nil, b("col1")), 1, one))
	r = e.rangeSlice(t, ks1, cp, sliceRange(nil, nil, false, 100), "key1", "key2", 5)
	byKey := map[string]string{}
	for _, ks := range r {
		byKey[ks.Key] = columnNames(ks)
	}
	if byKey["key1"] != "col2 col3 col4 col5" || byKey["key2"] != "col1 col2 col3 col4 col5" {
		t.Errorf("removed data: %v", byKey)
	}
}

func TestGetRangeSliceSuper(t *testing.T) {
	e := newEnv(t)
	for _, k := range []string{"key1", "key2", "key3", "key4", "key5"} {
		for _, c := range []string{"col1", "col2", "col3", "col4", "col5"} {
			must(t, e.c.Insert(e.ctx, "Keyspace2", k, path("Super3", b("sc1"), b(c)), b("v-"+c), 0, one))
		}
	}
	r := e.rangeSlice(t, "Keyspace2", parent("Super3", b("sc1")), names("col1", "col3"), "key2", "key4", 5)
	if len(r) != 3 || coscString(r[0].Columns) != columnsString(col("col1", "v-col1", 0), col("col3", "v-col3", 0)) {
		t.Errorf("subcolumns: %v", r)
	}
	r = e.rangeSlice(t, "Keyspace2", parent("Super3", nil), names("sc1"), "key2", "key4", 5)
	if len(r) != 3 {
		t.Fatalf("super columns: %d rows", len(r))
	}
	for _, ks := range r {
		if len(ks.Columns) != 1 || string(ks.Columns[0].SuperColumn.Name) != "sc1" || len(ks.Columns[0].SuperColumn.Columns) != 5 {
			t.Errorf("row %s: %s", ks.Key, coscString(ks.Columns))
		}
	}
}

func TestGetRangeSlicesTokens(t *testing.T) {
	e := newEnv(t)
	p := e.svc.schema.Partitioner
	keys := []string{"key1", "key2", "key3", "key4", "key5"}
	for _, k := range keys {
		for _, c := range []string{"col1", "col2", "col3", "col4", "col5"} {
			must(t, e.c.Insert(e.ctx, "Keyspace2", k, path("Super3", b("sc1"), b(c)), b("v-"+c), 0, one))
		}
	}
	// start == end is the whole ring, whichever token it is.
	elsewhere := p.Token("something else")
	r := e.ranges(t, "Keyspace2", parent("Super3", b("sc1")), names("col1", "col3"), tokenRange(p, elsewhere, elsewhere, 100))
	if len(r) != 5 || coscString(r[0].Columns) != columnsString(col("col1", "v-col1", 0), col("col3", "v-col3", 0)) {
		t.Errorf("whole ring: %v", sliceKeys(r))
	}
}

func TestWrappedRangeSlices(t *testing.T) {
	e := newEnv(t)
	p := e.svc.schema.Partitioner
	keys := []string{"a", "b", "c", "d", "e"}
	for _, k := range keys {
		for _, c := range []string{"col1", "col2", "col3", "col4", "col5"} {
			must(t, e.c.Insert(e.ctx, ks1, k, path("Standard1", nil, b(c)), b("v-"+c), 0, one))
		}
	}
	ring := ringOrder(p, keys)
	// after returns the ring starting just after position i and wrapping
	// back to it.
	after := func(i int) []string { return append(slices.Clone(ring[i+1:]), ring[:i+1]...) }
	cp, pred := parent("Standard1", nil), names("col1", "col3")
	tok := p.Token
	minTok := dht.Token{}
	for _, tt := range []struct {
		name       string
		start, end dht.Token
		count      int32
		want       []string
	}{
		{"last to last", tok(ring[4]), tok(ring[4]), 100, after(4)},
		{"middle to middle", tok(ring[2]), tok(ring[2]), 100, after(2)},
		{"middle to middle, cut", tok(ring[2]), tok(ring[2]), 3, after(2)[:3]},
		{"start exclusive, end inclusive", tok(ring[0]), tok(ring[2]), 100, ring[1:3]},
		{"wrapping", tok(ring[3]), tok(ring[1]), 100, append([]string{ring[4]}, ring[:2]...)},
		{"wrapping, cut before the wrap", tok(ring[2]), tok(ring[0]), 2, ring[3:5]},
		{"end at the minimum is the end of the ring", tok(ring[2]), minTok, 100, ring[3:]},
		{"minimum to minimum is everything", minTok, minTok, 100, ring},
		{"from the minimum", minTok, tok(ring[1]), 100, ring[:2]},
	} {
		got := sliceKeys(e.ranges(t, ks1, cp, pred, tokenRange(p, tt.start, tt.end, tt.count)))
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}
