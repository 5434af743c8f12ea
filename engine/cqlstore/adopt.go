package cqlstore

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// Adoption: serving CQL keyspaces thriftd did not create, in place.
//
// A Cassandra 1.2-3.11 cluster upgraded to 4.0 or later has had every
// Thrift column family through ALTER TABLE ... DROP COMPACT STORAGE
// (cassandra-19x-thrift.md, section 5), which leaves one of these shapes:
//
//	dynamic:   key K, column1 C, value V, PRIMARY KEY (key, column1)
//	composite: key K, column1 C1, column2 C2, ..., value V,
//	           PRIMARY KEY (key, column1, column2, ...)
//	static:    key K, column1 C, value V, and the declared columns as
//	           static columns, PRIMARY KEY (key, column1)
//	counter:   the dynamic shape with value counter
//	super:     key K, column1 C, "" map<S, V>, PRIMARY KEY (key, column1)
//
// Inspect reads a keyspace's tables from system_schema and derives, for
// each table of one of these shapes, the column family a 1.2 client sees
// (comparator from the clustering types, ReversedType for DESC,
// CompositeType for several; key validator from the partition key;
// default validator from value; column_metadata from the static
// columns), and for every other table the reason it cannot be served.
// Nothing is changed in the keyspace.

// The shapes of an adopted table.
const (
	ShapeDynamic   = "dynamic"
	ShapeComposite = "composite"
	ShapeStatic    = "static"
	ShapeCounter   = "counter"
	ShapeSuper     = "super"
)

// AdoptedTable is one table of an adopted keyspace.
type AdoptedTable struct {
	Keyspace, Name string
	// Shape is one of the Shape constants when the table can be served.
	Shape string
	// Family is the column family a 19.x client would see; nil when the
	// table has no Thrift shape. It is set, with a Reason, for a shape
	// thriftd describes but does not serve yet.
	Family *schema.ColumnFamily
	// Reason says why the table cannot be served; empty when it can.
	Reason string
	// Columns name the table's key, clustering and value columns as they
	// are (DROP COMPACT STORAGE keeps key, column1 and value unless they
	// were renamed).
	Key        string
	Clustering []string
	// ClusteringDesc tells, for each clustering column, whether it is
	// clustered in descending order.
	ClusteringDesc []bool
	Value          string
	Statics        []string
}

// Servable reports whether thriftd serves the table.
func (t AdoptedTable) Servable() bool { return t.Family != nil && t.Reason == "" }

// cqlColumn is one row of system_schema.columns.
type cqlColumn struct {
	name     string
	kind     string // partition_key, clustering, regular, static
	position int
	order    string // asc, desc, none
	typ      string // the CQL type as system_schema writes it
}

// tableFlags are system_schema.tables' flags and the properties the
// column family carries.
type tableInfo struct {
	flags []string
	// flagsRead: flags are system_schema's (an empty set is then a
	// static compact table's).
	flagsRead  bool
	comment    string
	gcGrace    int
	defaultTTL int
}

// cqlClasses maps CQL type names to the marshal classes 1.2 and 2.1 knew
// them by: the inverse of nativeTypes (typed.go), with timestamp read as
// TimestampType (what Cassandra 2.0 and later describe a CQL timestamp
// as) and varchar as text.
var cqlClasses = func() map[string]string {
	m := map[string]string{}
	for class, t := range nativeTypes {
		if strings.HasPrefix(t, "'") {
			continue
		}
		m[t] = class
	}
	m["timestamp"] = "TimestampType"
	m["varchar"] = "UTF8Type"
	return m
}()

