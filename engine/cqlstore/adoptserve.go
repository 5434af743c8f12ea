package cqlstore

import (
	"context"
	"fmt"
	"hash/crc32"
	"maps"
	"strconv"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/schema"
)

// Serving adopted keyspaces (Options.Adopt). Each is a CQL keyspace
// thriftd did not create, named without the prefix; its servable tables
// (Inspect) are served in place, each read and written through its own
// columns and types, and thriftd never creates, alters, drops or records
// anything in it. The keyspaces are read at Open, and again by
// FollowAdopted whenever the cluster's schema version has changed since
// they were last read, so that a table created, altered or dropped with
// CQL is served as it now is without a restart.

// adoption is what the store last read of the adopted keyspaces.
type adoption struct {
	keyspaces []*schema.Keyspace
	families  map[cfName]*family
	tables    []AdoptedTable
	// version is the cluster's schema version read before the
	// keyspaces were.
	version string
}

// adopt checks the names of the adopted keyspaces and reads them; served
// is the schema the store serves besides them, whose names they must not
// take.
func (st *Store) adopt(ctx context.Context, served *schema.Schema) error {
	st.adopted.Store(&adoption{})
	if len(st.opts.Adopt) == 0 {
		return nil
	}
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
	}
	version, err := st.schemaVersion(ctx)
	if err != nil {
		return err
	}
	a, err := st.readAdopted(ctx, true, nil)
	if err != nil {
		return err
	}
	a.version = version
	st.adopted.Store(a)
	return nil
}

// readAdopted reads the adopted keyspaces' tables. At start (strict) a
// keyspace missing from the cluster is an error; later it is left out,
// as a keyspace dropped with CQL, until it exists again. Each table is
// logged when it is new or has changed since prev.
func (st *Store) readAdopted(ctx context.Context, strict bool, prev *adoption) (*adoption, error) {
	repl, err := st.replications(ctx)
	if err != nil {
		return nil, err
	}
	before := map[cfName]string{}
	if prev != nil {
		for _, t := range prev.tables {
			before[cfName{t.Keyspace, t.Name}] = t.signature()
		}
	}
	a := &adoption{families: map[cfName]*family{}}
	for _, name := range st.opts.Adopt {
		r, ok := repl[name]
		if !ok {
			if strict {
				return nil, fmt.Errorf("adopted keyspace %s does not exist on the cluster", name)
			}
			st.logger().Warn("adopted keyspace not served: it does not exist on the cluster", "keyspace", name)
			continue
		}
		tables, err := InspectKeyspace(ctx, st.session, name)
		if err != nil {
			if !strict && strings.Contains(err.Error(), "does not exist") {
				st.logger().Warn("adopted keyspace not served: it does not exist on the cluster", "keyspace", name)
				continue
			}
			return nil, err
		}
		ks := &schema.Keyspace{Name: name, ColumnFamilies: map[string]*schema.ColumnFamily{}, Options: keyspaceOptions(r)}
		ks.ReplicationFactor, _ = strconv.Atoi(r["replication_factor"])
		ks.ReplicationFactor = max(ks.ReplicationFactor, 1)
		for _, t := range tables {
			a.tables = append(a.tables, t)
			sig, known := before[cfName{name, t.Name}]
			quiet := known && sig == t.signature()
			delete(before, cfName{name, t.Name})
			if !t.Servable() {
				if !quiet {
					st.logger().Warn("adopted table not served", "keyspace", name, "table", t.Name, "reason", t.Reason)
				}
				continue
			}
			def := *t.Family
			def.ID = adoptedID(name, t.Name)
			ks.ColumnFamilies[t.Name] = &def
			a.families[cfName{name, t.Name}] = adoptedFamily(&def, t)
			if !quiet {
				st.logger().Info("adopted table served", "keyspace", name, "table", t.Name, "comparator", def.Comparator.Name())
			}
		}
		a.keyspaces = append(a.keyspaces, ks)
	}
	for t := range before {
		st.logger().Info("adopted table dropped", "keyspace", t.keyspace, "table", t.name)
	}
	return a, nil
}

// adoptedFamily is the family serving table t, described by def.
func adoptedFamily(def *schema.ColumnFamily, t AdoptedTable) *family {
	table := quote(t.Keyspace) + "." + quote(t.Name)
	f := familyOf(def, table, tableColumns{types: map[string]string{"key": "adopted", "column1": "adopted"}})
	// The table's own types hold names and keys as they are, in its own
	// columns.
	f.rawNames, f.rawKey = true, true
	f.layout = layoutOf(f)
	f.col = t.columnNames()
	f.cql = newFamilyCQL(table, f.col)
	f.desc = strings.HasPrefix(def.Comparator.Name(), marshalPackage+"ReversedType(")
	switch t.Shape {
	case ShapeStatic:
		withStatics(f, t.Statics)
	case ShapeComposite:
		withComposite(f, t.Clustering, t.ClusteringDesc)
	case ShapeCounter:
		if len(t.Clustering) > 1 {
			withComposite(f, t.Clustering, t.ClusteringDesc)
		}
	case ShapeSuper:
		withSuper(f)
	}
	return f
}

