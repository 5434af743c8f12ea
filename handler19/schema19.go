package handler19

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/thriftd/thriftd/auth"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// SchemaChanger applies validated schema changes, durably, and returns the
// schema version each change produced. Its errors that are the client's
// fault are *catalog.InvalidError (or *InvalidRequest), sent as
// InvalidRequestException with their wording; the schema catalog
// (catalog) implements it.
type SchemaChanger interface {
	AddKeyspace(ctx context.Context, ks *schema.Keyspace) (string, error)
	UpdateKeyspace(ctx context.Context, ks *schema.Keyspace) (string, error)
	DropKeyspace(ctx context.Context, name string) (string, error)
	AddColumnFamily(ctx context.Context, cf *schema.ColumnFamily) (string, error)
	UpdateColumnFamily(ctx context.Context, cf *schema.ColumnFamily) (string, error)
	DropColumnFamily(ctx context.Context, keyspace, name string) (string, error)
}

// errNoSchemaChanges answers the system_* calls of a server wired without
// a SchemaChanger.
var errNoSchemaChanges = invalid("this server's schema cannot be changed at run time")

// nameRE is Schema.NAME_LENGTH and CFMetaData.isNameValid: word
// characters, at most 48 of them.
var nameRE = regexp.MustCompile(`^\w{1,48}$`)

// systemKeyspaces are the keyspaces the server maintains.
var systemKeyspaces = map[string]bool{"system": true, "system_traces": true, "system_auth": true}

func (c *conn) systemAddKeyspace(ctx context.Context, def *cassandra19.KsDef) (string, error) {
	if strings.EqualFold(def.Name, "system") {
		return "", invalid("system keyspace is not user-modifiable")
	}
	// hasAllKeyspacesAccess(CREATE).
	if err := c.permit(ctx, auth.Create, auth.Root); err != nil {
		return "", err
	}
	sch := c.s.schema()
	for _, name := range sch.KeyspaceNames() {
		if strings.EqualFold(name, def.Name) {
			return "", invalid("Keyspace names must be case-insensitively unique (\"%s\" conflicts with \"%s\")", def.Name, name)
		}
	}
	for _, cf := range def.CfDefs {
		if cf.Keyspace != def.Name {
			return "", invalid("CfDef (%s) had a keyspace definition that did not match KsDef", cf.Name)
		}
	}
	// 1.2's order: every CfDef converted, then the KsDef, then the
	// keyspace and each column family validated.
	var cfs []*schema.ColumnFamily
	for _, d := range def.CfDefs {
		cf, err := c.s.familyFromThrift(d)
		if err != nil {
			return "", err
		}
		if err := addDefaultIndexNames(sch, cf); err != nil {
			return "", err
		}
		cfs = append(cfs, cf)
	}
	ks, err := c.s.keyspaceFromThrift(def)
	if err != nil {
		return "", err
	}
	for _, cf := range cfs {
		if err := validateFamily(sch, cf); err != nil {
			return "", err
		}
		ks.ColumnFamilies[cf.Name] = cf
	}
	return c.change(func(ch SchemaChanger) (string, error) { return ch.AddKeyspace(ctx, ks) })
}

func (c *conn) systemUpdateKeyspace(ctx context.Context, def *cassandra19.KsDef) (string, error) {
	if strings.EqualFold(def.Name, "system") {
		return "", invalid("system keyspace is not user-modifiable")
	}
	if err := c.permit(ctx, auth.Alter, auth.KeyspaceResource(def.Name)); err != nil {
		return "", err
	}
	if c.s.schema().Keyspace(def.Name) == nil {
		return "", invalid("Keyspace %s does not exist", def.Name)
	}
	if len(def.CfDefs) > 0 {
		return "", invalid("Keyspace update must not contain any column family definitions.")
	}
	ks, err := c.s.keyspaceFromThrift(def)
	if err != nil {
		return "", err
	}
	return c.change(func(ch SchemaChanger) (string, error) { return ch.UpdateKeyspace(ctx, ks) })
}

