package catalog

import (
	"errors"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/engine/comparator"
	"github.com/thriftd/thriftd/engine/ldbstore"
	"github.com/thriftd/thriftd/handler19"
	"github.com/thriftd/thriftd/schema"
)

// Adopted keyspaces are served beside the schema, kept across changes of
// the catalog's own keyspaces, never recorded, and every system_* call
// naming one is refused with the reason.
func TestAdoptedKeyspacesAreServedButNeverChanged(t *testing.T) {
	dir := t.TempDir()
	file := fileSchema(t, "", "")
	utf8, err := comparator.Parse("UTF8Type")
	if err != nil {
		t.Fatal(err)
	}
	legacy := newKeyspace("legacy", &schema.ColumnFamily{Keyspace: "legacy", Name: "events", Comparator: utf8, ID: 1 << 30})
	o := Options{File: "storage-conf.xml", ParseType: comparator.Parse, Adopted: []*schema.Keyspace{legacy}}
	var start *Start
	st, err := ldbstore.Open(dir, file, ldbstore.Options{PurgeInterval: -1, Schema: func(rec []byte) (*schema.Schema, error) {
		var err error
		start, err = Resolve(file, rec, o)
		return start.Schema, err
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cat, err := New(ctx, st, start, o)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	if cat.Current().Keyspaces["legacy"] != legacy || cat.Current().Keyspaces["Keyspace1"] == nil {
		t.Fatalf("served keyspaces: %v", cat.Current().KeyspaceNames())
	}
	cf := &schema.ColumnFamily{Keyspace: "legacy", Name: "more", Comparator: utf8}
	refused := map[string]error{}
	_, refused["system_add_keyspace"] = cat.AddKeyspace(ctx, newKeyspace("LEGACY"))
	_, refused["system_update_keyspace"] = cat.UpdateKeyspace(ctx, legacy)
	_, refused["system_drop_keyspace"] = cat.DropKeyspace(ctx, "legacy")
	_, refused["system_add_column_family"] = cat.AddColumnFamily(ctx, cf)
	_, refused["system_update_column_family"] = cat.UpdateColumnFamily(ctx, legacy.ColumnFamilies["events"])
	_, refused["system_drop_column_family"] = cat.DropColumnFamily(ctx, "legacy", "events")
	for call, err := range refused {
		var ire *handler19.InvalidRequest
		if !errors.As(err, &ire) || !strings.Contains(ire.Why, "serves in place") {
			t.Errorf("%s on an adopted keyspace: %v", call, err)
		}
	}
	// A change of the catalog's own keyspaces keeps serving the adopted
	// one, and records nothing of it.
	if _, err := cat.AddKeyspace(ctx, newKeyspace("Fresh")); err != nil {
		t.Fatal(err)
	}
	if cat.Current().Keyspaces["legacy"] != legacy || cat.Current().Keyspaces["Fresh"] == nil {
		t.Fatalf("after a change: %v", cat.Current().KeyspaceNames())
	}
	rec, err := st.StoredSchema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r, err := schema.Unmarshal(rec, comparator.Parse, comparator.Parse)
	if err != nil {
		t.Fatal(err)
	}
	if r.Schema.Keyspaces["legacy"] != nil || r.Schema.Keyspaces["Fresh"] == nil {
		t.Fatalf("recorded keyspaces: %v", r.Schema.KeyspaceNames())
	}
}
