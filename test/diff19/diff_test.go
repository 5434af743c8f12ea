package diff19

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

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

func (d *diff) validation(t *testing.T) {
	k := []byte("valid-row")
	long := bytes.Repeat([]byte("k"), 65536)
	longName := bytes.Repeat([]byte("n"), 65536)
	d.call("insert with an empty key", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, []byte{}, parent("Std"), col("a", "v"), one))
	})
	d.call("insert with a 65536-byte key", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, long, parent("Std"), col("a", "v"), one))
	})
	d.call("insert with a 65535-byte key", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, long[:65535], parent("Std"), col("a", "v"), one))
	})
	d.call("get with an empty key", nil, func(c *client) (any, error) { return c.Get(ctx, []byte{}, path("Std", "a"), one) })
	d.call("get_slice with a 65536-byte key", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, long, parent("Std"), slice("", "", false, 1), one)
	})
	d.call("multiget_slice with an empty key", nil, func(c *client) (any, error) {
		return c.MultigetSlice(ctx, [][]byte{k, {}}, parent("Std"), slice("", "", false, 1), one)
	})
	d.call("remove with an empty key", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, []byte{}, path("Std", "a"), *ts(), one))
	})
	d.call("insert with an empty column name", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Std"), col("", "v"), one))
	})
	d.call("insert with a 65536-byte column name", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Std"), bcol(longName, "v"), one))
	})
	d.call("get with an empty column name", nil, func(c *client) (any, error) { return c.Get(ctx, k, path("Std", ""), one) })
	d.call("insert without a value", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Std"), &c19.Column{Name: []byte("a"), Timestamp: ts()}, one))
	})
	d.call("insert without a timestamp", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Std"), &c19.Column{Name: []byte("a"), Value: []byte("v")}, one))
	})
	d.call("insert into an unknown family", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Nope"), col("a", "v"), one))
	})
	d.call("insert into an empty family name", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent(""), col("a", "v"), one))
	})
	d.call("get from an unknown family", nil, func(c *client) (any, error) { return c.Get(ctx, k, path("Nope", "a"), one) })
	d.call("get_count from an unknown family", nil, func(c *client) (any, error) {
		return c.GetCount(ctx, k, parent("Nope"), slice("", "", false, 1), one)
	})
	d.call("remove from an unknown family", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, k, path("Nope", "a"), *ts(), one))
	})
	d.call("remove a super column of a standard family", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, k, &c19.ColumnPath{ColumnFamily: "Std", SuperColumn: []byte("s")}, *ts(), one))
	})
	d.call("remove a bad Long name", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, k, path("Long", "x"), *ts(), one))
	})
	for _, p := range []struct {
		label string
		pred  *c19.SlicePredicate
	}{
		{"both names and range", &c19.SlicePredicate{ColumnNames: [][]byte{[]byte("a")}, SliceRange: &c19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 1}}},
		{"neither names nor range", &c19.SlicePredicate{}},
		{"a negative count", slice("", "", false, -1)},
		{"a range in the wrong order", slice("b", "a", false, 10)},
		{"a reversed range in the wrong order", slice("a", "b", true, 10)},
		{"an empty name", names("")},
		{"a 65536-byte name", &c19.SlicePredicate{ColumnNames: [][]byte{longName}}},
		{"a 65536-byte start", bslice(longName, nil, false, 1)},
	} {
		d.call("get_slice with "+p.label, nil, func(c *client) (any, error) {
			return c.GetSlice(ctx, k, parent("Std"), p.pred, one)
		})
		d.call("get_count with "+p.label, nil, func(c *client) (any, error) {
			return c.GetCount(ctx, k, parent("Std"), p.pred, one)
		})
		d.call("get_range_slices with "+p.label, nil, func(c *client) (any, error) {
			return c.GetRangeSlices(ctx, parent("Std"), p.pred, keyRange("", "", 10), one)
		})
		d.call("multiget_count with "+p.label, nil, func(c *client) (any, error) {
			return c.MultigetCount(ctx, [][]byte{k}, parent("Std"), p.pred, one)
		})
	}
	for _, cl := range []c19.ConsistencyLevel{anyCL, eachQ} {
		d.call("get at "+cl.String(), nil, func(c *client) (any, error) { return c.Get(ctx, k, path("Std", "a"), cl) })
		d.call("get_slice at "+cl.String(), nil, func(c *client) (any, error) {
			return c.GetSlice(ctx, k, parent("Std"), slice("", "", false, 1), cl)
		})
		d.call("get_count at "+cl.String(), nil, func(c *client) (any, error) {
			return c.GetCount(ctx, k, parent("Std"), slice("", "", false, 1), cl)
		})
		d.call("multiget_slice at "+cl.String(), nil, func(c *client) (any, error) {
			return c.MultigetSlice(ctx, [][]byte{k}, parent("Std"), slice("", "", false, 1), cl)
		})
		d.call("multiget_count at "+cl.String(), nil, func(c *client) (any, error) {
			return c.MultigetCount(ctx, [][]byte{k}, parent("Std"), slice("", "", false, 1), cl)
		})
	}
	d.call("get Std with a super column", nil, func(c *client) (any, error) {
		return c.Get(ctx, k, &c19.ColumnPath{ColumnFamily: "Std", SuperColumn: []byte("s"), Column: []byte("a")}, one)
	})
	d.call("get_slice Std with a super column", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, superParent("Std", "s"), slice("", "", false, 1), one)
	})
	d.call("get_slice Super with an empty super column", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, &c19.ColumnParent{ColumnFamily: "Super", SuperColumn: []byte{}}, slice("", "", false, 1), one)
	})
	d.call("get Super with an empty super column", nil, func(c *client) (any, error) {
		return c.Get(ctx, k, &c19.ColumnPath{ColumnFamily: "Super", SuperColumn: []byte{}}, one)
	})
	d.call("insert with a 65535-byte column name", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Std"), bcol(longName[:65535], "v"), one))
	})
	d.call("get_slice of a 65535-byte column name", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Std"), &c19.SlicePredicate{ColumnNames: [][]byte{longName[:65535]}}, one)
	})
	d.call("get_paged_slice with a bad start column", nil, func(c *client) (any, error) {
		return c.GetPagedSlice(ctx, "Long", keyRange("", "", 5), []byte("x"), one)
	})
	d.call("get_paged_slice with an empty key range", nil, func(c *client) (any, error) {
		return c.GetPagedSlice(ctx, "Std", &c19.KeyRange{Count: 5}, []byte(""), one)
	})
	d.call("get_range_slices of Long with a bad name", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Long"), names("x"), keyRange("", "", 5), one)
	})
	d.call("get_range_slices of a super column", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, superParent("Super", "sc"), slice("", "", false, 5), keyRange("", "", 5), one)
	})
	d.call("get_range_slices of a super column with a row filter", nil, func(c *client) (any, error) {
		kr := keyRange("", "", 5)
		kr.RowFilter = []*c19.IndexExpression{{ColumnName: []byte("a"), Op: c19.IndexOperator_EQ, Value: []byte("1")}}
		return c.GetRangeSlices(ctx, superParent("Super", "sc"), slice("", "", false, 5), kr, one)
	})
	d.call("batch_mutate with a super column deletion by slice range", nil, func(c *client) (any, error) {
		// Served as 2.1 serves it (rangedel_test.go); the mutation after
		// it is refused.
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{string(k): {"Super": {del(slice("a", "b", false, 5), []byte("sc")),
			{Deletion: &c19.Deletion{Predicate: names("a")}}}}}, one))
	})
	d.call("batch_mutate deleting an empty super column name", nil, func(c *client) (any, error) {
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{string(k): {"Super": {del(names(""), nil)}}}, one))
	})
	d.call("batch_mutate at an unknown keyspace's family", nil, func(c *client) (any, error) {
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{string(k): {"": {ins(col("a", "v"))}}}, one))
	})
	d.call("remove without a timestamp of note (0)", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, k, path("Std", "zzz"), 0, one))
	})
	d.call("remove of a row at EACH_QUORUM", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, []byte("nobody"), &c19.ColumnPath{ColumnFamily: "Std"}, *ts(), eachQ))
	})
	// One replica: TWO and THREE cannot be met.
	for _, cl := range []c19.ConsistencyLevel{c19.ConsistencyLevel_TWO, c19.ConsistencyLevel_THREE} {
		d.call("get at "+cl.String(), nil, func(c *client) (any, error) { return c.Get(ctx, k, path("Std", "a"), cl) })
		d.call("insert at "+cl.String(), nil, func(c *client) (any, error) {
			return void(c.Insert(ctx, k, parent("Std"), col("cl", "v"), cl))
		})
		d.call("get_range_slices at "+cl.String(), nil, func(c *client) (any, error) {
			return c.GetRangeSlices(ctx, parent("Std"), slice("", "", false, 1), keyRange("", "", 1), cl)
		})
		d.call("batch_mutate at "+cl.String(), nil, func(c *client) (any, error) {
			return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{string(k): {"Std": {ins(col("cl", "v"))}}}, cl))
		})
		d.call("remove at "+cl.String(), nil, func(c *client) (any, error) {
			return void(c.Remove(ctx, k, path("Std", "cl"), *ts(), cl))
		})
	}
	d.call("get_count at LOCAL_QUORUM", nil, func(c *client) (any, error) {
		return c.GetCount(ctx, k, parent("Std"), slice("", "", false, 10), localQ)
	})
	d.call("get_count with names in a Super family", nil, func(c *client) (any, error) {
		return c.GetCount(ctx, []byte("x"), parent("Super"), names("a", "b"), one)
	})
	d.call("batch_mutate deleting no names", nil, func(c *client) (any, error) {
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{string(k): {"Std": {del(names(), nil)}}}, one))
	})
	d.call("get at an unknown consistency level", nil, func(c *client) (any, error) {
		return c.Get(ctx, k, path("Std", "a"), c19.ConsistencyLevel(99))
	})
	// Faults together: the first in 1.2's order wins.
	d.call("get_slice with an unknown family and a bad predicate", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, []byte{}, parent("Nope"), &c19.SlicePredicate{}, anyCL)
	})
	d.call("get_slice with an empty key and a bad predicate", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, []byte{}, parent("Std"), &c19.SlicePredicate{}, anyCL)
	})
	d.call("get_slice with an empty key at ANY", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, []byte{}, parent("Std"), slice("", "", false, 1), anyCL)
	})
	d.call("insert with an empty key and an unknown family", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, []byte{}, parent("Nope"), col("a", "v"), one))
	})
	d.call("insert with an empty key and no value", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, []byte{}, parent("Std"), &c19.Column{Name: []byte("a"), Timestamp: ts()}, one))
	})
	d.call("insert with an empty name and no timestamp", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Std"), &c19.Column{Name: []byte(""), Value: []byte("v")}, one))
	})
	d.call("insert with ttl 0 and no timestamp", nil, func(c *client) (any, error) {
		ttl := int32(0)
		return void(c.Insert(ctx, k, parent("Std"), &c19.Column{Name: []byte("a"), Value: []byte("v"), TTL: &ttl}, one))
	})
}

