package storetest

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// RunSchema runs the contract tests of engine.SchemaStore and
// engine.Truncater, each as a subtest on a fresh store, which must
// implement both. The tests that restart the store need h.Reopen.
func RunSchema(t *testing.T, h Harness) {
	tests := []struct {
		name string
		fn   func(*testing.T, Harness)
	}{
		{"StoredSchemaIsNilUntilRecorded", testStoredSchemaIsNilUntilRecorded},
		{"ChangeSchemaRecordsTheEncoding", testChangeSchemaRecordsTheEncoding},
		{"NewFamilyStartsEmpty", testNewFamilyStartsEmpty},
		{"DroppedFamilyComesBackEmpty", testDroppedFamilyComesBackEmpty},
		{"DroppedKeyspaceComesBackEmpty", testDroppedKeyspaceComesBackEmpty},
		{"KeptFamiliesKeepTheirData", testKeptFamiliesKeepTheirData},
		{"SchemaSurvivesReopen", testSchemaSurvivesReopen},
		{"SchemaVersions", testSchemaVersions},
		{"TruncateKeepsLaterWrites", testTruncateKeepsLaterWrites},
		{"TruncateSurvivesReopen", testTruncateSurvivesReopen},
		{"SpellingsAreOneColumn", testSpellingsAreOneColumn},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, h)
		})
	}
}

// schemaStore opens a fresh store on the order-preserving partitioner and
// returns it with its schema.
func (h Harness) schemaStore(t *testing.T) (engine.Store, *schema.Schema) {
	t.Helper()
	s := TestSchema(t, "OrderPreservingPartitioner")
	s.Version = "00000000-0000-1000-8000-000000000001"
	st := h.Open(t, s)
	if _, ok := st.(engine.SchemaStore); !ok {
		t.Fatalf("%T does not implement engine.SchemaStore", st)
	}
	if _, ok := st.(engine.Truncater); !ok {
		t.Fatalf("%T does not implement engine.Truncater", st)
	}
	return st, s
}

// Clone copies s deeply enough to change its keyspaces and column
// families without touching s.
func Clone(s *schema.Schema, version string) *schema.Schema {
	out := *s
	out.Version = version
	out.Keyspaces = map[string]*schema.Keyspace{}
	for name, ks := range s.Keyspaces {
		k := *ks
		k.ColumnFamilies = map[string]*schema.ColumnFamily{}
		for n, cf := range ks.ColumnFamilies {
			c := *cf
			k.ColumnFamilies[n] = &c
		}
		out.Keyspaces[name] = &k
	}
	return &out
}

// change applies ChangeSchema with an encoding that names the version.
func change(t *testing.T, st engine.Store, next *schema.Schema) []byte {
	t.Helper()
	enc := []byte(fmt.Sprintf(`{"test schema":%q,"binary":"\x00\xff"}`, next.Version))
	if err := st.(engine.SchemaStore).ChangeSchema(ctx, next, enc); err != nil {
		t.Fatalf("ChangeSchema to %s: %v", next.Version, err)
	}
	return enc
}

func version(n int) string { return fmt.Sprintf("00000000-0000-1000-8000-%012d", n) }

func standard(keyspace, name string) *schema.ColumnFamily {
	c, err := marshal.Lookup("BytesType")
	if err != nil {
		panic(err)
	}
	return &schema.ColumnFamily{Keyspace: keyspace, Name: name, Comparator: c}
}

func applyIn(t testing.TB, st engine.Store, keyspace string, rows ...engine.RowMutation) {
	t.Helper()
	if err := st.Apply(ctx, keyspace, rows); err != nil {
		t.Fatal(err)
	}
}

func getIn(t testing.TB, st engine.Store, keyspace, cf, key string) string {
	t.Helper()
	r, err := st.Get(ctx, keyspace, key, engine.Query{ColumnFamily: cf, Predicate: All(100)})
	if err != nil {
		t.Fatal(err)
	}
	return Render(r)
}

// rangeKeys lists the keys a whole-ring Range returns, ghosts included.
func rangeKeys(t testing.TB, st engine.Store, keyspace, cf string) string {
	t.Helper()
	rows, err := st.Range(ctx, keyspace, engine.TokenRange{StartInclusive: true}, engine.Query{ColumnFamily: cf, Predicate: All(100)}, 100)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for i, r := range rows {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(r.Key)
	}
	return b.String()
}

func testStoredSchemaIsNilUntilRecorded(t *testing.T, h Harness) {
	st, _ := h.schemaStore(t)
	got, err := st.(engine.SchemaStore).StoredSchema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got != nil {
		t.Fatalf("a fresh store has a recorded schema: %q", got)
	}
}

