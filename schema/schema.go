// Package schema is the typed keyspace and column family definitions that
// the handler validates against and the engine stores by. It is built once
// from a config.Config and then only read, so it is shared freely.
package schema

import (
	"sort"

	"github.com/thriftd/thriftd/engine/comparator"
	"github.com/thriftd/thriftd/engine/partitioner"
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
	Comparator comparator.Comparator
	// SubComparator orders subcolumns; nil for a Standard column family.
	SubComparator comparator.Comparator
	Comment       string
	HasComment    bool
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
	// System is true for the built-in "system" keyspace, which clients may
	// read but not write.
	System bool
}

// Schema is every keyspace of a node and the partitioner that places rows.
type Schema struct {
	ClusterName string
	Partitioner partitioner.Partitioner
	Keyspaces   map[string]*Keyspace
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
