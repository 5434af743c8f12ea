package diff19

import (
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	c19 "github.com/thriftd/thriftd/gen-go/cassandra19"
)

// The counter families of the test keyspace: created through
// system_add_keyspace on both sides (a storage-conf.xml cannot declare a
// default validator).
func init() {
	families = append(families,
		family{name: "Hits", comparator: "UTF8Type", defaultValidator: "CounterColumnType"},
		family{name: "SuperHits", comparator: "UTF8Type", subcomparator: "LongType", defaultValidator: "CounterColumnType"},
	)
}

func cc(name string, v int64) *c19.CounterColumn {
	return &c19.CounterColumn{Name: []byte(name), Value: v}
}

func addCounter(cl *c19.CounterColumn) *c19.Mutation {
	return &c19.Mutation{ColumnOrSupercolumn: &c19.ColumnOrSuperColumn{CounterColumn: cl}}
}

func addSuperCounter(sc []byte, cols ...*c19.CounterColumn) *c19.Mutation {
	return &c19.Mutation{ColumnOrSupercolumn: &c19.ColumnOrSuperColumn{CounterSuperColumn: &c19.CounterSuperColumn{Name: sc, Columns: cols}}}
}

func lc(v int64, delta int64) *c19.CounterColumn {
	return &c19.CounterColumn{Name: long(v), Value: delta}
}

