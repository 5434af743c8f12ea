package handler

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/schema"
)

const ks1 = "Keyspace1"

var (
	long65536 = bytes.Repeat([]byte("x"), 65536)
	long65535 = bytes.Repeat([]byte("x"), 65535)
)

type call func(ctx context.Context, c cassandra.Cassandra) error

func get(ks, key string, p *cassandra.ColumnPath, cl cassandra.ConsistencyLevel) call {
	return func(ctx context.Context, c cassandra.Cassandra) error {
		_, err := c.Get(ctx, ks, key, p, cl)
		return err
	}
}

func getSlice(ks, key string, cp *cassandra.ColumnParent, pred *cassandra.SlicePredicate, cl cassandra.ConsistencyLevel) call {
	return func(ctx context.Context, c cassandra.Cassandra) error {
		_, err := c.GetSlice(ctx, ks, key, cp, pred, cl)
		return err
	}
}

func multiget(ks string, keys []string, p *cassandra.ColumnPath, cl cassandra.ConsistencyLevel) call {
	return func(ctx context.Context, c cassandra.Cassandra) error {
		_, err := c.Multiget(ctx, ks, keys, p, cl)
		return err
	}
}

func multigetSlice(ks string, keys []string, cp *cassandra.ColumnParent, pred *cassandra.SlicePredicate, cl cassandra.ConsistencyLevel) call {
	return func(ctx context.Context, c cassandra.Cassandra) error {
		_, err := c.MultigetSlice(ctx, ks, keys, cp, pred, cl)
		return err
	}
}

func getCount(ks, key string, cp *cassandra.ColumnParent, cl cassandra.ConsistencyLevel) call {
	return func(ctx context.Context, c cassandra.Cassandra) error {
		_, err := c.GetCount(ctx, ks, key, cp, cl)
		return err
	}
}

func rangeSlices(ks string, cp *cassandra.ColumnParent, pred *cassandra.SlicePredicate, kr *cassandra.KeyRange, cl cassandra.ConsistencyLevel) call {
	return func(ctx context.Context, c cassandra.Cassandra) error {
		_, err := c.GetRangeSlices(ctx, ks, cp, pred, kr, cl)
		return err
	}
}

func rangeSlice(ks string, cp *cassandra.ColumnParent, pred *cassandra.SlicePredicate, start, finish string, count int32, cl cassandra.ConsistencyLevel) call {
	return func(ctx context.Context, c cassandra.Cassandra) error {
		_, err := c.GetRangeSlice(ctx, ks, cp, pred, start, finish, count, cl)
		return err
	}
}

func insert(ks, key string, p *cassandra.ColumnPath, cl cassandra.ConsistencyLevel) call {
	return func(ctx context.Context, c cassandra.Cassandra) error {
		return c.Insert(ctx, ks, key, p, []byte("v"), 0, cl)
	}
}

func batchInsert(ks, key string, cfmap map[string][]*cassandra.ColumnOrSuperColumn, cl cassandra.ConsistencyLevel) call {
	return func(ctx context.Context, c cassandra.Cassandra) error {
		return c.BatchInsert(ctx, ks, key, cfmap, cl)
	}
}

func remove(ks, key string, p *cassandra.ColumnPath, cl cassandra.ConsistencyLevel) call {
	return func(ctx context.Context, c cassandra.Cassandra) error {
		return c.Remove(ctx, ks, key, p, 1, cl)
	}
}

func batchMutate(ks string, m map[string]map[string][]*cassandra.Mutation, cl cassandra.ConsistencyLevel) call {
	return func(ctx context.Context, c cassandra.Cassandra) error {
		return c.BatchMutate(ctx, ks, m, cl)
	}
}

// mutate is a batch_mutate of one row and one column family.
func mutate(cf string, ms ...*cassandra.Mutation) call {
	return batchMutate(ks1, map[string]map[string][]*cassandra.Mutation{"k": {cf: ms}}, one)
}

func deletion(ts int64, sc []byte, pred *cassandra.SlicePredicate) *cassandra.Mutation {
	return &cassandra.Mutation{Deletion: &cassandra.Deletion{Timestamp: ts, SuperColumn: sc, Predicate: pred}}
}

func cosc(c *cassandra.Column) *cassandra.ColumnOrSuperColumn {
	return &cassandra.ColumnOrSuperColumn{Column: c}
}

