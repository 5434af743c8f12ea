package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/marshal"
)

// EncodingFormat is the format Marshal writes. Unmarshal reads every
// format up to it and refuses a later one, written by a newer thriftd,
// rather than misread it.
const EncodingFormat = 1

// Record is what the schema catalog records in a store: the schema, and
// the names of the storage-conf.xml definitions the catalog has taken in
// ("Keyspace" and "Keyspace.ColumnFamily"), so that one dropped through
// the API is not created again from the file at the next start.
type Record struct {
	Schema   *Schema
	FromFile []string
}

// The encoding is JSON, with every type by its class name. Pointers that
// are nil are left out, so an unset property stays unset.
type encSchema struct {
	Format      int           `json:"format"`
	Version     string        `json:"version"`
	ClusterName string        `json:"cluster_name"`
	Partitioner string        `json:"partitioner"`
	Keyspaces   []encKeyspace `json:"keyspaces"`
	FromFile    []string      `json:"from_file,omitempty"`
}

type encKeyspace struct {
	Name                     string            `json:"name"`
	ReplicationFactor        int               `json:"replication_factor,omitempty"`
	ReplicaPlacementStrategy string            `json:"replica_placement_strategy,omitempty"`
	EndPointSnitch           string            `json:"end_point_snitch,omitempty"`
	StrategyClass            string            `json:"strategy_class"`
	StrategyOptions          map[string]string `json:"strategy_options,omitempty"`
	DurableWrites            bool              `json:"durable_writes"`
	ColumnFamilies           []encFamily       `json:"column_families"`
}

type encFamily struct {
	Name             string      `json:"name"`
	Super            bool        `json:"super,omitempty"`
	Comparator       string      `json:"comparator"`
	SubComparator    string      `json:"subcomparator,omitempty"`
	Comment          string      `json:"comment,omitempty"`
	HasComment       bool        `json:"has_comment,omitempty"`
	KeyValidator     string      `json:"key_validator,omitempty"`
	DefaultValidator string      `json:"default_validator,omitempty"`
	Columns          []encColumn `json:"columns,omitempty"`
	GCGraceSeconds   int32       `json:"gc_grace_seconds"`
	DefaultTTL       int32       `json:"default_time_to_live,omitempty"`
	ID               int32       `json:"id"`
	Types12          bool        `json:"types_1_2,omitempty"`

	ReadRepairChance          jfloat            `json:"read_repair_chance"`
	DCLocalReadRepairChance   jfloat            `json:"dclocal_read_repair_chance"`
	ReplicateOnWrite          *bool             `json:"replicate_on_write,omitempty"`
	MinCompactionThreshold    int32             `json:"min_compaction_threshold"`
	MaxCompactionThreshold    int32             `json:"max_compaction_threshold"`
	CompactionStrategy        string            `json:"compaction_strategy,omitempty"`
	CompactionStrategyOptions map[string]string `json:"compaction_strategy_options,omitempty"`
	CompressionOptions        map[string]string `json:"compression_options,omitempty"`
	BloomFilterFPChance       *jfloat           `json:"bloom_filter_fp_chance,omitempty"`
	Caching                   string            `json:"caching,omitempty"`
	KeyAlias                  []byte            `json:"key_alias,omitempty"`
	PopulateIOCacheOnFlush    *bool             `json:"populate_io_cache_on_flush,omitempty"`
	IndexInterval             *int32            `json:"index_interval,omitempty"`
	MemtableFlushPeriodMs     *int32            `json:"memtable_flush_period_in_ms,omitempty"`
	SpeculativeRetry          string            `json:"speculative_retry,omitempty"`
	CellsPerRowToCache        string            `json:"cells_per_row_to_cache,omitempty"`
	MinIndexInterval          *int32            `json:"min_index_interval,omitempty"`
	MaxIndexInterval          *int32            `json:"max_index_interval,omitempty"`
	Triggers                  []encTrigger      `json:"triggers,omitempty"`
	// Present distinguishes an empty map from an absent one where the
	// handler tells them apart: the option maps are always recorded.
	HasCompactionOptions  bool `json:"has_compaction_strategy_options,omitempty"`
	HasCompressionOptions bool `json:"has_compression_options,omitempty"`
}

type encColumn struct {
	Name      []byte    `json:"name"`
	Validator string    `json:"validator"`
	Index     *encIndex `json:"index,omitempty"`
}

type encIndex struct {
	Type    IndexType         `json:"type"`
	Name    string            `json:"name,omitempty"`
	Options map[string]string `json:"options,omitempty"`
}

type encTrigger struct {
	Name    string            `json:"name"`
	Options map[string]string `json:"options,omitempty"`
}

