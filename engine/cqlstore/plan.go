package cqlstore

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/thriftd/thriftd/schema"
)

// Planning a schema change, without the cluster: what the previous
// schema held (previousFamilies), what the change drops (planDrops) and
// what it creates (planCreates) are pure functions of what the store read,
// each step a typed value; apply.go runs them.

// tableSet is a set of tables by keyspace: existingTables' CQL names, or
// Thrift names where a plan says so; a keyspace with no tables is an
// entry with an empty set.
type tableSet = map[string]map[string]bool

// previousFamilies is what the previous schema had, by Thrift keyspace:
// the schema this store served (current, nil at first), and whatever
// thriftd created under the prefix, by any process (created, the
// families table).
func previousFamilies(current *schema.Schema, created tableSet) tableSet {
	prev := tableSet{}
	add := func(ks, cf string) {
		if prev[ks] == nil {
			prev[ks] = map[string]bool{}
		}
		if cf != "" {
			prev[ks][cf] = true
		}
	}
	if current != nil {
		for name, ks := range current.Keyspaces {
			if ks.System {
				continue
			}
			add(name, "")
			for cf := range ks.ColumnFamilies {
				add(name, cf)
			}
		}
	}
	for ks, cfs := range created {
		add(ks, "")
		for cf := range cfs {
			add(ks, cf)
		}
	}
	return prev
}

// dropPlan is what a change removes, run in the order of its fields:
// first each dropped family's record in its keyspace's thriftd_schema,
// then the keyspaces, then the tables (a dropped table's name is free
// again at once for the table created next, so a later family of the
// same name starts empty), and last the families table's entries of
// what is gone. Names are Thrift names; each list is in name order.
type dropPlan struct {
	forget        []cfName // rows of thriftd_schema deleted
	dropKeyspaces []string
	dropTables    []cfName
	unregister    []cfName // entries of the families table; name "" is the keyspace's own
}

func (p dropPlan) empty() bool {
	return len(p.forget) == 0 && len(p.dropKeyspaces) == 0 && len(p.dropTables) == 0 && len(p.unregister) == 0
}

// planDrops plans what the author of a change drops (only the author
// drops anything; a process that follows another's change plans
// nothing): every keyspace and family of prev that next lacks, and the
// table of a family new to next that exists already (existing, by CQL
// name), which an earlier schema whose record is gone left behind (a
// record emptied by hand, as test harnesses do): it may have other
// types, and the new family starts empty.
func planDrops(prefix string, prev, existing tableSet, next *schema.Schema, author bool) dropPlan {
	var p dropPlan
	if !author {
		return p
	}
	dropTable := func(ks, cf string) {
		p.forget = append(p.forget, cfName{ks, cf})
		p.dropTables = append(p.dropTables, cfName{ks, cf})
	}
	for ks, cfs := range prev {
		nks := next.Keyspaces[ks]
		if nks == nil || nks.System {
			p.dropKeyspaces = append(p.dropKeyspaces, ks)
			p.unregister = append(p.unregister, cfName{ks, ""})
			for cf := range cfs {
				p.unregister = append(p.unregister, cfName{ks, cf})
			}
			continue
		}
		for cf := range cfs {
			if nks.ColumnFamilies[cf] == nil {
				dropTable(ks, cf)
				p.unregister = append(p.unregister, cfName{ks, cf})
			}
		}
	}
	for name, ks := range next.Keyspaces {
		if ks.System {
			continue
		}
		cqlKS := keyspaceName(prefix, name)
		for cf := range ks.ColumnFamilies {
			if existing[cqlKS][cf] && !prev[name][cf] {
				dropTable(name, cf)
			}
		}
	}
	byName := func(a, b cfName) int {
		if c := strings.Compare(a.keyspace, b.keyspace); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	}
	sort.Strings(p.dropKeyspaces)
	slices.SortFunc(p.forget, byName)
	slices.SortFunc(p.dropTables, byName)
	slices.SortFunc(p.unregister, byName)
	return p
}

// createPlan is what a change creates, keyspace by keyspace in name order
// (system keyspaces are not the store's to create).
type createPlan []keyspaceSteps