// ---- validators -------------------------------------------------------------

func (d *diff) validators(t *testing.T) {
	k := long(1)
	d.call("insert Typed", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Typed"), col("name", "ok"), one))
	})
	d.call("insert Typed age", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Typed"), &c19.Column{Name: []byte("age"), Value: long(30), Timestamp: ts()}, one))
	})
	d.call("insert Typed raw", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Typed"), &c19.Column{Name: []byte("raw"), Value: []byte{0xff}, Timestamp: ts()}, one))
	})
	d.call("get_slice Typed", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Typed"), slice("", "", false, 10), one)
	})
	d.call("insert Typed with a 3-byte key", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, []byte("abc"), parent("Typed"), col("name", "ok"), one))
	})
	d.call("get_slice Typed with a 3-byte key", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, []byte("abc"), parent("Typed"), slice("", "", false, 10), one)
	})
	d.call("multiget_slice Typed with a bad key", nil, func(c *client) (any, error) {
		return c.MultigetSlice(ctx, [][]byte{k, {1}}, parent("Typed"), slice("", "", false, 10), one)
	})
	d.call("remove Typed with a bad key", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, []byte{1}, path("Typed", "name"), *ts(), one))
	})
	d.call("insert Typed with a bad default value", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Typed"), &c19.Column{Name: []byte("name"), Value: []byte{0xff}, Timestamp: ts()}, one))
	})
	d.call("insert Typed with a bad age", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Typed"), col("age", "abc"), one))
	})
	d.call("insert Typed with a bad stamp", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Typed"), col("stamp", "abc"), one))
	})
	d.call("insert Typed with a bad name", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, parent("Typed"), bcol([]byte{0xff}, "v"), one))
	})
	d.call("insert Typed with a bad key and a bad value", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, []byte{1}, parent("Typed"), col("age", "abc"), one))
	})
	d.call("batch_mutate Typed with a bad value", nil, func(c *client) (any, error) {
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{string(k): {"Typed": {ins(col("name", "fine")), ins(col("age", "x"))}}}, one))
	})
	d.call("batch_mutate Typed with a bad key", nil, func(c *client) (any, error) {
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{"x": {"Typed": {ins(col("name", "fine"))}}}, one))
	})
	d.call("get_slice Typed after refusals", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("Typed"), slice("", "", false, 10), one)
	})
	d.call("get_range_slices Typed", nil, func(c *client) (any, error) {
		return c.GetRangeSlices(ctx, parent("Typed"), slice("", "", false, 10), keyRange("", "", 10), one)
	})
	d.call("insert SuperTyped", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, &c19.ColumnParent{ColumnFamily: "SuperTyped", SuperColumn: long(5)}, &c19.Column{Name: []byte("sub"), Value: long(7), Timestamp: ts()}, one))
	})
	d.call("insert SuperTyped with a bad value", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, &c19.ColumnParent{ColumnFamily: "SuperTyped", SuperColumn: long(5)}, col("sub", "x"), one))
	})
	d.call("insert SuperTyped with a bad subcolumn name", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, &c19.ColumnParent{ColumnFamily: "SuperTyped", SuperColumn: long(5)}, &c19.Column{Name: []byte{0xff}, Value: long(7), Timestamp: ts()}, one))
	})
	d.call("insert SuperTyped with a bad super column name", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, k, &c19.ColumnParent{ColumnFamily: "SuperTyped", SuperColumn: []byte("x")}, &c19.Column{Name: []byte("sub"), Value: long(7), Timestamp: ts()}, one))
	})
	d.call("get SuperTyped with a bad super column name", nil, func(c *client) (any, error) {
		return c.Get(ctx, k, &c19.ColumnPath{ColumnFamily: "SuperTyped", SuperColumn: []byte("x")}, one)
	})
	d.call("remove SuperTyped with a bad super column name", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, k, &c19.ColumnPath{ColumnFamily: "SuperTyped", SuperColumn: []byte("x")}, *ts(), one))
	})
	d.call("get_slice SuperTyped", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, k, parent("SuperTyped"), slice("", "", false, 10), one)
	})
}

