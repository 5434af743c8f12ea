package handler

import (
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// These are the scenarios of Cassandra 0.6's own system tests
// (test/system/test_server.py), run against the handler directly with the
// same schema. Each test starts from an empty store, as the Python
// CassandraTester did.

var (
	simpleColumns = []*cassandra.Column{col("c1", "value1", 0), col("c2", "value2", 0)}
	superColumns  = []struct {
		name string
		cols []*cassandra.Column
	}{
		{"sc1", []*cassandra.Column{lcol(4, "value4", 0)}},
		{"sc2", []*cassandra.Column{lcol(5, "value5", 0), lcol(6, "value6", 0)}},
	}
)

func superColumnsString() string {
	var items []*cassandra.ColumnOrSuperColumn
	for _, sc := range superColumns {
		items = append(items, scosc(b(sc.name), sc.cols...))
	}
	return coscString(items)
}

func (e *testEnv) insertSimple(t *testing.T, keys ...string) {
	t.Helper()
	if len(keys) == 0 {
		keys = []string{"key1"}
	}
	for _, k := range keys {
		must(t, e.c.Insert(e.ctx, ks1, k, path("Standard1", nil, b("c1")), b("value1"), 0, one))
		must(t, e.c.Insert(e.ctx, ks1, k, path("Standard1", nil, b("c2")), b("value2"), 0, one))
	}
}

func (e *testEnv) insertSuper(t *testing.T, key string) {
	t.Helper()
	zero := cassandra.ConsistencyLevel_ZERO
	must(t, e.c.Insert(e.ctx, ks1, key, path("Super1", b("sc1"), i64(4)), b("value4"), 0, zero))
	must(t, e.c.Insert(e.ctx, ks1, key, path("Super1", b("sc2"), i64(5)), b("value5"), 0, zero))
	must(t, e.c.Insert(e.ctx, ks1, key, path("Super1", b("sc2"), i64(6)), b("value6"), 0, zero))
}

func (e *testEnv) slice(t *testing.T, ks, key string, cp *cassandra.ColumnParent, pred *cassandra.SlicePredicate) []*cassandra.ColumnOrSuperColumn {
	t.Helper()
	r, err := e.c.GetSlice(e.ctx, ks, key, cp, pred, one)
	if err != nil {
		t.Fatalf("get_slice: %v", err)
	}
	return r
}

func (e *testEnv) bigSlice(t *testing.T, key string, cp *cassandra.ColumnParent) string {
	t.Helper()
	return coscString(e.slice(t, ks1, key, cp, all()))
}

func expectSlice(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\n got %s\nwant %s", what, got, want)
	}
}

// getItem is get, returning "<missing>" on NotFoundException.
func (e *testEnv) getItem(t *testing.T, key string, p *cassandra.ColumnPath) string {
	t.Helper()
	r, err := e.c.Get(e.ctx, ks1, key, p, one)
	if _, nf := err.(*cassandra.NotFoundException); nf {
		return "<missing>"
	}
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	return itemString(r)
}

func (e *testEnv) verifySimple(t *testing.T) {
	t.Helper()
	expectSlice(t, "get c1", e.getItem(t, "key1", path("Standard1", nil, b("c1"))), colString(col("c1", "value1", 0)))
	expectSlice(t, "Standard1", e.bigSlice(t, "key1", parent("Standard1", nil)), columnsString(simpleColumns...))
}

func (e *testEnv) verifySuper(t *testing.T, cf string) {
	t.Helper()
	expectSlice(t, "get sc1/4", e.getItem(t, "key1", path(cf, b("sc1"), i64(4))), colString(lcol(4, "value4", 0)))
	expectSlice(t, cf, e.bigSlice(t, "key1", parent(cf, nil)), superColumnsString())
}

func TestInsertAndGet(t *testing.T) {
	for _, cl := range []cassandra.ConsistencyLevel{cassandra.ConsistencyLevel_ZERO, one} {
		t.Run(cl.String(), func(t *testing.T) {
			e := newEnv(t)
			must(t, e.c.Insert(e.ctx, ks1, "key1", path("Standard1", nil, b("c1")), b("value1"), 0, cl))
			must(t, e.c.Insert(e.ctx, ks1, "key1", path("Standard1", nil, b("c2")), b("value2"), 0, cl))
			e.verifySimple(t)
		})
	}
}

func TestEmptySlice(t *testing.T) {
	e := newEnv(t)
	expectSlice(t, "Standard2", e.bigSlice(t, "key1", parent("Standard2", nil)), "[]")
	expectSlice(t, "Super1", e.bigSlice(t, "key1", parent("Super1", nil)), "[]")
	expectSlice(t, "Super1/sc1", e.bigSlice(t, "key1", parent("Super1", b("sc1"))), "[]")
}

