package handler19

import (
	"context"
	"errors"
	"testing"

	"github.com/thriftd/thriftd/catalog"
	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/schema"
)

// The schema catalog is what thriftd wires in as the service's
// SchemaChanger, and the freshener of adopted keyspaces.
var (
	_ SchemaChanger = (*catalog.Catalog)(nil)
	_ freshener     = (*catalog.Catalog)(nil)
)

// memSchemaStore records the encoded schema in memory.
type memSchemaStore struct{ rec []byte }

func (m *memSchemaStore) StoredSchema(context.Context) ([]byte, error) { return m.rec, nil }

func (m *memSchemaStore) ChangeSchema(_ context.Context, _ *schema.Schema, enc []byte) error {
	m.rec = enc
	return nil
}

func (m *memSchemaStore) SchemaVersions(context.Context) (map[string][]string, error) {
	return nil, nil
}

// A change the catalog refuses reaches the client as the real server's
// InvalidRequestException, its wording unchanged.
func TestCatalogRefusalIsInvalidRequest(t *testing.T) {
	ctx := context.Background()
	p, err := dht.Lookup("RandomPartitioner")
	if err != nil {
		t.Fatal(err)
	}
	s := &schema.Schema{ClusterName: "Test", Partitioner: p, Keyspaces: map[string]*schema.Keyspace{}}
	cat, err := catalog.New(ctx, &memSchemaStore{}, &catalog.Start{Schema: s}, catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	for call, tc := range map[string]struct {
		change func() (string, error)
		why    string
	}{
		"system_drop_keyspace": {
			change: func() (string, error) { return cat.DropKeyspace(ctx, "Gone") },
			why:    "Cannot drop non existing keyspace 'Gone'.",
		},
		"system_drop_column_family": {
			change: func() (string, error) { return cat.DropColumnFamily(ctx, "Gone", "Cf") },
			why:    "Cannot drop non existing column family 'Cf' in keyspace 'Gone'.",
		},
		"system_update_column_family": {
			change: func() (string, error) {
				return cat.UpdateColumnFamily(ctx, &schema.ColumnFamily{Keyspace: "Gone", Name: "Cf"})
			},
			why: "Could not find column family definition to modify.",
		},
	} {
		_, err := tc.change()
		got, ok := toThrift(err)
		var ire *cassandra19.InvalidRequestException
		if !ok || !errors.As(got, &ire) || ire.Why != tc.why {
			t.Errorf("%s: %v (%v), want InvalidRequestException %q", call, got, err, tc.why)
		}
	}
}