// ---- truncate ---------------------------------------------------------------

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

func normRing(v any) any {
	ranges := v.([]*c19.TokenRange)
	for _, r := range ranges {
		r.StartToken, r.EndToken = "TOKEN", "TOKEN"
		for i := range r.Endpoints {
			r.Endpoints[i] = "ADDRESS"
		}
		for i := range r.RPCEndpoints {
			r.RPCEndpoints[i] = "ADDRESS"
		}
		for _, e := range r.EndpointDetails {
			e.Host = "ADDRESS"
		}
	}
	return ranges
}

func normTokenMap(v any) any {
	m := v.(map[string]string)
	return len(m)
}

func normSchemaVersions(v any) any {
	m := v.(map[string][]string)
	var out []int
	for _, hosts := range m {
		out = append(out, len(hosts))
	}
	sort.Ints(out)
	return out
}

// normKsDef leaves out what the two servers may number differently, the
// column families' ids, and puts the families and their column
// definitions in name order: 1.2.19 lists both in the order of its hash
// maps.
func normKsDef(v any) any {
	ks := v.(*c19.KsDef)
	if ks == nil {
		return ks
	}
	sort.Slice(ks.CfDefs, func(i, j int) bool { return ks.CfDefs[i].Name < ks.CfDefs[j].Name })
	for _, cf := range ks.CfDefs {
		cf.ID = nil
		sort.Slice(cf.ColumnMetadata, func(i, j int) bool {
			return bytes.Compare(cf.ColumnMetadata[i].Name, cf.ColumnMetadata[j].Name) < 0
		})
	}
	return ks
}

