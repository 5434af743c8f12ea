package handler19

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"sort"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/schema"
)

// The system schema tables of Cassandra 1.2.19 (CFMetaData's
// SchemaKeyspacesCf, SchemaColumnFamiliesCf and SchemaColumnsCf), filled
// from thriftd's schema as KSMetaData.toSchema, CFMetaData.toSchema and
// ColumnDefinition.toSchema filled them.

// CQL 3 column types, as 1.2 names them in CqlMetadata.value_types.
const (
	cqlText    = "org.apache.cassandra.db.marshal.UTF8Type"
	cqlInt     = "org.apache.cassandra.db.marshal.Int32Type"
	cqlDouble  = "org.apache.cassandra.db.marshal.DoubleType"
	cqlBoolean = "org.apache.cassandra.db.marshal.BooleanType"
)

type sysColumn struct{ name, typ string }

// sysTable is one system schema table: its columns in the order SELECT *
// answers them (the primary key's, then the others by name), and how
// many of them make the primary key.
type sysTable struct {
	columns []sysColumn
	keys    int
}

var sysTables = map[string]*sysTable{
	"schema_keyspaces": {keys: 1, columns: []sysColumn{
		{"keyspace_name", cqlText},
		{"durable_writes", cqlBoolean},
		{"strategy_class", cqlText},
		{"strategy_options", cqlText},
	}},
	"schema_columnfamilies": {keys: 2, columns: []sysColumn{
		{"keyspace_name", cqlText},
		{"columnfamily_name", cqlText},
		{"bloom_filter_fp_chance", cqlDouble},
		{"caching", cqlText},
		{"column_aliases", cqlText},
		{"comment", cqlText},
		{"compaction_strategy_class", cqlText},
		{"compaction_strategy_options", cqlText},
		{"comparator", cqlText},
		{"compression_parameters", cqlText},
		{"default_validator", cqlText},
		{"gc_grace_seconds", cqlInt},
		{"id", cqlInt},
		{"key_alias", cqlText},
		{"key_aliases", cqlText},
		{"key_validator", cqlText},
		{"local_read_repair_chance", cqlDouble},
		{"max_compaction_threshold", cqlInt},
		{"min_compaction_threshold", cqlInt},
		{"populate_io_cache_on_flush", cqlBoolean},
		{"read_repair_chance", cqlDouble},
		{"replicate_on_write", cqlBoolean},
		{"subcomparator", cqlText},
		{"type", cqlText},
		{"value_alias", cqlText},
	}},
	"schema_columns": {keys: 3, columns: []sysColumn{
		{"keyspace_name", cqlText},
		{"columnfamily_name", cqlText},
		{"column_name", cqlText},
		{"component_index", cqlInt},
		{"index_name", cqlText},
		{"index_options", cqlText},
		{"index_type", cqlText},
		{"validator", cqlText},
	}},
}

// sysRow is one row of a system table: each column's serialized value,
// nil for null.
type sysRow map[string][]byte

// executeSchemaSelect answers a parsed SELECT as 1.2.19's
// ResultSet.toThriftResult: rows of columns without timestamps, an empty
// CqlRow key, and UTF8Type names.
func (c *conn) executeSchemaSelect(sel schemaSelect) (*cassandra19.CqlResult_, error) {
	t := sysTables[sel.table]
	if t == nil {
		return nil, c.s.errCQL
	}
	if sel.limit < 0 {
		return nil, invalid("LIMIT must be strictly positive")
	}
	cols := t.columns
	if sel.columns != nil {
		cols = make([]sysColumn, 0, len(sel.columns))
		for _, name := range sel.columns {
			col, ok := t.column(name)
			if !ok {
				return nil, invalid("Undefined name %s in selection clause", name)
			}
			cols = append(cols, col)
		}
	}
	// Only an equality on a prefix of the primary key is served: the
	// keyspace, then the family, then the column.
	for name := range sel.where {
		k := -1
		for i, col := range t.columns[:t.keys] {
			if col.name == name {
				k = i
			}
		}
		if k < 0 {
			return nil, c.s.errCQL
		}
		for _, prev := range t.columns[:k] {
			if _, ok := sel.where[prev.name]; !ok {
				return nil, c.s.errCQL
			}
		}
	}
	meta := &cassandra19.CqlMetadata{
		NameTypes: map[string]string{}, ValueTypes: map[string]string{},
		DefaultNameType: "UTF8Type", DefaultValueType: "UTF8Type",
	}
	for _, col := range cols {
		meta.NameTypes[col.name] = "UTF8Type"
		meta.ValueTypes[col.name] = col.typ
	}
	rows := []*cassandra19.CqlRow{}
	for _, r := range c.s.systemRows(sel.table) {
		match := true
		for k, v := range sel.where {
			if string(r[k]) != v {
				match = false
			}
		}
		if !match {
			continue
		}
		if sel.limit > 0 && len(rows) == sel.limit {
			break
		}
		row := &cassandra19.CqlRow{Key: []byte{}, Columns: make([]*cassandra19.Column, len(cols))}
		for i, col := range cols {
			row.Columns[i] = &cassandra19.Column{Name: []byte(col.name), Value: r[col.name]}
		}
		rows = append(rows, row)
	}
	return &cassandra19.CqlResult_{Type: cassandra19.CqlResultType_ROWS, Rows: rows, Schema: meta}, nil
}

func (t *sysTable) column(name string) (sysColumn, bool) {
	for _, c := range t.columns {
		if c.name == name {
			return c, true
		}
	}
	return sysColumn{}, false
}

