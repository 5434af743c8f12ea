package cqlstore

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
)

// asciiDyn is a DynamicCompositeType name of one AsciiType component, its
// type spelled as given (one character: an alias).
func asciiDyn(spelling, value string) []byte {
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

// TestSpellingsStoredBefore: a table where an earlier thriftd stored two
// spellings of one DynamicCompositeType name as two rows (plain inserts,
// no deletion of the other spelling) reads as one column, the later one,
// and a count limited to one still finds the next name.
func TestSpellingsStoredBefore(t *testing.T) {
	base := storetest.TestSchema(t, "RandomPartitioner")
	st, o := openFresh(t, base, 864000)
	next := with19(base, "D", family12(t, "Dyn", "DynamicCompositeType(a=>AsciiType,b=>BytesType)"))
	change(t, st, next, "1")
	table := quote(keyspaceName(o.Prefix, "D")) + `."Dyn"`
	c := next.Keyspaces["D"].ColumnFamilies["Dyn"].Comparator
	for _, w := range []struct {
		spelling, name, value string
		ts                    int64
	}{{"AsciiType", "x", "old", 2}, {"a", "x", "new", 3}, {"org.apache.cassandra.db.marshal.AsciiType", "x", "older", 1}, {"a", "y", "next", 1}} {
		enc := encodeName(c, asciiDyn(w.spelling, w.name))
		if err := st.session.Query(`INSERT INTO `+table+` (key, column1, value) VALUES ('k', ?, ?) USING TIMESTAMP ?`, enc, w.value, w.ts).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		p    engine.Predicate
		want string
	}{
		{storetest.All(10), "new@3 next@1"},
		{storetest.All(1), "new@3"},
		{engine.Predicate{Count: 1, Reversed: true}, "next@1"},
		{engine.Predicate{Start: asciiDyn("AsciiType", "x"), Count: 2, Reversed: true}, "new@3"},
		{engine.Predicate{Names: [][]byte{asciiDyn("org.apache.cassandra.db.marshal.AsciiType", "x")}}, "new@3"},
	} {
		row, err := st.Get(ctx, "D", "k", engine.Query{ColumnFamily: "Dyn", Predicate: tc.p})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for i, col := range row.Columns {
			if i > 0 {
				got += " "
			}
			got += fmt.Sprintf("%s@%d", col.Value, col.Timestamp)
		}
		if got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.p, got, tc.want)
		}
	}
	if n, err := st.Count(ctx, "D", "k", "Dyn", nil); err != nil || n != 2 {
		t.Errorf("Count: %d, %v; want 2", n, err)
	}
}
