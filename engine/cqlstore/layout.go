package cqlstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/big"
	"regexp"
	"strings"

	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// Layout. Each 0.6 column family is one table of the CQL keyspace
// Prefix+keyspace:
//
//	Standard: key blob, column1 blob, value blob, ghost blob static,
//	          written_ttl int, PRIMARY KEY (key, column1)
//	Super:    key blob, super_column blob, column1 blob, value blob,
//	          ghost blob static, PRIMARY KEY (key, super_column, column1)
//
// column1 and super_column hold the name itself for the comparators that
// order as unsigned bytes (BytesType, AsciiType, UTF8Type), and the
// comparator's order-preserving encoding (marshal) for LongType,
// LexicalUUIDType and TimeUUIDType, so CQL's unsigned blob order is the
// 0.6 comparator's order for every comparator. (The escaped encodings of
// the byte-ordered types would also keep the order, but add bytes that a
// name of nearly 64 KiB cannot spare: Cassandra's limit on a clustering
// value is 65,535 bytes, as 0.6's on a name.) A cell's write time is the 0.6
// timestamp (USING TIMESTAMP).
//
// key is the row key's bytes on a Random or Murmur3 cluster, whose tokens
// are 0.6's, and on a ByteOrdered cluster for ByteOrderedPartitioner, whose
// token order is the keys' byte order; for OrderPreservingPartitioner it is
// the key's bytes mapped into Java's String order
// (dht.JavaOrderBytes, as long as the key); for
// CollatingOrderPreservingPartitioner it is the partitioner's RowKey
// (collation token then key). So the cluster's byte order of key blobs is
// the 0.6 token order.
//
// ghost is the range ghost marker: every deletion writes it with a TTL of
// GCGraceSeconds, so a row holding only tombstones still appears in range
// reads (as it did in 0.6) until GCGraceSeconds have passed; an expiring
// write gives it its own TTL plus GCGraceSeconds, so that a row whose
// columns have all expired appears until they would be purged. It is never
// read as data.
//
// An expiring column (the 19.x API's TTL) is a cell written USING TTL, so
// the cluster expires it and keeps its tombstone for gc_grace_seconds, as
// Cassandra 1.2 did; reads of a 0.6 table report the seconds it has left
// (TTL(value)), not the TTL it was written with, which CQL does not keep
// (a 19.x table keeps it: typed.go). A TTL reaching past 2038 is capped
// (capTTL).
//
// Each keyspace also holds thriftd_schema (schema.go), which records the
// partitioner and each column family's type and comparators.
//
// The other shapes a family may have (19.x tables, typed.go; counters,
// counter.go; adopted tables, adopt*.go) each have a layout type
// (tableLayout, tablelayout.go) that reads, counts and writes their rows;
// a family's layout is chosen once, when the family is built, and the
// statements whose text depends on the family alone are built with it
// (familyCQL), from the table's own column names (columnNames). blobLayout,
// below, is the layout described here, typedLayout its 19.x variant.

// family is a column family as the store keeps it.
type family struct {
	def    *schema.ColumnFamily
	table  string // "ks"."cf", quoted
	system bool   // 0.6's system keyspace: no table, always empty
	// col names the table's key, column1 and value columns in its
	// statements.
	col columnNames
	cql familyCQL
	// ghost is set for the 0.6 layout, whose static ghost column marks
	// range ghosts; the 19.x layout (typed.go) has none.
	ghost bool
	// writtenTTL: the table keeps each expiring column's TTL as written
	// (written_ttl), to answer it as 1.2 did.
	writtenTTL bool
	// rawNames: column1 is of a CQL type that holds names as they are;
	// otherwise it is a blob of encodeName.
	rawNames bool
	// nameComponents: a composite table keeps the number of components
	// each name was written with (name_components, adoptcomposite.go).
	nameComponents bool
	// valueType is the CQL type of value when the table also has
	// blob_value, which holds the values that type refuses (typed.go);
	// empty otherwise.
	valueType string
	// rawKey: key is of a CQL type other than blob, holding the row key's
	// bytes as they are; otherwise it holds keyBlob.
	rawKey bool
	// desc: column1 is clustered in descending order (a ReversedType
	// comparator, of an adopted table or a 19.x one), so CQL's order of
	// its values is the reverse of the comparator's.
	desc bool
	// adopt, when set, serves an adopted table's static columns as
	// declared columns (adoptstatic.go).
	adopt *adoptedLayout
	// index, when set, is where the entries of the family's KEYS
	// columns go (index.go).
	index *familyIndex
	// selects are the texts of the reads of columnsSelect (readmany.go),
	// texts those of a few other reads.
	selects *selectTexts
	texts   *familyTexts
	// layout reads and writes the rows of the family's shape
	// (tablelayout.go); set by newFamily and by each with* that changes
	// the shape.
	layout tableLayout
}