func scosc(name []byte, cols ...*cassandra.Column) *cassandra.ColumnOrSuperColumn {
	return &cassandra.ColumnOrSuperColumn{SuperColumn: &cassandra.SuperColumn{Name: name, Columns: cols}}
}

var (
	b      = func(s string) []byte { return []byte(s) }
	empty  = []byte{}
	badUTF = []byte{0xc3, 0x28}
)

// TestValidationMessages checks every InvalidRequestException of spec 4
// and 16 with its exact why, and which check wins when a request breaks
// several (spec 4.3).
func TestValidationMessages(t *testing.T) {
	e := newEnv(t)
	keyRange := func(sk, ek, st, et *string, count int32) *cassandra.KeyRange {
		return &cassandra.KeyRange{StartKey: sk, EndKey: ek, StartToken: st, EndToken: et, Count: count}
	}
	keys := func(s, f string) *cassandra.KeyRange { return keyRange(&s, &f, nil, nil, 100) }
	badToken := "not-hex"
	_, tokenErr := e.svc.schema.Partitioner.ParseToken(badToken)
	if tokenErr == nil {
		t.Fatalf("ParseToken(%q) succeeded; pick another bad token", badToken)
	}

	tests := []struct {
		name string
		call call
		want string
	}{
		// validateKey
		{"empty key", get(ks1, "", path("Standard1", nil, b("c")), one), "Key may not be empty"},
		{"key too long", get(ks1, string(long65536), path("Standard1", nil, b("c")), one),
			"Encoded key length of 65536 is longer than maximum of 65535"},
		{"NULs count two bytes", get(ks1, strings.Repeat("\x00", 32768), path("Standard1", nil, b("c")), one),
			"Encoded key length of 65536 is longer than maximum of 65535"},
		{"surrogate pairs count six bytes", get(ks1, strings.Repeat("\U0001F600", 10923), path("Standard1", nil, b("c")), one),
			"Encoded key length of 65538 is longer than maximum of 65535"},

		// validateTable, validateColumnFamily
		{"unknown keyspace", get("Nope", "k", path("Standard1", nil, b("c")), one), "Keyspace Nope does not exist in this schema."},
		{"empty column family", get(ks1, "k", path("", nil, b("c")), one), "non-empty columnfamily is required"},
		{"unknown column family", get(ks1, "k", path("S", nil, b("c")), one), "unconfigured columnfamily S"},

		// validateColumnPath
		{"path: super column on standard", get(ks1, "k", path("Standard1", b("x"), b("y")), one),
			"supercolumn parameter is invalid for standard CF Standard1"},
		{"path: no column on standard", get(ks1, "k", path("Standard1", nil, nil), one),
			"column parameter is not optional for standard CF Standard1"},
		{"path: no super column on super", get(ks1, "k", path("Super1", nil, nil), one),
			"supercolumn parameter is not optional for super CF Super1"},
		{"path: no super column on super, column given", get(ks1, "k", path("Super1", nil, i64(1)), one),
			"supercolumn parameter is not optional for super CF Super1"},
		{"path: empty column", get(ks1, "k", path("Standard1", nil, empty), one), "column name must not be empty"},
		{"path: long column", get(ks1, "k", path("Standard1", nil, long65536), one),
			"column name length must not be greater than 65535"},
		{"path: column fails comparator", get(ks1, "k", path("StandardLong1", nil, b("x")), one), "A long is exactly 8 bytes"},
		{"path: subcolumn fails subcomparator", get(ks1, "k", path("Super1", b("sc1"), b("x")), one), "A long is exactly 8 bytes"},
		{"path: UTF8 subcolumn", get(ks1, "k", path("Super4", b("sc1"), badUTF), one), "invalid UTF8 bytes [-61, 40]"},
		{"path: TimeUUID subcolumn", get("Keyspace2", "k", path("Super4", b("sc1"), b("abc")), one),
			"TimeUUID should be 16 or 0 bytes (3)"},
		{"path: empty super column above a column", get(ks1, "k", path("Super1", empty, i64(1)), one),
			"supercolumn name must not be empty"},
		{"path: long super column above a column", get(ks1, "k", path("Super1", long65536, i64(1)), one),
			"supercolumn name length must not be greater than 65535"},
		{"path: empty super column alone is a name", get(ks1, "k", path("Super1", empty, nil), one),
			"column name must not be empty"},
		{"path: long super column alone is a name", get(ks1, "k", path("Super1", long65536, nil), one),
			"column name length must not be greater than 65535"},
		{"path: column checked before super column", get(ks1, "k", path("Super1", long65536, b("x")), one),
			"supercolumn name length must not be greater than 65535"},

		// validateColumnParent
		{"parent: super column on standard", getSlice(ks1, "k", parent("Standard1", b("x")), all(), one),
			"columnfamily alone is required for standard CF Standard1"},
		{"parent: empty super column", getSlice(ks1, "k", parent("Super1", empty), all(), one), "column name must not be empty"},
		{"parent: unknown column family", getSlice(ks1, "k", parent("Nope", nil), all(), one), "unconfigured columnfamily Nope"},

		// validatePredicate, validateRange
		{"predicate: neither", getSlice(ks1, "k", parent("Standard1", nil), &cassandra.SlicePredicate{}, one),
			"predicate column_names and slice_range may not both be null"},
		{"predicate: both", getSlice(ks1, "k", parent("Standard1", nil),
			&cassandra.SlicePredicate{ColumnNames: [][]byte{b("a")}, SliceRange: all().SliceRange}, one),
			"predicate column_names and slice_range may not both be present"},
		{"predicate: empty name", getSlice(ks1, "k", parent("Standard1", nil), names(""), one), "column name must not be empty"},
		{"predicate: names fail comparator", getSlice(ks1, "k", parent("StandardLong1", nil), names("x"), one), "A long is exactly 8 bytes"},
		{"predicate: names under a super column use the subcomparator", getSlice(ks1, "k", parent("Super1", b("sc1")), names("x"), one),
			"A long is exactly 8 bytes"},
		{"range: start fails comparator", getSlice(ks1, "k", parent("StandardLong1", nil), sliceRange(b("x"), nil, false, 1), one),
			"A long is exactly 8 bytes"},
		{"range: finish fails comparator", getSlice(ks1, "k", parent("Super1", b("sc1")), sliceRange(nil, b("x"), false, 1), one),
			"A long is exactly 8 bytes"},
		{"range: negative count", getSlice(ks1, "k", parent("Standard1", nil), sliceRange(nil, nil, false, -1), one),
			"get_slice requires non-negative count"},
		{"range: start after finish", getSlice(ks1, "k", parent("StandardLong1", nil), sliceRange(i64(10), i64(0), false, 1), one),
			"range finish must come after start in the order of traversal"},
		{"range: reversed start before finish", getSlice(ks1, "k", parent("StandardLong1", nil), sliceRange(i64(0), i64(10), true, 1), one),
			"range finish must come after start in the order of traversal"},
		{"range: LongType order is signed", getSlice(ks1, "k", parent("StandardLong1", nil), sliceRange(i64(0), i64(-1), false, 1), one),
			"range finish must come after start in the order of traversal"},
		{"range: count checked before order", getSlice(ks1, "k", parent("Standard1", nil), sliceRange(b("b"), b("a"), false, -1), one),
			"get_slice requires non-negative count"},

		// validateKeyRange
		{"key range: start key only", rangeSlices(ks1, parent("Standard1", nil), all(), keyRange(strp("a"), nil, nil, nil, 100), one),
			"start key and end key must either both be non-null, or both be null"},
		{"key range: end token only", rangeSlices(ks1, parent("Standard1", nil), all(), keyRange(nil, nil, nil, strp(""), 100), one),
			"start token and end token must either both be non-null, or both be null"},
		{"key range: keys and tokens", rangeSlices(ks1, parent("Standard1", nil), all(), keyRange(strp(""), strp(""), strp(""), strp(""), 100), one),
			"exactly one of {start key, end key} or {start token, end token} must be specified"},
		{"key range: neither", rangeSlices(ks1, parent("Standard1", nil), all(), keyRange(nil, nil, nil, nil, 100), one),
			"exactly one of {start key, end key} or {start token, end token} must be specified"},
		{"key range: start after end", rangeSlices(ks1, parent("Standard1", nil), all(), keys("z", "a"), one),
			"start key must sort before (or equal to) finish key in your partitioner!"},
		{"key range: zero count", rangeSlices(ks1, parent("Standard1", nil), all(), keyRange(strp(""), strp(""), nil, nil, 0), one),
			"maxRows must be positive"},
		{"key range: order checked before count", rangeSlices(ks1, parent("Standard1", nil), all(), keyRange(strp("z"), strp("a"), nil, nil, 0), one),
			"start key must sort before (or equal to) finish key in your partitioner!"},
		{"get_range_slice: start after finish", rangeSlice(ks1, parent("Standard1", nil), names("a"), "z", "a", 5, one),
			"start key must sort before (or equal to) finish key in your partitioner!"},
		{"get_range_slice: zero rows", rangeSlice(ks1, parent("Standard1", nil), names("a"), "", "", 0, one), "maxRows must be positive"},
		{"get_range_slice: unknown column family", rangeSlice(ks1, parent("S", nil), names("", ""), "", "", 5, one), "unconfigured columnfamily S"},
		{"bad start token", rangeSlices(ks1, parent("Standard1", nil), all(), keyRange(nil, nil, &badToken, strp(""), 100), one), tokenErr.Error()},
		{"bad end token", rangeSlices(ks1, parent("Standard1", nil), all(), keyRange(nil, nil, strp(""), &badToken, 100), one), tokenErr.Error()},

		// consistency levels
		{"get at ZERO", get(ks1, "k", path("Standard1", nil, b("c")), cassandra.ConsistencyLevel_ZERO),
			"Consistency level zero may not be applied to read operations"},
		{"get at ANY", get(ks1, "k", path("Standard1", nil, b("c")), cassandra.ConsistencyLevel_ANY),
			"Consistency level any may not be applied to read operations"},
		{"get_slice at ZERO", getSlice(ks1, "k", parent("Standard1", nil), all(), cassandra.ConsistencyLevel_ZERO),
			"Consistency level zero may not be applied to read operations"},
		{"multiget at ANY", multiget(ks1, []string{"k"}, path("Standard1", nil, b("c")), cassandra.ConsistencyLevel_ANY),
			"Consistency level any may not be applied to read operations"},
		{"multiget without keys at ZERO", multiget(ks1, nil, path("Standard1", nil, b("c")), cassandra.ConsistencyLevel_ZERO),
			"Consistency level zero may not be applied to read operations"},
		{"multiget_slice at ANY", multigetSlice(ks1, []string{"k"}, parent("Standard1", nil), all(), cassandra.ConsistencyLevel_ANY),
			"Consistency level any may not be applied to read operations"},
		{"get_count at ZERO", getCount(ks1, "k", parent("Standard1", nil), cassandra.ConsistencyLevel_ZERO),
			"Consistency level zero may not be applied to read operations"},
		{"range slices at ZERO", rangeSlices(ks1, parent("Standard1", nil), all(), keys("", ""), cassandra.ConsistencyLevel_ZERO),
			"Consistency level zero may not be applied to read operations"},
		{"get_range_slice at ZERO", rangeSlice(ks1, parent("Standard1", nil), all(), "", "", 5, cassandra.ConsistencyLevel_ZERO),
			"Consistency level zero may not be applied to read operations"},
		{"unknown level on a read", get(ks1, "k", path("Standard1", nil, b("c")), 7), "Unknown consistency level 7"},
		{"unknown level on a write", insert(ks1, "k", path("Standard1", nil, b("c")), 99), "Unknown consistency level 99"},
		{"unknown level on remove", remove(ks1, "k", path("Standard1", nil, b("c")), -1), "Unknown consistency level -1"},

		// order (spec 4.3)
		{"get: path before key", get(ks1, "", path("S", nil, b("c")), one), "unconfigured columnfamily S"},
		{"get: key before level", get(ks1, "", path("Standard1", nil, b("c")), cassandra.ConsistencyLevel_ZERO), "Key may not be empty"},
		{"get: unknown level before everything", get("Nope", "", path("S", nil, nil), 8), "Unknown consistency level 8"},
		{"multiget: every key before level", multiget(ks1, []string{"a", ""}, path("Standard1", nil, b("c")), cassandra.ConsistencyLevel_ZERO),
			"Key may not be empty"},
		{"get_slice: parent before predicate", getSlice(ks1, "k", parent("S", nil), &cassandra.SlicePredicate{}, one), "unconfigured columnfamily S"},
		{"get_slice: predicate before key", getSlice(ks1, "", parent("Standard1", nil), &cassandra.SlicePredicate{}, one),
			"predicate column_names and slice_range may not both be null"},
		{"get_slice: key before level", getSlice(ks1, "", parent("Standard1", nil), all(), cassandra.ConsistencyLevel_ANY), "Key may not be empty"},
		{"multiget_slice: predicate before keys", multigetSlice(ks1, []string{""}, parent("Standard1", nil), names(""), one),
			"column name must not be empty"},
		{"get_count: parent before key", getCount(ks1, "", parent("Standard1", b("x")), one),
			"columnfamily alone is required for standard CF Standard1"},
		{"get_count: key before level", getCount(ks1, "", parent("Standard1", nil), cassandra.ConsistencyLevel_ZERO), "Key may not be empty"},
		{"range: predicate before key range", rangeSlices(ks1, parent("Standard1", nil), names(""), keys("z", "a"), one),
			"column name must not be empty"},
		{"range: key range before level", rangeSlices(ks1, parent("Standard1", nil), all(), keys("z", "a"), cassandra.ConsistencyLevel_ZERO),
			"start key must sort before (or equal to) finish key in your partitioner!"},
		{"range: token before level", rangeSlices(ks1, parent("Standard1", nil), all(), keyRange(nil, nil, &badToken, &badToken, 10), cassandra.ConsistencyLevel_ZERO),
			tokenErr.Error()},
		{"insert: key before path", insert(ks1, "", path("S", nil, b("c")), one), "Key may not be empty"},
		{"remove: key before path", remove(ks1, "", path("S", nil, b("c")), one), "Key may not be empty"},
		{"remove: path before unknown level", remove(ks1, "k", path("S", nil, nil), 42), "unconfigured columnfamily S"},
		{"batch_insert: key before columns", batchInsert(ks1, "", map[string][]*cassandra.ColumnOrSuperColumn{"Super1": {scosc(b("sc1"), lcol(4, "v", 0))}}, one),
			"Key may not be empty"},
		{"batch_mutate: key before mutations", batchMutate(ks1, map[string]map[string][]*cassandra.Mutation{"": {"Standard1": {{}}}}, one),
			"Key may not be empty"},
		{"batch_mutate: rows in key order", batchMutate(ks1, map[string]map[string][]*cassandra.Mutation{
			"b": {"Standard1": {{}}},
			"a": {"Standard1": {deletion(1, nil, &cassandra.SlicePredicate{})}},
		}, one), "A SlicePredicate must be given a list of Columns, a SliceRange, or both"},
		{"batch_mutate: column families in name order", batchMutate(ks1, map[string]map[string][]*cassandra.Mutation{
			"k": {"Standard2": {{}}, "Nope": {deletion(1, nil, nil)}},
		}, one), "unconfigured columnfamily Nope"},

		// validateColumnPathOrParent (remove)
		{"remove: super column on standard", remove(ks1, "k", path("Standard1", b("x"), nil), one),
			"supercolumn may not be specified for standard CF Standard1"},
		{"remove: column without super column", remove(ks1, "k", path("Super1", nil, i64(1)), one),
			"A column cannot be specified without specifying a super column for removal on super CF Super1"},
		{"remove: empty super column", remove(ks1, "k", path("Super1", empty, nil), one), "column name must not be empty"},
		{"remove: bad subcolumn", remove(ks1, "k", path("Super1", b("sc"), b("x")), one), "A long is exactly 8 bytes"},
		{"remove: unknown keyspace", remove("Nope", "k", path("Standard1", nil, nil), one), "Keyspace Nope does not exist in this schema."},

		// insert
		{"insert: super column family needs a column", insert(ks1, "k", path("Super1", b("sc1"), nil), one),
			"column parameter is not optional for super CF Super1"},
		{"insert: column name checked", insert(ks1, "k", path("Standard1", nil, long65536), one),
			"column name length must not be greater than 65535"},

		// validateColumnOrSuperColumn (batch_insert)
		{"batch_insert: empty item", batchInsert(ks1, "k", map[string][]*cassandra.ColumnOrSuperColumn{"Standard1": {{}}}, one),
			"ColumnOrSuperColumn must have one or both of Column or SuperColumn"},
		{"batch_insert: column in super CF", batchInsert(ks1, "k", map[string][]*cassandra.ColumnOrSuperColumn{"Super1": {cosc(col("c", "v", 0))}}, one),
			"supercolumn parameter is not optional for super CF Super1"},
		{"batch_insert: super column in standard CF", batchInsert(ks1, "k", map[string][]*cassandra.ColumnOrSuperColumn{"Standard1": {scosc(b("sc"), col("c", "v", 0))}}, one),
			"supercolumn parameter is invalid for standard CF Standard1"},
		{"batch_insert: bad subcolumn", batchInsert(ks1, "k", map[string][]*cassandra.ColumnOrSuperColumn{"Super1": {scosc(b("sc"), col("c", "v", 0))}}, one),
			"A long is exactly 8 bytes"},
		{"batch_insert: unknown column family", batchInsert(ks1, "k", map[string][]*cassandra.ColumnOrSuperColumn{"Nope": {cosc(col("c", "v", 0))}}, one),
			"unconfigured columnfamily Nope"},
		{"batch_insert: both column and super column", batchInsert(ks1, "k", map[string][]*cassandra.ColumnOrSuperColumn{
			"Super1":    {{Column: nil, SuperColumn: &cassandra.SuperColumn{Name: b("sc"), Columns: []*cassandra.Column{lcol(1, "v", 0)}}}},
			"Standard1": {{Column: col("c", "v", 0), SuperColumn: &cassandra.SuperColumn{Name: b("sc"), Columns: nil}}},
		}, one), "ColumnOrSuperColumn in batch_insert must have either a Column or a SuperColumn, not both (column family Standard1)"},
		{"batch_insert: every item validated before both-fields check", batchInsert(ks1, "k", map[string][]*cassandra.ColumnOrSuperColumn{
			"Standard1": {{Column: col("c", "v", 0), SuperColumn: &cassandra.SuperColumn{Name: b("sc")}}},
			"Standard2": {cosc(col("", "v", 0))},
		}, one), "column name must not be empty"},

		// validateMutation, validateDeletion (batch_mutate)
		{"mutation: both", mutate("Standard1", &cassandra.Mutation{ColumnOrSupercolumn: cosc(col("foo", "bar", 0)),
			Deletion: &cassandra.Deletion{Timestamp: 2, Predicate: names("baz")}}),
			"Mutation may have either a ColumnOrSuperColumn or a Deletion, but not both"},
		{"mutation: neither", mutate("Standard1", &cassandra.Mutation{}), "Mutation must have one ColumnOrSuperColumn or one Deletion"},
		{"mutation: column validated", mutate("StandardLong1", &cassandra.Mutation{ColumnOrSupercolumn: cosc(col("x", "v", 0))}),
			"A long is exactly 8 bytes"},
		{"deletion: empty predicate", mutate("Standard1", deletion(2, nil, &cassandra.SlicePredicate{})),
			"A SlicePredicate must be given a list of Columns, a SliceRange, or both"},
		{"deletion: slice range", mutate("Standard1", deletion(2, nil, sliceRange(b("0"), nil, false, 10))),
			"Deletion does not yet support SliceRange predicates."},
		{"deletion: slice range validated first", mutate("Standard1", deletion(2, nil, sliceRange(nil, nil, false, -1))),
			"get_slice requires non-negative count"},
		{"deletion: names validated before slice range refused", mutate("Standard1", deletion(2, nil,
			&cassandra.SlicePredicate{ColumnNames: [][]byte{empty}, SliceRange: all().SliceRange})),
			"column name must not be empty"},
		{"deletion: super column on standard", mutate("Standard1", deletion(1, b("supercolumn"), nil)),
			"deletion of super_column is not possible on a standard ColumnFamily (KeySpace=Keyspace1 ColumnFamily=Standard1 Deletion=Deletion(timestamp:1, super_column:73 75 70 65 72 63 6F 6C 75 6D 6E))"},
		{"deletion: super column and names on standard", mutate("Standard1", deletion(1, b("sc"), names("c"))),
			"supercolumn specified to ColumnFamily Standard1 containing normal columns"},
		{"deletion: super column and slice range on standard", mutate("Standard1", deletion(1, b("sc"), all())),
			"supercolumn specified to ColumnFamily Standard1 containing normal columns"},
		{"deletion: subcolumn names use the subcomparator", mutate("Super1", deletion(1, b("sc"), names("x"))), "A long is exactly 8 bytes"},
		{"deletion: empty super column", mutate("Super1", deletion(1, empty, names())), "supercolumn name must not be empty"},
		{"deletion: empty super column without names", mutate("Super1", deletion(1, empty, nil)), "column name must not be empty"},
		{"deletion: unknown column family", mutate("Nope", deletion(1, nil, nil)), "unconfigured columnfamily Nope"},
		{"deletion: empty column family", mutate("", deletion(1, nil, nil)), "non-empty columnfamily is required"},
		{"deletion: unknown keyspace", batchMutate("Nope", map[string]map[string][]*cassandra.Mutation{"k": {"Standard1": {deletion(1, nil, nil)}}}, one),
			"Keyspace Nope does not exist in this schema."},

		// the system keyspace is read-only (spec 16.11)
		{"insert into system", insert("system", "k", path("LocationInfo", nil, b("c")), one),
			"Keyspace system is maintained by the server and may not be written to"},
		{"remove from system", remove("system", "k", path("HintsColumnFamily", nil, nil), one),
			"Keyspace system is maintained by the server and may not be written to"},
		{"batch_insert into system", batchInsert("system", "k", map[string][]*cassandra.ColumnOrSuperColumn{"LocationInfo": {cosc(col("c", "v", 0))}}, one),
			"Keyspace system is maintained by the server and may not be written to"},
		{"batch_mutate into system", batchMutate("system", map[string]map[string][]*cassandra.Mutation{"k": {"LocationInfo": {deletion(1, nil, nil)}}}, one),
			"Keyspace system is maintained by the server and may not be written to"},
		{"system: validation still comes first", insert("system", "k", path("LocationInfo", nil, empty), one), "column name must not be empty"},

		{"describe_ring of system", func(ctx context.Context, c cassandra.Cassandra) error {
			_, err := c.DescribeRing(ctx, "system")
			return err
		}, "There is no ring for the keyspace: system"},
		{"describe_ring of unknown", func(ctx context.Context, c cassandra.Cassandra) error {
			_, err := c.DescribeRing(ctx, "Nope")
			return err
		}, "There is no ring for the keyspace: Nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call(e.ctx, e.c)
			if got := whyOf(err); got != tt.want {
				t.Errorf("why = %q\nwant  %q", got, tt.want)
			}
		})
	}
}

