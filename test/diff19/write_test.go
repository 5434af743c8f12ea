package diff19

import (
	"strings"
	"testing"
	"time"

	c19 "github.com/thriftd/thriftd/gen-go/cassandra19"
)

func ins(cl *c19.Column) *c19.Mutation {
	return &c19.Mutation{ColumnOrSupercolumn: &c19.ColumnOrSuperColumn{Column: cl}}
}

func del(p *c19.SlicePredicate, sc []byte) *c19.Mutation {
	return &c19.Mutation{Deletion: &c19.Deletion{Timestamp: ts(), Predicate: p, SuperColumn: sc}}
}

func (d *diff) batch(t *testing.T) {
	for _, atomic := range []bool{false, true} {
		name := "batch_mutate"
		if atomic {
			name = "atomic_batch_mutate"
		}
		bm := func(label string, m map[string]map[string][]*c19.Mutation, cl c19.ConsistencyLevel) {
			d.call(name+" "+label, nil, func(c *client) (any, error) {
				if atomic {
					return void(c.AtomicBatchMutate(ctx, m, cl))
				}
				return void(c.BatchMutate(ctx, m, cl))
			})
		}
		k1, k2 := name+"-1", name+"-2"
		bm("inserts in two rows and two families", map[string]map[string][]*c19.Mutation{
			k1: {"Std": {ins(col("a", "1")), ins(col("b", "2")), ins(col("c", "3"))},
				"Super": {{ColumnOrSupercolumn: &c19.ColumnOrSuperColumn{SuperColumn: &c19.SuperColumn{Name: []byte("sc"), Columns: []*c19.Column{col("x", "1"), col("y", "2")}}}}}},
			k2: {"Std": {ins(col("a", "1"))}},
		}, one)
		d.call(name+" read back", nil, func(c *client) (any, error) {
			return c.MultigetSlice(ctx, [][]byte{[]byte(k1), []byte(k2)}, parent("Std"), slice("", "", false, 100), one)
		})
		d.call(name+" read back Super", nil, func(c *client) (any, error) {
			return c.GetSlice(ctx, []byte(k1), parent("Super"), slice("", "", false, 100), one)
		})
		bm("deletions by name", map[string]map[string][]*c19.Mutation{
			k1: {"Std": {del(names("a", "c"), nil)}, "Super": {del(names("y"), []byte("sc"))}},
		}, one)
		bm("deletion of a super column", map[string]map[string][]*c19.Mutation{
			k2: {"Super": {del(names("sc"), nil)}},
		}, one)
		bm("deletion of a row", map[string]map[string][]*c19.Mutation{
			k2: {"Std": {del(nil, nil)}},
		}, one)
		d.call(name+" read back after deletions", nil, func(c *client) (any, error) {
			return c.MultigetSlice(ctx, [][]byte{[]byte(k1), []byte(k2)}, parent("Std"), slice("", "", false, 100), one)
		})
		d.call(name+" read back Super after deletions", nil, func(c *client) (any, error) {
			return c.GetSlice(ctx, []byte(k1), parent("Super"), slice("", "", false, 100), one)
		})
		bm("at ANY", map[string]map[string][]*c19.Mutation{k1: {"Std": {ins(col("any", "1"))}}}, anyCL)
		bm("at EACH_QUORUM", map[string]map[string][]*c19.Mutation{k1: {"Std": {ins(col("eq", "1"))}}}, eachQ)
		bm("empty", map[string]map[string][]*c19.Mutation{}, one)
		bm("row with no mutations", map[string]map[string][]*c19.Mutation{k1: {"Std": {}}}, one)
		// Refusals: nothing of the batch is written.
		bm("with an unknown family", map[string]map[string][]*c19.Mutation{k1: {"Std": {ins(col("bad", "1"))}, "Nope": {ins(col("a", "1"))}}}, one)
		bm("with an empty key", map[string]map[string][]*c19.Mutation{"": {"Std": {ins(col("a", "1"))}}}, one)
		bm("with neither insert nor deletion", map[string]map[string][]*c19.Mutation{k1: {"Std": {{}}}}, one)
		bm("with both insert and deletion", map[string]map[string][]*c19.Mutation{k1: {"Std": {{ColumnOrSupercolumn: &c19.ColumnOrSuperColumn{Column: col("a", "1")}, Deletion: &c19.Deletion{Timestamp: ts()}}}}}, one)
		bm("with an empty ColumnOrSuperColumn", map[string]map[string][]*c19.Mutation{k1: {"Std": {{ColumnOrSupercolumn: &c19.ColumnOrSuperColumn{}}}}}, one)
		bm("with column and super column", map[string]map[string][]*c19.Mutation{k1: {"Super": {{ColumnOrSupercolumn: &c19.ColumnOrSuperColumn{Column: col("a", "1"), SuperColumn: &c19.SuperColumn{Name: []byte("s"), Columns: []*c19.Column{col("a", "1")}}}}}}}, one)
		bm("with a column in a Super family", map[string]map[string][]*c19.Mutation{k1: {"Super": {ins(col("a", "1"))}}}, one)
		bm("with a super column in a standard family", map[string]map[string][]*c19.Mutation{k1: {"Std": {{ColumnOrSupercolumn: &c19.ColumnOrSuperColumn{SuperColumn: &c19.SuperColumn{Name: []byte("s"), Columns: []*c19.Column{col("a", "1")}}}}}}}, one)
		// 1.2 refused a range deletion; thriftd serves it as 2.1 does
		// (rangedel_test.go), and here refuses the mutation after it.
		bm("with a slice range deletion", map[string]map[string][]*c19.Mutation{k1: {"Std": {del(slice("a", "z", false, 10), nil),
			{Deletion: &c19.Deletion{Predicate: names("a")}}}}}, one)
		bm("with a deletion without timestamp", map[string]map[string][]*c19.Mutation{k1: {"Std": {{Deletion: &c19.Deletion{Predicate: names("a")}}}}}, one)
		bm("with a bad Long name", map[string]map[string][]*c19.Mutation{k1: {"Long": {ins(bcol([]byte{1}, "v"))}}}, one)
		bm("deleting a bad Long name", map[string]map[string][]*c19.Mutation{k1: {"Long": {del(names("x"), nil)}}}, one)
		bm("with a super column deletion in a standard family", map[string]map[string][]*c19.Mutation{k1: {"Std": {del(names("a"), []byte("sc"))}}}, one)
		bm("with an empty super column name", map[string]map[string][]*c19.Mutation{k1: {"Super": {{ColumnOrSupercolumn: &c19.ColumnOrSuperColumn{SuperColumn: &c19.SuperColumn{Name: []byte{}, Columns: []*c19.Column{col("a", "1")}}}}}}}, one)
		bm("with an empty super column", map[string]map[string][]*c19.Mutation{k1: {"Super": {{ColumnOrSupercolumn: &c19.ColumnOrSuperColumn{SuperColumn: &c19.SuperColumn{Name: []byte("s"), Columns: []*c19.Column{}}}}}}}, one)
		bm("with a counter", map[string]map[string][]*c19.Mutation{k1: {"Std": {{ColumnOrSupercolumn: &c19.ColumnOrSuperColumn{CounterColumn: &c19.CounterColumn{Name: []byte("c"), Value: 1}}}}}}, one)
		bm("with a missing timestamp", map[string]map[string][]*c19.Mutation{k1: {"Std": {ins(&c19.Column{Name: []byte("a"), Value: []byte("v")})}}}, one)
		d.call(name+" nothing of a refused batch was written", nil, func(c *client) (any, error) {
			return c.GetSlice(ctx, []byte(k1), parent("Std"), slice("", "", false, 100), one)
		})
	}
}

