package schema

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/marshal"
)

func mustType(t *testing.T, name string) marshal.Comparator {
	t.Helper()
	c, err := marshal.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// fullSchema sets every field the encoding carries to a value other than
// its zero, so a field the encoding forgets fails the round trip.
func fullSchema(t *testing.T) *Schema {
	p, err := dht.Lookup("org.apache.cassandra.dht.RandomPartitioner")
	if err != nil {
		t.Fatal(err)
	}
	yes, no := true, false
	fp := 0.01
	i1, i2, i3, i4 := int32(128), int32(3600000), int32(64), int32(2048)
	opts := FamilyOptions{
		ReadRepairChance: 0.25, DCLocalReadRepairChance: 0.5, ReplicateOnWrite: &no,
		MinCompactionThreshold: 2, MaxCompactionThreshold: 64,
		CompactionStrategy:        "org.apache.cassandra.db.compaction.LeveledCompactionStrategy",
		CompactionStrategyOptions: map[string]string{"sstable_size_in_mb": "10"},
		CompressionOptions:        map[string]string{},
		BloomFilterFPChance:       &fp, Caching: "ALL", KeyAlias: []byte("id"), PopulateIOCacheOnFlush: &yes,
		IndexInterval: &i1, MemtableFlushPeriodMs: &i2, SpeculativeRetry: "99PERCENTILE", CellsPerRowToCache: "ALL",
		MinIndexInterval: &i3, MaxIndexInterval: &i4,
		Triggers: []Trigger{{Name: "audit", Options: map[string]string{"class": "org.example.Audit"}}},
	}
	std := &ColumnFamily{
		Keyspace: "Blog", Name: "Posts", Comparator: mustType(t, "UTF8Type"), Comment: "posts", HasComment: true,
		KeyValidator: mustType(t, "LongType"), DefaultValidator: mustType(t, "AsciiType"),
		Columns: []ColumnDef{
			{Name: []byte("author"), Validator: mustType(t, "UTF8Type"), Index: &IndexDef{Type: IndexKeys, Name: "by_author", Options: map[string]string{"k": "v"}}},
			{Name: []byte{0, 0xff}, Validator: mustType(t, "BytesType")},
		},
		GCGraceSeconds: 3600, DefaultTTL: 60, ID: 1001, Options: opts,
	}
	super := &ColumnFamily{
		Keyspace: "Blog", Name: "Comments", Super: true, Comparator: mustType(t, "TimeUUIDType"),
		SubComparator: mustType(t, "LongType"), GCGraceSeconds: 10, ID: 1002, Options: DefaultFamilyOptions(),
	}
	return &Schema{
		ClusterName: "Test Cluster", Partitioner: p, Version: "0b3d8d40-6a5e-11e0-0000-242d50cf1fff",
		Keyspaces: map[string]*Keyspace{
			"Blog": {Name: "Blog", ReplicationFactor: 3, ReplicaPlacementStrategy: "org.apache.cassandra.locator.RackUnawareStrategy",
				EndPointSnitch: "org.apache.cassandra.locator.EndPointSnitch",
				ColumnFamilies: map[string]*ColumnFamily{"Posts": std, "Comments": super},
				Options: KeyspaceOptions{StrategyClass: "org.apache.cassandra.locator.NetworkTopologyStrategy",
					StrategyOptions: map[string]string{"dc1": "2"}, DurableWrites: false}},
			"Empty": {Name: "Empty", ColumnFamilies: map[string]*ColumnFamily{},
				Options: KeyspaceOptions{StrategyClass: "org.apache.cassandra.locator.SimpleStrategy",
					StrategyOptions: map[string]string{"replication_factor": "1"}, DurableWrites: true}},
			SystemKeyspace: systemKeyspace(),
		},
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	s := fullSchema(t)
	data, err := Marshal(Record{Schema: s, FromFile: []string{"Blog.Posts", "Blog"}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Unmarshal(data, marshal.Lookup, marshal.Lookup)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Schema, s) {
		t.Errorf("round trip differs:\n got %#v\nwant %#v", r.Schema.Keyspaces["Blog"], s.Keyspaces["Blog"])
		for name, cf := range s.Keyspaces["Blog"].ColumnFamilies {
			if got := r.Schema.ColumnFamily("Blog", name); !reflect.DeepEqual(got, cf) {
				t.Errorf("%s:\n got %+v\nwant %+v", name, got, cf)
			}
		}
	}
	if want := []string{"Blog", "Blog.Posts"}; !reflect.DeepEqual(r.FromFile, want) {
		t.Errorf("FromFile = %v, want %v", r.FromFile, want)
	}
	again, err := Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, data) {
		t.Errorf("encoding is not stable:\n%s\n%s", data, again)
	}
}

func TestMarshalLeavesUnsetPropertiesUnset(t *testing.T) {
	s := fullSchema(t)
	cf := s.Keyspaces["Blog"].ColumnFamilies["Comments"]
	cf.Options = FamilyOptions{}
	data, err := Marshal(Record{Schema: s})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Unmarshal(data, marshal.Lookup, marshal.Lookup)
	if err != nil {
		t.Fatal(err)
	}
	got := r.Schema.ColumnFamily("Blog", "Comments").Options
	if !reflect.DeepEqual(got, FamilyOptions{}) {
		t.Errorf("unset options came back as %+v", got)
	}
}

func TestUnmarshalRefusesALaterFormat(t *testing.T) {
	data, err := Marshal(Record{Schema: fullSchema(t)})
	if err != nil {
		t.Fatal(err)
	}
	later := bytes.Replace(data, []byte(`"format":1`), []byte(`"format":2`), 1)
	_, err = Unmarshal(later, marshal.Lookup, marshal.Lookup)
	if err == nil || !strings.Contains(err.Error(), "format 2") {
		t.Fatalf("a later format: err = %v", err)
	}
	if _, err := Unmarshal([]byte("{not json"), marshal.Lookup, marshal.Lookup); err == nil {
		t.Fatal("garbage decoded without an error")
	}
}

func TestUnmarshalNamesAnUnknownType(t *testing.T) {
	data, err := Marshal(Record{Schema: fullSchema(t)})
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(data, []byte("TimeUUIDType"), []byte("NoSuchType"), 1)
	_, err = Unmarshal(bad, marshal.Lookup, marshal.Lookup)
	if err == nil || !strings.Contains(err.Error(), "Blog.Comments") || !strings.Contains(err.Error(), "NoSuchType") {
		t.Fatalf("err = %v", err)
	}
}

func TestMarshalKeepsNaNAndInfinities(t *testing.T) {
	s := fullSchema(t)
	cf := s.Keyspaces["Blog"].ColumnFamilies["Posts"]
	inf := math.Inf(1)
	cf.Options.ReadRepairChance, cf.Options.DCLocalReadRepairChance, cf.Options.BloomFilterFPChance = math.NaN(), math.Inf(-1), &inf
	data, err := Marshal(Record{Schema: s})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Unmarshal(data, marshal.Lookup, marshal.Lookup)
	if err != nil {
		t.Fatal(err)
	}
	o := r.Schema.ColumnFamily("Blog", "Posts").Options
	if !math.IsNaN(o.ReadRepairChance) || !math.IsInf(o.DCLocalReadRepairChance, -1) || !math.IsInf(*o.BloomFilterFPChance, 1) {
		t.Fatalf("got %v %v %v", o.ReadRepairChance, o.DCLocalReadRepairChance, *o.BloomFilterFPChance)
	}
}
