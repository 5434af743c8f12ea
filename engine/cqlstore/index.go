package cqlstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/schema"
)

// KEYS secondary indexes (engine.Indexer; docs/cassandra.md, "Secondary
// indexes"). A family that declares at least one KEYS column has one
// index of Cassandra's own, the legacy secondary index, on its table's
// value column:
//
//	CREATE INDEX "<cf>_thriftd_keys" ON "ks"."cf" (value) USING 'legacy_local_table'
//
// It indexes every cell of the family, so a query restricts the name too
// (WHERE column1 = ? AND value = ? ALLOW FILTERING). Cassandra keeps it
// atomic with each write, deletion, truncation and expiry, so it has no
// stale entries; the handler reads every candidate again all the same.
// Storage-attached indexes are not used: Cassandra 5.0 refuses them on
// every partitioner but Murmur3, and on Murmur3 refuses blob values,
// which most families hold.
//
// An index declared on a family that holds rows is built by Cassandra in
// the background: IndexedKeys answers not ready (the caller scans) until
// the node the statement goes to lists it in system."IndexInfo" as
// built, and also when a replica refuses the query because its own copy
// is not built yet.

// indexSuffix ends the name of the index thriftd keeps on a table; the
// name is the table's followed by it, so that thriftd never drops an
// index it did not create.
const indexSuffix = "_thriftd_keys"

var _ engine.Indexer = (*Store)(nil)

// indexName is the CQL name of the index on column family cf's table.
func indexName(cf string) string { return cf + indexSuffix }

// keysColumn reports whether def declares a KEYS index on column.
func keysColumn(def *schema.ColumnFamily, column []byte) bool {
	for i := range def.Columns {
		if ix := def.Columns[i].Index; ix != nil && ix.Type == schema.IndexKeys && bytes.Equal(def.Columns[i].Name, column) {
			return true
		}
	}
	return false
}

// wantsIndex reports whether the table of def, whose columns are cols,
// should carry the index: a Standard family of a non-counter value with a
// KEYS column. (1.2 refused indexes on Super and counter families.)
func wantsIndex(def *schema.ColumnFamily, cols tableColumns) bool {
	if def.Super || counterFamily(def) || cols.types["value"] == "" || cols.types["value"] == "counter" {
		return false
	}
	for i := range def.Columns {
		if ix := def.Columns[i].Index; ix != nil && ix.Type == schema.IndexKeys {
			return true
		}
	}
	return false
}

// syncIndexes creates the index of every family of next that declares a
// KEYS column and lacks it, and, when author is set (this process made
// the change), drops thriftd's index of every family that no longer
// declares one. Dropped tables and keyspaces take their indexes with
// them.
func (st *Store) syncIndexes(ctx context.Context, next *schema.Schema, author bool) error {
	var stmts []string
	for _, name := range next.KeyspaceNames() {
		ks := next.Keyspaces[name]
		if ks.System || len(ks.ColumnFamilies) == 0 {
			continue
		}
		declared := false
		for _, def := range ks.ColumnFamilies {
			declared = declared || wantsIndex(def, tableColumns{types: map[string]string{"value": "blob"}})
		}
		if !declared && !author {
			continue
		}
		cqlKS := keyspaceName(st.opts.Prefix, name)
		have, err := st.indexesOf(ctx, cqlKS)
		if err != nil {
			return err
		}
		if !declared && len(have) == 0 {
			continue
		}
		cols, err := st.columnsOf(ctx, cqlKS)
		if err != nil {
			return err
		}
		for _, cf := range sortedFamilies(ks) {
			want := wantsIndex(ks.ColumnFamilies[cf], cols[cf])
			switch {
			case want && !have[cf]:
				stmts = append(stmts, `CREATE INDEX IF NOT EXISTS `+quote(indexName(cf))+` ON `+quote(cqlKS)+`.`+quote(cf)+` (value) USING 'legacy_local_table'`)
			case !want && have[cf] && author:
				stmts = append(stmts, `DROP INDEX IF EXISTS `+quote(cqlKS)+`.`+quote(indexName(cf)))
			}
		}
	}
	for _, stmt := range stmts {
		if err := st.ddl(ctx, stmt); err != nil {
			return err
		}
		st.logger().Info("schema change", "cql", stmt)
	}
	return nil
}

// indexesOf lists the tables of cqlKS that carry thriftd's index.
func (st *Store) indexesOf(ctx context.Context, cqlKS string) (map[string]bool, error) {
	out := map[string]bool{}
	iter := st.schemaQuery(`SELECT table_name, index_name FROM system_schema.indexes WHERE keyspace_name = ?`, cqlKS).
		WithContext(ctx).PageSize(pageSize).Iter()
	var table, index string
	for iter.Scan(&table, &index) {
		if index == indexName(table) {
			out[table] = true
		}
	}
	return out, clusterError(ctx, "read the indexes of "+cqlKS, iter.Close())
}