// newFamily is def's family in the 0.6 layout, stored in table.
func newFamily(def *schema.ColumnFamily, table string, system bool) *family {
	f := &family{def: def, table: table, system: system, col: thriftColumns, cql: newFamilyCQL(table, thriftColumns), ghost: true, selects: new(selectTexts), texts: new(familyTexts)}
	f.layout = layoutOf(f)
	return f
}

// tableColumns are a table's columns as system_schema.columns lists
// them: the CQL type of each, by name, and the clustering columns in
// order, with whether each is clustered DESC.
type tableColumns struct {
	types      map[string]string
	clustering []string
	desc       []bool
}

// familyOf is def's family in table, whose columns are cols: the layout
// is read from the table itself, so a table keeps the layout it was
// created with.
func familyOf(def *schema.ColumnFamily, table string, cols tableColumns) *family {
	f := newFamily(def, table, false)
	if def.Super || cols.types == nil {
		return f
	}
	// A 0.6 table's key and column1 are blobs (rawNames and rawKey
	// false); a 19.x table has the ghost column since it was added, and
	// written_ttl beside it, as a Standard 0.6 table has since it was
	// added there.
	_, f.ghost = cols.types["ghost"]
	_, f.writtenTTL = cols.types["written_ttl"]
	f.rawNames = cols.types["column1"] != "" && cols.types["column1"] != "blob"
	f.rawKey = cols.types["key"] != "" && cols.types["key"] != "blob"
	if _, ok := cols.types[blobValueColumn]; ok {
		f.valueType = cols.types["value"]
	}
	if f.writtenTTL {
		f.cql.insertTTL = `INSERT INTO ` + table + ` (` + f.col.key + `, ` + f.col.column1 + `, ` + f.col.value + `, written_ttl) VALUES (?, ?, ?, ?) USING TIMESTAMP ? AND TTL ?`
	}
	switch {
	case len(cols.clustering) > 1:
		// A CompositeType comparator's components, a column each
		// (clusteringOf); tables created before had one blob column1.
		f.rawNames = true
		withComposite(f, cols.clustering, cols.desc)
		f.adopt.prefixes = true
		_, f.nameComponents = cols.types[nameComponentsColumn]
	case len(cols.desc) == 1 && cols.desc[0]:
		// A ReversedType comparator's base type, clustered DESC; tables
		// created before had an ascending blob column1.
		f.rawNames, f.desc = true, true
	}
	f.layout = layoutOf(f)
	return f
}

// encode is the stored form of a name compared by c.
func (f *family) encode(c marshal.Comparator, name []byte) raw {
	if f.rawNames {
		return name
	}
	return encodeName(c, name)
}

// decode reads a stored name back.
func (f *family) decode(c marshal.Comparator, stored []byte) ([]byte, error) {
	if f.rawNames {
		return append(make([]byte, 0, len(stored)), stored...), nil
	}
	return decodeName(c, stored)
}

// decodeScanned is decode of a name the caller scanned into a copy of
// its own (raw) and no longer uses: a name stored as it is is that copy,
// not copied again.
func (f *family) decodeScanned(c marshal.Comparator, stored raw) ([]byte, error) {
	if f.rawNames || byteOrdered(c) {
		return stored, nil
	}
	return decodeName(c, stored)
}

