package handler19

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/thriftd/thriftd/engine/comparator"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/schema"
)

// SchemaChanger applies validated schema changes, durably, and returns the
// schema version each change produced. Its errors that are the client's
// fault are *InvalidRequest; the schema catalog implements it.
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
	ks, err := c.s.keyspaceFromThrift(def)
	if err != nil {
		return "", err
	}
	for _, d := range def.CfDefs {
		cf, err := c.s.familyFromThrift(d)
		if err != nil {
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
	if c.s.schema().Keyspace(name) == nil {
		return "", invalid("Cannot drop non existing keyspace '%s'.", name)
	}
	return c.change(func(ch SchemaChanger) (string, error) { return ch.DropKeyspace(ctx, name) })
}

func (c *conn) systemAddColumnFamily(ctx context.Context, def *cassandra19.CfDef) (string, error) {
	if _, err := c.keyspaceOf(); err != nil {
		return "", err
	}
	cf, err := c.s.familyFromThrift(def)
	if err != nil {
		return "", err
	}
	ks := c.s.schema().Keyspace(cf.Keyspace)
	if ks == nil {
		return "", invalid("Cannot add column family '%s' to non existing keyspace '%s'.", cf.Name, cf.Keyspace)
	}
	if ks.ColumnFamilies[cf.Name] != nil {
		return "", invalid("Cannot add already existing column family \"%s\" to keyspace \"%s\"", cf.Name, cf.Keyspace)
	}
	return c.change(func(ch SchemaChanger) (string, error) { return ch.AddColumnFamily(ctx, cf) })
}

func (c *conn) systemUpdateColumnFamily(ctx context.Context, def *cassandra19.CfDef) (string, error) {
	old := c.s.schema().ColumnFamily(def.Keyspace, def.Name)
	if old == nil {
		return "", invalid("Could not find column family definition to modify.")
	}
	cf, err := c.s.familyFromThrift(def)
	if err != nil {
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
	if c.s.schema().ColumnFamily(ks, name) == nil {
		return "", invalid("Cannot drop non existing column family '%s' in keyspace '%s'.", name, ks)
	}
	return c.change(func(ch SchemaChanger) (string, error) { return ch.DropColumnFamily(ctx, ks, name) })
}

// change runs one schema change through the Service's SchemaChanger.
func (c *conn) change(fn func(SchemaChanger) (string, error)) (string, error) {
	if c.s.changer == nil {
		return "", errNoSchemaChanges
	}
	return fn(c.s.changer)
}

// keyspaceFromThrift is KSMetaData.fromThrift, without column families.
func (s *Service) keyspaceFromThrift(def *cassandra19.KsDef) (*schema.Keyspace, error) {
	if !nameRE.MatchString(def.Name) {
		return nil, invalid("Keyspace name must not be empty, more than 48 characters long, or contain non-alphanumeric-underscore characters (got \"%s\")", def.Name)
	}
	class := def.StrategyClass
	if !strings.Contains(class, ".") {
		class = "org.apache.cassandra.locator." + class
	}
	opts := copyMap(def.StrategyOptions)
	if def.ReplicationFactor != nil {
		opts["replication_factor"] = fmt.Sprint(*def.ReplicationFactor)
	}
	durable := def.DurableWrites
	return &schema.Keyspace{
		Name:           def.Name,
		ColumnFamilies: map[string]*schema.ColumnFamily{},
		Options:        schema.KeyspaceOptions{StrategyClass: class, StrategyOptions: opts, DurableWrites: durable},
	}, nil
}

// familyFromThrift is CFMetaData.fromThrift: a CfDef as a column family,
// defaults filled in.
func (s *Service) familyFromThrift(def *cassandra19.CfDef) (*schema.ColumnFamily, error) {
	if !nameRE.MatchString(def.Keyspace) {
		return nil, invalid("Keyspace name must not be empty, more than 48 characters long, or contain non-alphanumeric-underscore characters (got \"%s\")", def.Keyspace)
	}
	if !nameRE.MatchString(def.Name) {
		return nil, invalid("ColumnFamily name must not be empty, more than 48 characters long, or contain non-alphanumeric-underscore characters (got \"%s\")", def.Name)
	}
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
		return nil, invalid("Subcolumn comparator (%s) is invalid for standard column family %s", *def.SubcomparatorType, def.Name)
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
	}
	if def.CompactionStrategyOptions != nil {
		o.CompactionStrategyOptions = copyMap(def.CompactionStrategyOptions)
	}
	if def.CompressionOptions != nil {
		o.CompressionOptions = copyMap(def.CompressionOptions)
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
	for _, cd := range def.ColumnMetadata {
		v, err := s.parse(cd.ValidationClass)
		if err != nil {
			return nil, err
		}
		col := schema.ColumnDef{Name: cd.Name, Validator: v}
		if cd.IndexType != nil {
			col.Index = &schema.IndexDef{Type: schema.IndexType(*cd.IndexType), Name: cd.GetIndexName(), Options: copyMap(cd.IndexOptions)}
		} else if cd.IndexName != nil {
			return nil, invalid("Index name cannot be set without index type")
		}
		cf.Columns = append(cf.Columns, col)
	}
	return cf, nil
}

// parse resolves a type name sent by a client.
func (s *Service) parse(name string) (comparator.Comparator, error) {
	if s.parseType != nil {
		t, err := s.parseType(name)
		if err != nil {
			return nil, invalid("%s", err.Error())
		}
		return t, nil
	}
	t, err := comparator.Lookup(name)
	if err != nil {
		return nil, invalid("%s", err.Error())
	}
	return t, nil
}
