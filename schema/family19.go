package schema

import (
	"strconv"

	"github.com/thriftd/thriftd/marshal"
)

// The parts of a definition that the 19.x API (Cassandra 0.7-2.1) added.
// A keyspace or column family declared in storage-conf.xml has them too,
// filled with the values Cassandra 0.7 gave a definition converted from
// the 0.6 file, so that it is described as a KsDef and can be changed
// through the system_* calls like one created at run time.

// IndexType is ColumnDef.index_type; the values are the IDL's.
type IndexType int32

// The index types of the 19.x IDL.
const (
	IndexKeys       IndexType = 0
	IndexCustom     IndexType = 1
	IndexComposites IndexType = 2
)

// ColumnDef is a column a column family declares (CfDef.column_metadata):
// the type its values must have, and an index on it.
type ColumnDef struct {
	Name      []byte
	Validator marshal.Comparator
	// Index is nil when the column is not indexed.
	Index *IndexDef
}

// IndexDef is a secondary index on one declared column.
type IndexDef struct {
	Type IndexType
	// Name is index_name; empty when none was given.
	Name    string
	Options map[string]string
}

// Trigger is a CfDef trigger (2.0): kept and described back, never run.
type Trigger struct {
	Name    string
	Options map[string]string
}

// FamilyOptions are the CfDef properties that do not change what a read or
// a write does in thriftd: they are validated, kept and described back as
// the real server describes them. A nil pointer is a property the real
// server leaves unset when it describes the column family.
type FamilyOptions struct {
	ReadRepairChance          float64
	DCLocalReadRepairChance   float64
	ReplicateOnWrite          *bool
	MinCompactionThreshold    int32
	MaxCompactionThreshold    int32
	CompactionStrategy        string
	CompactionStrategyOptions map[string]string
	CompressionOptions        map[string]string
	BloomFilterFPChance       *float64
	Caching                   string
	KeyAlias                  []byte
	PopulateIOCacheOnFlush    *bool
	IndexInterval             *int32
	MemtableFlushPeriodMs     *int32
	SpeculativeRetry          string
	CellsPerRowToCache        string
	MinIndexInterval          *int32
	MaxIndexInterval          *int32
	Triggers                  []Trigger
}

// KeyspaceOptions are a keyspace's 19.x replication settings.
type KeyspaceOptions struct {
	// StrategyClass is the fully qualified replication strategy class.
	StrategyClass   string
	StrategyOptions map[string]string
	DurableWrites   bool
}

// Defaults of the 19.x properties, as Cassandra 1.2 gave them to a column
// family whose CfDef left them out (CFMetaData's DEFAULT_* values).
const (
	DefaultReadRepairChance       = 0.1
	DefaultGCGraceSeconds         = 864000
	DefaultMinCompactionThreshold = 4
	DefaultMaxCompactionThreshold = 32
	DefaultCompactionStrategy     = "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy"
	DefaultCompressor             = "org.apache.cassandra.io.compress.SnappyCompressor"
	DefaultCaching                = "KEYS_ONLY"
)

// DefaultFamilyOptions are the properties of a column family created
// without any: 1.2's defaults.
func DefaultFamilyOptions() FamilyOptions {
	replicateOnWrite, populateIOCache := true, false
	return FamilyOptions{
		ReadRepairChance:          DefaultReadRepairChance,
		ReplicateOnWrite:          &replicateOnWrite,
		PopulateIOCacheOnFlush:    &populateIOCache,
		MinCompactionThreshold:    DefaultMinCompactionThreshold,
		MaxCompactionThreshold:    DefaultMaxCompactionThreshold,
		CompactionStrategy:        DefaultCompactionStrategy,
		CompactionStrategyOptions: map[string]string{},
		CompressionOptions:        map[string]string{"sstable_compression": DefaultCompressor},
		Caching:                   DefaultCaching,
	}
}

// StrategyOf19 is the 19.x replication of a keyspace declared in
// storage-conf.xml: 0.7 renamed 0.6's placement strategies, and the
// replication factor became a strategy option.
func StrategyOf19(placement string, replicationFactor int) KeyspaceOptions {
	class := placement
	switch placement {
	case "org.apache.cassandra.locator.RackUnawareStrategy", "":
		class = "org.apache.cassandra.locator.SimpleStrategy"
	case "org.apache.cassandra.locator.RackAwareStrategy":
		class = "org.apache.cassandra.locator.OldNetworkTopologyStrategy"
	}
	return KeyspaceOptions{
		StrategyClass:   class,
		StrategyOptions: map[string]string{"replication_factor": strconv.Itoa(replicationFactor)},
		DurableWrites:   true,
	}
}