// keyOf is the stored key of a row of f.
func (st *Store) keyOf(f *family, key string) raw {
	if f.rawKey {
		return raw(key)
	}
	return st.keyBlob(key)
}

// familyCQL is the text of a table's statements that depend on the
// family alone, built once when the family is built rather than per call
// (selectTexts and rangeTexts hold those of a few shapes each).
type familyCQL struct {
	insert, insertSub                               string
	insertTTL, insertSubTTL                         string
	deleteRow, deleteSuper, deleteColumn, deleteSub string
	ghost                                           string
	// count: super columns of a row (their names), columns of a row,
	// subcolumns of a super column.
	countSupers, countColumns, countSub string
	// readGhost reads a row's ghost, fenceNew and fenceSwap write it
	// under a condition (cas.go).
	readGhost, fenceNew, fenceSwap string
	// keys and keysFrom list a table's keys, from its first or from a
	// token on (walkKeys).
	keys, keysFrom string
	// superRow and superOne read the rows of the super shape
	// (adoptsuper.go), superDelete, superSetTTL and superSet write one
	// subcolumn.
	superRow, superOne, superDelete, superSetTTL, superSet string
}

func newFamilyCQL(t string, c columnNames) familyCQL {
	k, c1, v := c.key, c.column1, c.value
	byKey := ` FROM ` + t + ` WHERE ` + k + ` = ?`
	return familyCQL{
		insert:       `INSERT INTO ` + t + ` (` + k + `, ` + c1 + `, ` + v + `) VALUES (?, ?, ?) USING TIMESTAMP ?`,
		insertSub:    `INSERT INTO ` + t + ` (` + k + `, super_column, ` + c1 + `, ` + v + `) VALUES (?, ?, ?, ?) USING TIMESTAMP ?`,
		insertTTL:    `INSERT INTO ` + t + ` (` + k + `, ` + c1 + `, ` + v + `) VALUES (?, ?, ?) USING TIMESTAMP ? AND TTL ?`,
		insertSubTTL: `INSERT INTO ` + t + ` (` + k + `, super_column, ` + c1 + `, ` + v + `) VALUES (?, ?, ?, ?) USING TIMESTAMP ? AND TTL ?`,
		deleteRow:    `DELETE FROM ` + t + ` USING TIMESTAMP ? WHERE ` + k + ` = ?`,
		deleteSuper:  `DELETE FROM ` + t + ` USING TIMESTAMP ? WHERE ` + k + ` = ? AND super_column = ?`,
		deleteColumn: `DELETE FROM ` + t + ` USING TIMESTAMP ? WHERE ` + k + ` = ? AND ` + c1 + ` = ?`,
		deleteSub:    `DELETE FROM ` + t + ` USING TIMESTAMP ? WHERE ` + k + ` = ? AND super_column = ? AND ` + c1 + ` = ?`,
		ghost:        `UPDATE ` + t + ` USING TTL ? AND TIMESTAMP ? SET ghost = ? WHERE ` + k + ` = ?`,
		countSupers:  `SELECT super_column` + byKey,
		countColumns: `SELECT count(` + c1 + `)` + byKey,
		countSub:     `SELECT count(` + c1 + `)` + byKey + ` AND super_column = ?`,
		readGhost:    `SELECT ghost, TTL(ghost)` + byKey + ` LIMIT 1`,
		fenceNew:     `UPDATE ` + t + ` USING TTL ? SET ghost = ? WHERE ` + k + ` = ? IF ghost = null`,
		fenceSwap:    `UPDATE ` + t + ` USING TTL ? SET ghost = ? WHERE ` + k + ` = ? IF ghost = ?`,
		keys:         `SELECT DISTINCT ` + k + ` FROM ` + t,
		keysFrom:     `SELECT DISTINCT ` + k + ` FROM ` + t + ` WHERE token(` + k + `) >= ?`,
		superRow:     `SELECT *` + byKey,
		superOne:     `SELECT *` + byKey + ` AND ` + c1 + ` = ?`,
		superDelete:  `DELETE ` + superMap + `[?] FROM ` + t + ` USING TIMESTAMP ? WHERE ` + k + ` = ? AND ` + c1 + ` = ?`,
		superSetTTL:  `UPDATE ` + t + ` USING TIMESTAMP ? AND TTL ? SET ` + superMap + `[?] = ? WHERE ` + k + ` = ? AND ` + c1 + ` = ?`,
		superSet:     `UPDATE ` + t + ` USING TIMESTAMP ? SET ` + superMap + `[?] = ? WHERE ` + k + ` = ? AND ` + c1 + ` = ?`,
	}
}

