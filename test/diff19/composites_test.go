package diff19

import (
	"fmt"
	"testing"

	c19 "github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
)

// part is one component of a composite slice bound as pycassa packs it:
// a value, and for the last component given, whether the bound includes
// the names it prefixes (pycassa's (value, inclusive) tuples).
type part struct {
	v         []byte
	exclusive bool // (v, False); otherwise (v, True) or a plain v
}

// bound packs a composite slice bound as pycassa 1.x does: every
// component but the last ends with 0; the last ends with 0xff where the
// bound lies before the names it prefixes (an inclusive start, an
// exclusive finish) and 0x01 where it lies after them (an exclusive
// start, an inclusive finish). asStart is pycassa's slice_start: true for
// a slice's start, false for its finish, the other way round for a
// reversed slice.
func bound(asStart bool, parts ...part) []byte {
	var out []byte
	for i, p := range parts {
		out = append(out, byte(len(p.v)>>8), byte(len(p.v)))
		out = append(out, p.v...)
		eoc := byte(0)
		if i == len(parts)-1 {
			before := asStart != p.exclusive
			eoc = 0x01
			if before {
				eoc = 0xff
			}
		}
		out = append(out, eoc)
	}
	return out
}

func in(v []byte) part  { return part{v: v} }
func out(v []byte) part { return part{v: v, exclusive: true} }

// TestCompositeSlices compares slices of CompositeType families whose
// bounds are composites of fewer components with an end-of-component
// byte, as pycassa 1.x sends them (its test_static_composite_slicing,
// TestComposites and TestCustomComposite of tests/test_autopacking.py),
// forward and reversed, with and without a count, on a family of pycassa's
// comparator (a ReversedType component among seven) and on one without a
// reversed component.
// pycassaComparator is the comparator of pycassa's TestComposites as
// pycassa 1.x sends it.
const pycassaComparator = "CompositeType(LongType(reversed=false), IntegerType(reversed=false), TimeUUIDType(reversed=true), " +
	"LexicalUUIDType(reversed=false), AsciiType(reversed=false), UTF8Type(reversed=false), BytesType(reversed=false))"

