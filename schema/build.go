package schema

import (
	"fmt"

	"github.com/thriftd/thriftd/config"
	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/marshal"
)

// FromConfig builds the schema a configuration declares, adding the
// built-in system keyspace. Errors name the file and the element at fault.
func FromConfig(cfg *config.Config) (*Schema, error) {
	p, err := dht.Lookup(cfg.Partitioner)
	if err != nil {
		return nil, fmt.Errorf("%s: /Storage/Partitioner: %v", cfg.Path, err)
	}
	s := &Schema{ClusterName: cfg.ClusterName, Partitioner: p, Keyspaces: map[string]*Keyspace{}}
	for _, k := range cfg.Keyspaces {
		ks := &Keyspace{
			Name:                     k.Name,
			ReplicationFactor:        k.ReplicationFactor,
			ReplicaPlacementStrategy: k.ReplicaPlacementStrategy,
			EndPointSnitch:           k.EndPointSnitch,
			ColumnFamilies:           map[string]*ColumnFamily{},
			Options:                  StrategyOf19(k.ReplicaPlacementStrategy, k.ReplicationFactor),
		}
		for _, c := range k.ColumnFamilies {
			where := fmt.Sprintf("%s: /Storage/Keyspaces/Keyspace[@Name='%s']/ColumnFamily[@Name='%s']", cfg.Path, k.Name, c.Name)
			cf := &ColumnFamily{Keyspace: k.Name, Name: c.Name, Super: c.ColumnType == "Super", Comment: c.Comment, HasComment: c.HasComment,
				GCGraceSeconds: int32(cfg.GCGraceSeconds), Options: DefaultFamilyOptions()}
			if cf.Comparator, err = lookup(c.CompareWith); err != nil {
				return nil, fmt.Errorf("%s/@CompareWith: %v", where, err)
			}
			if cf.Super {
				if cf.SubComparator, err = lookup(c.CompareSubcolumnsWith); err != nil {
					return nil, fmt.Errorf("%s/@CompareSubcolumnsWith: %v", where, err)
				}
			}
			ks.ColumnFamilies[c.Name] = cf
		}
		s.Keyspaces[k.Name] = ks
	}
	s.Keyspaces[SystemKeyspace] = systemKeyspace()
	return s, nil
}

func lookup(class string) (marshal.Comparator, error) {
	return marshal.Lookup(class)
}

// systemKeyspace is 0.6's built-in keyspace (0.6.6 and later).
func systemKeyspace() *Keyspace {
	bytesType, err := marshal.Lookup("BytesType")
	if err != nil {
		panic("BytesType must always resolve: " + err.Error())
	}
	return &Keyspace{
		Name:              SystemKeyspace,
		ReplicationFactor: 1,
		System:            true,
		ColumnFamilies: map[string]*ColumnFamily{
			"LocationInfo": {Keyspace: SystemKeyspace, Name: "LocationInfo", Comparator: bytesType,
				Comment: "persistent metadata for the local node", HasComment: true},
			"HintsColumnFamily": {Keyspace: SystemKeyspace, Name: "HintsColumnFamily", Super: true,
				Comparator: bytesType, SubComparator: bytesType, Comment: "hinted handoff data", HasComment: true},
		},
	}
}
