package catalog

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/engine/ldbstore"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// adoptingStore opens a LevelDB store of the test schema, closed at the
// end, and the options and start of a catalog serving beside it the
// adopted keyspace "legacy" of one family, "events" (UTF8Type).
func adoptingStore(t *testing.T) (*ldbstore.Store, *Start, Options, marshal.Comparator) {
	t.Helper()
	file := fileSchema(t, "", "")
	utf8, err := marshal.Parse("UTF8Type")
	if err != nil {
		t.Fatal(err)
	}
	legacy := newKeyspace("legacy", &schema.ColumnFamily{Keyspace: "legacy", Name: "events", Comparator: utf8, ID: 1 << 30})
	o := Options{File: "storage-conf.xml", ParseType: marshal.Parse, Adopted: []*schema.Keyspace{legacy}}
	var start *Start
	st, err := ldbstore.Open(t.TempDir(), file, ldbstore.Options{PurgeInterval: -1, Schema: func(rec []byte) (*schema.Schema, error) {
		var err error
		start, err = Resolve(file, rec, o)
		return start.Schema, err
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, start, o, utf8
}

// Adopted keyspaces are served beside the schema, kept across changes of
// the catalog's own keyspaces, never recorded, and every system_* call
// naming one is refused with the reason.
func TestAdoptedKeyspacesAreServedButNeverChanged(t *testing.T) {
	st, start, o, utf8 := adoptingStore(t)
	legacy := o.Adopted[0]
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
		var ire *InvalidError
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
	r, err := schema.Unmarshal(rec, marshal.Parse, marshal.Parse)
	if err != nil {
		t.Fatal(err)
	}
	if r.Schema.Keyspaces["legacy"] != nil || r.Schema.Keyspaces["Fresh"] == nil {
		t.Fatalf("recorded keyspaces: %v", r.Schema.KeyspaceNames())
	}
}

// following is a store whose adopted keyspaces change under it.
type following struct {
	*ldbstore.Store
	next    []*schema.Keyspace
	changed bool
}

func (f *following) FollowAdopted(context.Context) ([]*schema.Keyspace, bool, error) {
	changed := f.changed
	f.changed = false
	return f.next, changed, nil
}

// Fresh serves the adopted keyspaces as the store now holds them: a
// changed one replaces the old, one gone is no longer served, yet still
// cannot be created through the API; the catalog's own keyspaces stay.
func TestAdoptedKeyspacesFollowTheStore(t *testing.T) {
	st, start, o, utf8 := adoptingStore(t)
	legacy := o.Adopted[0]
	f := &following{Store: st, next: []*schema.Keyspace{legacy}}
	cat, err := New(ctx, f, start, o)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	if err := cat.Fresh(ctx); err != nil || cat.Current().Keyspaces["legacy"] != legacy {
		t.Fatalf("no change: %v, %v", cat.Current().KeyspaceNames(), err)
	}
	more := newKeyspace("legacy",
		&schema.ColumnFamily{Keyspace: "legacy", Name: "events", Comparator: utf8, ID: 1 << 30},
		&schema.ColumnFamily{Keyspace: "legacy", Name: "late", Comparator: utf8, ID: 1<<30 + 1})
	f.next, f.changed = []*schema.Keyspace{more}, true
	if err := cat.Fresh(ctx); err != nil {
		t.Fatal(err)
	}
	if cat.Current().Keyspaces["legacy"] != more || cat.Current().Keyspaces["Keyspace1"] == nil {
		t.Fatalf("after a change: %v", cat.Current().KeyspaceNames())
	}
	f.next, f.changed = nil, true
	if err := cat.Fresh(ctx); err != nil {
		t.Fatal(err)
	}
	if cat.Current().Keyspaces["legacy"] != nil || cat.Current().Keyspaces["Keyspace1"] == nil {
		t.Fatalf("after the keyspace went: %v", cat.Current().KeyspaceNames())
	}
	var ire *InvalidError
	if _, err := cat.AddKeyspace(ctx, newKeyspace("legacy")); !errors.As(err, &ire) || !strings.Contains(ire.Why, "serves in place") {
		t.Errorf("system_add_keyspace of a keyspace adopted, then dropped with CQL: %v", err)
	}
}