func TestMissingSuper(t *testing.T) {
	e := newEnv(t)
	expectSlice(t, "before", e.getItem(t, "key1", path("Super1", b("sc1"), i64(1))), "<missing>")
	e.insertSuper(t, "key1")
	expectSlice(t, "after", e.getItem(t, "key1", path("Super1", b("sc1"), i64(1))), "<missing>")
	expectSlice(t, "missing super column", e.getItem(t, "key1", path("Super1", b("sc9"), nil)), "<missing>")
}

func TestCount(t *testing.T) {
	e := newEnv(t)
	e.insertSimple(t)
	e.insertSuper(t, "key1")
	for _, tt := range []struct {
		cp   *cassandra.ColumnParent
		want int32
	}{
		{parent("Standard2", nil), 0},
		{parent("Standard1", nil), 2},
		{parent("Super1", b("sc2")), 2},
		{parent("Super1", nil), 2},
	} {
		n, err := e.c.GetCount(e.ctx, ks1, "key1", tt.cp, one)
		must(t, err)
		if n != tt.want {
			t.Errorf("get_count(%s/%s) = %d, want %d", tt.cp.ColumnFamily, tt.cp.SuperColumn, n, tt.want)
		}
	}
}

func TestSuperInsertAndGet(t *testing.T) {
	e := newEnv(t)
	e.insertSuper(t, "key1")
	e.verifySuper(t, "Super1")
	r, err := e.c.Get(e.ctx, ks1, "key1", path("Super1", b("sc2"), nil), one)
	must(t, err)
	expectSlice(t, "get sc2", itemString(r), superString("sc2", superColumns[1].cols...))
}

func TestSuperReinsert(t *testing.T) {
	e := newEnv(t)
	for x := int64(0); x < 3; x++ {
		must(t, e.c.Insert(e.ctx, ks1, "key1", path("Super1", b("sc2"), i64(x)), b("value"), 1, one))
	}
	must(t, e.c.Remove(e.ctx, ks1, "key1", path("Super1", nil, nil), 2, one))
	for x := int64(0); x < 3; x++ {
		must(t, e.c.Insert(e.ctx, ks1, "key1", path("Super1", b("sc2"), i64(x+3)), b("value"), 3, one))
	}
	for n := int32(1); n < 4; n++ {
		got := e.slice(t, ks1, "key1", parent("Super1", b("sc2")), sliceRange(nil, nil, false, n))
		if len(got) != int(n) {
			t.Errorf("count %d: got %s", n, coscString(got))
		}
	}
}

func TestSuperSubcolumnLimit(t *testing.T) {
	e := newEnv(t)
	e.insertSuper(t, "key1")
	cp := parent("Super1", b("sc2"))
	expectSlice(t, "first", coscString(e.slice(t, ks1, "key1", cp, sliceRange(nil, nil, false, 1))), columnsString(lcol(5, "value5", 0)))
	expectSlice(t, "last", coscString(e.slice(t, ks1, "key1", cp, sliceRange(nil, nil, true, 1))), columnsString(lcol(6, "value6", 0)))
}

func TestLongOrder(t *testing.T) {
	e := newEnv(t)
	var want []*cassandra.Column
	for i := int64(0); i < 104294967296; i += 429496729 {
		must(t, e.c.Insert(e.ctx, ks1, "key1", path("StandardLong1", nil, i64(i)), b("v"), 0, one))
		want = append(want, lcol(i, "v", 0))
	}
	expectSlice(t, "StandardLong1", e.bigSlice(t, "key1", parent("StandardLong1", nil)), columnsString(want...))
}

func TestTimeUUID(t *testing.T) {
	e := newEnv(t)
	const n = 500
	ids := make([][]byte, n)
	cols := make([]*cassandra.Column, n)
	for i := range ids {
		u, err := uuid.NewUUID()
		must(t, err)
		ids[i] = u[:]
		cols[i] = &cassandra.Column{Name: ids[i], Value: b(fmt.Sprintf("value%d", i)), Timestamp: int64(i)}
		must(t, e.c.Insert(e.ctx, "Keyspace2", "key1", path("Super4", b("sc1"), ids[i]), cols[i].Value, int64(i), one))
	}
	cp := parent("Super4", b("sc1"))
	expectSlice(t, "all", coscString(e.slice(t, "Keyspace2", "key1", cp, sliceRange(nil, nil, false, 1000))), columnsString(cols...))
	expectSlice(t, "last", coscString(e.slice(t, "Keyspace2", "key1", cp, sliceRange(nil, nil, true, 1))), columnsString(cols[n-1]))
	expectSlice(t, "to third", coscString(e.slice(t, "Keyspace2", "key1", cp, sliceRange(nil, ids[2], false, 1000))), columnsString(cols[:3]...))
	expectSlice(t, "down from third", coscString(e.slice(t, "Keyspace2", "key1", cp, sliceRange(ids[2], nil, true, 1000))),
		columnsString(cols[2], cols[1], cols[0]))
	expectSlice(t, "third", coscString(e.slice(t, "Keyspace2", "key1", cp, sliceRange(ids[2], nil, false, 1))), columnsString(cols[2]))
}