// keyspaceSteps is what one keyspace of the next schema needs.
type keyspaceSteps struct {
	name, cqlKS string
	ks          *schema.Keyspace
	replication replication
	create      bool // CREATE KEYSPACE: it does not exist
	alter       bool // ALTER KEYSPACE: it exists with another replication
	schemaTable bool // CREATE TABLE thriftd_schema: the keyspace lacks it
	// families are those whose tables do not exist yet, in name order:
	// each is registered, its table created and its record written.
	families []string
}

// planCreates plans the keyspaces and tables next needs that do not exist
// (existing, by CQL name, read after the drops ran), and the keyspaces
// whose replication (replications, by CQL name, as system_schema holds
// them) is not what replicationOf makes of next's.
func planCreates(prefix string, next *schema.Schema, existing tableSet, replications map[string]replication,
	replicationOf func(*schema.Keyspace) (replication, error)) (createPlan, error) {
	var p createPlan
	for _, name := range next.KeyspaceNames() {
		ks := next.Keyspaces[name]
		if ks.System {
			continue
		}
		cqlKS := keyspaceName(prefix, name)
		repl, err := replicationOf(ks)
		if err != nil {
			return nil, err
		}
		s := keyspaceSteps{name: name, cqlKS: cqlKS, ks: ks, replication: repl}
		if existing[cqlKS] == nil {
			s.create = true
		} else if got, ok := replications[cqlKS]; ok && !maps.Equal(got, repl) {
			s.alter = true
		}
		s.schemaTable = !existing[cqlKS][schemaTable]
		for _, cf := range sortedFamilies(ks) {
			if !existing[cqlKS][cf] {
				s.families = append(s.families, cf)
			}
		}
		p = append(p, s)
	}
	return p, nil
}

func sortedFamilies(ks *schema.Keyspace) []string {
	names := make([]string, 0, len(ks.ColumnFamilies))
	for n := range ks.ColumnFamilies {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// replication is a keyspace's replication map as system_schema.keyspaces
// holds it.
type replication map[string]string

func (r replication) cql() string {
	keys := make([]string, 0, len(r))
	for k := range r {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = quoteString(k) + ": " + quoteString(r[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// replicationOf maps a keyspace's 19.x strategy onto Cassandra 5's:
// SimpleStrategy and NetworkTopologyStrategy as they are,
// OldNetworkTopologyStrategy (which Cassandra 5 no longer has) as
// SimpleStrategy with its replication factor, and 0.6's strategies as at
// start (replication).
func (st *Store) replicationOf(ks *schema.Keyspace) (replication, error) {
	return replicationFor(ks, st.opts.Cluster.LocalDC)
}

// replicationFor is replicationOf with the local data center the
// DatacenterShardStrategy maps to.
func replicationFor(ks *schema.Keyspace, localDC string) (replication, error) {
	class := ks.Options.StrategyClass
	opts := ks.Options.StrategyOptions
	const locator = "org.apache.cassandra.locator."
	switch strings.TrimPrefix(class, locator) {
	case "NetworkTopologyStrategy":
		r := replication{"class": locator + "NetworkTopologyStrategy"}
		for dc, rf := range opts {
			if dc != "replication_factor" {
				r[dc] = rf
			}
		}
		return r, nil
	case "SimpleStrategy", "OldNetworkTopologyStrategy":
		rf := opts["replication_factor"]
		if rf == "" {
			rf = "1"
		}
		return replication{"class": locator + "SimpleStrategy", "replication_factor": rf}, nil
	}
	rf := max(ks.ReplicationFactor, 1)
	if strings.HasSuffix(ks.ReplicaPlacementStrategy, "DatacenterShardStrategy") || strings.HasSuffix(class, "DatacenterShardStrategy") {
		dc := localDC
		if dc == "" {
			return nil, fmt.Errorf("keyspace %s: DatacenterShardStrategy needs the local data center (-cassandra-dc)", ks.Name)
		}
		return replication{"class": locator + "NetworkTopologyStrategy", dc: itoa(rf)}, nil
	}
	return replication{"class": locator + "SimpleStrategy", "replication_factor": itoa(rf)}, nil
}
