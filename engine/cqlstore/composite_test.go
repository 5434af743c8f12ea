package cqlstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// family12 is a 19.x Standard column family whose comparator is a 1.2
// type (marshal.Parse), as the catalog resolves a family created
// through the 19.x API.
func family12(t testing.TB, name, comparatorClass string) *schema.ColumnFamily {
	t.Helper()
	c, err := marshal.Parse(comparatorClass)
	if err != nil {
		t.Fatal(err)
	}
	f := dynamic(t, name, "UTF8Type", "BytesType", "UTF8Type")
	f.Comparator = c
	return f
}

// showComposite prints a composite name of a text and a bigint
// component: "a:5", or "a" for a name of one component.
func showComposite(name []byte) string {
	comps, err := splitComposite(name)
	if err != nil {
		return fmt.Sprintf("%x", name)
	}
	out := string(comps[0])
	if len(comps) > 1 {
		out += fmt.Sprintf(":%d", int64(beUint64(comps[1])))
	}
	return out
}

// TestCompositeLayout: a 19.x family whose comparator is a CompositeType
// of natively stored components, or a ReversedType of one, is the table
// DROP COMPACT STORAGE leaves of it (a clustering column per component,
// DESC for a reversed one), read and written through the store with 1.2's
// CompositeType semantics and by CQL as plain columns; one with a
// component CQL cannot order as 1.2 keeps the blob column1, and a table
// of that earlier layout is still served.
func TestCompositeLayout(t *testing.T) {
	base := storetest.TestSchema(t, "RandomPartitioner")
	st, o := openFresh(t, base, 864000)
	next := with19(base, "C",
		family12(t, "Comp", "CompositeType(UTF8Type,LongType)"),
		family12(t, "CompDesc", "CompositeType(UTF8Type,ReversedType(LongType))"),
		family12(t, "DescFirst", "CompositeType(ReversedType(UTF8Type),LongType)"),
		family12(t, "Rev", "LongType(reversed=true)"),
		family12(t, "CompDate", "CompositeType(UTF8Type,DateType)"),
		family12(t, "Old", "CompositeType(UTF8Type,LongType)"),
		family12(t, "OldRev", "ReversedType(LongType)"))
	change(t, st, next, "1")
	ks := keyspaceName(o.Prefix, "C")
	expectColumns(t, st.session, ks, map[string]string{
		"Comp":     "column1 text clustering asc, column2 bigint clustering asc, ghost blob static, key text partition_key, name_components int regular, value text regular, written_ttl int regular",
		"CompDesc": "column1 text clustering asc, column2 bigint clustering desc, ghost blob static, key text partition_key, name_components int regular, value text regular, written_ttl int regular",
		"Rev":      "column1 bigint clustering desc, ghost blob static, key text partition_key, value text regular, written_ttl int regular",
		"CompDate": "column1 blob clustering asc, ghost blob static, key text partition_key, value text regular, written_ttl int regular",
	})
	ctx := context.Background()
	L := storetest.Long
	names := [][]byte{
		compositeName(0, []byte("b"), L(0)), compositeName(0, []byte("a"), L(1)), compositeName(0, []byte("a"), L(-1)),
		compositeName(0, []byte("a")), compositeName(0, []byte("c"), L(7)), compositeName(0, []byte(""), L(3)),
	}
	put := func(st *Store, cf, key string, name []byte, value string, ts int64, ttl int32) {
		t.Helper()
		apply(t, st, "C", engine.RowMutation{Key: key, Mutations: []engine.Mutation{
			{ColumnFamily: cf, Name: name, Value: []byte(value), Timestamp: ts, TTL: ttl}}})
	}
	read := func(st *Store, cf, key string, p engine.Predicate) string {
		t.Helper()
		row, err := st.Get(ctx, "C", key, engine.Query{ColumnFamily: cf, Predicate: p})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range row.Columns {
			line := showComposite(c.Name) + "=" + string(c.Value)
			if c.TTL > 0 {
				line += fmt.Sprintf("/%d", c.TTL)
			}
			out = append(out, line)
		}
		return strings.Join(out, " ")
	}
	// want is every name in cf's comparator order, as 1.2 ordered them.
	want := func(cf string, reversed bool, names [][]byte) string {
		c := next.Keyspaces["C"].ColumnFamilies[cf].Comparator
		sorted := append([][]byte(nil), names...)
		sort.Slice(sorted, func(i, j int) bool { return (c.Compare(sorted[i], sorted[j]) < 0) != reversed })
		var out []string
		for _, n := range sorted {
			out = append(out, showComposite(n)+"="+showComposite(n))
		}
		return strings.Join(out, " ")
	}
	for _, cf := range []string{"Comp", "CompDesc", "DescFirst", "CompDate", "Old"} {
		for i, n := range names {
			put(st, cf, "k", n, showComposite(n), int64(i+1), 0)
		}
		if g, w := read(st, cf, "k", storetest.All(100)), want(cf, false, names); g != w {
			t.Errorf("%s in order:\n %s\nwant\n %s", cf, g, w)
		}
		if g, w := read(st, cf, "k", engine.Predicate{Reversed: true, Count: 100}), want(cf, true, names); g != w {
			t.Errorf("%s reversed:\n %s\nwant\n %s", cf, g, w)
		}
	}

	// Bounds of fewer components, with each end-of-component byte.
	for _, tc := range []struct {
		p    engine.Predicate
		want string
	}{
		{engine.Predicate{Start: compositeName(0, []byte("a")), Finish: compositeName(1, []byte("a")), Count: 10}, "a=a a:-1=a:-1 a:1=a:1"},
		{engine.Predicate{Start: compositeName(1, []byte("a")), Count: 2}, "b:0=b:0 c:7=c:7"},
		{engine.Predicate{Start: compositeName(0xff, []byte("b")), Finish: compositeName(0, []byte("b"), L(0)), Count: 10}, "b:0=b:0"},
		{engine.Predicate{Start: compositeName(1, []byte("b")), Finish: compositeName(0xff, []byte("a")), Reversed: true, Count: 10}, "b:0=b:0 a:1=a:1 a:-1=a:-1 a=a"},
		{engine.Predicate{Names: [][]byte{compositeName(0, []byte("a")), compositeName(0, []byte("c"), L(7)), compositeName(0, []byte("z"), L(7))}}, "a=a c:7=c:7"},
	} {
		if g := read(st, "Comp", "k", tc.p); g != tc.want {
			t.Errorf("Comp %+v: %s, want %s", tc.p, g, tc.want)
		}
	}
	if n, err := st.Count(ctx, "C", "k", "Comp", nil); err != nil || n != len(names) {
		t.Errorf("count %d, %v", n, err)
	}

	// Read by CQL: a column per component, the one-component name with
	// an empty second component.
	iter := st.session.Query(`SELECT column1, column2, value FROM ` + quote(ks) + `."Comp" WHERE key = 'k'`).Iter()
	var c1, v string
	var c2 raw
	var rows []string
	for iter.Scan(&c1, &c2, &v) {
		s := c1
		if len(c2) > 0 {
			s += fmt.Sprintf(":%d", int64(beUint64(c2)))
		}
		rows = append(rows, s+"="+v)
		c2 = nil
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if g, w := strings.Join(rows, " "), want("Comp", false, names); g != w {
		t.Errorf("CQL reads Comp:\n %s\nwant\n %s", g, w)
	}
	// Written by CQL, read through the store.
	if err := st.session.Query(`INSERT INTO `+quote(ks)+`."CompDesc" (key, column1, column2, value) VALUES ('cql', 'x', ?, 'x:9') USING TIMESTAMP 5`, int64(9)).Exec(); err != nil {
		t.Fatal(err)
	}
	if err := st.session.Query(`INSERT INTO `+quote(ks)+`."CompDesc" (key, column1, column2, value) VALUES ('cql', 'x', ?, 'x:10') USING TIMESTAMP 5`, int64(10)).Exec(); err != nil {
		t.Fatal(err)
	}
	if g := read(st, "CompDesc", "cql", storetest.All(10)); g != "x:10=x:10 x:9=x:9" {
		t.Errorf("the store reads CQL's CompDesc rows %q", g)
	}

	// Deletion of one name (a one-component name is its own row), a TTL
	// as written, and a range ghost.
	apply(t, st, "C", engine.RowMutation{Key: "k", Mutations: []engine.Mutation{
		{ColumnFamily: "Comp", Name: compositeName(0, []byte("a")), Delete: true, Timestamp: 100}}})
	put(st, "Comp", "k", compositeName(0, []byte("d"), L(1)), "d", 100, 600)
	if g := read(st, "Comp", "k", engine.Predicate{Start: compositeName(0, []byte("a")), Finish: compositeName(1, []byte("a")), Count: 10}); g != "a:-1=a:-1 a:1=a:1" {
		t.Errorf("after deleting a: %s", g)
	}
	if g := read(st, "Comp", "k", engine.Predicate{Start: compositeName(0, []byte("d")), Count: 10}); g != "d:1=d/600" {
		t.Errorf("expiring column: %s", g)
	}
	// A name whose last components are empty reads back as written, as
	// does the shorter name of another row (name_components).
	full, short := compositeName(0, []byte("e"), []byte{}), compositeName(0, []byte("f"))
	put(st, "Comp", "trail", full, "e", 1, 0)
	put(st, "Comp", "trail", short, "f", 1, 0)
	if row, err := st.Get(ctx, "C", "trail", engine.Query{ColumnFamily: "Comp", Predicate: storetest.All(10)}); err != nil || len(row.Columns) != 2 ||
		!bytes.Equal(row.Columns[0].Name, full) || !bytes.Equal(row.Columns[1].Name, short) {
		t.Errorf("names with empty last components: %+v, %v; want %x and %x", row.Columns, err, full, short)
	}
	put(st, "Comp", "gone", compositeName(0, []byte("a"), L(1)), "x", 1, 0)
	apply(t, st, "C", engine.RowMutation{Key: "gone", Mutations: []engine.Mutation{{ColumnFamily: "Comp", Delete: true, Timestamp: 2}}})
	expectRangeGhost(t, st, "C", "Comp", "gone")
	// A name whose last component has a non-zero end-of-component byte
	// has no row to stand for it.
	err := st.Apply(ctx, "C", []engine.RowMutation{{Key: "k", Mutations: []engine.Mutation{
		{ColumnFamily: "Comp", Name: compositeName(1, []byte("a")), Value: []byte("x"), Timestamp: 1}}}})
	var refused *engine.RefusedError
	if !errors.As(err, &refused) || !strings.Contains(refused.Why, "end-of-component") {
		t.Errorf("a name ending with EOC 1: %v, want an engine.RefusedError naming the end-of-component byte", err)
	}

	// Compare-and-set names rows by their components.
	cas := func(expected []engine.Column, updates ...engine.Mutation) bool {
		t.Helper()
		ok, _, err := st.CompareAndSet(engine.WithConsistency(ctx, engine.Quorum), "C", "cas", engine.CAS{ColumnFamily: "CompDesc", Expected: expected, Updates: updates})
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	x1, x2 := compositeName(0, []byte("x"), L(1)), compositeName(0, []byte("x"))
	if !cas(nil, engine.Mutation{ColumnFamily: "CompDesc", Name: x1, Value: []byte("1")}) ||
		cas(nil, engine.Mutation{ColumnFamily: "CompDesc", Name: x2, Value: []byte("2")}) ||
		!cas([]engine.Column{{Name: x1, Value: []byte("1")}}, engine.Mutation{ColumnFamily: "CompDesc", Name: x2, Value: []byte("x")},
			engine.Mutation{ColumnFamily: "CompDesc", Name: x1, Value: []byte("x:1")}) {
		t.Error("cas on a composite family: a condition was not applied as expected")
	}
	if g := read(st, "CompDesc", "cas", storetest.All(10)); g != "x=x x:1=x:1" {
		t.Errorf("after cas: %s", g)
	}

	// ReversedType: DESC, sliced in its order.
	for _, n := range []int64{5, -3, 0, 1 << 40} {
		put(st, "Rev", "k", L(n), fmt.Sprint(n), 1, 0)
	}
	revRead := func(p engine.Predicate) string {
		row, err := st.Get(ctx, "C", "k", engine.Query{ColumnFamily: "Rev", Predicate: p})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range row.Columns {
			out = append(out, string(c.Value))
		}
		return strings.Join(out, " ")
	}
	if g := revRead(storetest.All(10)); g != "1099511627776 5 0 -3" {
		t.Errorf("Rev in order: %s", g)
	}
	if g := revRead(engine.Predicate{Start: L(5), Finish: L(-3), Count: 10}); g != "5 0 -3" {
		t.Errorf("Rev from 5 to -3: %s", g)
	}
	if g := revRead(engine.Predicate{Start: L(0), Reversed: true, Count: 10}); g != "0 5 1099511627776" {
		t.Errorf("Rev reversed from 0: %s", g)
	}
	var first int64
	if err := st.session.Query(`SELECT column1 FROM ` + quote(ks) + `."Rev" WHERE key = 'k' LIMIT 1`).Scan(&first); err != nil || first != 1<<40 {
		t.Errorf("CQL reads Rev's first name %d, %v", first, err)
	}

	// A table of the earlier layout (one blob column1 of the encoded
	// names), served by a store opened on it.
	for _, q := range []string{`DROP TABLE ` + quote(ks) + `."Old"`, `DROP TABLE ` + quote(ks) + `."OldRev"`,
		`CREATE TABLE ` + quote(ks) + `."Old" (key text, column1 blob, value text, ghost blob static, written_ttl int, PRIMARY KEY (key, column1))`,
		`CREATE TABLE ` + quote(ks) + `."OldRev" (key text, column1 blob, value text, ghost blob static, written_ttl int, PRIMARY KEY (key, column1))`} {
		if err := st.session.Query(q).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	other := openAnother(t, base, o)
	change(t, other, next, "1")
	for i, n := range names {
		put(other, "Old", "k", n, showComposite(n), int64(i+1), 0)
	}
	if g, w := read(other, "Old", "k", storetest.All(100)), want("Old", false, names); g != w {
		t.Errorf("Old in order:\n %s\nwant\n %s", g, w)
	}
	var enc raw
	if err := other.session.Query(`SELECT column1 FROM ` + quote(ks) + `."Old" WHERE key = 'k' LIMIT 1`).Scan(&enc); err != nil {
		t.Fatal(err)
	}
	c := next.Keyspaces["C"].ColumnFamilies["Old"].Comparator
	if dec, err := decodeName(c, enc); err != nil || c.Compare(dec, compositeName(0, []byte(""), L(3))) != 0 {
		t.Errorf("Old's first stored name %x decodes to %x, %v", []byte(enc), dec, err)
	}
	for _, n := range []int64{5, -3, 1 << 40} {
		put(other, "OldRev", "k", L(n), fmt.Sprint(n), 1, 0)
	}
	row, err := other.Get(ctx, "C", "k", engine.Query{ColumnFamily: "OldRev", Predicate: engine.Predicate{Start: L(5), Count: 10}})
	if err != nil || len(row.Columns) != 2 || string(row.Columns[0].Value) != "5" || string(row.Columns[1].Value) != "-3" {
		t.Errorf("OldRev from 5: %+v, %v", row.Columns, err)
	}
}

// TestUnboundableStart: a slice bound that the clustering column's CQL
// type refuses (get_paged_slice's start column, which 1.2 did not
// validate) is placed where its encoding falls among the names, as on the
// LevelDB store, instead of failing in the cluster.
func TestUnboundableStart(t *testing.T) {
	base := storetest.TestSchema(t, "RandomPartitioner")
	st, _ := openFresh(t, base, 864000)
	next := with19(base, "U", family12(t, "Utf", "UTF8Type"), family12(t, "Long", "LongType"))
	change(t, st, next, "1")
	ctx := context.Background()
	L := storetest.Long
	for _, n := range [][]byte{[]byte("a"), []byte("é"), []byte("z")} {
		apply(t, st, "U", engine.RowMutation{Key: "k", Mutations: []engine.Mutation{{ColumnFamily: "Utf", Name: n, Value: n, Timestamp: 1}}})
	}
	for _, n := range []int64{-3, 1 << 62, 0x7f << 56} {
		apply(t, st, "U", engine.RowMutation{Key: "k", Mutations: []engine.Mutation{{ColumnFamily: "Long", Name: L(n), Value: []byte(fmt.Sprint(n)), Timestamp: 1}}})
	}
	for _, tc := range []struct {
		cf    string
		start []byte
		count int
		want  string
	}{
		{"Utf", []byte{0xc3, 0x28}, 10, "é"},             // invalid UTF-8, before "é" (c3 a9)
		{"Utf", []byte{0x62, 0xff}, 1, "z"},              // after "a", the count applied after it
		{"Long", []byte("x"), 10, "9151314442816847872"}, // 0x78 padded: after 1<<62
	} {
		rows, err := st.Range(ctx, "U", engine.TokenRange{}, engine.Query{ColumnFamily: tc.cf, Predicate: engine.Predicate{Start: tc.start, Count: tc.count}}, 1)
		if err != nil {
			t.Errorf("%s from %x: %v", tc.cf, tc.start, err)
			continue
		}
		var got []string
		for _, c := range rows[0].Columns {
			got = append(got, string(c.Value))
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%s from %x: %q, want %q", tc.cf, tc.start, g, tc.want)
		}
	}
}

// firstBounds restricts the first clustering column in the column's own
// order: the reverse of a ReversedType component's.
func TestFirstBounds(t *testing.T) {
	L := storetest.Long
	for _, tc := range []struct {
		typ  string
		p    engine.Predicate
		want string
	}{
		{"CompositeType(UTF8Type,LongType)", engine.Predicate{Start: compositeName(0, []byte("a")), Finish: compositeName(1, []byte("b"), L(1))},
			` AND "column1" >= ? AND "column1" <= ? [a b]`},
		{"CompositeType(UTF8Type,LongType)", engine.Predicate{Start: compositeName(0, []byte("b")), Reversed: true},
			` AND "column1" <= ? [b]`},
		{"CompositeType(ReversedType(UTF8Type),LongType)", engine.Predicate{Start: compositeName(0, []byte("b")), Finish: compositeName(0, []byte("a"))},
			` AND "column1" <= ? AND "column1" >= ? [b a]`},
		{"CompositeType(ReversedType(UTF8Type),LongType)", engine.Predicate{Start: compositeName(0, []byte("a")), Reversed: true},
			` AND "column1" >= ? [a]`},
		// An empty first component, one the type refuses, and a bound that
		// is no composite are left out.
		{"CompositeType(UTF8Type,LongType)", engine.Predicate{Start: compositeName(0, []byte("")), Finish: compositeName(0, []byte{0xff})}, ` []`},
		{"CompositeType(UTF8Type,LongType)", engine.Predicate{Start: []byte{0, 5, 'a'}}, ` []`},
	} {
		c, err := marshal.Parse(tc.typ)
		if err != nil {
			t.Fatal(err)
		}
		f := newFamily(family12(t, "F", tc.typ), `"K"."F"`, false)
		withComposite(f, []string{"column1", "column2"}, []bool{strings.Contains(tc.typ, "(ReversedType"), false})
		shape, args := f.adopt.firstBounds(c, tc.p)
		w := f.adopt.boundsText(c, shape)
		var vals []string
		for _, a := range args {
			vals = append(vals, string(a.(raw)))
		}
		if got := w + " [" + strings.Join(vals, " ") + "]"; got != tc.want {
			t.Errorf("%s %+v: %q, want %q", tc.typ, tc.p, got, tc.want)
		}
	}
}