func (c *conn) systemDropKeyspace(ctx context.Context, name string) (string, error) {
	if strings.EqualFold(name, "system") {
		return "", invalid("system keyspace is not user-modifiable")
	}
	if err := c.permit(ctx, auth.Drop, auth.KeyspaceResource(name)); err != nil {
		return "", err
	}
	if c.s.schema().Keyspace(name) == nil {
		return "", invalid("Cannot drop non existing keyspace '%s'.", name)
	}
	return c.change(func(ch SchemaChanger) (string, error) { return ch.DropKeyspace(ctx, name) })
}

func (c *conn) systemAddColumnFamily(ctx context.Context, def *cassandra19.CfDef) (string, error) {
	ks, err := c.keyspaceOf()
	if err != nil {
		return "", err
	}
	if err := c.schemaAccess(ctx, auth.Create, auth.KeyspaceResource(ks)); err != nil {
		return "", err
	}
	cf, err := c.s.familyFromThrift(def)
	if err != nil {
		return "", err
	}
	sch := c.s.schema()
	if err := addDefaultIndexNames(sch, cf); err != nil {
		return "", err
	}
	if err := validateFamily(sch, cf); err != nil {
		return "", err
	}
	target := sch.Keyspace(cf.Keyspace)
	if target == nil {
		return "", invalid("Cannot add column family '%s' to non existing keyspace '%s'.", cf.Name, cf.Keyspace)
	}
	if target.ColumnFamilies[cf.Name] != nil {
		return "", invalid("Cannot add already existing column family \"%s\" to keyspace \"%s\"", cf.Name, cf.Keyspace)
	}
	return c.change(func(ch SchemaChanger) (string, error) { return ch.AddColumnFamily(ctx, cf) })
}

func (c *conn) systemUpdateColumnFamily(ctx context.Context, def *cassandra19.CfDef) (string, error) {
	sch := c.s.schema()
	old := sch.ColumnFamily(def.Keyspace, def.Name)
	if old == nil {
		return "", invalid("Could not find column family definition to modify.")
	}
	if err := c.schemaAccess(ctx, auth.Alter, auth.TableResource(def.Keyspace, def.Name)); err != nil {
		return "", err
	}
	cf, err := c.s.familyFromThrift(def)
	if err != nil {
		return "", err
	}
	// CASSANDRA-6831: an update that names no key alias keeps the old one.
	if def.KeyAlias == nil {
		cf.Options.KeyAlias = old.Options.KeyAlias
	}
	if err := addDefaultIndexNames(sch, cf); err != nil {
		return "", err
	}
	if err := validateFamily(sch, cf); err != nil {
		return "", err
	}
	if cf.Super != old.Super {
		return "", invalid("types do not match.")
	}
	if cf.Comparator.Name() != old.Comparator.Name() {
		return "", invalid("comparators do not match or are not compatible.")
	}
	if cf.Super && cf.SubComparator.Name() != old.SubComparator.Name() {
		return "", invalid("subcolumncomparators do not match or are note compatible.")
	}
	cf.ID = old.ID
	return c.change(func(ch SchemaChanger) (string, error) { return ch.UpdateColumnFamily(ctx, cf) })
}

func (c *conn) systemDropColumnFamily(ctx context.Context, name string) (string, error) {
	ks, err := c.keyspaceOf()
	if err != nil {
		return "", err
	}
	if c.mustLogIn() {
		return "", invalid("You have not logged in")
	}
	if systemKeyspaces[strings.ToLower(ks)] {
		return "", invalid("%s keyspace is not user-modifiable.", ks)
	}
	if c.s.schema().ColumnFamily(ks, name) == nil {
		// ClientState.hasColumnFamilyAccess validates the family first.
		return "", invalid("unconfigured columnfamily %s", name)
	}
	if err := c.permit(ctx, auth.Drop, auth.TableResource(ks, name)); err != nil {
		return "", err
	}
	return c.change(func(ch SchemaChanger) (string, error) { return ch.DropColumnFamily(ctx, ks, name) })
}

