package handler19

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/catalog"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// unconfirmedSchemaStore records changes in memory until fail is set;
// then it fails each as cqlstore does when the schema record's
// lightweight transaction timed out after its retries.
type unconfirmedSchemaStore struct {
	memSchemaStore
	fail error
}

func (u *unconfirmedSchemaStore) ChangeSchema(ctx context.Context, s *schema.Schema, enc []byte) error {
	if u.fail != nil {
		return u.fail
	}
	return u.memSchemaStore.ChangeSchema(ctx, s, enc)
}

// A schema change the cluster did not confirm reaches the client as
// SchemaDisagreementException, which every system_* call declares, not
// as TimedOutException or UnavailableException, which the generated
// processor can only send as an internal error (TApplicationException).
func TestUnconfirmedSchemaChangeIsSchemaDisagreement(t *testing.T) {
	ctx := context.Background()
	s, st := emptyStore(t)
	store := &unconfirmedSchemaStore{}
	cat, err := catalog.New(ctx, store, &catalog.Start{Schema: s}, catalog.Options{ParseType: marshal.Parse})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	svc := New(Options{Schema: cat.Current, Store: st, Changer: cat, ParseType: marshal.Parse})
	c := svc.Connection()
	ksDef := func(name string) *cassandra19.KsDef {
		return &cassandra19.KsDef{Name: name, StrategyClass: "SimpleStrategy", DurableWrites: true,
			StrategyOptions: map[string]string{"replication_factor": "3"}, CfDefs: []*cassandra19.CfDef{}}
	}
	cfDef := func(name string) *cassandra19.CfDef {
		d := cassandra19.NewCfDef()
		d.Keyspace, d.Name, d.ComparatorType = "K", name, "UTF8Type"
		return d
	}
	if _, err := c.SystemAddKeyspace(ctx, ksDef("K")); err != nil {
		t.Fatal(err)
	}
	if err := c.SetKeyspace(ctx, "K"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SystemAddColumnFamily(ctx, cfDef("Old")); err != nil {
		t.Fatal(err)
	}
	for _, cause := range []error{engine.ErrTimedOut, engine.ErrUnavailable} {
		store.fail = fmt.Errorf("cassandra: record the schema: Operation timed out - received only 1 responses.: %w", cause)
		calls := map[string]func() (string, error){
			"system_add_column_family": func() (string, error) { return c.SystemAddColumnFamily(ctx, cfDef("New")) },
			"system_update_column_family": func() (string, error) {
				d := cfDef("Old")
				d.Comment = thrift.StringPtr("x")
				return c.SystemUpdateColumnFamily(ctx, d)
			},
			"system_drop_column_family": func() (string, error) { return c.SystemDropColumnFamily(ctx, "Old") },
			"system_add_keyspace":       func() (string, error) { return c.SystemAddKeyspace(ctx, ksDef("L")) },
			"system_update_keyspace":    func() (string, error) { return c.SystemUpdateKeyspace(ctx, ksDef("K")) },
			"system_drop_keyspace":      func() (string, error) { return c.SystemDropKeyspace(ctx, "K") },
		}
		for call, f := range calls {
			_, err := f()
			var sde *cassandra19.SchemaDisagreementException
			if !errors.As(err, &sde) {
				t.Errorf("%s failing with %v: %T %v, want SchemaDisagreementException", call, cause, err, err)
			}
		}
	}
	// A refusal is still the client's InvalidRequestException.
	store.fail = nil
	_, err = c.SystemAddColumnFamily(ctx, cfDef("Old"))
	var ire *cassandra19.InvalidRequestException
	if !errors.As(err, &ire) {
		t.Errorf("adding an existing family: %T %v, want InvalidRequestException", err, err)
	}
}