func TestCompositeSlices(t *testing.T) {
	d := setup(t)
	d.setKeyspace(d.ks)
	version := func(v any) any { return len(v.(string)) == 36 }
	u1 := uuidOf(1, 0x1e4a5b6c_7d8e_1000, 0x11)
	u4 := uuidOf(4, 0x2233_4455_6677_4000, 0x22)
	i1 := func(v int64) []byte { return []byte{byte(v)} }          // IntegerType: one byte for 0 to 127
	i4 := func(v int64) []byte { return i32(int32(20120100 + v)) } // pycassa's IntDateType: a date as an int
	digits := func(v int64) []byte { return []byte(fmt.Sprint(v * 123)) }
	families := []struct {
		name, comparator string
		// The components of names and bounds: the first two, then the
		// ones after them in every name.
		first, second func(int64) []byte
		tail          [][]byte
	}{
		{"PyComposite", pycassaComparator,
			long, i1, [][]byte{u1, u4, []byte("a"), []byte("b"), []byte("c")}},
		// pycassa's own names: the last three components empty.
		{"PyCompositeEmpty", pycassaComparator,
			long, i1, [][]byte{u1, u4, {}, {}, {}}},
		{"LongIntAscii", "CompositeType(LongType,IntegerType,AsciiType)", long, i1, [][]byte{[]byte("x")}},
		// TestCustomComposite's family.
		{"IntUTF8", "CompositeType(IntegerType,UTF8Type)", i4, digits, nil},
		{"RevFirst", "CompositeType(ReversedType(LongType),IntegerType)", long, i1, nil},
	}
	firsts := [][2]int64{{0, 1}, {1, 1}, {1, 2}, {1, 3}, {2, 1}}
	for _, f := range families {
		d.call("system_add_column_family "+f.name, version, func(c *client) (any, error) {
			def := c19.NewCfDef()
			def.Keyspace, def.Name, def.ComparatorType = d.ks, f.name, f.comparator
			return c.SystemAddColumnFamily(ctx, def)
		})
		var muts []*c19.Mutation
		for _, fs := range firsts {
			name := composite(append([][]byte{f.first(fs[0]), f.second(fs[1])}, f.tail...)...)
			muts = append(muts, ins(bcol(name, "")))
		}
		d.call(f.name+": batch_mutate of five composite names", nil, func(c *client) (any, error) {
			return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{"key2": {f.name: muts}}, one))
		})
		get := func(label string, start, finish []byte, reversed bool, count int32) {
			d.call(f.name+": get_slice "+label, nil, func(c *client) (any, error) {
				return c.GetSlice(ctx, []byte("key2"), parent(f.name), bslice(start, finish, reversed, count), one)
			})
		}
		L, i1 := f.first, f.second
		for _, count := range []int32{100, 2} {
			// Forward: a start is packed as pycassa's slice_start=True, a
			// finish as slice_start=False.
			get("(1,) to (1,)", bound(true, in(L(1))), bound(false, in(L(1))), false, count)
			get("((1,True),) to ((1,True),)", bound(true, in(L(1))), bound(false, in(L(1))), false, count)
			get("(1,) to ((2,False),)", bound(true, in(L(1))), bound(false, out(L(2))), false, count)
			get("((0,False),) to ((2,False),)", bound(true, out(L(0))), bound(false, out(L(2))), false, count)
			get("((1,False),) to end", bound(true, out(L(1))), nil, false, count)
			get("start to ((1,False),)", nil, bound(false, out(L(1))), false, count)
			get("(1,1) to (1,3)", bound(true, in(L(1)), in(i1(1))), bound(false, in(L(1)), in(i1(3))), false, count)
			get("(1,1) to (1,(3,True))", bound(true, in(L(1)), in(i1(1))), bound(false, in(L(1)), in(i1(3))), false, count)
			get("(1,(1,True)) to ((2,False),)", bound(true, in(L(1)), in(i1(1))), bound(false, out(L(2))), false, count)
			get("(1,(1,False)) to (1,(3,False))", bound(true, in(L(1)), out(i1(1))), bound(false, in(L(1)), out(i1(3))), false, count)
			// Reversed: pycassa packs the start as slice_start=False and
			// the finish as slice_start=True.
			get("reversed (1,) to (1,)", bound(false, in(L(1))), bound(true, in(L(1))), true, count)
			get("reversed ((2,False),) to ((0,False),)", bound(false, out(L(2))), bound(true, out(L(0))), true, count)
			get("reversed ((1,False),) to start", bound(false, out(L(1))), nil, true, count)
			get("reversed end to ((1,False),)", nil, bound(true, out(L(1))), true, count)
			get("reversed (1,3) to (1,1)", bound(false, in(L(1)), in(i1(3))), bound(true, in(L(1)), in(i1(1))), true, count)
			get("reversed ((1,True),) to ((1,True),)", bound(false, in(L(1))), bound(true, in(L(1))), true, count)
			get("reversed (1,) to ((1,True),)", bound(false, in(L(1))), bound(true, in(L(1))), true, count)
			get("reversed ((2,False),) to (1,)", bound(false, out(L(2))), bound(true, in(L(1))), true, count)
			get("reversed (1,) to ((0,False),)", bound(false, in(L(1))), bound(true, out(L(0))), true, count)
			get("reversed (1,(3,False)) to (1,(1,False))", bound(false, in(L(1)), out(i1(3))), bound(true, in(L(1)), out(i1(1))), true, count)
		}
		// test_static_composite_get_partial_composite: a name of fewer
		// components than the comparator's, beside one of all of them
		// whose last ones are empty.
		d.call(f.name+": insert of a name of two components", nil, func(c *client) (any, error) {
			return void(c.Insert(ctx, []byte("key3"), parent(f.name), bcol(composite(L(123123), i1(1)), "val"), one))
		})
		d.call(f.name+": insert of a longer name", nil, func(c *client) (any, error) {
			return void(c.Insert(ctx, []byte("key3"), parent(f.name), bcol(composite(append([][]byte{L(123123), i1(2)}, f.tail...)...), "val2"), one))
		})
		d.call(f.name+": get_slice of names of two and more components", nil, func(c *client) (any, error) {
			return c.GetSlice(ctx, []byte("key3"), parent(f.name), slice("", "", false, 100), one)
		})
		d.call(f.name+": get_count of (1,) to (1,)", nil, func(c *client) (any, error) {
			return c.GetCount(ctx, []byte("key2"), parent(f.name), bslice(bound(true, in(L(1))), bound(false, in(L(1))), false, 100), one)
		})
		d.call(f.name+": get_range_slices of (1,) to (1,)", nil, func(c *client) (any, error) {
			return c.GetRangeSlices(ctx, parent(f.name), bslice(bound(true, in(L(1))), bound(false, in(L(1))), false, 100), keyRange("", "", 10), one)
		})
	}
	fmt.Printf("diff19 composites: %d calls compared on Cassandra 1.2.19 and thriftd (%s backend): %d unexpected differences\n",
		d.calls, testenv.Backend(), d.differences)
}
