package e2e19

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// TestRangeDeletions: a Deletion by SliceRange (2.0's range tombstones)
// through the real binary, on the store the run uses: a slice of a wide
// row, a range of super columns, a range of one super column's
// subcolumns and a range of a composite family, then every read call;
// a later write inside a range comes back, an older one stays hidden,
// and a row whose indexed column a range deleted no longer matches.
func TestRangeDeletions(t *testing.T) {
	n := start(t)
	c := connect(t, n, "")
	ks := cassandra19.KsDef{Name: "RangeDel", StrategyClass: "SimpleStrategy", StrategyOptions: map[string]string{"replication_factor": "1"}}
	_, err := c.SystemAddKeyspace(ctx, &ks)
	must(t, err)
	must(t, c.SetKeyspace(ctx, "RangeDel"))
	keys := cassandra19.IndexType_KEYS
	std := cfDef("RangeDel", "Wide", "UTF8Type")
	std.ColumnMetadata = []*cassandra19.ColumnDef{{Name: []byte("x"), ValidationClass: "BytesType", IndexType: &keys}}
	sup := cfDef("RangeDel", "Sup", "UTF8Type")
	sup.ColumnType, sup.SubcomparatorType = "Super", thriftString("LongType")
	for _, def := range []*cassandra19.CfDef{std, sup, cfDef("RangeDel", "Comp", "CompositeType(UTF8Type,LongType)")} {
		_, err = c.SystemAddColumnFamily(ctx, def)
		must(t, err)
	}
	one := cassandra19.ConsistencyLevel_ONE
	all := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 1000}}
	var clock int64 = 1000
	at := func() *int64 { clock++; v := clock; return &v }
	put := func(key string, p *cassandra19.ColumnParent, name []byte, when *int64) {
		t.Helper()
		must(t, c.Insert(ctx, []byte(key), p, &cassandra19.Column{Name: name, Value: []byte("v"), Timestamp: when}, one))
	}
	delRange := func(key, cf string, sc, start, finish []byte) {
		t.Helper()
		must(t, c.BatchMutate(ctx, map[string]map[string][]*cassandra19.Mutation{key: {cf: {{Deletion: &cassandra19.Deletion{
			Timestamp: at(), SuperColumn: sc, Predicate: &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: start, Finish: finish, Count: 1}}}}}}}, one))
	}
	show := func(cs []*cassandra19.ColumnOrSuperColumn) string {
		var out []string
		for _, x := range cs {
			switch {
			case x.Column != nil:
				out = append(out, string(x.Column.Name))
			case x.SuperColumn != nil:
				var subs []string
				for _, s := range x.SuperColumn.Columns {
					subs = append(subs, fmt.Sprint(int64(binary.BigEndian.Uint64(s.Name))))
				}
				out = append(out, string(x.SuperColumn.Name)+"{"+strings.Join(subs, ",")+"}")
			}
		}
		return strings.Join(out, " ")
	}
	expect := func(what, got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s: got %q, want %q", what, got, want)
		}
	}
	wide := &cassandra19.ColumnParent{ColumnFamily: "Wide"}

	// A wide row: 100 columns, c000 to c099; delete c010 to c089.
	for i := 0; i < 100; i++ {
		put("w", wide, []byte(fmt.Sprintf("c%03d", i)), at())
	}
	put("w", wide, []byte("x"), at())
	delRange("w", "Wide", nil, []byte("c010"), []byte("c089"))
	got, err := c.GetSlice(ctx, []byte("w"), wide, &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte("c008"), Finish: []byte{}, Count: 4}}, one)
	must(t, err)
	expect("get_slice from c008", show(got), "c008 c009 c090 c091")
	got, err = c.GetSlice(ctx, []byte("w"), wide, &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte("c095"), Finish: []byte{}, Reversed: true, Count: 8}}, one)
	must(t, err)
	expect("get_slice reversed from c095", show(got), "c095 c094 c093 c092 c091 c090 c009 c008")
	count, err := c.GetCount(ctx, []byte("w"), wide, all, one)
	must(t, err)
	if count != 21 {
		t.Errorf("get_count = %d, want 21", count)
	}
	_, err = c.Get(ctx, []byte("w"), &cassandra19.ColumnPath{ColumnFamily: "Wide", Column: []byte("c050")}, one)
	if _, ok := err.(*cassandra19.NotFoundException); !ok {
		t.Errorf("get of a deleted column: %v, want NotFoundException", err)
	}
	// A later write in the range comes back; an older one stays hidden.
	put("w", wide, []byte("c050"), at())
	put("w", wide, []byte("c051"), thriftInt64(5))
	multi, err := c.MultigetSlice(ctx, [][]byte{[]byte("w")}, wide, &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte("c009"), Finish: []byte("c090"), Count: 10}}, one)
	must(t, err)
	expect("multiget_slice c009 to c090", show(multi["w"]), "c009 c050 c090")
	ms, err := c.GetMultiSlice(ctx, &cassandra19.MultiSliceRequest{Key: []byte("w"), ColumnParent: wide, ColumnSlices: []*cassandra19.ColumnSlice{
		{Start: []byte("c000"), Finish: []byte("c011")}, {Start: []byte("c049"), Finish: []byte("c052")}}, Count: 100, ConsistencyLevel: one})
	must(t, err)
	expect("get_multi_slice", show(ms), "c000 c001 c002 c003 c004 c005 c006 c007 c008 c009 c050")

	// A row whose columns are all deleted by a range is a range ghost;
	// one whose indexed column was deleted no longer matches.
	for _, k := range []string{"i1", "i2"} {
		put(k, wide, []byte("a"), at())
		put(k, wide, []byte("x"), at())
	}
	delRange("i2", "Wide", nil, []byte{}, []byte("x"))
	kr := &cassandra19.KeyRange{StartKey: []byte{}, EndKey: []byte{}, Count: 100}
	rows, err := c.GetRangeSlices(ctx, wide, &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 2}}, kr, one)
	must(t, err)
	seen := map[string]string{}
	for _, r := range rows {
		seen[string(r.Key)] = show(r.Columns)
	}
	if g, ok := seen["i2"]; !ok || g != "" || seen["i1"] != "a x" || seen["w"] != "c000 c001" {
		t.Errorf("get_range_slices: %v", seen)
	}
	paged, err := c.GetPagedSlice(ctx, "Wide", kr, []byte{}, one)
	must(t, err)
	cols := 0
	for _, r := range paged {
		cols += len(r.Columns)
	}
	if cols != 24 { // w: 20 + c050, x; i1: a, x; i2: none
		t.Errorf("get_paged_slice: %d columns in %d rows, want 24", cols, len(paged))
	}
	idx, err := c.GetIndexedSlices(ctx, wide, &cassandra19.IndexClause{Expressions: []*cassandra19.IndexExpression{{ColumnName: []byte("x"), Op: cassandra19.IndexOperator_EQ, Value: []byte("v")}},
		StartKey: []byte{}, Count: 10}, all, one)
	must(t, err)
	var matched []string
	for _, r := range idx {
		matched = append(matched, string(r.Key))
	}
	if strings.Join(matched, " ") != "i1 w" && strings.Join(matched, " ") != "w i1" {
		t.Errorf("get_indexed_slices x = v: %v, want i1 and w", matched)
	}

	// Super columns: a range of them, then a range of one's subcolumns.
	long := func(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }
	for _, sc := range []string{"a", "b", "c", "d"} {
		for v := int64(1); v <= 3; v++ {
			put("s", &cassandra19.ColumnParent{ColumnFamily: "Sup", SuperColumn: []byte(sc)}, long(v), at())
		}
	}
	delRange("s", "Sup", nil, []byte("b"), []byte("c"))
	delRange("s", "Sup", []byte("d"), long(2), long(3))
	got, err = c.GetSlice(ctx, []byte("s"), &cassandra19.ColumnParent{ColumnFamily: "Sup"}, all, one)
	must(t, err)
	expect("super columns", show(got), "a{1,2,3} d{1}")
	put("s", &cassandra19.ColumnParent{ColumnFamily: "Sup", SuperColumn: []byte("b")}, long(9), at())
	put("s", &cassandra19.ColumnParent{ColumnFamily: "Sup", SuperColumn: []byte("d")}, long(3), thriftInt64(5))
	got, err = c.GetSlice(ctx, []byte("s"), &cassandra19.ColumnParent{ColumnFamily: "Sup"}, all, one)
	must(t, err)
	expect("super columns after writes", show(got), "a{1,2,3} b{9} d{1}")
	count, err = c.GetCount(ctx, []byte("s"), &cassandra19.ColumnParent{ColumnFamily: "Sup", SuperColumn: []byte("d")}, all, one)
	must(t, err)
	if count != 1 {
		t.Errorf("get_count of d = %d, want 1", count)
	}

	// A composite family: from a:2 to every b:*.
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
	compP := &cassandra19.ColumnParent{ColumnFamily: "Comp"}
	for _, s := range []string{"a", "b", "c"} {
		for v := int64(1); v <= 2; v++ {
			put("k", compP, comp(0, s, v), at())
		}
	}
	delRange("k", "Comp", nil, comp(0, "a", 2), comp(1, "b"))
	got, err = c.GetSlice(ctx, []byte("k"), compP, all, one)
	must(t, err)
	if len(got) != 3 || string(got[0].Column.Name) != string(comp(0, "a", 1)) || string(got[1].Column.Name) != string(comp(0, "c", 1)) {
		t.Errorf("composite family after the range: %d columns %v", len(got), got)
	}
}

func thriftString(s string) *string { return &s }
func thriftInt64(v int64) *int64    { return &v }