func (d *diff) describe(t *testing.T) {
	d.call("describe_keyspace", normKsDef, func(c *client) (any, error) { return c.DescribeKeyspace(ctx, d.ks) })
	d.call("describe_keyspace of an unknown keyspace", nil, func(c *client) (any, error) {
		return c.DescribeKeyspace(ctx, "NoSuchKeyspace")
	})
	d.call("describe_keyspaces (the test keyspace)", normKsDef, func(c *client) (any, error) {
		kss, err := c.DescribeKeyspaces(ctx)
		for _, ks := range kss {
			if ks.Name == d.ks {
				return ks, err
			}
		}
		return nil, err
	})
	d.call("describe_ring", normRing, func(c *client) (any, error) { return c.DescribeRing(ctx, d.ks) })
	d.call("describe_ring of an unknown keyspace", nil, func(c *client) (any, error) { return c.DescribeRing(ctx, "NoSuchKeyspace") })
	d.call("describe_local_ring", normRing, func(c *client) (any, error) { return c.DescribeLocalRing(ctx, d.ks) })
	d.call("describe_token_map", normTokenMap, func(c *client) (any, error) { return c.DescribeTokenMap(ctx) })
	d.call("describe_partitioner", nil, func(c *client) (any, error) { return c.DescribePartitioner(ctx) })
	d.call("describe_snitch", nil, func(c *client) (any, error) { return c.DescribeSnitch(ctx) })
	d.call("describe_schema_versions", normSchemaVersions, func(c *client) (any, error) { return c.DescribeSchemaVersions(ctx) })
	d.call("describe_cluster_name", func(v any) any { return v.(string) != "" }, func(c *client) (any, error) {
		return c.DescribeClusterName(ctx)
	})
	d.call("describe_splits of the whole ring", nil, func(c *client) (any, error) {
		return c.DescribeSplits(ctx, "Ranges", "0", "0", 128)
	})
	d.call("describe_splits_ex of the whole ring", nil, func(c *client) (any, error) {
		return c.DescribeSplitsEx(ctx, "Ranges", "0", "0", 128)
	})
	d.call("describe_splits_ex of a part of the ring", nil, func(c *client) (any, error) {
		return c.DescribeSplitsEx(ctx, "Ranges", "0", "85070591730234615865843651857942052864", 5)
	})
	d.call("describe_splits with keys_per_split 0", nil, func(c *client) (any, error) {
		return c.DescribeSplits(ctx, "Ranges", "0", "0", 0)
	})
	d.call("describe_splits of an unknown family", nil, func(c *client) (any, error) {
		return c.DescribeSplits(ctx, "Nope", "0", "0", 128)
	})
	d.call("describe_splits_ex of an unknown family", nil, func(c *client) (any, error) {
		return c.DescribeSplitsEx(ctx, "Nope", "0", "0", 128)
	})
}

