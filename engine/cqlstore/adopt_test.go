package cqlstore

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
	"github.com/thriftd/thriftd/internal/testenv"
)

// adoptKeyspace creates a fresh keyspace (under a test prefix, dropped at
// the end) holding tables made with CQL, as an application or an upgrade
// left them, and returns a session and its name.
func adoptKeyspace(t *testing.T, tables ...string) (*gocql.Session, string) {
	t.Helper()
	c := Cluster{Hosts: strings.Split(testenv.Cassandra(t, "org.apache.cassandra.dht.RandomPartitioner"), ","), Timeout: 20 * time.Second}
	s, err := c.Connect()
	if err != nil {
		t.Fatal(err)
	}
	prefix := testenv.CassandraPrefix(t)
	ks := prefix + "legacy"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.Query(`CREATE KEYSPACE ` + ks + ` WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`).WithContext(ctx).Exec(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := DropPrefix(ctx, c, prefix); err != nil {
			t.Errorf("drop prefix %s: %v", prefix, err)
		}
		s.Close()
	})
	for _, stmt := range tables {
		if err := s.Query(strings.ReplaceAll(stmt, "KS.", ks+".")).WithContext(ctx).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	return s, ks
}

// openAdopting opens a store on the test schema adopting keyspace ks,
// closed (and its prefix dropped) at the end, with a context for its
// calls.
func openAdopting(t *testing.T, ks string) (*Store, context.Context) {
	t.Helper()
	base := storetest.TestSchema(t, "RandomPartitioner")
	o := Options{Cluster: cluster(t, base), Prefix: testenv.CassandraPrefix(t), GCGraceSeconds: 864000, Adopt: []string{ks}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	st, err := Open(ctx, base, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		st.Close()
		if _, err := DropPrefix(context.Background(), o.Cluster, o.Prefix); err != nil {
			t.Errorf("drop prefix: %v", err)
		}
	})
	return st, ctx
}