// classOf is the marshal class (as marshal.Parse reads it) of a CQL
// type, or why the 19.x API has none.
func classOf(cqlType string) (string, error) {
	t := strings.TrimSpace(cqlType)
	if c, ok := cqlClasses[t]; ok {
		return c, nil
	}
	if strings.HasPrefix(t, "'") && strings.HasSuffix(t, "'") && len(t) > 1 {
		class := strings.ReplaceAll(t[1:len(t)-1], "''", "'")
		if _, err := marshal.Parse(class); err != nil {
			return "", fmt.Errorf("custom type %s: %v", class, err)
		}
		return strings.TrimPrefix(class, marshalPackage), nil
	}
	base := t
	if i := strings.IndexByte(base, '<'); i >= 0 {
		base = base[:i]
	}
	switch base {
	case "list", "set", "map", "frozen", "tuple", "vector":
		return "", fmt.Errorf("type %s is a CQL collection, tuple or frozen type, which a Thrift column cannot hold", t)
	case "date", "time", "smallint", "tinyint", "duration":
		return "", fmt.Errorf("type %s came after Cassandra 2.1 and has no 19.x Thrift type", t)
	}
	return "", fmt.Errorf("type %s is a user-defined or unknown type, which a Thrift column cannot hold", t)
}

// parseClass is marshal.Parse of a class name built here.
func parseClass(class string) (marshal.Comparator, error) { return marshal.Parse(class) }

