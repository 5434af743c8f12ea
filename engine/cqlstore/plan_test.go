package cqlstore

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/thriftd/thriftd/schema"
)

// planSchemaOf builds a schema of keyspaces, each a list of family names,
// and a system keyspace, for the planner's tests: the planner reads only
// names, System and the strategy.
func planSchemaOf(keyspaces map[string][]string) *schema.Schema {
	s := &schema.Schema{Keyspaces: map[string]*schema.Keyspace{
		"system": {Name: "system", System: true, ColumnFamilies: map[string]*schema.ColumnFamily{"LocationInfo": {Name: "LocationInfo"}}},
	}}
	for ks, cfs := range keyspaces {
		k := &schema.Keyspace{Name: ks, ReplicationFactor: 1, ColumnFamilies: map[string]*schema.ColumnFamily{},
			Options: schema.StrategyOf19("org.apache.cassandra.locator.SimpleStrategy", 1)}
		for _, cf := range cfs {
			k.ColumnFamilies[cf] = &schema.ColumnFamily{Name: cf, Keyspace: ks}
		}
		s.Keyspaces[ks] = k
	}
	return s
}

func setOf(keyspaces map[string][]string) tableSet {
	out := tableSet{}
	for ks, cfs := range keyspaces {
		out[ks] = map[string]bool{}
		for _, cf := range cfs {
			out[ks][cf] = true
		}
	}
	return out
}

// TestPreviousFamilies: the previous schema is the served one and
// whatever the families table says was created, system keyspaces aside.
func TestPreviousFamilies(t *testing.T) {
	cur := planSchemaOf(map[string][]string{"A": {"a1"}})
	got := previousFamilies(cur, setOf(map[string][]string{"A": {"a2"}, "B": nil}))
	want := setOf(map[string][]string{"A": {"a1", "a2"}, "B": nil})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("previousFamilies = %v, want %v", got, want)
	}
}

// TestPlanDrops: the author drops what the next schema lacks, deleting
// the family's record with its table and unregistering it; a dropped
// keyspace goes whole, with no per-table statements; a table left by a
// schema whose record is gone is replaced; a follower drops nothing.
func TestPlanDrops(t *testing.T) {
	prev := setOf(map[string][]string{"A": {"a1", "a2"}, "B": {"b1"}, "C": nil})
	next := planSchemaOf(map[string][]string{"A": {"a1", "orphan"}, "C": {"c1"}})
	existing := setOf(map[string][]string{"p_A": {"a1", "a2", "orphan", schemaTable}, "p_B": {"b1"}, "p_C": nil})
	got := planDrops("p_", prev, existing, next, true)
	want := dropPlan{
		forget:        []cfName{{"A", "a2"}, {"A", "orphan"}},
		dropKeyspaces: []string{"B"},
		dropTables:    []cfName{{"A", "a2"}, {"A", "orphan"}},
		unregister:    []cfName{{"A", "a2"}, {"B", ""}, {"B", "b1"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("planDrops =\n%+v\nwant\n%+v", got, want)
	}
	if p := planDrops("p_", prev, existing, next, false); !p.empty() {
		t.Errorf("planDrops of a follower = %+v, want nothing", p)
	}
	// A system keyspace in the next schema is not the store's: a
	// keyspace of prev that became one is dropped.
	next.Keyspaces["C"].System = true
	if got := planDrops("p_", prev, existing, next, true); !reflect.DeepEqual(got.dropKeyspaces, []string{"B", "C"}) {
		t.Errorf("planDrops with C a system keyspace: keyspaces %v, want [B C]", got.dropKeyspaces)
	}
}

// TestPlanCreates: a missing keyspace is created, one of another
// replication altered, a missing thriftd_schema table created, and the
// families without a table listed in name order; system keyspaces are
// left alone, and replicationOf's error stops the plan.
func TestPlanCreates(t *testing.T) {
	next := planSchemaOf(map[string][]string{"A": {"z", "a1", "m"}, "B": {"b1"}, "C": {"c1"}})
	existing := setOf(map[string][]string{"p_A": {"a1", schemaTable}, "p_C": {"c1"}})
	simple := replication{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "1"}
	replications := map[string]replication{
		"p_A": {"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "3"},
		"p_C": simple,
	}
	got, err := planCreates("p_", next, existing, replications, func(ks *schema.Keyspace) (replication, error) {
		return replicationFor(ks, "")
	})
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		name                       string
		create, alter, schemaTable bool
		families                   []string
	}
	var steps []step
	for _, s := range got {
		if s.cqlKS != "p_"+s.name || !reflect.DeepEqual(s.replication, simple) {
			t.Errorf("keyspace %s: CQL name %s, replication %v", s.name, s.cqlKS, s.replication)
		}
		steps = append(steps, step{s.name, s.create, s.alter, s.schemaTable, s.families})
	}
	want := []step{
		{"A", false, true, false, []string{"m", "z"}},
		{"B", true, false, true, []string{"b1"}},
		{"C", false, false, true, nil},
	}
	if !reflect.DeepEqual(steps, want) {
		t.Errorf("planCreates =\n%+v\nwant\n%+v", steps, want)
	}
	boom := fmt.Errorf("no data center")
	if _, err := planCreates("p_", next, existing, replications, func(*schema.Keyspace) (replication, error) { return nil, boom }); err != boom {
		t.Errorf("planCreates with replicationOf failing = %v, want %v", err, boom)
	}
}
