package reliability

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// badDataConfig is the 0.6 test configuration with one standard column
// family per comparator it lacks at the top level, so that every
// comparator's validation is reached over the wire.
func badDataConfig(t *testing.T) string {
	return writeConfig(t, testConf, `<ColumnFamily Name="Standard1" RowsCached="10%" KeysCached="0"/>`,
		`<ColumnFamily Name="Standard1" RowsCached="10%" KeysCached="0"/>
       <ColumnFamily Name="StdAscii" CompareWith="AsciiType"/>
       <ColumnFamily Name="StdUTF8" CompareWith="UTF8Type"/>
       <ColumnFamily Name="StdLexical" CompareWith="LexicalUUIDType"/>
       <ColumnFamily Name="StdTime" CompareWith="TimeUUIDType"/>`)
}

// why returns the InvalidRequestException message of err, or a description
// of whatever else err is.
func why(err error) string {
	var ire *cassandra.InvalidRequestException
	var ae thrift.TApplicationException
	switch {
	case err == nil:
		return "<no error>"
	case errors.As(err, &ire):
		return ire.Why
	case errors.As(err, &ae):
		return fmt.Sprintf("TApplicationException %d: %s", ae.TypeId(), ae.Error())
	}
	return fmt.Sprintf("%T: %v", err, err)
}

func cosc(cf string, c *cassandra.Column) map[string][]*cassandra.Mutation {
	return map[string][]*cassandra.Mutation{cf: {{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{Column: c}}}}
}

