package e2e

import (
	"strings"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// TestValidationMessages checks 0.6's exact messages over the wire.
func TestValidationMessages(t *testing.T) {
	n := start(t, fixture("storage-conf-0.6-test.xml"))
	c := n.client(false)
	parent := &cassandra.ColumnParent{ColumnFamily: "Standard1"}
	for _, tc := range []struct {
		name string
		call func() error
		want string
	}{
		{"empty key", func() error { _, err := c.Get(ctx, ks1, "", path("Standard1", nil, []byte("c")), one); return err }, "Key may not be empty"},
		{"unknown keyspace", func() error { _, err := c.Get(ctx, "Nope", "k", path("Standard1", nil, []byte("c")), one); return err }, "Keyspace Nope does not exist in this schema."},
		{"unknown cf", func() error { _, err := c.Get(ctx, ks1, "k", path("Nope", nil, []byte("c")), one); return err }, "unconfigured columnfamily Nope"},
		{"empty cf", func() error { _, err := c.Get(ctx, ks1, "k", path("", nil, []byte("c")), one); return err }, "non-empty columnfamily is required"},
		{"standard with super column", func() error {
			_, err := c.Get(ctx, ks1, "k", path("Standard1", []byte("sc"), []byte("c")), one)
			return err
		}, "supercolumn parameter is invalid for standard CF Standard1"},
		{"standard without column", func() error { _, err := c.Get(ctx, ks1, "k", path("Standard1", nil, nil), one); return err }, "column parameter is not optional for standard CF Standard1"},
		{"super without super column", func() error { _, err := c.Get(ctx, ks1, "k", path("Super1", nil, nil), one); return err }, "supercolumn parameter is not optional for super CF Super1"},
		{"bad long", func() error {
			_, err := c.Get(ctx, ks1, "k", path("StandardLong1", nil, []byte("abc")), one)
			return err
		}, "A long is exactly 8 bytes"},
		{"bad utf8", func() error {
			_, err := c.Get(ctx, ks1, "k", path("Super4", []byte("sc"), []byte{0xc3, 0x28}), one)
			return err
		}, "invalid UTF8 bytes [-61, 40]"},
		{"CL zero read", func() error {
			_, err := c.Get(ctx, ks1, "k", path("Standard1", nil, []byte("c")), cassandra.ConsistencyLevel_ZERO)
			return err
		}, "Consistency level zero may not be applied to read operations"},
		{"CL any read", func() error {
			_, err := c.GetSlice(ctx, ks1, "k", parent, all(), cassandra.ConsistencyLevel_ANY)
			return err
		}, "Consistency level any may not be applied to read operations"},
		{"both predicate fields", func() error {
			_, err := c.GetSlice(ctx, ks1, "k", parent, &cassandra.SlicePredicate{ColumnNames: [][]byte{[]byte("a")}, SliceRange: all().SliceRange}, one)
			return err
		}, "predicate column_names and slice_range may not both be present"},
		{"no predicate", func() error {
			_, err := c.GetSlice(ctx, ks1, "k", parent, &cassandra.SlicePredicate{}, one)
			return err
		}, "predicate column_names and slice_range may not both be null"},
		{"negative count", func() error {
			_, err := c.GetSlice(ctx, ks1, "k", parent, &cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: []byte{}, Finish: []byte{}, Count: -1}}, one)
			return err
		}, "get_slice requires non-negative count"},
		{"range order", func() error {
			_, err := c.GetSlice(ctx, ks1, "k", parent, &cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: []byte("b"), Finish: []byte("a"), Count: 1}}, one)
			return err
		}, "range finish must come after start in the order of traversal"},
		{"key range half given", func() error {
			_, err := c.GetRangeSlices(ctx, ks1, parent, all(), &cassandra.KeyRange{StartKey: thrift.StringPtr("a"), Count: 10}, one)
			return err
		}, "start key and end key must either both be non-null, or both be null"},
		{"key range empty", func() error {
			_, err := c.GetRangeSlices(ctx, ks1, parent, all(), &cassandra.KeyRange{Count: 10}, one)
			return err
		}, "exactly one of {start key, end key} or {start token, end token} must be specified"},
		{"range count", func() error {
			_, err := c.GetRangeSlices(ctx, ks1, parent, all(), &cassandra.KeyRange{StartKey: thrift.StringPtr(""), EndKey: thrift.StringPtr(""), Count: 0}, one)
			return err
		}, "maxRows must be positive"},
		{"remove column of super cf", func() error {
			return c.Remove(ctx, ks1, "k", path("Super1", nil, long(1)), 1, one)
		}, "A column cannot be specified without specifying a super column for removal on super CF Super1"},
		{"slice range deletion", func() error {
			return c.BatchMutate(ctx, ks1, map[string]map[string][]*cassandra.Mutation{"k": {"Standard1": {{Deletion: &cassandra.Deletion{Timestamp: 1, Predicate: all()}}}}}, one)
		}, "Deletion does not yet support SliceRange predicates."},
		{"mutation with both", func() error {
			return c.BatchMutate(ctx, ks1, map[string]map[string][]*cassandra.Mutation{"k": {"Standard1": {{
				ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{Column: col("a", "b", 1)}, Deletion: &cassandra.Deletion{Timestamp: 1}}}}}, one)
		}, "Mutation may have either a ColumnOrSuperColumn or a Deletion, but not both"},
		{"long key", func() error {
			return c.Insert(ctx, ks1, strings.Repeat("k", 65536), path("Standard1", nil, []byte("c")), []byte("v"), 1, one)
		}, "Encoded key length of 65536 is longer than maximum of 65535"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := why(t, tc.call()); got != tc.want {
				t.Errorf("why = %q\nwant  %q", got, tc.want)
			}
		})
	}
}