// counters: add, remove_counter and counter batches, read back through
// every read call, and every refusal of 1.2.19's counter paths.
func (d *diff) counters(t *testing.T) {
	k1, k2 := []byte("ctr-1"), []byte("ctr-2")
	hits := parent("Hits")
	day := &c19.ColumnParent{ColumnFamily: "SuperHits", SuperColumn: []byte("day")}
	for i, step := range []struct {
		key   []byte
		name  string
		delta int64
	}{{k1, "a", 5}, {k1, "a", -2}, {k1, "b", 10}, {k2, "a", 1 << 40}, {k1, "c", 0}} {
		d.call("add "+string(step.key)+"/"+step.name+" "+itoa(int64(i)), nil, func(c *client) (any, error) {
			return void(c.Add(ctx, step.key, hits, cc(step.name, step.delta), one))
		})
	}
	d.call("add at QUORUM", nil, func(c *client) (any, error) { return void(c.Add(ctx, k1, hits, cc("q", 1), quorum)) })
	d.call("add at ALL", nil, func(c *client) (any, error) { return void(c.Add(ctx, k1, hits, cc("q", 1), all)) })
	d.call("add at TWO", nil, func(c *client) (any, error) {
		return void(c.Add(ctx, k1, hits, cc("q", 1), c19.ConsistencyLevel_TWO))
	})
	d.call("batch_mutate of counters", nil, func(c *client) (any, error) {
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{
			string(k1): {"Hits": {addCounter(cc("b", 1)), addCounter(cc("b", 2)), addCounter(cc("d", -4))}},
			string(k2): {
				"Hits":      {addCounter(cc("a", 1))},
				"SuperHits": {addSuperCounter([]byte("day"), lc(1, 3), lc(2, 4)), addSuperCounter([]byte("week"), lc(1, 9))},
				"Std":       {ins(col("plain", "beside counters"))},
			},
		}, one))
	})
	d.call("add to a subcounter", nil, func(c *client) (any, error) { return void(c.Add(ctx, k2, day, lc(1, 1), one)) })

	d.call("get a counter", nil, func(c *client) (any, error) { return c.Get(ctx, k1, path("Hits", "a"), one) })
	d.call("get a zero counter", nil, func(c *client) (any, error) { return c.Get(ctx, k1, path("Hits", "c"), one) })
	d.call("get a missing counter", nil, func(c *client) (any, error) { return c.Get(ctx, k1, path("Hits", "zz"), one) })
	d.call("get a counter super column", nil, func(c *client) (any, error) {
		return c.Get(ctx, k2, &c19.ColumnPath{ColumnFamily: "SuperHits", SuperColumn: []byte("day")}, one)
	})
	d.call("get a subcounter", nil, func(c *client) (any, error) {
		return c.Get(ctx, k2, &c19.ColumnPath{ColumnFamily: "SuperHits", SuperColumn: []byte("day"), Column: long(1)}, one)
	})
	for _, p := range []struct {
		label string
		pred  *c19.SlicePredicate
	}{
		{"all", slice("", "", false, 100)},
		{"reversed count 2", slice("", "", true, 2)},
		{"b to c", slice("b", "c", false, 100)},
		{"names", names("d", "a", "zz")},
	} {
		d.call("get_slice of counters "+p.label, nil, func(c *client) (any, error) { return c.GetSlice(ctx, k1, hits, p.pred, one) })
		d.call("get_count of counters "+p.label, nil, func(c *client) (any, error) { return c.GetCount(ctx, k1, hits, p.pred, one) })
	}
	d.call("get_slice of counter super columns", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k2, parent("SuperHits"), slice("", "", false, 100), one)
	})
	d.call("get_slice of subcounters", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k2, day, slice("", "", true, 100), one)
	})
	keys := [][]byte{k1, k2, []byte("ctr-none")}
	d.call("multiget_slice of counters", nil, func(c *client) (any, error) {
		return c.MultigetSlice(ctx, keys, hits, slice("", "", false, 100), one)
	})
	d.call("multiget_count of counters", nil, func(c *client) (any, error) {
		return c.MultigetCount(ctx, keys, hits, slice("", "", false, 100), one)
	})
	d.call("get_range_slices of counters", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, hits, slice("", "", false, 100), keyRange("", "", 100), one)
	})
	d.call("get_range_slices of counter super columns", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("SuperHits"), slice("", "", false, 100), keyRange("", "", 100), one)
	})
	d.call("get_paged_slice of counters", nil, func(c *client) (any, error) {
		return c.GetPagedSlice(ctx, "Hits", keyRange("", "", 100), []byte("b"), one)
	})

	d.call("remove_counter of a counter", nil, func(c *client) (any, error) {
		return void(c.RemoveCounter(ctx, k1, path("Hits", "a"), one))
	})
	d.call("get a removed counter", nil, func(c *client) (any, error) { return c.Get(ctx, k1, path("Hits", "a"), one) })
	d.call("remove_counter of a subcounter", nil, func(c *client) (any, error) {
		return void(c.RemoveCounter(ctx, k2, &c19.ColumnPath{ColumnFamily: "SuperHits", SuperColumn: []byte("day"), Column: long(2)}, one))
	})
	d.call("remove_counter of a counter super column", nil, func(c *client) (any, error) {
		return void(c.RemoveCounter(ctx, k2, &c19.ColumnPath{ColumnFamily: "SuperHits", SuperColumn: []byte("week")}, one))
	})
	d.call("get_slice of counter super columns after removals", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k2, parent("SuperHits"), slice("", "", false, 100), one)
	})
	d.call("batch_mutate deletion of counters without a timestamp", nil, func(c *client) (any, error) {
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{string(k1): {"Hits": {del(names("b"), nil)}}}, one))
	})
	d.call("batch_mutate deletion of counters with a timestamp", nil, func(c *client) (any, error) {
		m := del(names("d"), nil)
		m.Deletion.Timestamp = ts()
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{string(k1): {"Hits": {m}}}, one))
	})
	d.call("get_slice of counters after deletions", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k1, hits, slice("", "", false, 100), one)
	})
	d.call("remove_counter of a row", nil, func(c *client) (any, error) {
		return void(c.RemoveCounter(ctx, k2, &c19.ColumnPath{ColumnFamily: "Hits"}, one))
	})
	d.call("get_slice of a removed counter row", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k2, hits, slice("", "", false, 100), one)
	})

	// Refusals.
	d.call("add at ANY", nil, func(c *client) (any, error) { return void(c.Add(ctx, k1, hits, cc("a", 1), anyCL)) })
	d.call("remove_counter at ANY", nil, func(c *client) (any, error) {
		return void(c.RemoveCounter(ctx, k1, path("Hits", "a"), anyCL))
	})
	d.call("batch_mutate of counters at ANY", nil, func(c *client) (any, error) {
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{string(k1): {"Hits": {addCounter(cc("a", 1))}}}, anyCL))
	})
	d.call("add at EACH_QUORUM", nil, func(c *client) (any, error) { return void(c.Add(ctx, k1, hits, cc("a", 1), eachQ)) })
	d.call("add to a plain family", nil, func(c *client) (any, error) { return void(c.Add(ctx, k1, parent("Std"), cc("a", 1), one)) })
	d.call("remove_counter of a plain family", nil, func(c *client) (any, error) {
		return void(c.RemoveCounter(ctx, k1, path("Std", "a"), one))
	})
	d.call("insert into a counter family (Hits)", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k1, hits, col("a", "v"), one))
	})
	d.call("remove from a counter family (Hits)", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, k1, path("Hits", "a"), *ts(), one))
	})
	d.call("batch_mutate of a column with a TTL into a counter family", nil, func(c *client) (any, error) {
		cl := col("a", "v")
		ttl := int32(60)
		cl.TTL = &ttl
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{string(k1): {"Hits": {ins(cl)}}}, one))
	})
	d.call("batch_mutate of a counter into a plain family", nil, func(c *client) (any, error) {
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{string(k1): {"Std": {addCounter(cc("a", 1))}}}, one))
	})
	d.call("batch_mutate of a counter super column into a plain super family", nil, func(c *client) (any, error) {
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{string(k1): {"Super": {addSuperCounter([]byte("s"), cc("a", 1))}}}, one))
	})
	d.call("batch_mutate of a counter and a column in one mutation", nil, func(c *client) (any, error) {
		m := addCounter(cc("a", 1))
		m.ColumnOrSupercolumn.Column = col("a", "v")
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{string(k1): {"Hits": {m}}}, one))
	})
	d.call("atomic_batch_mutate of counters", nil, func(c *client) (any, error) {
		return void(c.AtomicBatchMutate(ctx, map[string]map[string][]*c19.Mutation{string(k1): {"Hits": {addCounter(cc("a", 1))}}}, one))
	})
	d.call("atomic_batch_mutate of counters beside columns", nil, func(c *client) (any, error) {
		return void(c.AtomicBatchMutate(ctx, map[string]map[string][]*c19.Mutation{
			string(k1): {"Std": {ins(col("atomic", "v"))}, "Hits": {addCounter(cc("a", 1))}}}, one))
	})
	d.call("get_slice after a refused atomic batch", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k1, parent("Std"), names("atomic"), one)
	})
	d.call("add without the super column of a super family", nil, func(c *client) (any, error) {
		return void(c.Add(ctx, k2, parent("SuperHits"), lc(1, 1), one))
	})
	d.call("add with a super column in a standard family", nil, func(c *client) (any, error) {
		return void(c.Add(ctx, k1, &c19.ColumnParent{ColumnFamily: "Hits", SuperColumn: []byte("s")}, cc("a", 1), one))
	})
	d.call("add with an empty name", nil, func(c *client) (any, error) { return void(c.Add(ctx, k1, hits, cc("", 1), one)) })
	d.call("add with a name not UTF-8", nil, func(c *client) (any, error) {
		return void(c.Add(ctx, k1, hits, &c19.CounterColumn{Name: []byte{0xff, 0xfe}, Value: 1}, one))
	})
	d.call("add with a subcounter name not a long", nil, func(c *client) (any, error) {
		return void(c.Add(ctx, k2, day, cc("abc", 1), one))
	})
	d.call("add with an empty key", nil, func(c *client) (any, error) { return void(c.Add(ctx, []byte{}, hits, cc("a", 1), one)) })
	d.call("add to an unknown family (Nope)", nil, func(c *client) (any, error) { return void(c.Add(ctx, k1, parent("Nope"), cc("a", 1), one)) })
	d.call("remove_counter with a super column in a standard family", nil, func(c *client) (any, error) {
		return void(c.RemoveCounter(ctx, k1, &c19.ColumnPath{ColumnFamily: "Hits", SuperColumn: []byte("s"), Column: []byte("a")}, one))
	})
	d.call("batch_mutate deletion of counters by a slice range", nil, func(c *client) (any, error) {
		// Served as 2.1 serves it (rangedel_test.go); the mutation after
		// it is refused.
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{string(k1): {"Hits": {del(slice("a", "b", false, 10), nil),
			{ColumnOrSupercolumn: &c19.ColumnOrSuperColumn{Column: col("a", "1")}}}}}, one))
	})
	d.call("get_slice of counters at the end", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k1, hits, slice("", "", false, 100), one)
	})

	// replicate_on_write false allows no level above ONE.
	d.call("system_add_column_family of counters without replicate_on_write", func(v any) any { return len(v.(string)) == 36 },
		func(c *client) (any, error) {
			def := c19.NewCfDef()
			def.Keyspace, def.Name, def.ComparatorType = d.ks, "HitsNoReplicate", "UTF8Type"
			def.DefaultValidationClass = thrift.StringPtr("CounterColumnType")
			def.ReplicateOnWrite = thrift.BoolPtr(false)
			return c.SystemAddColumnFamily(ctx, def)
		})
	for _, cl := range []c19.ConsistencyLevel{one, c19.ConsistencyLevel_LOCAL_ONE, quorum, all} {
		d.call("add without replicate_on_write at "+cl.String(), nil, func(c *client) (any, error) {
			return void(c.Add(ctx, k1, parent("HitsNoReplicate"), cc("a", 1), cl))
		})
	}
	d.call("remove_counter without replicate_on_write at QUORUM", nil, func(c *client) (any, error) {
		return void(c.RemoveCounter(ctx, k1, path("HitsNoReplicate", "a"), quorum))
	})
	d.call("get_slice of counters without replicate_on_write", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k1, parent("HitsNoReplicate"), slice("", "", false, 100), one)
	})
}

func init() {
	// On a store that cannot change its schema, these calls follow a
	// refused system_add_column_family.
	for _, l := range []string{"system_add_column_family of counters without replicate_on_write", "add without replicate_on_write at ONE",
		"add without replicate_on_write at LOCAL_ONE", "add without replicate_on_write at QUORUM", "add without replicate_on_write at ALL",
		"remove_counter without replicate_on_write at QUORUM", "get_slice of counters without replicate_on_write"} {
		afterSchemaChange[l] = true
	}
}

func itoa(n int64) string {
	const digits = "0123456789"
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{digits[n%10]}, b...)
	}
	return string(b)
}
