package cqlstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/schema"
)

// indexTable is the table of KEYS index entries (engine.Indexer) beside
// the tables of a keyspace with an indexed family; doc.go, "Secondary
// indexes", has its rows, its invariant and its build.
const indexTable = "thriftd_index"

// legacyIndexSuffix ends the name of the Cassandra index an earlier
// thriftd kept on a table.
const legacyIndexSuffix = "_thriftd_keys"

// indexBuildDelay is how long after its first walk a build walks the
// family again: longer than a follower takes to serve a schema change
// (its poll and the nodes' agreement), so that every write the second
// walk misses wrote its own entry.
const indexBuildDelay = 6 * time.Second

// maxIndexedValue is the longest value of an indexed column a write may
// hold: 1.2 refused 65,535 bytes and more ("Can't index column value of
// size ...").
const maxIndexedValue = 65534

// maxEntryValue is the longest value an entry's partition key holds as it
// is (Cassandra's partition keys are at most 65,535 bytes, with the
// family's name and the column beside the value); a longer one is held as
// its SHA-256 digest behind a zero byte. Entries only point at rows to
// read, so two values sharing a partition cost a read, never an answer.
const maxEntryValue = 32768

// entryValue is the partition key component of value's entries.
func entryValue(value []byte) raw {
	if len(value) <= maxEntryValue {
		return raw(value)
	}
	sum := sha256.Sum256(value)
	return append(raw{0}, sum[:]...)
}

var _ engine.Indexer = (*Store)(nil)

// familyIndex is where a family's entries go: set on the families of
// thriftd's own tables that declare KEYS columns (wantsIndex).
type familyIndex struct {
	table   string // "ks".thriftd_index
	columns [][]byte
	insert  string
	insTTL  string
	delete  string
}

func newFamilyIndex(cqlKS string, def *schema.ColumnFamily) *familyIndex {
	t := quote(cqlKS) + "." + indexTable
	return &familyIndex{
		table:   t,
		columns: keysColumns(def),
		insert:  `INSERT INTO ` + t + ` (family, column, value, row_token, key, written) VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ?`,
		insTTL:  `INSERT INTO ` + t + ` (family, column, value, row_token, key, written) VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ? AND TTL ?`,
		delete:  `DELETE FROM ` + t + ` USING TIMESTAMP ? WHERE family = ? AND column = ? AND value = ? AND row_token = ? AND key = ?`,
	}
}

// indexed reports whether column is one of the family's KEYS columns.
func (x *familyIndex) indexed(column []byte) bool {
	if x == nil {
		return false
	}
	for _, c := range x.columns {
		if bytes.Equal(c, column) {
			return true
		}
	}
	return false
}

// keysColumns lists def's KEYS columns.
func keysColumns(def *schema.ColumnFamily) [][]byte {
	var out [][]byte
	for i := range def.Columns {
		if ix := def.Columns[i].Index; ix != nil && ix.Type == schema.IndexKeys {
			out = append(out, def.Columns[i].Name)
		}
	}
	return out
}

// wantsIndex reports whether the table of def, whose columns are cols,
// has its KEYS columns indexed: a Standard family of a non-counter value
// with a KEYS column. (1.2 refused indexes on Super and counter families.)
func wantsIndex(def *schema.ColumnFamily, cols tableColumns) bool {
	if def.Super || counterFamily(def) || cols.types["value"] == "" || cols.types["value"] == "counter" {
		return false
	}
	return len(keysColumns(def)) > 0
}

// indexStatements appends the entry of every live write of an indexed
// column among muts, whether or not the write wins: a losing one only
// leaves an entry that IndexedKeys finds stale. An empty value is never
// looked up, so it has none.
func (st *Store) indexStatements(out []statement, f *family, key string, muts []engine.Mutation) ([]statement, error) {
	x := f.index
	if x == nil {
		return out, nil
	}
	var token []byte
	for _, m := range muts {
		if m.Delete || m.SuperColumn != nil || len(m.Value) == 0 || !x.indexed(m.Name) {
			continue
		}
		if len(m.Value) > maxIndexedValue {
			return nil, &engine.RefusedError{Why: fmt.Sprintf("Can't index column value of size %d for index %s in CF %s of KS %s", len(m.Value), indexNameOf(f.def, m.Name), f.def.Name, f.def.Keyspace)}
		}
		if token == nil {
			token = st.part.Token(key)
		}
		now := time.Now().UnixMicro()
		if m.TTL > 0 {
			out = append(out, statement{x.insTTL, []any{f.def.Name, raw(m.Name), entryValue(m.Value), raw(token), raw(key), now, m.Timestamp, min(capTTL(int(m.TTL))+1, maxTTL)}})
		} else {
			out = append(out, statement{x.insert, []any{f.def.Name, raw(m.Name), entryValue(m.Value), raw(token), raw(key), now, m.Timestamp}})
		}
	}
	return out, nil
}

