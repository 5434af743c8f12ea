package cqlstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
	"github.com/thriftd/thriftd/schema"
)

// encodeMap is a CQL map's value of protocol 3 and later.
func encodeMap(entries ...[2][]byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(entries)))
	for _, e := range entries {
		for _, part := range e {
			b = binary.BigEndian.AppendUint32(b, uint32(len(part)))
			b = append(b, part...)
		}
	}
	return b
}

func TestDecodeMap(t *testing.T) {
	in := [][2][]byte{{[]byte("a"), []byte("1")}, {[]byte("bb"), {}}, {{0, 0, 0, 0, 0, 0, 0, 9}, []byte("x")}}
	got, err := decodeMap(encodeMap(in...))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(in) {
		t.Fatalf("decodeMap: %v, want %v", got, in)
	}
	if got, err := decodeMap(nil); err != nil || got != nil {
		t.Fatalf("a null map: %v, %v", got, err)
	}
	full := encodeMap(in...)
	for _, bad := range [][]byte{
		full[:3],                     // no count
		full[:len(full)-1],           // the last value cut short
		append(bytes.Clone(full), 0), // a byte after the entries
		{0xff, 0xff, 0xff, 0xff},     // a negative count
		{0, 0, 0, 9, 0, 0, 0, 1},     // more entries than bytes
	} {
		if _, err := decodeMap(bad); err == nil {
			t.Errorf("decodeMap(%x) accepted a malformed map", bad)
		}
	}
}

// The super shape is served; a super column family of counters, which
// 3.11 cannot convert, is refused with what to do instead.
func TestClassifySuperShapes(t *testing.T) {
	cols := func(mapType string) []cqlColumn {
		return []cqlColumn{
			{name: "key", kind: "partition_key", typ: "text"},
			{name: "column1", kind: "clustering", order: "desc", typ: "blob"},
			{name: "", kind: "regular", typ: mapType},
		}
	}
	got := classifyTable("ks", "sup", tableInfo{flagsRead: true, flags: []string{"compound"}}, cols("map<timeuuid, bigint>"))
	const m = "org.apache.cassandra.db.marshal."
	if !got.Servable() || got.Shape != ShapeSuper || !got.Family.Super ||
		got.Family.Comparator.Name() != m+"ReversedType("+m+"BytesType)" || got.Family.SubComparator.Name() != m+"TimeUUIDType" ||
		got.Family.DefaultValidator.Name() != m+"LongType" || got.Family.KeyValidator.Name() != m+"UTF8Type" {
		t.Fatalf("super shape: %+v %+v", got, got.Family)
	}
	// What 3.11.19 lists of a super counter family, whose drop it refuses.
	got = classifyTable("ks", "supc", tableInfo{flagsRead: true, flags: []string{"counter", "dense", "super"}}, cols("map<text, counter>"))
	if got.Servable() || !strings.Contains(got.Reason, "super column family of counters") || !strings.Contains(got.Reason, "thriftd-tool copy") {
		t.Fatalf("super counter family: %+v", got)
	}
	got = classifyTable("ks", "supc", tableInfo{flagsRead: true, flags: []string{"compound"}}, cols("map<text, counter>"))
	if got.Servable() || !strings.Contains(got.Reason, "counters") {
		t.Fatalf("a map of counters: %+v", got)
	}
}

// superView renders super columns as "sc:name=value,...;..." with the
// subcolumn names as LongType numbers.
func superView(scs []engine.SuperColumn) string {
	var out []string
	for _, sc := range scs {
		out = append(out, string(sc.Name)+":"+subView(sc.Columns))
	}
	return strings.Join(out, ";")
}

func subView(cols []engine.Column) string {
	var out []string
	for _, c := range cols {
		s := fmt.Sprintf("%d=%s", int64(binary.BigEndian.Uint64(c.Name)), c.Value)
		if c.Timestamp != 0 || c.TTL != 0 {
			s += fmt.Sprintf("@%d/%d", c.Timestamp, c.TTL)
		}
		out = append(out, s)
	}
	return strings.Join(out, ",")
}

func long8(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }

// A Thrift super column family of the real Cassandra 3.11.19 node, after
// DROP COMPACT STORAGE (Cassandra 5 cannot create the shape, and 4.0 and
// later cannot create a compact table to drop), is served in place: read
// as 3.11's Thrift server read it before the drop (but for the
// timestamps, which CQL cannot read), written as map entries CQL sees,
// each with its own timestamp and TTL, and deleted by subcolumn, super
// column, run of super columns and row.
func TestAdoptedSuperShape(t *testing.T) {
	thrift := testenv.Reference(t, "3.11", "random")
	cl := Cluster{Hosts: []string{testenv.ReferenceCQL(t, "3.11", "random")}, Timeout: 30 * time.Second}
	// The keyspace under one fresh prefix, the store's own under another.
	prefix, own := testenv.CassandraPrefix(t), testenv.CassandraPrefix(t)
	ks := prefix + "super"
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for _, p := range []string{prefix, own} {
			if _, err := DropPrefix(ctx, cl, p); err != nil {
				t.Errorf("drop prefix %s: %v", p, err)
			}
		}
	})

	// The family, made and loaded through 3.11's Thrift API.
	c, err := testenv.Dial19(thrift, true, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	str := func(s string) *string { return &s }
	cf := cassandra19.NewCfDef()
	cf.Keyspace, cf.Name, cf.ColumnType, cf.ComparatorType = ks, "Super1", "Super", "UTF8Type"
	cf.SubcomparatorType, cf.DefaultValidationClass, cf.KeyValidationClass = str("LongType"), str("UTF8Type"), str("UTF8Type")
	kd := cassandra19.NewKsDef()
	kd.Name, kd.StrategyClass = ks, "org.apache.cassandra.locator.SimpleStrategy"
	kd.StrategyOptions, kd.CfDefs = map[string]string{"replication_factor": "1"}, []*cassandra19.CfDef{cf}
	if _, err := c.SystemAddKeyspace(ctx, kd); err != nil {
		t.Fatalf("system_add_keyspace on 3.11: %v", err)
	}
	if err := c.SetKeyspace(ctx, ks); err != nil {
		t.Fatal(err)
	}
	ttl := int32(100000)
	sub := func(n int64, v string, ts int64, ttl *int32) *cassandra19.Column {
		return &cassandra19.Column{Name: long8(n), Value: []byte(v), Timestamp: &ts, TTL: ttl}
	}
	super := func(name string, cols ...*cassandra19.Column) *cassandra19.Mutation {
		return &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{SuperColumn: &cassandra19.SuperColumn{Name: []byte(name), Columns: cols}}}
	}
	load := map[string]map[string][]*cassandra19.Mutation{
		"k1": {"Super1": {
			super("a", sub(1, "a1", 10, nil), sub(2, "a2", 11, nil)),
			super("b", sub(-5, "b-5", 12, nil), sub(3, "b3", 13, &ttl)),
			super("c", sub(5, "c5", 14, nil)),
		}},
		"k2": {"Super1": {super("x", sub(7, "x7", 15, nil))}},
	}
	if err := c.BatchMutate(ctx, load, cassandra19.ConsistencyLevel_ONE); err != nil {
		t.Fatalf("batch_mutate on 3.11: %v", err)
	}
	// 3.11's own answer, before the drop.
	var before []engine.SuperColumn
	cosc, err := c.GetSlice(ctx, []byte("k1"), &cassandra19.ColumnParent{ColumnFamily: "Super1"},
		&cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 100}}, cassandra19.ConsistencyLevel_ONE)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range cosc {
		sc := engine.SuperColumn{Name: x.SuperColumn.Name}
		for _, col := range x.SuperColumn.Columns {
			sc.Columns = append(sc.Columns, engine.Column{Name: col.Name, Value: col.Value})
		}
		before = append(before, sc)
	}
	const want311 = "a:1=a1,2=a2;b:-5=b-5,3=b3;c:5=c5"
	if superView(before) != want311 {
		t.Fatalf("3.11 answers %s before the drop, want %s", superView(before), want311)
	}

	s, err := cl.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	table := ks + `."Super1"`
	if err := s.Query(`ALTER TABLE ` + table + ` DROP COMPACT STORAGE`).WithContext(ctx).Exec(); err != nil {
		t.Fatalf("DROP COMPACT STORAGE on 3.11: %v", err)
	}
	schemaBefore := columnTypes(t, s, ks, "Super1")

	// thriftd's store in front of the node, adopting the keyspace.
	p, err := dht.Lookup("RandomPartitioner")
	if err != nil {
		t.Fatal(err)
	}
	base := &schema.Schema{ClusterName: "Test", Partitioner: p, Keyspaces: map[string]*schema.Keyspace{}}
	st, err := Open(ctx, base, Options{Cluster: cl, Prefix: own, GCGraceSeconds: 864000, Adopt: []string{ks}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	adopted := st.Adopted()
	if len(adopted) != 1 || adopted[0].ColumnFamilies["Super1"] == nil {
		t.Fatalf("adopted: %+v; tables: %+v", adopted, st.AdoptedTables())
	}
	const m = "org.apache.cassandra.db.marshal."
	if d := adopted[0].ColumnFamilies["Super1"]; !d.Super || d.Comparator.Name() != m+"UTF8Type" || d.SubComparator.Name() != m+"LongType" ||
		d.DefaultValidator.Name() != m+"UTF8Type" || d.KeyValidator.Name() != m+"UTF8Type" {
		t.Fatalf("described as %+v", d)
	}

	get := func(key string, q engine.Query) engine.Row {
		t.Helper()
		q.ColumnFamily = "Super1"
		row, err := st.Get(ctx, ks, key, q)
		if err != nil {
			t.Fatalf("get %s %+v: %v", key, q, err)
		}
		return row
	}
	supers := func(key string, p engine.Predicate) string {
		t.Helper()
		return superView(get(key, engine.Query{Predicate: p}).SuperColumns)
	}
	subs := func(key, sc string, p engine.Predicate) string {
		t.Helper()
		return subView(get(key, engine.Query{SuperColumn: []byte(sc), Predicate: p}).Columns)
	}
	count := func(key string, sc []byte) int {
		t.Helper()
		n, err := st.Count(ctx, ks, key, "Super1", sc)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, c := range []struct{ got, want string }{
		{supers("k1", engine.Predicate{Count: 100}), want311},
		// Reversed, each super column's subcolumns descending too, as 3.11.
		{supers("k1", engine.Predicate{Count: 2, Reversed: true}), "c:5=c5;b:3=b3,-5=b-5"},
		{supers("k1", engine.Predicate{Start: []byte("b"), Count: 100}), "b:-5=b-5,3=b3;c:5=c5"},
		{supers("k1", engine.Predicate{Start: []byte("b"), Finish: []byte("a"), Reversed: true, Count: 100}), "b:3=b3,-5=b-5;a:2=a2,1=a1"},
		{supers("k1", engine.Predicate{Names: [][]byte{[]byte("c"), []byte("a"), []byte("zz")}}), "a:1=a1,2=a2;c:5=c5"},
		{supers("nobody", engine.Predicate{Count: 100}), ""},
		{subs("k1", "b", engine.Predicate{Count: 100}), "-5=b-5,3=b3"},
		{subs("k1", "b", engine.Predicate{Count: 1, Reversed: true}), "3=b3"},
		{subs("k1", "b", engine.Predicate{Start: long8(0), Count: 100}), "3=b3"},
		{subs("k1", "a", engine.Predicate{Names: [][]byte{long8(2), long8(9)}}), "2=a2"},
		{subs("k1", "zz", engine.Predicate{Count: 100}), ""},
		{fmt.Sprint(count("k1", nil), count("k1", []byte("b")), count("k1", []byte("zz"))), "3 2 0"},
	} {
		if c.got != c.want {
			t.Errorf("read %q, want %q", c.got, c.want)
		}
	}
	rangeKeys := func() string {
		t.Helper()
		rows, err := st.Range(ctx, ks, engine.TokenRange{StartInclusive: true}, engine.Query{ColumnFamily: "Super1", Predicate: engine.Predicate{Count: 1}}, 100)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.Key+"="+superView(r.SuperColumns))
		}
		sort.Strings(out)
		return strings.Join(out, " ")
	}
	if got := rangeKeys(); got != "k1=a:1=a1,2=a2 k2=x:7=x7" {
		t.Errorf("range: %s", got)
	}

	apply := func(muts ...engine.Mutation) error {
		t.Helper()
		for i := range muts {
			muts[i].ColumnFamily = "Super1"
		}
		return st.Apply(ctx, ks, []engine.RowMutation{{Key: "k1", Mutations: muts}})
	}
	cql := func(stmt string, args ...any) {
		t.Helper()
		if err := s.Query(strings.ReplaceAll(stmt, "@T", table), args...).WithContext(ctx).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	// What CQL reads of super column sc of k1.
	cqlMap := func(sc string) string {
		t.Helper()
		iter := s.Query(`SELECT * FROM `+table+` WHERE key = 'k1' AND column1 = ?`, sc).WithContext(ctx).Iter()
		row := map[string]any{}
		found := iter.MapScan(row)
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
		if !found {
			return "-"
		}
		entries, _ := row[""].(map[int64]string)
		var out []string
		for k, v := range entries {
			out = append(out, fmt.Sprintf("%d=%s", k, v))
		}
		sort.Strings(out)
		return strings.Join(out, ",")
	}

	// Writes land in the map, each entry at its own timestamp.
	if err := apply(
		engine.Mutation{SuperColumn: []byte("a"), Name: long8(9), Value: []byte("a9"), Timestamp: 100},
		// A TTL that outlasts the reads below however slow the machine;
		// its expiry is waited for after them.
		engine.Mutation{SuperColumn: []byte("a"), Name: long8(8), Value: []byte("a8"), Timestamp: 100, TTL: 10},
		engine.Mutation{SuperColumn: []byte("d"), Name: long8(4), Value: []byte("d4"), Timestamp: 100},
	); err != nil {
		t.Fatal(err)
	}
	if got := cqlMap("a"); got != "1=a1,2=a2,8=a8,9=a9" {
		t.Errorf("CQL reads super column a as %s", got)
	}
	if got := cqlMap("d"); got != "4=d4" {
		t.Errorf("CQL reads super column d as %s", got)
	}
	cql(`UPDATE @T USING TIMESTAMP 99 SET ""[9] = 'older' WHERE key = 'k1' AND column1 = 'a'`)
	cql(`UPDATE @T USING TIMESTAMP 101 SET ""[2] = 'newer' WHERE key = 'k1' AND column1 = 'a'`)
	if got := subs("k1", "a", engine.Predicate{Count: 100}); got != "1=a1,2=newer,8=a8,9=a9" {
		t.Errorf("after CQL's writes at 99 and 101: %s", got)
	}
	// The TTL: the entry expires (its seconds left are not readable).
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		got := subs("k1", "a", engine.Predicate{Count: 100})
		if got == "1=a1,2=newer,9=a9" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("2 minutes after a TTL of 10 s: %s", got)
		}
	}

	// A subcolumn's deletion shadows writes at or before it.
	if err := apply(engine.Mutation{SuperColumn: []byte("a"), Name: long8(9), Timestamp: 200, Delete: true}); err != nil {
		t.Fatal(err)
	}
	cql(`UPDATE @T USING TIMESTAMP 200 SET ""[9] = 'tie' WHERE key = 'k1' AND column1 = 'a'`)
	if got := subs("k1", "a", engine.Predicate{Count: 100}); got != "1=a1,2=newer" {
		t.Errorf("after deleting subcolumn 9 at 200 and a CQL write at 200: %s", got)
	}
	// A super column's deletion: its subcolumns at or before it go.
	if err := apply(engine.Mutation{SuperColumn: []byte("a"), Timestamp: 100, Delete: true}); err != nil {
		t.Fatal(err)
	}
	if got := subs("k1", "a", engine.Predicate{Count: 100}); got != "2=newer" {
		t.Errorf("after deleting super column a at 100: %s", got)
	}
	// A run of super columns.
	if err := apply(engine.Mutation{Range: &engine.NameRange{Start: []byte("b"), Finish: []byte("c")}, Timestamp: 1000, Delete: true}); err != nil {
		t.Fatal(err)
	}
	if got := supers("k1", engine.Predicate{Count: 100}); got != "a:2=newer;d:4=d4" {
		t.Errorf("after deleting super columns b to c: %s", got)
	}
	if got, want := count("k1", nil), 2; got != want {
		t.Errorf("count %d, want %d", got, want)
	}
	// A run of subcolumns has no CQL statement.
	err = apply(engine.Mutation{SuperColumn: []byte("d"), Range: &engine.NameRange{Start: long8(0), Finish: long8(5)}, Timestamp: 1000, Delete: true})
	var refused *engine.RefusedError
	if !errors.As(err, &refused) || !strings.Contains(err.Error(), "range deletion of subcolumns") {
		t.Errorf("a range deletion of subcolumns: %v", err)
	}
	// The row.
	if err := apply(engine.Mutation{Timestamp: 1000, Delete: true}); err != nil {
		t.Fatal(err)
	}
	if got := supers("k1", engine.Predicate{Count: 100}); got != "" {
		t.Errorf("after the row's deletion: %s", got)
	}
	if got := rangeKeys(); got != "k2=x:7=x7" {
		t.Errorf("range after k1's deletion: %s", got)
	}

	if after := columnTypes(t, s, ks, "Super1"); after != schemaBefore {
		t.Errorf("the table changed:\n%s\n%s", schemaBefore, after)
	}
	var n int
	if err := s.Query(`SELECT count(*) FROM system_schema.tables WHERE keyspace_name = ?`, ks).Scan(&n); err != nil || n != 1 {
		t.Errorf("the adopted keyspace holds %d tables (%v), want its 1", n, err)
	}
}