// Each shape DROP COMPACT STORAGE leaves, created with CQL on a real
// Cassandra 5 node, is described as the column family a 1.2 client saw;
// every other table is listed with its reason.
func TestInspectShapesOnTheCluster(t *testing.T) {
	s, ks := adoptKeyspace(t,
		`CREATE TABLE KS.dyn (key blob, column1 text, value bigint, PRIMARY KEY (key, column1))`,
		`CREATE TABLE KS.rev (key text, column1 timeuuid, value blob, PRIMARY KEY (key, column1)) WITH CLUSTERING ORDER BY (column1 DESC)`,
		`CREATE TABLE KS.comp (key bigint, column1 text, column2 int, value text, PRIMARY KEY (key, column1, column2)) WITH CLUSTERING ORDER BY (column1 ASC, column2 DESC)`,
		`CREATE TABLE KS.stat (key uuid, column1 text, value blob, name text static, age int static, PRIMARY KEY (key, column1))`,
		`CREATE TABLE KS.cnt (key blob, column1 blob, value counter, PRIMARY KEY (key, column1))`,
		`CREATE TABLE KS.lex (key blob, column1 'org.apache.cassandra.db.marshal.LexicalUUIDType', value 'org.apache.cassandra.db.marshal.LexicalUUIDType', PRIMARY KEY (key, column1))`,
		`CREATE TABLE KS.users (id uuid PRIMARY KEY, name text, email text)`,
		`CREATE TABLE KS.wide (key blob, column1 blob, a int, b int, PRIMARY KEY (key, column1))`,
		`CREATE TABLE KS.coll (key blob, column1 blob, value list<int>, PRIMARY KEY (key, column1))`,
		`CREATE TABLE KS.pk2 (a int, b int, column1 blob, value blob, PRIMARY KEY ((a, b), column1))`,
		`CREATE TABLE KS.newtype (key blob, column1 date, value blob, PRIMARY KEY (key, column1))`,
	)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got, err := InspectKeyspace(ctx, s, ks)
	if err != nil {
		t.Fatal(err)
	}
	const m = "org.apache.cassandra.db.marshal."
	type want struct {
		shape, comparator, key, validator, columns, reason string
	}
	wants := map[string]want{
		"dyn":     {ShapeDynamic, m + "UTF8Type", m + "BytesType", m + "LongType", "", ""},
		"rev":     {ShapeDynamic, m + "ReversedType(" + m + "TimeUUIDType)", m + "UTF8Type", m + "BytesType", "", ""},
		"comp":    {ShapeComposite, m + "CompositeType(" + m + "UTF8Type," + m + "ReversedType(" + m + "Int32Type))", m + "LongType", m + "UTF8Type", "", ""},
		"stat":    {ShapeStatic, m + "UTF8Type", m + "UUIDType", m + "BytesType", "age=" + m + "Int32Type name=" + m + "UTF8Type", ""},
		"cnt":     {ShapeCounter, m + "BytesType", m + "BytesType", m + "CounterColumnType", "", ""},
		"lex":     {ShapeDynamic, m + "LexicalUUIDType", m + "BytesType", m + "LexicalUUIDType", "", ""},
		"users":   {reason: "no clustering column"},
		"wide":    {reason: "2 regular columns"},
		"coll":    {reason: "collection"},
		"pk2":     {reason: "partition key has 2 columns"},
		"newtype": {reason: "after Cassandra 2.1"},
	}
	if len(got) != len(wants) {
		t.Fatalf("got %d tables, want %d: %+v", len(got), len(wants), got)
	}
	for _, g := range got {
		w, ok := wants[g.Name]
		if !ok {
			t.Errorf("unexpected table %s", g.Name)
			continue
		}
		if w.reason != "" {
			if g.Servable() || !strings.Contains(g.Reason, w.reason) {
				t.Errorf("%s: servable %v, reason %q; want refused with %q", g.Name, g.Servable(), g.Reason, w.reason)
			}
			continue
		}
		if !g.Servable() || g.Family == nil {
			t.Errorf("%s: not served: %q", g.Name, g.Reason)
			continue
		}
		f := g.Family
		var cols []string
		for _, c := range f.Columns {
			cols = append(cols, string(c.Name)+"="+c.Validator.Name())
		}
		if g.Shape != w.shape || f.Comparator.Name() != w.comparator || f.KeyValidator.Name() != w.key ||
			f.DefaultValidator.Name() != w.validator || strings.Join(cols, " ") != w.columns {
			t.Errorf("%s: shape %s comparator %s key %s validator %s columns %q;\nwant %s %s %s %s %q",
				g.Name, g.Shape, f.Comparator.Name(), f.KeyValidator.Name(), f.DefaultValidator.Name(), strings.Join(cols, " "),
				w.shape, w.comparator, w.key, w.validator, w.columns)
		}
	}
}

// Cassandra 5 refuses to create the super column family's shape (a map
// column named ""), so no table of that shape can reach it but one an
// upgrade from 3.11 carried over; the shape is classified all the same.
func TestSuperShapeOnTheCluster(t *testing.T) {
	s, ks := adoptKeyspace(t)
	err := s.Query(`CREATE TABLE ` + ks + `.sup (key blob, column1 blob, "" map<blob, bigint>, PRIMARY KEY (key, column1))`).Exec()
	if err == nil {
		t.Fatalf("Cassandra 5 created a column named \"\"; docs/cassandra.md says it refuses")
	}
	t.Logf("Cassandra 5 refuses the super shape: %v", err)
	got := classifyTable("ks", "sup", tableInfo{}, []cqlColumn{
		{name: "key", kind: "partition_key", typ: "blob"},
		{name: "column1", kind: "clustering", order: "asc", typ: "text"},
		{name: "", kind: "regular", typ: "map<bigint, blob>"},
	})
	if got.Family == nil || got.Shape != ShapeSuper || !got.Family.Super ||
		got.Family.SubComparator.Name() != "org.apache.cassandra.db.marshal.LongType" {
		t.Fatalf("super shape: %+v", got)
	}
}

