package cqlstore

import (
	"context"
	"errors"
	"fmt"
	"sort"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/schema"
)

// Running a schema change on the cluster: applySchema reads what exists,
// runs the plans of plan.go, and serves the result.

// applySchema makes the keyspaces and tables under the prefix those of
// next. Only the author of the change drops anything.
func (st *Store) applySchema(ctx context.Context, next *schema.Schema, author bool) error {
	existing, err := st.existingTables(ctx)
	if err != nil {
		return err
	}
	created, err := st.createdFamilies(ctx)
	if err != nil {
		return err
	}
	drops := planDrops(st.opts.Prefix, previousFamilies(st.current, created), existing, next, author)
	if err := st.applyDrops(ctx, drops); err != nil {
		return err
	}
	if !drops.empty() {
		if existing, err = st.existingTables(ctx); err != nil {
			return err
		}
	}
	replications, err := st.replications(ctx)
	if err != nil {
		return err
	}
	creates, err := planCreates(st.opts.Prefix, next, existing, replications, st.replicationOf)
	if err != nil {
		return err
	}
	fresh, err := st.applyCreates(ctx, next, creates)
	if err != nil {
		return err
	}
	if err := st.addBlobValues(ctx, next, existing); err != nil {
		return err
	}
	return st.syncIndexes(ctx, next, author, fresh)
}

// applyDrops runs a dropPlan.
func (st *Store) applyDrops(ctx context.Context, p dropPlan) error {
	for _, f := range p.forget {
		cqlKS := keyspaceName(st.opts.Prefix, f.keyspace)
		stmt := fmt.Sprintf(`DELETE FROM %s.%s WHERE column_family = %s`, quote(cqlKS), schemaTable, quoteString(f.name))
		if err := st.recordExec(ctx, stmt); err != nil {
			return clusterError(ctx, stmt, err)
		}
	}
	var drops []string
	for _, ks := range p.dropKeyspaces {
		drops = append(drops, `DROP KEYSPACE IF EXISTS `+quote(keyspaceName(st.opts.Prefix, ks)))
	}
	for _, t := range p.dropTables {
		drops = append(drops, `DROP TABLE IF EXISTS `+quote(keyspaceName(st.opts.Prefix, t.keyspace))+`.`+quote(t.name))
	}
	for _, stmt := range drops {
		if err := st.ddl(ctx, stmt); err != nil {
			return err
		}
		st.logger().Info("schema change", "cql", stmt)
	}
	for _, u := range p.unregister {
		if err := st.schemaQuery(`DELETE FROM `+st.catalogName(familiesTable)+` WHERE keyspace_name = ? AND column_family = ?`, u.keyspace, u.name).
			WithContext(ctx).Consistency(gocql.Quorum).Exec(); err != nil {
			return clusterError(ctx, "unregister "+u.keyspace+"."+u.name, err)
		}
	}
	return nil
}

