package diff19

import (
	"fmt"
	"testing"

	c19 "github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
)

// TestPagedSliceAgainst21 compares get_paged_slice, Hadoop's wide-row
// reader, with Cassandra 2.1.21 where a job meets it at a split's edge:
// a token range that holds no row answers [] (an empty family, a small
// range between the rows, and the ring's last stretch), as
// get_range_slices does; and a range with a row filter is refused
// ("Cross-row paging is not supported along with index clauses") after
// the range and the consistency level are checked, on an indexed family
// and on one without an index.
func TestPagedSliceAgainst21(t *testing.T) {
	bytesType := "org.apache.cassandra.db.marshal.BytesType"
	d := setup21With(t, "Paged_", []family21{
		{name: "C", typ: "Standard", comparator: bytesType},
		{name: "E", typ: "Standard", comparator: bytesType},
		{name: "S", typ: "Super", comparator: bytesType},
		{name: "I", typ: "Standard", comparator: bytesType, indexed: "x"},
	})
	d.setKeyspace(d.ks)

	paged := func(label, cf string, kr *c19.KeyRange, start string) {
		t.Helper()
		d.call("get_paged_slice "+label, nil, func(cl *client) (any, error) {
			return cl.GetPagedSlice(ctx, cf, kr, []byte(start), one)
		})
	}
	ranged := func(label, cf string, kr *c19.KeyRange) {
		t.Helper()
		d.call("get_range_slices "+label, nil, func(cl *client) (any, error) {
			return cl.GetRangeSlices(ctx, parent(cf), allColumns(), kr, one)
		})
	}
	// An empty family, by keys and by tokens.
	paged("of an empty family", "E", keyRange("", "", 100), "")
	paged("of an empty family by tokens", "E", tokenRange("0", "0", 100), "")
	paged("of an empty super family", "S", keyRange("", "", 100), "")
	for _, k := range []string{"a", "b", "c", "d", "e", "f"} {
		d.call("insert "+k, nil, func(cl *client) (any, error) {
			return void(cl.Insert(ctx, []byte(k), parent("C"), col("n", "v-"+k), one))
		})
		d.call("insert indexed "+k, nil, func(cl *client) (any, error) {
			return void(cl.Insert(ctx, []byte(k), parent("I"), col("x", "hit"), one))
		})
	}
	// Token ranges holding none of the six rows (RandomPartitioner: their
	// tokens are far above 10^30, and below 2^127).
	for _, r := range [][2]string{{"0", "1"}, {"1", "1000"}, {"170141183460469231731687303715884105727", "0"}} {
		label := fmt.Sprintf("over (%s, %s], holding no row", r[0], r[1])
		paged(label, "C", tokenRange(r[0], r[1], 100), "")
		paged(label+" from a start column", "C", tokenRange(r[0], r[1], 100), "n")
		ranged(label, "C", tokenRange(r[0], r[1], 100))
	}
	// The whole ring and a wrapping range, for comparison.
	paged("of the ring", "C", keyRange("", "", 100), "")
	paged("of the ring by tokens, count 4", "C", tokenRange("0", "0", 4), "")
	paged("wrapping", "C", tokenRange("85070591730234615865843651857942052864", "85070591730234615865843651857942052863", 100), "")

	// A row filter: refused, on an indexed family and on one without an
	// index, by keys and by tokens; after the range's and the consistency
	// level's checks.
	filtered := func(label, cf string, kr *c19.KeyRange, cl c19.ConsistencyLevel, exprs ...*c19.IndexExpression) {
		t.Helper()
		kr.RowFilter = exprs
		d.call("get_paged_slice with a row filter "+label, nil, func(c *client) (any, error) {
			return c.GetPagedSlice(ctx, cf, kr, []byte{}, cl)
		})
	}
	hit := expr("x", c19.IndexOperator_EQ, []byte("hit"))
	filtered("on an indexed column", "I", keyRange("", "", 100), one, hit)
	filtered("on an indexed column, by tokens", "I", tokenRange("0", "0", 100), one, hit)
	filtered("on a family without an index", "C", keyRange("", "", 100), one, expr("n", c19.IndexOperator_EQ, []byte("v-a")))
	filtered("over a range holding no row", "I", tokenRange("0", "1", 100), one, hit)
	filtered("with consistency ANY", "I", keyRange("", "", 100), c19.ConsistencyLevel_ANY, hit)
	filtered("with a count of 0", "I", keyRange("", "", 0), one, hit)
	filtered("with both a start key and a start token", "I", &c19.KeyRange{StartKey: []byte("a"), StartToken: strPtr("0"), EndKey: []byte{}, Count: 10}, one, hit)
	filtered("empty", "I", keyRange("", "", 100), one)

	d.mu.Lock()
	defer d.mu.Unlock()
	fmt.Printf("diff19 get_paged_slice: %d calls compared on Cassandra 2.1.21 and thriftd (%s backend): %d unexpected differences\n",
		d.calls, testenv.Backend(), d.differences)
}