func testChangeSchemaRecordsTheEncoding(t *testing.T, h Harness) {
	st, s := h.schemaStore(t)
	next := Clone(s, version(2))
	enc := change(t, st, next)
	got, err := st.(engine.SchemaStore).StoredSchema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, enc) {
		t.Fatalf("StoredSchema = %q, want %q", got, enc)
	}
	third := Clone(next, version(3))
	enc = change(t, st, third)
	if got, _ = st.(engine.SchemaStore).StoredSchema(ctx); !bytes.Equal(got, enc) {
		t.Fatalf("after a second change StoredSchema = %q, want %q", got, enc)
	}
}

func testNewFamilyStartsEmpty(t *testing.T, h Harness) {
	st, s := h.schemaStore(t)
	Apply(t, st, Put("Standard1", "k", "a", "v", 1))
	next := Clone(s, version(2))
	next.Keyspaces[Keyspace].ColumnFamilies["Added"] = standard(Keyspace, "Added")
	change(t, st, next)
	Expect(t, getIn(t, st, Keyspace, "Added", "k"), "")
	Expect(t, rangeKeys(t, st, Keyspace, "Added"), "")
	applyIn(t, st, Keyspace, Put("Added", "k", "b", "w", 2))
	Expect(t, getIn(t, st, Keyspace, "Added", "k"), "b=w@2")
	Expect(t, Get(t, st, "Standard1", "k", nil, All(10)), "a=v@1")
}

func testDroppedFamilyComesBackEmpty(t *testing.T, h Harness) {
	st, s := h.schemaStore(t)
	Apply(t, st, Put("Standard2", "k1", "a", "v", 1), Put("Standard2", "k2", "a", "v", 1),
		PutSub("Super1", "k1", "sc", 1, "v", 1), Put("Standard1", "k1", "a", "kept", 1))
	dropped := Clone(s, version(2))
	delete(dropped.Keyspaces[Keyspace].ColumnFamilies, "Standard2")
	delete(dropped.Keyspaces[Keyspace].ColumnFamilies, "Super1")
	change(t, st, dropped)
	if err := st.Apply(ctx, Keyspace, []engine.RowMutation{Put("Standard2", "k3", "a", "v", 1)}); err == nil {
		t.Error("a write to a dropped column family was accepted")
	}
	back := Clone(s, version(3))
	change(t, st, back)
	Expect(t, getIn(t, st, Keyspace, "Standard2", "k1"), "")
	Expect(t, rangeKeys(t, st, Keyspace, "Standard2"), "")
	Expect(t, Get(t, st, "Super1", "k1", nil, All(10)), "")
	Expect(t, rangeKeys(t, st, Keyspace, "Super1"), "")
	Expect(t, Get(t, st, "Standard1", "k1", nil, All(10)), "a=kept@1")
	// A write older than the dropped data is kept: the new family has no
	// history at all.
	Apply(t, st, Put("Standard2", "k1", "b", "new", 0))
	Expect(t, Get(t, st, "Standard2", "k1", nil, All(10)), "b=new@0")
}

func testDroppedKeyspaceComesBackEmpty(t *testing.T, h Harness) {
	st, s := h.schemaStore(t)
	two := Clone(s, version(2))
	two.Keyspaces["Keyspace2"] = &schema.Keyspace{Name: "Keyspace2", ReplicationFactor: 1,
		ColumnFamilies: map[string]*schema.ColumnFamily{"CF": standard("Keyspace2", "CF")}}
	change(t, st, two)
	applyIn(t, st, "Keyspace2", Put("CF", "k", "a", "v", 5))
	Expect(t, getIn(t, st, "Keyspace2", "CF", "k"), "a=v@5")
	change(t, st, Clone(s, version(3)))
	change(t, st, Clone(two, version(4)))
	Expect(t, getIn(t, st, "Keyspace2", "CF", "k"), "")
	Expect(t, rangeKeys(t, st, "Keyspace2", "CF"), "")
}

func testKeptFamiliesKeepTheirData(t *testing.T, h Harness) {
	st, s := h.schemaStore(t)
	Apply(t, st, Put("Standard1", "k", "a", "v", 1), PutSub("Super1", "k", "sc", 7, "s", 1))
	next := Clone(s, version(2))
	cf := next.Keyspaces[Keyspace].ColumnFamilies["Standard1"]
	cf.Comment, cf.HasComment, cf.GCGraceSeconds = "changed", true, 60
	next.Keyspaces["Other"] = &schema.Keyspace{Name: "Other", ReplicationFactor: 1,
		ColumnFamilies: map[string]*schema.ColumnFamily{"Standard1": standard("Other", "Standard1")}}
	change(t, st, next)
	Expect(t, Get(t, st, "Standard1", "k", nil, All(10)), "a=v@1")
	Expect(t, Get(t, st, "Super1", "k", nil, All(10)), "sc{7=s@1}")
	Expect(t, getIn(t, st, "Other", "Standard1", "k"), "")
}

