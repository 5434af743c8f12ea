package diff19

import (
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	c19 "github.com/thriftd/thriftd/gen-go/cassandra19"
)

// ---- KEYS secondary indexes ------------------------------------------------

func expr(name string, op c19.IndexOperator, value []byte) *c19.IndexExpression {
	return &c19.IndexExpression{ColumnName: []byte(name), Op: op, Value: value}
}

func clause(start string, count int32, exprs ...*c19.IndexExpression) *c19.IndexClause {
	return &c19.IndexClause{Expressions: exprs, StartKey: []byte(start), Count: count}
}

func (d *diff) indexes(t *testing.T) {
	version := func(v any) any { return len(v.(string)) == 36 }
	keys := c19.IndexType_KEYS
	idx := c19.NewCfDef()
	idx.Keyspace, idx.Name, idx.ComparatorType = d.ks, "Idx", "UTF8Type"
	idx.ColumnMetadata = []*c19.ColumnDef{
		{Name: []byte("state"), ValidationClass: "UTF8Type", IndexType: &keys},
		{Name: []byte("age"), ValidationClass: "LongType", IndexType: &keys, IndexName: thrift.StringPtr("by_age")},
		{Name: []byte("note"), ValidationClass: "UTF8Type"},
	}
	d.call("system_add_column_family with KEYS indexes", version, func(c *client) (any, error) { return c.SystemAddColumnFamily(ctx, idx) })
	rows := []struct {
		key, state string
		age        int64
	}{{"ann", "CA", 25}, {"bob", "NY", 31}, {"cid", "CA", 40}, {"dee", "CA", 31}, {"eve", "TX", 52}, {"fay", "CA", 19}, {"gus", "NY", 40}, {"hal", "CA", 66}}
	for _, r := range rows {
		d.call("insert indexed "+r.key, nil, func(c *client) (any, error) {
			return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{r.key: {"Idx": {
				{ColumnOrSupercolumn: &c19.ColumnOrSuperColumn{Column: col("state", r.state)}},
				{ColumnOrSupercolumn: &c19.ColumnOrSuperColumn{Column: bcol([]byte("age"), string(long(r.age)))}},
				{ColumnOrSupercolumn: &c19.ColumnOrSuperColumn{Column: col("note", "n-"+r.key)}},
			}}}, one))
		})
	}
	// An indexed column holds values shorter than 65,535 bytes; the
	// family's other columns take longer ones.
	big := make([]byte, 70000)
	for i := range big {
		big[i] = 'x'
	}
	for _, w := range []struct {
		label, name string
		size        int
	}{{"a 65534-byte indexed value", "state", 65534}, {"a 65535-byte indexed value", "state", 65535}, {"a 70000-byte value of a column without an index", "note", 70000}} {
		d.call("insert "+w.label, nil, func(c *client) (any, error) {
			return void(c.Insert(ctx, []byte("big"), parent("Idx"), col(w.name, string(big[:w.size])), one))
		})
	}
	d.call("batch_mutate of a 65535-byte indexed value", nil, func(c *client) (any, error) {
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{"big2": {"Idx": {
			{ColumnOrSupercolumn: &c19.ColumnOrSuperColumn{Column: col("note", "fits")}},
			{ColumnOrSupercolumn: &c19.ColumnOrSuperColumn{Column: col("state", string(big[:65535]))}},
		}}}, one))
	})
	d.call("get_indexed_slices of the 65534-byte value", nil, func(c *client) (any, error) {
		return c.GetIndexedSlices(ctx, parent("Idx"), clause("", 10, expr("state", c19.IndexOperator_EQ, big[:65534])), names("note"), one)
	})
	d.call("get_slice of the long values' rows", nil, func(c *client) (any, error) {
		return c.MultigetSlice(ctx, [][]byte{[]byte("big"), []byte("big2")}, parent("Idx"), names("note"), one)
	})
	d.call("remove the long values' row", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, []byte("big"), &c19.ColumnPath{ColumnFamily: "Idx"}, 99, one))
	})
	all := slice("", "", false, 100)
	q := func(label string, cl *c19.IndexClause, pred *c19.SlicePredicate) {
		d.call("get_indexed_slices "+label, nil, func(c *client) (any, error) { return c.GetIndexedSlices(ctx, parent("Idx"), cl, pred, one) })
	}
	q("EQ", clause("", 100, expr("state", c19.IndexOperator_EQ, []byte("CA"))), all)
	q("EQ on a LongType index", clause("", 100, expr("age", c19.IndexOperator_EQ, long(31))), all)
	q("EQ and GT", clause("", 100, expr("state", c19.IndexOperator_EQ, []byte("CA")), expr("age", c19.IndexOperator_GT, long(31))), all)
	q("EQ and GTE", clause("", 100, expr("state", c19.IndexOperator_EQ, []byte("CA")), expr("age", c19.IndexOperator_GTE, long(31))), all)
	q("EQ and LT", clause("", 100, expr("state", c19.IndexOperator_EQ, []byte("CA")), expr("age", c19.IndexOperator_LT, long(31))), all)
	q("EQ and LTE", clause("", 100, expr("state", c19.IndexOperator_EQ, []byte("CA")), expr("age", c19.IndexOperator_LTE, long(31))), all)
	q("EQ and a non-indexed column", clause("", 100, expr("state", c19.IndexOperator_EQ, []byte("CA")), expr("note", c19.IndexOperator_GTE, []byte("n-d"))), all)
	q("EQ and an absent column", clause("", 100, expr("state", c19.IndexOperator_EQ, []byte("CA")), expr("zzz", c19.IndexOperator_LT, []byte("z"))), all)
	q("two EQs", clause("", 100, expr("state", c19.IndexOperator_EQ, []byte("NY")), expr("age", c19.IndexOperator_EQ, long(40))), all)
	q("EQ matching nothing", clause("", 100, expr("state", c19.IndexOperator_EQ, []byte("WA"))), all)
	q("with count 2", clause("", 2, expr("state", c19.IndexOperator_EQ, []byte("CA"))), all)
	q("with count 0", clause("", 0, expr("state", c19.IndexOperator_EQ, []byte("CA"))), all)
	q("with a names predicate", clause("", 100, expr("state", c19.IndexOperator_EQ, []byte("CA"))), names("note"))
	q("with a predicate selecting nothing", clause("", 100, expr("state", c19.IndexOperator_EQ, []byte("CA"))), names("nothing"))
	q("with a reversed slice of 1", clause("", 100, expr("state", c19.IndexOperator_EQ, []byte("CA"))), slice("", "", true, 1))
	// Paging: each page starts at the last key of the one before.
	start := ""
	for page := 0; page < 4; page++ {
		ref, _ := d.call("get_indexed_slices page", nil, func(c *client) (any, error) {
			return c.GetIndexedSlices(ctx, parent("Idx"), clause(start, 2, expr("state", c19.IndexOperator_EQ, []byte("CA"))), names("state"), one)
		})
		ks, ok := ref.val.([]*c19.KeySlice)
		if !ok || len(ks) < 2 {
			break
		}
		start = string(ks[len(ks)-1].Key)
	}
	q("from a start key that does not match", clause("bob", 100, expr("state", c19.IndexOperator_EQ, []byte("CA"))), all)
	// Refusals, in the real server's order.
	q("of an empty clause", clause("", 100), all)
	q("with no EQ", clause("", 100, expr("age", c19.IndexOperator_GT, long(1))), all)
	q("with EQ on a column without an index", clause("", 100, expr("note", c19.IndexOperator_EQ, []byte("x"))), all)
	q("with a bad value", clause("", 100, expr("state", c19.IndexOperator_EQ, []byte("CA")), expr("age", c19.IndexOperator_EQ, []byte("abc"))), all)
	q("with a value over 64K", clause("", 100, expr("state", c19.IndexOperator_EQ, make([]byte, 0x10000))), all)
	q("with a bad name", clause("", 100, &c19.IndexExpression{ColumnName: []byte{0xff, 0xfe}, Op: c19.IndexOperator_EQ, Value: []byte("x")}), all)
	q("with a bad predicate", clause("", 100, expr("state", c19.IndexOperator_EQ, []byte("CA"))), slice("b", "a", false, 10))
	d.call("get_indexed_slices of an unknown family", nil, func(c *client) (any, error) {
		return c.GetIndexedSlices(ctx, parent("NoSuch"), clause("", 10, expr("state", c19.IndexOperator_EQ, []byte("CA"))), all, one)
	})
	d.call("get_indexed_slices of a family without indexes", nil, func(c *client) (any, error) {
		return c.GetIndexedSlices(ctx, parent("Std"), clause("", 10, expr("state", c19.IndexOperator_EQ, []byte("CA"))), all, one)
	})
	// get_range_slices with a row filter: with an indexed EQ, and without.
	r := func(label string, kr *c19.KeyRange, exprs ...*c19.IndexExpression) {
		kr.RowFilter = exprs
		d.call("get_range_slices with a row filter "+label, nil, func(c *client) (any, error) { return c.GetRangeSlices(ctx, parent("Idx"), all, kr, one) })
	}
	r("EQ", keyRange("", "", 100), expr("state", c19.IndexOperator_EQ, []byte("CA")))
	r("EQ, count 3", keyRange("", "", 3), expr("state", c19.IndexOperator_EQ, []byte("CA")))
	r("EQ and LT", keyRange("", "", 100), expr("state", c19.IndexOperator_EQ, []byte("CA")), expr("age", c19.IndexOperator_LT, long(40)))
	r("not indexed", keyRange("", "", 100), expr("note", c19.IndexOperator_GT, []byte("n-c")))
	r("GT only", keyRange("", "", 100), expr("age", c19.IndexOperator_GT, long(31)))
	r("on tokens", tokenRange("0", "85070591730234615865843651857942052864", 100), expr("state", c19.IndexOperator_EQ, []byte("CA")))
	r("wrapping", tokenRange("85070591730234615865843651857942052864", "0", 100), expr("state", c19.IndexOperator_EQ, []byte("CA")))
	r("with a bad value", keyRange("", "", 100), expr("age", c19.IndexOperator_EQ, []byte("abc")))
	// get_paged_slice with a row filter: 1.2 passed it on to the range scan.
	pg := func(label string, kr *c19.KeyRange, start string, exprs ...*c19.IndexExpression) {
		kr.RowFilter = exprs
		d.call("get_paged_slice with a row filter "+label, nil, func(c *client) (any, error) { return c.GetPagedSlice(ctx, "Idx", kr, []byte(start), one) })
	}
	pg("EQ", keyRange("", "", 100), "", expr("state", c19.IndexOperator_EQ, []byte("CA")))
	pg("EQ, count 3", keyRange("", "", 3), "", expr("state", c19.IndexOperator_EQ, []byte("CA")))
	pg("EQ from a start column", keyRange("", "", 100), "note", expr("state", c19.IndexOperator_EQ, []byte("CA")))
	pg("EQ and LT", keyRange("", "", 100), "", expr("state", c19.IndexOperator_EQ, []byte("CA")), expr("age", c19.IndexOperator_LT, long(40)))
	pg("not indexed", keyRange("", "", 100), "", expr("note", c19.IndexOperator_GT, []byte("n-c")))
	pg("not indexed, count 4", keyRange("", "", 4), "", expr("note", c19.IndexOperator_GT, []byte("n-c")))
	pg("on tokens", tokenRange("0", "85070591730234615865843651857942052864", 100), "", expr("state", c19.IndexOperator_EQ, []byte("CA")))
	pg("with a bad value", keyRange("", "", 100), "", expr("age", c19.IndexOperator_EQ, []byte("abc")))
	// The index follows updates, deletions, expiry and truncate.
	d.call("update an indexed value", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, []byte("ann"), parent("Idx"), col("state", "NY"), one))
	})
	d.call("remove an indexed column", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, []byte("cid"), path("Idx", "state"), *ts(), one))
	})
	d.call("remove an indexed row", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, []byte("dee"), &c19.ColumnPath{ColumnFamily: "Idx"}, *ts(), one))
	})
	d.call("write an indexed value older than the one stored", nil, func(c *client) (any, error) {
		old := int64(1)
		return void(c.Insert(ctx, []byte("bob"), parent("Idx"), &c19.Column{Name: []byte("state"), Value: []byte("CA"), Timestamp: &old}, one))
	})
	// The expiring value must still be live on both servers when they
	// are queried next, however busy the machine: its TTL leaves several
	// seconds for the two queries, and the wait for its expiry counts
	// from the later write.
	const ttl = 6
	d.call("write an expiring indexed value", nil, func(c *client) (any, error) {
		c1 := col("state", "CA")
		c1.TTL = thrift.Int32Ptr(ttl)
		return void(c.Insert(ctx, []byte("gus"), parent("Idx"), c1, one))
	})
	written := time.Now()
	q("EQ after changes", clause("", 100, expr("state", c19.IndexOperator_EQ, []byte("CA"))), all)
	q("EQ NY after changes", clause("", 100, expr("state", c19.IndexOperator_EQ, []byte("NY"))), names("state"))
	if late := time.Since(written); late >= ttl*time.Second {
		t.Errorf("the queries of the expiring value took %v, longer than its TTL of %d s: their answers cannot be compared", late, ttl)
	}
	time.Sleep(time.Until(written.Add(ttl*time.Second + 1100*time.Millisecond)))
	q("EQ after expiry", clause("", 100, expr("state", c19.IndexOperator_EQ, []byte("CA"))), names("state"))
	r("EQ after expiry", keyRange("", "", 100), expr("state", c19.IndexOperator_EQ, []byte("CA")))
	d.call("truncate an indexed family", nil, func(c *client) (any, error) { return void(c.Truncate(ctx, "Idx")) })
	q("EQ after truncate", clause("", 100, expr("state", c19.IndexOperator_EQ, []byte("CA"))), all)
	d.call("insert after truncate", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, []byte("ivy"), parent("Idx"), col("state", "CA"), one))
	})
	q("EQ after a write that follows truncate", clause("", 100, expr("state", c19.IndexOperator_EQ, []byte("CA"))), all)

	// An index added to a family that holds data, then dropped.
	later := c19.NewCfDef()
	later.Keyspace, later.Name, later.ComparatorType = d.ks, "Later", "UTF8Type"
	later.ColumnMetadata = []*c19.ColumnDef{{Name: []byte("c"), ValidationClass: "UTF8Type"}}
	d.call("system_add_column_family without an index", version, func(c *client) (any, error) { return c.SystemAddColumnFamily(ctx, later) })
	for i := 0; i < 30; i++ {
		key, v := "row"+string(rune('a'+i%26))+string(rune('0'+i/26)), []string{"x", "y", "z"}[i%3]
		d.call("insert into Later", nil, func(c *client) (any, error) {
			return void(c.Insert(ctx, []byte(key), parent("Later"), col("c", v), one))
		})
	}
	lq := func(label string) {
		d.call("get_indexed_slices of Later "+label, nil, func(c *client) (any, error) {
			return c.GetIndexedSlices(ctx, parent("Later"), clause("", 100, expr("c", c19.IndexOperator_EQ, []byte("y"))), all, one)
		})
	}
	lq("before an index")
	d.call("system_update_column_family adding an index", version, func(c *client) (any, error) {
		later.ColumnMetadata[0].IndexType = &keys
		return c.SystemUpdateColumnFamily(ctx, later)
	})
	d.call("describe_keyspace with indexes", normKsDef, func(c *client) (any, error) { return c.DescribeKeyspace(ctx, d.ks) })
	time.Sleep(time.Second) // both servers build the index in the background
	lq("once its index is built")
	d.call("system_update_column_family dropping an index", version, func(c *client) (any, error) {
		later.ColumnMetadata[0].IndexType = nil
		later.ColumnMetadata[0].IndexName = nil
		return c.SystemUpdateColumnFamily(ctx, later)
	})
	lq("after its index is dropped")

	// The other index types.
	custom, composites := c19.IndexType_CUSTOM, c19.IndexType_COMPOSITES
	add := func(label string, cd *c19.ColumnDef) {
		def := c19.NewCfDef()
		def.Keyspace, def.Name, def.ComparatorType = d.ks, "Other", "UTF8Type"
		def.ColumnMetadata = []*c19.ColumnDef{cd}
		d.call("system_add_column_family with "+label, version, func(c *client) (any, error) { return c.SystemAddColumnFamily(ctx, def) })
	}
	add("a CUSTOM index without class_name", &c19.ColumnDef{Name: []byte("c"), ValidationClass: "UTF8Type", IndexType: &custom})
	add("a CUSTOM index of an unknown class", &c19.ColumnDef{Name: []byte("c"), ValidationClass: "UTF8Type", IndexType: &custom, IndexOptions: map[string]string{"class_name": "org.example.NoSuchIndex"}})
	add("a COMPOSITES index", &c19.ColumnDef{Name: []byte("c"), ValidationClass: "UTF8Type", IndexType: &composites})
}