func TestLongRemove(t *testing.T) {
	e := newEnv(t)
	cp := parent("StandardLong1", nil)
	first := sliceRange(nil, nil, false, 1)
	for i := int64(0); i < 10; i++ {
		p := path("StandardLong1", nil, i64(i))
		must(t, e.c.Insert(e.ctx, ks1, "key1", p, b("value1"), 10*i, one))
		must(t, e.c.Remove(e.ctx, ks1, "key1", path("StandardLong1", nil, nil), 10*i+1, one))
		expectSlice(t, "after remove", coscString(e.slice(t, ks1, "key1", cp, first)), "[]")
		must(t, e.c.Insert(e.ctx, ks1, "key1", p, b("value2"), 10*i+2, one))
		expectSlice(t, "resurrected", coscString(e.slice(t, ks1, "key1", cp, first)), columnsString(lcol(i, "value2", 10*i+2)))
	}
}

func TestBatchInsert(t *testing.T) {
	for _, cl := range []cassandra.ConsistencyLevel{cassandra.ConsistencyLevel_ZERO, one} {
		t.Run(cl.String(), func(t *testing.T) {
			e := newEnv(t)
			items := []*cassandra.ColumnOrSuperColumn{cosc(simpleColumns[0]), cosc(simpleColumns[1])}
			must(t, e.c.BatchInsert(e.ctx, ks1, "key1", map[string][]*cassandra.ColumnOrSuperColumn{"Standard1": items, "Standard2": items}, cl))
			e.verifySimple(t)
			expectSlice(t, "Standard2", e.bigSlice(t, "key1", parent("Standard2", nil)), columnsString(simpleColumns...))
		})
	}
}

func TestBatchInsertSuper(t *testing.T) {
	e := newEnv(t)
	var items []*cassandra.ColumnOrSuperColumn
	for _, sc := range superColumns {
		items = append(items, scosc(b(sc.name), sc.cols...))
	}
	must(t, e.c.BatchInsert(e.ctx, ks1, "key1", map[string][]*cassandra.ColumnOrSuperColumn{"Super1": items, "Super2": items}, one))
	e.verifySuper(t, "Super1")
	e.verifySuper(t, "Super2")
}

func rowKeys(prefix string, from, to int) []string {
	var keys []string
	for i := from; i < to; i++ {
		keys = append(keys, fmt.Sprintf("%s%d", prefix, i))
	}
	return keys
}

// mutationMap gives every key the same mutations for every column family.
func mutationMap(keys, cfs []string, ms ...*cassandra.Mutation) map[string]map[string][]*cassandra.Mutation {
	out := map[string]map[string][]*cassandra.Mutation{}
	for _, k := range keys {
		out[k] = map[string][]*cassandra.Mutation{}
		for _, cf := range cfs {
			out[k][cf] = ms
		}
	}
	return out
}

func TestBatchMutateStandardColumns(t *testing.T) {
	for _, cl := range []cassandra.ConsistencyLevel{cassandra.ConsistencyLevel_ZERO, one} {
		t.Run(cl.String(), func(t *testing.T) {
			e := newEnv(t)
			cfs := []string{"Standard1", "Standard2"}
			keys := rowKeys("key_", 27, 32)
			must(t, e.c.BatchMutate(e.ctx, ks1, mutationMap(keys, cfs,
				&cassandra.Mutation{ColumnOrSupercolumn: cosc(simpleColumns[0])},
				&cassandra.Mutation{ColumnOrSupercolumn: cosc(simpleColumns[1])}), cl))
			for _, cf := range cfs {
				for _, k := range keys {
					expectSlice(t, k+"/"+cf, e.getItem(t, k, path(cf, nil, b("c1"))), colString(col("c1", "value1", 0)))
				}
			}
		})
	}
}

func TestBatchMutateRemoveStandardColumns(t *testing.T) {
	e := newEnv(t)
	cfs := []string{"Standard1", "Standard2"}
	keys := rowKeys("key_", 11, 21)
	e.insertSimple(t, keys...)
	for _, k := range keys {
		must(t, e.c.Insert(e.ctx, ks1, k, path("Standard2", nil, b("c1")), b("value1"), 0, one))
	}
	must(t, e.c.BatchMutate(e.ctx, ks1, mutationMap(keys, cfs,
		deletion(20, nil, names("c1")), deletion(20, nil, names("c2"))), one))
	for _, cf := range cfs {
		for _, k := range keys {
			for _, c := range []string{"c1", "c2"} {
				expectSlice(t, k+"/"+cf+"/"+c, e.getItem(t, k, path(cf, nil, b(c))), "<missing>")
			}
		}
	}
}