// Marshal encodes r for a store. The built-in system keyspace is left
// out: every thriftd builds its own. Keyspaces and column families are in
// name order, so equal schemas encode to equal bytes.
func Marshal(r Record) ([]byte, error) {
	s := r.Schema
	e := encSchema{Format: EncodingFormat, Version: s.Version, ClusterName: s.ClusterName, Keyspaces: []encKeyspace{}}
	if s.Partitioner != nil {
		e.Partitioner = s.Partitioner.Name()
	}
	e.FromFile = append([]string(nil), r.FromFile...)
	sort.Strings(e.FromFile)
	for _, name := range s.KeyspaceNames() {
		ks := s.Keyspaces[name]
		if ks.System {
			continue
		}
		ek := encKeyspace{
			Name: ks.Name, ReplicationFactor: ks.ReplicationFactor, ReplicaPlacementStrategy: ks.ReplicaPlacementStrategy,
			EndPointSnitch: ks.EndPointSnitch, StrategyClass: ks.Options.StrategyClass, StrategyOptions: ks.Options.StrategyOptions,
			DurableWrites: ks.Options.DurableWrites, ColumnFamilies: []encFamily{},
		}
		names := make([]string, 0, len(ks.ColumnFamilies))
		for n := range ks.ColumnFamilies {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			ek.ColumnFamilies = append(ek.ColumnFamilies, encodeFamily(ks.ColumnFamilies[n]))
		}
		e.Keyspaces = append(e.Keyspaces, ek)
	}
	return json.Marshal(e)
}

func typeName(t marshal.Comparator) string {
	if t == nil {
		return ""
	}
	return t.Name()
}

func encodeFamily(cf *ColumnFamily) encFamily {
	o := cf.Options
	f := encFamily{
		Name: cf.Name, Super: cf.Super, Comparator: typeName(cf.Comparator), SubComparator: typeName(cf.SubComparator),
		Comment: cf.Comment, HasComment: cf.HasComment, KeyValidator: typeName(cf.KeyValidator),
		DefaultValidator: typeName(cf.DefaultValidator), GCGraceSeconds: cf.GCGraceSeconds, DefaultTTL: cf.DefaultTTL, ID: cf.ID,
		Types12:          cf.Types12,
		ReadRepairChance: jfloat(o.ReadRepairChance), DCLocalReadRepairChance: jfloat(o.DCLocalReadRepairChance),
		ReplicateOnWrite: o.ReplicateOnWrite, MinCompactionThreshold: o.MinCompactionThreshold,
		MaxCompactionThreshold: o.MaxCompactionThreshold, CompactionStrategy: o.CompactionStrategy,
		CompactionStrategyOptions: o.CompactionStrategyOptions, CompressionOptions: o.CompressionOptions,
		HasCompactionOptions: o.CompactionStrategyOptions != nil, HasCompressionOptions: o.CompressionOptions != nil,
		BloomFilterFPChance: (*jfloat)(o.BloomFilterFPChance), Caching: o.Caching, KeyAlias: o.KeyAlias,
		PopulateIOCacheOnFlush: o.PopulateIOCacheOnFlush, IndexInterval: o.IndexInterval,
		MemtableFlushPeriodMs: o.MemtableFlushPeriodMs, SpeculativeRetry: o.SpeculativeRetry,
		CellsPerRowToCache: o.CellsPerRowToCache, MinIndexInterval: o.MinIndexInterval, MaxIndexInterval: o.MaxIndexInterval,
	}
	for _, c := range cf.Columns {
		ec := encColumn{Name: c.Name, Validator: typeName(c.Validator)}
		if c.Index != nil {
			ec.Index = &encIndex{Type: c.Index.Type, Name: c.Index.Name, Options: c.Index.Options}
		}
		f.Columns = append(f.Columns, ec)
	}
	for _, t := range o.Triggers {
		f.Triggers = append(f.Triggers, encTrigger{Name: t.Name, Options: t.Options})
	}
	return f
}

// Unmarshal decodes what Marshal wrote, resolving every type name with
// parseType, or with parseType12 in a family whose Types12 is set, and
// adds the built-in system keyspace. An error says what is wrong with the
// bytes; the caller adds where they came from.
func Unmarshal(data []byte, parseType, parseType12 func(string) (marshal.Comparator, error)) (Record, error) {
	var e encSchema
	if err := json.Unmarshal(data, &e); err != nil {
		return Record{}, fmt.Errorf("recorded schema is unreadable: %w", err)
	}
	if e.Format < 1 || e.Format > EncodingFormat {
		return Record{}, fmt.Errorf("recorded schema is in format %d, which this thriftd (format %d) cannot read; use the thriftd that wrote it", e.Format, EncodingFormat)
	}
	p, err := dht.Lookup(e.Partitioner)
	if err != nil {
		return Record{}, fmt.Errorf("recorded schema: %v", err)
	}
	s := &Schema{ClusterName: e.ClusterName, Partitioner: p, Version: e.Version, Keyspaces: map[string]*Keyspace{}}
	resolve := func(types12 bool) func(string) (marshal.Comparator, error) {
		return func(name string) (marshal.Comparator, error) {
			if name == "" {
				return nil, nil
			}
			parse := parseType
			if types12 {
				parse = parseType12
			}
			t, err := parse(name)
			if err != nil {
				return nil, fmt.Errorf("recorded schema: %v", err)
			}
			return t, nil
		}
	}
	for _, ek := range e.Keyspaces {
		ks := &Keyspace{
			Name: ek.Name, ReplicationFactor: ek.ReplicationFactor, ReplicaPlacementStrategy: ek.ReplicaPlacementStrategy,
			EndPointSnitch: ek.EndPointSnitch, ColumnFamilies: map[string]*ColumnFamily{},
			Options: KeyspaceOptions{StrategyClass: ek.StrategyClass, StrategyOptions: ek.StrategyOptions, DurableWrites: ek.DurableWrites},
		}
		for _, f := range ek.ColumnFamilies {
			cf, err := decodeFamily(ek.Name, f, resolve(f.Types12))
			if err != nil {
				return Record{}, err
			}
			ks.ColumnFamilies[cf.Name] = cf
		}
		s.Keyspaces[ks.Name] = ks
	}
	s.Keyspaces[SystemKeyspace] = systemKeyspace()
	return Record{Schema: s, FromFile: e.FromFile}, nil
}

