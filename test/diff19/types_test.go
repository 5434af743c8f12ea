package diff19

import (
	"encoding/binary"
	"math"
	"testing"

	c19 "github.com/thriftd/thriftd/gen-go/cassandra19"
)

func i32(v int32) []byte {
	b := make([]byte, 4)
	binary.BigEndian.PutUint32(b, uint32(v))
	return b
}

func f32(v float32) []byte { return i32(int32(math.Float32bits(v))) }
func f64(v float64) []byte { return long(int64(math.Float64bits(v))) }

// composite encodes CompositeType components: each a 2-byte length, the
// bytes and an end-of-component byte.
func composite(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, byte(len(p)>>8), byte(len(p)))
		out = append(out, p...)
		out = append(out, 0)
	}
	return out
}

func uuidOf(version byte, hi uint64, lo byte) []byte {
	b := make([]byte, 16)
	binary.BigEndian.PutUint64(b, hi)
	b[6] = b[6]&0x0f | version<<4
	b[8], b[15] = 0x80, lo
	return b
}

// typeCases are the 1.2 types beyond 0.6's: names and values that are
// valid, in no particular order, and some that are not.
var typeCases = []struct {
	typ       string
	good, bad [][]byte
}{
	{"IntegerType", [][]byte{{0x01, 0x00}, {0xff}, {0x00}, {0x80, 0x00}, {0x7f}, {0xff, 0x7f}}, nil},
	{"Int32Type", [][]byte{i32(7), i32(-5), i32(0), i32(1 << 30), i32(math.MinInt32)}, [][]byte{{1, 2, 3}, {1, 2, 3, 4, 5}}},
	{"DateType", [][]byte{long(1000), long(-1000), long(0), long(1 << 50)}, [][]byte{{1, 2, 3}}},
	{"BooleanType", [][]byte{{1}, {0}}, [][]byte{{0, 1}}},
	{"DoubleType", [][]byte{f64(1.5), f64(-2), f64(0), f64(1e300)}, [][]byte{{1, 2, 3, 4}}},
	{"FloatType", [][]byte{f32(1.5), f32(-2), f32(0)}, [][]byte{{1, 2}}},
	{"DecimalType", [][]byte{append(i32(0), 5), append(i32(1), 5), append(i32(0), 0xfb)}, nil},
	{"UUIDType", [][]byte{uuidOf(4, 9, 1), uuidOf(1, 5, 2), uuidOf(1, 3, 3), uuidOf(4, 2, 4)}, [][]byte{make([]byte, 15)}},
	{"InetAddressType", [][]byte{{127, 0, 0, 1}, {10, 0, 0, 1}, append(make([]byte, 15), 1)}, [][]byte{{1, 2, 3, 4, 5}}},
	{"CompositeType(UTF8Type,LongType)", [][]byte{composite([]byte("b"), long(0)), composite([]byte("a"), long(1)), composite([]byte("a"), long(-1)), composite([]byte("a"))},
		[][]byte{{0, 5, 'a'}, composite([]byte("a"), []byte{1, 2, 3}), composite([]byte{0xff})}},
	{"ReversedType(LongType)", [][]byte{long(5), long(-3), long(0)}, [][]byte{{1}}},
	{"UTF8Type", [][]byte{[]byte("é"), []byte("a")}, [][]byte{{0xc3, 0x28}}},
	{"AsciiType", [][]byte{[]byte("a"), []byte("B")}, [][]byte{{0x80}}},
	{"LexicalUUIDType", [][]byte{uuidOf(4, 1<<63, 1), uuidOf(4, 1, 2)}, [][]byte{make([]byte, 3)}},
	{"BytesType", [][]byte{{0xff}, {0x00}, {}}, nil},
}

func (d *diff) types(t *testing.T) {
	k := []byte("types-row")
	for i, tc := range typeCases {
		cf := typeFamily(i)
		label := tc.typ + ": "
		for _, g := range tc.good {
			d.call(label+"insert a valid name and value", nil, func(c *client) (any, error) {
				return void(c.Insert(ctx, k, parent(cf), &c19.Column{Name: g, Value: g, Timestamp: ts()}, one))
			})
		}
		d.call(label+"get_slice in order", nil, func(c *client) (any, error) {
			return c.GetSlice(ctx, k, parent(cf), slice("", "", false, 100), one)
		})
		d.call(label+"get_slice reversed, 2", nil, func(c *client) (any, error) {
			return c.GetSlice(ctx, k, parent(cf), slice("", "", true, 2), one)
		})
		first, last := tc.good[0], tc.good[len(tc.good)-1]
		d.call(label+"get_slice from the first name to the last", nil, func(c *client) (any, error) {
			return c.GetSlice(ctx, k, parent(cf), bslice(first, last, false, 100), one)
		})
		d.call(label+"get_slice from the last name to the first", nil, func(c *client) (any, error) {
			return c.GetSlice(ctx, k, parent(cf), bslice(last, first, false, 100), one)
		})
		d.call(label+"get by name", nil, func(c *client) (any, error) {
			return c.Get(ctx, k, &c19.ColumnPath{ColumnFamily: cf, Column: first}, one)
		})
		for _, b := range tc.bad {
			d.call(label+"insert a bad name", nil, func(c *client) (any, error) {
				return void(c.Insert(ctx, k, parent(cf), &c19.Column{Name: b, Value: first, Timestamp: ts()}, one))
			})
			d.call(label+"insert a bad value", nil, func(c *client) (any, error) {
				return void(c.Insert(ctx, k, parent(cf), &c19.Column{Name: first, Value: b, Timestamp: ts()}, one))
			})
			d.call(label+"get_slice from a bad name", nil, func(c *client) (any, error) {
				return c.GetSlice(ctx, k, parent(cf), bslice(b, nil, false, 10), one)
			})
			d.call(label+"get_paged_slice from a bad start column", nil, func(c *client) (any, error) {
				return c.GetPagedSlice(ctx, cf, keyRange("", "", 5), b, one)
			})
			d.call(label+"get_slice of a bad name", nil, func(c *client) (any, error) {
				return c.GetSlice(ctx, k, parent(cf), &c19.SlicePredicate{ColumnNames: [][]byte{b}}, one)
			})
			d.call(label+"batch_mutate deleting a bad name", nil, func(c *client) (any, error) {
				return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{string(k): {cf: {del(&c19.SlicePredicate{ColumnNames: [][]byte{b}}, nil)}}}, one))
			})
		}
		d.call(label+"get_slice after the refusals", nil, func(c *client) (any, error) {
			return c.GetSlice(ctx, k, parent(cf), slice("", "", false, 100), one)
		})
	}
}
