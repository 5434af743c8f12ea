package diff19

import (
	"testing"

	c19 "github.com/thriftd/thriftd/gen-go/cassandra19"
)

// dynFamily compares by a DynamicCompositeType whose components name their
// type by alias or by class name.
const dynFamily = "Dyn"

func init() {
	families = append(families, family{name: dynFamily,
		comparator: "DynamicCompositeType(a=>AsciiType,b=>BytesType,l=>LongType,s=>UTF8Type)"})
}

// dyn is a DynamicCompositeType name: each part a type spelling (one
// character: its alias; longer: a class name) and a value.
func dyn(parts ...any) []byte {
	var out []byte
	for i := 0; i < len(parts); i += 2 {
		spelling, v := parts[i].(string), parts[i+1].([]byte)
		if len(spelling) == 1 {
			out = append(out, 0x80, spelling[0])
		} else {
			out = append(out, byte(len(spelling)>>8), byte(len(spelling)))
			out = append(out, spelling...)
		}
		out = append(out, byte(len(v)>>8), byte(len(v)))
		out = append(out, v...)
		out = append(out, 0)
	}
	return out
}

func at(v int64) *int64 { return &v }

// A DynamicCompositeType component named by alias, by short class name
// and by full class name is one type in 1.2: the spellings of one name
// are one column, which holds the name and value of the version that won.
func (d *diff) spellings(t *testing.T) {
	byClass := dyn("LongType", long(1), "BytesType", []byte("foo"))
	byAlias := dyn("l", long(1), "b", []byte("foo"))
	byFull := dyn("org.apache.cassandra.db.marshal.LongType", long(1), "b", []byte("foo"))
	other := dyn("l", long(2), "b", []byte("bar"))
	base := clock + 1000
	clock += 10000
	insert := func(label, key string, name []byte, value string, stamp int64) {
		d.call(label, nil, func(c *client) (any, error) {
			return void(c.Insert(ctx, []byte(key), parent(dynFamily), &c19.Column{Name: name, Value: []byte(value), Timestamp: at(stamp)}, one))
		})
	}
	read := func(label, key string, spelling []byte) {
		k := []byte(key)
		d.call(label+": get_slice", nil, func(c *client) (any, error) {
			return c.GetSlice(ctx, k, parent(dynFamily), slice("", "", false, 100), one)
		})
		d.call(label+": get_slice reversed, 1", nil, func(c *client) (any, error) {
			return c.GetSlice(ctx, k, parent(dynFamily), slice("", "", true, 1), one)
		})
		d.call(label+": get_count", nil, func(c *client) (any, error) {
			return c.GetCount(ctx, k, parent(dynFamily), slice("", "", false, 100), one)
		})
		d.call(label+": get by another spelling", nil, func(c *client) (any, error) {
			return c.Get(ctx, k, &c19.ColumnPath{ColumnFamily: dynFamily, Column: spelling}, one)
		})
		d.call(label+": get_slice by names", nil, func(c *client) (any, error) {
			return c.GetSlice(ctx, k, parent(dynFamily), &c19.SlicePredicate{ColumnNames: [][]byte{spelling}}, one)
		})
		d.call(label+": get_slice from and to another spelling", nil, func(c *client) (any, error) {
			return c.GetSlice(ctx, k, parent(dynFamily), bslice(spelling, spelling, false, 10), one)
		})
		d.call(label+": get_slice reversed from another spelling", nil, func(c *client) (any, error) {
			return c.GetSlice(ctx, k, parent(dynFamily), bslice(spelling, nil, true, 10), one)
		})
		d.call(label+": get_slice after another spelling", nil, func(c *client) (any, error) {
			return c.GetSlice(ctx, k, parent(dynFamily), bslice(spelling, nil, false, 10), one)
		})
		d.call(label+": get_range_slices", nil, func(c *client) (any, error) {
			return c.GetRangeSlices(ctx, parent(dynFamily), slice("", "", false, 100), keyRange(key, key, 1), one)
		})
	}

	// The later version wins, whichever spelling it has.
	insert("insert by class", "newer", byClass, "v1", base+1)
	insert("insert by alias, later", "newer", byAlias, "v2", base+2)
	insert("insert another name", "newer", other, "v3", base+3)
	read("a later alias", "newer", byFull)

	// An earlier version loses, and its spelling with it.
	insert("insert by alias", "older", byAlias, "v2", base+5)
	insert("insert by class, earlier", "older", byClass, "v1", base+4)
	read("an earlier class name", "older", byClass)

	// A deletion by another spelling deletes the column.
	insert("insert by class", "deleted", byClass, "v1", base+1)
	insert("insert another name", "deleted", other, "v3", base+1)
	d.call("remove by alias", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, []byte("deleted"), &c19.ColumnPath{ColumnFamily: dynFamily, Column: byAlias}, base+2, one))
	})
	read("removed by another spelling", "deleted", byFull)
	insert("insert by full class name after the deletion", "deleted", byFull, "v4", base+3)
	read("written again after the deletion", "deleted", byAlias)
	insert("insert by alias before the deletion", "deleted", byAlias, "v5", base+1)
	read("a write older than the deletion", "deleted", byClass)

	// Both spellings in one batch_mutate.
	d.call("batch_mutate of two spellings", nil, func(c *client) (any, error) {
		m := func(name []byte, value string, stamp int64) *c19.Mutation {
			return &c19.Mutation{ColumnOrSupercolumn: &c19.ColumnOrSuperColumn{Column: &c19.Column{Name: name, Value: []byte(value), Timestamp: at(stamp)}}}
		}
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{
			"batch": {dynFamily: {m(byAlias, "a", base+7), m(byClass, "c", base+8), m(byFull, "f", base+6)}},
		}, one))
	})
	read("a batch of spellings", "batch", byAlias)

	// Of two spellings written at one timestamp, the greater value wins,
	// whichever was written last.
	insert("insert by class", "tie", byClass, "b", base+1)
	insert("insert by alias at the same time, a lesser value", "tie", byAlias, "a", base+1)
	read("a tie of timestamps", "tie", byFull)
	insert("insert by full class name at the same time, a greater value", "tie", byFull, "c", base+1)
	read("a tie of timestamps won by the later", "tie", byAlias)
	insert("insert by alias at the same time, the same value", "tie", byAlias, "c", base+1)
	read("a tie of timestamps and values", "tie", byClass)
}

func TestSpellings(t *testing.T) {
	d := setup(t)
	d.setKeyspace(d.ks)
	if d.declared {
		t.Skip("the store cannot create a DynamicCompositeType family")
	}
	d.spellings(t)
}