// indexNameOf is the name of the index on column in def, for messages.
func indexNameOf(def *schema.ColumnFamily, column []byte) string {
	for i := range def.Columns {
		if ix := def.Columns[i].Index; ix != nil && bytes.Equal(def.Columns[i].Name, column) && ix.Name != "" {
			return ix.Name
		}
	}
	return "null"
}

// indexState is which indexes are known to be built and which this
// process is building, by indexID.
type indexState struct {
	mu       sync.Mutex
	built    map[string]bool
	building map[string]bool
}

// reset forgets the indexes seen built: every schema served starts again
// (an index dropped and declared again is built again).
func (s *indexState) reset() {
	s.mu.Lock()
	s.built = nil
	s.mu.Unlock()
}

func indexID(cqlKS, cf string, column []byte) string {
	return cqlKS + "\x00" + cf + "\x00" + string(column)
}

// markerArgs are the primary key of the marker of the index on column of
// cf, in the order of the table's primary key.
func markerArgs(cf string, column []byte) []any {
	return []any{"", raw{}, raw{}, raw(cf), raw(column)}
}

// syncIndexes makes the cluster hold what next's indexes need: the index
// table of every keyspace with an indexed family, no index of Cassandra's
// that an earlier thriftd created, a marker for each index of a family
// whose table this change created (fresh: it holds no rows), and a build
// under way for every other index not yet built. When author is set (this
// process made the change) it deletes the markers of indexes no longer
// declared.
func (st *Store) syncIndexes(ctx context.Context, next *schema.Schema, author bool, fresh map[cfName]bool) error {
	type build struct {
		cqlKS string
		f     *family
		col   []byte
	}
	var builds []build
	for _, name := range next.KeyspaceNames() {
		ks := next.Keyspaces[name]
		if ks.System || len(ks.ColumnFamilies) == 0 {
			continue
		}
		cqlKS := keyspaceName(st.opts.Prefix, name)
		cols, err := st.columnsOf(ctx, cqlKS)
		if err != nil {
			return err
		}
		declared := map[string]*schema.ColumnFamily{}
		for _, cf := range sortedFamilies(ks) {
			if def := ks.ColumnFamilies[cf]; wantsIndex(def, cols[cf]) {
				declared[cf] = def
			}
		}
		legacy, err := st.legacyIndexes(ctx, cqlKS)
		if err != nil {
			return err
		}
		for _, ix := range legacy {
			stmt := `DROP INDEX IF EXISTS ` + quote(cqlKS) + `.` + quote(ix)
			if err := st.ddl(ctx, stmt); err != nil {
				return err
			}
			st.logger().Info("schema change: thriftd keeps KEYS indexes in its own table now", "cql", stmt)
		}
		_, haveTable := cols[indexTable]
		if len(declared) > 0 && !haveTable {
			stmt := `CREATE TABLE IF NOT EXISTS ` + quote(cqlKS) + `.` + indexTable +
				` (family text, column blob, value blob, row_token blob, key blob, written bigint, PRIMARY KEY ((family, column, value), row_token, key))` +
				fmt.Sprintf(` WITH gc_grace_seconds = %d AND comment = 'thriftd: KEYS indexes of the column families of %s'`, max(st.opts.GCGraceSeconds, 0), strings.ReplaceAll(name, "'", "''"))
			if err := st.ddl(ctx, stmt); err != nil {
				return err
			}
			st.logger().Info("schema change", "cql", stmt)
			haveTable = true
		}
		if !haveTable {
			continue
		}
		if author {
			markers, err := st.indexMarkers(ctx, cqlKS)
			if err != nil {
				return err
			}
			for _, m := range markers {
				if def := declared[m[0]]; def == nil || !(&familyIndex{columns: keysColumns(def)}).indexed([]byte(m[1])) {
					args := append([]any{time.Now().UnixMicro()}, markerArgs(m[0], []byte(m[1]))...)
					if err := st.schemaQuery(`DELETE FROM `+quote(cqlKS)+`.`+indexTable+` USING TIMESTAMP ? WHERE family = ? AND column = ? AND value = ? AND row_token = ? AND key = ?`, args...).
						WithContext(ctx).Consistency(gocql.Quorum).Exec(); err != nil {
						return clusterError(ctx, "forget the index on "+m[0], err)
					}
				}
			}
		}
		for _, cf := range sortedFamilies(ks) {
			def := declared[cf]
			if def == nil {
				continue
			}
			f := familyOf(def, quote(cqlKS)+"."+quote(cf), cols[cf])
			f.index = newFamilyIndex(cqlKS, def)
			for _, col := range f.index.columns {
				if fresh[cfName{name, cf}] {
					if err := st.markBuilt(ctx, cqlKS, cf, col); err != nil {
						return err
					}
					continue
				}
				builds = append(builds, build{cqlKS, f, col})
			}
		}
	}
	for _, b := range builds {
		st.startBuild(b.cqlKS, b.f, b.col)
	}
	return nil
}