// TestValidRequestsPass is the other side of TestValidationMessages: the
// boundaries just inside every limit are accepted.
func TestValidRequestsPass(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name string
		call call
	}{
		{"key of 65535 bytes", insert(ks1, string(long65535), path("Standard1", nil, b("c")), one)},
		{"key of 21845 three-byte characters", insert(ks1, strings.Repeat("€", 21845), path("Standard1", nil, b("c")), one)},
		{"column name of 65535 bytes", insert(ks1, "k", path("Standard1", nil, long65535), one)},
		{"super column name of 65535 bytes", insert(ks1, "k", path("Super1", long65535, i64(1)), one)},
		{"reversed range", getSlice(ks1, "k", parent("StandardLong1", nil), sliceRange(i64(10), i64(0), true, 1), one)},
		{"equal bounds", getSlice(ks1, "k", parent("StandardLong1", nil), sliceRange(i64(3), i64(3), false, 1), one)},
		{"zero count", getSlice(ks1, "k", parent("Standard1", nil), sliceRange(nil, nil, false, 0), one)},
		{"empty name list", getSlice(ks1, "k", parent("Standard1", nil), names(), one)},
		{"key range to the end", rangeSlices(ks1, parent("Standard1", nil), all(),
			&cassandra.KeyRange{StartKey: strp("z"), EndKey: strp(""), Count: 1}, one)},
		{"range read at ANY", rangeSlices(ks1, parent("Standard1", nil), all(),
			&cassandra.KeyRange{StartKey: strp(""), EndKey: strp(""), Count: 1}, cassandra.ConsistencyLevel_ANY)},
		{"read of RF 5 keyspace at ALL", getSlice("Keyspace3", "k", parent("Standard1", nil), all(), cassandra.ConsistencyLevel_ALL)},
		{"read at QUORUM", get(ks1, "k", path("Standard1", nil, long65535), cassandra.ConsistencyLevel_QUORUM)},
		{"read at DCQUORUMSYNC", getCount("Keyspace3", "k", parent("Standard1", nil), cassandra.ConsistencyLevel_DCQUORUMSYNC)},
		{"range read at DCQUORUM", rangeSlice("Keyspace3", parent("Standard1", nil), all(), "", "", 3, cassandra.ConsistencyLevel_DCQUORUM)},
		{"write at ZERO", insert("Keyspace3", "k", path("Standard1", nil, b("c")), cassandra.ConsistencyLevel_ZERO)},
		{"write at ANY", remove("Keyspace3", "k", path("Standard1", nil, nil), cassandra.ConsistencyLevel_ANY)},
		{"super column with no subcolumns", batchInsert(ks1, "k", map[string][]*cassandra.ColumnOrSuperColumn{"Super1": {scosc(b("sc"))}}, one)},
		{"empty list for unknown column family", batchInsert(ks1, "k", map[string][]*cassandra.ColumnOrSuperColumn{"Nope": {}}, one)},
		{"empty batch_mutate", batchMutate("Nope", nil, one)},
		{"read system keyspace", getSlice("system", "L", parent("LocationInfo", nil), all(), one)},
		{"read system super column family", getSlice("system", "k", parent("HintsColumnFamily", b("x")), all(), one)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(e.ctx, e.c); err != nil {
				if _, nf := err.(*cassandra.NotFoundException); !nf {
					t.Errorf("unexpected error %v", err)
				}
			}
		})
	}
}