// TestBadData sends invalid data over a real socket: every call gets 0.6's
// exact InvalidRequestException, and nothing is written.
func TestBadData(t *testing.T) {
	n := startNode(t, badDataConfig(t))
	c := n.Client(true)

	ts := int64(1)
	path := func(cf string, sc, col []byte) *cassandra.ColumnPath {
		return &cassandra.ColumnPath{ColumnFamily: cf, SuperColumn: sc, Column: col}
	}
	insert := func(cf, key string, sc, col []byte) func() error {
		return func() error { return c.Insert(ctx, ks1, key, path(cf, sc, col), []byte("v"), ts, one) }
	}
	mutate := func(key, cf string, col []byte) func() error {
		return func() error {
			return c.BatchMutate(ctx, ks1, map[string]map[string][]*cassandra.Mutation{
				key: cosc(cf, &cassandra.Column{Name: col, Value: []byte("v"), Timestamp: ts})}, one)
		}
	}
	slice := func(cf string, start []byte, count int32) func() error {
		return func() error {
			_, err := c.GetSlice(ctx, ks1, "k", &cassandra.ColumnParent{ColumnFamily: cf},
				&cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: start, Finish: []byte{}, Count: count}}, one)
			return err
		}
	}
	all := &cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 100}}
	rangeSlices := func(count int32) func() error {
		return func() error {
			_, err := c.GetRangeSlices(ctx, ks1, &cassandra.ColumnParent{ColumnFamily: "Standard1"}, all,
				&cassandra.KeyRange{StartKey: ptr(""), EndKey: ptr(""), Count: count}, one)
			return err
		}
	}
	uuid4 := []byte{0, 1, 2, 3, 4, 5, 0x40, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	big := bytes.Repeat([]byte("n"), 65536)
	bigKey := strings.Repeat("k", 65536)

	cases := []struct {
		name string
		call func() error
		want string
	}{
		// Every comparator's invalid names, as column names, subcolumn
		// names, slice bounds and inside batch_mutate.
		{"UTF8Type name", insert("StdUTF8", "k", nil, []byte{0xc3, 0x28}), "invalid UTF8 bytes [-61, 40]"},
		{"UTF8Type subcolumn", insert("Super4", "k", []byte("sc"), []byte{0xff}), "invalid UTF8 bytes [-1]"},
		{"LongType name", insert("StandardLong1", "k", nil, []byte("abc")), "A long is exactly 8 bytes"},
		{"LongType subcolumn", insert("Super1", "k", []byte("sc"), []byte("abcdefghi")), "A long is exactly 8 bytes"},
		{"LongType slice start", slice("StandardLong1", []byte{1}, 10), "A long is exactly 8 bytes"},
		{"LexicalUUIDType name", insert("StdLexical", "k", nil, make([]byte, 15)), "UUIDs must be exactly 16 bytes"},
		{"TimeUUIDType length", insert("StdTime", "k", nil, make([]byte, 17)), "TimeUUID should be 16 or 0 bytes (17)"},
		{"TimeUUIDType version", insert("StdTime", "k", nil, uuid4), "Invalid version for TimeUUID type."},
		{"TimeUUIDType in batch_mutate", mutate("k", "StdTime", uuid4), "Invalid version for TimeUUID type."},
		{"LongType in batch_mutate", mutate("k", "StandardLong1", []byte{1, 2}), "A long is exactly 8 bytes"},
		// BytesType and AsciiType accept every name but empty and long ones.
		{"BytesType empty name", insert("Standard1", "k", nil, []byte{}), "column name must not be empty"},
		{"AsciiType empty name", insert("StdAscii", "k", nil, []byte{}), "column name must not be empty"},
		{"BytesType 65536-byte name", insert("Standard1", "k", nil, big), "column name length must not be greater than 65535"},
		{"AsciiType 65536-byte name", mutate("k", "StdAscii", big), "column name length must not be greater than 65535"},
		{"65536-byte super column name", insert("Super1", "k", big, make([]byte, 8)), "supercolumn name length must not be greater than 65535"},
		{"empty super column name", insert("Super1", "k", []byte{}, make([]byte, 8)), "supercolumn name must not be empty"},
		{"empty column family", insert("", "k", nil, []byte("c")), "non-empty columnfamily is required"},
		// Keys.
		{"65536-byte key", insert("Standard1", bigKey, nil, []byte("c")), "Encoded key length of 65536 is longer than maximum of 65535"},
		{"65536-byte key in batch_mutate", mutate(bigKey, "Standard1", []byte("c")), "Encoded key length of 65536 is longer than maximum of 65535"},
		{"empty key", insert("Standard1", "", nil, []byte("c")), "Key may not be empty"},
		{"empty key in batch_mutate", mutate("", "Standard1", []byte("c")), "Key may not be empty"},
		// Negative counts.
		{"get_slice count -1", slice("Standard1", []byte{}, -1), "get_slice requires non-negative count"},
		{"get_range_slices count -1", rangeSlices(-1), "maxRows must be positive"},
		{"get_range_slices count 0", rangeSlices(0), "maxRows must be positive"},
		{"get_range_slice row_count -5", func() error {
			_, err := c.GetRangeSlice(ctx, ks1, &cassandra.ColumnParent{ColumnFamily: "Standard1"}, all, "", "", -5, one)
			return err
		}, "maxRows must be positive"},
		{"describe_splits keys_per_split -1", func() error {
			_, err := c.DescribeSplits(ctx, "", "", -1)
			return err
		}, fmt.Sprintf("TApplicationException %d: Internal error processing describe_splits: keys_per_split must be positive, got -1", thrift.INTERNAL_ERROR)},
	}
	for _, tc := range cases {
		if got := why(tc.call()); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}

	t.Run("one invalid mutation among thousands", func(t *testing.T) {
		rows := map[string]map[string][]*cassandra.Mutation{}
		for i := range 3000 {
			rows[fmt.Sprintf("row%04d", i)] = map[string][]*cassandra.Mutation{
				"Standard1":     {{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{Column: &cassandra.Column{Name: []byte("c"), Value: []byte("v"), Timestamp: 1}}}},
				"StandardLong1": {{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{Column: &cassandra.Column{Name: long(int64(i)), Value: []byte("v"), Timestamp: 1}}}},
			}
		}
		rows["row1717"]["StandardLong1"][0].ColumnOrSupercolumn.Column.Name = []byte("seven")
		if got, want := why(c.BatchMutate(ctx, ks1, rows, one)), "A long is exactly 8 bytes"; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})

	// Long.MIN_VALUE is 0.6's "not deleted" mark: a column written at that
	// timestamp is accepted, and always shadowed, so never read back.
	t.Run("Long.MIN_VALUE timestamp", func(t *testing.T) {
		p := path("Standard2", nil, []byte("c"))
		if err := c.Insert(ctx, ks1, "minkey", p, []byte("v"), math.MinInt64, one); err != nil {
			t.Fatalf("insert: %v", err)
		}
		err := c.BatchMutate(ctx, ks1, map[string]map[string][]*cassandra.Mutation{
			"minkey": cosc("Standard2", &cassandra.Column{Name: []byte("d"), Value: []byte("v"), Timestamp: math.MinInt64})}, one)
		if err != nil {
			t.Fatalf("batch_mutate: %v", err)
		}
		var nf *cassandra.NotFoundException
		if _, err := c.Get(ctx, ks1, "minkey", p, one); !errors.As(err, &nf) {
			t.Errorf("get of a column written at Long.MIN_VALUE: %v, want NotFoundException", err)
		}
		got, err := c.GetSlice(ctx, ks1, "minkey", &cassandra.ColumnParent{ColumnFamily: "Standard2"}, all, one)
		if err != nil || len(got) != 0 {
			t.Errorf("get_slice = %v, %v; want nothing", got, err)
		}
	})

	// Nothing was written: every column family is empty (Standard2 may list
	// the Long.MIN_VALUE row, without columns).
	for _, cf := range []string{"Standard1", "StandardLong1", "StdAscii", "StdUTF8", "StdLexical", "StdTime", "Super1", "Super4", "Standard2"} {
		rows, err := c.GetRangeSlices(ctx, ks1, &cassandra.ColumnParent{ColumnFamily: cf}, all,
			&cassandra.KeyRange{StartKey: ptr(""), EndKey: ptr(""), Count: 10000}, one)
		if err != nil {
			t.Fatalf("get_range_slices %s: %v", cf, err)
		}
		for _, r := range rows {
			if cf != "Standard2" || len(r.Columns) > 0 {
				t.Errorf("%s holds row %.20q with %d columns after invalid writes", cf, r.Key, len(r.Columns))
			}
		}
	}
}

func ptr[T any](v T) *T { return &v }