// legacyIndexes lists the Cassandra indexes of cqlKS that an earlier
// thriftd created.
func (st *Store) legacyIndexes(ctx context.Context, cqlKS string) ([]string, error) {
	var out []string
	iter := st.schemaQuery(`SELECT table_name, index_name FROM system_schema.indexes WHERE keyspace_name = ?`, cqlKS).
		WithContext(ctx).PageSize(pageSize).Iter()
	var table, index string
	for iter.Scan(&table, &index) {
		if index == table+legacyIndexSuffix {
			out = append(out, index)
		}
	}
	return out, clusterError(ctx, "read the indexes of "+cqlKS, iter.Close())
}

// indexMarkers lists the built indexes of cqlKS as (family, column).
func (st *Store) indexMarkers(ctx context.Context, cqlKS string) ([][2]string, error) {
	var out [][2]string
	iter := st.schemaQuery(`SELECT row_token, key FROM `+quote(cqlKS)+`.`+indexTable+` WHERE family = ? AND column = ? AND value = ?`, markerArgs("", nil)[:3]...).
		WithContext(ctx).Consistency(gocql.Quorum).PageSize(pageSize).Iter()
	var cf, col raw
	for iter.Scan(&cf, &col) {
		out = append(out, [2]string{string(cf), string(col)})
	}
	return out, clusterError(ctx, "read the built indexes of "+cqlKS, iter.Close())
}

// markBuilt writes the marker of the index on column of cf.
func (st *Store) markBuilt(ctx context.Context, cqlKS, cf string, column []byte) error {
	now := time.Now().UnixMicro()
	args := append(markerArgs(cf, column), now, now)
	err := st.schemaQuery(`INSERT INTO `+quote(cqlKS)+`.`+indexTable+` (family, column, value, row_token, key, written) VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ?`, args...).
		WithContext(ctx).Consistency(gocql.Quorum).Exec()
	if err != nil {
		return clusterError(ctx, "mark the index on "+cf+" built", err)
	}
	st.indexes.mu.Lock()
	if st.indexes.built == nil {
		st.indexes.built = map[string]bool{}
	}
	st.indexes.built[indexID(cqlKS, cf, column)] = true
	st.indexes.mu.Unlock()
	return nil
}

// indexReady reports whether the index on column of cf is built.
func (st *Store) indexReady(ctx context.Context, cqlKS, cf string, column []byte) (bool, error) {
	id := indexID(cqlKS, cf, column)
	st.indexes.mu.Lock()
	ok := st.indexes.built[id]
	st.indexes.mu.Unlock()
	if ok {
		return true, nil
	}
	ctx, cancel := st.withRequestTimeout(ctx)
	defer cancel()
	var written int64
	err := st.schemaQuery(`SELECT written FROM `+quote(cqlKS)+`.`+indexTable+` WHERE family = ? AND column = ? AND value = ? AND row_token = ? AND key = ?`, markerArgs(cf, column)...).
		WithContext(ctx).Consistency(gocql.One).Scan(&written)
	if errors.Is(err, gocql.ErrNotFound) || tableMissing(err) {
		return false, nil
	}
	if err != nil {
		return false, clusterError(ctx, "read whether the index on "+cf+" is built", err)
	}
	st.indexes.mu.Lock()
	if st.indexes.built == nil {
		st.indexes.built = map[string]bool{}
	}
	st.indexes.built[id] = true
	st.indexes.mu.Unlock()
	return true, nil
}

// tableMissing reports a query refused because its table does not exist
// (yet) on the node.
func tableMissing(err error) bool {
	var re gocql.RequestError
	return errors.As(err, &re) && re.Code() == 0x2200 && strings.Contains(re.Message(), "unconfigured table")
}