func decodeFamily(keyspace string, f encFamily, parse func(string) (marshal.Comparator, error)) (*ColumnFamily, error) {
	cf := &ColumnFamily{
		Keyspace: keyspace, Name: f.Name, Super: f.Super, Comment: f.Comment, HasComment: f.HasComment,
		GCGraceSeconds: f.GCGraceSeconds, DefaultTTL: f.DefaultTTL, ID: f.ID, Types12: f.Types12,
		Options: FamilyOptions{
			ReadRepairChance: float64(f.ReadRepairChance), DCLocalReadRepairChance: float64(f.DCLocalReadRepairChance),
			ReplicateOnWrite: f.ReplicateOnWrite, MinCompactionThreshold: f.MinCompactionThreshold,
			MaxCompactionThreshold: f.MaxCompactionThreshold, CompactionStrategy: f.CompactionStrategy,
			CompactionStrategyOptions: f.CompactionStrategyOptions, CompressionOptions: f.CompressionOptions,
			BloomFilterFPChance: (*float64)(f.BloomFilterFPChance), Caching: f.Caching, KeyAlias: f.KeyAlias,
			PopulateIOCacheOnFlush: f.PopulateIOCacheOnFlush, IndexInterval: f.IndexInterval,
			MemtableFlushPeriodMs: f.MemtableFlushPeriodMs, SpeculativeRetry: f.SpeculativeRetry,
			CellsPerRowToCache: f.CellsPerRowToCache, MinIndexInterval: f.MinIndexInterval, MaxIndexInterval: f.MaxIndexInterval,
		},
	}
	if f.HasCompactionOptions && cf.Options.CompactionStrategyOptions == nil {
		cf.Options.CompactionStrategyOptions = map[string]string{}
	}
	if f.HasCompressionOptions && cf.Options.CompressionOptions == nil {
		cf.Options.CompressionOptions = map[string]string{}
	}
	where := func(err error) error { return fmt.Errorf("column family %s.%s: %w", keyspace, f.Name, err) }
	var err error
	if cf.Comparator, err = parse(f.Comparator); err != nil {
		return nil, where(err)
	}
	if cf.Comparator == nil {
		return nil, where(fmt.Errorf("recorded schema has no comparator"))
	}
	if cf.SubComparator, err = parse(f.SubComparator); err != nil {
		return nil, where(err)
	}
	if cf.Super && cf.SubComparator == nil {
		return nil, where(fmt.Errorf("recorded schema has no subcomparator for a Super column family"))
	}
	if cf.KeyValidator, err = parse(f.KeyValidator); err != nil {
		return nil, where(err)
	}
	if cf.DefaultValidator, err = parse(f.DefaultValidator); err != nil {
		return nil, where(err)
	}
	for _, c := range f.Columns {
		v, err := parse(c.Validator)
		if err != nil {
			return nil, where(err)
		}
		col := ColumnDef{Name: c.Name, Validator: v}
		if c.Index != nil {
			col.Index = &IndexDef{Type: c.Index.Type, Name: c.Index.Name, Options: c.Index.Options}
		}
		cf.Columns = append(cf.Columns, col)
	}
	for _, t := range f.Triggers {
		cf.Options.Triggers = append(cf.Options.Triggers, Trigger{Name: t.Name, Options: t.Options})
	}
	return cf, nil
}

// jfloat is a float64 that also encodes NaN and the infinities, which a
// client may send as a chance and JSON numbers cannot hold: as the
// strings "NaN", "+Inf" and "-Inf".
type jfloat float64

func (f jfloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	switch {
	case math.IsNaN(v):
		return []byte(`"NaN"`), nil
	case math.IsInf(v, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-Inf"`), nil
	}
	return json.Marshal(v)
}

func (f *jfloat) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"NaN"`:
		*f = jfloat(math.NaN())
		return nil
	case `"+Inf"`:
		*f = jfloat(math.Inf(1))
		return nil
	case `"-Inf"`:
		*f = jfloat(math.Inf(-1))
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = jfloat(v)
	return nil
}
