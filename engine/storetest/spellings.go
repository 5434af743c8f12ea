package storetest

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// dynName is a DynamicCompositeType name of one AsciiType component,
// its type spelled as given (one character: an alias).
func dynName(spelling, value string) []byte {
	var out []byte
	if len(spelling) == 1 {
		out = append(out, 0x80, spelling[0])
	} else {
		out = binary.BigEndian.AppendUint16(out, uint16(len(spelling)))
		out = append(out, spelling...)
	}
	out = binary.BigEndian.AppendUint16(out, uint16(len(value)))
	return append(append(out, value...), 0)
}

// renderSpelled prints columns as "spelling:value=v@ts".
func renderSpelled(cols []engine.Column) string {
	var parts []string
	for _, c := range cols {
		n := c.Name
		var spelling string
		if n[0]&0x80 != 0 {
			spelling, n = string(n[1]), n[2:]
		} else {
			l := int(binary.BigEndian.Uint16(n))
			spelling, n = string(n[2:2+l]), n[2+l:]
		}
		l := int(binary.BigEndian.Uint16(n))
		parts = append(parts, fmt.Sprintf("%s:%s=%s@%d", spelling, n[2:2+l], c.Value, c.Timestamp))
	}
	return strings.Join(parts, " ")
}

// The spellings of one DynamicCompositeType name (a component's type by
// alias, short or full class name) are one column, as in Cassandra 1.2:
// the version that wins, with the name it was written with, found by any
// spelling and counted once.
func testSpellingsAreOneColumn(t *testing.T, h Harness) {
	st, s := h.schemaStore(t)
	c, err := marshal.Parse("DynamicCompositeType(a=>AsciiType,b=>BytesType)")
	if err != nil {
		t.Fatal(err)
	}
	next := Clone(s, version(2))
	next.Keyspaces[Keyspace].ColumnFamilies["Dyn"] = &schema.ColumnFamily{Keyspace: Keyspace, Name: "Dyn", Comparator: c, Types12: true}
	change(t, st, next)
	put := func(key, spelling, value string, ts int64) engine.RowMutation {
		return engine.RowMutation{Key: key, Mutations: []engine.Mutation{{ColumnFamily: "Dyn", Name: dynName(spelling, "x"), Value: []byte(value), Timestamp: ts}}}
	}
	get := func(key string, p engine.Predicate) string {
		t.Helper()
		r, err := st.Get(ctx, Keyspace, key, engine.Query{ColumnFamily: "Dyn", Predicate: p})
		if err != nil {
			t.Fatal(err)
		}
		return renderSpelled(r.Columns)
	}
	full := "org.apache.cassandra.db.marshal.AsciiType"
	other := engine.RowMutation{Key: "k", Mutations: []engine.Mutation{{ColumnFamily: "Dyn", Name: dynName("a", "y"), Value: []byte("o"), Timestamp: 1}}}
	applyIn(t, st, Keyspace, put("k", "AsciiType", "v1", 1), put("k", "a", "v2", 3), put("k", full, "v3", 2), other)
	Expect(t, get("k", All(10)), "a:x=v2@3 a:y=o@1")
	Expect(t, get("k", All(1)), "a:x=v2@3")
	Expect(t, get("k", engine.Predicate{Start: dynName(full, "x"), Finish: dynName("AsciiType", "x"), Count: 10}), "a:x=v2@3")
	Expect(t, get("k", engine.Predicate{Start: dynName("AsciiType", "x"), Count: 10, Reversed: true}), "a:x=v2@3")
	Expect(t, get("k", engine.Predicate{Names: [][]byte{dynName(full, "x"), dynName("AsciiType", "x")}}), "a:x=v2@3")
	n, err := st.Count(ctx, Keyspace, "k", "Dyn", nil)
	if err != nil || n != 2 {
		t.Errorf("Count: %d, %v; want 2", n, err)
	}
	// A deletion of another spelling deletes it; a later write brings it
	// back, an earlier one does not.
	applyIn(t, st, Keyspace, engine.RowMutation{Key: "k", Mutations: []engine.Mutation{{ColumnFamily: "Dyn", Name: dynName(full, "x"), Timestamp: 4, Delete: true}}})
	Expect(t, get("k", All(10)), "a:y=o@1")
	applyIn(t, st, Keyspace, put("k", "AsciiType", "v5", 3))
	Expect(t, get("k", All(10)), "a:y=o@1")
	applyIn(t, st, Keyspace, put("k", "AsciiType", "v6", 5))
	Expect(t, get("k", All(10)), "AsciiType:x=v6@5 a:y=o@1")

	// At one timestamp the greater value wins, whichever was written
	// last; with equal values too, the greater name, in either direction.
	applyIn(t, st, Keyspace, put("t", "AsciiType", "b", 7), put("t", "a", "a", 7))
	Expect(t, get("t", All(10)), "AsciiType:x=b@7")
	applyIn(t, st, Keyspace, put("u", "a", "c", 7), put("u", full, "c", 7))
	Expect(t, get("u", All(10)), "a:x=c@7")
	Expect(t, get("u", engine.Predicate{Count: 10, Reversed: true}), "a:x=c@7")

	// Subcolumns too, read by their super column or whole.
	bytesType, err := marshal.Parse("BytesType")
	if err != nil {
		t.Fatal(err)
	}
	next = Clone(next, version(3))
	next.Keyspaces[Keyspace].ColumnFamilies["DynSuper"] = &schema.ColumnFamily{Keyspace: Keyspace, Name: "DynSuper", Super: true,
		Comparator: bytesType, SubComparator: c, Types12: true}
	change(t, st, next)
	sub := func(spelling, value string, ts int64) engine.Mutation {
		return engine.Mutation{ColumnFamily: "DynSuper", SuperColumn: []byte("s"), Name: dynName(spelling, "x"), Value: []byte(value), Timestamp: ts}
	}
	applyIn(t, st, Keyspace, engine.RowMutation{Key: "k", Mutations: []engine.Mutation{sub("a", "v1", 1), sub(full, "v2", 2), sub("AsciiType", "v0", 0)}})
	r, err := st.Get(ctx, Keyspace, "k", engine.Query{ColumnFamily: "DynSuper", SuperColumn: []byte("s"), Predicate: All(10)})
	if err != nil {
		t.Fatal(err)
	}
	Expect(t, renderSpelled(r.Columns), full+":x=v2@2")
	r, err = st.Get(ctx, Keyspace, "k", engine.Query{ColumnFamily: "DynSuper", Predicate: All(10)})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.SuperColumns) != 1 {
		t.Fatalf("super columns: %+v", r.SuperColumns)
	}
	Expect(t, renderSpelled(r.SuperColumns[0].Columns), full+":x=v2@2")
}
