// Package schema is the typed keyspace and column family definitions that
// the handlers validate against and the engines store by. A Schema value is
// never modified once built, so it is shared freely; a change builds a new
// Schema with a new Version.
package schema

import (
	"sort"

	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/marshal"
)

// SystemKeyspace is the name of the built-in keyspace.
const SystemKeyspace = "system"

// ColumnFamily is one column family of a keyspace.
type ColumnFamily struct {
	Keyspace string
	Name     string
	Super    bool
	// Comparator orders top-level names: columns of a Standard column
	// family, super columns of a Super one.
	Comparator marshal.Comparator
	// SubComparator orders subcolumns; nil for a Standard column family.
	SubComparator marshal.Comparator
	Comment       string
	HasComment    bool

	// The 19.x API's properties (family19.go). KeyValidator checks row
	// keys and DefaultValidator the values of columns that Columns does
	// not declare; nil means BytesType, which accepts anything.
	KeyValidator     marshal.Comparator
	DefaultValidator marshal.Comparator
	Columns          []ColumnDef
	// GCGraceSeconds is how long a tombstone outlives its deletion; 0
	// means the store's setting (GCGraceSeconds of storage-conf.xml).
	GCGraceSeconds int32
	// DefaultTTL (2.0's default_time_to_live) is given to writes that
	// carry no TTL of their own; 0 means none.
	DefaultTTL int32
	// ID is the column family's id as the 19.x API describes it.
	ID      int32
	Options FamilyOptions
	// Types12: the family's types are Cassandra 1.2's where 0.6's of the
	// same name order differently (TimeUUIDType, whose ties of equal
	// timestamps 1.2 breaks by signed bytes and 0.6 by unsigned ones).
	// The catalog sets it on families created through the 19.x API; a
	// family of storage-conf.xml, or one created before the catalog set
	// it (whose stored names are in 0.6's order), resolves 0.6's.
	Types12 bool
}

// Column returns the declared column of that name, or nil.
func (cf *ColumnFamily) Column(name []byte) *ColumnDef {
	for i := range cf.Columns {
		if string(cf.Columns[i].Name) == string(name) {
			return &cf.Columns[i]
		}
	}
	return nil
}

// Type is "Super" or "Standard", as describe_keyspace reports it.
func (cf *ColumnFamily) Type() string {
	if cf.Super {
		return "Super"
	}
	return "Standard"
}

// Keyspace is one keyspace and its column families.
type Keyspace struct {
	Name                     string
	ReplicationFactor        int
	ReplicaPlacementStrategy string
	EndPointSnitch           string
	ColumnFamilies           map[string]*ColumnFamily
	// Options are the keyspace's 19.x replication settings.
	Options KeyspaceOptions
	// System is true for the built-in "system" keyspace, which clients may
	// read but not write.
	System bool
}

// Schema is every keyspace of a node and the partitioner that places rows.
type Schema struct {
	ClusterName string
	Partitioner dht.Partitioner
	Keyspaces   map[string]*Keyspace
	// Version identifies this schema (a UUID as the 19.x API reports it);
	// every change gives a new one.
	Version string
}

// Keyspace returns the named keyspace, or nil.
func (s *Schema) Keyspace(name string) *Keyspace { return s.Keyspaces[name] }

// ColumnFamily returns the named column family, or nil if the keyspace or
// the column family does not exist.
func (s *Schema) ColumnFamily(keyspace, name string) *ColumnFamily {
	ks := s.Keyspaces[keyspace]
	if ks == nil {
		return nil
	}
	return ks.ColumnFamilies[name]
}

// KeyspaceNames returns every keyspace name, "system" included, sorted.
func (s *Schema) KeyspaceNames() []string {
	names := make([]string, 0, len(s.Keyspaces))
	for n := range s.Keyspaces {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
