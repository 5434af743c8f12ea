package cqlstore

import "testing"

// TestSuperLayoutColumns: a super column family served in place lists the
// column_metadata 3.11.19 listed for it before DROP COMPACT STORAGE (its
// describe_keyspace of a super family of LongType subcolumns and UTF8Type
// values): "" MapType(LongType,UTF8Type), then value UTF8Type.
func TestSuperLayoutColumns(t *testing.T) {
	got := classifyTable("ks", "sup", tableInfo{flagsRead: true, flags: []string{"compound"}}, []cqlColumn{
		{name: "key", kind: "partition_key", typ: "text"},
		{name: "column1", kind: "clustering", order: "asc", typ: "text"},
		{name: "", kind: "regular", typ: "map<bigint, text>"},
	})
	if !got.Servable() || got.Shape != ShapeSuper {
		t.Fatalf("super shape: %+v", got)
	}
	const m = "org.apache.cassandra.db.marshal."
	want := []struct{ name, class string }{
		{"", m + "MapType(" + m + "LongType," + m + "UTF8Type)"},
		{"value", m + "UTF8Type"},
	}
	cols := got.Family.Columns
	if len(cols) != len(want) {
		t.Fatalf("column_metadata %+v, want %v", cols, want)
	}
	for i, w := range want {
		if string(cols[i].Name) != w.name || cols[i].Validator.Name() != w.class || cols[i].Index != nil {
			t.Errorf("column %d: %q %s, want %q %s", i, cols[i].Name, cols[i].Validator.Name(), w.name, w.class)
		}
	}
}