// ---- key ranges -------------------------------------------------------------

func (d *diff) ttl(t *testing.T) {
	k := []byte("ttl-row")
	withTTL := func(name string, ttl int32) *c19.Column {
		c := col(name, "v")
		c.TTL = &ttl
		return c
	}
	d.call("insert with ttl 100", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Std"), withTTL("long-lived", 100), one))
	})
	d.call("get carries the ttl", nil, func(c *client) (any, error) { return c.Get(ctx, k, path("Std", "long-lived"), one) })
	d.call("insert with ttl 1", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Std"), withTTL("short", 1), one))
	})
	d.call("insert a whole row with ttl 1", nil, func(c *client) (any, error) {
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{"ttl-ghost": {"Std": {ins(withTTL("a", 1)), ins(withTTL("b", 1))}}}, one))
	})
	d.call("insert with ttl 0", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Std"), withTTL("x", 0), one))
	})
	d.call("insert with ttl -1", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Std"), withTTL("x", -1), one))
	})
	d.call("insert with ttl 630720001", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Std"), withTTL("x", 630720001), one))
	})
	d.call("insert with ttl 630720000", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Std"), withTTL("max", 630720000), one))
	})
	d.call("batch_mutate with ttl 0", nil, func(c *client) (any, error) {
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{"ttl-row": {"Std": {ins(withTTL("y", 0))}}}, one))
	})
	d.call("super column with ttl -5", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, superParent("Super", "s"), withTTL("y", -5), one))
	})
	time.Sleep(2100 * time.Millisecond)
	d.call("get of an expired column", nil, func(c *client) (any, error) { return c.Get(ctx, k, path("Std", "short"), one) })
	d.call("get_slice after expiry", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Std"), slice("", "", false, 100), one)
	})
	d.call("get_count after expiry", nil, func(c *client) (any, error) {
		return c.GetCount(ctx, k, parent("Std"), slice("", "", false, 100), one)
	})
	d.call("multiget_slice of an expired row", nil, func(c *client) (any, error) {
		return c.MultigetSlice(ctx, [][]byte{[]byte("ttl-ghost")}, parent("Std"), slice("", "", false, 100), one)
	})
	d.call("get_range_slices shows an expired row as a ghost", nil, func(c *client) (any, error) {
		rows, err := c.GetRangeSlices(ctx, parent("Std"), slice("", "", false, 100), keyRange("", "", 100), one)
		// Only the rows of this sequence: the others' are compared elsewhere.
		var out []*c19.KeySlice
		for _, r := range rows {
			if strings.HasPrefix(string(r.Key), "ttl-") {
				out = append(out, r)
			}
		}
		return out, err
	})
}

// ---- bad input --------------------------------------------------------------

func (d *diff) truncate(t *testing.T) {
	k := []byte("trunc-row")
	d.call("insert before truncate", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Ascii"), col("a", "v"), one))
	})
	d.call("truncate", nil, func(c *client) (any, error) { return void(c.Truncate(ctx, "Ascii")) })
	d.call("get_slice after truncate", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Ascii"), slice("", "", false, 10), one)
	})
	d.call("get_range_slices after truncate", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Ascii"), slice("", "", false, 10), keyRange("", "", 10), one)
	})
	d.call("insert after truncate", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Ascii"), col("b", "v"), one))
	})
	d.call("get_slice after insert after truncate", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Ascii"), slice("", "", false, 10), one)
	})
	d.call("truncate of an unknown family", nil, func(c *client) (any, error) { return void(c.Truncate(ctx, "Nope")) })
	d.call("truncate of an empty name", nil, func(c *client) (any, error) { return void(c.Truncate(ctx, "")) })
}

// ---- describe_* -------------------------------------------------------------

// The normalisations say what must differ between two servers: which node
// holds which token at which address, the cluster's name, and schema
// version ids.