// classifyTable derives the column family of table ks.name from its
// columns, or why it cannot be served.
func classifyTable(ks, name string, info tableInfo, cols []cqlColumn) AdoptedTable {
	t := AdoptedTable{Keyspace: ks, Name: name}
	refuse := func(format string, args ...any) AdoptedTable {
		t.Family, t.Shape = nil, ""
		t.Reason = fmt.Sprintf(format, args...)
		return t
	}
	if slices.Contains(info.flags, "super") && slices.Contains(info.flags, "counter") {
		// Measured on 3.11.19: its DROP COMPACT STORAGE fails with
		// "Cannot add a non counter column () in a counter column
		// family", and 5.0.9, which starts with the table still compact,
		// fails every read of it.
		return refuse("it is a super column family of counters, which keeps COMPACT STORAGE: Cassandra 3.11 refuses to drop it (a map of counters cannot hold its subcolumns) and Cassandra 4 and 5 cannot read it; copy it into a column family thriftd creates (thriftd-tool copy) before the upgrade")
	}
	for _, f := range info.flags {
		switch f {
		case "dense", "super":
			return refuse("it is still a COMPACT STORAGE table (flag %s): run ALTER TABLE %s.%s DROP COMPACT STORAGE first", f, quote(ks), quote(name))
		}
	}
	// A static compact table (a Thrift column family of a non-composite
	// comparator, with or without column_metadata, on 3.x) is neither
	// dense nor compound; every CQL table and every table DROP COMPACT
	// STORAGE left is compound.
	if info.flagsRead && !slices.Contains(info.flags, "compound") {
		return refuse("it is still a COMPACT STORAGE table (a static one: flags without compound): run ALTER TABLE %s.%s DROP COMPACT STORAGE first", quote(ks), quote(name))
	}
	if strings.EqualFold(name, schemaTable) {
		return refuse("it is thriftd's own table")
	}
	var pk, ck, regular, static []cqlColumn
	for _, c := range cols {
		switch c.kind {
		case "partition_key":
			pk = append(pk, c)
		case "clustering":
			ck = append(ck, c)
		case "regular":
			regular = append(regular, c)
		case "static":
			static = append(static, c)
		default:
			return refuse("column %s is of kind %s", c.name, c.kind)
		}
	}
	byPos := func(s []cqlColumn) {
		sort.Slice(s, func(i, j int) bool { return s[i].position < s[j].position })
	}
	byPos(pk)
	byPos(ck)
	sort.Slice(static, func(i, j int) bool { return static[i].name < static[j].name })
	if len(pk) != 1 {
		return refuse("its partition key has %d columns; a Thrift row key is one", len(pk))
	}
	if len(ck) == 0 {
		return refuse("it has no clustering column: a CQL table with one row per key, not a shape DROP COMPACT STORAGE leaves")
	}
	if len(regular) != 1 {
		return refuse("it has %d regular columns; DROP COMPACT STORAGE leaves exactly one (value, or \"\" for a super column family), so its rows are not Thrift columns", len(regular))
	}
	t.Key = pk[0].name
	keyClass, err := classOf(pk[0].typ)
	if err != nil {
		return refuse("key column %s: %v", pk[0].name, err)
	}
	if keyClass == "CounterColumnType" {
		return refuse("key column %s is a counter", pk[0].name)
	}
	var names []string
	for _, c := range ck {
		class, err := classOf(c.typ)
		if err != nil {
			return refuse("clustering column %s: %v", c.name, err)
		}
		if c.order == "desc" {
			class = "ReversedType(" + class + ")"
		}
		names = append(names, class)
		t.Clustering = append(t.Clustering, c.name)
		t.ClusteringDesc = append(t.ClusteringDesc, c.order == "desc")
	}
	compare := names[0]
	if len(names) > 1 {
		compare = "CompositeType(" + strings.Join(names, ",") + ")"
	}
	cmp, err := parseClass(compare)
	if err != nil {
		return refuse("comparator %s: %v", compare, err)
	}
	def := &schema.ColumnFamily{
		Keyspace: ks, Name: name, Comparator: cmp,
		Comment: info.comment, HasComment: info.comment != "",
		GCGraceSeconds: int32(info.gcGrace), DefaultTTL: int32(info.defaultTTL),
	}
	if def.KeyValidator, err = parseClass(keyClass); err != nil {
		return refuse("key validator %s: %v", keyClass, err)
	}
	v := regular[0]
	t.Value = v.name
	if v.name == "" {
		// The super column family's shape: a map of subcolumns.
		if len(ck) != 1 {
			return refuse("its map column \"\" (a super column family's subcolumns) follows %d clustering columns, not one", len(ck))
		}
		kv, ok := mapTypes(v.typ)
		if !ok {
			return refuse("its column \"\" is %s, not the map of subcolumns a super column family leaves", v.typ)
		}
		sub, err := classOf(kv[0])
		if err != nil {
			return refuse("subcolumn names: %v", err)
		}
		val, err := classOf(kv[1])
		if err != nil {
			return refuse("subcolumn values: %v", err)
		}
		if val == "CounterColumnType" {
			return refuse("its map column \"\" holds counters, which no super column family DROP COMPACT STORAGE converts leaves")
		}
		def.Super = true
		if def.SubComparator, err = parseClass(sub); err != nil {
			return refuse("subcomparator %s: %v", sub, err)
		}
		if def.DefaultValidator, err = parseClass(val); err != nil {
			return refuse("validator %s: %v", val, err)
		}
		def.Columns = superLayoutColumns(def.SubComparator, def.DefaultValidator)
		t.Shape = ShapeSuper
	} else {
		class, err := classOf(v.typ)
		if isEmptyType(v.typ) {
			// A compact table created with CQL with clustering columns
			// but no regular column: DROP COMPACT STORAGE adds a value of
			// EmptyType, which holds only empty values. 2.1 described
			// such a table's values as BytesType.
			class, err = "BytesType", nil
		}
		if err != nil {
			return refuse("value column %s: %v", v.name, err)
		}
		if def.DefaultValidator, err = parseClass(class); err != nil {
			return refuse("validator %s: %v", class, err)
		}
		switch {
		case class == "CounterColumnType":
			t.Shape = ShapeCounter
		case len(static) > 0:
			t.Shape = ShapeStatic
		case len(ck) > 1:
			t.Shape = ShapeComposite
		default:
			t.Shape = ShapeDynamic
		}
	}
	for _, s := range static {
		if def.Super || len(ck) > 1 {
			return refuse("static column %s beside %s clustering: DROP COMPACT STORAGE leaves static columns only beside column1", s.name, t.Shape)
		}
		class, err := classOf(s.typ)
		if err != nil {
			return refuse("static column %s: %v", s.name, err)
		}
		if class == "CounterColumnType" {
			return refuse("static column %s is a counter", s.name)
		}
		if err := cmp.Validate([]byte(s.name)); err != nil {
			return refuse("static column %s: its name is not a name of the comparator %s: %v", s.name, cmp.Name(), err)
		}
		val, err := parseClass(class)
		if err != nil {
			return refuse("static column %s: %v", s.name, err)
		}
		def.Columns = append(def.Columns, schema.ColumnDef{Name: []byte(s.name), Validator: val})
		t.Statics = append(t.Statics, s.name)
	}
	t.Family = def
	t.Reason = notServedYet(t)
	return t
}

