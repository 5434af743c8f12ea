package diff19

import (
	"bytes"
	"testing"

	c19 "github.com/thriftd/thriftd/gen-go/cassandra19"
)

func (d *diff) validation(t *testing.T) {
	k := []byte("valid-row")
	long := bytes.Repeat([]byte("k"), 65536)
	longName := bytes.Repeat([]byte("n"), 65536)
	d.call("insert with an empty key", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, []byte{}, parent("Std"), col("a", "v"), one))
	})
	d.call("insert with a 65536-byte key", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, long, parent("Std"), col("a", "v"), one))
	})
	d.call("insert with a 65535-byte key", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, long[:65535], parent("Std"), col("a", "v"), one))
	})
	d.call("get with an empty key", nil, func(c *client) (any, error) { return c.Get(ctx, []byte{}, path("Std", "a"), one) })
	d.call("get_slice with a 65536-byte key", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, long, parent("Std"), slice("", "", false, 1), one)
	})
	d.call("multiget_slice with an empty key", nil, func(c *client) (any, error) {
		return c.MultigetSlice(ctx, [][]byte{k, {}}, parent("Std"), slice("", "", false, 1), one)
	})
	d.call("remove with an empty key", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, []byte{}, path("Std", "a"), *ts(), one))
	})
	d.call("insert with an empty column name", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Std"), col("", "v"), one))
	})
	d.call("insert with a 65536-byte column name", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Std"), bcol(longName, "v"), one))
	})
	d.call("get with an empty column name", nil, func(c *client) (any, error) { return c.Get(ctx, k, path("Std", ""), one) })
	d.call("insert without a value", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Std"), &c19.Column{Name: []byte("a"), Timestamp: ts()}, one))
	})
	d.call("insert without a timestamp", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Std"), &c19.Column{Name: []byte("a"), Value: []byte("v")}, one))
	})
	d.call("insert into an unknown family", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Nope"), col("a", "v"), one))
	})
	d.call("insert into an empty family name", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent(""), col("a", "v"), one))
	})
	d.call("get from an unknown family", nil, func(c *client) (any, error) { return c.Get(ctx, k, path("Nope", "a"), one) })
	d.call("get_count from an unknown family", nil, func(c *client) (any, error) {
		return c.GetCount(ctx, k, parent("Nope"), slice("", "", false, 1), one)
	})
	d.call("remove from an unknown family", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, k, path("Nope", "a"), *ts(), one))
	})
	d.call("remove a super column of a standard family", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, k, &c19.ColumnPath{ColumnFamily: "Std", SuperColumn: []byte("s")}, *ts(), one))
	})
	d.call("remove a bad Long name", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, k, path("Long", "x"), *ts(), one))
	})
	for _, p := range []struct {
		label string
		pred  *c19.SlicePredicate
	}{
		{"both names and range", &c19.SlicePredicate{ColumnNames: [][]byte{[]byte("a")}, SliceRange: &c19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 1}}},
		{"neither names nor range", &c19.SlicePredicate{}},
		{"a negative count", slice("", "", false, -1)},
		{"a range in the wrong order", slice("b", "a", false, 10)},
		{"a reversed range in the wrong order", slice("a", "b", true, 10)},
		{"an empty name", names("")},
		{"a 65536-byte name", &c19.SlicePredicate{ColumnNames: [][]byte{longName}}},
		{"a 65536-byte start", bslice(longName, nil, false, 1)},
	} {
		d.call("get_slice with "+p.label, nil, func(c *client) (any, error) {
			return c.GetSlice(ctx, k, parent("Std"), p.pred, one)
		})
		d.call("get_count with "+p.label, nil, func(c *client) (any, error) {
			return c.GetCount(ctx, k, parent("Std"), p.pred, one)
		})
		d.call("get_range_slices with "+p.label, nil, func(c *client) (any, error) {
			return c.GetRangeSlices(ctx, parent("Std"), p.pred, keyRange("", "", 10), one)
		})
		d.call("multiget_count with "+p.label, nil, func(c *client) (any, error) {
			return c.MultigetCount(ctx, [][]byte{k}, parent("Std"), p.pred, one)
		})
	}
	for _, cl := range []c19.ConsistencyLevel{anyCL, eachQ} {
		d.call("get at "+cl.String(), nil, func(c *client) (any, error) { return c.Get(ctx, k, path("Std", "a"), cl) })
		d.call("get_slice at "+cl.String(), nil, func(c *client) (any, error) {
			return c.GetSlice(ctx, k, parent("Std"), slice("", "", false, 1), cl)
		})
		d.call("get_count at "+cl.String(), nil, func(c *client) (any, error) {
			return c.GetCount(ctx, k, parent("Std"), slice("", "", false, 1), cl)
		})
		d.call("multiget_slice at "+cl.String(), nil, func(c *client) (any, error) {
			return c.MultigetSlice(ctx, [][]byte{k}, parent("Std"), slice("", "", false, 1), cl)
		})
		d.call("multiget_count at "+cl.String(), nil, func(c *client) (any, error) {
			return c.MultigetCount(ctx, [][]byte{k}, parent("Std"), slice("", "", false, 1), cl)
		})
	}
	d.call("get Std with a super column", nil, func(c *client) (any, error) {
		return c.Get(ctx, k, &c19.ColumnPath{ColumnFamily: "Std", SuperColumn: []byte("s"), Column: []byte("a")}, one)
	})
	d.call("get_slice Std with a super column", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, superParent("Std", "s"), slice("", "", false, 1), one)
	})
	d.call("get_slice Super with an empty super column", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, &c19.ColumnParent{ColumnFamily: "Super", SuperColumn: []byte{}}, slice("", "", false, 1), one)
	})
	d.call("get Super with an empty super column", nil, func(c *client) (any, error) {
		return c.Get(ctx, k, &c19.ColumnPath{ColumnFamily: "Super", SuperColumn: []byte{}}, one)
	})
	d.call("insert with a 65535-byte column name", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Std"), bcol(longName[:65535], "v"), one))
	})
	d.call("get_slice of a 65535-byte column name", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Std"), &c19.SlicePredicate{ColumnNames: [][]byte{longName[:65535]}}, one)
	})
	d.call("get_paged_slice with a bad start column", nil, func(c *client) (any, error) {
		return c.GetPagedSlice(ctx, "Long", keyRange("", "", 5), []byte("x"), one)
	})
	d.call("get_paged_slice with an empty key range", nil, func(c *client) (any, error) {
		return c.GetPagedSlice(ctx, "Std", &c19.KeyRange{Count: 5}, []byte(""), one)
	})
	d.call("get_range_slices of Long with a bad name", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Long"), names("x"), keyRange("", "", 5), one)
	})
	d.call("get_range_slices of a super column", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, superParent("Super", "sc"), slice("", "", false, 5), keyRange("", "", 5), one)
	})
	d.call("get_range_slices of a super column with a row filter", nil, func(c *client) (any, error) {
		kr := keyRange("", "", 5)
		kr.RowFilter = []*c19.IndexExpression{{ColumnName: []byte("a"), Op: c19.IndexOperator_EQ, Value: []byte("1")}}
		return c.GetRangeSlices(ctx, superParent("Super", "sc"), slice("", "", false, 5), kr, one)
	})
	d.call("batch_mutate with a super column deletion by slice range", nil, func(c *client) (any, error) {
		// Served as 2.1 serves it (rangedel_test.go); the mutation after
		// it is refused.
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{string(k): {"Super": {del(slice("a", "b", false, 5), []byte("sc")),
			{Deletion: &c19.Deletion{Predicate: names("a")}}}}}, one))
	})
	d.call("batch_mutate deleting an empty super column name", nil, func(c *client) (any, error) {
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{string(k): {"Super": {del(names(""), nil)}}}, one))
	})
	d.call("batch_mutate at an unknown keyspace's family", nil, func(c *client) (any, error) {
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{string(k): {"": {ins(col("a", "v"))}}}, one))
	})
	d.call("remove without a timestamp of note (0)", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, k, path("Std", "zzz"), 0, one))
	})
	d.call("remove of a row at EACH_QUORUM", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, []byte("nobody"), &c19.ColumnPath{ColumnFamily: "Std"}, *ts(), eachQ))
	})
	// One replica: TWO and THREE cannot be met.
	for _, cl := range []c19.ConsistencyLevel{c19.ConsistencyLevel_TWO, c19.ConsistencyLevel_THREE} {
		d.call("get at "+cl.String(), nil, func(c *client) (any, error) { return c.Get(ctx, k, path("Std", "a"), cl) })
		d.call("insert at "+cl.String(), nil, func(c *client) (any, error) {
			return void(c.Insert(ctx, k, parent("Std"), col("cl", "v"), cl))
		})
		d.call("get_range_slices at "+cl.String(), nil, func(c *client) (any, error) {
			return c.GetRangeSlices(ctx, parent("Std"), slice("", "", false, 1), keyRange("", "", 1), cl)
		})
		d.call("batch_mutate at "+cl.String(), nil, func(c *client) (any, error) {
			return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{string(k): {"Std": {ins(col("cl", "v"))}}}, cl))
		})
		d.call("remove at "+cl.String(), nil, func(c *client) (any, error) {
			return void(c.Remove(ctx, k, path("Std", "cl"), *ts(), cl))
		})
	}
	d.call("get_count at LOCAL_QUORUM", nil, func(c *client) (any, error) {
		return c.GetCount(ctx, k, parent("Std"), slice("", "", false, 10), localQ)
	})
	d.call("get_count with names in a Super family", nil, func(c *client) (any, error) {
		return c.GetCount(ctx, []byte("x"), parent("Super"), names("a", "b"), one)
	})
	d.call("batch_mutate deleting no names", nil, func(c *client) (any, error) {
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{string(k): {"Std": {del(names(), nil)}}}, one))
	})
	d.call("get at an unknown consistency level", nil, func(c *client) (any, error) {
		return c.Get(ctx, k, path("Std", "a"), c19.ConsistencyLevel(99))
	})
	// Faults together: the first in 1.2's order wins.
	d.call("get_slice with an unknown family and a bad predicate", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, []byte{}, parent("Nope"), &c19.SlicePredicate{}, anyCL)
	})
	d.call("get_slice with an empty key and a bad predicate", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, []byte{}, parent("Std"), &c19.SlicePredicate{}, anyCL)
	})
	d.call("get_slice with an empty key at ANY", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, []byte{}, parent("Std"), slice("", "", false, 1), anyCL)
	})
	d.call("insert with an empty key and an unknown family", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, []byte{}, parent("Nope"), col("a", "v"), one))
	})
	d.call("insert with an empty key and no value", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, []byte{}, parent("Std"), &c19.Column{Name: []byte("a"), Timestamp: ts()}, one))
	})
	d.call("insert with an empty name and no timestamp", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Std"), &c19.Column{Name: []byte(""), Value: []byte("v")}, one))
	})
	d.call("insert with ttl 0 and no timestamp", nil, func(c *client) (any, error) {
		ttl := int32(0)
		return void(c.Insert(ctx, k, parent("Std"), &c19.Column{Name: []byte("a"), Value: []byte("v"), TTL: &ttl}, one))
	})
}

