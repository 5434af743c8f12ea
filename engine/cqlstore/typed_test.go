package cqlstore

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
	"github.com/thriftd/thriftd/schema"
)

// columnTypes reads a table's columns as CQL describes them: name type
// kind [order], sorted by name.
func columnTypes(t *testing.T, s *gocql.Session, ks, table string) string {
	t.Helper()
	iter := s.Query(`SELECT column_name, type, kind, clustering_order FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?`, ks, table).Iter()
	var name, typ, kind, order string
	var out []string
	for iter.Scan(&name, &typ, &kind, &order) {
		col := name + " " + typ + " " + kind
		if order != "none" {
			col += " " + order
		}
		out = append(out, col)
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, ", ")
}

// expectColumns checks the columns of keyspace ks's tables (columnTypes).
func expectColumns(t *testing.T, s *gocql.Session, ks string, want map[string]string) {
	t.Helper()
	for table, w := range want {
		if got := columnTypes(t, s, ks, table); got != w {
			t.Errorf("%s: columns\n %s\nwant\n %s", table, got, w)
		}
	}
}

// TestTypedLayoutReadByCQL creates 19.x column families through
// ChangeSchema, writes through the store and reads the same rows with
// plain CQL in their CQL types, then writes with plain CQL and reads
// through the store.
func TestTypedLayoutReadByCQL(t *testing.T) {
	base := storetest.TestSchema(t, "RandomPartitioner")
	st, o := openFresh(t, base, 864000)
	sup := dynamic(t, "Sup", "BytesType", "UTF8Type", "BytesType")
	sup.Super, sup.SubComparator = true, cmp(t, "LongType")
	next := with19(base, "T",
		dynamic(t, "Utf8Long", "UTF8Type", "UTF8Type", "LongType"),
		dynamic(t, "LongBytes", "LongType", "LongType", "BytesType"),
		dynamic(t, "Lex", "BytesType", "LexicalUUIDType", "AsciiType"),
		dynamic(t, "Time", "AsciiType", "TimeUUIDType", "UTF8Type"),
		sup)
	change(t, st, next, "1")
	ks := keyspaceName(o.Prefix, "T")
	expectColumns(t, st.session, ks, map[string]string{
		"Utf8Long":  "column1 text clustering asc, ghost blob static, key text partition_key, value bigint regular, written_ttl int regular",
		"LongBytes": "column1 bigint clustering asc, ghost blob static, key bigint partition_key, value blob regular, written_ttl int regular",
		"Lex":       "column1 'org.apache.cassandra.db.marshal.LexicalUUIDType' clustering asc, ghost blob static, key blob partition_key, value ascii regular, written_ttl int regular",
		"Time":      "column1 blob clustering asc, ghost blob static, key ascii partition_key, value text regular, written_ttl int regular",
		"Sup":       "column1 blob clustering asc, ghost blob static, key blob partition_key, super_column blob clustering asc, value blob regular",
	})

	ctx := context.Background()
	put := func(cf, key string, name, value []byte, ts int64, ttl int32) {
		t.Helper()
		apply(t, st, "T", engine.RowMutation{Key: key, Mutations: []engine.Mutation{
			{ColumnFamily: cf, Name: name, Value: value, Timestamp: ts, TTL: ttl}}})
	}
	// Through the store, read by CQL.
	put("Utf8Long", "row é", []byte("b"), storetest.Long(-5), 10, 0)
	put("Utf8Long", "row é", []byte("a"), storetest.Long(7), 11, 3600)
	iter := st.session.Query(`SELECT key, column1, value, writetime(value), ttl(value) FROM ` + quote(ks) + `."Utf8Long"`).Iter()
	var got []string
	var key, name string
	var value, wt int64
	var ttl *int
	for iter.Scan(&key, &name, &value, &wt, &ttl) {
		line := fmt.Sprintf("%s/%s=%d@%d", key, name, value, wt)
		if ttl != nil && *ttl > 3500 && *ttl <= 3600 {
			line += " ttl"
		}
		got = append(got, line)
		ttl = nil
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if g := strings.Join(got, " "); g != "row é/a=7@11 ttl row é/b=-5@10" {
		t.Errorf("CQL reads %q", g)
	}

	// LongType names in signed order, written by CQL, read by the store.
	for i, n := range []int64{5, -3, 1 << 40, -(1 << 40), 0} {
		err := st.session.Query(`INSERT INTO `+quote(ks)+`."LongBytes" (key, column1, value) VALUES (?, ?, ?) USING TIMESTAMP ?`,
			int64(42), n, []byte(fmt.Sprint("v", n)), int64(100+i)).Exec()
		if err != nil {
			t.Fatal(err)
		}
	}
	rowKey := string(storetest.Long(42))
	read := func(p engine.Predicate) string {
		t.Helper()
		row, err := st.Get(ctx, "T", rowKey, engine.Query{ColumnFamily: "LongBytes", Predicate: p})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range row.Columns {
			out = append(out, fmt.Sprintf("%d=%s@%d", int64(beUint64(c.Name)), c.Value, c.Timestamp))
		}
		return strings.Join(out, " ")
	}
	if g := read(storetest.All(10)); g != "-1099511627776=v-1099511627776@103 -3=v-3@101 0=v0@104 5=v5@100 1099511627776=v1099511627776@102" {
		t.Errorf("the store reads %q", g)
	}
	if g := read(engine.Predicate{Start: storetest.Long(5), Finish: storetest.Long(-3), Reversed: true, Count: 10}); g != "5=v5@100 0=v0@104 -3=v-3@101" {
		t.Errorf("reversed slice: %q", g)
	}
	if g := read(engine.Predicate{Names: [][]byte{storetest.Long(0), storetest.Long(-3), storetest.Long(9)}}); g != "-3=v-3@101 0=v0@104" {
		t.Errorf("names: %q", g)
	}
	n, err := st.Count(ctx, "T", rowKey, "LongBytes", nil)
	if err != nil || n != 5 {
		t.Errorf("count %d, %v", n, err)
	}
	// A range read walks the typed keys.
	rows, err := st.Range(ctx, "T", engine.TokenRange{}, engine.Query{ColumnFamily: "LongBytes", Predicate: storetest.All(1)}, 10)
	if err != nil || len(rows) != 1 || rows[0].Key != rowKey || len(rows[0].Columns) != 1 {
		t.Errorf("range: %+v, %v", rows, err)
	}

	// LexicalUUIDType names by CQL's custom type; TimeUUIDType names as
	// encoded blobs; both read back through the store in order.
	lo := []byte{0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1} // negative msb: first
	hi := []byte{0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}
	put("Lex", "k", hi, []byte("high"), 1, 0)
	put("Lex", "k", lo, []byte("low"), 1, 0)
	var lex []string
	iter = st.session.Query(`SELECT column1, value FROM `+quote(ks)+`."Lex" WHERE key = ?`, []byte("k")).Iter()
	var lexName raw
	var lexValue string
	for iter.Scan(&lexName, &lexValue) {
		lex = append(lex, fmt.Sprintf("%x=%s", []byte(lexName), lexValue))
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if g := strings.Join(lex, " "); g != fmt.Sprintf("%x=low %x=high", lo, hi) {
		t.Errorf("CQL reads Lex %q", g)
	}
	u1 := []byte{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x11, 0x08, 0x80, 0x00, 0x80, 0, 0, 0, 0, 0}
	u2 := []byte{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x11, 0x08, 0x80, 0x00, 0x00, 0, 0, 0, 0, 0}
	put("Time", "k", u1, []byte("one"), 1, 0)
	put("Time", "k", u2, []byte("two"), 1, 0)
	row, err := st.Get(ctx, "T", "k", engine.Query{ColumnFamily: "Time", Predicate: storetest.All(10)})
	if err != nil {
		t.Fatal(err)
	}
	if len(row.Columns) != 2 || string(row.Columns[0].Value) != "two" || string(row.Columns[1].Value) != "one" {
		t.Errorf("Time reads %+v", row.Columns)
	}
	var v string
	if err := st.session.Query(`SELECT value FROM ` + quote(ks) + `."Time" WHERE key = 'k' LIMIT 1`).Scan(&v); err != nil || v != "two" {
		t.Errorf("CQL reads Time's value %q, %v", v, err)
	}

	// A super family keeps the 0.6 layout, and works.
	apply(t, st, "T", engine.RowMutation{Key: "k", Mutations: []engine.Mutation{
		{ColumnFamily: "Sup", SuperColumn: []byte("sc"), Name: storetest.Long(1), Value: []byte("x"), Timestamp: 1}}})
	row, err = st.Get(ctx, "T", "k", engine.Query{ColumnFamily: "Sup", Predicate: storetest.All(10)})
	if err != nil || len(row.SuperColumns) != 1 || len(row.SuperColumns[0].Columns) != 1 {
		t.Errorf("super: %+v, %v", row, err)
	}

	// A second store opened on the prefix serves each family in the
	// layout its table has.
	other := openAnother(t, base, o)
	change(t, other, next, "1")
	if g := func() string {
		row, err := other.Get(ctx, "T", rowKey, engine.Query{ColumnFamily: "LongBytes", Predicate: storetest.All(2)})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%d", len(row.Columns))
	}(); g != "2" {
		t.Errorf("the second store reads %s columns", g)
	}
}

func beUint64(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}

// expectRangeGhost checks that a range read of ks.cf lists key with no
// columns.
func expectRangeGhost(t *testing.T, st *Store, ks, cf, key string) {
	t.Helper()
	rows, err := st.Range(context.Background(), ks, engine.TokenRange{}, engine.Query{ColumnFamily: cf, Predicate: storetest.All(10)}, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Key == key && len(r.Columns) == 0 {
			return
		}
	}
	t.Errorf("%s.%s: no range ghost %q: %+v", ks, cf, key, rows)
}

// TestTypedGaps: on a 19.x table an expiring column answers the TTL it
// was written with (one reaching past 2038 too, its cell capped), a row
// whose columns were all deleted stays in range reads, a declared
// column's value of another type than the default validator's is stored
// (value is a blob), and a table of the earlier layout (no ghost, no
// written_ttl) is still served.
func TestTypedGaps(t *testing.T) {
	base := storetest.TestSchema(t, "RandomPartitioner")
	st, o := openFresh(t, base, 864000)
	mixed := dynamic(t, "Mixed", "UTF8Type", "UTF8Type", "LongType")
	mixed.Columns = []schema.ColumnDef{{Name: []byte("raw"), Validator: cmp(t, "BytesType")}}
	next := with19(base, "G", dynamic(t, "Plain", "UTF8Type", "UTF8Type", "UTF8Type"), mixed,
		dynamic(t, "Old", "UTF8Type", "UTF8Type", "UTF8Type"))
	change(t, st, next, "1")
	ks := keyspaceName(o.Prefix, "G")
	if got, want := columnTypes(t, st.session, ks, "Mixed"), "column1 text clustering asc, ghost blob static, key text partition_key, value blob regular, written_ttl int regular"; got != want {
		t.Errorf("Mixed: columns\n %s\nwant\n %s", got, want)
	}
	ctx := context.Background()
	apply(t, st, "G", engine.RowMutation{Key: "k", Mutations: []engine.Mutation{
		{ColumnFamily: "Plain", Name: []byte("a"), Value: []byte("x"), Timestamp: 1, TTL: 100},
		{ColumnFamily: "Plain", Name: []byte("b"), Value: []byte("y"), Timestamp: 1, TTL: maxTTL},
		{ColumnFamily: "Plain", Name: []byte("c"), Value: []byte("z"), Timestamp: 1}}})
	row, err := st.Get(ctx, "G", "k", engine.Query{ColumnFamily: "Plain", Predicate: storetest.All(10)})
	if err != nil {
		t.Fatal(err)
	}
	var ttls []string
	for _, c := range row.Columns {
		ttls = append(ttls, fmt.Sprintf("%s:%d", c.Name, c.TTL))
		if c.TTL > 0 && (c.ExpiresAt <= time.Now().Unix() || c.ExpiresAt > maxExpiry) {
			t.Errorf("%s expires at %d", c.Name, c.ExpiresAt)
		}
	}
	if g := strings.Join(ttls, " "); g != fmt.Sprintf("a:100 b:%d c:0", maxTTL) {
		t.Errorf("TTLs read %q", g)
	}

	// A range ghost.
	apply(t, st, "G", engine.RowMutation{Key: "gone", Mutations: []engine.Mutation{
		{ColumnFamily: "Plain", Name: []byte("a"), Value: []byte("x"), Timestamp: 1}}})
	apply(t, st, "G", engine.RowMutation{Key: "gone", Mutations: []engine.Mutation{
		{ColumnFamily: "Plain", Delete: true, Timestamp: 2}}})
	expectRangeGhost(t, st, "G", "Plain", "gone")

	// A declared BytesType column beside LongType values.
	apply(t, st, "G", engine.RowMutation{Key: "k", Mutations: []engine.Mutation{
		{ColumnFamily: "Mixed", Name: []byte("raw"), Value: []byte("abc"), Timestamp: 1},
		{ColumnFamily: "Mixed", Name: []byte("n"), Value: storetest.Long(3), Timestamp: 1}}})
	row, err = st.Get(ctx, "G", "k", engine.Query{ColumnFamily: "Mixed", Predicate: storetest.All(10)})
	if err != nil || len(row.Columns) != 2 || string(row.Columns[1].Value) != "abc" {
		t.Errorf("Mixed reads %+v, %v", row, err)
	}

	// A table of the earlier layout, served by a store opened on it.
	for _, q := range []string{`DROP TABLE ` + quote(ks) + `."Old"`,
		`CREATE TABLE ` + quote(ks) + `."Old" (key text, column1 text, value text, PRIMARY KEY (key, column1))`} {
		if err := st.session.Query(q).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	other := openAnother(t, base, o)
	change(t, other, next, "1")
	apply(t, other, "G", engine.RowMutation{Key: "k", Mutations: []engine.Mutation{
		{ColumnFamily: "Old", Name: []byte("a"), Value: []byte("x"), Timestamp: 1, TTL: 100}}})
	row, err = other.Get(ctx, "G", "k", engine.Query{ColumnFamily: "Old", Predicate: storetest.All(10)})
	if err != nil || len(row.Columns) != 1 || row.Columns[0].TTL <= 0 || row.Columns[0].TTL > 100 {
		t.Errorf("Old reads %+v, %v", row, err)
	}
}

// TestBlobValueAddedLater: a typed table whose family is given a
// validator of another CQL type by a later schema change gets blob_value;
// a process following the change serves it even before the column is
// there, and a table left without it (by an earlier thriftd) gets it at
// start. Values of both columns are read back byte for byte, the later
// write of a name winning.
func TestBlobValueAddedLater(t *testing.T) {
	base := storetest.TestSchema(t, "RandomPartitioner")
	st, o := openFresh(t, base, 864000)
	fam := dynamic(t, "Late", "UTF8Type", "UTF8Type", "LongType")
	first := with19(base, "V", fam)
	change(t, st, first, "1")
	follower := openAnother(t, base, o)
	ctx := context.Background()
	if err := follower.FollowSchema(ctx, first); err != nil {
		t.Fatal(err)
	}
	put := func(st *Store, name string, value []byte, ts int64) {
		t.Helper()
		apply(t, st, "V", engine.RowMutation{Key: "k", Mutations: []engine.Mutation{{ColumnFamily: "Late", Name: []byte(name), Value: value, Timestamp: ts}}})
	}
	read := func(st *Store) string {
		t.Helper()
		row, err := st.Get(ctx, "V", "k", engine.Query{ColumnFamily: "Late", Predicate: storetest.All(10)})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range row.Columns {
			out = append(out, fmt.Sprintf("%s=%x@%d", c.Name, c.Value, c.Timestamp))
		}
		return strings.Join(out, " ")
	}
	put(st, "n", storetest.Long(1), 1)
	put(st, "u", storetest.Long(2), 2)
	declared := *fam
	declared.Columns = []schema.ColumnDef{{Name: []byte("u"), Validator: cmp(t, "BytesType")}}
	next := with19(base, "V", &declared)
	// The follower reads the change before the table has the column.
	if err := follower.FollowSchema(ctx, next); err != nil {
		t.Fatal(err)
	}
	change(t, st, next, "2")
	ks := keyspaceName(o.Prefix, "V")
	expectColumns(t, st.session, ks, map[string]string{
		"Late": "blob_value blob regular, column1 text clustering asc, ghost blob static, key text partition_key, value bigint regular, written_ttl int regular",
	})
	put(follower, "u", []byte("sixteen bytes!!!"), 1) // older than the LongType value
	if g, w := read(st), "n=0000000000000001@1 u=0000000000000002@2"; g != w {
		t.Errorf("after an older write of u: %s, want %s", g, w)
	}
	put(follower, "u", []byte("three"), 3)
	for _, s := range []*Store{st, follower} {
		if g, w := read(s), "n=0000000000000001@1 u=7468726565@3"; g != w {
			t.Errorf("after a later write of u: %s, want %s", g, w)
		}
	}
	// A table left without blob_value gets it when a store opens. (The
	// cluster hides cells of a column dropped and added again that are
	// older than the drop: the write after it is timestamped now.)
	if err := st.session.Query(`ALTER TABLE ` + quote(ks) + `."Late" DROP blob_value`).Exec(); err != nil {
		t.Fatal(err)
	}
	restarted := openAnother(t, next, o)
	now := time.Now().UnixMicro() + 1_000_000
	put(restarted, "u", []byte("again"), now)
	if g, w := read(restarted), fmt.Sprintf("n=0000000000000001@1 u=616761696e@%d", now); g != w {
		t.Errorf("after a restart: %s, want %s", g, w)
	}
}
