package diff19

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	c19 "github.com/thriftd/thriftd/gen-go/cassandra19"
)

type client = c19.CassandraClient

const (
	one    = c19.ConsistencyLevel_ONE
	quorum = c19.ConsistencyLevel_QUORUM
	all    = c19.ConsistencyLevel_ALL
	anyCL  = c19.ConsistencyLevel_ANY
	eachQ  = c19.ConsistencyLevel_EACH_QUORUM
	localQ = c19.ConsistencyLevel_LOCAL_QUORUM
)

// Every write carries an explicit timestamp, the same on both sides.
var clock int64 = 1_000_000

func ts() *int64 {
	clock++
	v := clock
	return &v
}

func col(name, value string) *c19.Column {
	return &c19.Column{Name: []byte(name), Value: []byte(value), Timestamp: ts()}
}

func bcol(name []byte, value string) *c19.Column {
	return &c19.Column{Name: name, Value: []byte(value), Timestamp: ts()}
}

func parent(cf string) *c19.ColumnParent { return &c19.ColumnParent{ColumnFamily: cf} }

func superParent(cf, sc string) *c19.ColumnParent {
	return &c19.ColumnParent{ColumnFamily: cf, SuperColumn: []byte(sc)}
}

func path(cf, name string) *c19.ColumnPath {
	return &c19.ColumnPath{ColumnFamily: cf, Column: []byte(name)}
}

func names(ns ...string) *c19.SlicePredicate {
	p := &c19.SlicePredicate{ColumnNames: [][]byte{}}
	for _, n := range ns {
		p.ColumnNames = append(p.ColumnNames, []byte(n))
	}
	return p
}

func slice(start, finish string, reversed bool, count int32) *c19.SlicePredicate {
	return &c19.SlicePredicate{SliceRange: &c19.SliceRange{Start: []byte(start), Finish: []byte(finish), Reversed: reversed, Count: count}}
}

func bslice(start, finish []byte, reversed bool, count int32) *c19.SlicePredicate {
	return &c19.SlicePredicate{SliceRange: &c19.SliceRange{Start: start, Finish: finish, Reversed: reversed, Count: count}}
}

func long(v int64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, uint64(v))
	return b
}

func keyRange(start, end string, count int32) *c19.KeyRange {
	return &c19.KeyRange{StartKey: []byte(start), EndKey: []byte(end), Count: count}
}

func tokenRange(start, end string, count int32) *c19.KeyRange {
	return &c19.KeyRange{StartToken: &start, EndToken: &end, Count: count}
}

func TestDiff(t *testing.T) {
	d := setup(t)
	t.Run("connection", d.connection)
	d.setKeyspace(d.ks)
	t.Run("standard", d.standard)
	t.Run("comparators", d.comparators)
	t.Run("super", d.super)
	t.Run("batch", d.batch)
	t.Run("ranges", d.ranges)
	t.Run("ttl", d.ttl)
	t.Run("counters", d.counters)
	t.Run("validation", d.validation)
	t.Run("validators", d.validators)
	t.Run("types", d.types)
	t.Run("truncate", d.truncate)
	t.Run("describe", d.describe)
	t.Run("schema", d.schema)
	t.Run("indexes", d.indexes)
	d.report()
}

// ---- connection state -------------------------------------------------------