// ---- validators -------------------------------------------------------------

func (d *diff) validators(t *testing.T) {
	k := long(1)
	d.call("insert Typed", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Typed"), col("name", "ok"), one))
	})
	d.call("insert Typed age", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Typed"), &c19.Column{Name: []byte("age"), Value: long(30), Timestamp: ts()}, one))
	})
	d.call("insert Typed raw", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Typed"), &c19.Column{Name: []byte("raw"), Value: []byte{0xff}, Timestamp: ts()}, one))
	})
	d.call("get_slice Typed", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Typed"), slice("", "", false, 10), one)
	})
	d.call("insert Typed with a 3-byte key", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, []byte("abc"), parent("Typed"), col("name", "ok"), one))
	})
	d.call("get_slice Typed with a 3-byte key", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, []byte("abc"), parent("Typed"), slice("", "", false, 10), one)
	})
	d.call("multiget_slice Typed with a bad key", nil, func(c *client) (any, error) {
		return c.MultigetSlice(ctx, [][]byte{k, {1}}, parent("Typed"), slice("", "", false, 10), one)
	})
	d.call("remove Typed with a bad key", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, []byte{1}, path("Typed", "name"), *ts(), one))
	})
	d.call("insert Typed with a bad default value", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Typed"), &c19.Column{Name: []byte("name"), Value: []byte{0xff}, Timestamp: ts()}, one))
	})
	d.call("insert Typed with a bad age", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Typed"), col("age", "abc"), one))
	})
	d.call("insert Typed with a bad stamp", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Typed"), col("stamp", "abc"), one))
	})
	d.call("insert Typed with a bad name", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Typed"), bcol([]byte{0xff}, "v"), one))
	})
	d.call("insert Typed with a bad key and a bad value", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, []byte{1}, parent("Typed"), col("age", "abc"), one))
	})
	d.call("batch_mutate Typed with a bad value", nil, func(c *client) (any, error) {
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{string(k): {"Typed": {ins(col("name", "fine")), ins(col("age", "x"))}}}, one))
	})
	d.call("batch_mutate Typed with a bad key", nil, func(c *client) (any, error) {
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{"x": {"Typed": {ins(col("name", "fine"))}}}, one))
	})
	d.call("get_slice Typed after refusals", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Typed"), slice("", "", false, 10), one)
	})
	d.call("get_range_slices Typed", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Typed"), slice("", "", false, 10), keyRange("", "", 10), one)
	})
	d.call("insert SuperTyped", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, &c19.ColumnParent{ColumnFamily: "SuperTyped", SuperColumn: long(5)}, &c19.Column{Name: []byte("sub"), Value: long(7), Timestamp: ts()}, one))
	})
	d.call("insert SuperTyped with a bad value", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, &c19.ColumnParent{ColumnFamily: "SuperTyped", SuperColumn: long(5)}, col("sub", "x"), one))
	})
	d.call("insert SuperTyped with a bad subcolumn name", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, &c19.ColumnParent{ColumnFamily: "SuperTyped", SuperColumn: long(5)}, &c19.Column{Name: []byte{0xff}, Value: long(7), Timestamp: ts()}, one))
	})
	d.call("insert SuperTyped with a bad super column name", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, &c19.ColumnParent{ColumnFamily: "SuperTyped", SuperColumn: []byte("x")}, &c19.Column{Name: []byte("sub"), Value: long(7), Timestamp: ts()}, one))
	})
	d.call("get SuperTyped with a bad super column name", nil, func(c *client) (any, error) {
		return c.Get(ctx, k, &c19.ColumnPath{ColumnFamily: "SuperTyped", SuperColumn: []byte("x")}, one)
	})
	d.call("remove SuperTyped with a bad super column name", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, k, &c19.ColumnPath{ColumnFamily: "SuperTyped", SuperColumn: []byte("x")}, *ts(), one))
	})
	d.call("get_slice SuperTyped", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("SuperTyped"), slice("", "", false, 10), one)
	})
}

// ---- truncate ---------------------------------------------------------------