// TestRandomPartitionerKeyOrderMessage checks validateKeyRange's message
// under RandomPartitioner, whose key order is MD5 order.
func TestRandomPartitionerKeyOrderMessage(t *testing.T) {
	rp, err := dht.Lookup("RandomPartitioner")
	if err != nil {
		t.Fatal(err)
	}
	v := validator{schema: &schema.Schema{Partitioner: rp}}
	// Find two keys whose MD5 tokens are out of key order.
	var start, end string
	for _, pair := range [][2]string{{"a", "b"}, {"b", "a"}, {"key1", "key2"}, {"key2", "key1"}} {
		if bytes.Compare(rp.Token(pair[0]), rp.Token(pair[1])) > 0 {
			start, end = pair[0], pair[1]
			break
		}
	}
	if start == "" {
		t.Fatal("no out-of-order pair found")
	}
	err = v.validateKeyRange(&cassandra.KeyRange{StartKey: &start, EndKey: &end, Count: 1})
	want := "start key's md5 sorts after end key's md5.  this is not allowed; you probably should not specify end key at all, under RandomPartitioner"
	if got := whyOfDomain(err); got != want {
		t.Errorf("why = %q, want %q", got, want)
	}
	// The reverse order, and an unbounded end, are fine.
	if err := v.validateKeyRange(&cassandra.KeyRange{StartKey: &end, EndKey: &start, Count: 1}); err != nil {
		t.Errorf("in-order keys: %v", err)
	}
	if err := v.validateKeyRange(&cassandra.KeyRange{StartKey: &start, EndKey: strp(""), Count: 1}); err != nil {
		t.Errorf("unbounded end: %v", err)
	}
}

func whyOfDomain(err error) string {
	if ire, ok := err.(*InvalidRequest); ok {
		return ire.Why
	}
	return "<not an InvalidRequest>"
}

func TestDeletionString(t *testing.T) {
	long := bytes.Repeat([]byte{0x80}, 130)
	tests := []struct {
		d    *cassandra.Deletion
		want string
	}{
		{&cassandra.Deletion{Timestamp: -5}, "Deletion(timestamp:-5)"},
		{&cassandra.Deletion{Timestamp: 1, SuperColumn: []byte{0x00, 0xff, 0x0a}}, "Deletion(timestamp:1, super_column:00 FF 0A)"},
		{&cassandra.Deletion{Timestamp: 1, SuperColumn: long},
			"Deletion(timestamp:1, super_column:" + strings.TrimSpace(strings.Repeat("80 ", 128)) + " ...)"},
	}
	for _, tt := range tests {
		if got := deletionString(tt.d); got != tt.want {
			t.Errorf("deletionString = %q, want %q", got, tt.want)
		}
	}
}