func TestBatchMutateRemoveStandardRow(t *testing.T) {
	e := newEnv(t)
	cfs := []string{"Standard1", "Standard2"}
	keys := rowKeys("key_", 11, 21)
	e.insertSimple(t, keys...)
	must(t, e.c.BatchMutate(e.ctx, ks1, mutationMap(keys, cfs, deletion(20, nil, nil)), one))
	for _, k := range keys {
		expectSlice(t, k, e.bigSlice(t, k, parent("Standard1", nil)), "[]")
	}
}

func TestBatchMutateRemoveSuperColumnsWithStandardUnder(t *testing.T) {
	e := newEnv(t)
	cfs := []string{"Super1", "Super2"}
	keys := rowKeys("key_", 11, 21)
	for _, k := range keys {
		e.insertSuper(t, k)
	}
	var ms []*cassandra.Mutation
	for _, sc := range superColumns {
		p := &cassandra.SlicePredicate{ColumnNames: [][]byte{}}
		for _, c := range sc.cols {
			p.ColumnNames = append(p.ColumnNames, c.Name)
		}
		ms = append(ms, deletion(20, b(sc.name), p))
	}
	must(t, e.c.BatchMutate(e.ctx, ks1, mutationMap(keys, cfs, ms...), cassandra.ConsistencyLevel_ZERO))
	for _, cf := range cfs {
		for _, sc := range superColumns {
			for _, c := range sc.cols {
				for _, k := range keys {
					expectSlice(t, k, e.getItem(t, k, path(cf, b(sc.name), c.Name)), "<missing>")
				}
			}
		}
	}
}

func TestBatchMutateRemoveSuperColumnsWithNoneGivenUnderneath(t *testing.T) {
	e := newEnv(t)
	keys := rowKeys("key_", 17, 21)
	for _, k := range keys {
		e.insertSuper(t, k)
	}
	var ms []*cassandra.Mutation
	for _, sc := range superColumns {
		ms = append(ms, deletion(20, b(sc.name), nil))
	}
	for _, sc := range superColumns {
		for _, k := range keys {
			if e.getItem(t, k, path("Super1", b(sc.name), nil)) == "<missing>" {
				t.Fatalf("%s/%s missing before the deletion", k, sc.name)
			}
		}
	}
	must(t, e.c.BatchMutate(e.ctx, ks1, mutationMap(keys, []string{"Super1"}, ms...), cassandra.ConsistencyLevel_ZERO))
	for _, sc := range superColumns {
		for _, k := range keys {
			expectSlice(t, k+"/"+sc.name, e.getItem(t, k, path("Super1", b(sc.name), nil)), "<missing>")
		}
	}
}

func TestBatchMutateRemoveSuperColumnsEntireRow(t *testing.T) {
	e := newEnv(t)
	keys := rowKeys("key_", 17, 21)
	for _, k := range keys {
		e.insertSuper(t, k)
	}
	must(t, e.c.BatchMutate(e.ctx, ks1, mutationMap(keys, []string{"Super1"}, deletion(20, nil, nil)), cassandra.ConsistencyLevel_ZERO))
	for _, sc := range superColumns {
		for _, k := range keys {
			expectSlice(t, k+"/"+sc.name, e.getItem(t, k, path("Super1", b(sc.name), nil)), "<missing>")
		}
	}
}

func TestBatchMutateInsertionsAndDeletions(t *testing.T) {
	e := newEnv(t)
	keys := []string{"key_30", "key_31"}
	for _, k := range keys {
		must(t, e.c.BatchInsert(e.ctx, ks1, k, map[string][]*cassandra.ColumnOrSuperColumn{
			"Super1": {scosc(b("sc1"), lcol(22, "value22", 0), lcol(23, "value23", 0))}}, one))
		must(t, e.c.BatchInsert(e.ctx, ks1, k, map[string][]*cassandra.ColumnOrSuperColumn{
			"Super2": {scosc(b("sc2"), lcol(22, "value22", 0), lcol(23, "value23", 0))}}, one))
	}
	insert := func() *cassandra.Mutation {
		return &cassandra.Mutation{ColumnOrSupercolumn: scosc(b("sc1"), lcol(20, "value20", 3), lcol(21, "value21", 3))}
	}
	doomed := &cassandra.SlicePredicate{ColumnNames: [][]byte{i64(22), i64(23)}}
	m := map[string]map[string][]*cassandra.Mutation{}
	for _, k := range keys {
		m[k] = map[string][]*cassandra.Mutation{
			"Super1": {insert(), deletion(3, b("sc1"), doomed)},
			"Super2": {deletion(2, b("sc2"), doomed), insert()},
		}
	}
	must(t, e.c.BatchMutate(e.ctx, ks1, m, one))
	for _, k := range keys {
		for _, c := range []int64{22, 23} {
			expectSlice(t, "Super1/sc1", e.getItem(t, k, path("Super1", b("sc1"), i64(c))), "<missing>")
			expectSlice(t, "Super2/sc2", e.getItem(t, k, path("Super2", b("sc2"), i64(c))), "<missing>")
		}
		for _, c := range []int64{20, 21} {
			for _, cf := range []string{"Super1", "Super2"} {
				if e.getItem(t, k, path(cf, b("sc1"), i64(c))) == "<missing>" {
					t.Errorf("%s %s/sc1/%d missing", k, cf, c)
				}
			}
		}
	}
}