func (d *diff) connection(t *testing.T) {
	d.fresh()
	d.call("get_slice before set_keyspace", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, []byte("k"), parent("Std"), slice("", "", false, 10), one)
	})
	d.call("insert before set_keyspace", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, []byte("k"), parent("Std"), col("a", "v"), one))
	})
	d.call("get_range_slices before set_keyspace", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Std"), slice("", "", false, 10), keyRange("", "", 10), one)
	})
	d.call("truncate before set_keyspace", nil, func(c *client) (any, error) { return void(c.Truncate(ctx, "Std")) })
	d.call("set_keyspace of an unknown keyspace", nil, func(c *client) (any, error) { return void(c.SetKeyspace(ctx, "NoSuchKeyspace")) })
	d.call("set_keyspace of an empty name", nil, func(c *client) (any, error) { return void(c.SetKeyspace(ctx, "")) })
	d.call("login (AllowAllAuthenticator)", nil, func(c *client) (any, error) {
		return void(c.Login(ctx, &c19.AuthenticationRequest{Credentials: map[string]string{"username": "u", "password": "p"}}))
	})
	d.call("login with no credentials", nil, func(c *client) (any, error) {
		return void(c.Login(ctx, &c19.AuthenticationRequest{Credentials: map[string]string{}}))
	})
	d.call("set_keyspace system", nil, func(c *client) (any, error) { return void(c.SetKeyspace(ctx, "system")) })
	d.call("describe_version", nil, func(c *client) (any, error) { return c.DescribeVersion(ctx) })
}

// ---- plain columns ----------------------------------------------------------

func (d *diff) standard(t *testing.T) {
	k := []byte("std-row")
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		d.call("insert "+n, nil, func(c *client) (any, error) {
			return void(c.Insert(ctx, k, parent("Std"), col(n, "value-"+n), one))
		})
	}
	d.call("insert at QUORUM", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Std"), col("g", "q"), quorum))
	})
	d.call("insert at ALL", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Std"), col("h", "all"), all))
	})
	d.call("insert at ANY", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Std"), col("i", "any"), anyCL))
	})
	d.call("get a column", nil, func(c *client) (any, error) { return c.Get(ctx, k, path("Std", "c"), one) })
	d.call("get at QUORUM", nil, func(c *client) (any, error) { return c.Get(ctx, k, path("Std", "c"), quorum) })
	d.call("get at LOCAL_QUORUM", nil, func(c *client) (any, error) { return c.Get(ctx, k, path("Std", "c"), localQ) })
	d.call("get a missing column", nil, func(c *client) (any, error) { return c.Get(ctx, k, path("Std", "zz"), one) })
	d.call("get of a missing row", nil, func(c *client) (any, error) { return c.Get(ctx, []byte("nobody"), path("Std", "a"), one) })
	d.call("get without a column", nil, func(c *client) (any, error) {
		return c.Get(ctx, k, &c19.ColumnPath{ColumnFamily: "Std"}, one)
	})
	for _, p := range []struct {
		label string
		pred  *c19.SlicePredicate
	}{
		{"all", slice("", "", false, 100)},
		{"count 3", slice("", "", false, 3)},
		{"reversed", slice("", "", true, 100)},
		{"reversed count 2", slice("", "", true, 2)},
		{"b to d", slice("b", "d", false, 100)},
		{"d to b reversed", slice("d", "b", true, 100)},
		{"from c", slice("c", "", false, 100)},
		{"to c reversed", slice("c", "", true, 100)},
		{"count 0", slice("", "", false, 0)},
		{"empty range", slice("x", "z", false, 10)},
		{"names", names("a", "c", "zz", "b")},
		{"no names", names()},
		{"duplicate names", names("a", "a")},
	} {
		d.call("get_slice "+p.label, nil, func(c *client) (any, error) { return c.GetSlice(ctx, k, parent("Std"), p.pred, one) })
		d.call("get_count "+p.label, nil, func(c *client) (any, error) { return c.GetCount(ctx, k, parent("Std"), p.pred, one) })
	}
	keys := [][]byte{k, []byte("nobody"), k}
	d.call("multiget_slice with a missing and a repeated key", nil, func(c *client) (any, error) {
		return c.MultigetSlice(ctx, keys, parent("Std"), slice("", "", false, 4), one)
	})
	d.call("multiget_count with a missing and a repeated key", nil, func(c *client) (any, error) {
		return c.MultigetCount(ctx, keys, parent("Std"), slice("", "", false, 4), one)
	})
	d.call("multiget_slice of no keys", nil, func(c *client) (any, error) {
		return c.MultigetSlice(ctx, [][]byte{}, parent("Std"), slice("", "", false, 4), one)
	})
	d.call("remove a column", nil, func(c *client) (any, error) { return void(c.Remove(ctx, k, path("Std", "b"), *ts(), one)) })
	d.call("get a removed column", nil, func(c *client) (any, error) { return c.Get(ctx, k, path("Std", "b"), one) })
	d.call("remove a column with an older timestamp", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, k, path("Std", "c"), 5, one))
	})
	d.call("get a column a stale remove missed", nil, func(c *client) (any, error) { return c.Get(ctx, k, path("Std", "c"), one) })
	d.call("insert older than a remove", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Std"), &c19.Column{Name: []byte("b"), Value: []byte("old"), Timestamp: thrift.Int64Ptr(10)}, one))
	})
	d.call("get_slice after removals", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Std"), slice("", "", false, 100), one)
	})
	d.call("insert overwrites", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Std"), col("a", "newer"), one))
	})
	d.call("get overwritten", nil, func(c *client) (any, error) { return c.Get(ctx, k, path("Std", "a"), one) })
	d.call("remove the row", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, k, &c19.ColumnPath{ColumnFamily: "Std"}, *ts(), one))
	})
	d.call("get_slice of a removed row", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Std"), slice("", "", false, 100), one)
	})
	d.call("get_count of a removed row", nil, func(c *client) (any, error) {
		return c.GetCount(ctx, k, parent("Std"), slice("", "", false, 100), one)
	})
	d.call("remove at ANY", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, []byte("other"), path("Std", "a"), *ts(), anyCL))
	})
	d.call("empty value", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, []byte("empty"), parent("Std"), col("e", ""), one))
	})
	d.call("get an empty value", nil, func(c *client) (any, error) { return c.Get(ctx, []byte("empty"), path("Std", "e"), one) })
}

