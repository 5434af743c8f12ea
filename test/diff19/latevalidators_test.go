package diff19

import (
	"fmt"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	c19 "github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
)

// TestLateValidators compares families whose validators change after
// they hold data, as pycassa 1.x's test_default_validated_columns does
// (a family of default_validation_class LongType, then a column declared
// TimeUUIDType by system_update_column_family): every value the new
// validators allow is written and read back byte for byte, beside the
// values written before, by every read call; a value written under the
// old validator and one under the new meet by their timestamps; the
// default validator changes too. A Standard and a CompositeType family,
// the latter of names a row of clustering values each.
func TestLateValidators(t *testing.T) {
	d := setup(t)
	d.setKeyspace(d.ks)
	version := func(v any) any { return len(v.(string)) == 36 }
	u1 := uuidOf(1, 0x1e4a5b6c_7d8e_1000, 0x11)
	sixteen := []byte("sixteen bytes!!!")
	for _, fam := range []struct {
		name, comparator string
		n                func(string) []byte // a column name
	}{
		{"LateStd", "UTF8Type", func(s string) []byte { return []byte(s) }},
		{"LateComposite", "CompositeType(UTF8Type,LongType)", func(s string) []byte { return composite([]byte(s), long(7)) }},
	} {
		cf, n := fam.name, fam.n
		def := c19.NewCfDef()
		def.Keyspace, def.Name, def.ComparatorType = d.ks, cf, fam.comparator
		def.DefaultValidationClass = thrift.StringPtr("LongType")
		d.call(cf+": system_add_column_family of default_validation_class LongType", version, func(c *client) (any, error) {
			return c.SystemAddColumnFamily(ctx, def)
		})
		put := func(label string, name []byte, value []byte, ttl int32) {
			d.call(cf+": batch_mutate "+label, nil, func(c *client) (any, error) {
				col := &c19.Column{Name: name, Value: value, Timestamp: ts()}
				if ttl > 0 {
					col.TTL = &ttl
				}
				return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{"key1": {cf: {ins(col)}}}, one))
			})
		}
		read := func(label string) {
			d.call(cf+": get_slice "+label, nil, func(c *client) (any, error) {
				return c.GetSlice(ctx, []byte("key1"), parent(cf), slice("", "", false, 100), one)
			})
			d.call(cf+": get_slice by names "+label, nil, func(c *client) (any, error) {
				return c.GetSlice(ctx, []byte("key1"), parent(cf), &c19.SlicePredicate{ColumnNames: [][]byte{n("subcol"), n("flip"), n("aaaaaa")}}, one)
			})
			d.call(cf+": get_slice reversed, 2, "+label, nil, func(c *client) (any, error) {
				return c.GetSlice(ctx, []byte("key1"), parent(cf), slice("", "", true, 2), one)
			})
			d.call(cf+": get_count "+label, nil, func(c *client) (any, error) {
				return c.GetCount(ctx, []byte("key1"), parent(cf), slice("", "", false, 100), one)
			})
			d.call(cf+": multiget_slice "+label, nil, func(c *client) (any, error) {
				return c.MultigetSlice(ctx, [][]byte{[]byte("key1"), []byte("key2")}, parent(cf), slice("", "", false, 100), one)
			})
			d.call(cf+": get_range_slices "+label, nil, func(c *client) (any, error) {
				return c.GetRangeSlices(ctx, parent(cf), slice("", "", false, 100), keyRange("", "", 10), one)
			})
		}
		put("a LongType value under the default validator", n("aaaaaa"), long(1), 0)
		put("a LongType value of a column declared later", n("flip"), long(2), 0)
		put("a 16-byte value before subcol is declared", n("subcol"), sixteen, 0)
		update := func(label string, change func(*c19.CfDef)) {
			d.call(cf+": system_update_column_family "+label, version, func(c *client) (any, error) {
				change(def)
				return c.SystemUpdateColumnFamily(ctx, def)
			})
		}
		update("declaring subcol TimeUUIDType", func(def *c19.CfDef) {
			def.ColumnMetadata = []*c19.ColumnDef{{Name: n("subcol"), ValidationClass: "TimeUUIDType"}}
		})
		put("a TimeUUIDType value of subcol", n("subcol"), u1, 0)
		put("a LongType value of subcol", n("subcol"), long(3), 0)
		put("a LongType value under the default validator again", n("aaaaaa"), long(4), 0)
		read("after subcol is declared")
		update("declaring flip BytesType and utf UTF8Type", func(def *c19.CfDef) {
			def.ColumnMetadata = append(def.ColumnMetadata,
				&c19.ColumnDef{Name: n("flip"), ValidationClass: "BytesType"},
				&c19.ColumnDef{Name: n("utf"), ValidationClass: "UTF8Type"})
		})
		d.call(cf+": batch_mutate of every declared column at once", nil, func(c *client) (any, error) {
			return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{"key2": {cf: {
				ins(bcol(n("aaaaaa"), string(long(5)))),
				ins(bcol(n("subcol"), string(u1))),
				ins(bcol(n("flip"), string(sixteen))),
				ins(bcol(n("utf"), "a value of sixteen")),
			}}}, one))
		})
		// flip's LongType value, written under the default validator,
		// meets values of its BytesType: the later one is the column.
		d.call(cf+": insert of flip with an older timestamp", nil, func(c *client) (any, error) {
			return void(c.Insert(ctx, []byte("key1"), parent(cf), &c19.Column{Name: n("flip"), Value: []byte("old"), Timestamp: thrift.Int64Ptr(10)}, one))
		})
		read("after an older write of flip")
		put("a 3-byte value of flip", n("flip"), []byte("new"), 0)
		put("an empty value of utf", n("utf"), []byte{}, 0)
		read("after a later write of flip")
		put("an expiring value of flip", n("flip"), []byte("expiring"), 3600)
		d.call(cf+": get of flip", nil, func(c *client) (any, error) {
			return c.Get(ctx, []byte("key1"), &c19.ColumnPath{ColumnFamily: cf, Column: n("flip")}, one)
		})
		put("a LongType value of flip", n("flip"), long(9), 0)
		read("after flip holds a LongType value again")
		d.call(cf+": remove of flip", nil, func(c *client) (any, error) {
			return void(c.Remove(ctx, []byte("key1"), &c19.ColumnPath{ColumnFamily: cf, Column: n("flip")}, *ts(), one))
		})
		read("after flip is removed")
		update("changing default_validation_class to UTF8Type", func(def *c19.CfDef) {
			def.DefaultValidationClass = thrift.StringPtr("UTF8Type")
		})
		put("a UTF8Type value under the new default validator", n("other"), []byte("eleven byte"), 0)
		put("a UTF8Type value of aaaaaa", n("aaaaaa"), []byte("text now"), 0)
		read("after the default validator changed")
		d.call(cf+": remove of key1", nil, func(c *client) (any, error) {
			return void(c.Remove(ctx, []byte("key1"), &c19.ColumnPath{ColumnFamily: cf}, *ts(), one))
		})
		read("after key1 is removed")
	}
	fmt.Printf("diff19 late validators: %d calls compared on Cassandra 1.2.19 and thriftd (%s backend): %d unexpected differences\n",
		d.calls, testenv.Backend(), d.differences)
}