// columnNames are the identifiers of t's key, column1 and value columns
// in the statements that serve it: t's own, quoted, where they are not
// the Thrift names (a compact table created with CQL keeps k, ts and v
// after DROP COMPACT STORAGE, and columns may have been renamed with
// CQL). A composite table's clustering columns are named by its layout
// (withComposite).
func (t AdoptedTable) columnNames() columnNames {
	c := thriftColumns
	if t.Key != "key" {
		c.key = quote(t.Key)
	}
	if len(t.Clustering) == 1 && t.Clustering[0] != "column1" {
		c.column1 = quote(t.Clustering[0])
	}
	if t.Value != "value" && t.Value != "" {
		c.value = quote(t.Value)
	}
	return c
}

// signature is what a table is served as, to tell a changed table.
func (t AdoptedTable) signature() string {
	sig := t.Shape + "|" + t.Reason + "|" + t.Key + "|" + strings.Join(t.Clustering, ",") + "|" + fmt.Sprint(t.ClusteringDesc) + "|" + t.Value + "|" + strings.Join(t.Statics, ",")
	if f := t.Family; f != nil {
		sig += "|" + f.Comparator.Name() + "|" + f.KeyValidator.Name() + "|" + f.DefaultValidator.Name() + "|" + f.Comment +
			"|" + strconv.Itoa(int(f.GCGraceSeconds)) + "|" + strconv.Itoa(int(f.DefaultTTL))
		if f.SubComparator != nil {
			sig += "|" + f.SubComparator.Name()
		}
		for _, c := range f.Columns {
			sig += "|" + string(c.Name) + "=" + c.Validator.Name()
		}
	}
	return sig
}

// schemaVersion is the cluster's schema version, as the node schema
// statements go to reports it.
func (st *Store) schemaVersion(ctx context.Context) (string, error) {
	var v gocql.UUID
	err := st.schemaQuery(`SELECT schema_version FROM system.local WHERE key = 'local'`).WithContext(ctx).Scan(&v)
	if err != nil {
		return "", clusterError(ctx, "read the schema version", err)
	}
	return v.String(), nil
}

// FollowAdopted reads the adopted keyspaces again when the cluster's
// schema version differs from the one read with them, serves them as
// they now are (a table created with CQL is served, one dropped is no
// longer known, one altered is served in its new shape), and returns
// them, with whether they were read again. It costs one read of
// system.local when nothing changed. It implements schema/catalog's
// AdoptionFollower.
func (st *Store) FollowAdopted(ctx context.Context) ([]*schema.Keyspace, bool, error) {
	if len(st.opts.Adopt) == 0 {
		return nil, false, nil
	}
	if err := st.enter(); err != nil {
		return nil, false, err
	}
	defer st.leave()
	version, err := st.schemaVersion(ctx)
	if err != nil {
		return nil, false, err
	}
	prev := st.adoption()
	if version == prev.version {
		return prev.keyspaces, false, nil
	}
	st.schemaMu.Lock()
	defer st.schemaMu.Unlock()
	if prev = st.adoption(); version == prev.version {
		return prev.keyspaces, false, nil
	}
	next, err := st.readAdopted(ctx, false, prev)
	if err != nil {
		return nil, false, err
	}
	next.version = version
	fams := maps.Clone(*st.cfs.Load())
	for k := range prev.families {
		delete(fams, k)
	}
	maps.Copy(fams, next.families)
	st.adopted.Store(next)
	st.cfs.Store(&fams)
	return next.keyspaces, true, nil
}

// adoption is what the store last read of the adopted keyspaces; empty
// before Open read them.
func (st *Store) adoption() *adoption {
	if a := st.adopted.Load(); a != nil {
		return a
	}
	return &adoption{}
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
func (st *Store) Adopted() []*schema.Keyspace { return st.adoption().keyspaces }

// AdoptedTables lists every table of the adopted keyspaces, with the
// reason of each that is not served.
func (st *Store) AdoptedTables() []AdoptedTable { return st.adoption().tables }

// addAdopted adds the adopted families to a map of served families.
func (st *Store) addAdopted(fams map[cfName]*family) {
	maps.Copy(fams, st.adoption().families)
}
