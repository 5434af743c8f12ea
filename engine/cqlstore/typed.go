package cqlstore

import (
	"bytes"
	"strconv"
	"strings"
	"sync/atomic"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// The 19.x layout. A Standard column family created through the 19.x API
// (ChangeSchema) is the table Cassandra 4.0's ALTER TABLE ... DROP COMPACT
// STORAGE leaves of a Thrift column family, so that a CQL application reads
// it as it reads an upgraded one:
//
//	key K, column1 C, value V, PRIMARY KEY (key, column1)
//
// K is the key validator's CQL type, C the comparator's and V the default
// validator's (cqlType). A CompositeType comparator is a clustering column
// per component, a ReversedType one is clustered DESC (clusteringOf), as
// DROP COMPACT STORAGE leaves them. Where the CQL type of the comparator (or
// of a component) does not order names as Cassandra 1.2 did, or does not
// accept every name 1.2 accepts (nameTypes, measured by
// TestComparatorOrderOnTheCluster), column1 is a blob holding the
// comparator's order-preserving encoding instead, as in the 0.6 layout. Beside the upgraded columns the table has a static
// range ghost marker and the written TTL of each expiring column
// (typedTable); tables created before those were added are served
// without them (familyOf).
//
// A Super column family keeps the 0.6 layout: the upgraded one has a
// column named "" (a map of subcolumns), which Cassandra 5's CQL refuses to
// create.
//
// Every name, key and value is bound and read as the bytes the Thrift
// client sent (raw), whatever the column's CQL type: the cluster checks
// them against the type, and the handler has already checked them against
// the 19.x validator.

const marshalPackage = "org.apache.cassandra.db.marshal."

// nativeTypes maps a marshal class to the CQL type of the same name and
// the same bytes (Cassandra's own AbstractType.asCQL3Type).
var nativeTypes = map[string]string{
	"BytesType":         "blob",
	"AsciiType":         "ascii",
	"UTF8Type":          "text",
	"LongType":          "bigint",
	"IntegerType":       "varint",
	"DecimalType":       "decimal",
	"BooleanType":       "boolean",
	"DateType":          "timestamp",
	"TimestampType":     "timestamp",
	"DoubleType":        "double",
	"FloatType":         "float",
	"Int32Type":         "int",
	"InetAddressType":   "inet",
	"UUIDType":          "uuid",
	"TimeUUIDType":      "timeuuid",
	"CounterColumnType": "counter",
	// Cassandra 5 still has the class, with 1.2's order; CQL names it as
	// a custom type.
	"LexicalUUIDType": "'org.apache.cassandra.db.marshal.LexicalUUIDType'",
}

// nameTypes are the comparators whose CQL type, as a clustering column,
// orders names as Cassandra 1.2 did and accepts every name 1.2 accepts;
// TestComparatorOrderOnTheCluster measures each on a real node (the
// figures are in docs/cassandra.md). Every other comparator's names are
// stored as a blob of its order-preserving encoding: DateType (1.2 orders
// dates as unsigned bytes, CQL's timestamp as signed numbers),
// BooleanType (CQL's boolean makes every non-zero byte one name),
// DecimalType (CQL's decimal refuses names of 1 to 3 bytes that 1.2
// accepts), CounterColumnType (no clustering type), and the custom types;
// composite and reversed types are laid out by clusteringOf.
var nameTypes = map[string]bool{
	"BytesType":       true,
	"AsciiType":       true,
	"UTF8Type":        true,
	"LongType":        true,
	"Int32Type":       true,
	"IntegerType":     true,
	"TimestampType":   true,
	"DoubleType":      true,
	"FloatType":       true,
	"InetAddressType": true,
	"UUIDType":        true,
	"TimeUUIDType":    true,
	"LexicalUUIDType": true,
}

// valueRefused are the classes whose CQL type refuses values that 1.2's
// validator accepts, so that their values are stored as blobs.
var valueRefused = map[string]bool{"DecimalType": true}

// cqlType is the CQL type holding c's values: its native type, or blob.
func cqlType(c marshal.Comparator) string {
	if c == nil {
		return "blob"
	}
	class := strings.TrimPrefix(c.Name(), marshalPackage)
	if t, ok := nativeTypes[class]; ok && !valueRefused[class] {
		return t
	}
	return "blob"
}

// nameType is the CQL type of column1 for comparator c.
func nameType(c marshal.Comparator) string {
	// 0.6's TimeUUIDType breaks ties of equal timestamps by unsigned
	// bytes; 1.2's (marshal.Parse) and CQL's timeuuid by signed ones.
	if t, ok := componentType(c); ok {
		return t
	}
	return "blob"
}

// keyType is the CQL type of the key column of a 19.x table: the key
// validator's, where the stored key is the row key itself (keyBlob is the
// identity), else blob.
func (st *Store) keyType(def *schema.ColumnFamily) string {
	if st.keyIsTransformed() {
		return "blob"
	}
	t := cqlType(def.KeyValidator)
	if t == "counter" {
		return "blob"
	}
	return t
}

// keyIsTransformed reports whether keyBlob stores another form of the key
// than its bytes (Collating and OrderPreserving partitioners).
func (st *Store) keyIsTransformed() bool {
	return (st.ordered && !st.rawKeyOrder()) || st.javaOrder()
}

// typedTable is the CREATE TABLE of a 19.x Standard column family: the
// upgraded columns, then two of thriftd's own that a CQL application may
// ignore. ghost is the range ghost marker of the 0.6 layout (a static
// column: a row whose columns were all deleted or expired still lists in
// range reads until gc_grace_seconds have passed, as in 1.2), and
// written_ttl is the TTL an expiring column was written with, which 1.2
// answers and CQL does not keep (ttl(value) is the seconds left).
//
// A counter table (value counter) cannot hold other columns than
// counters, so it has neither.
func (st *Store) typedTable(cqlKS string, def *schema.ColumnFamily) string {
	value := valueType(def)
	extra := `, ghost blob static, written_ttl int`
	if value == "counter" {
		extra = ""
	}
	clustering := clusteringOf(def)
	if len(clustering) > 1 {
		extra += `, ` + nameComponentsColumn + ` int`
	}
	var cols, keys, orders []string
	desc := false
	for i, c := range clustering {
		name := "column" + itoa(i+1)
		cols = append(cols, name+" "+c.typ)
		keys = append(keys, name)
		dir := " ASC"
		if c.desc {
			dir, desc = " DESC", true
		}
		orders = append(orders, name+dir)
	}
	with := ` WITH `
	if desc {
		with += `CLUSTERING ORDER BY (` + strings.Join(orders, ", ") + `) AND `
	}
	return `CREATE TABLE IF NOT EXISTS ` + quote(cqlKS) + `.` + quote(def.Name) +
		` (key ` + st.keyType(def) + `, ` + strings.Join(cols, ", ") + `, value ` + value +
		extra + `, PRIMARY KEY (key, ` + strings.Join(keys, ", ") + `))` + with + `gc_grace_seconds = ` + itoa(st.gcGrace(def)) +
		` AND comment = ` + quoteString("thriftd: 19.x "+def.Type()+" column family "+def.Keyspace+"."+def.Name)
}

// typedColumns are the columns typedTable creates for def, as columnsOf
// reads them back.
func (st *Store) typedColumns(def *schema.ColumnFamily) tableColumns {
	c := tableColumns{types: map[string]string{"key": st.keyType(def)}}
	for i, cc := range clusteringOf(def) {
		name := "column" + itoa(i+1)
		c.types[name] = cc.typ
		c.clustering = append(c.clustering, name)
		c.desc = append(c.desc, cc.desc)
	}
	if valueType(def) != "counter" {
		c.types["ghost"], c.types["written_ttl"] = "blob", "int"
	}
	if len(c.clustering) > 1 {
		c.types[nameComponentsColumn] = "int"
	}
	return c
}

// clusterColumn is one clustering column of a 19.x table.
type clusterColumn struct {
	typ  string // its CQL type
	desc bool   // clustered in descending order
}

// clusteringOf is the clustering of def's table, as DROP COMPACT STORAGE
// leaves it of a Thrift column family: for a ReversedType(T) comparator,
// column1 of T's type clustered DESC; for CompositeType(A, B, ...) of two
// components or more, a column per component (A's type, B's, ...), those of
// ReversedType components DESC; for any other comparator one column1 of
// nameType. Where a component's (or T's) CQL type is not one of nameTypes,
// the names are kept as one blob column1 of their encoding, as for every
// comparator not in nameTypes: a component a CQL application would see
// encoded anyway gains nothing from a column of its own, and one
// clustering column in another order than 1.2's would misplace every
// name. A counter family keeps one column1 too (counter.go reads and
// writes it alone), and so does a CompositeType of one component, whose
// table would look like the earlier layout's blob column1 of a BytesType
// component.
func clusteringOf(def *schema.ColumnFamily) []clusterColumn {
	plain := []clusterColumn{{typ: nameType(def.Comparator)}}
	if valueType(def) == "counter" {
		return plain
	}
	if base, rev := marshal.Unreversed(def.Comparator); rev {
		if t, ok := componentType(base); ok {
			return []clusterColumn{{typ: t, desc: true}}
		}
		return plain
	}
	comps := marshal.Components(def.Comparator)
	if len(comps) < 2 {
		return plain
	}
	out := make([]clusterColumn, len(comps))
	for i, c := range comps {
		base, rev := marshal.Unreversed(c)
		t, ok := componentType(base)
		if !ok {
			return plain
		}
		out[i] = clusterColumn{typ: t, desc: rev}
	}
	return out
}

// componentType is the CQL type of a clustering column holding names of t
// as they are, when t's CQL type orders and accepts them as 1.2 does.
func componentType(t marshal.Comparator) (string, bool) {
	if _, old := t.(marshal.TimeUUIDType); old {
		return "", false
	}
	if !nameTypes[strings.TrimPrefix(t.Name(), marshalPackage)] {
		return "", false
	}
	return cqlType(t), true
}

// valueType is the CQL type of the value column: the default validator's,
// when every declared column's validator (column_metadata) has the same
// CQL type; else blob, so that each value its own validator accepts is
// stored (one CQL column holds the values of every name). Validators a
// later schema change gives the family are served by blob_value
// (needsBlobValue), the table's value keeping its type.
func valueType(def *schema.ColumnFamily) string {
	t := cqlType(def.DefaultValidator)
	if t == "counter" {
		return t
	}
	for _, c := range def.Columns {
		if cqlType(c.Validator) != t {
			return "blob"
		}
	}
	return t
}

// blobValueColumn is the column a table of the 19.x layout is given when a
// schema change (system_update_column_family) declares a column, or sets
// a default validator, whose CQL type differs from the type its value
// column was created with: Cassandra 5 cannot change a column's type, so
// the values that type would refuse are stored beside it, as a blob, and
// every read takes the later of the two cells (valueCells). A table
// created with a blob value, or without such a change, has none.
const blobValueColumn = "blob_value"

// needsBlobValue reports whether def's validators hold values a value
// column of CQL type typ refuses: a validator of another CQL type than
// typ, where typ is not blob (which holds everything).
func needsBlobValue(def *schema.ColumnFamily, typ string) bool {
	if def.Super || typ == "" || typ == "blob" || typ == "counter" || counterFamily(def) {
		return false
	}
	if cqlType(def.DefaultValidator) != typ {
		return true
	}
	for _, c := range def.Columns {
		if cqlType(c.Validator) != typ {
			return true
		}
	}
	return false
}

// valueColumn is the column the value of the column name is written to:
// value, unless the table has blob_value and name's validator is of
// another CQL type than value's.
func (f *family) valueColumn(name []byte) (col, other string) {
	if f.valueType == "" {
		return f.col.value, ""
	}
	v := f.def.DefaultValidator
	if c := f.def.Column(name); c != nil {
		v = c.Validator
	}
	if cqlType(v) == f.valueType {
		return f.col.value, blobValueColumn
	}
	return blobValueColumn, f.col.value
}

// valueInsert is the INSERT of m, a write of the column name in a table
// with blob_value: its value goes to valueColumn, and an expiring one
// also deletes the other column's cell at its timestamp, so that an older
// value there does not come back when it expires (a cell of one CQL column
// does not shadow the other's). vals are the values of the clustering
// columns: the composite shape's (composite) or column1.
func (f *family) valueInsert(key raw, composite bool, vals []any, m engine.Mutation) statement {
	col, _ := f.valueColumn(m.Name)
	var shape valueInsertShape
	if composite {
		shape |= valueInsertComposite
	}
	if col != f.col.value {
		shape |= valueInsertBlob
	}
	args := append(append([]any{key}, vals...), raw(nonNil(m.Value)))
	if m.TTL > 0 {
		shape |= valueInsertTTL
		args = append(args, raw(nil))
		if f.writtenTTL {
			args = append(args, m.TTL)
		}
	}
	if n, ok := f.writtenComponents(m); ok {
		shape |= valueInsertComponents
		args = append(args, n)
	}
	args = append(args, m.Timestamp)
	if m.TTL > 0 {
		args = append(args, capTTL(int(m.TTL)))
	}
	return statement{f.texts.valueInserts.text(f, shape), args}
}

// valueInsertShape tells apart the texts of valueInsert: the composite
// shape's clustering columns or column1, the value in blob_value or in
// value, with a TTL or not, with name_components or not.
type valueInsertShape uint8

const (
	valueInsertComposite valueInsertShape = 1 << iota
	valueInsertBlob
	valueInsertTTL
	valueInsertComponents
	valueInsertShapes
)

// valueInsertTexts are a family's valueInsert texts, built on first use
// and kept, as selectTexts are.
type valueInsertTexts [valueInsertShapes]atomic.Pointer[string]

func (t *valueInsertTexts) text(f *family, shape valueInsertShape) string {
	if p := t[shape].Load(); p != nil {
		return *p
	}
	clustering := []string{f.col.column1}
	if shape&valueInsertComposite != 0 {
		clustering = f.adopt.clustering
	}
	col, other := f.col.value, blobValueColumn
	if shape&valueInsertBlob != 0 {
		col, other = other, col
	}
	names := f.col.key + ", " + strings.Join(clustering, ", ") + ", " + col
	n := 2 + len(clustering)
	if shape&valueInsertTTL != 0 {
		names += ", " + other
		n++
		if f.writtenTTL {
			names += ", written_ttl"
			n++
		}
	}
	if shape&valueInsertComponents != 0 {
		names += ", " + nameComponentsColumn
		n++
	}
	s := `INSERT INTO ` + f.table + ` (` + names + `) VALUES (?` + strings.Repeat(", ?", n-1) + `) USING TIMESTAMP ?`
	if shape&valueInsertTTL != 0 {
		s += ` AND TTL ?`
	}
	t[shape].Store(&s)
	return s
}

// valueCells reads blob_value beside value, where the table has it.
type valueCells struct {
	on    bool
	value raw
	ts    *int64
	ttl   *int32
}

// selects is what a SELECT of value, writetime(value) and ttl(value)
// adds for blob_value.
func (v *valueCells) selects() string {
	if !v.on {
		return ""
	}
	return `, ` + blobValueColumn + `, writetime(` + blobValueColumn + `), ttl(` + blobValueColumn + `)`
}

// dest adds the destinations of selects to dest.
func (v *valueCells) dest(dest []any) []any {
	if !v.on {
		return dest
	}
	return append(dest, &v.value, &v.ts, &v.ttl)
}

// merge is the cell a row holds, of value (read as value, ts, ttl) and
// blob_value: the live one, or the later of the two (the greater value
// on a tie, as 1.2 reconciled two columns); ok is false when the row
// holds neither. It clears what it read for the next row.
func (v *valueCells) merge(value raw, ts int64, ttl *int32) (raw, int64, *int32, bool) {
	if !v.on {
		return value, ts, ttl, true
	}
	b, bts, bttl := v.value, v.ts, v.ttl
	v.value, v.ts, v.ttl = nil, nil, nil
	if b == nil || bts == nil {
		return value, ts, ttl, value != nil
	}
	if value == nil || *bts > ts || (*bts == ts && bytes.Compare(b, value) > 0) {
		return b, *bts, bttl, true
	}
	return value, ts, ttl, true
}

// gcGrace is a family's gc_grace_seconds: its own, else the store's.
func (st *Store) gcGrace(def *schema.ColumnFamily) int {
	if def.GCGraceSeconds > 0 {
		return int(def.GCGraceSeconds)
	}
	return st.opts.GCGraceSeconds
}

// raw is a name, key or value bound and read as its bytes, whatever the
// column's CQL type. nil is CQL null; an empty non-nil raw is the empty
// value.
type raw []byte

// MarshalCQL implements gocql.Marshaler.
func (r raw) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return []byte(r), nil }

// UnmarshalCQL implements gocql.Unmarshaler with a copy of data.
func (r *raw) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	if data == nil {
		*r = nil
		return nil
	}
	*r = append(make(raw, 0, len(data)), data...)
	return nil
}

func itoa(n int) string { return strconv.Itoa(n) }