// ---- the system_* calls -----------------------------------------------------

func (d *diff) schema(t *testing.T) {
	cf := func(ks, name, cmp string) *c19.CfDef {
		def := c19.NewCfDef()
		def.Keyspace, def.Name, def.ComparatorType = ks, name, cmp
		return def
	}
	ks := func(name string, cfs ...*c19.CfDef) *c19.KsDef {
		def := c19.NewKsDef()
		def.Name, def.StrategyClass, def.StrategyOptions = name, "SimpleStrategy", map[string]string{"replication_factor": "1"}
		def.CfDefs = append([]*c19.CfDef{}, cfs...)
		return def
	}
	add := func(label string, def *c19.KsDef) {
		d.call("system_add_keyspace "+label, nil, func(c *client) (any, error) { return c.SystemAddKeyspace(ctx, def) })
	}
	add("named system", ks("system"))
	add("whose name exists in another case", ks(strings.ToLower(d.ks)))
	add("with a bad name", ks("bad-name"))
	add("with a 49-character name", ks(strings.Repeat("k", 49)))
	add("with an empty name", ks(""))
	add("whose family names another keyspace", ks("DiffOther", cf("Elsewhere", "F", "BytesType")))
	bad := ks("DiffBadStrategy")
	bad.StrategyClass = "NoSuchStrategy"
	add("with an unknown strategy", bad)
	add("with a family of an unknown comparator", ks("DiffBadCmp", cf("DiffBadCmp", "F", "NoSuchType")))
	add("with a family of a bad name", ks("DiffBadCf", cf("DiffBadCf", "bad name", "BytesType")))
	d.call("system_add_column_family with an unknown comparator", nil, func(c *client) (any, error) {
		return c.SystemAddColumnFamily(ctx, cf(d.ks, "F", "NoSuchType"))
	})
	d.call("system_add_column_family of an existing family", nil, func(c *client) (any, error) {
		return c.SystemAddColumnFamily(ctx, cf(d.ks, "Std", "BytesType"))
	})
	d.call("system_add_column_family to an unknown keyspace", nil, func(c *client) (any, error) {
		return c.SystemAddColumnFamily(ctx, cf("NoSuchKeyspace", "F", "BytesType"))
	})
	d.call("system_add_column_family with a bad name", nil, func(c *client) (any, error) {
		return c.SystemAddColumnFamily(ctx, cf(d.ks, "a-b", "BytesType"))
	})
	d.call("system_add_column_family with a subcomparator on a standard family", nil, func(c *client) (any, error) {
		def := cf(d.ks, "F", "BytesType")
		def.SubcomparatorType = thrift.StringPtr("BytesType")
		return c.SystemAddColumnFamily(ctx, def)
	})
	d.call("system_drop_keyspace of an unknown keyspace", nil, func(c *client) (any, error) {
		return c.SystemDropKeyspace(ctx, "NoSuchKeyspace")
	})
	d.call("system_drop_keyspace system", nil, func(c *client) (any, error) { return c.SystemDropKeyspace(ctx, "system") })
	d.call("system_drop_column_family of an unknown family", nil, func(c *client) (any, error) {
		return c.SystemDropColumnFamily(ctx, "Nope")
	})
	d.call("system_update_column_family of an unknown family", nil, func(c *client) (any, error) {
		return c.SystemUpdateColumnFamily(ctx, cf(d.ks, "Nope", "BytesType"))
	})
	d.call("system_update_column_family changing the comparator", nil, func(c *client) (any, error) {
		return c.SystemUpdateColumnFamily(ctx, cf(d.ks, "Std", "UTF8Type"))
	})
	d.call("system_update_keyspace with families", nil, func(c *client) (any, error) {
		return c.SystemUpdateKeyspace(ctx, ks(d.ks, cf(d.ks, "Std", "BytesType")))
	})
	d.call("system_update_keyspace of an unknown keyspace", nil, func(c *client) (any, error) {
		return c.SystemUpdateKeyspace(ctx, ks("NoSuchKeyspace"))
	})
	version := func(v any) any { return len(v.(string)) == 36 }
	d.call("system_add_column_family", version, func(c *client) (any, error) {
		def := cf(d.ks, "Added", "UTF8Type")
		def.Comment = thrift.StringPtr("added at run time")
		return c.SystemAddColumnFamily(ctx, def)
	})
	d.call("insert into an added family", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, []byte("k"), parent("Added"), col("a", "v"), one))
	})
	d.call("get_slice of an added family", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, []byte("k"), parent("Added"), slice("", "", false, 10), one)
	})
	d.call("system_update_column_family", version, func(c *client) (any, error) {
		def := cf(d.ks, "Added", "UTF8Type")
		def.Comment = thrift.StringPtr("changed")
		def.GcGraceSeconds = thrift.Int32Ptr(3600)
		return c.SystemUpdateColumnFamily(ctx, def)
	})
	d.call("describe_keyspace after changes", normKsDef, func(c *client) (any, error) { return c.DescribeKeyspace(ctx, d.ks) })
	d.call("system_drop_column_family", version, func(c *client) (any, error) { return c.SystemDropColumnFamily(ctx, "Added") })
	d.call("get_slice of a dropped family", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, []byte("k"), parent("Added"), slice("", "", false, 10), one)
	})
	other := d.ks + "_b"
	d.call("system_add_keyspace", version, func(c *client) (any, error) {
		return c.SystemAddKeyspace(ctx, ks(other, cf(other, "F", "LongType")))
	})
	d.call("describe_keyspace of an added keyspace", normKsDef, func(c *client) (any, error) { return c.DescribeKeyspace(ctx, other) })
	d.call("system_update_keyspace", version, func(c *client) (any, error) {
		def := ks(other)
		def.DurableWrites = false
		return c.SystemUpdateKeyspace(ctx, def)
	})
	d.call("describe_keyspace of an updated keyspace", normKsDef, func(c *client) (any, error) { return c.DescribeKeyspace(ctx, other) })
	d.call("system_drop_keyspace", version, func(c *client) (any, error) { return c.SystemDropKeyspace(ctx, other) })
	d.call("describe_keyspace of a dropped keyspace", nil, func(c *client) (any, error) { return c.DescribeKeyspace(ctx, other) })
	// Every property a 1.2 client could set, described back.
	full := cf(d.ks, "Full", "CompositeType(UTF8Type,LongType)")
	full.Comment = thrift.StringPtr("every property")
	full.ReadRepairChance = thrift.Float64Ptr(0.5)
	full.DclocalReadRepairChance = 0.25
	full.GcGraceSeconds = thrift.Int32Ptr(100)
	full.DefaultValidationClass = thrift.StringPtr("UTF8Type")
	full.KeyValidationClass = thrift.StringPtr("Int32Type")
	full.MinCompactionThreshold = thrift.Int32Ptr(2)
	full.MaxCompactionThreshold = thrift.Int32Ptr(10)
	full.CompactionStrategy = thrift.StringPtr("LeveledCompactionStrategy")
	full.CompactionStrategyOptions = map[string]string{"sstable_size_in_mb": "10"}
	full.CompressionOptions = map[string]string{"sstable_compression": "DeflateCompressor", "chunk_length_kb": "32"}
	full.BloomFilterFpChance = thrift.Float64Ptr(0.05)
	full.Caching = "ALL"
	full.PopulateIoCacheOnFlush = thrift.BoolPtr(true)
	full.MemtableFlushPeriodInMs = thrift.Int32Ptr(60000)
	full.ReplicateOnWrite = thrift.BoolPtr(false)
	full.ColumnMetadata = []*c19.ColumnDef{{Name: composite([]byte("a"), long(1)), ValidationClass: "LongType"}}
	d.call("system_add_column_family with every property", version, func(c *client) (any, error) {
		return c.SystemAddColumnFamily(ctx, full)
	})
	d.call("describe_keyspace with every property", normKsDef, func(c *client) (any, error) { return c.DescribeKeyspace(ctx, d.ks) })
	d.call("system_update_column_family adding a column definition", version, func(c *client) (any, error) {
		full.ColumnMetadata = append(full.ColumnMetadata, &c19.ColumnDef{Name: composite([]byte("b"), long(2)), ValidationClass: "UTF8Type"})
		full.Comment = thrift.StringPtr("updated")
		return c.SystemUpdateColumnFamily(ctx, full)
	})
	d.call("describe_keyspace after an update", normKsDef, func(c *client) (any, error) { return c.DescribeKeyspace(ctx, d.ks) })
	d.call("system_add_column_family with an index on a bad name", nil, func(c *client) (any, error) {
		def := cf(d.ks, "Indexed", "LongType")
		def.ColumnMetadata = []*c19.ColumnDef{{Name: []byte("x"), ValidationClass: "BytesType"}}
		return c.SystemAddColumnFamily(ctx, def)
	})
	d.call("system_add_column_family with an index name but no type", nil, func(c *client) (any, error) {
		def := cf(d.ks, "Indexed", "UTF8Type")
		def.ColumnMetadata = []*c19.ColumnDef{{Name: []byte("x"), ValidationClass: "BytesType", IndexName: thrift.StringPtr("ix")}}
		return c.SystemAddColumnFamily(ctx, def)
	})
	d.call("system_add_column_family with a bad compaction strategy", nil, func(c *client) (any, error) {
		def := cf(d.ks, "BadCompaction", "UTF8Type")
		def.CompactionStrategy = thrift.StringPtr("NoSuchStrategy")
		return c.SystemAddColumnFamily(ctx, def)
	})
	d.call("system_add_column_family with min threshold above max", nil, func(c *client) (any, error) {
		def := cf(d.ks, "BadThresholds", "UTF8Type")
		def.MinCompactionThreshold = thrift.Int32Ptr(40)
		def.MaxCompactionThreshold = thrift.Int32Ptr(10)
		return c.SystemAddColumnFamily(ctx, def)
	})
	counters := cf(d.ks, "Counters", "UTF8Type")
	counters.DefaultValidationClass = thrift.StringPtr("CounterColumnType")
	d.call("system_add_column_family of counters", version, func(c *client) (any, error) {
		return c.SystemAddColumnFamily(ctx, counters)
	})
	d.call("insert into a counter family", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, []byte("k"), parent("Counters"), col("a", "v"), one))
	})
	d.call("batch_mutate of a column into a counter family", nil, func(c *client) (any, error) {
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{"k": {"Counters": {ins(col("a", "v"))}}}, one))
	})
	d.call("remove from a counter family", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, []byte("k"), path("Counters", "a"), *ts(), one))
	})
	d.call("get_slice of a counter family", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, []byte("k"), parent("Counters"), slice("", "", false, 10), one)
	})
	d.call("add to a standard family", nil, func(c *client) (any, error) {
		return void(c.Add(ctx, []byte("k"), parent("Std"), &c19.CounterColumn{Name: []byte("c"), Value: 1}, one))
	})
	d.call("remove_counter of a standard family", nil, func(c *client) (any, error) {
		return void(c.RemoveCounter(ctx, []byte("k"), path("Std", "c"), one))
	})
	d.call("add to a counter family", nil, func(c *client) (any, error) {
		return void(c.Add(ctx, []byte("k"), parent("Counters"), &c19.CounterColumn{Name: []byte("c"), Value: 1}, one))
	})
	d.call("add to an unknown family", nil, func(c *client) (any, error) {
		return void(c.Add(ctx, []byte("k"), parent("Nope"), &c19.CounterColumn{Name: []byte("c"), Value: 1}, one))
	})
	nts := d.ks + "_n"
	d.call("system_add_keyspace with NetworkTopologyStrategy", version, func(c *client) (any, error) {
		def := ks(nts, cf(nts, "F", "UTF8Type"))
		def.StrategyClass = "NetworkTopologyStrategy"
		def.StrategyOptions = map[string]string{"datacenter1": "1"}
		return c.SystemAddKeyspace(ctx, def)
	})
	d.call("describe_keyspace of a NetworkTopologyStrategy keyspace", normKsDef, func(c *client) (any, error) {
		return c.DescribeKeyspace(ctx, nts)
	})
	d.call("system_drop_keyspace with NetworkTopologyStrategy", version, func(c *client) (any, error) {
		return c.SystemDropKeyspace(ctx, nts)
	})
	d.fresh()
	d.call("add before set_keyspace", nil, func(c *client) (any, error) {
		return void(c.Add(ctx, []byte("k"), parent("Std"), &c19.CounterColumn{Name: []byte("c"), Value: 1}, one))
	})
	d.call("system_add_column_family before set_keyspace", nil, func(c *client) (any, error) {
		return c.SystemAddColumnFamily(ctx, cf(d.ks, "F", "BytesType"))
	})
	d.call("system_drop_column_family before set_keyspace", nil, func(c *client) (any, error) {
		return c.SystemDropColumnFamily(ctx, "Std")
	})
	d.setKeyspace(d.ks)
}