func TestBatchMutateSuperDeletionByNames(t *testing.T) {
	e := newEnv(t)
	e.insertSuper(t, "test")
	// Without a super_column, the names of a Super CF deletion are super
	// column names.
	must(t, e.c.BatchMutate(e.ctx, ks1, map[string]map[string][]*cassandra.Mutation{
		"test": {"Super1": {deletion(1, nil, names("sc1"))}}}, one))
	expectSlice(t, "sc1", e.getItem(t, "test", path("Super1", b("sc1"), nil)), "<missing>")
	expectSlice(t, "sc2", e.bigSlice(t, "test", parent("Super1", nil)), coscString([]*cassandra.ColumnOrSuperColumn{
		scosc(b("sc2"), superColumns[1].cols...)}))
}

func TestBatchMutateColumnWinsOverSuperColumn(t *testing.T) {
	e := newEnv(t)
	// Validation checks both fields, so only a SuperColumn without
	// subcolumns gets through beside a Column of a standard CF.
	both := &cassandra.ColumnOrSuperColumn{Column: col("c1", "v", 5),
		SuperColumn: &cassandra.SuperColumn{Name: b("ignored"), Columns: []*cassandra.Column{}}}
	must(t, e.c.BatchMutate(e.ctx, ks1, map[string]map[string][]*cassandra.Mutation{
		"k": {"Standard1": {{ColumnOrSupercolumn: both}}}}, one))
	expectSlice(t, "row", e.bigSlice(t, "k", parent("Standard1", nil)), columnsString(col("c1", "v", 5)))
}

func TestBatchMutateTombstoneWinsTie(t *testing.T) {
	e := newEnv(t)
	must(t, e.c.BatchMutate(e.ctx, ks1, map[string]map[string][]*cassandra.Mutation{
		"k": {"Standard1": {
			{ColumnOrSupercolumn: cosc(col("c1", "v", 7))},
			deletion(7, nil, names("c1")),
		}}}, one))
	expectSlice(t, "c1", e.getItem(t, "k", path("Standard1", nil, b("c1"))), "<missing>")
}

// TestBatchMutateAppliesNothingOnError checks that an invalid mutation in
// any row means no row is written (spec 4.3).
func TestBatchMutateAppliesNothingOnError(t *testing.T) {
	e := newEnv(t)
	err := e.c.BatchMutate(e.ctx, ks1, map[string]map[string][]*cassandra.Mutation{
		"a": {"Standard1": {{ColumnOrSupercolumn: cosc(col("c1", "v", 1))}}},
		"z": {"Standard1": {{ColumnOrSupercolumn: cosc(col("", "v", 1))}}},
	}, one)
	if whyOf(err) != "column name must not be empty" {
		t.Fatalf("err = %v", err)
	}
	expectSlice(t, "row a", e.bigSlice(t, "a", parent("Standard1", nil)), "[]")
}

func TestColumnNameLengths(t *testing.T) {
	e := newEnv(t)
	for _, n := range []int{1, 127, 128, 129, 255, 256, 257, 65535} {
		must(t, e.c.Insert(e.ctx, ks1, "key1", path("Standard1", nil, long65535[:n]), b("value"), 0, one))
	}
	for _, name := range [][]byte{empty, long65536} {
		if err := e.c.Insert(e.ctx, ks1, "key1", path("Standard1", nil, name), b("value"), 0, one); err == nil {
			t.Errorf("insert of a %d-byte name succeeded", len(name))
		}
	}
}

