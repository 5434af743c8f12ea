package cqlstore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// TestLayoutOf checks that each table shape gets its own layout, chosen
// when the family is built, and that a shape's plain copy keeps thriftd's
// own.
func TestLayoutOf(t *testing.T) {
	counter, err := marshal.Parse("CounterColumnType")
	if err != nil {
		t.Fatal(err)
	}
	def := func(v marshal.Comparator) *schema.ColumnFamily {
		return &schema.ColumnFamily{Name: "cf", Comparator: marshal.BytesType{}, DefaultValidator: v}
	}
	own := newFamily(def(marshal.BytesType{}), `"ks"."cf"`, false)
	typed := familyOf(def(marshal.BytesType{}), `"ks"."cf"`, tableColumns{types: map[string]string{"key": "blob", "column1": "text", "value": "blob", "ghost": "blob"}})
	blobNames := familyOf(def(marshal.BytesType{}), `"ks"."cf"`, tableColumns{types: map[string]string{"key": "text", "column1": "blob", "value": "blob", "ghost": "blob"}})
	compact := adoptedFamily(def(marshal.BytesType{}), AdoptedTable{Keyspace: "ks", Name: "cf", Shape: ShapeDynamic, Key: "key", Clustering: []string{"column1"}, Value: "value"})
	counters := newFamily(def(counter), `"ks"."cf"`, false)
	static := newFamily(def(marshal.BytesType{}), `"ks"."cf"`, false)
	withStatics(static, []string{"s"})
	composite := newFamily(def(marshal.BytesType{}), `"ks"."cf"`, false)
	withComposite(composite, []string{"a", "b"}, []bool{false, false})
	super := newFamily(def(marshal.BytesType{}), `"ks"."cf"`, false)
	withSuper(super)
	counterComposite := newFamily(def(counter), `"ks"."cf"`, false)
	withComposite(counterComposite, []string{"a", "b"}, []bool{false, false})
	for _, c := range []struct {
		name string
		f    *family
		want tableLayout
	}{
		{"own", own, blobLayout{}},
		{"19.x, typed names", typed, typedLayout{}},
		{"19.x, blob names", blobNames, blobLayout{}},
		{"adopted compact", compact, typedLayout{}},
		{"counters", counters, counterLayout{cells: blobLayout{}}},
		{"static", static, staticLayout{}},
		{"static's plain copy", static.adopt.plain, blobLayout{}},
		{"composite", composite, compositeLayout{}},
		{"super", super, superLayout{}},
		{"counters of a composite table", counterComposite, counterLayout{cells: compositeLayout{}}},
	} {
		if c.f.layout != c.want {
			t.Errorf("%s: layout %T, want %T", c.name, c.f.layout, c.want)
		}
	}
}

// TestSelectTexts checks the texts columnsSelect keeps per family against
// the statements it sent when it built each per call: one text per shape,
// the same for every call of that shape.
func TestSelectTexts(t *testing.T) {
	f := newFamily(&schema.ColumnFamily{Name: "cf", Comparator: marshal.BytesType{}, DefaultValidator: marshal.BytesType{}}, `"ks"."cf"`, false)
	st := &Store{}
	for _, c := range []struct {
		q    engine.Query
		many bool
		want string
	}{
		{engine.Query{Predicate: engine.Predicate{Count: 10}}, false,
			`SELECT column1, value, writetime(value), ttl(value) FROM "ks"."cf" WHERE key = ? LIMIT ?`},
		{engine.Query{Predicate: engine.Predicate{Count: 10, Start: []byte("a"), Finish: []byte("z")}}, false,
			`SELECT column1, value, writetime(value), ttl(value) FROM "ks"."cf" WHERE key = ? AND column1 >= ? AND column1 <= ? LIMIT ?`},
		{engine.Query{Predicate: engine.Predicate{Count: 10, Start: []byte("z"), Reversed: true}}, false,
			`SELECT column1, value, writetime(value), ttl(value) FROM "ks"."cf" WHERE key = ? AND column1 <= ? ORDER BY column1 DESC LIMIT ?`},
		{engine.Query{Predicate: engine.Predicate{Names: [][]byte{[]byte("b"), []byte("a")}}}, false,
			`SELECT column1, value, writetime(value), ttl(value) FROM "ks"."cf" WHERE key = ? AND column1 IN ?`},
		{engine.Query{Predicate: engine.Predicate{Count: 3, Finish: []byte("q")}}, true,
			`SELECT key, column1, value, writetime(value), ttl(value) FROM "ks"."cf" WHERE key IN ? AND column1 <= ? PER PARTITION LIMIT ?`},
		{engine.Query{SuperColumn: []byte("s"), Predicate: engine.Predicate{Count: -1}}, false,
			`SELECT column1, value, writetime(value), ttl(value) FROM "ks"."cf" WHERE key = ? AND super_column = ?`},
	} {
		for range 2 {
			sel := st.columnsSelect(f, c.q, raw("k"), c.many)
			if sel.stmt != c.want {
				t.Errorf("%+v many %v:\n got %s\nwant %s", c.q, c.many, sel.stmt, c.want)
			}
			if n := strings.Count(sel.stmt, "?"); n != len(sel.args) {
				t.Errorf("%s: %d arguments for %d markers: %s", sel.stmt, len(sel.args), n, fmt.Sprint(sel.args...))
			}
		}
	}
}

// TestCasTexts checks the compare-and-set statements a family keeps per
// row shape: the texts casBatch built on each call before, built once.
func TestCasTexts(t *testing.T) {
	f := newFamily(&schema.ColumnFamily{Name: "cf", Comparator: marshal.BytesType{}, DefaultValidator: marshal.BytesType{}}, `"ks"."cf"`, false)
	got := f.texts.cas.texts(f, []string{"column1"}, "value", false)
	want := casStatements{
		insert:    `INSERT INTO "ks"."cf" (key, column1, value) VALUES (?, ?, ?)`,
		insertNew: `INSERT INTO "ks"."cf" (key, column1, value) VALUES (?, ?, ?) IF NOT EXISTS`,
		delete:    `DELETE FROM "ks"."cf" WHERE key = ? AND column1 = ?`,
		update:    `UPDATE "ks"."cf" SET value = ? WHERE key = ? AND column1 = ? IF value = ?`,
		updateTTL: `UPDATE "ks"."cf" USING TTL ? SET value = ? WHERE key = ? AND column1 = ? IF value = ?`,
	}
	if *got != want {
		t.Errorf("got %+v\nwant %+v", *got, want)
	}
	if again := f.texts.cas.texts(f, []string{"column1"}, "value", false); again != got {
		t.Error("the texts were built again")
	}
	comp := f.texts.cas.texts(f, []string{"a", "b"}, "blob_value", true)
	if w := `INSERT INTO "ks"."cf" (key, a, b, blob_value, name_components) VALUES (?, ?, ?, ?, ?)`; comp.insert != w {
		t.Errorf("composite insert %s, want %s", comp.insert, w)
	}
	if w := `DELETE FROM "ks"."cf" WHERE key = ? AND a = ? AND b = ?`; comp.delete != w {
		t.Errorf("composite delete %s, want %s", comp.delete, w)
	}
}