// systemRows is a system table's rows in 1.2's order: keyspaces by the
// token of their name (the partition key), then by family and column name.
func (s *Service) systemRows(table string) []sysRow {
	sch := s.schema()
	p := sch.Partitioner
	names := sch.KeyspaceNames()
	sort.SliceStable(names, func(i, j int) bool {
		return bytes.Compare(p.Token(names[i]), p.Token(names[j])) < 0
	})
	var out []sysRow
	for _, name := range names {
		def := ksDef(sch.Keyspaces[name])
		switch table {
		case "schema_keyspaces":
			out = append(out, keyspaceRow(def))
		case "schema_columnfamilies":
			for _, cf := range def.CfDefs {
				out = append(out, columnFamilyRow(cf))
			}
		case "schema_columns":
			for _, cfName := range sortedFamilies(sch.Keyspaces[name]) {
				out = append(out, s.columnRows(sch.Keyspaces[name].ColumnFamilies[cfName])...)
			}
		}
	}
	return out
}

func sortedFamilies(ks *schema.Keyspace) []string {
	names := make([]string, 0, len(ks.ColumnFamilies))
	for n := range ks.ColumnFamilies {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// keyspaceRow is KSMetaData.toSchema.
func keyspaceRow(d *cassandra19.KsDef) sysRow {
	return sysRow{
		"keyspace_name":    []byte(d.Name),
		"durable_writes":   cqlBool(d.DurableWrites),
		"strategy_class":   []byte(d.StrategyClass),
		"strategy_options": cqlJSON(d.StrategyOptions),
	}
}

// columnFamilyRow is CFMetaData.toSchemaNoColumns. A family created in 1.2
// has no id of 1.1 (the id column is null), and key_alias and
// value_alias are written by CQL 3 tables only.
func columnFamilyRow(d *cassandra19.CfDef) sysRow {
	replicate := true
	if d.ReplicateOnWrite != nil {
		replicate = *d.ReplicateOnWrite
	}
	keyAliases := []string{}
	if d.KeyAlias != nil {
		keyAliases = append(keyAliases, string(d.KeyAlias))
	}
	r := sysRow{
		"keyspace_name":               []byte(d.Keyspace),
		"columnfamily_name":           []byte(d.Name),
		"type":                        []byte(d.ColumnType),
		"comparator":                  []byte(d.ComparatorType),
		"comment":                     []byte(d.GetComment()),
		"read_repair_chance":          cqlDoubleOf(d.GetReadRepairChance()),
		"local_read_repair_chance":    cqlDoubleOf(d.DclocalReadRepairChance),
		"replicate_on_write":          cqlBool(replicate),
		"populate_io_cache_on_flush":  cqlBool(d.GetPopulateIoCacheOnFlush()),
		"gc_grace_seconds":            cqlInt32(d.GetGcGraceSeconds()),
		"default_validator":           []byte(d.GetDefaultValidationClass()),
		"key_validator":               []byte(d.GetKeyValidationClass()),
		"min_compaction_threshold":    cqlInt32(d.GetMinCompactionThreshold()),
		"max_compaction_threshold":    cqlInt32(d.GetMaxCompactionThreshold()),
		"key_aliases":                 cqlJSON(keyAliases),
		"caching":                     []byte(d.Caching),
		"compaction_strategy_class":   []byte(d.GetCompactionStrategy()),
		"compression_parameters":      cqlJSON(nonNil(d.CompressionOptions)),
		"column_aliases":              []byte("[]"),
		"compaction_strategy_options": cqlJSON(nonNil(d.CompactionStrategyOptions)),
	}
	if d.SubcomparatorType != nil {
		r["subcomparator"] = []byte(*d.SubcomparatorType)
	}
	if d.BloomFilterFpChance != nil {
		r["bloom_filter_fp_chance"] = cqlDoubleOf(*d.BloomFilterFpChance)
	}
	return r
}

// columnRows is ColumnDefinition.toSchema of each column definition: its
// name as the family's (sub)comparator prints it.
func (s *Service) columnRows(cf *schema.ColumnFamily) []sysRow {
	cmp := s.typ(cf.Comparator)
	if cf.Super {
		cmp = s.typ(cf.SubComparator)
	}
	d := cfDef(cf)
	out := make([]sysRow, 0, len(d.ColumnMetadata))
	for _, cd := range d.ColumnMetadata {
		r := sysRow{
			"keyspace_name":     []byte(cf.Keyspace),
			"columnfamily_name": []byte(cf.Name),
			"column_name":       []byte(typeString(cmp, cd.Name)),
			"validator":         []byte(cd.ValidationClass),
		}
		if cd.IndexType != nil {
			r["index_type"] = []byte(cd.IndexType.String())
		}
		if cd.IndexOptions != nil {
			r["index_options"] = cqlJSON(cd.IndexOptions)
		}
		if cd.IndexName != nil {
			r["index_name"] = []byte(*cd.IndexName)
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return string(out[i]["column_name"]) < string(out[j]["column_name"]) })
	return out
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// cqlJSON is FBUtilities.json: compact JSON, keys in sorted order (1.2's
// order was its HashMap's), nothing escaped that JSON does not require.
func cqlJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte("null")
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

func cqlBool(v bool) []byte {
	if v {
		return []byte{1}
	}
	return []byte{0}
}

func cqlInt32(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

func cqlDoubleOf(v float64) []byte { return binary.BigEndian.AppendUint64(nil, math.Float64bits(v)) }