func TestRemoveColumn(t *testing.T) {
	e := newEnv(t)
	e.insertSimple(t)
	must(t, e.c.Remove(e.ctx, ks1, "key1", path("Standard1", nil, b("c1")), 1, one))
	expectSlice(t, "c1", e.getItem(t, "key1", path("Standard1", nil, b("c1"))), "<missing>")
	expectSlice(t, "c2", e.getItem(t, "key1", path("Standard1", nil, b("c2"))), colString(col("c2", "value2", 0)))
	expectSlice(t, "row", e.bigSlice(t, "key1", parent("Standard1", nil)), columnsString(col("c2", "value2", 0)))

	must(t, e.c.Insert(e.ctx, ks1, "key1", path("Standard1", nil, b("c3")), b("value3"), 0, one))
	want := columnsString(col("c2", "value2", 0), col("c3", "value3", 0))
	expectSlice(t, "new insert", e.bigSlice(t, "key1", parent("Standard1", nil)), want)

	must(t, e.c.Insert(e.ctx, ks1, "key1", path("Standard1", nil, b("c1")), b("value1"), 0, one))
	expectSlice(t, "older insert stays removed", e.bigSlice(t, "key1", parent("Standard1", nil)), want)
	must(t, e.c.Insert(e.ctx, ks1, "key1", path("Standard1", nil, b("c1")), b("value1"), 2, one))
	expectSlice(t, "newer insert resurrects", e.bigSlice(t, "key1", parent("Standard1", nil)),
		columnsString(col("c1", "value1", 2), col("c2", "value2", 0), col("c3", "value3", 0)))
}

func TestRemoveColumnFamilyRow(t *testing.T) {
	e := newEnv(t)
	e.insertSimple(t)
	e.insertSuper(t, "key1")
	must(t, e.c.Remove(e.ctx, ks1, "key1", path("Standard1", nil, nil), 3, one))
	expectSlice(t, "Standard1", e.bigSlice(t, "key1", parent("Standard1", nil)), "[]")
	e.verifySuper(t, "Super1")

	must(t, e.c.Insert(e.ctx, ks1, "key1", path("Standard1", nil, b("c1")), b("value1"), 0, one))
	expectSlice(t, "older insert", e.bigSlice(t, "key1", parent("Standard1", nil)), "[]")
	must(t, e.c.Insert(e.ctx, ks1, "key1", path("Standard1", nil, b("c1")), b("value1"), 4, one))
	expectSlice(t, "newer insert", e.bigSlice(t, "key1", parent("Standard1", nil)), columnsString(col("c1", "value1", 4)))

	must(t, e.c.Remove(e.ctx, ks1, "key1", path("Super1", nil, nil), 3, one))
	expectSlice(t, "Super1", e.bigSlice(t, "key1", parent("Super1", nil)), "[]")
	expectSlice(t, "Super1/sc1", e.bigSlice(t, "key1", parent("Super1", b("sc1"))), "[]")
}

func TestRemoveSubcolumn(t *testing.T) {
	e := newEnv(t)
	e.insertSimple(t)
	e.insertSuper(t, "key1")
	must(t, e.c.Remove(e.ctx, ks1, "key1", path("Super1", b("sc2"), i64(5)), 5, one))
	expectSlice(t, "sc2/5", e.getItem(t, "key1", path("Super1", b("sc2"), i64(5))), "<missing>")
	expectSlice(t, "after remove", e.bigSlice(t, "key1", parent("Super1", nil)), coscString([]*cassandra.ColumnOrSuperColumn{
		scosc(b("sc1"), lcol(4, "value4", 0)), scosc(b("sc2"), lcol(6, "value6", 0))}))
	e.verifySimple(t)

	must(t, e.c.Insert(e.ctx, ks1, "key1", path("Super1", b("sc2"), i64(7)), b("value7"), 0, one))
	want := coscString([]*cassandra.ColumnOrSuperColumn{
		scosc(b("sc1"), lcol(4, "value4", 0)), scosc(b("sc2"), lcol(6, "value6", 0), lcol(7, "value7", 0))})
	expectSlice(t, "new subcolumn", e.bigSlice(t, "key1", parent("Super1", nil)), want)

	must(t, e.c.Insert(e.ctx, ks1, "key1", path("Super1", b("sc2"), i64(5)), b("value5"), 0, one))
	expectSlice(t, "older insert", e.bigSlice(t, "key1", parent("Super1", nil)), want)
	must(t, e.c.Insert(e.ctx, ks1, "key1", path("Super1", b("sc2"), i64(5)), b("value5"), 6, one))
	expectSlice(t, "newer insert", e.bigSlice(t, "key1", parent("Super1", nil)), coscString([]*cassandra.ColumnOrSuperColumn{
		scosc(b("sc1"), lcol(4, "value4", 0)),
		scosc(b("sc2"), lcol(5, "value5", 6), lcol(6, "value6", 0), lcol(7, "value7", 0))}))
}