// notServedYet is why the store does not serve a table of a Thrift
// shape, or "" when it does: the dynamic, static, composite, counter and
// super shapes (adoptstatic.go, adoptcomposite.go, counter.go,
// adoptsuper.go), whatever their columns are named (columnNames).
func notServedYet(t AdoptedTable) string {
	switch t.Shape {
	case ShapeDynamic, ShapeStatic, ShapeComposite, ShapeCounter, ShapeSuper:
		return ""
	}
	return "the " + t.Shape + " shape is described but not served yet"
}

// isEmptyType reports whether a CQL type is Cassandra's EmptyType, which
// system_schema writes as a custom class ('...EmptyType') or, from 4.0 on
// some paths, as empty.
func isEmptyType(t string) bool {
	t = strings.Trim(strings.TrimSpace(t), "'")
	return t == "empty" || t == marshalPackage+"EmptyType" || t == "EmptyType"
}

// mapTypes splits "map<K, V>" (frozen or not) into K and V.
func mapTypes(t string) ([2]string, bool) {
	t = strings.TrimSpace(t)
	if strings.HasPrefix(t, "frozen<") && strings.HasSuffix(t, ">") {
		t = strings.TrimSpace(t[len("frozen<") : len(t)-1])
	}
	if !strings.HasPrefix(t, "map<") || !strings.HasSuffix(t, ">") {
		return [2]string{}, false
	}
	inner := t[len("map<") : len(t)-1]
	depth := 0
	for i, r := range inner {
		switch r {
		case '<':
			depth++
		case '>':
			depth--
		case ',':
			if depth == 0 {
				return [2]string{strings.TrimSpace(inner[:i]), strings.TrimSpace(inner[i+1:])}, true
			}
		}
	}
	return [2]string{}, false
}

// InspectKeyspace reads keyspace ks's tables from system_schema and
// classifies each (sorted by name). It fails when the keyspace does not
// exist. It changes nothing.
func InspectKeyspace(ctx context.Context, s *gocql.Session, ks string) ([]AdoptedTable, error) {
	var found string
	if err := s.Query(`SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?`, ks).
		WithContext(ctx).Scan(&found); err != nil {
		if err == gocql.ErrNotFound {
			return nil, fmt.Errorf("keyspace %s does not exist on the cluster", ks)
		}
		return nil, fmt.Errorf("read system_schema.keyspaces: %w", err)
	}
	infos := map[string]tableInfo{}
	iter := s.Query(`SELECT table_name, flags, comment, gc_grace_seconds, default_time_to_live FROM system_schema.tables WHERE keyspace_name = ?`, ks).
		WithContext(ctx).Iter()
	var name, comment string
	var flags []string
	var gc, ttl int
	for iter.Scan(&name, &flags, &comment, &gc, &ttl) {
		infos[name] = tableInfo{flags: flags, flagsRead: true, comment: comment, gcGrace: gc, defaultTTL: ttl}
		flags = nil
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read system_schema.tables: %w", err)
	}
	cols := map[string][]cqlColumn{}
	iter = s.Query(`SELECT table_name, column_name, kind, position, clustering_order, type FROM system_schema.columns WHERE keyspace_name = ?`, ks).
		WithContext(ctx).Iter()
	var c cqlColumn
	for iter.Scan(&name, &c.name, &c.kind, &c.position, &c.order, &c.typ) {
		cols[name] = append(cols[name], c)
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read system_schema.columns: %w", err)
	}
	names := make([]string, 0, len(infos))
	for n := range infos {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]AdoptedTable, 0, len(names))
	for _, n := range names {
		out = append(out, classifyTable(ks, n, infos[n], cols[n]))
	}
	return out, nil
}

// Inspect connects to the cluster and classifies keyspace ks's tables
// (InspectKeyspace).
func Inspect(ctx context.Context, c Cluster, ks string) ([]AdoptedTable, error) {
	s, err := c.Connect()
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return InspectKeyspace(ctx, s, ks)
}