// builtIndexes remembers the indexes seen built, by CQL keyspace and index
// name, so that a query reads system."IndexInfo" only until then; every
// schema served starts it again (an index dropped and declared again is
// built again).
type builtIndexes struct {
	mu    sync.Mutex
	built map[[2]string]bool
}

func (b *builtIndexes) reset() {
	b.mu.Lock()
	b.built = nil
	b.mu.Unlock()
}

// indexReady reports whether the index on cf of cqlKS is built, as the
// node schema statements go to reports it.
func (st *Store) indexReady(ctx context.Context, cqlKS, cf string) (bool, error) {
	name := [2]string{cqlKS, indexName(cf)}
	st.built.mu.Lock()
	ok := st.built.built[name]
	st.built.mu.Unlock()
	if ok {
		return true, nil
	}
	ctx, cancel := st.bound(ctx)
	defer cancel()
	var got string
	err := st.schemaQuery(`SELECT index_name FROM system."IndexInfo" WHERE table_name = ? AND index_name = ?`, name[0], name[1]).
		WithContext(ctx).Consistency(gocql.One).Scan(&got)
	if errors.Is(err, gocql.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, clusterError(ctx, "read system.IndexInfo", err)
	}
	st.built.mu.Lock()
	if st.built.built == nil {
		st.built.built = map[[2]string]bool{}
	}
	st.built.built[name] = true
	st.built.mu.Unlock()
	return true, nil
}

// IndexedKeys implements engine.Indexer with the family's index: the
// keys, in token order from b's start, of the rows whose column holds
// value now (the index has no stale entries). An empty value is not
// looked up (the caller scans): Cassandra's indexes do not all keep
// empty values.
func (st *Store) IndexedKeys(ctx context.Context, keyspace, columnFamily string, column, value []byte, b engine.Bounds, max int) ([]string, bool, error) {
	if err := st.enter(); err != nil {
		return nil, false, err
	}
	defer st.leave()
	ctx = nonSerial(ctx)
	f, err := st.family(keyspace, columnFamily)
	if err != nil {
		return nil, false, err
	}
	if f.system || f.adopt != nil || !keysColumn(f.def, column) || !wantsIndex(f.def, tableColumns{types: map[string]string{"value": valueType(f.def)}}) || len(value) == 0 {
		return nil, false, nil
	}
	if f.def.Comparator != nil && f.def.Comparator.Validate(column) != nil {
		return nil, false, nil
	}
	cqlKS := keyspaceName(st.opts.Prefix, keyspace)
	if !strings.HasPrefix(f.table, quote(cqlKS)+".") {
		return nil, false, nil // an adopted keyspace's table: thriftd keeps no index there
	}
	if ready, err := st.indexReady(ctx, cqlKS, columnFamily); err != nil || !ready {
		return nil, false, err
	}
	if max <= 0 {
		return nil, true, nil
	}
	stmt := `SELECT key FROM ` + f.table + ` WHERE column1 = ? AND value = ?`
	args := []any{f.encode(f.def.Comparator, column), raw(value)}
	if len(b.Start) > 0 {
		stmt += ` AND token(key) >= ?`
		args = append(args, st.tokenValue(f, b.Start))
	}
	qctx, cancel := st.bound(ctx)
	defer cancel()
	iter := st.readQuery(qctx, stmt+` ALLOW FILTERING`, args...).PageSize(min(max+1, pageSize)).Iter()
	var keys []string
	var blob raw
	for len(keys) < max && iter.Scan(&blob) {
		key, tok, err := st.decodeKey(blob)
		if f.rawKey {
			key, tok, err = string(blob), st.part.Token(string(blob)), nil
		}
		if err != nil {
			iter.Close()
			return nil, false, fmt.Errorf("%s: stored row key: %w", f.table, err)
		}
		if len(b.End) > 0 && bytes.Compare(tok, b.End) > 0 {
			break
		}
		if !b.StartInclusive && bytes.Equal(tok, b.Start) {
			continue
		}
		keys = append(keys, key)
		blob = nil
	}
	err = iter.Close()
	if indexUnusable(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, clusterError(qctx, "query the index of "+f.table, err)
	}
	return keys, true, nil
}

// indexUnusable reports an error with which a replica refused an index
// query without its being wrong: its copy of the index is still being
// built (a read failure), or the value is not one the column's CQL type
// accepts (no row holds it; the scan answers so). The caller then scans.
func indexUnusable(err error) bool {
	var rf *gocql.RequestErrReadFailure
	if errors.As(err, &rf) {
		return true
	}
	var re gocql.RequestError
	return errors.As(err, &re) && re.Code() == 0x2200
}