func TestRemoveSuperColumn(t *testing.T) {
	e := newEnv(t)
	e.insertSimple(t)
	e.insertSuper(t, "key1")
	must(t, e.c.Remove(e.ctx, ks1, "key1", path("Super1", b("sc2"), nil), 5, one))
	expectSlice(t, "sc2/5", e.getItem(t, "key1", path("Super1", b("sc2"), i64(5))), "<missing>")
	expectSlice(t, "sc2", e.bigSlice(t, "key1", parent("Super1", b("sc2"))), "[]")
	want := coscString([]*cassandra.ColumnOrSuperColumn{scosc(b("sc1"), lcol(4, "value4", 0))})
	expectSlice(t, "after remove", e.bigSlice(t, "key1", parent("Super1", nil)), want)
	e.verifySimple(t)

	must(t, e.c.Insert(e.ctx, ks1, "key1", path("Super1", b("sc2"), i64(5)), b("value5"), 1, one))
	expectSlice(t, "older insert", e.bigSlice(t, "key1", parent("Super1", nil)), want)
	must(t, e.c.Insert(e.ctx, ks1, "key1", path("Super1", b("sc2"), i64(5)), b("value5"), 6, one))
	expectSlice(t, "newer insert", e.bigSlice(t, "key1", parent("Super1", nil)), coscString([]*cassandra.ColumnOrSuperColumn{
		scosc(b("sc1"), lcol(4, "value4", 0)), scosc(b("sc2"), lcol(5, "value5", 6))}))
	expectSlice(t, "subcolumns", e.bigSlice(t, "key1", parent("Super1", b("sc2"))), columnsString(lcol(5, "value5", 6)))
}

func TestSuperColumnResurrectSubcolumn(t *testing.T) {
	e := newEnv(t)
	must(t, e.c.Insert(e.ctx, ks1, "vijay", path("Super1", b("sc1"), i64(4)), b("value4"), 0, one))
	must(t, e.c.Remove(e.ctx, ks1, "vijay", path("Super1", b("sc1"), nil), 1, one))
	must(t, e.c.Insert(e.ctx, ks1, "vijay", path("Super1", b("sc1"), i64(4)), b("value4"), 2, one))
	expectSlice(t, "sc1", e.getItem(t, "vijay", path("Super1", b("sc1"), nil)), superString("sc1", lcol(4, "value4", 2)))
}

func TestGetSliceRange(t *testing.T) {
	e := newEnv(t)
	for i, c := range []string{"c1", "c2", "c3"} {
		must(t, e.c.Insert(e.ctx, ks1, "key1", path("Standard1", nil, b(c)), b(fmt.Sprintf("value%d", i+1)), 0, one))
	}
	cp := parent("Standard1", nil)
	nameList := func(items []*cassandra.ColumnOrSuperColumn) string {
		var s string
		for _, it := range items {
			s += string(it.Column.Name) + " "
		}
		return s
	}
	for _, tt := range []struct {
		pred *cassandra.SlicePredicate
		want string
	}{
		{sliceRange(b("c1"), b("c2"), false, 1000), "c1 c2 "},
		{sliceRange(b("c3"), b("c2"), true, 1000), "c3 c2 "},
		{sliceRange(b("a"), b("z"), false, 1000), "c1 c2 c3 "},
		{sliceRange(b("a"), b("z"), false, 2), "c1 c2 "},
		{sliceRange(nil, nil, true, 1000), "c3 c2 c1 "},
		{sliceRange(nil, nil, false, 0), ""},
		{names("c3", "c1", "c1", "zz"), "c1 c3 "},
	} {
		expectSlice(t, "slice", nameList(e.slice(t, ks1, "key1", cp, tt.pred)), tt.want)
	}
}

func TestGetSliceSuperRange(t *testing.T) {
	e := newEnv(t)
	e.insertSuper(t, "key1")
	must(t, e.c.Insert(e.ctx, ks1, "key1", path("Super1", b("sc3"), i64(7)), b("value7"), 0, one))
	cp := parent("Super1", nil)
	expectSlice(t, "forward", coscString(e.slice(t, ks1, "key1", cp, sliceRange(b("sc2"), b("sc3"), false, 2))),
		coscString([]*cassandra.ColumnOrSuperColumn{scosc(b("sc2"), superColumns[1].cols...), scosc(b("sc3"), lcol(7, "value7", 0))}))
	// Reversed reverses the super columns, never their subcolumns.
	expectSlice(t, "reversed", coscString(e.slice(t, ks1, "key1", cp, sliceRange(b("sc3"), b("sc2"), true, 2))),
		coscString([]*cassandra.ColumnOrSuperColumn{scosc(b("sc3"), lcol(7, "value7", 0)), scosc(b("sc2"), superColumns[1].cols...)}))
}