// A table still compact (flags dense or super) is refused with the
// statement that makes it servable.
func TestInspectRefusesCompactStorage(t *testing.T) {
	got := classifyTable("ks", "old", tableInfo{flags: []string{"dense"}}, []cqlColumn{
		{name: "key", kind: "partition_key", typ: "blob"},
		{name: "column1", kind: "clustering", order: "asc", typ: "blob"},
		{name: "value", kind: "regular", typ: "blob"},
	})
	if got.Servable() || !strings.Contains(got.Reason, "DROP COMPACT STORAGE") {
		t.Fatalf("compact table: %+v", got)
	}
	// 3.11 lists a static compact table (a Thrift family with
	// column_metadata) with no flag at all, its declared columns regular.
	got = classifyTable("ks", "users", tableInfo{flagsRead: true}, []cqlColumn{
		{name: "key", kind: "partition_key", typ: "text"},
		{name: "column1", kind: "clustering", order: "asc", typ: "text"},
		{name: "value", kind: "regular", typ: "blob"},
	})
	if got.Servable() || !strings.Contains(got.Reason, "DROP COMPACT STORAGE") {
		t.Fatalf("static compact table: %+v", got)
	}
	got = classifyTable("ks", "dropped", tableInfo{flagsRead: true, flags: []string{"compound"}}, []cqlColumn{
		{name: "key", kind: "partition_key", typ: "text"},
		{name: "column1", kind: "clustering", order: "asc", typ: "text"},
		{name: "value", kind: "regular", typ: "blob"},
	})
	if !got.Servable() {
		t.Fatalf("table after the drop: %+v", got)
	}
}