// columnNames are the CQL identifiers, as statements name them, of a
// table's key, its clustering column of names and its value column.
// thriftd's own tables and the adopted tables of Thrift column families
// have thriftColumns; a compact table created with CQL keeps its own
// names after DROP COMPACT STORAGE (k, ts, v), and a table may have had
// columns renamed with CQL (AdoptedTable.columnNames). Every statement of
// a family is built from its names, so none is rewritten before it is
// sent.
type columnNames struct{ key, column1, value string }

var thriftColumns = columnNames{key: "key", column1: "column1", value: "value"}

// schemaTable is the name of thriftd's own table in each keyspace.
const schemaTable = "thriftd_schema"

// maxNameLen is Cassandra's limit on keyspace and table names.
const maxNameLen = 48

var cqlName = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// quote returns name as a quoted CQL identifier.
func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// keyspaceName is the CQL keyspace of a 0.6 keyspace.
func keyspaceName(prefix, ks string) string { return prefix + ks }

// checkNames refuses keyspace and column family names Cassandra cannot
// hold, before anything is created.
func checkNames(s *schema.Schema, prefix string) error {
	if prefix != "" && !cqlName.MatchString(prefix) {
		return fmt.Errorf("-cassandra-prefix %q may hold only letters, digits and underscores, as CQL keyspace names do", prefix)
	}
	var bad []string
	for _, name := range s.KeyspaceNames() {
		ks := s.Keyspaces[name]
		if ks.System {
			continue
		}
		cql := keyspaceName(prefix, name)
		switch {
		case !cqlName.MatchString(name):
			bad = append(bad, fmt.Sprintf("keyspace %q: CQL keyspace names hold only letters, digits and underscores", name))
		case len(cql) > maxNameLen:
			bad = append(bad, fmt.Sprintf("keyspace %s: its CQL name %s (prefix %q) is %d characters, over Cassandra's limit of %d; use a shorter -cassandra-prefix", name, cql, prefix, len(cql), maxNameLen))
		}
		for cf := range ks.ColumnFamilies {
			switch {
			case !cqlName.MatchString(cf):
				bad = append(bad, fmt.Sprintf("column family %s.%s: CQL table names hold only letters, digits and underscores", name, cf))
			case len(cf) > maxNameLen:
				bad = append(bad, fmt.Sprintf("column family %s.%s: its name is %d characters, over Cassandra's limit of %d", name, cf, len(cf), maxNameLen))
			case strings.EqualFold(cf, schemaTable):
				bad = append(bad, fmt.Sprintf("column family %s.%s: the name is thriftd's own table in each keyspace", name, cf))
			}
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("the schema cannot be stored in Cassandra: %s", strings.Join(bad, "; "))
	}
	return nil
}

// The cluster partitioners thriftd can use, as system.local names them.
const (
	murmur3Cluster     = "org.apache.cassandra.dht.Murmur3Partitioner"
	randomCluster      = "org.apache.cassandra.dht.RandomPartitioner"
	byteOrderedCluster = "org.apache.cassandra.dht.ByteOrderedPartitioner"
)

// clusterPartitionerFor names the cluster partitioner that keeps rows in
// the order p promises.
func clusterPartitionerFor(p dht.Partitioner) (string, error) {
	switch p.(type) {
	case dht.RandomPartitioner:
		return randomCluster, nil
	case dht.Murmur3Partitioner:
		return murmur3Cluster, nil
	case dht.OrderPreservingPartitioner, dht.ByteOrderedPartitioner, *dht.CollatingOrderPreservingPartitioner:
		return byteOrderedCluster, nil
	}
	return "", fmt.Errorf("the Cassandra backend has no cluster partitioner for %s", p.Name())
}

// byteOrdered reports whether c orders names as unsigned bytes, so that
// a name is stored as it is.
func byteOrdered(c marshal.Comparator) bool {
	switch c.(type) {
	case marshal.BytesType, marshal.AsciiType, marshal.UTF8Type:
		return true
	}
	return false
}

// encodeName is the stored form of a column or super column name.
func encodeName(c marshal.Comparator, name []byte) []byte {
	if byteOrdered(c) {
		return name
	}
	return c.Encode(nil, name)
}

// decodeName reads a stored name back.
func decodeName(c marshal.Comparator, blob []byte) ([]byte, error) {
	if byteOrdered(c) {
		return append(make([]byte, 0, len(blob)), blob...), nil
	}
	name, rest, err := c.Decode(blob)
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the name", marshal.ErrMalformed, len(rest))
	}
	return append(make([]byte, 0, len(name)), name...), nil
}

