package cqlstore

import (
	"context"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"

	"github.com/thriftd/thriftd/schema"
)

// Serving adopted keyspaces (Options.Adopt). Each is a CQL keyspace
// thriftd did not create, named without the prefix; its servable tables
// (Inspect) are served in place, each read and written through its own
// columns and types, and thriftd never creates, alters, drops or records
// anything in it. The keyspaces are read once, at Open: a table changed
// with CQL afterwards is served as it was until thriftd restarts.

// adoption is what Open found in the adopted keyspaces.
type adoption struct {
	keyspaces []*schema.Keyspace
	families  map[cfName]*family
	tables    []AdoptedTable
}

// adopt inspects the adopted keyspaces; served is the schema the store
// serves besides them, whose names they must not take.
func (st *Store) adopt(ctx context.Context, served *schema.Schema) error {
	if len(st.opts.Adopt) == 0 {
		return nil
	}
	repl, err := st.replications(ctx)
	if err != nil {
		return err
	}
	a := adoption{families: map[cfName]*family{}}
	seen := map[string]bool{}
	for _, name := range st.opts.Adopt {
		lower := strings.ToLower(name)
		switch {
		case seen[lower]:
			return fmt.Errorf("adopted keyspace %s is named twice", name)
		case strings.HasPrefix(lower, "system"):
			return fmt.Errorf("adopted keyspace %s: Cassandra's own keyspaces cannot be served", name)
		case strings.EqualFold(name, st.catalogKS()):
			return fmt.Errorf("adopted keyspace %s is thriftd's own catalog keyspace", name)
		case st.opts.Prefix != "" && strings.HasPrefix(name, st.opts.Prefix):
			return fmt.Errorf("adopted keyspace %s starts with -cassandra-prefix %q: keyspaces under the prefix are thriftd's own", name, st.opts.Prefix)
		}
		seen[lower] = true
		for other := range served.Keyspaces {
			if strings.EqualFold(other, name) {
				return fmt.Errorf("adopted keyspace %s has the name of keyspace %s of the configuration or the recorded schema", name, other)
			}
		}
		r, ok := repl[name]
		if !ok {
			return fmt.Errorf("adopted keyspace %s does not exist on the cluster", name)
		}
		tables, err := InspectKeyspace(ctx, st.session, name)
		if err != nil {
			return err
		}
		ks := &schema.Keyspace{Name: name, ColumnFamilies: map[string]*schema.ColumnFamily{}, Options: keyspaceOptions(r)}
		ks.ReplicationFactor, _ = strconv.Atoi(r["replication_factor"])
		ks.ReplicationFactor = max(ks.ReplicationFactor, 1)
		for _, t := range tables {
			a.tables = append(a.tables, t)
			if !t.Servable() {
				st.logger().Warn("adopted table not served", "keyspace", name, "table", t.Name, "reason", t.Reason)
				continue
			}
			def := *t.Family
			def.ID = adoptedID(name, t.Name)
			ks.ColumnFamilies[t.Name] = &def
			table := quote(name) + "." + quote(t.Name)
			f := familyOf(&def, table, tableColumns{types: map[string]string{"key": "adopted", "column1": "adopted"}})
			// The table's own types hold names and keys as they are.
			f.rawNames, f.rawKey = true, true
			f.desc = strings.HasPrefix(def.Comparator.Name(), marshalPackage+"ReversedType(")
			switch t.Shape {
			case ShapeStatic:
				withStatics(f, t.Statics)
			case ShapeComposite:
				withComposite(f, t.Clustering, t.ClusteringDesc)
			}
			a.families[cfName{name, t.Name}] = f
			st.logger().Info("adopted table served", "keyspace", name, "table", t.Name, "comparator", def.Comparator.Name())
		}
		a.keyspaces = append(a.keyspaces, ks)
	}
	st.adopted = a
	return nil
}

// keyspaceOptions describes a replication map as the 19.x API's KsDef.
func keyspaceOptions(r replication) schema.KeyspaceOptions {
	o := schema.KeyspaceOptions{StrategyClass: r["class"], StrategyOptions: map[string]string{}, DurableWrites: true}
	if !strings.Contains(o.StrategyClass, ".") {
		o.StrategyClass = "org.apache.cassandra.locator." + o.StrategyClass
	}
	for k, v := range r {
		if k != "class" {
			o.StrategyOptions[k] = v
		}
	}
	return o
}

// adoptedID is a column family id for an adopted table, stable across
// restarts and clear of the ids the catalog numbers up from 1000.
func adoptedID(ks, cf string) int32 {
	return int32(crc32.ChecksumIEEE([]byte(ks+"\x00"+cf))&0x3fffffff) | 1<<30
}

// Adopted returns the adopted keyspaces as the 19.x API describes them,
// each holding the tables it serves. The catalog serves them beside its
// own schema (schema/catalog, Options.Adopted).
func (st *Store) Adopted() []*schema.Keyspace { return st.adopted.keyspaces }

// AdoptedTables lists every table of the adopted keyspaces, with the
// reason of each that is not served.
func (st *Store) AdoptedTables() []AdoptedTable { return st.adopted.tables }

// addAdopted adds the adopted families to a map of served families.
func (st *Store) addAdopted(fams map[cfName]*family) {
	for k, f := range st.adopted.families {
		fams[k] = f
	}
}