// ---- comparators ------------------------------------------------------------

func (d *diff) comparators(t *testing.T) {
	k := []byte("cmp-row")
	// LongType: negative numbers first.
	for _, v := range []int64{5, -3, 1 << 40, 0, -1 << 50} {
		d.call("insert Long", nil, func(c *client) (any, error) {
			return void(c.Insert(ctx, k, parent("Long"), bcol(long(v), "v"), one))
		})
	}
	d.call("get_slice Long", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Long"), slice("", "", false, 100), one)
	})
	d.call("get_slice Long -3 to 5", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Long"), bslice(long(-3), long(5), false, 100), one)
	})
	d.call("get_slice Long reversed from 5", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Long"), bslice(long(5), nil, true, 100), one)
	})
	d.call("get_slice Long in the wrong order", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Long"), bslice(long(5), long(-3), false, 100), one)
	})
	d.call("get_slice Long reversed in the wrong order", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Long"), bslice(long(-3), long(5), true, 100), one)
	})
	d.call("insert Long with a 3-byte name", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Long"), bcol([]byte{1, 2, 3}, "v"), one))
	})
	d.call("get_slice Long with a 4-byte start", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Long"), bslice([]byte{0, 0, 0, 1}, nil, false, 10), one)
	})
	d.call("get Long with a 9-byte name", nil, func(c *client) (any, error) {
		return c.Get(ctx, k, &c19.ColumnPath{ColumnFamily: "Long", Column: make([]byte, 9)}, one)
	})
	d.call("get_slice Long by a bad name", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Long"), &c19.SlicePredicate{ColumnNames: [][]byte{{1}}}, one)
	})

	// UTF8Type and AsciiType.
	for _, n := range []string{"b", "a", "é", "Z", "aa"} {
		d.call("insert Utf "+n, nil, func(c *client) (any, error) {
			return void(c.Insert(ctx, k, parent("Utf"), col(n, "v"), one))
		})
		d.call("insert Ascii "+n, nil, func(c *client) (any, error) {
			return void(c.Insert(ctx, k, parent("Ascii"), col(n, "v"), one))
		})
	}
	d.call("get_slice Utf", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Utf"), slice("", "", false, 100), one)
	})
	d.call("get_slice Ascii", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Ascii"), slice("", "", false, 100), one)
	})
	d.call("insert Utf with invalid UTF-8", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Utf"), bcol([]byte{0xff, 0xfe}, "v"), one))
	})
	d.call("get_slice Utf with an invalid start", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Utf"), bslice([]byte{0xc3}, nil, false, 10), one)
	})
	d.call("get_slice Utf in the wrong order", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Utf"), slice("b", "a", false, 10), one)
	})

	// UUIDs.
	tu := func(ms uint64, seq byte) []byte {
		// A version 1 UUID with the given 60-bit timestamp.
		b := make([]byte, 16)
		binary.BigEndian.PutUint32(b[0:], uint32(ms))
		binary.BigEndian.PutUint16(b[4:], uint16(ms>>32))
		binary.BigEndian.PutUint16(b[6:], uint16(ms>>48)&0x0fff|0x1000)
		b[8], b[9] = 0x80, seq
		return b
	}
	for i, ms := range []uint64{300, 100, 200, 100} {
		u := tu(ms, byte(i))
		d.call("insert TimeUUID", nil, func(c *client) (any, error) {
			return void(c.Insert(ctx, k, parent("TimeUUID"), bcol(u, "v"), one))
		})
		d.call("insert LexUUID", nil, func(c *client) (any, error) {
			return void(c.Insert(ctx, k, parent("LexUUID"), bcol(u, "v"), one))
		})
	}
	// Equal timestamps, told apart by a byte whose sign bit differs: 1.2
	// compares them signed.
	for _, b8 := range []byte{0x00, 0x80, 0x7f, 0xff} {
		u := tu(400, 0)
		u[8] = b8
		d.call("insert TimeUUID of an equal timestamp", nil, func(c *client) (any, error) {
			return void(c.Insert(ctx, k, parent("TimeUUID"), bcol(u, fmt.Sprintf("%02x", b8)), one))
		})
	}
	d.call("get_slice TimeUUID", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("TimeUUID"), slice("", "", false, 100), one)
	})
	d.call("get_slice TimeUUID reversed", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("TimeUUID"), slice("", "", true, 100), one)
	})
	d.call("get_slice LexUUID", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("LexUUID"), slice("", "", false, 100), one)
	})
	d.call("get_slice TimeUUID 100 to 200", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("TimeUUID"), bslice(tu(100, 0), tu(200, 9), false, 100), one)
	})
	d.call("get_slice TimeUUID in the wrong order", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("TimeUUID"), bslice(tu(200, 0), tu(100, 0), false, 100), one)
	})
	v4 := tu(5, 5)
	v4[6] = 0x40
	d.call("insert TimeUUID of version 4", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("TimeUUID"), bcol(v4, "v"), one))
	})
	d.call("insert TimeUUID of 15 bytes", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("TimeUUID"), bcol(make([]byte, 15), "v"), one))
	})
	d.call("insert LexUUID of 17 bytes", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("LexUUID"), bcol(make([]byte, 17), "v"), one))
	})
	d.call("insert LexUUID of 0 bytes", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("LexUUID"), bcol([]byte{}, "v"), one))
	})
}