// applyCreates runs a createPlan: the keyspaces and their thriftd_schema
// tables, registered; then, once the nodes agree (the thriftd_schema
// tables are read next, perhaps through other coordinators), the
// families' tables; then each new family's record, written as the 0.6 path
// does so that a start with a configuration that drifted from it is
// refused. It returns the families whose tables it created.
func (st *Store) applyCreates(ctx context.Context, next *schema.Schema, p createPlan) (map[cfName]bool, error) {
	var tables []string
	fresh := map[cfName]bool{}
	for _, s := range p {
		switch {
		case s.create:
			if err := st.ddl(ctx, fmt.Sprintf(`CREATE KEYSPACE IF NOT EXISTS %s WITH replication = %s AND durable_writes = %t`,
				quote(s.cqlKS), s.replication.cql(), s.ks.Options.DurableWrites || s.ks.Options.StrategyClass == "")); err != nil {
				return nil, err
			}
		case s.alter:
			if err := st.ddl(ctx, fmt.Sprintf(`ALTER KEYSPACE %s WITH replication = %s`, quote(s.cqlKS), s.replication.cql())); err != nil {
				return nil, err
			}
		}
		if s.schemaTable {
			if err := st.ddl(ctx, fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s.%s (column_family text PRIMARY KEY, partitioner text, column_type text, compare_with text, compare_subcolumns_with text)`,
				quote(s.cqlKS), schemaTable)); err != nil {
				return nil, err
			}
		}
		if err := st.register(ctx, s.name, ""); err != nil {
			return nil, err
		}
		for _, cf := range s.families {
			def := s.ks.ColumnFamilies[cf]
			fresh[cfName{s.name, cf}] = true
			if def.Super && counterFamily(def) {
				tables = append(tables, st.superCounterTable(s.cqlKS, def))
			} else if def.Super {
				tables = append(tables, st.createTable(s.cqlKS, cf, def))
			} else {
				tables = append(tables, st.typedTable(s.cqlKS, def))
			}
			if err := st.register(ctx, s.name, cf); err != nil {
				return nil, err
			}
		}
	}
	if len(tables) > 0 {
		if err := st.waitAgreement(ctx); err != nil {
			return nil, err
		}
	}
	for _, stmt := range tables {
		if err := st.ddl(ctx, stmt); err != nil {
			return nil, err
		}
		st.logger().Info("schema change", "cql", stmt)
	}
	for _, s := range p {
		for _, cf := range s.families {
			d := describe(next.Partitioner.Name(), s.ks.ColumnFamilies[cf])
			err := st.recordExec(ctx, fmt.Sprintf(`INSERT INTO %s.%s (column_family, partitioner, column_type, compare_with, compare_subcolumns_with) VALUES (?, ?, ?, ?, ?)`, quote(s.cqlKS), schemaTable),
				d.name, d.partitioner, d.typ, d.comparator, d.subComparator)
			if err != nil {
				return nil, clusterError(ctx, "record column family "+s.name+"."+cf, err)
			}
		}
	}
	return fresh, nil
}

// addBlobValues gives blob_value (typed.go) to each existing table whose
// value column's type cannot hold what its family's validators now allow:
// a column declared, or a default validator set, by
// system_update_column_family after the table was created with a typed
// value. Its values stay where they are; ADD IF NOT EXISTS makes the
// statement safe to repeat, by this process or another.
func (st *Store) addBlobValues(ctx context.Context, next *schema.Schema, existing map[string]map[string]bool) error {
	for _, name := range next.KeyspaceNames() {
		ks := next.Keyspaces[name]
		cqlKS := keyspaceName(st.opts.Prefix, name)
		if ks.System || len(existing[cqlKS]) == 0 {
			continue
		}
		var cols map[string]tableColumns
		for _, cf := range sortedFamilies(ks) {
			def := ks.ColumnFamilies[cf]
			if !existing[cqlKS][cf] || def.Super || counterFamily(def) {
				continue
			}
			if cols == nil {
				var err error
				if cols, err = st.columnsOf(ctx, cqlKS); err != nil {
					return err
				}
			}
			c := cols[cf]
			if _, has := c.types[blobValueColumn]; has || !needsBlobValue(def, c.types["value"]) {
				continue
			}
			stmt := `ALTER TABLE ` + quote(cqlKS) + `.` + quote(cf) + ` ADD IF NOT EXISTS ` + blobValueColumn + ` blob`
			if err := st.ddl(ctx, stmt); err != nil {
				return err
			}
			st.logger().Info("schema change", "cql", stmt)
		}
	}
	return nil
}

// recordExec writes or deletes a family's record in its keyspace's
// thriftd_schema table, at QUORUM, or at ONE when the keyspace has too few
// live replicas for a quorum (its replication factor raised above the
// cluster's nodes, which 1.2 allowed): a schema change in 1.2 did not
// depend on the keyspace's replicas, so neither does one here. The
// record only lets a later start refuse a storage-conf.xml that drifted
// from the family; the catalog (at QUORUM) stays the schema's record.
func (st *Store) recordExec(ctx context.Context, stmt string, args ...any) error {
	err := st.schemaQuery(stmt, args...).WithContext(ctx).Consistency(gocql.Quorum).Exec()
	var unavailable *gocql.RequestErrUnavailable
	if errors.As(err, &unavailable) {
		err = st.schemaQuery(stmt, args...).WithContext(ctx).Consistency(gocql.One).Exec()
	}
	return err
}

// replications reads every keyspace's replication map.
func (st *Store) replications(ctx context.Context) (map[string]replication, error) {
	out := map[string]replication{}
	iter := st.schemaQuery(`SELECT keyspace_name, replication FROM system_schema.keyspaces`).WithContext(ctx).Iter()
	var ks string
	var r map[string]string
	for iter.Scan(&ks, &r) {
		out[ks] = r
		r = nil
	}
	return out, clusterError(ctx, "read system_schema.keyspaces", iter.Close())
}

// serve makes next the schema the store serves, each family in the
// layout its table has.
func (st *Store) serve(ctx context.Context, next *schema.Schema) error {
	fams := map[cfName]*family{}
	for _, name := range next.KeyspaceNames() {
		ks := next.Keyspaces[name]
		cqlKS := keyspaceName(st.opts.Prefix, name)
		var cols map[string]tableColumns
		if !ks.System && len(ks.ColumnFamilies) > 0 {
			var err error
			if cols, err = st.columnsOf(ctx, cqlKS); err != nil {
				return err
			}
		}
		for cf, def := range ks.ColumnFamilies {
			table := quote(cqlKS) + "." + quote(cf)
			if ks.System {
				fams[cfName{name, cf}] = newFamily(def, table, true)
				continue
			}
			c, ok := cols[cf]
			if !ok {
				// Not created yet (by another process): the layout
				// ChangeSchema creates.
				c = st.typedColumns(def)
			}
			f := familyOf(def, table, c)
			if f.valueType == "" && ok && needsBlobValue(def, c.types["value"]) {
				// The process that changed the validators adds
				// blob_value (addBlobValues); a process following the
				// change may read the table before it does, and serves
				// the column it will have.
				f.valueType = c.types["value"]
			}
			if f.adopt == nil && wantsIndex(def, c) {
				f.index = newFamilyIndex(cqlKS, def)
			}
			fams[cfName{name, cf}] = f
		}
	}
	st.addAdopted(fams)
	st.cfs.Store(&fams)
	st.current = next
	st.indexes.reset()
	return nil
}

// columnsOf reads the columns of every table of a keyspace.
func (st *Store) columnsOf(ctx context.Context, cqlKS string) (map[string]tableColumns, error) {
	out := map[string]tableColumns{}
	type clustered struct {
		name     string
		position int
		desc     bool
	}
	clustering := map[string][]clustered{}
	iter := st.schemaQuery(`SELECT table_name, column_name, type, kind, position, clustering_order FROM system_schema.columns WHERE keyspace_name = ?`, cqlKS).
		WithContext(ctx).PageSize(pageSize).Iter()
	var table, col, typ, kind, order string
	var position int
	for iter.Scan(&table, &col, &typ, &kind, &position, &order) {
		c := out[table]
		if c.types == nil {
			c.types = map[string]string{}
		}
		c.types[col] = typ
		out[table] = c
		if kind == "clustering" {
			clustering[table] = append(clustering[table], clustered{col, position, order == "desc"})
		}
	}
	if err := iter.Close(); err != nil {
		return nil, clusterError(ctx, "read the columns of "+cqlKS, err)
	}
	for table, cs := range clustering {
		sort.Slice(cs, func(i, j int) bool { return cs[i].position < cs[j].position })
		c := out[table]
		for _, cc := range cs {
			c.clustering = append(c.clustering, cc.name)
			c.desc = append(c.desc, cc.desc)
		}
		out[table] = c
	}
	return out, nil
}