// schemaAccess is ClientState.hasAccess for a schema change: a login
// where one is required, no change to a keyspace the server maintains
// (preventSystemKSSchemaModification), then the user's permission on r.
func (c *conn) schemaAccess(ctx context.Context, perm auth.Permission, r auth.Resource) error {
	if c.mustLogIn() {
		return invalid("You have not logged in")
	}
	if ks := r.Keyspace(); systemKeyspaces[strings.ToLower(ks)] {
		return invalid("%s keyspace is not user-modifiable.", ks)
	}
	return c.permit(ctx, perm, r)
}

// change runs one schema change through the Service's SchemaChanger.
func (c *conn) change(fn func(SchemaChanger) (string, error)) (string, error) {
	if c.s.changer == nil {
		return "", errNoSchemaChanges
	}
	return fn(c.s.changer)
}

// keyspaceFromThrift is KSMetaData.fromThrift and the keyspace half of
// KSMetaData.validate, without column families: the strategy class is
// resolved first, then the name and the strategy options are checked.
// KsDef.replication_factor is ignored, as 1.2 ignored it: the factor is a
// strategy option.
func (s *Service) keyspaceFromThrift(def *cassandra19.KsDef) (*schema.Keyspace, error) {
	class := def.StrategyClass
	if !strings.Contains(class, ".") {
		class = "org.apache.cassandra.locator." + class
	}
	if !strategies[class] {
		return nil, invalid("Unable to find replication strategy class '%s'", class)
	}
	if class == localStrategy {
		return nil, invalid("Unable to use given strategy class: LocalStrategy is reserved for internal use.")
	}
	if !nameRE.MatchString(def.Name) {
		return nil, invalid("Keyspace name must not be empty, more than 48 characters long, or contain non-alphanumeric-underscore characters (got \"%s\")", def.Name)
	}
	opts := copyMap(def.StrategyOptions)
	if err := validateStrategyOptions(class, opts); err != nil {
		return nil, err
	}
	return &schema.Keyspace{
		Name:           def.Name,
		ColumnFamilies: map[string]*schema.ColumnFamily{},
		Options:        schema.KeyspaceOptions{StrategyClass: class, StrategyOptions: opts, DurableWrites: def.DurableWrites},
	}, nil
}

// The replication strategies of Cassandra 1.2.
const (
	simpleStrategy     = "org.apache.cassandra.locator.SimpleStrategy"
	networkTopology    = "org.apache.cassandra.locator.NetworkTopologyStrategy"
	oldNetworkTopology = "org.apache.cassandra.locator.OldNetworkTopologyStrategy"
	localStrategy      = "org.apache.cassandra.locator.LocalStrategy"
)

var strategies = map[string]bool{simpleStrategy: true, networkTopology: true, oldNetworkTopology: true, localStrategy: true}