func TestGetSliceByNames(t *testing.T) {
	e := newEnv(t)
	e.insertSimple(t)
	expectSlice(t, "standard", coscString(e.slice(t, ks1, "key1", parent("Standard1", nil), names("c1", "c2"))), columnsString(simpleColumns...))
	e.insertSuper(t, "key1")
	expectSlice(t, "subcolumns", coscString(e.slice(t, ks1, "key1", parent("Super1", b("sc1")),
		&cassandra.SlicePredicate{ColumnNames: [][]byte{i64(4)}})), columnsString(lcol(4, "value4", 0)))
	expectSlice(t, "super columns", coscString(e.slice(t, ks1, "key1", parent("Super1", nil), names("sc2", "nope"))),
		coscString([]*cassandra.ColumnOrSuperColumn{scosc(b("sc2"), superColumns[1].cols...)}))
}

func TestMultiget(t *testing.T) {
	e := newEnv(t)
	keys := rowKeys("key", 1, 11)
	e.insertSimple(t, keys...)
	rows, err := e.c.Multiget(e.ctx, ks1, append(keys, "missing", "key1"), path("Standard1", nil, b("c1")), one)
	must(t, err)
	if len(rows) != len(keys)+1 {
		t.Errorf("got %d rows, want %d", len(rows), len(keys)+1)
	}
	for _, k := range keys {
		expectSlice(t, k, itemString(rows[k]), colString(col("c1", "value1", 0)))
	}
	r, ok := rows["missing"]
	if !ok || r == nil || r.Column != nil || r.SuperColumn != nil {
		t.Errorf("missing key: got %v, present %v; want an empty ColumnOrSuperColumn", r, ok)
	}
	if rows, err := e.c.Multiget(e.ctx, ks1, nil, path("Standard1", nil, b("c1")), one); err != nil || len(rows) != 0 {
		t.Errorf("no keys: %v, %v", rows, err)
	}
}

func TestMultigetSlice(t *testing.T) {
	e := newEnv(t)
	keys := rowKeys("key", 1, 11)
	e.insertSimple(t, keys...)
	rows, err := e.c.MultigetSlice(e.ctx, ks1, append(keys, "missing"), parent("Standard1", nil), all(), one)
	must(t, err)
	for _, k := range keys {
		expectSlice(t, k, coscString(rows[k]), columnsString(simpleColumns...))
	}
	if r, ok := rows["missing"]; !ok || r == nil || len(r) != 0 {
		t.Errorf("missing key: %v, present %v; want an empty list", r, ok)
	}
}

func TestGetNotFound(t *testing.T) {
	e := newEnv(t)
	e.insertSuper(t, "key1")
	must(t, e.c.Remove(e.ctx, ks1, "key1", path("Super1", b("sc1"), i64(4)), 1, one))
	for _, tt := range []struct {
		name string
		p    *cassandra.ColumnPath
	}{
		{"absent row", path("Standard1", nil, b("c1"))},
		{"super column with no live subcolumns", path("Super1", b("sc1"), nil)},
		{"deleted subcolumn", path("Super1", b("sc1"), i64(4))},
	} {
		r, err := e.c.Get(e.ctx, ks1, "key1", tt.p, one)
		if _, ok := err.(*cassandra.NotFoundException); !ok {
			t.Errorf("%s: got %v, %v; want NotFoundException", tt.name, r, err)
		}
	}
}

// TestInsertSuperColumnSubcolumnsMerge checks that writing a SuperColumn
// adds subcolumns without removing the others (spec 5.9).
func TestInsertSuperColumnSubcolumnsMerge(t *testing.T) {
	e := newEnv(t)
	must(t, e.c.BatchInsert(e.ctx, ks1, "k", map[string][]*cassandra.ColumnOrSuperColumn{"Super1": {scosc(b("sc"), lcol(1, "a", 0))}}, one))
	must(t, e.c.BatchInsert(e.ctx, ks1, "k", map[string][]*cassandra.ColumnOrSuperColumn{"Super1": {scosc(b("sc"), lcol(2, "b", 0))}}, one))
	expectSlice(t, "sc", e.getItem(t, "k", path("Super1", b("sc"), nil)), superString("sc", lcol(1, "a", 0), lcol(2, "b", 0)))
}

// TestInvalidUTF8Key checks that keys are the strings Java decoded: a key
// with invalid UTF-8 names the same row as the key with U+FFFD in its
// place, and is returned that way.
func TestInvalidUTF8Key(t *testing.T) {
	e := newEnv(t)
	must(t, e.c.Insert(e.ctx, ks1, "a\xffb", path("Standard1", nil, b("c")), b("v"), 0, one))
	expectSlice(t, "by replacement", e.getItem(t, "a\uFFFDb", path("Standard1", nil, b("c"))), colString(col("c", "v", 0)))
	rows, err := e.c.MultigetSlice(e.ctx, ks1, []string{"a\xffb"}, parent("Standard1", nil), all(), one)
	must(t, err)
	if _, ok := rows["a\uFFFDb"]; !ok || len(rows) != 1 {
		t.Errorf("multiget_slice keys = %v, want the decoded key", rows)
	}
}