func testSchemaSurvivesReopen(t *testing.T, h Harness) {
	if h.Reopen == nil {
		t.Fatalf("the harness cannot reopen a store (Harness.Reopen is nil)")
	}
	st, s := h.schemaStore(t)
	Apply(t, st, Put("Standard1", "k", "a", "v", 1), Put("Standard2", "k", "a", "gone", 1))
	next := Clone(s, version(2))
	delete(next.Keyspaces[Keyspace].ColumnFamilies, "Standard2")
	next.Keyspaces[Keyspace].ColumnFamilies["Added"] = standard(Keyspace, "Added")
	enc := change(t, st, next)
	applyIn(t, st, Keyspace, Put("Added", "k", "b", "w", 2))

	st = h.Reopen(t, st, next)
	got, err := st.(engine.SchemaStore).StoredSchema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, enc) {
		t.Fatalf("after reopening StoredSchema = %q, want %q", got, enc)
	}
	Expect(t, Get(t, st, "Standard1", "k", nil, All(10)), "a=v@1")
	Expect(t, getIn(t, st, Keyspace, "Added", "k"), "b=w@2")

	back := Clone(s, version(3))
	back.Keyspaces[Keyspace].ColumnFamilies["Added"] = standard(Keyspace, "Added")
	change(t, st, back)
	Expect(t, Get(t, st, "Standard2", "k", nil, All(10)), "")
	Expect(t, getIn(t, st, Keyspace, "Added", "k"), "b=w@2")
}

func testSchemaVersions(t *testing.T, h Harness) {
	st, s := h.schemaStore(t)
	next := Clone(s, version(7))
	change(t, st, next)
	got, err := st.(engine.SchemaStore).SchemaVersions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got[next.Version]) == 0 {
		t.Fatalf("SchemaVersions = %v, want nodes holding %s", got, next.Version)
	}
	for v, nodes := range got {
		if v != next.Version && v != "UNREACHABLE" {
			t.Errorf("a node holds version %s (%v) after a change to %s", v, nodes, next.Version)
		}
	}
}

func testTruncateKeepsLaterWrites(t *testing.T, h Harness) {
	st, _ := h.schemaStore(t)
	tr := st.(engine.Truncater)
	Apply(t, st, Put("Standard1", "k1", "a", "v", 10), Put("Standard1", "k2", "a", "v", 10),
		Del("Standard1", "k3", nil, nil, 10), PutSub("Super1", "k1", "sc", 1, "v", 10),
		Put("Standard2", "k1", "a", "other", 10))
	if err := tr.Truncate(ctx, Keyspace, "Standard1"); err != nil {
		t.Fatal(err)
	}
	if err := tr.Truncate(ctx, Keyspace, "Super1"); err != nil {
		t.Fatal(err)
	}
	Expect(t, Get(t, st, "Standard1", "k1", nil, All(10)), "")
	Expect(t, rangeKeys(t, st, Keyspace, "Standard1"), "")
	Expect(t, Get(t, st, "Super1", "k1", nil, All(10)), "")
	Expect(t, Get(t, st, "Standard2", "k1", nil, All(10)), "a=other@10")
	// Writes after the truncation are kept whatever their timestamps.
	Apply(t, st, Put("Standard1", "k1", "b", "after", 1), PutSub("Super1", "k2", "sc", 2, "after", 1))
	Expect(t, Get(t, st, "Standard1", "k1", nil, All(10)), "b=after@1")
	Expect(t, Get(t, st, "Super1", "k2", nil, All(10)), "sc{2=after@1}")
	Expect(t, rangeKeys(t, st, Keyspace, "Standard1"), "k1")
	n, err := st.Count(ctx, Keyspace, "k1", "Standard1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("Count after truncate and one write = %d, want 1", n)
	}
}

func testTruncateSurvivesReopen(t *testing.T, h Harness) {
	if h.Reopen == nil {
		t.Fatalf("the harness cannot reopen a store (Harness.Reopen is nil)")
	}
	st, s := h.schemaStore(t)
	Apply(t, st, Put("Standard1", "k1", "a", "before", 10))
	if err := st.(engine.Truncater).Truncate(ctx, Keyspace, "Standard1"); err != nil {
		t.Fatal(err)
	}
	Apply(t, st, Put("Standard1", "k2", "a", "after", 1))
	st = h.Reopen(t, st, s)
	Expect(t, Get(t, st, "Standard1", "k1", nil, All(10)), "")
	Expect(t, Get(t, st, "Standard1", "k2", nil, All(10)), "a=after@1")
}
