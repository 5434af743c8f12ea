package diff19

import (
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	c19 "github.com/thriftd/thriftd/gen-go/cassandra19"
)

func (d *diff) ranges(t *testing.T) {
	// A family of their own, so that the rows of the other sequences do
	// not show up.
	for i := 0; i < 20; i++ {
		k := []byte{'r', 'o', 'w', byte('a' + i)}
		d.call("insert range rows", nil, func(c *client) (any, error) {
			return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{string(k): {"Ranges": {ins(col("a", "1")), ins(col("b", "2")), ins(col("c", "3"))}}}, one))
		})
	}
	all := slice("", "", false, 100)
	d.call("get_range_slices of every row", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Ranges"), all, keyRange("", "", 100), one)
	})
	d.call("get_range_slices count 5", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Ranges"), all, keyRange("", "", 5), one)
	})
	// Paging by keys: each page starts at the last key of the one before.
	start := ""
	for page := 0; page < 6; page++ {
		ref, _ := d.call("get_range_slices page", nil, func(c *client) (any, error) {
			return c.GetRangeSlices(ctx, parent("Ranges"), names("b"), keyRange(start, "", 4), one)
		})
		rows, _ := ref.val.([]*c19.KeySlice)
		if len(rows) == 0 {
			break
		}
		start = string(rows[len(rows)-1].Key)
	}
	d.call("get_range_slices by tokens 0 to 0 (the whole ring)", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Ranges"), names("a"), tokenRange("0", "0", 100), one)
	})
	d.call("get_range_slices by tokens, a part of the ring", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Ranges"), names("a"), tokenRange("42535295865117307932921825928971026432", "127605887595351923798765477786913079296", 100), one)
	})
	d.call("get_range_slices by tokens, wrapping", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Ranges"), names("a"), tokenRange("127605887595351923798765477786913079296", "42535295865117307932921825928971026432", 100), one)
	})
	d.call("get_range_slices by tokens, wrapping, count 3", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Ranges"), names("a"), tokenRange("127605887595351923798765477786913079296", "42535295865117307932921825928971026432", 3), one)
	})
	d.call("get_range_slices start token, end key", nil, func(c *client) (any, error) {
		s := "0"
		return c.GetRangeSlices(ctx, parent("Ranges"), names("a"), &c19.KeyRange{StartToken: &s, EndKey: []byte("rowa"), Count: 10}, one)
	})
	d.call("get_range_slices start key, end token", nil, func(c *client) (any, error) {
		e := "85070591730234615865843651857942052864"
		return c.GetRangeSlices(ctx, parent("Ranges"), names("a"), &c19.KeyRange{StartKey: []byte("rowa"), EndToken: &e, Count: 100}, one)
	})
	d.call("get_range_slices with start key and start token", nil, func(c *client) (any, error) {
		s := "0"
		return c.GetRangeSlices(ctx, parent("Ranges"), names("a"), &c19.KeyRange{StartKey: []byte("a"), StartToken: &s, EndKey: []byte(""), Count: 10}, one)
	})
	d.call("get_range_slices with no start", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Ranges"), names("a"), &c19.KeyRange{EndKey: []byte(""), Count: 10}, one)
	})
	d.call("get_range_slices with no end", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Ranges"), names("a"), &c19.KeyRange{StartKey: []byte(""), Count: 10}, one)
	})
	d.call("get_range_slices start key after end key", nil, func(c *client) (any, error) {
		// md5("rowb") sorts after md5("rowa")? Both orders are tried.
		return c.GetRangeSlices(ctx, parent("Ranges"), names("a"), keyRange("rowb", "rowa", 10), one)
	})
	d.call("get_range_slices start key before end key", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Ranges"), names("a"), keyRange("rowa", "rowb", 10), one)
	})
	d.call("get_range_slices count 0", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Ranges"), names("a"), keyRange("", "", 0), one)
	})
	d.call("get_range_slices count -1", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Ranges"), names("a"), keyRange("", "", -1), one)
	})
	d.call("get_range_slices with a malformed token", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Ranges"), names("a"), tokenRange("abc", "0", 10), one)
	})
	d.call("get_range_slices with a negative token", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Ranges"), names("a"), tokenRange("-5", "0", 10), one)
	})
	d.call("get_range_slices at ANY", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Ranges"), all, keyRange("", "", 10), anyCL)
	})
	d.call("get_range_slices with a row filter", nil, func(c *client) (any, error) {
		kr := keyRange("", "", 10)
		kr.RowFilter = []*c19.IndexExpression{{ColumnName: []byte("a"), Op: c19.IndexOperator_EQ, Value: []byte("1")}}
		return c.GetRangeSlices(ctx, parent("Ranges"), all, kr, one)
	})
	// Ghosts: a removed row still shows its key.
	d.call("remove a row of the range", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, []byte("rowc"), &c19.ColumnPath{ColumnFamily: "Ranges"}, *ts(), one))
	})
	d.call("remove every column of a row of the range", nil, func(c *client) (any, error) {
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{"rowd": {"Ranges": {del(names("a", "b", "c"), nil)}}}, one))
	})
	d.call("get_range_slices with ghosts", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Ranges"), all, keyRange("", "", 100), one)
	})
	d.call("get_range_slices with ghosts, by name", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Ranges"), names("b"), keyRange("", "", 100), one)
	})
	// get_paged_slice.
	for _, p := range []struct {
		label  string
		kr     *c19.KeyRange
		column string
	}{
		{"from the start, 7 columns", keyRange("", "", 7), ""},
		{"from column b, 7 columns", keyRange("", "", 7), "b"},
		{"every column", keyRange("", "", 1000), ""},
		{"from a key", keyRange("rowa", "", 5), "c"},
		{"by tokens", tokenRange("0", "0", 8), "b"},
		{"count 0", keyRange("", "", 0), ""},
		{"start key and token", &c19.KeyRange{StartKey: []byte(""), StartToken: thrift.StringPtr("0"), EndKey: []byte(""), Count: 5}, ""},
	} {
		d.call("get_paged_slice "+p.label, nil, func(c *client) (any, error) {
			return c.GetPagedSlice(ctx, "Ranges", p.kr, []byte(p.column), one)
		})
	}
	for _, p := range []struct {
		label  string
		kr     *c19.KeyRange
		column string
	}{
		{"from a column past the first row's last", keyRange("", "", 5), "zz"},
		{"1 column", keyRange("", "", 1), "b"},
		{"2 columns from the last", keyRange("", "", 2), "c"},
		{"start key equals end key", keyRange("rowe", "rowe", 10), ""},
		{"start key and end key", keyRange("rowa", "rowb", 100), "b"},
		{"wrapping tokens", tokenRange("127605887595351923798765477786913079296", "42535295865117307932921825928971026432", 4), ""},
	} {
		d.call("get_paged_slice "+p.label, nil, func(c *client) (any, error) {
			return c.GetPagedSlice(ctx, "Ranges", p.kr, []byte(p.column), one)
		})
	}
	d.call("get_range_slices reversed, 2 per row", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Ranges"), slice("", "", true, 2), keyRange("", "", 5), one)
	})
	d.call("get_range_slices start key equals end key", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Ranges"), slice("", "", false, 2), keyRange("rowe", "rowe", 5), one)
	})
	d.call("get_range_slices from an absent key", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Ranges"), slice("", "", false, 2), keyRange("nosuchrow", "", 3), one)
	})
	// Super rows: a row whose only super column is deleted is a ghost.
	for _, r := range []string{"sr1", "sr2", "sr3"} {
		d.call("insert super range rows", nil, func(c *client) (any, error) {
			return void(c.Insert(ctx, []byte(r), superParent("SuperLong", "a"), bcol(long(1), "v"), one))
		})
	}
	d.call("remove the super column of a super range row", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, []byte("sr2"), &c19.ColumnPath{ColumnFamily: "SuperLong", SuperColumn: []byte("a")}, *ts(), one))
	})
	d.call("batch_mutate deleting a super column without a predicate", nil, func(c *client) (any, error) {
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{"sr3": {"SuperLong": {del(nil, []byte("a"))}}}, one))
	})
	d.call("get_range_slices of super rows with ghosts", nil, func(c *client) (any, error) {
		rows, err := c.GetRangeSlices(ctx, parent("SuperLong"), slice("", "", false, 10), keyRange("", "", 100), one)
		var out []*c19.KeySlice
		for _, r := range rows {
			if len(r.Key) == 3 && r.Key[0] == 's' && r.Key[1] == 'r' {
				out = append(out, r)
			}
		}
		return out, err
	})
	d.call("get_range_slices inside a super column", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, superParent("SuperLong", "a"), slice("", "", false, 10), keyRange("", "", 100), one)
	})
	d.call("get_count of a super row after its super column's deletion", nil, func(c *client) (any, error) {
		return c.GetCount(ctx, []byte("sr3"), parent("SuperLong"), slice("", "", false, 10), one)
	})
	d.call("get_paged_slice of a Super family", nil, func(c *client) (any, error) {
		return c.GetPagedSlice(ctx, "Super", keyRange("", "", 5), []byte(""), one)
	})
	d.call("get_paged_slice of an unknown family", nil, func(c *client) (any, error) {
		return c.GetPagedSlice(ctx, "Nope", keyRange("", "", 5), []byte(""), one)
	})
	d.call("get_paged_slice at ANY", nil, func(c *client) (any, error) {
		return c.GetPagedSlice(ctx, "Ranges", keyRange("", "", 5), []byte(""), anyCL)
	})
	d.call("get_range_slices of Super", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Super"), all, keyRange("", "", 100), one)
	})
}

// ---- expiring columns -------------------------------------------------------