// An adopted keyspace's tables are read and written in place through the
// store: what CQL writes (with its timestamp and TTL) the store reads, and
// what the store writes CQL reads with the same WRITETIME and TTL; a DESC
// table is sliced in its ReversedType order; a table of another shape is
// not served, and nothing in the keyspace is created or changed.
func TestAdoptedTablesThroughTheStore(t *testing.T) {
	s, ks := adoptKeyspace(t,
		`CREATE TABLE KS.dyn (key blob, column1 text, value bigint, PRIMARY KEY (key, column1))`,
		`CREATE TABLE KS.rev (key text, column1 int, value blob, PRIMARY KEY (key, column1)) WITH CLUSTERING ORDER BY (column1 DESC)`,
		`CREATE TABLE KS.users (id uuid PRIMARY KEY, name text)`,
		`INSERT INTO KS.dyn (key, column1, value) VALUES (0x6b31, 'a', 1) USING TIMESTAMP 1000`,
		`INSERT INTO KS.dyn (key, column1, value) VALUES (0x6b31, 'b', 2) USING TIMESTAMP 2000 AND TTL 5000`,
		`INSERT INTO KS.rev (key, column1, value) VALUES ('r', 1, 0x01) USING TIMESTAMP 10`,
		`INSERT INTO KS.rev (key, column1, value) VALUES ('r', 2, 0x02) USING TIMESTAMP 20`,
		`INSERT INTO KS.rev (key, column1, value) VALUES ('r', 3, 0x03) USING TIMESTAMP 30`,
	)
	before := columnTypes(t, s, ks, "dyn") + "|" + columnTypes(t, s, ks, "rev") + "|" + columnTypes(t, s, ks, "users")
	st, ctx := openAdopting(t, ks)
	adopted := st.Adopted()
	if len(adopted) != 1 || len(adopted[0].ColumnFamilies) != 2 || adopted[0].ColumnFamilies["users"] != nil {
		t.Fatalf("adopted: %+v", adopted)
	}

	// CQL wrote, the store reads.
	row, err := st.Get(ctx, ks, "k1", engine.Query{ColumnFamily: "dyn", Predicate: engine.Predicate{Count: 100}})
	if err != nil {
		t.Fatal(err)
	}
	if len(row.Columns) != 2 || string(row.Columns[0].Name) != "a" || row.Columns[0].Timestamp != 1000 ||
		string(row.Columns[0].Value) != "\x00\x00\x00\x00\x00\x00\x00\x01" || row.Columns[0].TTL != 0 ||
		string(row.Columns[1].Name) != "b" || row.Columns[1].Timestamp != 2000 || row.Columns[1].TTL <= 4900 || row.Columns[1].TTL > 5000 {
		t.Fatalf("read of CQL's writes: %+v", row.Columns)
	}

	// The store writes, CQL reads.
	err = st.Apply(ctx, ks, []engine.RowMutation{{Key: "k2", Mutations: []engine.Mutation{
		{ColumnFamily: "dyn", Name: []byte("x"), Value: []byte{0, 0, 0, 0, 0, 0, 0, 42}, Timestamp: 777},
		{ColumnFamily: "dyn", Name: []byte("y"), Value: []byte{0, 0, 0, 0, 0, 0, 0, 43}, Timestamp: 778, TTL: 3000},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	iter := s.Query(`SELECT column1, value, WRITETIME(value), TTL(value) FROM `+ks+`.dyn WHERE key = ?`, []byte("k2")).Iter()
	var got []string
	var name string
	var value, wt int64
	var ttl *int
	for iter.Scan(&name, &value, &wt, &ttl) {
		l := fmt.Sprintf("%s=%d@%d", name, value, wt)
		if ttl != nil {
			l += fmt.Sprintf(" ttl>2900:%v", *ttl > 2900 && *ttl <= 3000)
		}
		got = append(got, l)
		ttl = nil
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ", ") != "x=42@777, y=43@778 ttl>2900:true" {
		t.Fatalf("CQL reads the store's writes as %q", got)
	}

	// DESC clustering: ReversedType(Int32Type) orders 3, 2, 1.
	int32s := func(cols []engine.Column) string {
		var out []string
		for _, c := range cols {
			out = append(out, fmt.Sprint(int(c.Name[3])))
		}
		return strings.Join(out, "")
	}
	be := func(n byte) []byte { return []byte{0, 0, 0, n} }
	for _, c := range []struct {
		p    engine.Predicate
		want string
	}{
		{engine.Predicate{Count: 10}, "321"},
		{engine.Predicate{Count: 10, Reversed: true}, "123"},
		{engine.Predicate{Start: be(3), Finish: be(2), Count: 10}, "32"},
		{engine.Predicate{Start: be(2), Count: 10}, "21"},
		{engine.Predicate{Start: be(1), Finish: be(2), Count: 10, Reversed: true}, "12"},
		{engine.Predicate{Count: 2}, "32"},
		{engine.Predicate{Names: [][]byte{be(1), be(3)}}, "31"},
	} {
		row, err := st.Get(ctx, ks, "r", engine.Query{ColumnFamily: "rev", Predicate: c.p})
		if err != nil {
			t.Fatal(err)
		}
		if g := int32s(row.Columns); g != c.want {
			t.Errorf("rev %+v: %s, want %s", c.p, g, c.want)
		}
	}

	// Nothing of the keyspace changed, and thriftd created nothing in it.
	after := columnTypes(t, s, ks, "dyn") + "|" + columnTypes(t, s, ks, "rev") + "|" + columnTypes(t, s, ks, "users")
	if after != before {
		t.Errorf("the adopted tables changed:\n%s\n%s", before, after)
	}
	var n int
	if err := s.Query(`SELECT count(*) FROM system_schema.tables WHERE keyspace_name = ?`, ks).Scan(&n); err != nil || n != 3 {
		t.Errorf("the adopted keyspace holds %d tables (%v), want its 3", n, err)
	}
}

// A static family's declared columns, STATIC after DROP COMPACT STORAGE,
// are read and written as Thrift columns beside the (column1, value) ones,
// merged in the comparator's order.
func TestAdoptedStaticShape(t *testing.T) {
	s, ks := adoptKeyspace(t,
		`CREATE TABLE KS.stat (key text, column1 text, value blob, name text static, age int static, PRIMARY KEY (key, column1))`,
		`INSERT INTO KS.stat (key, name) VALUES ('u', 'alice') USING TIMESTAMP 5`,
		`INSERT INTO KS.stat (key, column1, value) VALUES ('u', 'extra', 0x01) USING TIMESTAMP 6`,
		`INSERT INTO KS.stat (key, column1, value) VALUES ('u', 'zzz', 0x02) USING TIMESTAMP 7 AND TTL 9000`,
		`INSERT INTO KS.stat (key, name) VALUES ('solo', 'bob') USING TIMESTAMP 8`,
	)
	st, ctx := openAdopting(t, ks)
	cf := st.Adopted()[0].ColumnFamilies["stat"]
	if cf == nil || len(cf.Columns) != 2 {
		t.Fatalf("stat: %+v", cf)
	}
	show := func(key string, p engine.Predicate) string {
		t.Helper()
		row, err := st.Get(ctx, ks, key, engine.Query{ColumnFamily: "stat", Predicate: p})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range row.Columns {
			l := fmt.Sprintf("%s=%x@%d", c.Name, c.Value, c.Timestamp)
			if c.TTL > 0 {
				l += "+ttl"
			}
			out = append(out, l)
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		key  string
		p    engine.Predicate
		want string
	}{
		{"u", engine.Predicate{Count: 100}, "extra=01@6 name=616c696365@5 zzz=02@7+ttl"},
		{"u", engine.Predicate{Count: 2, Reversed: true}, "zzz=02@7+ttl name=616c696365@5"},
		{"u", engine.Predicate{Start: []byte("f"), Count: 100}, "name=616c696365@5 zzz=02@7+ttl"},
		{"u", engine.Predicate{Count: 1}, "extra=01@6"},
		{"u", engine.Predicate{Names: [][]byte{[]byte("zzz"), []byte("name"), []byte("age")}}, "name=616c696365@5 zzz=02@7+ttl"},
		{"solo", engine.Predicate{Count: 100}, "name=626f62@8"},
	} {
		if got := show(c.key, c.p); got != c.want {
			t.Errorf("%s %+v: %s, want %s", c.key, c.p, got, c.want)
		}
	}
	if n, err := st.Count(ctx, ks, "u", "stat", nil); err != nil || n != 3 {
		t.Errorf("count: %d, %v", n, err)
	}
	// The store writes a declared column with a TTL and deletes another;
	// CQL reads the static columns.
	err := st.Apply(ctx, ks, []engine.RowMutation{{Key: "u", Mutations: []engine.Mutation{
		{ColumnFamily: "stat", Name: []byte("age"), Value: []byte{0, 0, 0, 30}, Timestamp: 50, TTL: 4000},
		{ColumnFamily: "stat", Name: []byte("name"), Delete: true, Timestamp: 51},
		{ColumnFamily: "stat", Name: []byte("more"), Value: []byte{3}, Timestamp: 52},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	var age int
	var name *string
	var wt int64
	var ttl int
	if err := s.Query(`SELECT age, writetime(age), ttl(age), name FROM `+ks+`.stat WHERE key = 'u' LIMIT 1`).Scan(&age, &wt, &ttl, &name); err != nil {
		t.Fatal(err)
	}
	if age != 30 || wt != 50 || ttl <= 3900 || ttl > 4000 || name != nil {
		t.Errorf("CQL reads age %d at %d ttl %d, name %v", age, wt, ttl, name)
	}
	if got := show("u", engine.Predicate{Count: 100}); got != "age=0000001e@50+ttl extra=01@6 more=03@52 zzz=02@7+ttl" {
		t.Errorf("after the writes: %s", got)
	}
}

// compositeName is a CompositeType name of parts, the last component
// ending with eoc.
func compositeName(eoc byte, parts ...[]byte) []byte {
	var out []byte
	for i, p := range parts {
		out = append(out, byte(len(p)>>8), byte(len(p)))
		out = append(out, p...)
		if i == len(parts)-1 {
			out = append(out, eoc)
		} else {
			out = append(out, 0)
		}
	}
	return out
}

// A composite family's clustering columns, one per component, are read
// in the CompositeType order (a DESC column a ReversedType component),
// sliced by composite bounds of fewer components as 1.2 allowed, and
// written and deleted (by prefix) through the store, as CQL sees them.
func TestAdoptedCompositeShape(t *testing.T) {
	s, ks := adoptKeyspace(t,
		`CREATE TABLE KS.comp (key blob, column1 text, column2 int, value blob, PRIMARY KEY (key, column1, column2)) WITH CLUSTERING ORDER BY (column1 ASC, column2 DESC)`,
		`INSERT INTO KS.comp (key, column1, column2, value) VALUES (0x6b, 'a', 1, 0x01) USING TIMESTAMP 1`,
		`INSERT INTO KS.comp (key, column1, column2, value) VALUES (0x6b, 'a', 2, 0x02) USING TIMESTAMP 2`,
		`INSERT INTO KS.comp (key, column1, column2, value) VALUES (0x6b, 'b', 1, 0x03) USING TIMESTAMP 3 AND TTL 7000`,
	)
	st, ctx := openAdopting(t, ks)
	if st.Adopted()[0].ColumnFamilies["comp"] == nil {
		t.Fatalf("comp not served: %+v", st.AdoptedTables())
	}
	i32 := func(n byte) []byte { return []byte{0, 0, 0, n} }
	name := func(s string, n byte) []byte { return compositeName(0, []byte(s), i32(n)) }
	show := func(p engine.Predicate) string {
		t.Helper()
		row, err := st.Get(ctx, ks, "k", engine.Query{ColumnFamily: "comp", Predicate: p})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range row.Columns {
			parts, err := splitComposite(c.Name)
			if err != nil || len(parts) != 2 {
				t.Fatalf("name %x: %v", c.Name, err)
			}
			l := fmt.Sprintf("%s%d@%d", parts[0], parts[1][3], c.Timestamp)
			if c.TTL > 0 {
				l += "+ttl"
			}
			out = append(out, l)
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		p    engine.Predicate
		want string
	}{
		{engine.Predicate{Count: 10}, "a2@2 a1@1 b1@3+ttl"},
		{engine.Predicate{Count: 10, Reversed: true}, "b1@3+ttl a1@1 a2@2"},
		{engine.Predicate{Count: 1}, "a2@2"},
		{engine.Predicate{Start: compositeName(1, []byte("a")), Count: 10}, "b1@3+ttl"},
		{engine.Predicate{Finish: compositeName(1, []byte("a")), Count: 10}, "a2@2 a1@1"},
		{engine.Predicate{Start: compositeName(0, []byte("b")), Count: 10}, "b1@3+ttl"},
		{engine.Predicate{Start: name("a", 1), Finish: name("b", 1), Count: 10}, "a1@1 b1@3+ttl"},
		{engine.Predicate{Start: compositeName(1, []byte("a")), Count: 10, Reversed: true}, "a1@1 a2@2"},
		{engine.Predicate{Names: [][]byte{name("b", 1), name("a", 1), name("z", 9)}}, "a1@1 b1@3+ttl"},
	} {
		if got := show(c.p); got != c.want {
			t.Errorf("%+v: %s, want %s", c.p, got, c.want)
		}
	}
	if n, err := st.Count(ctx, ks, "k", "comp", nil); err != nil || n != 3 {
		t.Errorf("count: %d, %v", n, err)
	}
	// The store writes one name and deletes the prefix "a".
	err := st.Apply(ctx, ks, []engine.RowMutation{{Key: "k", Mutations: []engine.Mutation{
		{ColumnFamily: "comp", Name: name("c", 5), Value: []byte{9}, Timestamp: 99, TTL: 3000},
		{ColumnFamily: "comp", Name: compositeName(0, []byte("a")), Delete: true, Timestamp: 100},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	iter := s.Query(`SELECT column1, column2, WRITETIME(value), TTL(value) FROM ` + ks + `.comp WHERE key = 0x6b`).Iter()
	var got []string
	var c1 string
	var c2 int
	var wt int64
	var ttl int
	for iter.Scan(&c1, &c2, &wt, &ttl) {
		got = append(got, fmt.Sprintf("%s%d@%d:%v", c1, c2, wt, ttl > 2000))
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != "b1@3:true c5@99:true" {
		t.Errorf("CQL reads %q after the store's writes", got)
	}
	// A name of fewer components than the clustering columns cannot be
	// written: the cluster refuses the missing clustering value.
	err = st.Apply(ctx, ks, []engine.RowMutation{{Key: "k", Mutations: []engine.Mutation{
		{ColumnFamily: "comp", Name: compositeName(0, []byte("d")), Value: []byte{1}, Timestamp: 5},
	}}})
	if err == nil {
		t.Error("a partial composite name was written")
	}
}

// Adopted counter tables, of one clustering column (ascending or DESC)
// and of several: what CQL counts the store reads, and what the store
// adds or removes CQL reads, in one total.
func TestAdoptedCounterShape(t *testing.T) {
	s, ks := adoptKeyspace(t,
		`CREATE TABLE KS.hits (key blob, column1 text, value counter, PRIMARY KEY (key, column1))`,
		`CREATE TABLE KS.rhits (key text, column1 int, value counter, PRIMARY KEY (key, column1)) WITH CLUSTERING ORDER BY (column1 DESC)`,
		`CREATE TABLE KS.chits (key blob, column1 text, column2 int, value counter, PRIMARY KEY (key, column1, column2)) WITH CLUSTERING ORDER BY (column1 ASC, column2 DESC)`,
		`UPDATE KS.hits SET value = value + 5 WHERE key = 0x6b AND column1 = 'a'`,
		`UPDATE KS.hits SET value = value - 2 WHERE key = 0x6b AND column1 = 'b'`,
		`UPDATE KS.rhits SET value = value + 1 WHERE key = 'r' AND column1 = 1`,
		`UPDATE KS.rhits SET value = value + 2 WHERE key = 'r' AND column1 = 2`,
		`UPDATE KS.rhits SET value = value + 3 WHERE key = 'r' AND column1 = 3`,
		`UPDATE KS.chits SET value = value + 10 WHERE key = 0x6b AND column1 = 'a' AND column2 = 1`,
		`UPDATE KS.chits SET value = value + 20 WHERE key = 0x6b AND column1 = 'a' AND column2 = 2`,
		`UPDATE KS.chits SET value = value + 30 WHERE key = 0x6b AND column1 = 'b' AND column2 = 1`,
	)
	st, ctx := openAdopting(t, ks)
	for _, cf := range []string{"hits", "rhits", "chits"} {
		if st.Adopted()[0].ColumnFamilies[cf] == nil {
			t.Fatalf("%s not served: %+v", cf, st.AdoptedTables())
		}
	}
	i32 := func(n byte) []byte { return []byte{0, 0, 0, n} }
	total := func(v []byte) int64 {
		t.Helper()
		if len(v) != 8 {
			t.Fatalf("a counter of %d bytes", len(v))
		}
		return int64(binary.BigEndian.Uint64(v))
	}
	show := func(cf, key string, p engine.Predicate) string {
		t.Helper()
		row, err := st.Get(ctx, ks, key, engine.Query{ColumnFamily: cf, Predicate: p})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range row.Columns {
			name := string(c.Name)
			switch cf {
			case "rhits":
				name = fmt.Sprint(c.Name[3])
			case "chits":
				parts, err := splitComposite(c.Name)
				if err != nil || len(parts) != 2 {
					t.Fatalf("name %x: %v", c.Name, err)
				}
				name = fmt.Sprintf("%s%d", parts[0], parts[1][3])
			}
			out = append(out, fmt.Sprintf("%s=%d", name, total(c.Value)))
		}
		return strings.Join(out, " ")
	}

	// CQL counted, the store reads.
	for _, c := range []struct {
		cf, key string
		p       engine.Predicate
		want    string
	}{
		{"hits", "k", engine.Predicate{Count: 10}, "a=5 b=-2"},
		{"hits", "k", engine.Predicate{Count: 10, Reversed: true}, "b=-2 a=5"},
		{"hits", "k", engine.Predicate{Names: [][]byte{[]byte("b"), []byte("z")}}, "b=-2"},
		{"rhits", "r", engine.Predicate{Count: 10}, "3=3 2=2 1=1"},
		{"rhits", "r", engine.Predicate{Count: 10, Reversed: true}, "1=1 2=2 3=3"},
		{"rhits", "r", engine.Predicate{Start: i32(2), Count: 10}, "2=2 1=1"},
		{"rhits", "r", engine.Predicate{Count: 1}, "3=3"},
		{"chits", "k", engine.Predicate{Count: 10}, "a2=20 a1=10 b1=30"},
		{"chits", "k", engine.Predicate{Count: 10, Reversed: true}, "b1=30 a1=10 a2=20"},
		{"chits", "k", engine.Predicate{Start: compositeName(1, []byte("a")), Count: 10}, "b1=30"},
		{"chits", "k", engine.Predicate{Names: [][]byte{compositeName(0, []byte("a"), i32(1))}}, "a1=10"},
	} {
		if got := show(c.cf, c.key, c.p); got != c.want {
			t.Errorf("%s %+v: %s, want %s", c.cf, c.p, got, c.want)
		}
	}
	for _, c := range []struct {
		cf, key string
		want    int
	}{{"hits", "k", 2}, {"rhits", "r", 3}, {"chits", "k", 3}} {
		if n, err := st.Count(ctx, ks, c.key, c.cf, nil); err != nil || n != c.want {
			t.Errorf("count %s: %d, %v; want %d", c.cf, n, err, c.want)
		}
	}
	rows, err := st.Range(ctx, ks, engine.TokenRange{}, engine.Query{ColumnFamily: "chits", Predicate: engine.Predicate{Count: 10}}, 10)
	if err != nil || len(rows) != 1 || rows[0].Key != "k" || len(rows[0].Columns) != 3 {
		t.Errorf("range of chits: %+v, %v", rows, err)
	}

	// The store adds and removes, CQL reads.
	err = st.ApplyCounters(ctx, ks, []engine.CounterRow{
		{Key: "k", Mutations: []engine.CounterMutation{
			{ColumnFamily: "hits", Name: []byte("a"), Delta: 7},
			{ColumnFamily: "hits", Name: []byte("b"), Delete: true},
			{ColumnFamily: "chits", Name: compositeName(0, []byte("b"), i32(1)), Delta: -31},
			{ColumnFamily: "chits", Name: compositeName(0, []byte("c"), i32(4)), Delta: 4},
			{ColumnFamily: "chits", Name: compositeName(0, []byte("a")), Delete: true},
		}},
		{Key: "r", Mutations: []engine.CounterMutation{{ColumnFamily: "rhits", Name: i32(9), Delta: 9}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	cql := func(stmt string) string {
		t.Helper()
		iter := s.Query(strings.ReplaceAll(stmt, "KS.", ks+".")).Iter()
		var out []string
		for {
			row := map[string]any{}
			if !iter.MapScan(row) {
				break
			}
			var l string
			for _, col := range []string{"column1", "column2", "value"} {
				if v, ok := row[col]; ok {
					l += fmt.Sprint(v) + " "
				}
			}
			out = append(out, strings.TrimSpace(l))
		}
		if err := iter.Close(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
		return strings.Join(out, ", ")
	}
	if got := cql(`SELECT column1, value FROM KS.hits WHERE key = 0x6b`); got != "a 12" {
		t.Errorf("CQL reads hits as %q", got)
	}
	if got := cql(`SELECT column1, value FROM KS.rhits WHERE key = 'r'`); got != "9 9, 3 3, 2 2, 1 1" {
		t.Errorf("CQL reads rhits as %q", got)
	}
	if got := cql(`SELECT column1, column2, value FROM KS.chits WHERE key = 0x6b`); got != "b 1 -1, c 4 4" {
		t.Errorf("CQL reads chits as %q", got)
	}
	// A name of fewer components than the clustering columns cannot be
	// counted: the cluster refuses the missing clustering value.
	err = st.ApplyCounters(ctx, ks, []engine.CounterRow{{Key: "k", Mutations: []engine.CounterMutation{
		{ColumnFamily: "chits", Name: compositeName(0, []byte("d")), Delta: 1},
	}}})
	if err == nil {
		t.Error("a partial composite name was counted")
	}
}