// startBuild builds the index on column of f in the background unless it
// is built or being built by this process: an entry for every cell of the
// column, then the marker, then again indexBuildDelay later. A failed
// walk is logged and tried again a minute later, unless the family or its
// index is no longer served (dropped meanwhile); Close stops it.
func (st *Store) startBuild(cqlKS string, f *family, column []byte) {
	id := indexID(cqlKS, f.def.Name, column)
	st.indexes.mu.Lock()
	if st.indexes.building[id] {
		st.indexes.mu.Unlock()
		return
	}
	if st.indexes.building == nil {
		st.indexes.building = map[string]bool{}
	}
	st.indexes.building[id] = true
	st.indexes.mu.Unlock()
	st.bg.Add(1)
	go func() {
		defer st.bg.Done()
		defer func() {
			st.indexes.mu.Lock()
			delete(st.indexes.building, id)
			st.indexes.mu.Unlock()
		}()
		log := st.logger().With("keyspace", f.def.Keyspace, "column_family", f.def.Name, "column", string(column))
		if ready, err := st.indexReady(st.bgCtx, cqlKS, f.def.Name, column); err == nil && ready {
			return
		}
		for walk := 1; walk <= 2; {
			start := time.Now()
			n, err := st.buildIndex(st.bgCtx, cqlKS, f, column)
			if err == nil {
				log.Info("KEYS index built over the rows the family held", "walk", walk, "entries", n, "took", time.Since(start).Round(time.Millisecond))
				if walk++; walk == 2 {
					select {
					case <-st.bgCtx.Done():
						return
					case <-time.After(indexBuildDelay):
					}
				}
				continue
			}
			if st.bgCtx.Err() != nil {
				return
			}
			if !st.indexServed(f, column) {
				// The family, its keyspace or its index was dropped
				// since the build began: nothing is left to build.
				log.Info("stopped building a KEYS index: the family or its index is gone", "err", err)
				return
			}
			log.Warn("building a KEYS index failed; queries scan the family meanwhile; trying again in a minute", "err", err)
			select {
			case <-st.bgCtx.Done():
				return
			case <-time.After(time.Minute):
			}
		}
	}()
}

// indexServed reports whether the store serves f's table with a KEYS
// index on column. It waits for a schema change in progress: a build
// starts while the change that declares its index is applied, before that
// change is served.
func (st *Store) indexServed(f *family, column []byte) bool {
	st.schemaMu.Lock()
	defer st.schemaMu.Unlock()
	cur := (*st.cfs.Load())[cfName{f.def.Keyspace, f.def.Name}]
	return cur != nil && cur.table == f.table && cur.index.indexed(column)
}

// buildIndex writes an entry for every cell of column in f's table, then
// the marker, and returns the number of entries.
func (st *Store) buildIndex(ctx context.Context, cqlKS string, f *family, column []byte) (int, error) {
	cells := valueCells{on: f.valueType != ""}
	iter := st.session.Query(lazyText(&f.texts.indexBuild, f, indexBuildText), f.encode(f.def.Comparator, column)).
		WithContext(ctx).Consistency(gocql.Quorum).PageSize(pageSize).Iter()
	var (
		blob, value raw
		ts          int64
		ttl         *int32
		n           int
	)
	for iter.Scan(cells.dest([]any{&blob, &value, &ts, &ttl})...) {
		var live bool
		if value, ts, ttl, live = cells.merge(value, ts, ttl); !live {
			continue
		}
		key := string(blob)
		if !f.rawKey {
			var err error
			if key, _, err = st.decodeKey(blob); err != nil {
				iter.Close()
				return n, fmt.Errorf("%s: stored row key: %w", f.table, err)
			}
		}
		m := engine.Mutation{ColumnFamily: f.def.Name, Name: column, Value: value, Timestamp: ts}
		if ttl != nil {
			m.TTL = *ttl
		}
		stmts, err := st.indexStatements(nil, f, key, []engine.Mutation{m})
		if err != nil {
			continue // a value too long to index: 1.2 refused writing it
		}
		for _, s := range stmts {
			qctx, cancel := st.withRequestTimeout(ctx)
			err := st.session.Query(s.cql, s.args...).WithContext(qctx).Consistency(gocql.Quorum).Idempotent(true).Exec()
			cancel()
			if err != nil {
				iter.Close()
				return n, clusterError(ctx, "write an index entry", err)
			}
			n++
		}
		blob, value = nil, nil
	}
	if err := iter.Close(); err != nil {
		return n, clusterError(ctx, "read "+f.table, err)
	}
	return n, st.markBuilt(ctx, cqlKS, f.def.Name, column)
}

// indexCells is the SELECT of a column's cells of rows of f, led by
// their keys.
func indexCells(f *family) string {
	cells := valueCells{on: f.valueType != ""}
	return `SELECT ` + f.col.key + `, ` + f.col.value + `, WRITETIME(` + f.col.value + `), TTL(` + f.col.value + `)` + cells.selects() + ` FROM ` + f.table
}

// indexReadText reads one column of the rows whose keys are bound.
func indexReadText(f *family) string {
	return indexCells(f) + ` WHERE ` + f.col.key + ` IN ? AND ` + f.col.column1 + ` = ?`
}

// indexBuildText reads one column of every row.
func indexBuildText(f *family) string {
	return indexCells(f) + ` WHERE ` + f.col.column1 + ` = ? ALLOW FILTERING`
}