// keyBlob is the stored key of a row.
func (st *Store) keyBlob(key string) []byte {
	if st.ordered && !st.rawKeyOrder() {
		return st.part.RowKey(nil, key)
	}
	if st.javaOrder() {
		return dht.JavaOrderBytes(key)
	}
	return []byte(key)
}

// javaOrder reports whether key blobs are dht.JavaOrderBytes
// (OrderPreservingPartitioner, which orders keys as Java's Strings).
func (st *Store) javaOrder() bool {
	_, ok := st.part.(dht.OrderPreservingPartitioner)
	return ok
}

// rawKeyOrder reports whether the partitioner's token is the escaped key
// (OrderPreserving, in Java's order, and ByteOrdered), so that a ByteOrdered
// cluster keeps keys at their own length (keyBlob) and 0.6's longest keys
// fit.
func (st *Store) rawKeyOrder() bool {
	switch st.part.(type) {
	case dht.OrderPreservingPartitioner, dht.ByteOrderedPartitioner:
		return true
	}
	return false
}

// decodeKey reads a stored key back into the row key and its 0.6 token.
func (st *Store) decodeKey(blob []byte) (string, dht.Token, error) {
	if st.ordered && !st.rawKeyOrder() {
		key, tok, rest, err := st.part.DecodeRowKey(blob)
		if err != nil {
			return "", nil, err
		}
		if len(rest) != 0 {
			return "", nil, fmt.Errorf("%w: %d bytes after the key", dht.ErrMalformed, len(rest))
		}
		return key, tok, nil
	}
	key := string(blob)
	if st.javaOrder() {
		key = dht.KeyOfJavaOrderBytes(blob)
	}
	return key, st.part.Token(key), nil
}

// tokenValue is a non-minimum 0.6 token as the cluster's token()
// function returns it, to bind in "token(key) >= ?".
func (st *Store) tokenValue(f *family, t dht.Token) any {
	switch st.part.(type) {
	case dht.RandomPartitioner:
		return new(big.Int).SetBytes(t)
	case dht.Murmur3Partitioner:
		// 0.6-style tokens of Murmur3 are the int64 with its sign bit flipped.
		var b [8]byte
		copy(b[:], t)
		return int64(binary.BigEndian.Uint64(b[:]) ^ (1 << 63))
	}
	if st.rawKeyOrder() {
		// The token is the escaped key (its own RowKey): bind the key.
		if key, _, _, err := st.part.DecodeRowKey(t); err == nil {
			return st.keyOf(f, key)
		}
	}
	// Collating: a key blob starts with its token, and token encodings
	// are self-delimiting, so blob >= t exactly when the key's token >= t.
	return []byte(t)
}

// ownRows is what the two layouts of a table thriftd created share: one
// row of names per (super column and) column. blobLayout and typedLayout
// embed it and answer what their encodings tell apart.
type ownRows struct{}