// validateStrategyOptions is the strategies' validateOptions, which the
// Thrift API runs without refusing unexpected options.
func validateStrategyOptions(class string, opts map[string]string) error {
	switch class {
	case simpleStrategy, oldNetworkTopology:
		rf, ok := opts["replication_factor"]
		if !ok {
			return invalid("SimpleStrategy requires a replication_factor strategy option.")
		}
		return validateReplicationFactor(rf)
	case networkTopology:
		keys := make([]string, 0, len(opts))
		for k := range opts {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if strings.EqualFold(k, "replication_factor") {
				return invalid("replication_factor is an option for SimpleStrategy, not NetworkTopologyStrategy")
			}
			if err := validateReplicationFactor(opts[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// validateReplicationFactor is AbstractReplicationStrategy's: a Java int,
// not negative.
func validateReplicationFactor(rf string) error {
	n, err := strconv.ParseInt(rf, 10, 32)
	if err != nil {
		return invalid("Replication factor must be numeric; found %s", rf)
	}
	if n < 0 {
		return invalid("Replication factor must be non-negative; found %s", rf)
	}
	return nil
}

// familyFromThrift is CFMetaData.fromThrift: a CfDef as a column family,
// defaults filled in.
func (s *Service) familyFromThrift(def *cassandra19.CfDef) (*schema.ColumnFamily, error) {
	cf := &schema.ColumnFamily{Keyspace: def.Keyspace, Name: def.Name, GCGraceSeconds: schema.DefaultGCGraceSeconds, Options: schema.DefaultFamilyOptions()}
	switch t := def.GetColumnType(); t {
	case "Standard":
	case "Super":
		cf.Super = true
	default:
		return nil, invalid("Invalid column type %s", t)
	}
	var err error
	if cf.Comparator, err = s.parse(def.GetComparatorType()); err != nil {
		return nil, err
	}
	if cf.Super {
		sub := def.GetSubcomparatorType()
		if sub == "" {
			sub = "BytesType"
		}
		if cf.SubComparator, err = s.parse(sub); err != nil {
			return nil, err
		}
	} else if def.SubcomparatorType != nil {
		// Refused by validateFamily, as CFMetaData.validate refused it.
		if cf.SubComparator, err = s.parse(*def.SubcomparatorType); err != nil {
			return nil, err
		}
	}
	if def.KeyValidationClass != nil {
		if cf.KeyValidator, err = s.parse(*def.KeyValidationClass); err != nil {
			return nil, err
		}
	}
	if def.DefaultValidationClass != nil {
		if cf.DefaultValidator, err = s.parse(*def.DefaultValidationClass); err != nil {
			return nil, err
		}
	}
	if def.Comment != nil {
		cf.Comment, cf.HasComment = *def.Comment, true
	}
	if def.GcGraceSeconds != nil {
		cf.GCGraceSeconds = *def.GcGraceSeconds
	}
	if def.DefaultTimeToLive != nil {
		cf.DefaultTTL = *def.DefaultTimeToLive
	}
	o := &cf.Options
	if def.ReadRepairChance != nil {
		o.ReadRepairChance = *def.ReadRepairChance
	}
	o.DCLocalReadRepairChance = def.DclocalReadRepairChance
	if def.ReplicateOnWrite != nil {
		v := *def.ReplicateOnWrite
		o.ReplicateOnWrite = &v
	}
	if def.MinCompactionThreshold != nil {
		o.MinCompactionThreshold = *def.MinCompactionThreshold
	}
	if def.MaxCompactionThreshold != nil {
		o.MaxCompactionThreshold = *def.MaxCompactionThreshold
	}
	if def.CompactionStrategy != nil {
		o.CompactionStrategy = *def.CompactionStrategy
		if !strings.Contains(o.CompactionStrategy, ".") {
			o.CompactionStrategy = "org.apache.cassandra.db.compaction." + o.CompactionStrategy
		}
		if !compactionStrategies[o.CompactionStrategy] {
			return nil, invalid("Unable to find compaction strategy class '%s'", o.CompactionStrategy)
		}
	}
	if def.CompactionStrategyOptions != nil {
		o.CompactionStrategyOptions = copyMap(def.CompactionStrategyOptions)
	}
	if def.CompressionOptions != nil {
		o.CompressionOptions = copyMap(def.CompressionOptions)
		// CompressionParameters.parseCompressorClass: a compressor named
		// without its package is one of Cassandra's, and is described back
		// by its class name.
		if c := o.CompressionOptions["sstable_compression"]; c != "" {
			if !strings.Contains(c, ".") {
				c = "org.apache.cassandra.io.compress." + c
			}
			if !compressors[c] {
				return nil, invalid("Could not create Compression for type %s", c)
			}
			o.CompressionOptions["sstable_compression"] = c
		}
	}
	if def.BloomFilterFpChance != nil {
		v := *def.BloomFilterFpChance
		o.BloomFilterFPChance = &v
	}
	o.Caching = strings.ToUpper(def.Caching)
	if def.KeyAlias != nil {
		o.KeyAlias = def.KeyAlias
	}
	if def.PopulateIoCacheOnFlush != nil {
		v := *def.PopulateIoCacheOnFlush
		o.PopulateIOCacheOnFlush = &v
	}
	// Properties of 2.0 and 2.1, which 1.2 lacks: kept as sent and
	// described back, so that a client that reads a CfDef and sends it
	// back changes nothing.
	o.IndexInterval = copyInt32(def.IndexInterval)
	o.MemtableFlushPeriodMs = copyInt32(def.MemtableFlushPeriodInMs)
	o.MinIndexInterval = copyInt32(def.MinIndexInterval)
	o.MaxIndexInterval = copyInt32(def.MaxIndexInterval)
	if def.SpeculativeRetry != cassandra19.CfDef_SpeculativeRetry_DEFAULT {
		o.SpeculativeRetry = def.SpeculativeRetry
	}
	if def.CellsPerRowToCache != cassandra19.CfDef_CellsPerRowToCache_DEFAULT {
		o.CellsPerRowToCache = def.CellsPerRowToCache
	}
	for _, tr := range def.Triggers {
		if tr != nil {
			o.Triggers = append(o.Triggers, schema.Trigger{Name: tr.Name, Options: copyMap(tr.Options)})
		}
	}
	for _, cd := range def.ColumnMetadata {
		v, err := s.parse(cd.ValidationClass)
		if err != nil {
			return nil, err
		}
		col := schema.ColumnDef{Name: cd.Name, Validator: v}
		if cd.IndexType != nil {
			col.Index = &schema.IndexDef{Type: schema.IndexType(*cd.IndexType), Name: cd.GetIndexName()}
			if cd.IndexOptions != nil {
				col.Index.Options = copyMap(cd.IndexOptions)
			}
		} else if cd.IndexName != nil {
			return nil, invalid("Index name cannot be set without index type")
		}
		cf.Columns = append(cf.Columns, col)
	}
	// 1.2 kept column_metadata in a map by name: a name sent twice is the
	// last definition, and the columns are described in name order.
	sort.SliceStable(cf.Columns, func(i, j int) bool { return string(cf.Columns[i].Name) < string(cf.Columns[j].Name) })
	dedup := cf.Columns[:0]
	for i, col := range cf.Columns {
		if i+1 < len(cf.Columns) && string(cf.Columns[i+1].Name) == string(col.Name) {
			continue
		}
		dedup = append(dedup, col)
	}
	cf.Columns = dedup
	// Setting column_metadata builds 1.2's CQL 3 view of the family, which
	// prints every declared name with the comparator: a name it refuses
	// fails there, with the type's own message, before validate() runs.
	if !cf.Super {
		for _, col := range cf.Columns {
			if err := marshal.StringError(cf.Comparator, col.Name); err != nil {
				return nil, invalid("%s", err.Error())
			}
		}
	}
	return cf, nil
}

// compactionStrategies are the compaction strategies of Cassandra 1.2.
var compactionStrategies = map[string]bool{
	"org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy": true,
	"org.apache.cassandra.db.compaction.LeveledCompactionStrategy":    true,
}

// validateFamily is CFMetaData.validate, in its order: names, the
// subcomparator, counters, the key alias, the declared columns and their
// indexes, the compaction thresholds and the bloom filter.
func validateFamily(sch *schema.Schema, cf *schema.ColumnFamily) error {
	if !nameRE.MatchString(cf.Keyspace) {
		return invalid("Keyspace name must not be empty, more than 48 characters long, or contain non-alphanumeric-underscore characters (got \"%s\")", cf.Keyspace)
	}
	if !nameRE.MatchString(cf.Name) {
		return invalid("ColumnFamily name must not be empty, more than 48 characters long, or contain non-alphanumeric-underscore characters (got \"%s\")", cf.Name)
	}
	if !cf.Super && cf.SubComparator != nil {
		return invalid("Subcolumn comparator (%s) is invalid for standard column family %s", cf.SubComparator.Name(), cf.Name)
	}
	if isCounter(cf.Comparator) {
		return invalid("CounterColumnType is not a valid comparator")
	}
	if isCounter(cf.SubComparator) {
		return invalid("CounterColumnType is not a valid sub-column comparator")
	}
	if isCounter(cf.KeyValidator) {
		return invalid("CounterColumnType is not a valid key validator")
	}
	names := cf.Comparator
	if cf.Super {
		names = cf.SubComparator
	}
	counters := isCounter(cf.DefaultValidator)
	for _, col := range cf.Columns {
		if isCounter(col.Validator) != counters {
			if counters {
				return invalid("Cannot add a non counter column (%s) in a counter column family", nameString(names, col.Name))
			}
			return invalid("Cannot add a counter column (%s) in a non counter column family", nameString(names, col.Name))
		}
	}
	alias := cf.Options.KeyAlias
	for _, col := range cf.Columns {
		if alias != nil && string(alias) == string(col.Name) {
			return invalid("Cannot have key alias equals to a column name: %s", javaUTF8(alias))
		}
	}
	if alias != nil && !utf8.Valid(alias) {
		return invalid("Key alias must be UTF8")
	}
	taken := map[string]bool{}
	for _, ks := range sch.Keyspaces {
		for _, other := range ks.ColumnFamilies {
			if other.Name == cf.Name {
				continue // existingIndexNames(cfName) leaves out every family of the name
			}
			for _, col := range other.Columns {
				if col.Index != nil {
					taken[col.Index.Name] = true
				}
			}
		}
	}
	for _, col := range cf.Columns {
		if err := names.Validate(col.Name); err != nil {
			return invalid("Column name %s is not valid for comparator %s", hex.EncodeToString(col.Name), names.Name())
		}
		if col.Index == nil {
			continue
		}
		if cf.Super {
			return invalid("Secondary indexes are not supported on super column families")
		}
		if !indexNameRE.MatchString(col.Index.Name) {
			return invalid("Illegal index name %s", col.Index.Name)
		}
		if taken[col.Index.Name] {
			return invalid("Duplicate index name %s", col.Index.Name)
		}
		taken[col.Index.Name] = true
		if col.Index.Type == schema.IndexCustom {
			if _, ok := col.Index.Options["class_name"]; !ok {
				return invalid("Required index option missing: class_name")
			}
		}
		if err := refuseIndexType(col.Index); err != nil {
			return err
		}
	}
	if min, max := cf.Options.MinCompactionThreshold, cf.Options.MaxCompactionThreshold; max != 0 {
		if min <= 1 {
			return invalid("Min compaction threshold cannot be less than 2 (got %d).", min)
		}
		if min > max {
			return invalid("Min compaction threshold (got %d) cannot be greater than max compaction threshold (got %d)", min, max)
		}
	}
	if fp := cf.Options.BloomFilterFPChance; fp != nil && *fp == 0 {
		return invalid("Zero false positives is impossible; bloom filter false positive chance bffpc must be 0 < bffpc <= 1")
	}
	return nil
}

var indexNameRE = regexp.MustCompile(`^\w+$`)

func isCounter(t marshal.Comparator) bool {
	return t != nil && strings.HasSuffix(t.Name(), ".CounterColumnType")
}

// javaUTF8 is bytes decoded as Java's UTF8Type.compose decodes them.
func javaUTF8(b []byte) string { return strings.ToValidUTF8(string(b), "\uFFFD") }

// addDefaultIndexNames is CFMetaData.addDefaultIndexNames: an indexed
// column of a family being updated keeps its index's name, and one
// without a name gets "<cf>_<column>_idx" (non-word characters removed),
// made unique among every index name of the schema with "_1", "_2", ...
func addDefaultIndexNames(sch *schema.Schema, cf *schema.ColumnFamily) error {
	if old := sch.ColumnFamily(cf.Keyspace, cf.Name); old != nil {
		for i := range cf.Columns {
			col := &cf.Columns[i]
			prev := old.Column(col.Name)
			if col.Index == nil || prev == nil || prev.Index == nil || prev.Index.Name == "" {
				continue
			}
			if col.Index.Name != "" && col.Index.Name != prev.Index.Name {
				return invalid("Can't modify index name: was '%s' changed to '%s'.", prev.Index.Name, col.Index.Name)
			}
			col.Index.Name = prev.Index.Name
		}
	}
	existing := map[string]bool{}
	for _, ks := range sch.Keyspaces {
		for _, other := range ks.ColumnFamilies {
			for _, col := range other.Columns {
				if col.Index != nil {
					existing[col.Index.Name] = true
				}
			}
		}
	}
	names := cf.Comparator
	if cf.Super {
		names = cf.SubComparator
	}
	for i := range cf.Columns {
		col := &cf.Columns[i]
		if col.Index == nil || col.Index.Name != "" {
			continue
		}
		// getString validates first: a name the comparator refuses is
		// refused here with the type's own message, before validate()'s
		// "Column name ... is not valid for comparator ...".
		if err := marshal.StringError(names, col.Name); err != nil {
			return invalid("%s", err.Error())
		}
		base := nonWord.ReplaceAllString(cf.Name+"_"+nameString(names, col.Name)+"_idx", "")
		name := base
		for n := 1; existing[name]; n++ {
			name = base + "_" + strconv.Itoa(n)
		}
		col.Index.Name = name
	}
	return nil
}

var nonWord = regexp.MustCompile(`\W`)

// compressors are the sstable compressors of Cassandra 1.2.
var compressors = map[string]bool{
	"org.apache.cassandra.io.compress.SnappyCompressor":  true,
	"org.apache.cassandra.io.compress.LZ4Compressor":     true,
	"org.apache.cassandra.io.compress.DeflateCompressor": true,
}

// nameString is AbstractType.getString of a column name: the type's own
// String where it has one (1.2's types), else for 0.6's types by name;
// other types print hex, as BytesType does.
func nameString(t marshal.Comparator, name []byte) string {
	// Cassandra 1.2's types print themselves (marshal.Parse's).
	if p, ok := t.(interface{ String([]byte) string }); ok {
		return p.String(name)
	}
	short := ""
	if t != nil {
		short = strings.TrimPrefix(t.Name(), "org.apache.cassandra.db.marshal.")
	}
	switch short {
	case "AsciiType", "UTF8Type":
		return string(name)
	case "LongType":
		if len(name) == 8 {
			return strconv.FormatInt(int64(binary.BigEndian.Uint64(name)), 10)
		}
	case "Int32Type":
		if len(name) == 4 {
			return strconv.FormatInt(int64(int32(binary.BigEndian.Uint32(name))), 10)
		}
	case "LexicalUUIDType", "TimeUUIDType", "UUIDType":
		if id, err := uuid.FromBytes(name); err == nil {
			return id.String()
		}
	}
	return hex.EncodeToString(name)
}

func copyInt32(p *int32) *int32 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// parse resolves a type name sent by a client.
func (s *Service) parse(name string) (marshal.Comparator, error) {
	if s.parseType != nil {
		t, err := s.parseType(name)
		if err != nil {
			return nil, invalid("%s", err.Error())
		}
		return t, nil
	}
	t, err := marshal.Lookup(name)
	if err != nil {
		return nil, invalid("%s", err.Error())
	}
	return t, nil
}
