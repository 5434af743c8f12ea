package diff19

import (
	"encoding/binary"
	"fmt"
	"testing"

	c19 "github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
)

// TestRangeDeletionsAgainst21 compares range deletions (a Deletion whose
// predicate is a SliceRange, which 2.0 added and 1.2 refused) and every
// read after them with Cassandra 2.1.21: rows of a Standard family, whole
// super columns by range, a range of one super column's subcolumns, a
// composite family, a counter family and an indexed one, with the bounds
// empty, equal, inverted and reversed, later writes above and below the
// deletion's timestamp, and the malformed deletions' messages.
func TestRangeDeletionsAgainst21(t *testing.T) {
	bytesType := "org.apache.cassandra.db.marshal.BytesType"
	d := setup21With(t, "RangeDel_", []family21{
		{name: "C", typ: "Standard", comparator: bytesType},
		{name: "S", typ: "Super", comparator: bytesType},
		{name: "K", typ: "Standard", comparator: "org.apache.cassandra.db.marshal.CompositeType(org.apache.cassandra.db.marshal.UTF8Type,org.apache.cassandra.db.marshal.LongType)"},
		{name: "R", typ: "Standard", comparator: "org.apache.cassandra.db.marshal.ReversedType(org.apache.cassandra.db.marshal.LongType)"},
		{name: "Counts", typ: "Standard", comparator: bytesType, values: "org.apache.cassandra.db.marshal.CounterColumnType"},
		{name: "I", typ: "Standard", comparator: bytesType, indexed: "x"},
	})
	d.setKeyspace(d.ks)

	mutate := func(label, key, cf string, ms ...*c19.Mutation) {
		t.Helper()
		d.call(label, nil, func(cl *client) (any, error) {
			return void(cl.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{key: {cf: ms}}, one))
		})
	}
	rangeDel := func(sc []byte, start, finish []byte, reversed bool, count int32, at *int64) *c19.Mutation {
		return &c19.Mutation{Deletion: &c19.Deletion{Timestamp: at, SuperColumn: sc,
			Predicate: &c19.SlicePredicate{SliceRange: &c19.SliceRange{Start: start, Finish: finish, Reversed: reversed, Count: count}}}}
	}
	del := func(label, key, cf string, sc []byte, start, finish string, reversed bool) {
		t.Helper()
		mutate(label, key, cf, rangeDel(sc, []byte(start), []byte(finish), reversed, 100, ts()))
	}
	at := func(v int64) *int64 { return &v }
	insertAt := func(label, key string, p *c19.ColumnParent, name []byte, value string, when int64) {
		t.Helper()
		d.call(label, nil, func(cl *client) (any, error) {
			return void(cl.Insert(ctx, []byte(key), p, &c19.Column{Name: name, Value: []byte(value), Timestamp: at(when)}, one))
		})
	}
	reads := func(label, key string, p *c19.ColumnParent) {
		t.Helper()
		d.call(label+": get_slice", nil, func(cl *client) (any, error) {
			return cl.GetSlice(ctx, []byte(key), p, allColumns(), one)
		})
		d.call(label+": get_slice reversed, 2", nil, func(cl *client) (any, error) {
			return cl.GetSlice(ctx, []byte(key), p, &c19.SlicePredicate{SliceRange: &c19.SliceRange{Start: []byte{}, Finish: []byte{}, Reversed: true, Count: 2}}, one)
		})
		d.call(label+": get_count", nil, func(cl *client) (any, error) {
			return cl.GetCount(ctx, []byte(key), p, allColumns(), one)
		})
		d.call(label+": multiget_slice", nil, func(cl *client) (any, error) {
			return cl.MultigetSlice(ctx, [][]byte{[]byte(key), []byte("nobody")}, p, allColumns(), one)
		})
		d.call(label+": multiget_count", nil, func(cl *client) (any, error) {
			return cl.MultigetCount(ctx, [][]byte{[]byte(key)}, p, allColumns(), one)
		})
	}
	rows := func(label, cf string) {
		t.Helper()
		kr := &c19.KeyRange{StartKey: []byte{}, EndKey: []byte{}, Count: 100}
		d.call(label+": get_range_slices", nil, func(cl *client) (any, error) {
			return cl.GetRangeSlices(ctx, parent(cf), allColumns(), kr, one)
		})
		d.call(label+": get_paged_slice", nil, func(cl *client) (any, error) {
			return cl.GetPagedSlice(ctx, cf, kr, []byte{}, one)
		})
	}
	five := []string{"a", "b", "c", "d", "e"}
	fill := func(key, cf string, sc []byte, names []string) {
		t.Helper()
		for _, n := range names {
			d.call("insert "+key+"/"+n, nil, func(cl *client) (any, error) {
				return void(cl.Insert(ctx, []byte(key), &c19.ColumnParent{ColumnFamily: cf, SuperColumn: sc}, col(n, "v"+n), one))
			})
		}
	}

	// The malformed ones, with 2.1's messages (1.2's checks).
	mutate("finish before start", "m", "C", rangeDel(nil, []byte("d"), []byte("b"), false, 100, ts()))
	mutate("reversed with start before finish", "m", "C", rangeDel(nil, []byte("b"), []byte("d"), true, 100, ts()))
	mutate("negative count", "m", "C", rangeDel(nil, []byte("b"), []byte("d"), false, -1, ts()))
	mutate("without a timestamp", "m", "C", rangeDel(nil, []byte("b"), []byte("d"), false, 100, nil))
	mutate("with a super column in a standard family", "m", "C", rangeDel([]byte("x"), []byte("a"), []byte("b"), false, 100, ts()))
	mutate("a bound the composite refuses", "m", "K", rangeDel(nil, []byte("zz"), []byte{}, false, 100, ts()))
	mutate("a bound past the length limit", "m", "C", rangeDel(nil, make([]byte, 65536), []byte{}, false, 100, ts()))
	mutate("finish before start in a ReversedType family", "m", "R", rangeDel(nil, long(1), long(5), false, 100, ts()))
	mutate("an empty predicate", "m", "C", &c19.Mutation{Deletion: &c19.Deletion{Timestamp: ts(), Predicate: &c19.SlicePredicate{}}})
	mutate("a bad mutation after a range deletion", "m", "C", rangeDel(nil, []byte("a"), []byte("b"), false, 100, ts()),
		&c19.Mutation{Deletion: &c19.Deletion{Timestamp: ts(), Predicate: names("")}})
	reads("nothing written by the refused calls", "m", parent("C"))

	// A Standard row.
	fill("r", "C", nil, five)
	del("delete b to d", "r", "C", nil, "b", "d", false)
	reads("after b to d", "r", parent("C"))
	d.call("get of a deleted column", nil, func(cl *client) (any, error) { return cl.Get(ctx, []byte("r"), path("C", "c"), one) })
	d.call("get_slice by names", nil, func(cl *client) (any, error) {
		return cl.GetSlice(ctx, []byte("r"), parent("C"), names("a", "c", "e"), one)
	})
	d.call("get_slice from b, 1", nil, func(cl *client) (any, error) {
		return cl.GetSlice(ctx, []byte("r"), parent("C"), &c19.SlicePredicate{SliceRange: &c19.SliceRange{Start: []byte("b"), Finish: []byte{}, Count: 1}}, one)
	})
	rows("after b to d", "C")
	insertAt("a later write inside the range", "r", parent("C"), []byte("c"), "later", clock+1000)
	insertAt("an older write inside the range", "r", parent("C"), []byte("b"), "older", 5)
	insertAt("an older write of a new name inside the range", "r", parent("C"), []byte("bb"), "older", 5)
	reads("after writes into the range", "r", parent("C"))
	clock += 2000

	// The bounds: empty, equal, inverted (reversed), count ignored.
	for i, b := range []struct {
		start, finish string
		reversed      bool
		count         int32
	}{
		{"", "c", false, 100}, {"c", "", false, 100}, {"", "", false, 100}, {"d", "b", true, 100},
		{"d", "", true, 100}, {"", "b", true, 100}, {"c", "c", false, 100}, {"b", "d", false, 0}, {"b", "d", false, 1},
		{"bb", "cc", false, 100}, {"0", "9", false, 100}, {"x", "z", false, 100},
	} {
		key := fmt.Sprintf("b%d", i)
		fill(key, "C", nil, five)
		label := fmt.Sprintf("delete %q to %q reversed %v count %d", b.start, b.finish, b.reversed, b.count)
		mutate(label, key, "C", rangeDel(nil, []byte(b.start), []byte(b.finish), b.reversed, b.count, ts()))
		reads(label, key, parent("C"))
	}
	// Names and a range in one predicate: the names.
	fill("both", "C", nil, five)
	mutate("a predicate of names and a range", "both", "C", &c19.Mutation{Deletion: &c19.Deletion{Timestamp: ts(),
		Predicate: &c19.SlicePredicate{ColumnNames: [][]byte{[]byte("a")}, SliceRange: &c19.SliceRange{Start: []byte("c"), Finish: []byte("e"), Count: 10}}}})
	reads("after names and a range", "both", parent("C"))
	// A range deletion and writes in one batch: same timestamp, the deletion wins.
	t0 := ts()
	mutate("a range deletion among writes", "mix", "C",
		&c19.Mutation{ColumnOrSupercolumn: &c19.ColumnOrSuperColumn{Column: &c19.Column{Name: []byte("b"), Value: []byte("v"), Timestamp: t0}}},
		rangeDel(nil, []byte("a"), []byte("c"), false, 10, t0),
		&c19.Mutation{ColumnOrSupercolumn: &c19.ColumnOrSuperColumn{Column: &c19.Column{Name: []byte("d"), Value: []byte("v"), Timestamp: t0}}})
	reads("after a range deletion among writes", "mix", parent("C"))
	// A row deletion after a range deletion, and a range after a row deletion.
	fill("rr", "C", nil, five)
	del("delete to b", "rr", "C", nil, "", "b", false)
	d.call("remove the row", nil, func(cl *client) (any, error) {
		return void(cl.Remove(ctx, []byte("rr"), &c19.ColumnPath{ColumnFamily: "C"}, *ts(), one))
	})
	fill("rr", "C", nil, []string{"a", "c"})
	del("delete from c", "rr", "C", nil, "c", "", true)
	reads("after row and range deletions", "rr", parent("C"))
	rows("after every standard deletion", "C")
	d.call("get_multi_slice after range deletions", nil, func(cl *client) (any, error) {
		return cl.GetMultiSlice(ctx, &c19.MultiSliceRequest{Key: []byte("r"), ColumnParent: parent("C"), ColumnSlices: []*c19.ColumnSlice{
			{Start: []byte("a"), Finish: []byte("b")}, {Start: []byte("c"), Finish: []byte{}}}, Count: 100, ConsistencyLevel: one})
	})

	// Super columns: a range of whole super columns...
	for _, sc := range five {
		fill("s", "S", []byte(sc), []string{"x", "y", "z"})
	}
	del("delete super columns b to c", "s", "S", nil, "b", "c", false)
	reads("after super columns b to c", "s", parent("S"))
	reads("inside a deleted super column", "s", superParent("S", "b"))
	// ...the subcolumns of one...
	del("delete subcolumns y to z of d", "s", "S", []byte("d"), "y", "z", false)
	reads("after subcolumns of d", "s", parent("S"))
	reads("inside d", "s", superParent("S", "d"))
	del("delete subcolumns to x of e", "s", "S", []byte("e"), "", "x", false)
	del("delete subcolumns from y of a, reversed", "s", "S", []byte("a"), "z", "y", true)
	reads("after subcolumns of e and a", "s", parent("S"))
	insertAt("a later subcolumn in a deleted super column", "s", superParent("S", "c"), []byte("y"), "later", clock+1000)
	insertAt("an older subcolumn in a deleted super column", "s", superParent("S", "b"), []byte("w"), "older", 5)
	insertAt("an older subcolumn in a deleted subcolumn range", "s", superParent("S", "d"), []byte("yy"), "older", 5)
	reads("after writes into super column ranges", "s", parent("S"))
	rows("after super column ranges", "S")
	clock += 2000
	for i, b := range []struct {
		start, finish string
		reversed      bool
	}{{"", "c", false}, {"c", "", false}, {"d", "b", true}, {"c", "c", false}} {
		key := fmt.Sprintf("sb%d", i)
		for _, sc := range five {
			fill(key, "S", []byte(sc), []string{"x"})
		}
		label := fmt.Sprintf("delete super columns %q to %q reversed %v", b.start, b.finish, b.reversed)
		del(label, key, "S", nil, b.start, b.finish, b.reversed)
		reads(label, key, parent("S"))
	}

	// A composite family, bounds of fewer components with each
	// end-of-component byte.
	comp := func(eoc byte, s string, n ...int64) []byte {
		out := binary.BigEndian.AppendUint16(nil, uint16(len(s)))
		out = append(out, s...)
		for _, v := range n {
			out = append(out, 0)
			out = binary.BigEndian.AppendUint16(out, 8)
			out = append(out, long(v)...)
		}
		return append(out, eoc)
	}
	for i, b := range []struct {
		start, finish []byte
		reversed      bool
	}{
		{comp(0, "a", 2), comp(1, "b"), false}, {comp(0, "a"), comp(0, "b"), false}, {comp(1, "a"), comp(0xff, "c"), false},
		{nil, comp(0, "b", 1), false}, {comp(0, "b", 2), nil, false},
		// Ending before their starts: the name equal to the start only.
		{comp(1, "b"), comp(0, "a"), true}, {comp(0, "b"), comp(0, "a"), true}, {comp(0, "b", 2), nil, false},
	} {
		key := fmt.Sprintf("k%d", i)
		for _, n := range [][]byte{comp(0, "a", 1), comp(0, "a", 2), comp(0, "b"), comp(0, "b", 1), comp(0, "b", 2), comp(0, "c", 1)} {
			d.call("insert composite", nil, func(cl *client) (any, error) {
				return void(cl.Insert(ctx, []byte(key), parent("K"), bcol(n, "v"), one))
			})
		}
		label := fmt.Sprintf("composite range %x to %x reversed %v", b.start, b.finish, b.reversed)
		mutate(label, key, "K", rangeDel(nil, b.start, b.finish, b.reversed, 100, ts()))
		reads(label, key, parent("K"))
	}

	// A ReversedType family: the bounds in its order.
	for i, b := range []struct{ start, finish []byte }{{long(7), long(3)}, {nil, long(5)}, {long(5), nil}} {
		key := fmt.Sprintf("rv%d", i)
		for _, v := range []int64{1, 3, 5, 7, 9} {
			d.call("insert reversed", nil, func(cl *client) (any, error) {
				return void(cl.Insert(ctx, []byte(key), parent("R"), bcol(long(v), "v"), one))
			})
		}
		label := fmt.Sprintf("reversed family range %x to %x", b.start, b.finish)
		mutate(label, key, "R", rangeDel(nil, b.start, b.finish, false, 100, ts()))
		reads(label, key, parent("R"))
	}

	// Counters: the counters in the range are removed.
	for _, n := range five {
		d.call("add "+n, nil, func(cl *client) (any, error) {
			return void(cl.Add(ctx, []byte("n"), parent("Counts"), &c19.CounterColumn{Name: []byte(n), Value: 3}, one))
		})
	}
	mutate("delete counters b to d", "n", "Counts", rangeDel(nil, []byte("b"), []byte("d"), false, 100, nil))
	reads("after counters b to d", "n", parent("Counts"))
	d.call("atomic_batch_mutate of a counter range deletion that finds none", nil, func(cl *client) (any, error) {
		return void(cl.AtomicBatchMutate(ctx, map[string]map[string][]*c19.Mutation{"n": {"Counts": {rangeDel(nil, []byte("x"), []byte("z"), false, 100, nil)}}}, one))
	})

	// An indexed family: a row whose indexed column a range deleted no
	// longer matches.
	for _, k := range []string{"i1", "i2", "i3"} {
		fill(k, "I", nil, []string{"w", "x", "y"})
		d.call("insert indexed "+k, nil, func(cl *client) (any, error) {
			return void(cl.Insert(ctx, []byte(k), parent("I"), col("x", "hit"), one))
		})
	}
	del("delete w to x of i2", "i2", "I", nil, "w", "x", false)
	del("delete from y of i3", "i3", "I", nil, "y", "", true)
	d.call("get_indexed_slices after range deletions", nil, func(cl *client) (any, error) {
		return cl.GetIndexedSlices(ctx, parent("I"), &c19.IndexClause{Expressions: []*c19.IndexExpression{{ColumnName: []byte("x"), Op: c19.IndexOperator_EQ, Value: []byte("hit")}},
			StartKey: []byte{}, Count: 10}, allColumns(), one)
	})
	d.call("get_range_slices with a row filter after range deletions", nil, func(cl *client) (any, error) {
		return cl.GetRangeSlices(ctx, parent("I"), allColumns(), &c19.KeyRange{StartKey: []byte{}, EndKey: []byte{}, Count: 10,
			RowFilter: []*c19.IndexExpression{{ColumnName: []byte("x"), Op: c19.IndexOperator_EQ, Value: []byte("hit")}}}, one)
	})

	d.mu.Lock()
	defer d.mu.Unlock()
	fmt.Printf("diff19 range deletions: %d calls compared on Cassandra 2.1.21 and thriftd (%s backend): %d unexpected differences\n",
		d.calls, testenv.Backend(), d.differences)
}