// ---- super columns ----------------------------------------------------------

func (d *diff) super(t *testing.T) {
	k := []byte("super-row")
	for _, sc := range []string{"s1", "s2", "s3"} {
		for _, n := range []string{"x", "y", "z"} {
			d.call("insert into a super column", nil, func(c *client) (any, error) {
				return void(c.Insert(ctx, k, superParent("Super", sc), col(n, sc+n), one))
			})
		}
	}
	d.call("insert into Super without a super column", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Super"), col("x", "v"), one))
	})
	d.call("insert into Std with a super column", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, superParent("Std", "s1"), col("x", "v"), one))
	})
	d.call("get a super column", nil, func(c *client) (any, error) {
		return c.Get(ctx, k, &c19.ColumnPath{ColumnFamily: "Super", SuperColumn: []byte("s2")}, one)
	})
	d.call("get a subcolumn", nil, func(c *client) (any, error) {
		return c.Get(ctx, k, &c19.ColumnPath{ColumnFamily: "Super", SuperColumn: []byte("s2"), Column: []byte("y")}, one)
	})
	d.call("get a missing super column", nil, func(c *client) (any, error) {
		return c.Get(ctx, k, &c19.ColumnPath{ColumnFamily: "Super", SuperColumn: []byte("s9")}, one)
	})
	d.call("get Super without a super column", nil, func(c *client) (any, error) {
		return c.Get(ctx, k, &c19.ColumnPath{ColumnFamily: "Super", Column: []byte("x")}, one)
	})
	d.call("get_slice of super columns", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Super"), slice("", "", false, 2), one)
	})
	d.call("get_slice of super columns reversed", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Super"), slice("", "", true, 10), one)
	})
	d.call("get_slice of super columns by name", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Super"), names("s3", "s9", "s1"), one)
	})
	d.call("get_slice inside a super column", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, superParent("Super", "s1"), slice("y", "", false, 10), one)
	})
	d.call("get_count of super columns", nil, func(c *client) (any, error) {
		return c.GetCount(ctx, k, parent("Super"), slice("", "", false, 100), one)
	})
	d.call("get_count inside a super column", nil, func(c *client) (any, error) {
		return c.GetCount(ctx, k, superParent("Super", "s1"), slice("", "", false, 100), one)
	})
	d.call("remove a subcolumn", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, k, &c19.ColumnPath{ColumnFamily: "Super", SuperColumn: []byte("s1"), Column: []byte("x")}, *ts(), one))
	})
	d.call("remove a super column", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, k, &c19.ColumnPath{ColumnFamily: "Super", SuperColumn: []byte("s2")}, *ts(), one))
	})
	d.call("get_slice after removals in Super", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Super"), slice("", "", false, 100), one)
	})
	d.call("get a removed super column", nil, func(c *client) (any, error) {
		return c.Get(ctx, k, &c19.ColumnPath{ColumnFamily: "Super", SuperColumn: []byte("s2")}, one)
	})
	// Subcolumns compared as LongType.
	for _, v := range []int64{7, -7, 0} {
		d.call("insert SuperLong", nil, func(c *client) (any, error) {
			return void(c.Insert(ctx, k, superParent("SuperLong", "sc"), bcol(long(v), "v"), one))
		})
	}
	d.call("insert SuperLong with a bad subcolumn name", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, superParent("SuperLong", "sc"), bcol([]byte("abc"), "v"), one))
	})
	d.call("insert SuperLong with a bad super column name", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, &c19.ColumnParent{ColumnFamily: "SuperLong", SuperColumn: []byte{0xff}}, bcol(long(1), "v"), one))
	})
	d.call("get_slice SuperLong", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("SuperLong"), slice("", "", false, 100), one)
	})
	d.call("get_slice inside SuperLong, wrong order", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, superParent("SuperLong", "sc"), bslice(long(7), long(-7), false, 100), one)
	})
	d.call("get_slice SuperLong with a subcolumn range at the top", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("SuperLong"), bslice(long(7), long(-7), false, 100), one)
	})
	d.call("multiget_slice of Super", nil, func(c *client) (any, error) {
		return c.MultigetSlice(ctx, [][]byte{k, []byte("none")}, parent("Super"), slice("", "", false, 100), one)
	})
	d.call("remove the Super row", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, k, &c19.ColumnPath{ColumnFamily: "Super"}, *ts(), one))
	})
	d.call("get_slice of a removed Super row", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Super"), slice("", "", false, 100), one)
	})
}

// ---- batch_mutate -----------------------------------------------------------