// blobLayout is thriftd's 0.6 layout: key and column1 blobs, names
// encoded (encodeName) so that a comparator's spellings of one name are
// stored apart and read as one (spellings.go). A 19.x table whose column1
// is a blob (BytesType names, or tables created before column1 was
// typed) stores its names so too.
type blobLayout struct{ ownRows }

// typedLayout is thriftd's 19.x layout (typed.go) and an adopted compact
// table's: column1 of the comparator's CQL type, names stored as they
// are, so a name has one spelling.
type typedLayout struct{ ownRows }

func (ownRows) readRow(ctx context.Context, st *Store, f *family, key string, q engine.Query) (engine.Row, error) {
	ctx, cancel := st.withRequestTimeout(ctx)
	defer cancel()
	row := engine.Row{Key: key}
	var err error
	if f.def.Super && q.SuperColumn == nil {
		row.SuperColumns, err = st.readSupers(ctx, f, key, q.Predicate)
	} else {
		row.Columns, err = st.readColumns(ctx, f, key, q)
	}
	return row, err
}

func (l blobLayout) count(ctx context.Context, st *Store, f *family, key string, superColumn []byte) (int, error) {
	if c := f.def.Comparator; !f.def.Super && marshal.HasSpellings(c) || superColumn != nil && marshal.HasSpellings(f.def.SubComparator) {
		// Each name's spellings count once.
		if superColumn != nil {
			c = f.def.SubComparator
		}
		cols, err := st.readSpelled(ctx, f, key, engine.Query{ColumnFamily: f.def.Name, SuperColumn: superColumn, Predicate: engine.Predicate{Count: -1}}, c)
		return len(cols), err
	}
	return l.countRows(ctx, st, f, key, superColumn)
}

func (l typedLayout) count(ctx context.Context, st *Store, f *family, key string, superColumn []byte) (int, error) {
	return l.countRows(ctx, st, f, key, superColumn)
}

// countRows counts the super columns of a row (superColumn nil, in a
// super family) or the rows of its columns or of a super column's
// subcolumns, each name one row.
func (ownRows) countRows(ctx context.Context, st *Store, f *family, key string, superColumn []byte) (int, error) {
	kb := st.keyOf(f, key)
	if f.def.Super && superColumn == nil {
		// Super columns with a live subcolumn: one per run of rows.
		iter := st.readQuery(ctx, f.cql.countSupers, kb).PageSize(pageSize).Iter()
		n := 0
		var sc raw
		var last []byte
		for iter.Scan(&sc) {
			if len(sc) > 0 && !bytes.Equal(sc, last) {
				n++
				last = append(last[:0], sc...)
			}
		}
		return n, clusterError(ctx, "count super columns of "+f.table, iter.Close())
	}
	stmt, args := f.cql.countColumns, []any{kb}
	if superColumn != nil {
		stmt, args = f.cql.countSub, append(args, f.encode(f.def.Comparator, superColumn))
	}
	var n int64
	err := st.readQuery(ctx, stmt, args...).Scan(&n)
	return int(n), clusterError(ctx, "count columns of "+f.table, err)
}

func (ownRows) check(*family, engine.Mutation) error { return nil }

func (ownRows) mutation(out []statement, f *family, w rowWrite, m engine.Mutation) ([]statement, rowWrite) {
	if rangeDeletion(m) {
		return f.rangeStatements(out, w.key, m), w
	}
	return f.ownStatements(out, w, m)
}

// readsMany: a name's spellings are read apart (readSpelled), and the
// system keyspace has no table.
func (blobLayout) readsMany(f *family) bool {
	return !f.system && !f.def.Super && !marshal.HasSpellings(f.def.Comparator)
}

func (typedLayout) readsMany(f *family) bool { return !f.def.Super }

func (ownRows) casFenced(f *family) bool { return f.ghost && !f.def.Super }

func (blobLayout) row(f *family, c marshal.Comparator, name []byte) ([]string, []any) {
	return []string{f.col.column1}, []any{raw(encodeName(c, name))}
}

func (typedLayout) row(f *family, _ marshal.Comparator, name []byte) ([]string, []any) {
	return []string{f.col.column1}, []any{raw(name)}
}
